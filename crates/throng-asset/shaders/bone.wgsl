// throng::bone — a baked asset's resources as the skinning programs read them: the bone
// texture description, the clip table and (with the BONE_TEXTURE def) the bone texture itself,
// fetched and decoded by the asset's encoding (ENCODING = throng_contract::Encoding::code).
// Group and binding numbers come from the embedding as shader defs (G_SKIN, B_*:
// throng_render::bindings, throng_bevy::render::bindings). Shared by throng-render and
// throng-bevy.
#define_import_path throng::bone

#import throng::playback::{Clip, Layer, RowTaps, layer_rows, layer_taps, layer_clip, layer_mask, clip_additive}
#import throng::constants::UNIFORM_FRAMES
#import throng::decode::{Rts, decode_mat4_f32, decode_mat3x4, decode_mat3x4_snorm16, decode_quat_f32, decode_quat_snorm16, rts_to_affine}

// Bone texture description (throng_asset::gpu::BoneParams), 32 B.
struct BoneParams {
    entries: u32,
    rows: u32,
    rows_per_layer: u32,
    clip_count: u32,
    // quat-snorm16, mat3x4-snorm16: translation = snorm · translation_range (file units).
    translation_range: f32,
    // quat-snorm16: uniform scale = snorm · scale_range; mat3x4-snorm16: linear entry = snorm ·
    // scale_range.
    scale_range: f32,
    pad_a: f32,
    pad_b: f32,
}

