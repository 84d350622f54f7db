// The page: loads the baked fox (build.sh makes fox.glb from the built-in fox), draws a crowd
// of it with no click needed, and offers clip buttons, an instance-count slider and a file
// picker for a baked .glb of your own. URL parameters (the browser test uses them):
//   backend=auto|webgpu|webgl2  timing=cpu|gpu  count=N  clip=NAME  time=SECONDS  size=WxH  paused=1
//   file=NAME (a baked .glb beside the page; default fox.glb)
//   graph=NAME (an animation graph file beside the page, e.g. locomotion.json, which build.sh
//   writes: the crowd plays it, with a control per parameter instead of the clip buttons)
//   stepOn=auto|cpu|gpu (where the graph steps)
import init, { Crowd, setPanicHandler } from "./pkg/throng_web.js";

const params = new URLSearchParams(location.search);
const canvas = document.getElementById("stage");
const status = document.getElementById("status");
const errorBox = document.getElementById("error");
const slider = document.getElementById("count");
const sliderOut = document.getElementById("countOut");
const clipBar = document.getElementById("clips");

// What the browser test reads: readiness, the first frame's time, errors, events.
const page = (window.throng = { ready: false, errors: [], events: 0, firstFrameMs: null, firstShownMs: null });

function showError(e) {
  const text = e instanceof Error ? e.message : String(e);
  page.errors.push(text);
  errorBox.textContent = text;
  // Until a frame is drawn the status line still says "loading…": say it stopped.
  if (status.textContent.startsWith("loading")) status.textContent = "failed: see the error below";
}

let crowd = null;
let clip = params.get("clip");
let count = Number(params.get("count") ?? slider.value);
const paused = params.get("paused") === "1";

let graphText = null;

function respawn() {
  crowd.clear();
  const spec = { count, time: Number(params.get("time") ?? 0) };
  if (clip !== null) spec.clip = clip;
  crowd.spawnCrowd(spec);
  if (graphText !== null) {
    crowd.playGraph(graphText, { stepOn: params.get("stepOn") ?? "auto", name: params.get("graph") });
    graphControls();
  }
}

// A control per graph parameter, for every instance: a slider (floats, 0 to 4), a number
// (ints), a checkbox (bools), a button (triggers, fired on every fox).
function graphControls() {
  clipBar.replaceChildren();
  const where = document.createElement("span");
  where.textContent = `graph on the ${crowd.graphStepsOn}` + (crowd.graphCpuBecause ? ` (${crowd.graphCpuBecause})` : "");
  clipBar.append(where);
  for (const p of crowd.graphParameters) {
    const label = document.createElement("label");
    label.textContent = ` ${p.name} `;
    const set = (value) => {
      try {
        crowd.setParamAll(p.name, value);
      } catch (e) {
        showError(e);
      }
    };
    if (p.kind === "trigger") {
      const b = document.createElement("button");
      b.textContent = p.name;
      b.onclick = () => set(true);
      clipBar.append(b);
      continue;
    }
    const input = document.createElement("input");
    if (p.kind === "bool") {
      input.type = "checkbox";
      input.checked = p.default !== 0;
      input.onchange = () => set(input.checked);
    } else {
      input.type = p.kind === "float" ? "range" : "number";
      if (p.kind === "float") Object.assign(input, { min: 0, max: 4, step: 0.05 });
      else input.step = 1;
      input.value = p.default;
      input.oninput = () => set(Number(input.value));
    }
    label.append(input);
    clipBar.append(label);
  }
}

function clipButtons() {
  clipBar.replaceChildren();
  for (const name of crowd.clips) {
    const b = document.createElement("button");
    b.textContent = name;
    b.classList.toggle("on", name === clip);
    b.onclick = () => {
      try {
        crowd.crossfadeAll(name, 0.3);
        clip = name;
        for (const o of clipBar.children) o.classList.toggle("on", o === b);
      } catch (e) {
        showError(e);
      }
    };
    clipBar.append(b);
  }
}

async function load(bytes, name) {
  const backend = params.get("backend") ?? "auto";
  const timing = params.get("timing") ?? "cpu";
  const next = await Crowd.create(canvas, bytes, { backend, timing, name });
  if (crowd) crowd.free();
  crowd = next;
  page.crowd = crowd;
  crowd.onEvent(() => page.events++);
  if (graphText === null) clipButtons();
  respawn();
}

let last = null;
let frames = 0;
let fpsFrom = performance.now();
function tick(now) {
  const dt = last === null ? 0 : (now - last) / 1000;
  last = now;
  try {
    crowd.frame(paused ? 0 : dt);
  } catch (e) {
    showError(e);
    return; // stop the loop: the error says why
  }
  if (page.firstFrameMs === null) {
    // Submitted; the next animation frame comes once the browser has taken it (about when it
    // shows), which is what firstShownMs measures.
    page.firstFrameMs = performance.now();
    requestAnimationFrame(() => (page.firstShownMs = performance.now()));
    page.ready = true;
  }
  frames++;
  if (now - fpsFrom > 1000) {
    const ms = (now - fpsFrom) / frames;
    const mode = crowd.downlevel ? ` (downlevel mode: no ${crowd.downlevel})` : "";
    status.textContent = `${crowd.count} foxes · ${ms.toFixed(1)} ms/frame · ${crowd.backend}${mode} on ${crowd.adapter}`;
    frames = 0;
    fpsFrom = now;
  }
  if (!paused) requestAnimationFrame(tick);
}

slider.oninput = () => {
  sliderOut.value = slider.value;
  count = Number(slider.value);
  try {
    respawn();
  } catch (e) {
    showError(e);
  }
};

document.getElementById("file").onchange = async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  try {
    clip = null;
    await load(new Uint8Array(await file.arrayBuffer()), file.name);
    errorBox.textContent = "";
  } catch (e) {
    showError(e);
  }
};

try {
  const size = params.get("size");
  if (size) {
    [canvas.width, canvas.height] = size.split("x").map(Number);
    canvas.style.aspectRatio = `${canvas.width} / ${canvas.height}`;
  }
  slider.value = String(count);
  sliderOut.value = String(count);
  await init();
  setPanicHandler((message) => showError(`throng panicked: ${message}`));
  const graph = params.get("graph");
  if (graph) {
    const response = await fetch(graph);
    if (!response.ok) throw new Error(`${graph}: HTTP ${response.status}; run web/build.sh first`);
    graphText = await response.text();
  }
  const file = params.get("file") ?? "fox.glb";
  const response = await fetch(file);
  if (!response.ok) throw new Error(`${file}: HTTP ${response.status}; run web/build.sh first`);
  await load(new Uint8Array(await response.arrayBuffer()), file);
  requestAnimationFrame(tick);
} catch (e) {
  showError(e);
  page.failed = true;
}
