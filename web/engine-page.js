// What the engine example pages (three.html, babylon.html) share: the URL parameters both read,
// the error line, and throng's crowd with the camera that frames it. The engine draws; this file
// knows nothing of three.js or Babylon.js.
// URL parameters: count=N clip=NAME time=SECONDS timing=cpu|gpu file=GLB size=WxH eye=x,y,z
// target=x,y,z fov=DEGREES plain=1 (black background, for coverage masks)
import { loadCrowd } from "throng";

/** The page's parameters, its canvas (`#stage`, sized by `size`, default 960×540) and what the
 * browser test reads (`window[global]`: ready, failed, errors); `fail` records an error there
 * and shows it in `#error`. */
export function startPage(global) {
  const params = new URLSearchParams(location.search);
  const canvas = document.getElementById("stage");
  const page = (window[global] = { ready: false, failed: false, errors: [] });
  const fail = (e) => {
    page.failed = true;
    page.errors.push(String(e?.message ?? e));
    document.getElementById("error").textContent = String(e?.message ?? e);
  };
  const [w, h] = (params.get("size") ?? "960x540").split("x").map(Number);
  canvas.width = w;
  canvas.height = h;
  const count = Number(params.get("count") ?? 400);
  return { params, canvas, page, fail, w, h, count, plain: params.get("plain") === "1" };
}

/** throng's crowd of the parameters: `file` (default fox.glb) played `timing`-timed, `count`
 * instances of `clip` from `time` seconds, laid out as throng lays them out. */
export async function paramsCrowd(params, count) {
  const crowd = await loadCrowd(params.get("file") ?? "fox.glb", { timing: params.get("timing") ?? "cpu" });
  const spec = { count, time: Number(params.get("time") ?? 0) };
  if (params.has("clip")) spec.clip = params.get("clip");
  crowd.spawnCrowd(spec);
  return crowd;
}

/** The camera: `eye`, `target` and `fov` (degrees) as given, or framing the square of `count`
 * instances from the front-right and above; near and far planes at 1/100 and 100 times the
 * distance, as throng's renderer sets them. `side`: the square's width. */
export function crowdView(crowd, count, params) {
  const b = crowd.poseBounds();
  const size = Math.hypot(b[3] - b[0], b[4] - b[1], b[5] - b[2]);
  const side = Math.ceil(Math.sqrt(count)) * size;
  const vec = (s, d) => (s ? s.split(",").map(Number) : d);
  const eye = vec(params.get("eye"), [side * 0.7, side * 0.6, side * 1.4]);
  const target = vec(params.get("target"), [0, 0, 0]);
  const distance = Math.hypot(eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]);
  const fov = Number(params.get("fov") ?? 35);
  return { side, eye, target, fov, near: distance * 0.01, far: distance * 100 };
}
