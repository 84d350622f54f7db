// bones_float.wgsl: bone texture of the float encodings (Rgba32Float or Rgba16Float).
@group(0) @binding(0) var bone_texture: texture_2d_array<f32>;

fn bone_texel(x: u32, row: u32) -> vec4<f32> {
    let c = bone_coords(row);
    return textureLoad(bone_texture, vec2<u32>(x, c.y), c.z, 0);
}
