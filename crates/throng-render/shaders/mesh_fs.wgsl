// mesh_fs.wgsl: fragment shader of skinned meshes (every skinning path).

struct Material {
    // Linear RGBA base colour factor.
    base_color: vec4<f32>,
}

@group(1) @binding(0) var<uniform> material: Material;

@fragment
fn fs_main(in: VsOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    // Double-sided lighting: back faces use the flipped normal.
    var n = normalize(in.normal);
    if (!front) {
        n = -n;
    }
    return vec4<f32>(shade(material.base_color.rgb, n), material.base_color.a);
}
