// throng_bevy::crowd_far — a far-tier card of a crowd instance (docs/design.md §5 "Far tier";
// throng_bevy::render::far), as the main pass (crowd.wgsl) and the shadow and prepass passes
// (crowd_prepass.wgsl) place it: one quad per instance of the view's far list (per-instance
// culling: the draw's instance index points into the list), through the tier's sphere centre,
// facing the view, showing throng::far's blend of two frames × two views of the tiles for the
// instance's heaviest base layer, in its appearance (material variant, part mask, tint). The
// same shared functions as throng-render's far draw (throng::far); the tier's tables are
// storage buffers here, as in throng-render's full mode.
// Bindings: the crowd's group (G_SKIN), B_FAR_* (throng_bevy::render::bindings).
#define_import_path throng_bevy::crowd_far

#import throng::playback::{instance_affine, layer_clip}
#import throng::instances::{instance_id, instance_transform, shown_layers}
#import throng::bone::{layer_rows_of, layer_is_base}
#import throng::appearance::{Appearance, appearance_of}
#import throng::far::{FarParams, FarClip, FarTaps, FarTexel, FarCardAxes, far_taps, far_blend, far_covered, far_card_axes, far_card_point, far_card_at_ndc, far_card_uv, far_taps_extent, far_extent_corner, far_world_normal, far_base_layer, far_frame_x, far_share, far_placed_sphere}
#import throng::cull::sphere_pixel_centres
#import throng_bevy::crowd_appearance::instance_appearance
#import throng_bevy::crowd_material::draw

