// instance_culled.wgsl: draws after GPU culling: instance index i is the i-th visible instance.
@group(0) @binding(12) var<storage, read> visible_ids: array<u32>;

fn instance_id(i: u32) -> u32 {
    return visible_ids[i];
}
