export { Crowd, setPanicHandler } from "./pkg/throng_web.js";
import type { Crowd } from "./pkg/throng_web.js";

/** Loads the WebAssembly module once; `wasm` overrides where pkg/throng_web_bg.wasm is fetched from. */
export function initThrong(wasm?: string | URL | BufferSource): Promise<unknown>;

export interface LoadOptions {
  /** "cpu" (default: every record rewritten each frame) or "gpu" (rows derived on the GPU
   *  from a clock; a record travels only when its playback changes). */
  timing?: "cpu" | "gpu";
  /** The file's name in error messages. */
  name?: string;
  /** Where the .wasm is, when not beside the package's pkg/throng_web.js. */
  wasm?: string | URL | BufferSource;
}

/** A baked .glb (bytes or a URL) as a headless Crowd for an engine's own renderer. */
export function loadCrowd(source: ArrayBuffer | Uint8Array | string | URL, options?: LoadOptions): Promise<Crowd>;
