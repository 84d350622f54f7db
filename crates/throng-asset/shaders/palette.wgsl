// throng::palette — the palette path's buffer (docs/design.md §5 "Skinning paths"): per
// instance and palette entry one 48 B `PaletteEntry`, at `instance · entries + entry`, written
// by the palette pass (palette_pass.wgsl, def PALETTE_WRITE) after culling and read by the
// main and shadow passes' vertex stage (def PALETTE). Rust twin: throng_asset::gpu::PaletteEntry.
#define_import_path throng::palette

#import throng::decode::DqAcc
#import throng::bone::bone_params

// Linear blend skinning: the blended skin matrix as an affine (a, b, c = its rows, as
// throng::decode's mat3x4). Dual quaternions: a = Σ real, b = Σ dual (blended over the
// instance's frames and layers, hemisphere-aligned, not normalised), c.x = Σ scale, c.yzw 0.
struct PaletteEntry {
    a: vec4<f32>,
    b: vec4<f32>,
    c: vec4<f32>,
}

#ifdef PALETTE_WRITE
@group(#{G_SKIN}) @binding(#{B_PALETTE}) var<storage, read_write> palette: array<PaletteEntry>;

// The palette pass's job: which instances its invocations cover. Rust twin:
// throng_asset::gpu::PaletteJob.
struct PaletteJob {
    // Instances to write (not culled), or 0.
    instances: u32,
    // Culled: where the palette list starts in the visible ids, and the word of the argument
    // buffer holding its length.
    list_base: u32,
    count_word: u32,
    pad: u32,
}

@group(#{G_SKIN}) @binding(#{B_PALETTE_JOB}) var<uniform> job: PaletteJob;
#else
@group(#{G_SKIN}) @binding(#{B_PALETTE}) var<storage, read> palette: array<PaletteEntry>;
#endif

#ifdef MOTION
// Motion vectors: the palette as the previous frame drew it (throng_render's palette
// history, a copy made after the previous frame's passes).
@group(#{G_SKIN}) @binding(#{B_PREV_PALETTE}) var<storage, read> prev_palette: array<PaletteEntry>;
#endif

// A palette pass's invocation index: workgroups of 64 in rows of at most 65,535 (a large crowd
// needs more than 65,535 workgroups). Rust twin: throng_asset::gpu::palette_workgroups.
fn palette_invocation(group: vec3<u32>, groups: vec3<u32>, lane: u32) -> u32 {
    return (group.y * groups.x + group.x) * 64u + lane;
}

// Where entry `entry` of instance `inst` lives.
fn palette_index(inst: u32, entry: u32) -> u32 {
    return inst * bone_params.entries + entry;
}

fn affine_entry(m: mat3x4<f32>) -> PaletteEntry {
    return PaletteEntry(m[0], m[1], m[2]);
}

fn entry_affine(e: PaletteEntry) -> mat3x4<f32> {
    return mat3x4<f32>(e.a, e.b, e.c);
}

fn dq_entry(acc: DqAcc) -> PaletteEntry {
    return PaletteEntry(acc.real, acc.dual, vec4<f32>(acc.scale, 0.0, 0.0, 0.0));
}
