// cull.wgsl: GPU culling (DESIGN.md §5). Each instance's bounds — the union of the clip bounds
// of its active layers (the asset's bounds for the rest pose or clips without bounds), moved by
// its transform — are tested against the view frustum; visible instance ids are compacted with
// an atomic counter and the counter becomes the instance count of every primitive's
// DrawIndexedIndirect arguments. Needs no optional GPU feature.

struct CullParams {
    // Frustum planes (xyz normal pointing inside, w offset): inside when dot(n, p) + w ≥ 0.
    planes: array<vec4<f32>, 6>,
    // Model-space bounds used when a layer's clip has none (and for the rest pose).
    fallback_min: vec4<f32>,
    fallback_max: vec4<f32>,
    instance_count: u32,
    primitive_count: u32,
    _pad0: u32,
    _pad1: u32,
}

// wgpu's DrawIndexedIndirect layout (20 B).
struct DrawArgs {
    index_count: u32,
    instance_count: atomic<u32>,
    first_index: u32,
    base_vertex: i32,
    first_instance: u32,
}

@group(0) @binding(11) var<uniform> cull: CullParams;
@group(0) @binding(12) var<storage, read_write> visible_ids: array<u32>;
@group(0) @binding(13) var<storage, read_write> draw_args: array<DrawArgs>;

fn instance_bounds_visible(inst: u32) -> bool {
    var layers = instance_layers(inst);
    var lo = vec3<f32>(3.4e38);
    var hi = vec3<f32>(-3.4e38);
    var any_layer = false;
    for (var i = 0u; i < 4u; i++) {
        let l = layers[i];
        if (l.weight == 0.0) {
            continue;
        }
        any_layer = true;
        let c = u32(max(l.clip, 0.0));
        var bmin = cull.fallback_min.xyz;
        var bmax = cull.fallback_max.xyz;
        if (c < bone_params.clip_count) {
            let clip = clips[c];
            if (all(clip.bounds_min.xyz <= clip.bounds_max.xyz)) {
                bmin = clip.bounds_min.xyz;
                bmax = clip.bounds_max.xyz;
            }
        }
        lo = min(lo, bmin);
        hi = max(hi, bmax);
    }
    if (!any_layer) {
        lo = cull.fallback_min.xyz;
        hi = cull.fallback_max.xyz;
    }
    // World box of the transformed model box: centre by the affine, half extent by |L|.
    let m = instance_affine(instance_transforms[inst]);
    let c = (lo + hi) * 0.5;
    let e = (hi - lo) * 0.5;
    let wc = vec4<f32>(c, 1.0) * m;
    let we = vec3<f32>(dot(abs(m[0].xyz), e), dot(abs(m[1].xyz), e), dot(abs(m[2].xyz), e));
    for (var p = 0u; p < 6u; p++) {
        let pl = cull.planes[p];
        if (dot(pl.xyz, wc) + dot(abs(pl.xyz), we) + pl.w < 0.0) {
            return false;
        }
    }
    return true;
}

@compute @workgroup_size(64)
fn cs_cull(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= cull.instance_count) {
        return;
    }
    if (instance_bounds_visible(i)) {
        let slot = atomicAdd(&draw_args[0].instance_count, 1u);
        visible_ids[slot] = i;
    }
}

// Second dispatch: every primitive draws the same visible instances.
@compute @workgroup_size(64)
fn cs_cull_finish(@builtin(global_invocation_id) id: vec3<u32>) {
    let p = id.x;
    if (p == 0u || p >= cull.primitive_count) {
        return;
    }
    atomicStore(&draw_args[p].instance_count, atomicLoad(&draw_args[0].instance_count));
}
