// Drives web/three.html (throng's crowd in three.js's own WebGLRenderer) in headless Chromium
// for crates/throng-web/tests/three.rs, which compares what it writes with the native renderer.
//
//   node drive-three.mjs PLAN.json
//
// PLAN: { dir, out, chromium, driver, count, clip, time, size: [w, h], eye: [3], target: [3],
//         fov (degrees), fade: { clip, seconds, dt } }
// Writes OUT/three.png (the crowd), OUT/three-none.png (the scene without it),
// OUT/three-fade.png (after a crossfade) and OUT/result.json (three's counters, errors).
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
    plain: "1", paused: "1", count: plan.count, clip: plan.clip, time: plan.time, size: `${w}x${h}`,
    eye: plan.eye.join(","), target: plan.target.join(","), fov: plan.fov,
  });
  await page.goto(`http://127.0.0.1:${server.address().port}/three.html?${query}`);
  await page.waitForFunction("window.throngThree && (window.throngThree.ready || window.throngThree.failed)", { polling: 100 });
  result.errors = await page.evaluate(() => window.throngThree.errors);
  if (await page.evaluate(() => window.throngThree.ready)) {
    result.first = await page.evaluate(() => window.throngThree.first);
    const shot = async (name, script) => {
      const url = await page.evaluate(`(() => { const t = window.throngThree; ${script}; return t.renderer.domElement.toDataURL("image/png"); })()`);
      await writeFile(join(plan.out, name), Buffer.from(url.split(",")[1], "base64"));
    };
    await shot("three.png", "t.frame(0)");
    await shot("three-none.png", "t.foxes.visible = false; t.renderer.render(t.scene, t.camera); t.foxes.visible = true");
    result.fade = await page.evaluate(`window.throngThree.crowd.crossfadeAll(${JSON.stringify(plan.fade.clip)}, ${plan.fade.seconds})`);
    await shot("three-fade.png", `window.throngThree.fadeStats = t.frame(${plan.fade.dt})`);
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
  }
} finally {
  await writeFile(join(plan.out, "result.json"), JSON.stringify(result, null, 1));
  await browser.close();
  server.close();
}
