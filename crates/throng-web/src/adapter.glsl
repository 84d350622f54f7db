// throng's skinning for an engine's own WebGL2 renderer (GLSL ES 3.00, vertex stage): the
// GLSL twin of throng::playback's GPU-timed arithmetic (crates/throng-contract/shaders/
// playback.wgsl: gpu_layers, clip_frame, listed_frame, phase_position, layer_taps) and of the
// texture path's skinning (throng::skin, throng::bone's taps_affine). adapter.rs prepends the
// contract's constants as #defines (THRONG_*, generated from the Rust constants) and the texture
// width; the JavaScript adapters (throng/three, throng/babylon) inject this into their engines'
// materials. Define THRONG_GPU_TIMED for a GPU-timed crowd.
//
// Every table is a 2D texture THRONG_WIDTH texels wide, item i at texel (i % W, i / W):
// - throngBones (RGBA32F): texel (3j + r, row) = row r of palette entry j's skin matrix;
// - throngTransforms (RGBA32F): 4 texels per instance, the columns of its world matrix;
// - throngRecords: 4 texels per instance — CPU-timed RGBA32F, per layer (weight, frac, row,
//   clip index as a number); GPU-timed RGBA32UI, the 56 B GpuInstanceRecord's 14 words then 2
//   unused;
// - throngClips (RGBA32UI, both timings): per clip (first_row, frames, times_offset, flags),
//   which the row taps read (a clip's interpolation, its last row) and GPU-timed rows derive from;
// - throngFrameTimes (RGBA32UI, GPU-timed): the frame-time table's words, 4 per texel.
// The instance index comes in as the per-instance attribute throngInstance.

uniform highp sampler2D throngBones;
uniform highp sampler2D throngTransforms;
uniform highp usampler2D throngClips;
uniform highp int throngClipCount;
#ifdef THRONG_GPU_TIMED
uniform highp usampler2D throngRecords;
uniform highp usampler2D throngFrameTimes;
uniform highp uint throngClock;
#else
uniform highp sampler2D throngRecords;
#endif
attribute float throngInstance;
attribute vec4 throngJoints;
attribute vec4 throngWeights;

ivec2 throngTexel(int i) {
  return ivec2(i % THRONG_WIDTH, i / THRONG_WIDTH);
}

// One playback layer as the skinning reads it: weight, frac (of the gap after row), global
// row, clip index.
struct ThrongLayer {
  float weight;
  float frac;
  float row;
  uint clip;
};

// Clip i, or the zero clip (row 0, uniform frames) past the table, as playback.wgsl reads it.
uvec4 throngClip(uint i) {
  if (i >= uint(throngClipCount)) return uvec4(0u, 0u, THRONG_UNIFORM_FRAMES, 0u);
  return texelFetch(throngClips, throngTexel(int(i)), 0);
}

uint throngClipLast(uvec4 c) {
  return max(c.y, 1u) - 1u;
}

#ifdef THRONG_GPU_TIMED

uint throngTimeWord(uint k) {
  uvec4 t = texelFetch(throngFrameTimes, throngTexel(int(k >> 2u)), 0);
  uint lane = k & 3u;
  return lane == 0u ? t.x : lane == 1u ? t.y : lane == 2u ? t.z : t.w;
}

float throngListedTime(uvec4 c, uint k) {
  return uintBitsToFloat(throngTimeWord(c.z + k));
}

// Row and frac of a clip with a frame-time list (playback.wgsl listed_frame).
vec2 throngListedFrame(uvec4 c, float qIn) {
  uint n = max(c.y, 1u);
  uint lastU = n - 1u;
  float last = float(lastU);
  float q = clamp(qIn, 0.0, last);
  if (q >= last || n < 2u) return vec2(float(c.x + lastU), 0.0);
  float d = throngListedTime(c, lastU);
  float tau = q / last * d;
  uint cells = max(lastU, 1u);
  uint cell = min(uint(tau / d * float(cells)), cells - 1u);
  uint k = min(throngTimeWord(c.z + n + cell), lastU - 1u);
  for (uint i = 0u; i < n && k > 0u && throngListedTime(c, k) > tau; i++) k -= 1u;
  for (uint i = 0u; i < n; i++) {
    if (k + 2u > lastU || throngListedTime(c, k + 1u) > tau) break;
    k += 1u;
  }
  float a = throngListedTime(c, k);
  float b = throngListedTime(c, k + 1u);
  float frac = b > a ? (tau - a) / (b - a) : 0.0;
  return vec2(float(c.x + k), clamp(frac, 0.0, 1.0));
}

