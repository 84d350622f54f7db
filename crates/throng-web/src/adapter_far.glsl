// throng's far-tier cards for an engine's own WebGL2 renderer (GLSL ES 3.00): the GLSL twin of
// throng::far (crates/throng-asset/shaders/far.wgsl: far_view_taps, far_frame_taps, far_taps,
// far_texel, far_sample, far_blend, far_card_axes, far_card_point, far_card_uv,
// far_taps_extent, far_extent_corner, far_world_normal, far_base_layer, far_frame_x, far_share, far_dither_threshold,
// far_fade_threshold, far_covered, far_card_half) and of throng-render's card vertex stage
// (far_draw.wgsl far_card, far_clip_and_x). The vertex stage appends it to adapter.glsl (it
// reads the instance's layers and transform through it); the fragment stage defines
// THRONG_FAR_FRAGMENT before it. A mesh's stages define THRONG_FAR_MESH too and get only the
// crossfade: the share of the instance its card shows (throngFarShare, in the vertex stage) and
// whether a fragment is the card's half of the screen door (throngFarCardHalf), which the mesh
// then leaves out. Variants, part masks and tints are not drawn (the adapters draw none on their
// meshes either).
//
// Tables (adapter.rs FarData), THRONG_WIDTH texels a row like adapter.glsl's:
// - throngFarClips (RGBA32UI): texel 0 the clip count, then per clip (first_frame, frames,
//   looped, 0), then the tiles' rects four a texel (throng_asset::gpu::far::FarUpload::
//   clip_table);
// - throngFarRows (RGBA32F): every frame-table row's frame coordinate in its clip's far
//   frames, four a texel;
// - throngFarColour, throngFarSurface (RGBA8, read unfiltered): the tiles' atlases; colour
//   sRGB-encoded with coverage in alpha, surface the normal (× 127.5 + 127.5) and primitive.

uniform highp vec4 throngFarSphere;
uniform highp uvec4 throngFarGrid;

#ifdef THRONG_FAR_FRAGMENT
#define THRONG_FAR_OUT in
#else
#define THRONG_FAR_OUT out
#endif
// The share of the instance its card shows (throngFarShare).
flat THRONG_FAR_OUT float throngFarShareV;
#ifndef THRONG_FAR_MESH
// A card's place (0..1 from its top-left), its four tiles (two frames × two views) and their
// weights, and its model-to-lighting-space normal transform.
THRONG_FAR_OUT vec2 throngFarUv;
flat THRONG_FAR_OUT uvec4 throngFarTiles;
flat THRONG_FAR_OUT vec4 throngFarWeights;
flat THRONG_FAR_OUT mat3 throngFarNormal;
#endif

#ifndef THRONG_FAR_FRAGMENT

// The crossfade (core.js CrowdTables.fade): the camera in crowd space (xyz) and the pixels a
// length of 1 covers at a distance of 1 (w; 0 where the camera shows no cards); one tier texel
// (x, file units), the LOD bias (y, pixels) and the crossfade's width (z, pixels; 0: a hard
// switch).
uniform highp vec4 throngFarEye;
uniform highp vec3 throngFarBand;

// The share of an instance placed by `world` its card shows: 0 all mesh, 1 all card (throng::far
// far_share; core.js farShare, which lists the instance by the same rule, with the instance's
// scale as core.js measures it: its matrix's longest column).
float throngFarShare(mat4 world) {
  if (throngFarEye.w <= 0.0) return 0.0;
  float scale = max(length(world[0].xyz), max(length(world[1].xyz), length(world[2].xyz)));
  vec3 centre = (world * vec4(throngFarSphere.xyz, 1.0)).xyz;
  float dist = max(length(centre - throngFarEye.xyz) - throngFarSphere.w * scale, 1e-6);
  float pixels = throngFarBand.x * scale * throngFarEye.w / dist;
  if (throngFarBand.z <= 0.0) return pixels <= throngFarBand.y ? 1.0 : 0.0;
  return clamp((throngFarBand.y - pixels) / throngFarBand.z, 0.0, 1.0);
}

#endif

#ifdef THRONG_FAR_FRAGMENT

// far_dither_threshold at framebuffer position `frag` (pixels from the top-left, as WGSL's
// fragment position counts them): a 4 × 4 Bayer matrix, (k + 0.5) / 16.
float throngFarDither(vec2 frag) {
  ivec2 p = ivec2(floor(frag)) & 3;
  int k = p.y * 4 + p.x;
  const float bayer[16] = float[16](0.0, 8.0, 2.0, 10.0, 12.0, 4.0, 14.0, 6.0, 3.0, 11.0, 1.0, 9.0, 15.0, 7.0, 13.0, 5.0);
  return (bayer[k] + 0.5) / 16.0;
}

