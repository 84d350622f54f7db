// debug.wgsl: debug-view colours of the skinned draws (FrameUniform.debug).

// Colours of the views every skinning path can give: frame row of the first active layer (3)
// and LOD (4); 0 alpha otherwise.
fn debug_common(layers: ptr<function, array<Layer, 4>>, lod: u32) -> vec4<f32> {
    let mode = frame.debug.x;
    if (mode == 4u) {
        return vec4<f32>(index_color(lod + 7u), 1.0);
    }
    if (mode == 3u) {
        for (var i = 0u; i < 4u; i++) {
            let l = (*layers)[i];
            if (l.weight > 0.0) {
                return vec4<f32>(heat(l.row / f32(max(bone_params.rows, 2u) - 1u)), 1.0);
            }
        }
        return vec4<f32>(heat(0.0), 1.0);
    }
    return vec4<f32>(0.0);
}
