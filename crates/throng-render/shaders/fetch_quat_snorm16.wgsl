// fetch_quat_snorm16.wgsl: palette entry j of frame-table row → (rotation, translation, scale)
// (texels 2j, 2j + 1), and as an affine for linear blend skinning.
fn bone_rts(entry: u32, row: u32) -> Rts {
    let x = entry * 2u;
    return decode_quat_snorm16(bone_texel(x, row), bone_texel(x + 1u, row), bone_params.translation_range, bone_params.scale_range);
}

fn bone_affine(entry: u32, row: u32) -> mat3x4<f32> {
    return rts_to_affine(bone_rts(entry, row));
}
