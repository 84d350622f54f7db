// Far tier draws (docs/design.md §5 "Far tier"): one camera-facing card per instance of the
// culling pass's far list, showing throng::far's blend of the tier's tiles for the instance's
// heaviest base layer, lit like the meshes (throng_render::frame::shade), in its appearance
// (material variant by the tier's colour maps, part mask, tint); the shadow pass keeps the part
// mask. `vs_far` + `fs_far` in the main pass; in the shadow pass the card faces the light
// and `fs_far_shadow` keeps the covered half of it. `vs_far_dot` draws a card whose screen box
// holds one pixel centre as one point there (one vertex a card in a non-instanced point list
// instead of an instance of four: crate::passes::far), working out its fragment with the same
// `far_shaded` as fs_far; `fs_far_dot` (`fs_far_dot_motion`) only writes it. Defs:
// GPU_TIMED, CULLED (crate::shaders::Program::FarDraw); DOWNLEVEL (Program::FarDrawDownlevel:
// instances, clips and the tier's tables from data textures, docs/downlevel.md; quads only).

#import throng::playback::{Layer, instance_affine, layer_clip}
#import throng::instances::{instance_id, instance_transform, shown_layers}
#import throng::bone::{layer_rows_of, layer_is_base}
#ifdef DOWNLEVEL
#import throng::bone::record_texel
#endif
#import throng::appearance::{appearance_tint, appearance_of, Appearance}
#import throng_render::appearance::instance_appearance
#import throng_render::frame::{frame, draw, clip_position, shade}
#import throng::far::{FarParams, FarClip, FarTaps, FarCardAxes, far_taps, far_blend, far_share, far_placed_sphere, far_covered, far_card_axes, far_card_point, far_card_at_ndc, far_card_uv, far_taps_extent, far_extent_corner, far_world_normal, far_base_layer, far_frame_x}
#ifndef DOWNLEVEL
// (throng::cull binds storage buffers; the downlevel mode draws no one-pixel cards.)
#import throng::cull::sphere_pixel_centres
#endif
#ifdef MOTION
#import throng_render::frame::{MotionOut, clip_motion, motion_out}
#endif

