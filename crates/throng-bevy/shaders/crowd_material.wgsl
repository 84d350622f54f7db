// throng_bevy::crowd_material — a primitive's material as the crowd draw (crowd.wgsl) reads it:
// its DrawParams uniform, its material slots (throng::material's MaterialSet: its own
// material, then each material variant's) and their base colour texture array, in the crowd's
// group (G_SKIN) at the plugin's binding numbers (throng_bevy::render::bindings). The vertex
// stage turns the instance's variant into a slot (material_slot) and hands it on as a flat
// varying; the fragment stage reads that slot's colour (slot_color). A module of its own so
// that the plugin's naga test composes it without Bevy's PBR modules and checks DrawParams
// and MaterialSet against their Rust twins.
#define_import_path throng_bevy::crowd_material

#import throng::material::{MaterialSet, variant_slot, material_uv}

// Rust twin: throng_bevy::render::DrawParams (32 B).
struct DrawParams {
    // x: unused; y: 1 when double-sided; z: the primitive's index (its part-mask bit).
    misc: vec4<u32>,
    // The far tier's crossfade (throng_bevy::crowd_far::card_share): the crowd's LOD bias and
    // crossfade band (pixels), the tier's texel (file units); w unused.
    far: vec4<f32>,
}

@group(#{G_SKIN}) @binding(#{B_DRAW}) var<uniform> draw: DrawParams;
// Rust twin: throng_asset::gpu::MaterialSet (throng_bevy::render::materials).
@group(#{G_SKIN}) @binding(#{B_MATERIALS}) var<uniform> materials: MaterialSet;
// The slots' base colour images, one layer each (sRGB, one size; white for an untextured slot).
@group(#{G_SKIN}) @binding(#{B_BASE_COLOR_LAYERS}) var base_color_layers: texture_2d_array<f32>;
@group(#{G_SKIN}) @binding(#{B_SAMPLER}) var base_color_sampler: sampler;

// The slot an instance of appearance variant `variant` draws (past the last: the own).
fn material_slot(variant: u32) -> u32 {
    return variant_slot(variant, materials.count);
}

// UV0 through slot `slot`'s texture transform.
fn slot_uv(slot: u32, uv: vec2<f32>) -> vec2<f32> {
    return material_uv(materials.slots[slot], uv);
}

// Slot `slot`'s base colour (factor × texture, linear) at its transformed uv `uv`.
fn slot_color(slot: u32, uv: vec2<f32>) -> vec4<f32> {
    let layer = materials.layers[slot / 4u][slot % 4u];
    return materials.slots[slot].base_color * textureSample(base_color_layers, base_color_sampler, uv, layer);
}
