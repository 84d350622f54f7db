// A throng crowd in a Babylon.js scene (docs/web.md "In Babylon.js"), two ways:
// - mode=adapter (default): throng's adapter (throng/babylon) draws a baked .glb with Babylon's
//   own engine, interpolating frames and blending clips, CPU- or GPU-timed;
// - mode=manager: Babylon's own BakedVertexAnimationManager plays a texture `throng export
//   --format babylon` made offline; Babylon loads the exported mesh and the texture JSON and
//   throng's package lays the crowd out as throng does.
// URL parameters (the browser test uses them): those of engine-page.js (the manager's crowd
// plays no file, timing or time of them), dir=FOLDER (the export; default fox-babylon)
// name=NAME (its files' base name; default fox) frame=K (manager: the clip's exported frame to
// show; else it plays) handed=left paused=1
import { loadCrowd } from "throng";
import { ThrongBabylonCrowd } from "throng/babylon";
import { crowdView, paramsCrowd, startPage } from "./engine-page.js";

const BABYLON = window.BABYLON;
const { params, canvas, page, fail, w, h, count, plain } = startPage("throngBabylon");

try {
  const dir = params.get("dir") ?? "fox-babylon";
  const name = params.get("name") ?? "fox";
  const engine = new BABYLON.Engine(canvas, false, { preserveDrawingBuffer: true });
  engine.setSize(w, h);
  const scene = new BABYLON.Scene(engine);
  // glTF's axes: the loader adds no mirroring root (handed=left keeps Babylon's default, where
  // the loader and throng's adapter mirror their roots)
  scene.useRightHandedSystem = params.get("handed") !== "left";
  scene.clearColor = plain ? new BABYLON.Color4(0, 0, 0, 1) : new BABYLON.Color4(0.55, 0.66, 0.8, 1);
  const sky = new BABYLON.HemisphericLight("sky", new BABYLON.Vector3(0.3, 1, 0.2), scene);
  // plain: light from every side, so no part of a character shades to the background's black
  if (plain) sky.groundColor = new BABYLON.Color3(1, 1, 1);

  const adapter = (params.get("mode") ?? "adapter") === "adapter";
  let crowd, foxes, manager, fox;
  if (adapter) {
    // throng's adapter: the baked file, played by throng's runtime, drawn by Babylon
    crowd = await paramsCrowd(params, count);
    foxes = new ThrongBabylonCrowd(BABYLON, scene, crowd, {
      lodBias: Number(params.get("lodBias") ?? 1),
      farTier: params.get("far") !== "0",
    });
  } else {
    // The exported mesh (skinned, bind space) and Babylon's manager with the exported texture.
    const { meshes } = await BABYLON.SceneLoader.ImportMeshAsync("", `${dir}/`, `${name}.glb`, scene);
    fox = meshes.find((m) => m.skeleton);
    const baker = new BABYLON.VertexAnimationBaker(scene, fox);
    const json = await (await fetch(`${dir}/${name}-babylon-vat.json`)).text();
    manager = new BABYLON.BakedVertexAnimationManager(scene);
    manager.texture = baker.textureFromBakedVertexData(baker.loadBakedVertexDataFromJSON(json));
    fox.bakedVertexAnimationManager = manager;
    const { clips } = await (await fetch(`${dir}/${name}-babylon.json`)).json();

    // The crowd laid out as throng lays it out (its instance matrices), as thin instances.
    crowd = await loadCrowd("fox.glb");
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
  }

  const { side, eye, target, fov, near, far } = crowdView(crowd, count, params);
  const camera = new BABYLON.FreeCamera("camera", new BABYLON.Vector3(...eye), scene);
  camera.setTarget(new BABYLON.Vector3(...target));
  camera.fov = (fov * Math.PI) / 180;
  camera.minZ = near;
  camera.maxZ = far;

  if (!plain && adapter) {
    // a sun casting the crowd's skinned shadow on a ground
    const sun = new BABYLON.DirectionalLight("sun", new BABYLON.Vector3(-0.5, -1, -0.3), scene);
    sun.position = new BABYLON.Vector3(side, side * 2, side * 0.6);
    sun.intensity = 0.8;
    const shadows = new BABYLON.ShadowGenerator(2048, sun);
    for (const m of foxes.meshes()) shadows.addShadowCaster(m);
    const ground = BABYLON.MeshBuilder.CreateGround("ground", { width: side * 4, height: side * 4 }, scene);
    ground.material = new BABYLON.StandardMaterial("ground", scene);
    ground.material.diffuseColor = new BABYLON.Color3(0.48, 0.54, 0.42);
    ground.material.specularColor = new BABYLON.Color3(0, 0, 0);
    ground.receiveShadows = true;
  }

  const instrumentation = new BABYLON.SceneInstrumentation(scene);
  Object.assign(page, { engine, scene, camera, crowd, fox, foxes, manager });
  // The meshes throng's crowd adds (shown or hidden together for the test's empty picture).
  page.show = (on) => {
    if (adapter) foxes.root.setEnabled(on);
    else fox.setEnabled(on);
  };
  // One frame: step playback, hand Babylon what changed, draw; returns Babylon's counters.
  page.frame = (dt) => {
    if (adapter) {
      crowd.frame(dt);
      foxes.update(camera, h);
    } else {
      manager.time += dt;
    }
    scene.render();
    return { calls: instrumentation.drawCallsCounter.current, bones: fox?.skeleton.bones.length, ...foxes?.stats };
  };
  await scene.whenReadyAsync();
  page.first = page.frame(0);
  page.ready = true;
  document.getElementById("status").textContent = `${count} foxes in Babylon.js (${adapter ? "throng's adapter" : "Babylon's manager"}), ${page.first.calls} draw calls`;
  if (params.get("paused") !== "1" && !params.has("frame")) engine.runRenderLoop(() => page.frame(engine.getDeltaTime() / 1000));
} catch (e) {
  fail(e);
}
