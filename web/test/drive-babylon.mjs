// Drives web/babylon.html (Babylon.js's own BakedVertexAnimationManager playing a texture throng
// exported) in headless Chromium for crates/throng-web/tests/babylon.rs.
//
//   node drive-babylon.mjs PLAN.json
//
// PLAN: { dir, out, chromium, driver, export (folder, relative to dir), name, count, clip,
//         frame, size: [w, h], eye: [3], target: [3], fov (degrees) }
// Writes OUT/babylon.png (the crowd at the clip's exported frame), OUT/babylon-none.png (the scene
// without it) and OUT/babylon.json (draw calls, bones, errors).
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
    plain: "1", dir: plan.export, name: plan.name, count: plan.count, clip: plan.clip, frame: plan.frame,
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
    await shot("babylon-none.png", "b.fox.setEnabled(false); b.scene.render(); b.fox.setEnabled(true)");
  }
} finally {
  await writeFile(join(plan.out, "babylon.json"), JSON.stringify(result, null, 1));
  await browser.close();
  server.close();
}