// The height of the target drawn to, pixels (the ordered dither counts rows from the top).
uniform highp float throngFarHeight;

// This fragment's position as WGSL counts it (from the top-left).
vec2 throngFarFrag() {
  return vec2(gl_FragCoord.x, throngFarHeight - gl_FragCoord.y);
}

// Whether this fragment is in the card's half of the crossfade's screen door at share `share`
// (far_card_half: the dither shifted by (2, 1), far_fade_threshold): the card keeps such
// fragments and the mesh leaves them out.
bool throngFarCardHalf(float share) {
  return share > 0.0 && throngFarDither(throngFarFrag() + vec2(2.0, 1.0)) < share;
}

#endif

#if !defined(THRONG_FAR_FRAGMENT) && !defined(THRONG_FAR_MESH)

uniform highp usampler2D throngFarClips;
uniform highp sampler2D throngFarRows;
uniform highp vec4 throngFarElevationBounds[2];

const float THRONG_FAR_TAU = 6.283185307179586;

// Clip c of the tier (the last for an index past it): (first_frame, frames, looped, 0).
uvec4 throngFarClip(uint c) {
  uint count = max(texelFetch(throngFarClips, throngTexel(0), 0).x, 1u);
  return texelFetch(throngFarClips, throngTexel(int(1u + min(c, count - 1u))), 0);
}

// Tile t's rect: x0 | y0 << 8 | x1 << 16 | y1 << 24, inclusive texels from the top-left
// (throng_asset::gpu::far::tile_rects; x0 > x1: an empty tile).
uint throngFarRect(uint t) {
  uint afterClips = 1u + max(texelFetch(throngFarClips, throngTexel(0), 0).x, 1u);
  uvec4 r = texelFetch(throngFarClips, throngTexel(int(afterClips + t / 4u)), 0);
  uint lane = t % 4u;
  return lane == 0u ? r.x : lane == 1u ? r.y : lane == 2u ? r.z : r.w;
}

// far_taps_extent: the part of the card its taps show something in, (a0, b0, a1, b1), the
// union of the rects of the taps of nonzero weight; a point where none shows anything.
vec4 throngFarExtent(uvec4 tiles, vec4 weights) {
  uvec2 lo = uvec2(255u);
  uvec2 hi = uvec2(0u);
  for (int k = 0; k < 4; k++) {
    uint r = throngFarRect(tiles[k]);
    uvec2 r0 = uvec2(r & 255u, (r >> 8u) & 255u);
    uvec2 r1 = uvec2((r >> 16u) & 255u, r >> 24u);
    if (weights[k] > 0.0 && r0.x <= r1.x) {
      lo = min(lo, r0);
      hi = max(hi, r1);
    }
  }
  if (lo.x > hi.x) return vec4(0.0);
  float n = float(max(throngFarGrid.x, 1u));
  vec2 u = vec2(float(lo.x), float(hi.x + 1u)) / n;
  vec2 v = vec2(float(lo.y), float(hi.y + 1u)) / n;
  vec2 a = clamp(u * 2.0 - 1.0, vec2(-1.0), vec2(1.0));
  vec2 b = clamp(vec2(1.0) - 2.0 * vec2(v.y, v.x), vec2(-1.0), vec2(1.0));
  return vec4(a.x, b.x, a.y, b.y);
}

// Frame-table row r's frame coordinate in its clip's far frames.
float throngFarRow(uint r) {
  vec4 t = texelFetch(throngFarRows, throngTexel(int(r / 4u)), 0);
  uint lane = r % 4u;
  return lane == 0u ? t.x : lane == 1u ? t.y : lane == 2u ? t.z : t.w;
}

// The two views around `toward` (model space): (tile index within a frame, weight) each.
void throngFarViewTaps(vec3 toward, out uvec2 views, out vec2 weights) {
  vec3 d = vec3(0.0, 0.0, 1.0);
  float len = length(toward);
  if (len > 0.0) d = toward / len;
  uint n = max(throngFarGrid.y, 1u);
  float az = 0.0;
  if (abs(d.x) + abs(d.z) > 1e-6) az = atan(d.x, d.z);
  if (az < 0.0) az += THRONG_FAR_TAU;
  float x = az / THRONG_FAR_TAU * float(n);
  uint a0 = uint(floor(x)) % n;
  float f = x - floor(x);
  uint e = 0u;
  for (uint i = 0u; i + 1u < throngFarGrid.z; i++) {
    if (d.y > throngFarElevationBounds[i / 4u][i % 4u]) e = i + 1u;
  }
  views = uvec2(e * n + a0, e * n + (a0 + 1u) % n);
  weights = vec2(1.0 - f, f);
}

