// frame.wgsl: per-frame uniform (camera, light, ground) and the shading shared by every pass
// that draws meshes (crate::gpu_types::FrameUniform). World space = model space of the scene.

struct FrameUniform {
    view_proj: mat4x4<f32>,
    // Unit direction the light travels, world space; w unused.
    light_dir: vec4<f32>,
    // Light colour (linear RGB) and ambient strength in w.
    light: vec4<f32>,
    // Ground plane: centre x, height y, centre z, half extent (file units).
    ground: vec4<f32>,
    // x: checker cell size (file units); yzw unused.
    ground_cell: vec4<f32>,
}

@group(0) @binding(5) var<uniform> frame: FrameUniform;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) world: vec3<f32>,
    // UV0 (glTF: origin top-left), before the material's texture transform.
    @location(2) uv: vec2<f32>,
}

// Lambert with one directional light plus ambient, in linear colour.
fn shade(base: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    let d = max(dot(n, -frame.light_dir.xyz), 0.0);
    return base * (frame.light.w + d * frame.light.rgb);
}
