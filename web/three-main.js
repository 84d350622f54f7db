// A three.js scene with a throng crowd in it (docs/web.md "In three.js"): three's renderer,
// camera, lights and shadows; throng's bake and playback. URL parameters (the browser test
// uses them): those of engine-page.js (plain=1 also leaves out the sun and the ground), and
// paused=1, lodBias=PIXELS, far=0 (the far tier's cards off)
import * as THREE from "three";
import { ThrongCrowd } from "throng/three";
import { crowdView, paramsCrowd, startPage } from "./engine-page.js";

const { params, canvas, page, fail, w, h, count, plain } = startPage("throngThree");

try {
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: true });
  renderer.setSize(w, h, false);
  renderer.shadowMap.enabled = true;
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(plain ? 0x000000 : 0x8ca8cc);

  const crowd = await paramsCrowd(params, count);
  const foxes = new ThrongCrowd(crowd, {
    castShadow: true,
    lodBias: Number(params.get("lodBias") ?? 1),
    farTier: params.get("far") !== "0",
  });
  await foxes.ready;
  scene.add(foxes);

  const { side, eye, target, fov, near, far } = crowdView(crowd, count, params);
  const camera = new THREE.PerspectiveCamera(fov, w / h, near, far);
  camera.position.set(...eye);
  camera.lookAt(...target);

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

  Object.assign(page, { renderer, scene, camera, crowd, foxes });
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
