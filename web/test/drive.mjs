// Drives web/index.html in headless Chromium for the browser test
// (crates/throng-web/tests/browser.rs), which compares what it writes with the native renderer.
//
//   node drive.mjs PLAN.json
//
// PLAN: { dir: folder to serve (index.html, main.js, pkg/, fox.glb), out: folder for results,
//         chromium: path, driver: folder holding node_modules/puppeteer-core,
//         count, clip, time, size: [w, h], fade: { clip, seconds, dt },
//         events: { clip, dt, steps }, reentry: { clip, then, dt, steps },
//         far: { file: a baked .glb with a far tier in dir, eye, target, fovY (radians),
//                dots: { eye, target, fovY } (a second view, from afar) },
//         graph: { file: a graph file in dir, count, dt, frames, changes: [[frame, instance
//                  (its place in spawnCrowd's ids) or null for all, parameter, value or "fire"]] },
//         bench: [instance counts], benchFrames }
// Writes OUT/webgpu.png, OUT/fade.png, OUT/one.png, OUT/none.png, OUT/gpu-timed.png, OUT/far.png, OUT/far-dots.png,
// OUT/graph-cpu.png, OUT/graph-gpu.png, OUT/webgl2.png, OUT/webgl2-fade.png, OUT/webgl2-gpu-timed.png, OUT/webgl2-far.png and OUT/result.json (with `bench${n}`,
// `webgl2Bench${n}` and, of the far-tier fox, `farBench${n}` and `webgl2FarBench${n}` frame times for each bench count).
// Servers and browsers it starts are closed before it exits.
import { startSession } from "./session.mjs";

const session = await startSession();
const { plan, result } = session;
const t0 = Date.now();
const log = (what) => console.error(`[${((Date.now() - t0) / 1000).toFixed(1)} s] ${what}`);

// index.html with `query`, once its first frame has been shown.
async function open(query) {
  const page = await session.open("index.html", query, "throng");
  if (await page.evaluate(() => window.throng.ready)) {
    await page.waitForFunction("window.throng.firstShownMs !== null", { polling: 50 });
  }
  return page;
}

// The canvas after `script`, which finds the page's crowd in `c`.
const shot = (page, name, script) => session.shot(page, name, `const c = window.throng.crowd; ${script}`);

// What a page says of itself once loaded.
const state = (page) =>
  page.evaluate(() => ({
    ready: window.throng.ready,
    errors: window.throng.errors,
    firstFrameMs: window.throng.firstFrameMs,
    firstShownMs: window.throng.firstShownMs,
    backend: window.throng.crowd?.backend,
    adapter: window.throng.crowd?.adapter,
    downlevel: window.throng.crowd?.downlevel,
    count: window.throng.crowd?.count,
  }));

// `scene` played GPU-timed, its first frame read back as OUT/`name`; what the page says of
// itself (ready, errors).
async function gpuTimed(scene, name) {
  const page = await open({ ...scene, timing: "gpu" });
  const r = await page.evaluate(() => ({ ready: window.throng.ready, errors: window.throng.errors }));
  if (r.ready) await shot(page, name, "c.frame(0);");
  await page.close();
  return r;
}

// The plan's graph crowd played on `page`'s crowd, stepped on `stepOn`: the frames' events
// (`onEvent`, `onStateEvent`) and what the crowd says of the graph, then (OUT/graph-STEPON.png)
// its picture. Between frames the browser's event loop runs (an animation frame), as in a page,
// so the GPU's copies of its events can arrive; after the last frame a few more run and a
// frame of 0 s takes what is left.
async function graphRun(page, stepOn) {
  const g = plan.graph;
  const r = await page.evaluate(`(async () => {
    const c = window.throng.crowd;
    const json = await (await fetch(${JSON.stringify(g.file)})).text();
    c.clear();
    c.autoCamera();
    const ids = c.spawnCrowd({ count: ${g.count} });
    c.playGraph(json, { stepOn: ${JSON.stringify(stepOn)}, name: ${JSON.stringify(g.file)} });
    const out = { ids: Array.from(ids), stepsOn: c.graphStepsOn, cpuBecause: c.graphCpuBecause ?? null,
      late: c.eventsFrameLate, frames: [], lost: false, errors: [] };
    let frame = null;
    c.onEvent((e) => frame.events.push(e));
    c.onStateEvent((e) => frame.states.push(e));
    const changes = ${JSON.stringify(g.changes)};
    let k = 0;
    const run = (dt) => {
      frame = { events: [], states: [] };
      c.frame(dt);
      out.lost ||= c.eventsLost;
      out.frames.push(frame);
    };
    for (let f = 0; f < ${g.frames}; f++) {
      for (; k < changes.length && changes[k][0] === f; k++) {
        const [, at, name, value] = changes[k];
        if (at === null) {
          if (value === "fire") c.fireAll(name); else c.setParamAll(name, value);
        } else if (value === "fire") c.fire(ids[at], name);
        else c.setParam(ids[at], name, value);
      }
      run(${g.dt});
      await new Promise((ok) => requestAnimationFrame(ok));
    }
    for (let i = 0; i < 3; i++) await new Promise((ok) => requestAnimationFrame(ok));
    run(0);
    try { c.spawn(); } catch (x) { out.spawnRefused = x.message; }
    c.onEvent(null);
    c.onStateEvent(null);
    out.errors = window.throng.errors;
    return out;
  })()`);
  await shot(page, `graph-${stepOn}.png`, "c.frame(0);");
  return r;
}

