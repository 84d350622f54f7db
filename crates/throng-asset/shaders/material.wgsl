// throng::material — a primitive's material slots as every embedding's draws read them
// (docs/design.md §4 "Appearance"). Rust twins: throng_asset::gpu::MaterialUniform (Material)
// and throng_asset::gpu::material::MaterialSet (MaterialSet, 848 B; layouts checked by naga in
// throng-render's and throng-bevy's tests). Structs and pure functions, no bindings: each
// embedding binds one MaterialSet uniform and one base colour texture array per draw where its
// layout puts them.
#define_import_path throng::material

struct Material {
    // Linear RGBA base colour factor.
    base_color: vec4<f32>,
    // KHR_texture_transform as a 2×3 affine (rows; uv' = M · (u, v, 1)): T · R · S.
    uv_row_u: vec4<f32>,
    uv_row_v: vec4<f32>,
}

// A primitive's material slots: slot 0 its own material, slot v the asset's variant v - 1's;
// `count` slots in use. `part` and `prop`: the bit of the appearance's part or prop mask that
// shows this draw (0xffffffff: always shown).
struct MaterialSet {
    part: u32,
    prop: u32,
    count: u32,
    pad: u32,
    // Base colour texture array layer of each slot (slot s at [s / 4][s % 4]).
    layers: array<vec4<u32>, 4>,
    slots: array<Material, 16>,
}

// The slot an instance of appearance variant `variant` draws in a set of `count` slots: the
// variant's own, or slot 0 (the own materials) past the last.
fn variant_slot(variant: u32, count: u32) -> u32 {
    return select(0u, variant, variant < count);
}

// UV0 through material `m`'s texture transform.
fn material_uv(m: Material, uv: vec2<f32>) -> vec2<f32> {
    let uv3 = vec3<f32>(uv, 1.0);
    return vec2<f32>(dot(m.uv_row_u.xyz, uv3), dot(m.uv_row_v.xyz, uv3));
}
