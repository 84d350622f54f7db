// instance_culled.wgsl: draws after GPU culling: instance index i of the draw of (pass, LOD) is
// the i-th visible instance of that (pass, LOD), whose ids start at draw.id_base (with first
// instances, i already starts at the list and id_base is 0).
@group(0) @binding(12) var<storage, read> visible_ids: array<u32>;

fn instance_id(i: u32) -> u32 {
    return visible_ids[draw.id_base + i];
}
