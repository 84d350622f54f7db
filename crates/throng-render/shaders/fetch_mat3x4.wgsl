// fetch_mat3x4.wgsl: palette entry j of frame-table row → affine (texels 3j .. 3j + 2);
// serves mat3x4-f32 and mat3x4-f16.
fn bone_affine(entry: u32, row: u32) -> mat3x4<f32> {
    let x = entry * 3u;
    return decode_mat3x4(bone_texel(x, row), bone_texel(x + 1u, row), bone_texel(x + 2u, row));
}
