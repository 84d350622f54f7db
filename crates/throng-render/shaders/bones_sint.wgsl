// bones_sint.wgsl: bone texture of quat-snorm16 (Rgba16Sint, decoded in the shader so no
// optional GPU feature is needed).
@group(0) @binding(0) var bone_texture: texture_2d_array<i32>;

fn bone_texel(x: u32, row: u32) -> vec4<i32> {
    let c = bone_coords(row);
    return textureLoad(bone_texture, vec2<u32>(x, c.y), c.z, 0);
}
