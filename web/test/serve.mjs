// What the browser drivers share: a static file server on localhost (a secure context: WebGPU
// needs one) and headless Chromium started with the flags of docs/TOOLCHAIN.md (WebGPU and
// WebGL2 on SwiftShader without a GPU).
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";

const types = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".glb": "model/gltf-binary",
  ".json": "application/json",
};

/** Serves `dir` on 127.0.0.1; resolves to the server (its `address().port` is the port). */
export async function serveFolder(dir) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (path.includes("..")) {
      res.writeHead(403).end();
      return;
    }
    try {
      const body = await readFile(join(dir, path === "/" ? "index.html" : path));
      res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return server;
}

/** Headless Chromium at `chromium`, with puppeteer-core from `driver`'s node_modules. */
export async function launchChromium(chromium, driver) {
  const require = createRequire(join(driver, "package.json"));
  const puppeteer = require("puppeteer-core");
  return puppeteer.launch({
    executablePath: chromium,
    headless: true,
    protocolTimeout: 600_000,
    args: [
      "--no-sandbox",
      "--enable-unsafe-webgpu",
      "--use-angle=swiftshader",
      "--enable-features=Vulkan",
      "--use-vulkan=swiftshader",
      "--enable-unsafe-swiftshader",
    ],
  });
}