// The two frames of clip c around frame coordinate x: (frame index among the tier's, weight).
void throngFarFrameTaps(uvec4 c, float x, out uvec2 frames, out vec2 weights) {
  uint n = max(c.y, 1u);
  float xc = clamp(x, 0.0, float(n));
  uint k = min(uint(floor(xc)), n - 1u);
  float f = clamp(xc - float(k), 0.0, 1.0);
  uint next = min(k + 1u, n - 1u);
  if (c.z == 1u) next = (k + 1u) % n;
  frames = uvec2(c.x + k, c.x + next);
  weights = vec2(1.0 - f, f);
}

// The instance's heaviest base layer (not additive, not a masked overlay: adapter.glsl's
// throngOverlay), and its clip and frame coordinate in the clip's far frames.
vec2 throngFarClipAndX() {
  int best = 0;
  float w = -1.0;
  for (int k = 0; k < 4; k++) {
    ThrongLayer l = throngLayers[k];
    bool additive = (throngClip(l.clip).w & THRONG_CLIP_ADDITIVE) != 0u;
    if (l.weight != 0.0 && !additive && !throngOverlay[k] && l.weight > w) {
      w = l.weight;
      best = k;
    }
  }
  ThrongLayer l = throngLayers[best];
  uvec2 rows = throngLayerRows(l, uint(textureSize(throngBones, 0).y));
  uvec4 c = throngFarClip(l.clip);
  float x0 = throngFarRow(rows.x);
  float x1 = throngFarRow(rows.y);
  if (x1 < x0) x1 += float(max(c.y, 1u));
  return vec2(float(l.clip), mix(x0, x1, l.frac));
}

// Where the viewer of `clipFromCrowd` (the pass's projection · view · the crowd's own world
// matrix) stands, in crowd space: xyz its position and w 1 under a perspective projection; under
// an orthographic one (a directional light's shadow pass) xyz the direction towards it and w 0.
// The clip-space point at infinity along +z is the eye (perspective) or the viewing direction
// (orthographic: away from the viewer where depth grows away from it, as in OpenGL's −1..1 and
// WebGPU's 0..1; a reversed depth buffer would turn a shadow pass's cards around), whatever the
// handedness.
vec4 throngFarViewer(mat4 clipFromCrowd) {
  vec4 h = inverse(clipFromCrowd) * vec4(0.0, 0.0, 1.0, 0.0);
  if (abs(h.w) > 1e-6 * length(h.xyz)) return vec4(h.xyz / h.w, 1.0);
  return vec4(-h.xyz, 0.0);
}

// The card of this vertex's instance at its corner (gl_VertexID bit 0: right, bit 1: top, as
// throng_asset::gpu::far::CARD_INDICES index them) of the part its taps show something in
// (throngFarExtent), facing the viewer of `clipFromCrowd`: its position in crowd space. Writes
// the card's varyings; `normalMatrix` takes crowd-space normals to the space the engine lights
// in.
vec3 throngFarCard(mat4 clipFromCrowd, mat3 normalMatrix) {
  int instance = int(throngInstance + 0.5);
  throngReadLayers(instance);
  mat4 world = throngWorld(instance);
  // the crowd's camera decides the share in every pass (the pass draws the camera's lists),
  // so a shadow pass draws the card's and the mesh's halves of one screen door too
  throngFarShareV = throngFarShare(world);
  vec3 centre = (world * vec4(throngFarSphere.xyz, 1.0)).xyz;
  vec4 viewer = throngFarViewer(clipFromCrowd);
  vec3 towardWorld = viewer.w == 0.0 ? viewer.xyz : viewer.xyz - centre;
  mat3 linear = mat3(world);
  mat3 inv = inverse(linear);
  // far_card_axes: the direction in model space, the card's axes through the sphere centre
  vec3 d = normalize(inv * towardWorld);
  vec3 right = cross(vec3(0.0, 1.0, 0.0), d);
  if (dot(right, right) < 1e-12) right = vec3(1.0, 0.0, 0.0);
  right = normalize(right);
  vec3 up = cross(d, right);
  // far_world_normal: model normals by L⁻ᵀ (its direction; the fragment keeps the length)
  throngFarNormal = normalMatrix * transpose(inv);
  vec2 cx = throngFarClipAndX();
  uvec2 frames;
  vec2 fw;
  throngFarFrameTaps(throngFarClip(uint(cx.x)), cx.y, frames, fw);
  uvec2 views;
  vec2 vw;
  throngFarViewTaps(d, views, vw);
  uint perFrame = max(throngFarGrid.y, 1u) * throngFarGrid.z;
  throngFarTiles = uvec4(frames.x * perFrame + views.x, frames.x * perFrame + views.y,
                         frames.y * perFrame + views.x, frames.y * perFrame + views.y);
  throngFarWeights = vec4(fw.x * vw.x, fw.x * vw.y, fw.y * vw.x, fw.y * vw.y);
  vec4 extent = throngFarExtent(throngFarTiles, throngFarWeights);
  vec2 ab = vec2((gl_VertexID & 1) == 1 ? extent.z : extent.x, (gl_VertexID & 2) == 2 ? extent.w : extent.y);
  vec3 point = throngFarSphere.xyz + throngFarSphere.w * (ab.x * right + ab.y * up);
  throngFarUv = vec2(ab.x * 0.5 + 0.5, 0.5 - ab.y * 0.5);
  return (world * vec4(point, 1.0)).xyz;
}

