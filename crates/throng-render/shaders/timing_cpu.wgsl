// timing_cpu.wgsl: CPU-timed playback (DESIGN.md §4): the CPU writes each instance's 4 layers
// of (weight, frac, row, clip) every frame; the shader reads them as they are.

@group(0) @binding(4) var<storage, read> instance_records: array<InstanceRecord>;

fn instance_layers(inst: u32) -> array<Layer, 4> {
    return instance_records[inst].layers;
}
