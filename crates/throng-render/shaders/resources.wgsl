// resources.wgsl: group 0 bindings every skinning shader reads (the bone texture itself is
// declared by bones_float.wgsl or bones_sint.wgsl, binding 0; the per-instance playback record,
// binding 4, by timing_cpu.wgsl or timing_gpu.wgsl).

@group(0) @binding(1) var<uniform> bone_params: BoneParams;
@group(0) @binding(2) var<storage, read> clips: array<Clip>;
@group(0) @binding(3) var<storage, read> instance_transforms: array<InstanceTransform>;

// Frame-table row → (x, y, array layer) of the bone texture: rows beyond rows_per_layer continue
// in further layers (DESIGN.md §3).
fn bone_coords(row: u32) -> vec3<u32> {
    return vec3<u32>(0u, row % bone_params.rows_per_layer, row / bone_params.rows_per_layer);
}