#endif

#if defined(THRONG_FAR_FRAGMENT) && !defined(THRONG_FAR_MESH)

uniform highp sampler2D throngFarColour;
uniform highp sampler2D throngFarSurface;

float throngFarSrgbDecode(float c) {
  return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

// Tile `tile`'s texel (i, j), clamped to the tile: linear colour and coverage; the normal.
void throngFarTexel(uint tile, int i, int j, out vec4 colour, out vec3 normal) {
  int n = int(throngFarGrid.x);
  uint cols = max(throngFarGrid.w, 1u);
  ivec2 at = ivec2(int(tile % cols), int(tile / cols)) * n + ivec2(clamp(i, 0, n - 1), clamp(j, 0, n - 1));
  vec4 c = texelFetch(throngFarColour, at, 0);
  vec4 s = texelFetch(throngFarSurface, at, 0);
  colour = vec4(throngFarSrgbDecode(c.r), throngFarSrgbDecode(c.g), throngFarSrgbDecode(c.b), c.a);
  normal = s.rgb * (255.0 / 127.5) - 1.0;
}

// Tile `tile` at `uv`, bilinear with clamped edges: linear colour and coverage; the normal.
void throngFarSample(uint tile, vec2 uv, out vec4 colour, out vec3 normal) {
  float n = float(throngFarGrid.x);
  float x = uv.x * n - 0.5;
  float y = uv.y * n - 0.5;
  float fx = x - floor(x);
  float fy = y - floor(y);
  int i = int(floor(x));
  int j = int(floor(y));
  vec4 ca, cb, cc, cd;
  vec3 na, nb, nc, nd;
  throngFarTexel(tile, i, j, ca, na);
  throngFarTexel(tile, i + 1, j, cb, nb);
  throngFarTexel(tile, i, j + 1, cc, nc);
  throngFarTexel(tile, i + 1, j + 1, cd, nd);
  colour = mix(mix(ca, cb, fx), mix(cc, cd, fx), fy);
  normal = mix(mix(na, nb, fx), mix(nc, nd, fx), fy);
}

// What the card shows at this fragment: linear albedo (rgb) and covered share (a); the
// normal in the engine's view space, its length the mean normal's (≤ 1).
vec4 throngFarShown(out vec3 viewNormal) {
  vec3 albedo = vec3(0.0);
  vec3 normal = vec3(0.0);
  float coverage = 0.0;
  for (int k = 0; k < 4; k++) {
    float w = throngFarWeights[k];
    if (w == 0.0) continue;
    vec4 c;
    vec3 n;
    throngFarSample(throngFarTiles[k], throngFarUv, c, n);
    albedo += c.rgb * (c.a * w);
    normal += n * (c.a * w);
    coverage += c.a * w;
  }
  if (coverage > 0.0) {
    albedo /= coverage;
    normal /= coverage;
  }
  vec3 nv = throngFarNormal * normal;
  viewNormal = dot(nv, nv) > 0.0 ? normalize(nv) * length(normal) : vec3(0.0, 0.0, 1.0);
  return vec4(albedo, coverage);
}

// Whether the card shows at this fragment: its coverage above the ordered dither, and in its
// half of the crossfade's screen door (far_covered).
bool throngFarCovered(float coverage) {
  return coverage > throngFarDither(throngFarFrag()) && throngFarCardHalf(throngFarShareV);
}

#endif
