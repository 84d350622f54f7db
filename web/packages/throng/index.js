// throng's npm package: the WebAssembly runtime (pkg/, built by web/build.sh) and a loader.
// `loadCrowd` gives a headless Crowd for an engine's own renderer (three.js: "throng/three",
// Babylon.js: "throng/babylon");
// `Crowd.create(canvas, …)` draws on a canvas with throng's renderer (docs/web.md).
import init, { Crowd, setPanicHandler } from "./pkg/throng_web.js";

export { Crowd, setPanicHandler };

let ready = null;

/** Loads the WebAssembly module once (later calls share it). */
export function initThrong(wasm) {
  ready ??= init(wasm === undefined ? undefined : { module_or_path: wasm });
  return ready;
}

/**
 * A baked `.glb` (bytes: ArrayBuffer or Uint8Array, or a URL to fetch) as a headless Crowd:
 * playback, events and the data an engine's renderer draws. Rejects with an Error naming what
 * is wrong with the file.
 */
export async function loadCrowd(source, options = {}) {
  await initThrong(options.wasm);
  let bytes = source;
  let name = options.name;
  if (typeof source === "string" || source instanceof URL) {
    const response = await fetch(source);
    if (!response.ok) throw new Error(`${source}: HTTP ${response.status} ${response.statusText}`);
    bytes = await response.arrayBuffer();
    name ??= String(source).split("/").pop();
  }
  if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
  if (!(bytes instanceof Uint8Array)) throw new TypeError("loadCrowd: give bytes (ArrayBuffer, Uint8Array) or a URL");
  return Crowd.headless(bytes, { timing: options.timing ?? "cpu", name: name ?? "the baked file" });
}
