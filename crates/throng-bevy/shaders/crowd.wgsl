// throng_bevy crowd draw: one instanced draw per primitive of a baked asset inside Bevy's main
// 3D pass. The vertex stage reads the instance's playback record (CPU- or GPU-timed, the
// contract's structs from throng::playback) and skins the bind-space vertex from the bone
// texture with throng::decode's decoders; the fragment stage hands the surface to Bevy's PBR
// lighting (bevy_pbr::pbr_functions), so Bevy's lights, shadow maps, fog and tonemapping apply.
//
// Bindings: groups 0 and 1 are Bevy's mesh view bind groups, group 2 is Bevy's empty group (no
// Bevy mesh uniforms are read), group 3 is the crowd's (binding numbers from 100 up, clear of
// bevy_pbr::pbr_bindings, which pbr_functions imports at group 3 but never reads here).
// Defs: ENCODING (throng_contract::Encoding::code), GPU_TIMED.
// Units: file units, seconds; affines as in throng::decode (column i = row i of [L | t]).

#import bevy_pbr::{
    mesh_view_bindings::view,
    pbr_types,
    pbr_functions,
    mesh_types::MESH_FLAGS_SHADOW_RECEIVER_BIT,
    view_transformations::position_world_to_clip,
}
#import throng::playback::{Layer, InstanceRecord, InstanceTransform, Clip, GpuInstanceRecord, gpu_layers, gpu_layer_clip, layer_rows, layer_clip, instance_affine}
#import throng::constants::{UNIFORM_FRAMES, CLIP_MASK}
#import throng::decode::{decode_mat4_f32, decode_mat3x4, decode_quat_f32, decode_quat_snorm16, rts_to_affine, apply_affine}

// Rust twin: throng_bevy::render::BoneParams (32 B).
struct BoneParams {
    entries: u32,
    rows: u32,
    rows_per_layer: u32,
    clip_count: u32,
    translation_range: f32,
    scale_range: f32,
    pad_a: f32,
    pad_b: f32,
}

// Rust twin: throng_bevy::render::DrawParams (64 B): the primitive's material and the clock.
struct DrawParams {
    // Linear RGBA base colour factor.
    base_color: vec4<f32>,
    // KHR_texture_transform rows: uv' = M · (u, v, 1).
    uv_row0: vec4<f32>,
    uv_row1: vec4<f32>,
    // x: GPU-timed clock (low 32 bits of the runtime's ticks); y: 1 when double-sided.
    misc: vec4<u32>,
}

@group(3) @binding(100) var<uniform> bone_params: BoneParams;
@group(3) @binding(101) var<storage, read> clips: array<Clip>;
// binding 102: throng::playback's frame_times (G_FRAME_TIMES / B_FRAME_TIMES defs).
@group(3) @binding(104) var<storage, read> instance_transforms: array<InstanceTransform>;
#ifdef GPU_TIMED
@group(3) @binding(105) var<storage, read> gpu_records: array<GpuInstanceRecord>;
#else
@group(3) @binding(105) var<storage, read> cpu_records: array<InstanceRecord>;
#endif
@group(3) @binding(106) var<uniform> draw: DrawParams;
// The material's base colour texture, or Bevy's white fallback image when it has none.
@group(3) @binding(107) var base_color_texture: texture_2d<f32>;
@group(3) @binding(108) var base_color_sampler: sampler;

#if ENCODING == 4
// quat-snorm16 lives in an Rgba16Sint texture, decoded by throng::decode.
@group(3) @binding(103) var bone_texture: texture_2d_array<i32>;
#else
@group(3) @binding(103) var bone_texture: texture_2d_array<f32>;
#endif

// Clip i of the table, or the zero clip for an index past it (as the CPU twins read it).
fn clip_at(i: u32) -> Clip {
    if (i < bone_params.clip_count) {
        return clips[i];
    }
    return Clip(0u, 0u, UNIFORM_FRAMES, 0u, vec4<f32>(0.0), vec4<f32>(0.0));
}

// Texel x of frame-table row `row`: rows past rows_per_layer continue in further array layers
// (docs/design.md §3).
#if ENCODING == 4
fn texel(x: u32, row: u32) -> vec4<i32> {
    return textureLoad(bone_texture, vec2<u32>(x, row % bone_params.rows_per_layer), row / bone_params.rows_per_layer, 0);
}
#else
fn texel(x: u32, row: u32) -> vec4<f32> {
    return textureLoad(bone_texture, vec2<u32>(x, row % bone_params.rows_per_layer), row / bone_params.rows_per_layer, 0);
}
#endif

