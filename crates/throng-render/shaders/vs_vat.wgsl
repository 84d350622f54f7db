// vs_vat.wgsl: VAT path vertex shader: the vertex index addresses the VAT; only UV0 comes from
// a vertex buffer.

@vertex
fn vs_main(@location(0) uv: vec2<f32>, @builtin(vertex_index) vertex: u32, @builtin(instance_index) instance: u32) -> VsOut {
    let inst = instance_id(instance);
    let s = vat_vertex(inst, vertex);
    let world = apply_affine(instance_affine(instance_transforms[inst]), s.position, s.normal, s.tangent);
    var out: VsOut;
    out.clip = clip_position(world.position);
    out.normal = world.normal;
    out.world = world.position;
    out.uv = uv;
    out.debug = vec4<f32>(0.0);
    if (frame.debug.x != 0u) {
        // A VAT stores no influences: the weights and palette views show grey.
        var layers = instance_layers(inst);
        out.debug = debug_common(&layers, draw_lod(instance));
        if (out.debug.a == 0.0) {
            out.debug = vec4<f32>(0.5, 0.5, 0.5, 1.0);
        }
    }
    return out;
}
