// What the browser drivers (drive.mjs, drive-three.mjs, drive-babylon.mjs) share beyond
// serve.mjs: the plan named on their command line, its folder served and headless Chromium
// started, pages opened with their messages kept, canvas pictures saved, and the result written
// and everything closed at the end.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { launchChromium, serveFolder } from "./serve.mjs";

/** The session of `node DRIVER PLAN.json`: `plan`, `result` (its `console` gathers the pages'
 * messages), `open`, `shot` and `finish`. */
export async function startSession() {
  const plan = JSON.parse(await readFile(process.argv[2], "utf8"));
  const server = await serveFolder(plan.dir);
  const browser = await launchChromium(plan.chromium, plan.driver);
  const origin = `http://127.0.0.1:${server.address().port}`;
  const result = { console: [] };
  return {
    plan,
    result,
    /** A new tab on `file?query` (an object of URL parameters), once the page's `window[global]`
     * says it is ready or failed; its console lines and uncaught errors go to result.console,
     * after `label` where given. */
    async open(file, query, global, label = "") {
      const page = await browser.newPage();
      page.setDefaultTimeout(600_000);
      page.on("console", (m) => result.console.push(label ? `${label}: ${m.text()}` : m.text()));
      page.on("pageerror", (e) => result.console.push(`pageerror${label ? ` (${label})` : ""}: ${e.message}`));
      await page.goto(`${origin}/${file}?${new URLSearchParams(query)}`);
      await page.waitForFunction(`window.${global} && (window.${global}.ready || window.${global}.failed)`, {
        polling: 100,
      });
      return page;
    },
    /** Runs `script` in `page`, then saves the page's canvas (#stage) as OUT/`name` in the same
     * task: a WebGPU canvas's picture is readable until the task ends. */
    async shot(page, name, script) {
      const url = await page.evaluate(`(() => {
        ${script};
        return document.getElementById("stage").toDataURL("image/png");
      })()`);
      await writeFile(join(plan.out, name), Buffer.from(url.split(",")[1], "base64"));
    },
    /** Writes the result as OUT/`name`, then closes the browser and the server. */
    async finish(name) {
      await writeFile(join(plan.out, name), JSON.stringify(result, null, 1));
      await browser.close();
      server.close();
    },
  };
}
