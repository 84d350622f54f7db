// instance_direct.wgsl: draws without culling: the instance index is the instance.
fn instance_id(i: u32) -> u32 {
    return i;
}
