import type { Crowd } from "./pkg/throng_web.js";

export interface ThrongBabylonCrowdOptions {
  /** Largest projected simplification error a LOD may make, pixels (default 1; 0: LOD 0 only). */
  lodBias?: number;
  /** Name of the root TransformNode and prefix of the meshes and materials (default "throng"). */
  name?: string;
  /** An asset baked with a far tier (`throng bake --far-tier`) draws instances whose tier texel
   *  covers at most `lodBias` pixels as one card each (default true); false keeps its coarsest
   *  mesh there. */
  farTier?: boolean;
  /** The width of the crossfade between the coarsest mesh and the card, as a share of
   *  `lodBias` (default 0.3, as throng's renderer); 0: a hard switch. */
  farFade?: number;
}

/** A headless throng Crowd drawn by Babylon.js's own WebGL2 engine. `BABYLON` is Babylon's
 *  namespace (`import * as BABYLON from "@babylonjs/core"`, or the `babylonjs` global). */
export class ThrongBabylonCrowd {
  // Babylon's types are not imported, so the package needs no Babylon build to type-check.
  constructor(BABYLON: any, scene: any, crowd: Crowd, options?: ThrongBabylonCrowdOptions);
  readonly crowd: Crowd;
  /** Parent of every mesh of the crowd (move, hide or dispose it as one). */
  readonly root: any;
  lodBias: number;
  /** Every mesh of the crowd (per primitive and LOD, then the far tier's card): shadow casters,
   *  `receiveShadows`. */
  meshes(): any[];
  /** Resolves when the scene, with the materials' textures, is ready to draw. */
  whenReady(): Promise<void>;
  /** The last update: instances in view, meshes drawn, instances per primitive and LOD,
   *  instances drawn as far-tier cards (of which `fading` also as meshes, crossfading), and the
   *  bytes it sent (tables and instance lists). */
  readonly stats: { visible: number; drawn: number; perLod: number[][]; cards: number; fading: number; uploadedBytes: number };
  /** Syncs the crowd's tables, culls, picks LODs and sends what changed; call once a frame,
   *  after `crowd.frame(dt)` and before the scene renders. */
  update(camera: any, viewportHeight: number): void;
  dispose(): void;
}
