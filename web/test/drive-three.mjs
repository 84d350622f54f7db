// Drives web/three.html (throng's crowd in three.js's own WebGLRenderer) in headless Chromium
// for crates/throng-web/tests/three.rs, which compares what it writes with the native renderer.
//
//   node drive-three.mjs PLAN.json
//
// PLAN: { dir, out, chromium, driver, count, clip, time, size: [w, h], eye: [3], target: [3],
//         fov (degrees), fade: { clip, seconds, dt }, bench: [instance counts], benchFrames,
//         source (the fox as a plain glTF, for three's own SkinnedMesh),
//         far: { file (a fox baked with a far tier), lodBias },
//         graph: { file (a graph file in dir), param, value, frames, dt } }
// Writes OUT/three.png (the crowd), OUT/three-none.png (the scene without it),
// OUT/three-fade.png (after a crossfade), OUT/three-lit.png (100 foxes with lights, ground and
// shadows), OUT/three-gpu.png (a GPU-timed crowd after the same
// crossfade), OUT/three-far.png (the plan's crowd and camera from a far-tier file, far foxes as
// cards), OUT/three-far-lit.png (the far crowd with lights, ground and shadows),
// OUT/three-close-{cards,meshes}.png (16 foxes close up, lit, all cards or all meshes),
// OUT/three-graph.png (the plan's crowd driven by the graph) and
// OUT/result.json (three's counters, errors).
import { startSession } from "./session.mjs";