// Frame time of `backend` at `n` foxes: the median interval between animation frames while the
// page animates (main.js draws one frame per animation frame), and the median of three `frame`
// calls' own time.
// `file`: another baked fox in the page's folder (the far tier's), else the page's own.
async function bench(backend, n, file) {
  log(`${backend}: frame time at ${n}${file ? ` (${file})` : ""}`);
  const [w, h] = plan.size;
  const p = await open({ backend, count: n, size: `${w}x${h}`, ...(file ? { file } : {}) });
  const r = await p.evaluate(`(async () => {
    const c = window.throng.crowd;
    const times = [];
    let last = performance.now();
    for (let i = 0; i < ${plan.benchFrames}; i++) {
      await new Promise((ok) => requestAnimationFrame(ok));
      const now = performance.now();
      times.push(now - last);
      last = now;
    }
    times.sort((a, b) => a - b);
    // The frame call alone (playback, culling, encoding, the API calls; not the rasteriser's
    // work the browser does afterwards), three times back to back.
    const calls = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      c.frame(0);
      calls.push(performance.now() - t);
    }
    calls.sort((a, b) => a - b);
    return { count: c?.count, errors: window.throng.errors, firstFrameMs: window.throng.firstFrameMs, firstShownMs: window.throng.firstShownMs, medianMs: times[times.length >> 1], times, frameCallMs: calls[1], calls };
  })()`);
  await p.close();
  return r;
}

