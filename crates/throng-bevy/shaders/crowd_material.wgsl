// throng_bevy::crowd_material — a primitive's material as the crowd draw (crowd.wgsl) reads it:
// its DrawParams uniform and base colour texture, in the crowd's group (G_SKIN) at the plugin's
// binding numbers (throng_bevy::render::bindings). A module of its own so that the plugin's
// naga test composes it without Bevy's PBR modules and checks DrawParams against its Rust twin.
#define_import_path throng_bevy::crowd_material

// Rust twin: throng_bevy::render::DrawParams (64 B): the primitive's material.
struct DrawParams {
    // Linear RGBA base colour factor.
    base_color: vec4<f32>,
    // KHR_texture_transform rows (MaterialUniform's uv_row0, uv_row1): u' = uv_row_u · (u, v, 1),
    // v' = uv_row_v · (u, v, 1). (Names end in letters: naga_oil refuses module identifiers that
    // end in a digit.)
    uv_row_u: vec4<f32>,
    uv_row_v: vec4<f32>,
    // x: unused; y: 1 when double-sided.
    misc: vec4<u32>,
}

@group(#{G_SKIN}) @binding(#{B_DRAW}) var<uniform> draw: DrawParams;
// The material's base colour texture, or Bevy's white fallback image when it has none.
@group(#{G_SKIN}) @binding(#{B_BASE_COLOR}) var base_color_texture: texture_2d<f32>;
@group(#{G_SKIN}) @binding(#{B_SAMPLER}) var base_color_sampler: sampler;

// UV0 through the material's texture transform.
fn material_uv(uv: vec2<f32>) -> vec2<f32> {
    let uv3 = vec3<f32>(uv, 1.0);
    return vec2<f32>(dot(draw.uv_row_u.xyz, uv3), dot(draw.uv_row_v.xyz, uv3));
}