const { plan, result, open, shot: save, finish } = await startSession();
const openThree = (query, label) => open("three.html", query, "throngThree", label);
// The page's canvas after `script`, which finds the page's state in `t`.
const shot = (page, name, script) => save(page, name, `const t = window.throngThree; ${script}`);
try {
  const [w, h] = plan.size;
  // The plan's crowd and camera on a black background (coverage masks).
  const view = {
    plain: "1", paused: "1", count: plan.count, clip: plan.clip, time: plan.time, size: `${w}x${h}`,
    eye: plan.eye.join(","), target: plan.target.join(","), fov: plan.fov,
  };
  const page = await openThree(view);
  result.errors = await page.evaluate(() => window.throngThree.errors);
  if (await page.evaluate(() => window.throngThree.ready)) {
    result.first = await page.evaluate(() => window.throngThree.first);
    await shot(page, "three.png", "t.frame(0)");
    await shot(page, "three-none.png", "t.foxes.visible = false; t.renderer.render(t.scene, t.camera); t.foxes.visible = true");
    result.fade = await page.evaluate(`window.throngThree.crowd.crossfadeAll(${JSON.stringify(plan.fade.clip)}, ${plan.fade.seconds})`);
    await shot(page, "three-fade.png", `t.fadeStats = t.frame(${plan.fade.dt})`);
    result.fadeStats = await page.evaluate(() => window.throngThree.fadeStats);
    // Bad input in JavaScript: each throws an Error and the page keeps drawing.
    result.bad = await page.evaluate(async () => {
      const { loadCrowd } = await import("throng");
      const t = window.throngThree;
      const out = {};
      const attempt = async (name, f) => {
        try {
          await f();
          out[name] = "no error";
        } catch (e) {
          out[name] = `${e.constructor.name}: ${e.message}`;
        }
      };
      await attempt("truncated", () => loadCrowd(new Uint8Array([103, 108, 84, 70, 2, 0, 0, 0, 200, 0, 0, 0])));
      await attempt("clip", () => t.crowd.playAll("no-such-clip"));
      await attempt("nanTransform", () => t.crowd.spawn(new Array(16).fill(NaN)));
      await attempt("speed", () => t.crowd.setSpeedAll(1e30));
      await attempt("stillDraws", () => t.frame(1 / 60));
      return out;
    });
    // The same crowd driven by an animation graph (stepped on the CPU: a headless crowd's
    // records are the graph's): every fox told to run, then a few frames.
    if (plan.graph) {
      const g = plan.graph;
      result.graph = await page.evaluate(`(async () => {
        const t = window.throngThree;
        const json = await (await fetch(${JSON.stringify(g.file)})).text();
        t.crowd.playGraph(json, { name: ${JSON.stringify(g.file)} });
        t.crowd.setParamAll(${JSON.stringify(g.param)}, ${g.value});
        for (let i = 0; i < ${g.frames}; i++) t.frame(${g.dt});
        return { stepsOn: t.crowd.graphStepsOn, cpuBecause: t.crowd.graphCpuBecause ?? null };
      })()`);
      await shot(page, "three-graph.png", "t.frame(0)");
    }
  }
  // The scene as users see it: lights, ground, the crowd casting its skinned shadow (a picture
  // to look at, and three's counters: the shadow pass draws the crowd's meshes once more).
  {
    const l = await openThree({ paused: "1", count: 100, clip: plan.clip, time: plan.time, size: `${w * 2}x${h * 2}` }, "lit");
    if (await l.evaluate(() => window.throngThree.ready)) {
      result.lit = await l.evaluate(() => window.throngThree.first);
      await shot(l, "three-lit.png", "");
    }
    await l.close();
  }
  // The same crowd GPU-timed: the shader derives rows from the records and the clock; the
  // crossfade sends only the records it rewrote.
  {
    const g = await openThree({ ...view, timing: "gpu" }, "gpu");
    result.gpuErrors = await g.evaluate(() => window.throngThree.errors);
    if (await g.evaluate(() => window.throngThree.ready)) {
      result.gpuFirst = await g.evaluate(() => window.throngThree.first);
      result.gpuStill = await g.evaluate(() => window.throngThree.frame(0));
      await shot(g, "three-gpu.png", `t.crowd.crossfadeAll(${JSON.stringify(plan.fade.clip)}, ${plan.fade.seconds}); t.gpuFade = t.frame(${plan.fade.dt})`);
      result.gpuFade = await g.evaluate(() => window.throngThree.gpuFade);
      result.gpuAfter = await g.evaluate(() => window.throngThree.frame(1 / 60));
    }
    await g.close();
  }
  // The far tier: the same crowd and camera from a file baked with one, far foxes as cards.
  if (plan.far) {
    const f = await openThree({ ...view, file: plan.far.file, lodBias: plan.far.lodBias }, "far");
    result.farErrors = await f.evaluate(() => window.throngThree.errors);
    if (await f.evaluate(() => window.throngThree.ready)) {
      result.far = await f.evaluate(() => window.throngThree.first);
      await shot(f, "three-far.png", "t.frame(0)");
    }
    await f.close();
    const l = await openThree({ paused: "1", count: plan.count, clip: plan.clip, time: plan.time, size: `${w * 2}x${h * 2}`, file: plan.far.file, lodBias: plan.far.lodBias * 2 }, "far lit"); // twice the pixels: the same switch
    result.farLitErrors = await l.evaluate(() => window.throngThree.errors);
    if (await l.evaluate(() => window.throngThree.ready)) {
      result.farLit = await l.evaluate(() => window.throngThree.first);
      await shot(l, "three-far-lit.png", "");
    }
    await l.close();
    // 16 foxes close up, lit: all cards (magnified), then all meshes
    for (const [tier, q] of [["cards", { lodBias: 1000 }], ["meshes", { far: "0" }]]) {
      const d = await openThree({ paused: "1", clip: plan.clip, time: plan.time, file: plan.far.file, ...q, count: 16, eye: "6,4,8", target: "0,0,0", size: `${w * 2}x${h * 2}` }, tier);
      if (await d.evaluate(() => window.throngThree.ready)) await shot(d, `three-close-${tier}.png`, "");
      await d.close();
    }
  }
  // Benchmarks (THRONG_WEB_BENCH), the far tier: per count, the page's own framing of the crowd
  // from the far-tier file, cards on and off; a draw timed to the GPU's end, the
  // median of 3 after a first frame (a one-pixel readPixels waits for the draw: Chromium's
  // gl.finish does not).
  for (const n of plan.far ? (plan.bench ?? []) : []) {
    for (const tier of ["cards", "meshes"]) {
      const p = await openThree({ paused: "1", count: n, clip: plan.clip, time: plan.time, size: `${w}x${h}`, file: plan.far.file, far: tier === "cards" ? "1" : "0" }, `far bench ${n} ${tier}`);
      result[`farBench${n}${tier}`] = await p.evaluate(`(() => {
        const t = window.throngThree;
        const gl = t.renderer.getContext();
        const pixel = new Uint8Array(4);
        const ms = [];
        let stats;
        for (let f = 0; f < 3; f++) {
          const t0 = performance.now();
          stats = t.frame(0);
          gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
          ms.push(performance.now() - t0);
        }
        ms.sort((a, b) => a - b);
        return { frameMs: ms[1], ...stats };
      })()`);
      await p.close();
    }
  }
  // Benchmarks (THRONG_WEB_BENCH): per count, a GPU-timed crowd with 1 % of the instances
  // starting a crossfade each frame: the adapter's main-thread time a frame (update(): the
  // record writes, culling, LODs) apart from the crowd's own step (the commands and
  // crowd.frame), the bytes it hands three to upload, and the frame interval; and three's own
  // SkinnedMesh (a clone and an AnimationMixer per character).
  for (const n of plan.bench ?? []) {
    const p = await openThree({ paused: "1", timing: "gpu", count: n, clip: plan.clip, size: `${w}x${h}` }, `bench ${n}`);
    result[`bench${n}`] = await p.evaluate(`(async () => {
      const t = window.throngThree;
      const c = t.crowd;
      const ids = c.ids();
      const clips = c.clips;
      const step = [], update = [], frame = [], bytes = [];
      let last = performance.now();
      for (let f = 0; f < ${plan.benchFrames}; f++) {
        const t0 = performance.now();
        for (let k = 0; k < Math.ceil(${n} / 100); k++) {
          c.crossfade(ids[(f * 997 + k * 101) % ids.length], clips[(f + k) % clips.length], 0.2);
        }
        c.frame(1 / 60);
        const t1 = performance.now();
        t.foxes.update(t.camera, ${h});
        update.push(performance.now() - t1);
        step.push(t1 - t0);
        bytes.push(t.foxes.stats.uploadedBytes);
        // past 1,000 SwiftShader takes seconds to draw a frame: the update is timed on its own
        // and three draws (and uploads) only the last frame
        if (${n} <= 1000 || f + 1 === ${plan.benchFrames}) t.renderer.render(t.scene, t.camera);
        await new Promise((ok) => requestAnimationFrame(ok));
        const now = performance.now();
        frame.push(now - last);
        last = now;
      }
      const med = (v) => v.slice().sort((a, b) => a - b)[v.length >> 1];
      const visible = t.foxes.stats.visible;
      return { updateMs: med(update), stepMs: med(step), frameMs: ${n} <= 1000 ? med(frame) : null, visible, bytesPerFrame: med(bytes), recordBytes: ${n} * 56, calls: t.renderer.info.render.calls };
    })()`);
    await p.close();
    if (n > 1000) continue; // three's SkinnedMesh per character: 200 and 1,000 only
    const s = await openThree({ paused: "1", count: n, size: `${w}x${h}` }, `skinned ${n}`);
    result[`skinned${n}`] = await s.evaluate(`(async () => {
      const THREE = await import("three");
      const { GLTFLoader } = await import("./node_modules/three/examples/jsm/loaders/GLTFLoader.js");
      const { clone } = await import("./node_modules/three/examples/jsm/utils/SkeletonUtils.js");
      const t = window.throngThree;
      t.scene.remove(t.foxes);
      const gltf = await new GLTFLoader().loadAsync(${JSON.stringify(plan.source)});
      const walk = gltf.animations.find((a) => a.name === ${JSON.stringify(plan.clip)}) ?? gltf.animations[0];
      const side = Math.ceil(Math.sqrt(${n}));
      const mixers = [];
      for (let i = 0; i < ${n}; i++) {
        const o = clone(gltf.scene);
        o.position.set((i % side) * 1.6 - side * 0.8, 0, Math.floor(i / side) * 1.6 - side * 0.8);
        t.scene.add(o);
        const m = new THREE.AnimationMixer(o);
        m.clipAction(walk).play();
        mixers.push(m);
      }
      const step = [], frame = [];
      let last = performance.now();
      for (let f = 0; f < ${plan.benchFrames}; f++) {
        const t0 = performance.now();
        for (const m of mixers) m.update(1 / 60);
        step.push(performance.now() - t0);
        t.renderer.render(t.scene, t.camera);
        await new Promise((ok) => requestAnimationFrame(ok));
        const now = performance.now();
        frame.push(now - last);
        last = now;
      }
      const med = (v) => v.slice().sort((a, b) => a - b)[v.length >> 1];
      return { updateMs: med(step), frameMs: med(frame), calls: t.renderer.info.render.calls };
    })()`);
    await s.close();
  }
} finally {
  await finish("result.json");
}
