// Drives web/test/adapter-taps.html (crates/throng-web/tests/adapter_taps.rs): opens it in
// headless Chromium and writes what its WebGL2 transform feedback read back as OUT/result.json.
import { startSession } from "./session.mjs";

const session = await startSession();
const page = await session.open("adapter-taps.html", {}, "throngTaps");
session.result.taps = await page.evaluate("window.throngTaps");
await session.finish("result.json");