// Palette entry `e` of row `row` as an affine, by the asset's encoding (one #if per encoding:
// 0 mat4-f32, 1 mat3x4-f32, 2 mat3x4-f16, 3 quat-f32, 4 quat-snorm16).
#if ENCODING == 0
fn bone_affine(e: u32, row: u32) -> mat3x4<f32> {
    let x = e * 4u;
    return decode_mat4_f32(texel(x, row), texel(x + 1u, row), texel(x + 2u, row), texel(x + 3u, row));
}
#endif
#if ENCODING == 1
fn bone_affine(e: u32, row: u32) -> mat3x4<f32> {
    let x = e * 3u;
    return decode_mat3x4(texel(x, row), texel(x + 1u, row), texel(x + 2u, row));
}
#endif
#if ENCODING == 2
fn bone_affine(e: u32, row: u32) -> mat3x4<f32> {
    let x = e * 3u;
    return decode_mat3x4(texel(x, row), texel(x + 1u, row), texel(x + 2u, row));
}
#endif
#if ENCODING == 3
fn bone_affine(e: u32, row: u32) -> mat3x4<f32> {
    let x = e * 2u;
    return rts_to_affine(decode_quat_f32(texel(x, row), texel(x + 1u, row)));
}
#endif
#if ENCODING == 4
fn bone_affine(e: u32, row: u32) -> mat3x4<f32> {
    let x = e * 2u;
    return rts_to_affine(decode_quat_snorm16(texel(x, row), texel(x + 1u, row), bone_params.translation_range, bone_params.scale_range));
}
#endif

// The layers instance `inst` shows now; a disabled instance (all weights 0) shows the rest row
// 0 as one full layer of a clip past the table.
fn shown_layers(inst: u32) -> array<Layer, 4> {
#ifdef GPU_TIMED
    let rec = gpu_records[inst];
    var layers = gpu_layers(rec, clip_at(gpu_layer_clip(rec.layers[0])), clip_at(gpu_layer_clip(rec.layers[1])), draw.misc.x);
#else
    var layers = cpu_records[inst].layers;
#endif
    let w = vec4<f32>(layers[0].weight, layers[1].weight, layers[2].weight, layers[3].weight);
    if (all(w == vec4<f32>(0.0))) {
        layers[0] = Layer(1.0, 0.0, 0.0, CLIP_MASK);
    }
    return layers;
}

struct VertexIn {
    @builtin(instance_index) instance: u32,
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) joints0: vec4<u32>,
    @location(4) joints1: vec4<u32>,
    // unorm16 weights as integers, w / 65535 as the CPU decoder reads them.
    @location(5) weights0: vec4<u32>,
    @location(6) weights1: vec4<u32>,
}

struct VertexOut {
    @builtin(position) clip_position: vec4<f32>,
    @location(0) world_position: vec4<f32>,
    @location(1) world_normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
}

@vertex
fn vertex(v: VertexIn) -> VertexOut {
    let layers = shown_layers(v.instance);
    let j = array<u32, 8>(v.joints0.x, v.joints0.y, v.joints0.z, v.joints0.w, v.joints1.x, v.joints1.y, v.joints1.z, v.joints1.w);
    let wa = vec4<f32>(v.weights0) / 65535.0;
    let wb = vec4<f32>(v.weights1) / 65535.0;
    let w = array<f32, 8>(wa.x, wa.y, wa.z, wa.w, wb.x, wb.y, wb.z, wb.w);
    // Linear blend skinning with the matrices lerped between the two rows of each layer and
    // summed by layer weight (the blended affine, as throng_asset::decode does on the CPU).
    var m = mat3x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var l = 0u; l < 4u; l++) {
        let layer = layers[l];
        if (layer.weight <= 0.0) {
            continue;
        }
        let c = layer_clip(layer);
        let rows = layer_rows(layer, clip_at(c), c < bone_params.clip_count, bone_params.rows);
        let w0 = layer.weight * (1.0 - layer.frac);
        let w1 = layer.weight * layer.frac;
        for (var i = 0u; i < 8u; i++) {
            if (w[i] <= 0.0) {
                continue;
            }
            let e = min(j[i], bone_params.entries - 1u);
            m += bone_affine(e, rows.x) * (w[i] * w0);
            if (w1 > 0.0) {
                m += bone_affine(e, rows.y) * (w[i] * w1);
            }
        }
    }
    let skinned = apply_affine(m, v.position, v.normal, vec4<f32>(1.0, 0.0, 0.0, 1.0));
    let placed = apply_affine(instance_affine(instance_transforms[v.instance]), skinned.position, skinned.normal, skinned.tangent);
    var out: VertexOut;
    out.world_position = vec4<f32>(placed.position, 1.0);
    out.clip_position = position_world_to_clip(placed.position);
    out.world_normal = placed.normal;
    let uv3 = vec3<f32>(v.uv, 1.0);
    out.uv = vec2<f32>(dot(draw.uv_row0.xyz, uv3), dot(draw.uv_row1.xyz, uv3));
    return out;
}

@fragment
fn fragment(in: VertexOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    var color = draw.base_color;
    color *= textureSample(base_color_texture, base_color_sampler, in.uv);
    var pbr_input = pbr_types::pbr_input_new();
    pbr_input.material.base_color = color;
    pbr_input.material.perceptual_roughness = 0.9;
    pbr_input.material.metallic = 0.0;
    pbr_input.frag_coord = in.clip_position;
    pbr_input.world_position = in.world_position;
    var n = normalize(in.world_normal);
    if (!front && draw.misc.y != 0u) {
        n = -n;
    }
    pbr_input.world_normal = n;
    pbr_input.N = n;
    pbr_input.is_orthographic = view.clip_from_view[3].w == 1.0;
    pbr_input.V = pbr_functions::calculate_view(in.world_position, pbr_input.is_orthographic);
    pbr_input.flags = MESH_FLAGS_SHADOW_RECEIVER_BIT;
    let lit = pbr_functions::apply_pbr_lighting(pbr_input);
    return pbr_functions::main_pass_post_lighting_processing(pbr_input, lit);
}
