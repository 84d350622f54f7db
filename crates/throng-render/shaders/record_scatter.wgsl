// GPU-timed uploads that follow changes (docs/design.md §5 "Uploads"): the CPU sends only the
// frame's changed records as a list of (record, instance index) — written sequentially on the
// CPU — and this program scatters each into the crowd's record buffer.

#import throng::playback::{GpuInstanceRecord, GpuRecordWrite}

struct ScatterParams {
    // Writes in the list.
    count: u32,
    // Records in the crowd: writes at or past it are dropped (a stale index).
    len: u32,
    pad0: u32,
    pad1: u32,
}

@group(#{G_SKIN}) @binding(#{B_RECORD_WRITES}) var<storage, read> writes: array<GpuRecordWrite>;
@group(#{G_SKIN}) @binding(#{B_GPU_RECORDS}) var<storage, read_write> records: array<GpuInstanceRecord>;
@group(#{G_SKIN}) @binding(#{B_SCATTER_PARAMS}) var<uniform> params: ScatterParams;

// One write per invocation; a 2D grid of 64-wide workgroups (a dimension holds at most 65,535
// groups), row-major.
@compute @workgroup_size(64)
fn cs_scatter(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let k = id.y * groups.x * 64u + id.x;
    if (k >= params.count) {
        return;
    }
    let w = writes[k];
    if (w.index < params.len) {
        records[w.index] = w.record;
    }
}
