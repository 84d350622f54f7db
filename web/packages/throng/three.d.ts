import type { Camera, DataTexture, Group } from "three";
import type { Crowd } from "./pkg/throng_web.js";

export interface ThrongCrowdOptions {
  /** Instances cast the skinned shadow (default true). */
  castShadow?: boolean;
  receiveShadow?: boolean;
  /** Largest projected simplification error a LOD may make, pixels (default 1; 0: LOD 0 only). */
  lodBias?: number;
}

/** A headless throng Crowd drawn by three.js's WebGLRenderer: add it to a Scene. */
export class ThrongCrowd extends Group {
  constructor(crowd: Crowd, options?: ThrongCrowdOptions);
  readonly crowd: Crowd;
  readonly boneTexture: DataTexture;
  lodBias: number;
  /** Resolves when the materials' textures are decoded. */
  readonly ready?: Promise<void>;
  /** The last update: instances in view, meshes drawn, instances per primitive and LOD, and
   *  the bytes it gave three to upload (tables and instance lists that changed). */
  readonly stats: { visible: number; drawn: number; perLod: number[][]; uploadedBytes: number };
  /** Syncs the crowd's tables, culls, picks LODs and hands three what changed; call once a
   *  frame, after `crowd.frame(dt)`. */
  update(camera: Camera, viewportHeight: number): void;
  dispose(): void;
}