@group(0) @binding(#{B_FAR_COLOUR}) var far_colour: texture_2d<f32>;
@group(0) @binding(#{B_FAR_SURFACE}) var far_surface: texture_2d<f32>;
@group(0) @binding(#{B_FAR_PARAMS}) var<uniform> far_params: FarParams;
#ifdef DOWNLEVEL
// Devices without storage buffers in the vertex stage: the tier's clips, tile rects and row
// coordinates are Rgba32Uint data textures of one-texel records (throng_render::gpu_asset::
// FarTables): the clip count, then a FarClip per clip, then the tiles' rects four a texel
// (throng_asset::gpu::far::FarUpload::clip_table); four rows' frame coordinates (f32 bits) a
// texel.
@group(0) @binding(#{B_FAR_CLIPS}) var far_clip_texels: texture_2d<u32>;
@group(0) @binding(#{B_FAR_ROWS}) var far_row_texels: texture_2d<u32>;

fn far_table_texel(table: texture_2d<u32>, i: u32) -> vec4<u32> {
    return textureLoad(table, record_texel(i, 1u, 0u, textureDimensions(table).x), 0);
}

// Clip `c` of the tier, the last for an index past it.
fn far_clip(c: u32) -> FarClip {
    let count = max(far_table_texel(far_clip_texels, 0u).x, 1u);
    let t = far_table_texel(far_clip_texels, 1u + min(c, count - 1u));
    return FarClip(t.x, t.y, t.z, t.w);
}

// Frame-table row `r`'s frame coordinate in its clip's far frames.
fn far_row(r: u32) -> f32 {
    return bitcast<f32>(far_table_texel(far_row_texels, r / 4u)[r % 4u]);
}

// Tile `t`'s rect (throng_asset::gpu::far::tile_rects).
fn far_rect(t: u32) -> u32 {
    let after_clips = 1u + max(far_table_texel(far_clip_texels, 0u).x, 1u);
    return far_table_texel(far_clip_texels, after_clips + t / 4u)[t % 4u];
}
#else
@group(0) @binding(#{B_FAR_CLIPS}) var<storage, read> far_clips: array<FarClip>;
@group(0) @binding(#{B_FAR_ROWS}) var<storage, read> far_rows: array<f32>;

// Clip `c` of the tier, the last for an index past it.
fn far_clip(c: u32) -> FarClip {
    return far_clips[min(c, arrayLength(&far_clips) - 1u)];
}

// Frame-table row `r`'s frame coordinate in its clip's far frames.
fn far_row(r: u32) -> f32 {
    return far_rows[r];
}

// Per tile, the texels a card covers: x0 | y0 << 8 | x1 << 16 | y1 << 24, inclusive, from the
// top-left (throng_asset::gpu::far::tile_rects; x0 > x1: an empty tile).
@group(0) @binding(#{B_FAR_RECTS}) var<storage, read> far_rects: array<u32>;

// Tile `t`'s rect.
fn far_rect(t: u32) -> u32 {
    return far_rects[min(t, arrayLength(&far_rects) - 1u)];
}
#endif
@group(0) @binding(#{B_FAR_VARIANTS}) var far_variants: texture_2d<f32>;

struct FarOut {
    @builtin(position) clip: vec4<f32>,
    // The point on the card, 0..1 from its top-left.
    @location(0) uv: vec2<f32>,
    @location(1) world: vec3<f32>,
    @location(2) @interpolate(flat) tiles: vec4<u32>,
    @location(3) @interpolate(flat) weights: vec4<f32>,
    @location(4) @interpolate(flat) tint: vec4<f32>,
    // det(L) · L⁻ᵀ of the instance's linear part, by columns: model normals to world.
    @location(5) @interpolate(flat) k0: vec3<f32>,
    @location(6) @interpolate(flat) k1: vec3<f32>,
    @location(7) @interpolate(flat) k2: vec3<f32>,
    // The card's share of the crossfade with the mesh (throng::far::far_share; 1 in the shadow
    // pass, which switches without one).
    @location(8) @interpolate(flat) share: f32,
    // The instance's appearance, its four words (throng::appearance::appearance_of).
    @location(11) @interpolate(flat) look: vec4<u32>,
#ifdef MOTION
    // The card point's clip position now and, by the previous frame's camera, then: a card's
    // motion vectors carry the camera's move (the instance's own move is not kept for cards).
    @location(9) now_clip: vec4<f32>,
    @location(10) prev_clip: vec4<f32>,
#endif
}

// The heaviest base layer's clip and frame coordinate (x in the clip's far frames).
fn far_clip_and_x(inst: u32) -> vec2<f32> {
    let layers = shown_layers(inst);
    let base = vec4<bool>(layer_is_base(layers[0]), layer_is_base(layers[1]), layer_is_base(layers[2]), layer_is_base(layers[3]));
    let weights = vec4<f32>(layers[0].weight, layers[1].weight, layers[2].weight, layers[3].weight);
    let l = layers[far_base_layer(base, weights)];
    let c = layer_clip(l);
    let rows = layer_rows_of(l);
    return vec2<f32>(f32(c), far_frame_x(far_row(rows.x), far_row(rows.y), far_clip(c).frames, l.frac));
}

// A card before it is placed on the screen: what every fragment of it gets (all but the
// position, the point on the card and the motion), the instance's affine and the card's axes
// in model space (through the tier's sphere centre, facing the viewer).
struct FarCard {
    out: FarOut,
    m: mat3x4<f32>,
    axes: FarCardAxes,
}

fn far_card(inst: u32) -> FarCard {
    let m = instance_affine(instance_transform(inst));
    let centre = far_params.sphere.xyz;
    let centre_world = vec4<f32>(centre, 1.0) * m;
    // Towards the viewer: the camera in the main pass, the light in the shadow pass.
    var toward_world = -frame.light_dir.xyz;
    var share = 1.0;
    if (draw.pass_index != 1u) {
        toward_world = frame.eye.xyz - centre_world;
        share = far_share(m, draw.far_sphere, draw.far_fade.x, frame.eye, draw.far_fade.yz);
    }
    let axes = far_card_axes(m, toward_world);
    let cx = far_clip_and_x(inst);
    let taps = far_taps(far_params, far_clip(u32(cx.x)), cx.y, axes.toward);
    var out: FarOut;
    out.tiles = taps.tiles;
    out.weights = taps.weights;
    let look: Appearance = instance_appearance(inst);
    out.tint = appearance_tint(look);
    out.look = vec4<u32>(look.tint, look.parts, look.variant, look.props);
    out.k0 = axes.kx;
    out.k1 = axes.ky;
    out.k2 = axes.kz;
    out.share = share;
    return FarCard(out, m, axes);
}

// `c` placed at the point (a, b) of the card (−1..1 along its right and up axes): its world
// position, clip position and place on the card (0..1 from the top-left).
fn far_card_at(c: FarCard, ab: vec2<f32>) -> FarOut {
    let world = vec4<f32>(far_card_point(far_params.sphere, c.axes, ab), 1.0) * c.m;
    var out = c.out;
    out.clip = clip_position(world);
    out.uv = far_card_uv(ab);
    out.world = world;
#ifdef MOTION
    out.now_clip = out.clip;
    out.prev_clip = frame.prev_view_proj * vec4<f32>(world, 1.0);
#endif
    return out;
}

// The part of card `c` its taps show something in (throng::far::far_taps_extent): the quad
// covers only it, not the whole square around the sphere; the picture is the same.
fn far_card_extent(c: FarCard) -> vec4<f32> {
    let t = c.out.tiles;
    let rects = vec4<u32>(far_rect(t.x), far_rect(t.y), far_rect(t.z), far_rect(t.w));
    return far_taps_extent(rects, c.out.weights, far_params.grid.x);
}

@vertex
fn vs_far(@builtin(vertex_index) v: u32, @builtin(instance_index) instance: u32) -> FarOut {
    let c = far_card(instance_id(instance, draw.id_base));
    return far_card_at(c, far_extent_corner(far_card_extent(c), v));
}

#ifndef DOWNLEVEL
// One card of the main view whose screen box (throng::cull::sphere_pixel_centres, as the
// culling pass measured it) holds one pixel centre: a point there, carrying what the card's
// quad would hand the fragment stage at that centre — the pixel's ray met with the card's plane
// in clip space — or, where the quad misses the centre, no point (outside the clip volume).
// Vertex v is the v-th of the pass's one-pixel cards, which the culling pass keeps at the end of
// the far level's (the last level's) list, from the end down (throng_render::cull_lists::append_dot).
@vertex
fn vs_far_dot(@builtin(vertex_index) v: u32) -> FarOut {
    let inst = instance_id((draw.pass_index + 1u) * draw.lod_count * draw.segment - 1u - v, 0u);
    let c = far_card(inst);
    let s = far_placed_sphere(c.m, far_params.sphere);
    let size = frame.motion.xy;
    let pixel = sphere_pixel_centres(s.xyz, s.w, frame.view_proj, size, frame.eye.w).xy + 0.5;
    let ndc = vec2<f32>(pixel.x / size.x * 2.0 - 1.0, 1.0 - pixel.y / size.y * 2.0);
    let ab = far_card_at_ndc(c.m, far_params.sphere, c.axes, frame.view_proj, ndc);
    var out = far_card_at(c, ab);
    // Its one fragment is worked out here, where a SIMD lane serves one card, rather than in a
    // fragment stage that runs a block of lanes for one pixel; the fragment stage (fs_far_dot)
    // writes what `tint` then carries.
    let shown = far_shaded(out, pixel);
    if (!(abs(ab.x) <= 1.0 && abs(ab.y) <= 1.0) || out.clip.w <= 0.0 || shown.a == 0.0) {
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    }
    out.tint = shown;
    return out;
}
#endif

@fragment
fn fs_far(in: FarOut) -> @location(0) vec4<f32> {
    return far_color(in);
}

// A one-pixel card's fragment: what vs_far_dot worked out.
@fragment
fn fs_far_dot(in: FarOut) -> @location(0) vec4<f32> {
    return in.tint;
}

#ifdef MOTION
@fragment
fn fs_far_motion(in: FarOut) -> MotionOut {
    return motion_out(far_color(in), clip_motion(in.now_clip, in.prev_clip));
}

@fragment
fn fs_far_dot_motion(in: FarOut) -> MotionOut {
    return motion_out(in.tint, clip_motion(in.now_clip, in.prev_clip));
}
#endif

// The lit card at a fragment (discarded where the tier shows background).
fn far_color(in: FarOut) -> vec4<f32> {
    let c = far_shaded(in, in.clip.xy);
    if (c.a == 0.0) {
        discard;
    }
    return c;
}

// The lit card at framebuffer position `frag` (a pixel centre) of the point `in` of it: opaque,
// or zero where the tier shows background there.
fn far_shaded(in: FarOut, frag: vec2<f32>) -> vec4<f32> {
    let taps = FarTaps(in.tiles, in.weights);
    let t = far_blend(far_colour, far_surface, far_variants, far_params, taps, in.uv, appearance_of(in.look));
    if (!far_covered(frag, t.coverage, in.share)) {
        return vec4<f32>(0.0);
    }
    let n = far_world_normal(in.k0, in.k1, in.k2, t.normal);
    return vec4<f32>(shade(in.tint.rgb * t.albedo, n, in.world), 1.0);
}

@fragment
fn fs_far_shadow(in: FarOut) {
    let taps = FarTaps(in.tiles, in.weights);
    let coverage = far_blend(far_colour, far_surface, far_variants, far_params, taps, in.uv, appearance_of(in.look)).coverage;
    if (!far_covered(in.clip.xy, coverage, in.share)) {
        discard;
    }
}
