// A three.js scene with a throng crowd in it (docs/web.md "In three.js"): three's renderer,
// camera, lights and shadows; throng's bake and playback. URL parameters (the browser test
// uses them): count=N clip=NAME time=SECONDS size=WxH eye=x,y,z target=x,y,z fov=DEGREES
// plain=1 (black background, no ground: for coverage masks) paused=1 timing=cpu|gpu
import * as THREE from "three";
import { loadCrowd } from "throng";
import { ThrongCrowd } from "throng/three";

const params = new URLSearchParams(location.search);
const canvas = document.getElementById("stage");
const page = (window.throngThree = { ready: false, failed: false, errors: [] });
const fail = (e) => {
  page.failed = true;
  page.errors.push(String(e?.message ?? e));
  document.getElementById("error").textContent = String(e?.message ?? e);
};
const vec = (s, d) => (s ? s.split(",").map(Number) : d);

try {
  const [w, h] = (params.get("size") ?? "960x540").split("x").map(Number);
  canvas.width = w;
  canvas.height = h;
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: true });
  renderer.setSize(w, h, false);
  renderer.shadowMap.enabled = true;
  const plain = params.get("plain") === "1";
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(plain ? 0x000000 : 0x8ca8cc);

  const crowd = await loadCrowd(params.get("file") ?? "fox.glb", { timing: params.get("timing") ?? "cpu" });
  const count = Number(params.get("count") ?? 400);
  const spec = { count, time: Number(params.get("time") ?? 0) };
  if (params.has("clip")) spec.clip = params.get("clip");
  crowd.spawnCrowd(spec);
  const foxes = new ThrongCrowd(crowd, { castShadow: true });
  await foxes.ready;
  scene.add(foxes);

  // The camera: given, or framing the crowd from the front-right and above.
  const b = crowd.poseBounds();
  const size = Math.hypot(b[3] - b[0], b[4] - b[1], b[5] - b[2]);
  const side = Math.ceil(Math.sqrt(count)) * size;
  const eye = new THREE.Vector3(...vec(params.get("eye"), [side * 0.7, side * 0.6, side * 1.4]));
  const target = new THREE.Vector3(...vec(params.get("target"), [0, 0, 0]));
  // Near and far planes at 1/100 and 100 times the distance, as throng's renderer sets them.
  const distance = eye.distanceTo(target);
  const camera = new THREE.PerspectiveCamera(Number(params.get("fov") ?? 35), w / h, distance * 0.01, distance * 100);
  camera.position.copy(eye);
  camera.lookAt(target);

  if (!plain) {
    scene.add(new THREE.HemisphereLight(0xdde6ff, 0x404040, 1.2));
    const sun = new THREE.DirectionalLight(0xffffff, 2.0);
    sun.position.set(side, side * 2, side * 0.5);
    sun.castShadow = true;
    sun.shadow.mapSize.set(2048, 2048);
    const s = sun.shadow.camera;
    s.left = s.bottom = -side;
    s.right = s.top = side;
    s.far = side * 5;
    scene.add(sun);
    const ground = new THREE.Mesh(new THREE.PlaneGeometry(side * 4, side * 4), new THREE.MeshStandardMaterial({ color: 0x7a8a6a }));
    ground.rotation.x = -Math.PI / 2;
    ground.receiveShadow = true;
    scene.add(ground);
  } else {
    scene.add(new THREE.AmbientLight(0xffffff, 1));
  }

  page.renderer = renderer;
  page.scene = scene;
  page.camera = camera;
  page.crowd = crowd;
  page.foxes = foxes;
  // One frame: step playback, write the visible instances, draw; returns three's counters.
  page.frame = (dt) => {
    crowd.frame(dt);
    foxes.update(camera, h);
    renderer.render(scene, camera);
    return { calls: renderer.info.render.calls, triangles: renderer.info.render.triangles, ...foxes.stats };
  };
  page.first = page.frame(0);
  page.ready = true;
  document.getElementById("status").textContent = `${count} foxes, ${page.first.calls} draw calls`;
  if (params.get("paused") !== "1") {
    let last = performance.now();
    const tick = (now) => {
      try {
        page.frame((now - last) / 1000);
      } catch (e) {
        fail(e);
        return;
      }
      last = now;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }
} catch (e) {
  fail(e);
}
