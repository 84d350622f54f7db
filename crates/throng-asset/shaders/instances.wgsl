// throng::instances — per-instance data of a crowd: transforms, the playback records
// (CPU-timed, or GPU-timed with the GPU_TIMED def: rows derived from the record and the clock,
// docs/design.md §4) and, with the CULLED def, the visible-id list the culling pass wrote.
#define_import_path throng::instances

#import throng::playback::{InstanceRecord, InstanceTransform, Layer, GpuInstanceRecord, gpu_layers, gpu_layer_clip}
#import throng::bone::{clip_at, layer_is_base}
#ifdef DOWNLEVEL
#import throng::bone::record_texel
#endif
#import throng::constants::CLIP_MASK

#ifdef DOWNLEVEL
// Devices without storage buffers in the vertex stage (the DOWNLEVEL def; throng-render's
// docs/downlevel.md): the CPU culls, and the instances each draw shows lie in an Rgba32Uint
// data texture, DL_INSTANCE_TEXELS texels per instance — the transform's 3 rows (f32 bits),
// then the 4 layers of its CPU-timed record (weight, frac, row as f32 bits; the clip word) —
// in the order of the draws' lists. Written by throng_render's `downlevel` module.
@group(#{G_SKIN}) @binding(#{B_INSTANCE_TRANSFORMS}) var instance_texels: texture_2d<u32>;

fn instance_texel(inst: u32, j: u32) -> vec4<u32> {
    let at = record_texel(inst, #{DL_INSTANCE_TEXELS}u, j, textureDimensions(instance_texels).x);
    return textureLoad(instance_texels, at, 0);
}

// The transform of instance `inst`.
fn instance_transform(inst: u32) -> InstanceTransform {
    return InstanceTransform(array<vec4<f32>, 3>(
        bitcast<vec4<f32>>(instance_texel(inst, 0u)),
        bitcast<vec4<f32>>(instance_texel(inst, 1u)),
        bitcast<vec4<f32>>(instance_texel(inst, 2u)),
    ));
}

fn texel_layer(t: vec4<u32>) -> Layer {
    return Layer(bitcast<f32>(t.x), bitcast<f32>(t.y), bitcast<f32>(t.z), t.w);
}

// The 4 layers instance `inst` shows now (the CPU wrote them, either timing).
fn instance_layers(inst: u32) -> array<Layer, 4> {
    return array<Layer, 4>(
        texel_layer(instance_texel(inst, 3u)),
        texel_layer(instance_texel(inst, 4u)),
        texel_layer(instance_texel(inst, 5u)),
        texel_layer(instance_texel(inst, 6u)),
    );
}

// Instance index i of a draw whose list starts at `id_base` in the data texture.
fn instance_id(i: u32, id_base: u32) -> u32 {
    return id_base + i;
}
#else
@group(#{G_SKIN}) @binding(#{B_INSTANCE_TRANSFORMS}) var<storage, read> instance_transforms: array<InstanceTransform>;

// The transform of instance `inst`.
fn instance_transform(inst: u32) -> InstanceTransform {
    return instance_transforms[inst];
}

#ifdef MOTION
// Motion vectors: the transforms of the previous frame (kept with the previous palette).
@group(#{G_SKIN}) @binding(#{B_PREV_TRANSFORMS}) var<storage, read> prev_instance_transforms: array<InstanceTransform>;
#endif

#ifdef GPU_TIMED
// The global clock: low 32 bits of the runtime's tick count (2^20 ticks per second).
struct Timing {
    clock: u32,
    pad_a: u32,
    pad_b: u32,
    pad_c: u32,
}

@group(#{G_SKIN}) @binding(#{B_GPU_RECORDS}) var<storage, read> gpu_records: array<GpuInstanceRecord>;
@group(#{G_SKIN}) @binding(#{B_CLOCK}) var<uniform> timing: Timing;

// The 4 layers instance `inst` shows now.
fn instance_layers(inst: u32) -> array<Layer, 4> {
    let rec = gpu_records[inst];
    let c0 = clip_at(gpu_layer_clip(rec.layers[0]));
    let c1 = clip_at(gpu_layer_clip(rec.layers[1]));
    return gpu_layers(rec, c0, c1, timing.clock);
}
#else
@group(#{G_SKIN}) @binding(#{B_CPU_RECORDS}) var<storage, read> instance_records: array<InstanceRecord>;

// The 4 layers instance `inst` shows now, as the CPU wrote them.
fn instance_layers(inst: u32) -> array<Layer, 4> {
    return instance_records[inst].layers;
}
#endif

#ifdef CULLED
// Draws after GPU culling: instance index i of the draw of (pass, LOD) is the i-th visible
// instance of that (pass, LOD), whose ids start at `id_base` (with first instances, i already
// starts at the list and id_base is 0).
@group(#{G_SKIN}) @binding(#{B_VISIBLE_IDS}) var<storage, read> visible_ids: array<u32>;

fn instance_id(i: u32, id_base: u32) -> u32 {
    return visible_ids[id_base + i];
}
#else
// Draws without culling: the instance index is the instance.
fn instance_id(i: u32, id_base: u32) -> u32 {
    return i;
}
#endif
#endif

// The layers instance `inst` is drawn with: its record's, except that an instance without a
// base layer (every weight 0: disabled; or only overlays) shows the rest row 0 as one
// full-weight base layer of a clip past any table (CLIP_MASK, never a clip index: so culling
// takes the asset's rest box), in its first unused slot (the last with four overlays).
// Skinning, VAT and culling read this, and blend the same way.
fn shown_layers(inst: u32) -> array<Layer, 4> {
    var layers = instance_layers(inst);
    var based = false;
    var free = 4u;
    for (var i = 0u; i < 4u; i++) {
        if (layer_is_base(layers[i])) {
            based = true;
        }
        if (layers[i].weight == 0.0 && free == 4u) {
            free = i;
        }
    }
    if (!based) {
        layers[min(free, 3u)] = Layer(1.0, 0.0, 0.0, CLIP_MASK);
    }
    return layers;
}
