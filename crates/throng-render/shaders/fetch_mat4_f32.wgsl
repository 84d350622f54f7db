// fetch_mat4_f32.wgsl: palette entry j of frame-table row → affine (texels 4j .. 4j + 3).
fn bone_affine(entry: u32, row: u32) -> mat3x4<f32> {
    let x = entry * 4u;
    return decode_mat4_f32(bone_texel(x, row), bone_texel(x + 1u, row), bone_texel(x + 2u, row), bone_texel(x + 3u, row));
}
