// instance_culled.wgsl: draws after GPU culling: instance index i of the draw of (pass, LOD) is
// the i-th visible instance of that (pass, LOD), whose ids start at draw.id_base.
@group(0) @binding(12) var<storage, read> visible_ids: array<u32>;

fn instance_id(i: u32) -> u32 {
    return visible_ids[draw.id_base + i];
}
