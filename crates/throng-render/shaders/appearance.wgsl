// throng_render::appearance — where a draw finds its instances' appearances
// (throng::appearance, docs/design.md §4 "Appearance"): an Rgba32Uint data texture in the
// per-draw group, one texel per instance, row-major (crate::appearance). Indexed by the crowd
// instance — in the downlevel mode by the list slot, the texture then written in list order.
// An index past the texture (an appearance-less crowd binds one default texel) reads the
// default: every part and prop shown, untinted, own materials.
#define_import_path throng_render::appearance

#import throng::appearance::{Appearance, appearance_of}

@group(#{G_DRAW}) @binding(#{B_APPEARANCES}) var appearance_texels: texture_2d<u32>;

fn instance_appearance(inst: u32) -> Appearance {
    let size = textureDimensions(appearance_texels);
    if (inst >= size.x * size.y) {
        return Appearance(0xffffffffu, 0xffffffffu, 0u, 0xffffffffu);
    }
    return appearance_of(textureLoad(appearance_texels, vec2<u32>(inst % size.x, inst / size.x), 0));
}
