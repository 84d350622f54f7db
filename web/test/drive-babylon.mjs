// Drives web/babylon.html in headless Chromium for crates/throng-web/tests/babylon.rs: Babylon's
// own BakedVertexAnimationManager playing a texture throng exported, and throng's adapter
// (throng/babylon) drawing the baked crowd with Babylon's engine.
//
//   node drive-babylon.mjs PLAN.json
//
// PLAN: { dir, out, chromium, driver, export (folder, relative to dir), name, count, clip,
//         frame, time, fade: { clip, seconds, dt }, size: [w, h], eye: [3], target: [3],
//         fov (degrees) }
// Writes OUT/babylon.png (the manager's crowd at the clip's exported frame), OUT/babylon-none.png
// (the scene without it), OUT/adapter.png, OUT/adapter-none.png, OUT/adapter-fade.png (the
// adapter's first frame, empty scene, crossfade), OUT/adapter-gpu.png (GPU-timed, after the same
// crossfade), OUT/adapter-lit.png (100 foxes, a sun's shadow, a ground) and OUT/babylon.json (draw calls, bones, uploads, errors).
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { launchChromium, serveFolder } from "./serve.mjs";

const plan = JSON.parse(await readFile(process.argv[2], "utf8"));
const server = await serveFolder(plan.dir);
const browser = await launchChromium(plan.chromium, plan.driver);
const result = { console: [] };
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(600_000);
  page.on("console", (m) => result.console.push(m.text()));
  page.on("pageerror", (e) => result.console.push(`pageerror: ${e.message}`));
  const [w, h] = plan.size;
  const query = new URLSearchParams({
    mode: "manager", plain: "1", dir: plan.export, name: plan.name, count: plan.count, clip: plan.clip, frame: plan.frame,
    size: `${w}x${h}`, eye: plan.eye.join(","), target: plan.target.join(","), fov: plan.fov,
  });
  await page.goto(`http://127.0.0.1:${server.address().port}/babylon.html?${query}`);
  await page.waitForFunction("window.throngBabylon && (window.throngBabylon.ready || window.throngBabylon.failed)", { polling: 100 });
  result.errors = await page.evaluate(() => window.throngBabylon.errors);
  if (await page.evaluate(() => window.throngBabylon.ready)) {
    result.first = await page.evaluate(() => window.throngBabylon.first);
    const shot = async (file, script) => {
      const url = await page.evaluate(`(() => { const b = window.throngBabylon; ${script}; return b.engine.getRenderingCanvas().toDataURL("image/png"); })()`);
      await writeFile(join(plan.out, file), Buffer.from(url.split(",")[1], "base64"));
    };
    await shot("babylon.png", "b.frame(0)");
    await shot("babylon-none.png", "b.show(false); b.scene.render(); b.show(true)");
  }
  // throng's adapter in a lit scene: a sun whose ShadowGenerator casts the crowd's skinned
  // shadow on a ground (a picture to look at, and Babylon's counters).
  {
    const l = await browser.newPage();
    l.setDefaultTimeout(600_000);
    l.on("pageerror", (e) => result.console.push(`pageerror (lit): ${e.message}`));
    const q = new URLSearchParams({ mode: "adapter", paused: "1", count: 100, clip: plan.clip, time: plan.time, size: `${w * 2}x${h * 2}` });
    await l.goto(`http://127.0.0.1:${server.address().port}/babylon.html?${q}`);
    await l.waitForFunction("window.throngBabylon && (window.throngBabylon.ready || window.throngBabylon.failed)", { polling: 100 });
    result.litErrors = await l.evaluate(() => window.throngBabylon.errors);
    if (await l.evaluate(() => window.throngBabylon.ready)) {
      result.lit = await l.evaluate(() => window.throngBabylon.frame(0));
      const url = await l.evaluate(() => window.throngBabylon.engine.getRenderingCanvas().toDataURL("image/png"));
      await writeFile(join(plan.out, "adapter-lit.png"), Buffer.from(url.split(",")[1], "base64"));
    }
    await l.close();
  }
  // throng's adapter, CPU- then GPU-timed: first frame, crossfade.
  for (const timing of ["cpu", "gpu"]) {
    const a = await browser.newPage();
    a.setDefaultTimeout(600_000);
    a.on("console", (m) => result.console.push(`${timing}: ${m.text()}`));
    a.on("pageerror", (e) => result.console.push(`pageerror (${timing}): ${e.message}`));
    const q = new URLSearchParams({
      mode: "adapter", timing, plain: "1", paused: "1", count: plan.count, clip: plan.clip, time: plan.time,
      size: `${w}x${h}`, eye: plan.eye.join(","), target: plan.target.join(","), fov: plan.fov,
    });
    await a.goto(`http://127.0.0.1:${server.address().port}/babylon.html?${q}`);
    await a.waitForFunction("window.throngBabylon && (window.throngBabylon.ready || window.throngBabylon.failed)", { polling: 100 });
    const r = (result[timing] = { errors: await a.evaluate(() => window.throngBabylon.errors) });
    if (!(await a.evaluate(() => window.throngBabylon.ready))) {
      await a.close();
      continue;
    }
    r.first = await a.evaluate(() => window.throngBabylon.first);
    const shot = async (file, script) => {
      const url = await a.evaluate(`(() => { const b = window.throngBabylon; ${script}; return b.engine.getRenderingCanvas().toDataURL("image/png"); })()`);
      await writeFile(join(plan.out, file), Buffer.from(url.split(",")[1], "base64"));
    };
    if (timing === "cpu") {
      await shot("adapter.png", "b.frame(0)");
      await shot("adapter-none.png", "b.show(false); b.scene.render(); b.show(true)");
    }
    r.still = await a.evaluate(() => window.throngBabylon.frame(0));
    await shot(timing === "cpu" ? "adapter-fade.png" : "adapter-gpu.png",
      `b.crowd.crossfadeAll(${JSON.stringify(plan.fade.clip)}, ${plan.fade.seconds}); window.throngBabylon.fade = b.frame(${plan.fade.dt})`);
    r.fade = await a.evaluate(() => window.throngBabylon.fade);
    r.after = await a.evaluate(() => window.throngBabylon.frame(1 / 60));
    await a.close();
  }
} finally {
  await writeFile(join(plan.out, "babylon.json"), JSON.stringify(result, null, 1));
  await browser.close();
  server.close();
}
