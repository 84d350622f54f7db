// Babylon.js's own BakedVertexAnimationManager playing a texture `throng export --format
// babylon` made offline (docs/web.md "In Babylon.js"): Babylon loads the exported mesh and the
// texture JSON; throng's package lays the crowd out as throng does. URL parameters (the browser
// test uses them): dir=FOLDER (the export; default fox-babylon) name=NAME (its files' base name;
// default fox) count=N clip=NAME frame=K (the clip's exported frame to show; else it plays)
// size=WxH eye=x,y,z target=x,y,z fov=DEGREES plain=1 (black background, for coverage masks)
import { loadCrowd } from "throng";

const BABYLON = window.BABYLON;
const params = new URLSearchParams(location.search);
const canvas = document.getElementById("stage");
const page = (window.throngBabylon = { ready: false, failed: false, errors: [] });
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
  const dir = params.get("dir") ?? "fox-babylon";
  const name = params.get("name") ?? "fox";
  const engine = new BABYLON.Engine(canvas, false, { preserveDrawingBuffer: true });
  engine.setSize(w, h);
  const scene = new BABYLON.Scene(engine);
  scene.useRightHandedSystem = true; // glTF's axes: the loader adds no mirroring root
  const plain = params.get("plain") === "1";
  scene.clearColor = plain ? new BABYLON.Color4(0, 0, 0, 1) : new BABYLON.Color4(0.55, 0.66, 0.8, 1);
  new BABYLON.HemisphericLight("sky", new BABYLON.Vector3(0.3, 1, 0.2), scene);

  // The exported mesh (skinned, bind space) and Babylon's manager with the exported texture.
  const { meshes } = await BABYLON.SceneLoader.ImportMeshAsync("", `${dir}/`, `${name}.glb`, scene);
  const fox = meshes.find((m) => m.skeleton);
  const baker = new BABYLON.VertexAnimationBaker(scene, fox);
  const json = await (await fetch(`${dir}/${name}-babylon-vat.json`)).text();
  const manager = new BABYLON.BakedVertexAnimationManager(scene);
  manager.texture = baker.textureFromBakedVertexData(baker.loadBakedVertexDataFromJSON(json));
  fox.bakedVertexAnimationManager = manager;
  const { clips } = await (await fetch(`${dir}/${name}-babylon.json`)).json();

  // The crowd laid out as throng lays it out (its instance matrices), as thin instances.
  const crowd = await loadCrowd("fox.glb");
  const count = Number(params.get("count") ?? 400);
  crowd.spawnCrowd({ count });
  fox.thinInstanceSetBuffer("matrix", crowd.instanceMatrices(), 16, true);
  const clip = clips.find((c) => c.name === (params.get("clip") ?? clips[0].name)) ?? clips[0];
  const settings = new Float32Array(count * 4);
  for (let i = 0; i < count; i++) {
    const s = params.has("frame") ? [clip.start + Number(params.get("frame")), clip.start + Number(params.get("frame")), 0, 0]
      : [clip.start, clip.end, i % (clip.end - clip.start + 1), clip.fps];
    settings.set(s, i * 4);
  }
  fox.thinInstanceSetBuffer("bakedVertexAnimationSettingsInstanced", settings, 4, true);
  fox.alwaysSelectAsActiveMesh = true; // the bind-pose box does not hold the animated poses

  const b = crowd.poseBounds();
  const size = Math.hypot(b[3] - b[0], b[4] - b[1], b[5] - b[2]);
  const side = Math.ceil(Math.sqrt(count)) * size;
  const eye = new BABYLON.Vector3(...vec(params.get("eye"), [side * 0.7, side * 0.6, side * 1.4]));
  const target = new BABYLON.Vector3(...vec(params.get("target"), [0, 0, 0]));
  const camera = new BABYLON.FreeCamera("camera", eye, scene);
  camera.setTarget(target);
  camera.fov = (Number(params.get("fov") ?? 35) * Math.PI) / 180;
  const distance = BABYLON.Vector3.Distance(eye, target);
  camera.minZ = distance * 0.01;
  camera.maxZ = distance * 100;

  const instrumentation = new BABYLON.SceneInstrumentation(scene);
  page.engine = engine;
  page.scene = scene;
  page.fox = fox;
  page.manager = manager;
  page.frame = (dt) => {
    manager.time += dt;
    scene.render();
    return { calls: instrumentation.drawCallsCounter.current, bones: fox.skeleton.bones.length };
  };
  await scene.whenReadyAsync();
  page.first = page.frame(0);
  page.ready = true;
  document.getElementById("status").textContent = `${count} foxes in Babylon.js, ${page.first.calls} draw calls`;
  if (!params.has("frame")) engine.runRenderLoop(() => page.frame(engine.getDeltaTime() / 1000));
} catch (e) {
  fail(e);
}
