// mesh_fs.wgsl: fragment shader of skinned meshes (every skinning path).

struct Material {
    // Linear RGBA base colour factor.
    base_color: vec4<f32>,
    // KHR_texture_transform as a 2×3 affine (rows; uv' = M · (u, v, 1)): T · R · S.
    uv_row0: vec4<f32>,
    uv_row1: vec4<f32>,
}

@group(1) @binding(0) var<uniform> material: Material;
// Base colour texture (sRGB; a 1×1 white texture when the material has none).
@group(1) @binding(1) var base_texture: texture_2d<f32>;
@group(1) @binding(2) var base_sampler: sampler;

@fragment
fn fs_main(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    // Double-sided lighting: back faces use the flipped normal.
    var n = normalize(in.normal);
    if (!front) {
        n = -n;
    }
    let uv = vec3<f32>(in.uv, 1.0);
    let tuv = vec2<f32>(dot(material.uv_row0.xyz, uv), dot(material.uv_row1.xyz, uv));
    let base = material.base_color * textureSample(base_texture, base_sampler, tuv);
    if (in.debug.a > 0.0) {
        return vec4<f32>(shade_debug(in.debug.rgb, n), 1.0);
    }
    return vec4<f32>(shade(base.rgb, n, in.world), base.a);
}