@group(#{G_SKIN}) @binding(#{B_FAR_COLOUR}) var far_colour: texture_2d<f32>;
@group(#{G_SKIN}) @binding(#{B_FAR_SURFACE}) var far_surface: texture_2d<f32>;
@group(#{G_SKIN}) @binding(#{B_FAR_VARIANTS}) var far_variants: texture_2d<f32>;
@group(#{G_SKIN}) @binding(#{B_FAR_PARAMS}) var<uniform> far_params: FarParams;
@group(#{G_SKIN}) @binding(#{B_FAR_CLIPS}) var<storage, read> far_clips: array<FarClip>;
@group(#{G_SKIN}) @binding(#{B_FAR_ROWS}) var<storage, read> far_rows: array<f32>;
// Per tile, the texels a card covers: x0 | y0 << 8 | x1 << 16 | y1 << 24, inclusive, from the
// top-left (throng_asset::gpu::far::tile_rects; x0 > x1: an empty tile).
@group(#{G_SKIN}) @binding(#{B_FAR_RECTS}) var<storage, read> far_rects: array<u32>;

// Clip `c` of the tier, the last for an index past it.
fn far_clip(c: u32) -> FarClip {
    return far_clips[min(c, arrayLength(&far_clips) - 1u)];
}

// A card before it faces a view: its instance, the instance's affine and the tier's sphere
// centre in world space.
struct Card {
    instance: u32,
    m: mat3x4<f32>,
    centre: vec3<f32>,
}

// From a card's centre `centre` towards a view: its eye `eye` (world), or for an orthographic
// view (a directional light's cascade) its backward axis `back` — the card faces the light there.
fn card_toward(centre: vec3<f32>, orthographic: bool, back: vec3<f32>, eye: vec3<f32>) -> vec3<f32> {
    if (orthographic) {
        return back;
    }
    return eye - centre;
}

// A camera as throng::far::far_share takes it, from its position, its viewport's height
// (pixels) and its projection's [1][1]: the position and the pixels a length of 1 covers at a
// distance of 1 (as the culling pass's CullView.eye).
fn card_eye(position: vec3<f32>, height: f32, focal_y: f32) -> vec4<f32> {
    return vec4<f32>(position, height * 0.5 * abs(focal_y));
}

// The card of the draw's instance `instance_index` (an index into the view's far list).
fn card_of(instance_index: u32) -> Card {
    let inst = instance_id(instance_index, 0u);
    let m = instance_affine(instance_transform(inst));
    return Card(inst, m, vec4<f32>(far_params.sphere.xyz, 1.0) * m);
}

// A corner of a card facing a view, and what every fragment of the card gets.
struct CardPoint {
    world: vec3<f32>,
    // 0..1 from the card's top-left.
    uv: vec2<f32>,
    tiles: vec4<u32>,
    weights: vec4<f32>,
    // The instance's appearance, its four words (throng::appearance::appearance_of).
    look: vec4<u32>,
    // Model normals to world (FarCardAxes).
    kx: vec3<f32>,
    ky: vec3<f32>,
    kz: vec3<f32>,
}

// The part of a card that its taps' tiles show something in (throng::far::far_taps_extent over
// the taps' rects).
fn taps_extent(tiles: vec4<u32>, weights: vec4<f32>) -> vec4<f32> {
    var rects: vec4<u32>;
    for (var k = 0u; k < 4u; k++) {
        rects[k] = far_rects[min(tiles[k], arrayLength(&far_rects) - 1u)];
    }
    return far_taps_extent(rects, weights, far_params.grid.x);
}

// Card `c` facing `toward_world` (from the sphere centre towards the viewer) before a point of
// it is chosen: its axes and the taps of the instance's heaviest base layer.
struct CardFace {
    axes: FarCardAxes,
    taps: FarTaps,
}

fn card_face(c: Card, toward_world: vec3<f32>) -> CardFace {
    let axes = far_card_axes(c.m, toward_world);
    let layers = shown_layers(c.instance);
    let base = vec4<bool>(layer_is_base(layers[0]), layer_is_base(layers[1]), layer_is_base(layers[2]), layer_is_base(layers[3]));
    let weights = vec4<f32>(layers[0].weight, layers[1].weight, layers[2].weight, layers[3].weight);
    let l = layers[far_base_layer(base, weights)];
    let clip = far_clip(layer_clip(l));
    let rows = layer_rows_of(l);
    let x = far_frame_x(far_rows[rows.x], far_rows[rows.y], clip.frames, l.frac);
    return CardFace(axes, far_taps(far_params, clip, x, axes.toward));
}

// The point (a, b) (−1..1 along the card's axes) of card `c` facing as `f`.
fn card_point_at(c: Card, f: CardFace, ab: vec2<f32>) -> CardPoint {
    let world = vec4<f32>(far_card_point(far_params.sphere, f.axes, ab), 1.0) * c.m;
    let look: Appearance = instance_appearance(c.instance);
    return CardPoint(world, far_card_uv(ab), f.taps.tiles, f.taps.weights, vec4<u32>(look.tint, look.parts, look.variant, look.props), f.axes.kx, f.axes.ky, f.axes.kz);
}

// Corner `vertex_index` (bit 0: right, bit 1: up; the card's indices are
// throng_asset::gpu::far::CARD_INDICES) of card `c` facing `toward_world` (from the sphere
// centre towards the viewer), over the part its taps show something in (taps_extent).
fn card_point(c: Card, toward_world: vec3<f32>, vertex_index: u32) -> CardPoint {
    let f = card_face(c, toward_world);
    let extent = taps_extent(f.taps.tiles, f.taps.weights);
    return card_point_at(c, f, far_extent_corner(extent, vertex_index));
}

// A one-pixel card: the point of card `c` facing `toward_world` that the ray through `ndc`
// (normalised device coordinates of `clip_from_world`, a pixel's centre) meets
// (throng::far::far_card_at_ndc, throng-render's vs_far_dot), and whether the card's square
// holds it (outside it every tap's coverage is 0, so its quad leaves that pixel empty).
struct CardDot {
    point: CardPoint,
    inside: bool,
}

fn card_dot(c: Card, toward_world: vec3<f32>, clip_from_world: mat4x4<f32>, ndc: vec2<f32>) -> CardDot {
    let f = card_face(c, toward_world);
    let ab = far_card_at_ndc(c.m, far_params.sphere, f.axes, clip_from_world, ndc);
    return CardDot(card_point_at(c, f, ab), abs(ab.x) <= 1.0 && abs(ab.y) <= 1.0);
}

// The centre of the one pixel whose centre the card of `c` may cover on a camera with
// `clip_from_world`, a viewport of `size` pixels and `eye` (card_eye), as the culling pass
// chose it (throng::cull::sphere_pixel_centres, from the viewport's top-left), and that centre
// in normalised device coordinates.
struct DotPixel {
    pixel: vec2<f32>,
    ndc: vec2<f32>,
}

fn dot_pixel(c: Card, clip_from_world: mat4x4<f32>, size: vec2<f32>, eye: vec4<f32>) -> DotPixel {
    let s = far_placed_sphere(c.m, far_params.sphere);
    let pixel = sphere_pixel_centres(s.xyz, s.w, clip_from_world, size, eye.w).xy + 0.5;
    return DotPixel(pixel, vec2<f32>(pixel.x / size.x * 2.0 - 1.0, 1.0 - pixel.y / size.y * 2.0));
}

// What the card shows at `uv` of its taps in appearance `look`.
fn card_texel(uv: vec2<f32>, tiles: vec4<u32>, weights: vec4<f32>, look: vec4<u32>) -> FarTexel {
    return far_blend(far_colour, far_surface, far_variants, far_params, FarTaps(tiles, weights), uv, appearance_of(look));
}

// Whether texel `t` shows at framebuffer position `frag` (throng::far's ordered dither of its
// coverage) for a card of crossfade share `share` (1 alone).
fn card_covers(t: FarTexel, frag: vec2<f32>, share: f32) -> bool {
    return far_covered(frag, t.coverage, share);
}

// The share of the instance placed by `m` its card shows to a camera (`eye`: world position and
// the pixels a length of 1 covers at a distance of 1) while it crossfades with its coarsest mesh
// (throng::far::far_share with the crowd's band, DrawParams.far): the mesh draws keep the
// fragments the card leaves. The culling pass (crowd_cull.wgsl card_share) lists by the same
// share.
fn card_share(m: mat3x4<f32>, eye: vec4<f32>) -> f32 {
    return far_share(m, far_params.sphere, draw.far.z, eye, draw.far.xy);
}

// Texel `t`'s normal in world space (length kept: see throng::far::far_world_normal).
fn card_normal(t: FarTexel, kx: vec3<f32>, ky: vec3<f32>, kz: vec3<f32>) -> vec3<f32> {
    return far_world_normal(kx, ky, kz, t.normal);
}