try {
  const [w, h] = plan.size;
  const scene = { backend: "webgpu", count: plan.count, clip: plan.clip, time: plan.time, size: `${w}x${h}`, paused: "1" };

  log("WebGPU page");
  const page = await open(scene);
  result.webgpu = await state(page);
  if (result.webgpu.ready) {
    log("read back the first scene");
    await shot(page, "webgpu.png", "c.frame(0);");
    log("crossfade");
    const f = plan.fade;
    await shot(page, "fade.png", `c.crossfadeAll(${JSON.stringify(f.clip)}, ${f.seconds}); c.frame(${f.dt});`);

    log("events and despawn");
    const e = plan.events;
    result.events = await page.evaluate(`(() => {
      const c = window.throng.crowd;
      c.clear();
      const a = c.spawn();
      const b = c.spawnAt(3, 0, 0, 0);
      c.play(a, ${JSON.stringify(e.clip)});
      c.play(b, ${JSON.stringify(e.clip)}, { startTime: 0.5 });
      const fired = [];
      c.onEvent((x) => fired.push(x));
      for (let i = 0; i < ${e.steps}; i++) c.frame(${e.dt});
      c.onEvent(null);
      return { ids: [a, b], fired };
    })()`);
    log("callbacks that call back, and the speed limit");
    const r = plan.reentry;
    result.reentry = await page.evaluate(`(() => {
      const c = window.throng.crowd;
      c.clear();
      const a = c.spawn();
      c.play(a, ${JSON.stringify(r.clip)});
      const fired = [], finished = [], errors = [];
      let switched = false;
      // the first event switches its instance to a one-shot; its end switches it back
      c.onEvent((x) => {
        fired.push(x);
        if (switched) return;
        switched = true;
        try { c.play(x.instance, ${JSON.stringify(r.then)}, { loop: "once" }); } catch (err) { errors.push(err.message); }
      });
      c.onFinished((x) => {
        finished.push(x);
        try { c.play(x.instance, ${JSON.stringify(r.clip)}); } catch (err) { errors.push(err.message); }
      });
      for (let i = 0; i < ${r.steps}; i++) c.frame(${r.dt});
      c.onEvent(null);
      c.onFinished(null);
      let speedError = null;
      try { c.setSpeedAll(1e30); } catch (x) { speedError = x.message; }
      c.setSpeedAll(1000);
      c.play(a, ${JSON.stringify(r.clip)}, { speed: 1000 });
      const t = performance.now();
      let lapped = 0;
      c.onEvent(() => { lapped += 1; });
      c.frame(1 / 60);
      c.onEvent(null);
      return { id: a, fired, finished, errors, speedError, lapped, ms: performance.now() - t, count: c.count };
    })()`);
    await shot(page, "one.png", `c.clear(); c.lookAt([0, 0.6, 2.2], [0, 0.3, 0], 0.7); const id = c.spawn(); c.play(id, 0); window.__one = id; c.frame(0);`);
    await shot(page, "none.png", `c.despawn(window.__one); c.frame(0);`);
    result.despawn = await page.evaluate(`(() => {
      const c = window.throng.crowd;
      let again = null;
      try { c.despawn(window.__one); } catch (x) { again = x.message; }
      return { count: c.count, again };
    })()`);

    log("bad input");
    result.bad = await page.evaluate(async () => {
      const { Crowd } = await import("./pkg/throng_web.js");
      const c = window.throng.crowd;
      const bytes = new Uint8Array(await (await fetch("fox.glb")).arrayBuffer());
      const message = async (f) => {
        try {
          await f();
          return null;
        } catch (x) {
          return { isError: x instanceof Error, message: x.message };
        }
      };
      const corrupt = bytes.slice();
      // The JSON chunk's first bytes: no longer JSON.
      corrupt.fill(0x7b, 20, 40);
      const other = document.createElement("canvas");
      const out = {
        truncated: await message(() => Crowd.create(other, bytes.slice(0, 1000), { name: "fox.glb" })),
        corrupted: await message(() => Crowd.create(other, corrupt, { name: "fox.glb" })),
        clip: await message(() => c.play(c.spawn(), "moonwalk")),
        nan: await message(() => c.spawn([1, 0, 0, 0, 0, NaN, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])),
      };
      c.clear();
      c.spawn();
      c.frame(0.1);
      out.stillRuns = c.count === 1;
      out.errors = window.throng.errors;
      return out;
    });
    log("graph crowds: stepped on the CPU, then on the GPU");
    result.graph = { cpu: await graphRun(page, "cpu"), gpu: await graphRun(page, "gpu") };
    // what stepOn "auto" chooses on this adapter, and why
    result.graph.auto = await page.evaluate(`(async () => {
      const c = window.throng.crowd;
      const json = await (await fetch(${JSON.stringify(plan.graph.file)})).text();
      c.clear();
      c.spawnCrowd({ count: 2 });
      c.playGraph(json);
      const out = { stepsOn: c.graphStepsOn, cpuBecause: c.graphCpuBecause ?? null, adapter: c.adapter };
      c.clear();
      return out;
    })()`);
    await page.close();

    log("GPU-timed page");
    result.gpuTimed = await gpuTimed(scene, "gpu-timed.png");

    // The same crowd baked with a far tier, seen from low at one edge of the field: near
    // foxes as meshes, far ones as cards, a band between them crossfading.
    log("far tier");
    const far = plan.far;
    const farPage = await open({ ...scene, file: far.file });
    result.far = await state(farPage);
    if (result.far.ready) {
      await shot(farPage, "far.png", `c.lookAt(${JSON.stringify(far.eye)}, ${JSON.stringify(far.target)}, ${far.fovY}); c.frame(0);`);
      // From afar: every fox about a pixel across, many of their cards drawn as points.
      const d = far.dots;
      await shot(farPage, "far-dots.png", `c.lookAt(${JSON.stringify(d.eye)}, ${JSON.stringify(d.target)}, ${d.fovY}); c.frame(0);`);
      result.far.errorsAfter = await farPage.evaluate(() => window.throng.errors);
    }
    await farPage.close();

    for (const n of plan.bench) {
      result[`bench${n}`] = await bench("webgpu", n);
      result[`farBench${n}`] = await bench("webgpu", n, plan.far.file);
    }
  }

  // WebGL2: the renderer's downlevel mode; the first scene, the crossfade and GPU-timed, as on
  // WebGPU.
  log("WebGL2 page");
  const gl = await open({ ...scene, backend: "webgl2" });
  result.webgl2 = await state(gl);
  if (result.webgl2.ready) {
    log("WebGL2: read back the first scene and the crossfade");
    await shot(gl, "webgl2.png", "c.frame(0);");
    const f = plan.fade;
    await shot(gl, "webgl2-fade.png", `c.crossfadeAll(${JSON.stringify(f.clip)}, ${f.seconds}); c.frame(${f.dt});`);
    result.webgl2.draws = await gl.evaluate(() => window.throng.crowd.lastDraws);
  }
  await gl.close();
  if (result.webgl2.ready) {
    log("WebGL2: GPU-timed page");
    result.webgl2GpuTimed = await gpuTimed({ ...scene, backend: "webgl2" }, "webgl2-gpu-timed.png");
    // The far-tier crowd of the WebGPU page's far scene: the downlevel mode's cards.
    log("WebGL2: far tier");
    const far = plan.far;
    const glFar = await open({ ...scene, file: far.file, backend: "webgl2" });
    result.webgl2Far = await state(glFar);
    if (result.webgl2Far.ready) {
      await shot(glFar, "webgl2-far.png", `c.lookAt(${JSON.stringify(far.eye)}, ${JSON.stringify(far.target)}, ${far.fovY}); c.frame(0);`);
      result.webgl2Far.errorsAfter = await glFar.evaluate(() => window.throng.errors);
    }
    await glFar.close();
  }
  if (result.webgl2.ready) {
    for (const n of plan.bench) {
      result[`webgl2Bench${n}`] = await bench("webgl2", n);
      result[`webgl2FarBench${n}`] = await bench("webgl2", n, plan.far.file);
    }
  }
} catch (e) {
  result.driverError = String(e?.stack ?? e);
} finally {
  await session.finish("result.json");
  log("done");
}
