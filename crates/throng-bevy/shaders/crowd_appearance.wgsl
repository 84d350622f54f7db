// throng_bevy::crowd_appearance — the instance's appearance (throng::appearance, docs/design.md
// §4 "Appearance") as every pass of a crowd reads it: an Rgba32Uint texture in the crowd's group
// (G_SKIN) at B_APPEARANCES, one texel per instance, row-major (throng_bevy::render::appearance),
// and the part bit of the draw's primitive (DrawParams.misc.z, throng_bevy::crowd_material).
#define_import_path throng_bevy::crowd_appearance

#import throng::appearance::{Appearance, appearance_of, shows_part}
#import throng_bevy::crowd_material::draw

@group(#{G_SKIN}) @binding(#{B_APPEARANCES}) var appearance_texels: texture_2d<u32>;

// The appearance of instance `instance` (its index as the instance's transform is read).
fn instance_appearance(instance: u32) -> Appearance {
    let width = textureDimensions(appearance_texels).x;
    return appearance_of(textureLoad(appearance_texels, vec2<u32>(instance % width, instance / width), 0));
}

// A clip position past the right clip plane (x > w) and the top one (y > w): a triangle of
// three such vertices is clipped whole in every pass, shadow maps drawn with unclipped depth
// too (depth clamping leaves x and y clipped), so a hidden part leaves no pixel and no shadow.
const HIDDEN_CLIP: vec4<f32> = vec4<f32>(2.0, 2.0, 0.5, 1.0);

// `clip`, or HIDDEN_CLIP when appearance `a` hides this draw's primitive.
fn part_clip(a: Appearance, clip: vec4<f32>) -> vec4<f32> {
    return select(HIDDEN_CLIP, clip, shows_part(a, draw.misc.z));
}
