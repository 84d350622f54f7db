// Drives web/babylon.html in headless Chromium for crates/throng-web/tests/babylon.rs: Babylon's
// own BakedVertexAnimationManager playing a texture throng exported, and throng's adapter
// (throng/babylon) drawing the baked crowd with Babylon's engine.
//
//   node drive-babylon.mjs PLAN.json
//
// PLAN: { dir, out, chromium, driver, export (folder, relative to dir), name, count, clip,
//         frame, time, fade: { clip, seconds, dt }, size: [w, h], eye: [3], target: [3],
//         fov (degrees), far: { file (a fox baked with a far tier), lodBias },
//         graph: { file (a graph file in dir), param, value, frames, dt } }
// Writes OUT/babylon.png (the manager's crowd at the clip's exported frame), OUT/babylon-none.png
// (the scene without it), OUT/adapter.png, OUT/adapter-none.png, OUT/adapter-fade.png (the
// adapter's first frame, empty scene, crossfade), OUT/adapter-gpu.png (GPU-timed, after the same
// crossfade), OUT/adapter-graph.png (the CPU-timed crowd driven by the graph), OUT/adapter-lit.png (100 foxes, a sun's shadow, a ground), OUT/adapter-far.png
// (the adapter's crowd from the far-tier file, far foxes as cards), OUT/adapter-far-lit.png (that
// crowd lit, casting shadows), OUT/adapter-close-{cards,meshes}-{right,left}.png (16 foxes close
// up, lit, all cards or all meshes, in a right- and a left-handed scene) and OUT/babylon.json (draw calls, bones, uploads, errors).
import { startSession } from "./session.mjs";

const { plan, result, open, shot: save, finish } = await startSession();
const openBabylon = (query, label) => open("babylon.html", query, "throngBabylon", label);
// The page's canvas after `script`, which finds the page's state in `b`.
const shot = (page, name, script) => save(page, name, `const b = window.throngBabylon; ${script}`);
try {
  const [w, h] = plan.size;
  // The plan's camera on a black background (coverage masks).
  const view = { plain: "1", size: `${w}x${h}`, eye: plan.eye.join(","), target: plan.target.join(","), fov: plan.fov };
  const page = await openBabylon({ ...view, mode: "manager", dir: plan.export, name: plan.name, count: plan.count, clip: plan.clip, frame: plan.frame });
  result.errors = await page.evaluate(() => window.throngBabylon.errors);
  if (await page.evaluate(() => window.throngBabylon.ready)) {
    result.first = await page.evaluate(() => window.throngBabylon.first);
    await shot(page, "babylon.png", "b.frame(0)");
    await shot(page, "babylon-none.png", "b.show(false); b.scene.render(); b.show(true)");
  }
  // throng's adapter in a lit scene: a sun whose ShadowGenerator casts the crowd's skinned
  // shadow on a ground (a picture to look at, and Babylon's counters).
  {
    const l = await openBabylon({ mode: "adapter", paused: "1", count: 100, clip: plan.clip, time: plan.time, size: `${w * 2}x${h * 2}` }, "lit");
    result.litErrors = await l.evaluate(() => window.throngBabylon.errors);
    if (await l.evaluate(() => window.throngBabylon.ready)) {
      result.lit = await l.evaluate(() => window.throngBabylon.frame(0));
      await shot(l, "adapter-lit.png", "");
    }
    await l.close();
  }
  // throng's adapter, CPU- then GPU-timed: first frame, crossfade.
  for (const timing of ["cpu", "gpu"]) {
    const a = await openBabylon({ ...view, mode: "adapter", timing, paused: "1", count: plan.count, clip: plan.clip, time: plan.time }, timing);
    const r = (result[timing] = { errors: await a.evaluate(() => window.throngBabylon.errors) });
    if (!(await a.evaluate(() => window.throngBabylon.ready))) {
      await a.close();
      continue;
    }
    r.first = await a.evaluate(() => window.throngBabylon.first);
    if (timing === "cpu") {
      await shot(a, "adapter.png", "b.frame(0)");
      await shot(a, "adapter-none.png", "b.show(false); b.scene.render(); b.show(true)");
    }
    r.still = await a.evaluate(() => window.throngBabylon.frame(0));
    await shot(a, timing === "cpu" ? "adapter-fade.png" : "adapter-gpu.png",
      `b.crowd.crossfadeAll(${JSON.stringify(plan.fade.clip)}, ${plan.fade.seconds}); b.fade = b.frame(${plan.fade.dt})`);
    r.fade = await a.evaluate(() => window.throngBabylon.fade);
    r.after = await a.evaluate(() => window.throngBabylon.frame(1 / 60));
    // CPU-timed: the same crowd driven by the plan's animation graph (a headless crowd steps
    // it on the CPU; its records are the graph's)
    if (timing === "cpu" && plan.graph) {
      const g = plan.graph;
      r.graph = await a.evaluate(`(async () => {
        const b = window.throngBabylon;
        const json = await (await fetch(${JSON.stringify(g.file)})).text();
        b.crowd.playGraph(json, { name: ${JSON.stringify(g.file)} });
        b.crowd.setParamAll(${JSON.stringify(g.param)}, ${g.value});
        for (let i = 0; i < ${g.frames}; i++) b.frame(${g.dt});
        return { stepsOn: b.crowd.graphStepsOn };
      })()`);
      await shot(a, "adapter-graph.png", "b.frame(0)");
    }
    await a.close();
  }
  // The far tier: the same crowd and camera from a file baked with one, far foxes as cards.
  if (plan.far) {
    const far = { file: plan.far.file, lodBias: plan.far.lodBias, mode: "adapter", paused: "1", count: plan.count, clip: plan.clip, time: plan.time };
    const f = await openBabylon({ ...view, ...far }, "far");
    result.farErrors = await f.evaluate(() => window.throngBabylon.errors);
    if (await f.evaluate(() => window.throngBabylon.ready)) {
      result.far = await f.evaluate(() => window.throngBabylon.first);
      await shot(f, "adapter-far.png", "b.frame(0)");
    }
    await f.close();
    const l = await openBabylon({ ...far, lodBias: plan.far.lodBias * 2, size: `${w * 2}x${h * 2}` }, "far lit"); // twice the pixels: the same switch
    result.farLitErrors = await l.evaluate(() => window.throngBabylon.errors);
    if (await l.evaluate(() => window.throngBabylon.ready)) {
      result.farLit = await l.evaluate(() => window.throngBabylon.frame(0));
      await shot(l, "adapter-far-lit.png", "");
    }
    await l.close();
    // 16 foxes close up, lit, in either handedness: all cards (magnified), then all meshes
    for (const handed of ["right", "left"]) {
      for (const [tier, q] of [["cards", { lodBias: 1000 }], ["meshes", { far: "0" }]]) {
        const name = `adapter-close-${tier}-${handed}.png`;
        const d = await openBabylon({ ...far, ...q, handed, count: 16, eye: "6,4,8", target: "0,0,0", size: `${w * 2}x${h * 2}` }, name);
        result.closeErrors = [...(result.closeErrors ?? []), ...(await d.evaluate(() => window.throngBabylon.errors))];
        if (await d.evaluate(() => window.throngBabylon.ready)) await shot(d, name, "");
        await d.close();
      }
    }
  }
} finally {
  await finish("babylon.json");
}
