import type { Camera, DataTexture, Group } from "three";
import type { Crowd } from "./pkg/throng_web.js";

export interface ThrongCrowdOptions {
  /** Instances cast the skinned shadow (default true). */
  castShadow?: boolean;
  receiveShadow?: boolean;
  /** Largest projected simplification error a LOD may make, pixels (default 1; 0: LOD 0 only). */
  lodBias?: number;
  /** An asset baked with a far tier (`throng bake --far-tier`) draws instances whose tier texel
   *  covers at most `lodBias` pixels as one card each (default true); false keeps its coarsest
   *  mesh there. */
  farTier?: boolean;
  /** The width of the crossfade between the coarsest mesh and the card, as a share of
   *  `lodBias` (default 0.3, as throng's renderer): the card starts to show where one of its
   *  texels covers `lodBias` pixels and shows alone below `(1 − farFade) · lodBias`; between,
   *  the two draw complementary halves of a screen door. 0: a hard switch. */
  farFade?: number;
}

/** A headless throng Crowd drawn by three.js's WebGLRenderer: add it to a Scene. */
export class ThrongCrowd extends Group {
  constructor(crowd: Crowd, options?: ThrongCrowdOptions);
  readonly crowd: Crowd;
  readonly boneTexture: DataTexture;
  lodBias: number;
  /** Resolves when the materials' textures are decoded. */
  readonly ready?: Promise<void>;
  /** The last update: instances in view, meshes drawn, instances per primitive and LOD,
   *  instances drawn as far-tier cards (of which `fading` also as meshes, crossfading), and the bytes it gave three to upload (tables and
   *  instance lists that changed). */
  readonly stats: { visible: number; drawn: number; perLod: number[][]; cards: number; fading: number; uploadedBytes: number };
  /** Syncs the crowd's tables, culls, picks LODs and hands three what changed; call once a
   *  frame, after `crowd.frame(dt)`. */
  update(camera: Camera, viewportHeight: number): void;
  dispose(): void;
}