@group(#{G_SKIN}) @binding(#{B_BONE_PARAMS}) var<uniform> bone_params: BoneParams;
#ifdef DOWNLEVEL
// Devices without storage buffers in the vertex stage (WebGL2, GL ES 3.0; the DOWNLEVEL def,
// throng-render's docs/downlevel.md): tables are Rgba32Uint data textures of fixed-size records,
// DL_CLIP_TEXELS texels per clip (first_row, frames, times_offset, flags; bounds_min and
// bounds_max as f32 bits). Written by throng_render's `downlevel` module.
@group(#{G_SKIN}) @binding(#{B_CLIPS}) var clip_texels: texture_2d<u32>;

// Texel `j` of record `i` of a data texture `width` texels wide holding records of `n` texels:
// floor(width / n) records per row, left to right, then down. Rust twin:
// throng_render::downlevel::record_texel.
fn record_texel(i: u32, n: u32, j: u32, width: u32) -> vec2<u32> {
    let per_row = max(width / n, 1u);
    return vec2<u32>((i % per_row) * n + j, i / per_row);
}

fn clip_texel(i: u32, j: u32) -> vec4<u32> {
    let at = record_texel(i, #{DL_CLIP_TEXELS}u, j, textureDimensions(clip_texels).x);
    return textureLoad(clip_texels, at, 0);
}

fn clip_record(i: u32) -> Clip {
    let a = clip_texel(i, 0u);
    return Clip(a.x, a.y, a.z, a.w, bitcast<vec4<f32>>(clip_texel(i, 1u)), bitcast<vec4<f32>>(clip_texel(i, 2u)));
}
#else
@group(#{G_SKIN}) @binding(#{B_CLIPS}) var<storage, read> clips: array<Clip>;

fn clip_record(i: u32) -> Clip {
    return clips[i];
}
#endif

// Clip `i` of the table, or the zero clip (row 0, one frame) for an index past it, as the CPU
// twins read an unknown clip.
fn clip_at(i: u32) -> Clip {
    if (i < bone_params.clip_count) {
        return clip_record(i);
    }
    return Clip(0u, 0u, UNIFORM_FRAMES, 0u, vec4<f32>(0.0), vec4<f32>(0.0));
}

// The two frame-table rows a layer interpolates, kept inside its clip and the table.
fn layer_rows_of(l: Layer) -> vec2<u32> {
    let c = layer_clip(l);
    return layer_rows(l, clip_at(c), c < bone_params.clip_count, bone_params.rows);
}

// The rows a layer's pose sums and their weights (throng::playback::layer_taps), kept inside its
// clip and the table. Rust twin: throng_asset::decode::LayerRows::taps.
fn layer_taps_of(l: Layer) -> RowTaps {
    let c = layer_clip(l);
    return layer_taps(l, clip_at(c), c < bone_params.clip_count, bone_params.rows);
}

// Whether a layer is an overlay — under a mask, or of an additive clip (docs/design.md §4
// "Layer masks and additive layers"). Only the palette pass applies overlays (LBS and DQ); every other
// blend skips them. Rust twin: throng_asset::decode::layer_rows / overlay_rows.
fn layer_is_overlay(l: Layer) -> bool {
    return layer_mask(l) != 0u || clip_additive(clip_at(layer_clip(l)));
}

// Whether a layer takes part in the base blend: a weight and no overlay.
fn layer_is_base(l: Layer) -> bool {
    return l.weight != 0.0 && !layer_is_overlay(l);
}

#ifdef BONE_TEXTURE

// Frame-table row → (x, y, array layer) of the bone texture: rows beyond rows_per_layer
// continue in further layers (docs/design.md §3).
fn bone_coords(row: u32) -> vec3<u32> {
    return vec3<u32>(0u, row % bone_params.rows_per_layer, row / bone_params.rows_per_layer);
}

#if ENCODING == 4
// quat-snorm16 and mat3x4-snorm16 are stored as Rgba16Sint and decoded here, so they need no
// optional GPU feature.
@group(#{G_SKIN}) @binding(#{B_BONE_TEXTURE}) var bone_texture: texture_2d_array<i32>;

fn bone_texel(x: u32, row: u32) -> vec4<i32> {
    let c = bone_coords(row);
    return textureLoad(bone_texture, vec2<u32>(x, c.y), c.z, 0);
}
#else
#if ENCODING == 5
@group(#{G_SKIN}) @binding(#{B_BONE_TEXTURE}) var bone_texture: texture_2d_array<i32>;

fn bone_texel(x: u32, row: u32) -> vec4<i32> {
    let c = bone_coords(row);
    return textureLoad(bone_texture, vec2<u32>(x, c.y), c.z, 0);
}
#else
// The float encodings: Rgba32Float or Rgba16Float.
@group(#{G_SKIN}) @binding(#{B_BONE_TEXTURE}) var bone_texture: texture_2d_array<f32>;

fn bone_texel(x: u32, row: u32) -> vec4<f32> {
    let c = bone_coords(row);
    return textureLoad(bone_texture, vec2<u32>(x, c.y), c.z, 0);
}
#endif
#endif

#if ENCODING == 0
// mat4-f32: palette entry j of a frame-table row → affine (texels 4j .. 4j + 3).
fn bone_affine(entry: u32, row: u32) -> mat3x4<f32> {
    let x = entry * 4u;
    return decode_mat4_f32(bone_texel(x, row), bone_texel(x + 1u, row), bone_texel(x + 2u, row), bone_texel(x + 3u, row));
}
#endif

#if ENCODING == 1
// mat3x4-f32: texels 3j .. 3j + 2 are the rows of the affine.
fn bone_affine(entry: u32, row: u32) -> mat3x4<f32> {
    let x = entry * 3u;
    return decode_mat3x4(bone_texel(x, row), bone_texel(x + 1u, row), bone_texel(x + 2u, row));
}
#endif

#if ENCODING == 2
// mat3x4-f16: as mat3x4-f32 (textureLoad widens f16 to f32).
fn bone_affine(entry: u32, row: u32) -> mat3x4<f32> {
    let x = entry * 3u;
    return decode_mat3x4(bone_texel(x, row), bone_texel(x + 1u, row), bone_texel(x + 2u, row));
}
#endif

#if ENCODING == 5
// mat3x4-snorm16: texels 3j .. 3j + 2 are the rows of the affine, rescaled by the bake's ranges.
fn bone_affine(entry: u32, row: u32) -> mat3x4<f32> {
    let x = entry * 3u;
    return decode_mat3x4_snorm16(bone_texel(x, row), bone_texel(x + 1u, row), bone_texel(x + 2u, row), bone_params.translation_range, bone_params.scale_range);
}
#endif

#if ENCODING == 3
// quat-f32: texels 2j, 2j + 1 → (rotation, translation, scale), and as an affine for LBS.
fn bone_rts(entry: u32, row: u32) -> Rts {
    let x = entry * 2u;
    return decode_quat_f32(bone_texel(x, row), bone_texel(x + 1u, row));
}

fn bone_affine(entry: u32, row: u32) -> mat3x4<f32> {
    return rts_to_affine(bone_rts(entry, row));
}
#endif

#if ENCODING == 4
// quat-snorm16: texels 2j, 2j + 1, rescaled by the bake's translation and scale ranges.
fn bone_rts(entry: u32, row: u32) -> Rts {
    let x = entry * 2u;
    return decode_quat_snorm16(bone_texel(x, row), bone_texel(x + 1u, row), bone_params.translation_range, bone_params.scale_range);
}

fn bone_affine(entry: u32, row: u32) -> mat3x4<f32> {
    return rts_to_affine(bone_rts(entry, row));
}
#endif

// Palette `entry`'s skin matrix interpolated over a layer's taps: Σ_k weights[k] ·
// bone_affine(rows[k]) over the taps with a weight, summed in tap order from zero. CPU twin:
// throng_asset::decode::taps_matrix.
fn taps_affine(entry: u32, t: RowTaps) -> mat3x4<f32> {
    let zero = vec4<f32>(0.0);
    var m = mat3x4<f32>(zero, zero, zero);
    for (var k = 0u; k < 4u; k++) {
        if (t.weights[k] != 0.0) {
            m += bone_affine(entry, t.rows[k]) * t.weights[k];
        }
    }
    return m;
}

#endif