// The time rules' frame(q): row and frac, frac 0 on the last frame (playback.wgsl clip_frame).
vec2 throngClipFrame(uvec4 c, float qIn) {
  if (c.z != THRONG_UNIFORM_FRAMES) return throngListedFrame(c, qIn);
  uint lastU = throngClipLast(c);
  float last = float(lastU);
  float q = clamp(qIn, 0.0, last);
  float fl = floor(q);
  if (fl >= last) return vec2(float(c.x + lastU), 0.0);
  return vec2(float(c.x + uint(fl)), q - fl);
}

// Shown position at phase phi (periods) (playback.wgsl phase_position).
float throngPhasePosition(float phiIn, uint mode, bool held, float last) {
  float phi = phiIn;
  if (held) return last;
  if (mode == THRONG_MODE_LOOP) {
    if (phi >= 1.0) phi -= 1.0;
    return phi * last;
  }
  if (mode == THRONG_MODE_PINGPONG) {
    if (phi >= 1.0) phi -= 1.0;
    float q = phi * (2.0 * last);
    return q > last ? 2.0 * last - q : q;
  }
  return phi * last;
}

// One GPU-timed layer (words anchor, phase, omega_hi, omega_lo bits; clip_mode) at the clock
// (playback.wgsl gpu_layer). Unsigned arithmetic wraps modulo 2^32 in GLSL ES 3.00 as in WGSL.
ThrongLayer throngGpuLayer(uvec4 l, uint clipMode, float weight) {
  uvec4 c = throngClip(clipMode & THRONG_CLIP_MASK);
  uint mode = (clipMode >> THRONG_MODE_SHIFT) & 3u;
  uint e = throngClock - l.x;
  uint a = e * l.z + l.y;
  float phi = float(a) * THRONG_TWO_NEG_32 + float(e) * uintBitsToFloat(l.w);
  float q = throngPhasePosition(phi, mode, (clipMode & THRONG_GPU_HELD) != 0u, float(throngClipLast(c)));
  vec2 f = throngClipFrame(c, q);
  return ThrongLayer(weight, f.y, f.x, clipMode & THRONG_CLIP_MASK);
}
#endif

// The rows a layer's pose sums and their weights (playback.wgsl RowTaps).
struct ThrongTaps {
  ivec4 rows;
  vec4 weights;
};

// Catmull-Rom weights of rows (before, row, next, after) at f (playback.wgsl catmull_rom_weights).
vec4 throngCatmullRom(float f) {
  float f2 = f * f;
  float f3 = f2 * f;
  return vec4(0.5 * (-f3 + 2.0 * f2 - f), 0.5 * (3.0 * f3 - 5.0 * f2 + 2.0),
              0.5 * (-3.0 * f3 + 4.0 * f2 + f), 0.5 * (f3 - f2));
}

// Lagrange weights of a degree-d piece's d + 1 rows at x in [0, d] (playback.wgsl piece_weights).
vec4 throngPieceWeights(uint d, float x) {
  if (d == 2u) return vec4(0.5 * (x - 1.0) * (x - 2.0), -x * (x - 2.0), 0.5 * x * (x - 1.0), 0.0);
  if (d == 3u) {
    return vec4(-(x - 1.0) * (x - 2.0) * (x - 3.0) / 6.0, 0.5 * x * (x - 2.0) * (x - 3.0),
                -0.5 * x * (x - 1.0) * (x - 3.0), x * (x - 1.0) * (x - 2.0) / 6.0);
  }
  return vec4(1.0 - x, x, 0.0, 0.0);
}

