// Runs the adapters' vertex GLSL (adapter.glsl: what throng/three and throng/babylon inject into
// their engines' materials) in plain WebGL2 and reads back, by transform feedback, what
// throngSkin() makes of each point: no engine, so what the test compares is the GLSL's own
// arithmetic. cases.json (written by crates/throng-web/tests/adapter_taps.rs) holds per case
// the GLSL, the adapters' tables and the points; window.throngTaps.out gets, per case, x, y, z
// per point. A case with `far` runs the far tier's card vertex stage (adapter_far.glsl
// throngFarCard and throngFarShare) instead, one vertex a card corner (gl_VertexID picks it),
// and gets per vertex the corner's crowd-space position, the share, the four tiles and their
// weights (12 numbers).

const PRELUDE = "#version 300 es\n#define attribute in\nprecision highp float;\nprecision highp int;\n";
const MAIN = `
in vec3 throngTestPosition;
out vec3 throngTestOut;
void main() {
  throngTestOut = (throngSkin() * vec4(throngTestPosition, 1.0)).xyz;
  gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
  gl_PointSize = 1.0;
}
`;
const MAIN_FAR = `
uniform mat4 throngTestClip;
out vec3 throngTestOut;
out float throngTestShare;
out vec4 throngTestTiles;
out vec4 throngTestWeights;
void main() {
  throngTestOut = throngFarCard(throngTestClip, mat3(1.0));
  throngTestShare = throngFarShareV;
  throngTestTiles = vec4(throngFarTiles);
  throngTestWeights = throngFarWeights;
  gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
  gl_PointSize = 1.0;
}
`;
const FAR_OUTPUTS = ["throngTestOut", "throngTestShare", "throngTestTiles", "throngTestWeights"];
const FRAGMENT = "#version 300 es\nprecision highp float;\nout vec4 colour;\nvoid main() { colour = vec4(0.0); }\n";

function shader(gl, type, text) {
  const s = gl.createShader(type);
  gl.shaderSource(s, text);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(`GLSL: ${gl.getShaderInfoLog(s)}`);
  return s;
}

/** A texture of `texels` RGBA texels from `values` (f32 or u32), `width` wide, on `unit`. */
function table(gl, program, unit, name, values, width, integer) {
  const height = Math.max(1, Math.ceil(values.length / 4 / width));
  const data = new (integer ? Uint32Array : Float32Array)(width * height * 4);
  data.set(values);
  const t = gl.createTexture();
  gl.activeTexture(gl.TEXTURE0 + unit);
  gl.bindTexture(gl.TEXTURE_2D, t);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
  if (integer) gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32UI, width, height, 0, gl.RGBA_INTEGER, gl.UNSIGNED_INT, data);
  else gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, width, height, 0, gl.RGBA, gl.FLOAT, data);
  const at = gl.getUniformLocation(program, name);
  if (at) gl.uniform1i(at, unit);
}

function attribute(gl, program, name, size, values) {
  const at = gl.getAttribLocation(program, name);
  if (at < 0) return;
  const b = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, b);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(values), gl.STATIC_DRAW);
  gl.enableVertexAttribArray(at);
  gl.vertexAttribPointer(at, size, gl.FLOAT, false, 0, 0);
}

function run(gl, c) {
  const program = gl.createProgram();
  const defines = c.gpuTimed ? "#define THRONG_GPU_TIMED\n" : "";
  const vertex = c.far ? `${c.glsl}\n${c.far.glsl}${MAIN_FAR}` : c.glsl + MAIN;
  gl.attachShader(program, shader(gl, gl.VERTEX_SHADER, PRELUDE + defines + vertex));
  gl.attachShader(program, shader(gl, gl.FRAGMENT_SHADER, FRAGMENT));
  const outputs = c.far ? FAR_OUTPUTS : ["throngTestOut"];
  const perVertex = c.far ? 12 : 3;
  gl.transformFeedbackVaryings(program, outputs, gl.INTERLEAVED_ATTRIBS);
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(`link: ${gl.getProgramInfoLog(program)}`);
  gl.useProgram(program);
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  table(gl, program, 0, "throngBones", c.bones.data, c.bones.width, false);
  table(gl, program, 1, "throngTransforms", c.transforms, c.width, false);
  table(gl, program, 2, "throngRecords", c.records, c.width, c.gpuTimed);
  table(gl, program, 3, "throngClips", c.clips, c.width, true);
  table(gl, program, 4, "throngFrameTimes", c.frameTimes, c.width, true);
  const count = gl.getUniformLocation(program, "throngClipCount");
  if (count) gl.uniform1i(count, c.clips.length / 4);
  const clock = gl.getUniformLocation(program, "throngClock");
  if (clock) gl.uniform1ui(clock, c.clock);
  if (c.far) {
    const f = c.far;
    table(gl, program, 5, "throngFarClips", f.clips, c.width, true);
    table(gl, program, 6, "throngFarRows", f.rows, c.width, false);
    const set = (name, call, ...v) => {
      const at = gl.getUniformLocation(program, name);
      if (at) gl[call](at, ...v);
    };
    set("throngFarSphere", "uniform4fv", f.sphere);
    set("throngFarGrid", "uniform4uiv", f.grid);
    set("throngFarElevationBounds", "uniform4fv", f.elevationBounds);
    set("throngFarEye", "uniform4fv", f.eye);
    set("throngFarBand", "uniform3fv", f.band);
    set("throngTestClip", "uniformMatrix4fv", false, f.clip);
  }
  const n = c.instances.length;
  attribute(gl, program, "throngInstance", 1, c.instances);
  attribute(gl, program, "throngJoints", 4, c.joints);
  attribute(gl, program, "throngWeights", 4, c.weights);
  attribute(gl, program, "throngTestPosition", 3, c.positions);
  const out = gl.createBuffer();
  gl.bindBuffer(gl.TRANSFORM_FEEDBACK_BUFFER, out);
  gl.bufferData(gl.TRANSFORM_FEEDBACK_BUFFER, n * perVertex * 4, gl.STATIC_READ);
  const feedback = gl.createTransformFeedback();
  gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, feedback);
  gl.bindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, out);
  gl.enable(gl.RASTERIZER_DISCARD);
  gl.beginTransformFeedback(gl.POINTS);
  gl.drawArrays(gl.POINTS, 0, n);
  gl.endTransformFeedback();
  gl.disable(gl.RASTERIZER_DISCARD);
  gl.bindTransformFeedback(gl.TRANSFORM_FEEDBACK, null);
  const result = new Float32Array(n * perVertex);
  gl.bindBuffer(gl.TRANSFORM_FEEDBACK_BUFFER, out);
  gl.getBufferSubData(gl.TRANSFORM_FEEDBACK_BUFFER, 0, result);
  const error = gl.getError();
  if (error !== gl.NO_ERROR) throw new Error(`WebGL error 0x${error.toString(16)}`);
  return Array.from(result);
}

async function main() {
  const cases = await (await fetch("cases.json")).json();
  const gl = document.getElementById("stage").getContext("webgl2");
  if (!gl) throw new Error("no WebGL2 context");
  const out = cases.map((c) => run(gl, c));
  window.throngTaps = { ready: true, renderer: gl.getParameter(gl.RENDERER), out };
}

main().catch((e) => {
  window.throngTaps = { failed: String(e.stack ?? e) };
});