// The last row a layer may read: its clip's last, or the table's for a clip the table does not
// know. tableRows: the bone texture's row count.
uint throngLayerLastRow(ThrongLayer l, uint tableRows) {
  uint lastRow = tableRows - 1u;
  if (l.clip >= uint(throngClipCount)) return lastRow;
  uvec4 c = throngClip(l.clip);
  return min(c.x + throngClipLast(c), lastRow);
}

// A layer's row and the next one, kept inside its clip and the table (playback.wgsl
// layer_rows). tableRows: the bone texture's row count.
uvec2 throngLayerRows(ThrongLayer l, uint tableRows) {
  uint row = min(uint(max(l.row, 0.0)), tableRows - 1u);
  return uvec2(row, max(min(row + 1u, throngLayerLastRow(l, tableRows)), row));
}

// A layer's row taps under its clip's interpolation (playback.wgsl layer_rows and layer_taps):
// linear mixes row and next (next clamped to the clip's last row); a Catmull-Rom clip adds the
// rows either side (wrapping on a periodic clip, else repeating the end); a clip of pieces
// sums the d + 1 rows of the piece holding the gap. tableRows: the bone texture's row count.
ThrongTaps throngLayerTaps(ThrongLayer l, uint tableRows) {
  uvec2 rn = throngLayerRows(l, tableRows);
  uint row = rn.x;
  uint next = rn.y;
  uint last = throngLayerLastRow(l, tableRows);
  bool known = l.clip < uint(throngClipCount);
  uvec4 c = throngClip(l.clip);
  float f = l.frac;
  ThrongTaps linear = ThrongTaps(ivec4(uvec4(row, row, next, next)), vec4(0.0, 1.0 - f, f, 0.0));
  uint d = (c.w >> THRONG_CLIP_DEGREE_SHIFT) & 3u;
  if (!known || f == 0.0 || (d < 2u && (c.w & THRONG_CLIP_CUBIC) == 0u)) return linear;
  uint first = c.x;
  if (last <= first) return linear;
  if (d >= 2u) {
    uint o = (max(row, first) - first) % d;
    uint s = row - o;
    uvec4 rows = min(uvec4(s, s + 1u, s + 2u, s + 3u), uvec4(last));
    return ThrongTaps(ivec4(rows), throngPieceWeights(d, float(o) + f));
  }
  bool periodic = (c.w & THRONG_CLIP_PERIODIC) != 0u;
  uint before = first;
  if (row > first) before = row - 1u;
  else if (periodic) before = last - 1u;
  uint after = last;
  if (next < last) after = next + 1u;
  else if (periodic) after = first + 1u;
  return ThrongTaps(ivec4(uvec4(before, row, next, after)), throngCatmullRom(f));
}

ThrongLayer throngLayers[4];
ThrongTaps throngTaps[4];
// Whether layer k is under a mask (GPU-timed layer 1; the CPU-timed table leaves masks out).
bool throngOverlay[4];

// The instance's layers this frame: CPU-timed as written, GPU-timed derived from the record
// and the clock (playback.wgsl gpu_layers; masks and additive overlays are not applied).
void throngReadLayers(int instance) {
  for (int k = 0; k < 4; k++) {
    throngLayers[k] = ThrongLayer(0.0, 0.0, 0.0, 0u);
    throngOverlay[k] = false;
  }
#ifdef THRONG_GPU_TIMED
  uvec4 t0 = texelFetch(throngRecords, throngTexel(4 * instance), 0);
  uvec4 t1 = texelFetch(throngRecords, throngTexel(4 * instance + 1), 0);
  uvec4 t2 = texelFetch(throngRecords, throngTexel(4 * instance + 2), 0);
  uvec4 t3 = texelFetch(throngRecords, throngTexel(4 * instance + 3), 0);
  // words: layer 0 = 0..4, layer 1 = 5..9, w_anchor 10, w_start 11, w_rate 12, flags 13
  uint flags = t3.y;
  if ((flags & THRONG_GPU_ENABLED) == 0u) return;
  float w0 = 1.0;
  if ((flags & THRONG_GPU_TWO_LAYERS) != 0u) {
    uint ew = throngClock - t2.z;
    float w1 = clamp(uintBitsToFloat(t2.w) + float(ew) * uintBitsToFloat(t3.x), 0.0, 1.0);
    uint clipMode1 = t2.y;
    throngLayers[1] = throngGpuLayer(uvec4(t1.y, t1.z, t1.w, t2.x), clipMode1, w1);
    uvec4 c1 = throngClip(clipMode1 & THRONG_CLIP_MASK);
    throngOverlay[1] = (clipMode1 >> THRONG_LAYER_MASK_SHIFT) != 0u;
    bool overlay = throngOverlay[1] || (c1.w & THRONG_CLIP_ADDITIVE) != 0u;
    if (!overlay) w0 = 1.0 - w1;
  }
  throngLayers[0] = throngGpuLayer(t0, t1.x, w0);
#else
  for (int k = 0; k < 4; k++) {
    vec4 v = texelFetch(throngRecords, throngTexel(4 * instance + k), 0);
    throngLayers[k] = ThrongLayer(v.x, v.y, v.z, uint(max(v.w, 0.0)));
  }
#endif
  uint tableRows = uint(textureSize(throngBones, 0).y);
  for (int k = 0; k < 4; k++) throngTaps[k] = throngLayerTaps(throngLayers[k], tableRows);
}

mat4 throngRow(int j, int row) {
  vec4 r0 = texelFetch(throngBones, ivec2(3 * j, row), 0);
  vec4 r1 = texelFetch(throngBones, ivec2(3 * j + 1, row), 0);
  vec4 r2 = texelFetch(throngBones, ivec2(3 * j + 2, row), 0);
  return mat4(r0.x, r1.x, r2.x, 0.0, r0.y, r1.y, r2.y, 0.0, r0.z, r1.z, r2.z, 0.0, r0.w, r1.w, r2.w, 1.0);
}

// Entry j's skin matrix: each layer's taps summed (throng::bone taps_affine), the layers
// blended by weight; no weight at all shows the rest row 0.
mat4 throngEntry(int j) {
  float total = throngLayers[0].weight + throngLayers[1].weight + throngLayers[2].weight + throngLayers[3].weight;
  if (total <= 0.0) return throngRow(j, 0);
  mat4 m = mat4(0.0);
  for (int k = 0; k < 4; k++) {
    if (throngLayers[k].weight <= 0.0) continue;
    ThrongTaps t = throngTaps[k];
    mat4 a = mat4(0.0);
    for (int i = 0; i < 4; i++) {
      if (t.weights[i] != 0.0) a += throngRow(j, t.rows[i]) * t.weights[i];
    }
    m += a * throngLayers[k].weight;
  }
  return m;
}

// Instance `instance`'s world matrix (the crowd's space from the model's).
mat4 throngWorld(int instance) {
  return mat4(
    texelFetch(throngTransforms, throngTexel(4 * instance), 0),
    texelFetch(throngTransforms, throngTexel(4 * instance + 1), 0),
    texelFetch(throngTransforms, throngTexel(4 * instance + 2), 0),
    texelFetch(throngTransforms, throngTexel(4 * instance + 3), 0));
}

// The vertex's instance's world matrix, as throngSkin() last read it (the far tier's crossfade
// reads it again without fetching it twice).
mat4 throngInstanceWorld;

// World matrix · skin matrix of this vertex: what takes a bind-space position to world space.
mat4 throngSkin() {
  int instance = int(throngInstance + 0.5);
  throngReadLayers(instance);
  mat4 skin = mat4(0.0);
  for (int i = 0; i < 4; i++) {
    if (throngWeights[i] > 0.0) skin += throngEntry(int(throngJoints[i] + 0.5)) * throngWeights[i];
  }
  throngInstanceWorld = throngWorld(instance);
  return throngInstanceWorld * skin;
}
