// timing_gpu.wgsl: GPU-timed playback (DESIGN.md §4): each instance's rows and fracs are derived
// from a compact record and the global clock, so the CPU writes a record only when playback
// changes. Record layout and arithmetic are throng-runtime's (throng_runtime::gpu: 56 B record,
// 2^20 ticks per second, 0.32 fixed-point phase and rate, wrapping u32 products that drop whole
// periods exactly); this is its CPU twin `gpu_layers` written line by line.

struct GpuLayer {
    // Clock tick (low 32 bits) at which `phase` holds.
    anchor: u32,
    // Position at `anchor` as a fraction of the period, 0.32 fixed point.
    phase: u32,
    // Periods per tick, 0.32 fixed point, rounded down.
    omega_hi: u32,
    // Periods per tick left over (< 2^-32).
    omega_lo: f32,
    // Clip index (bits 0..23) | loop mode << 24 | HELD (bit 26).
    clip_mode: u32,
}

struct GpuInstanceRecord {
    layers: array<GpuLayer, 2>,
    w_anchor: u32,
    w_start: f32,
    w_rate: f32,
    // Bit 0 enabled, bit 1 layer 1 in use.
    flags: u32,
}

// The global clock: low 32 bits of the runtime's tick count.
struct Timing {
    clock: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(4) var<storage, read> gpu_records: array<GpuInstanceRecord>;
@group(0) @binding(9) var<uniform> timing: Timing;

const GPU_ENABLED: u32 = 1u;
const GPU_TWO_LAYERS: u32 = 2u;
const GPU_HELD: u32 = 67108864u; // 1 << 26
const MODE_LOOP: u32 = 0u;
const MODE_PINGPONG: u32 = 3u;
const TWO_NEG_32: f32 = 2.3283064365386963e-10; // 2^-32

fn gpu_layer(l: GpuLayer, clock: u32, weight: f32) -> Layer {
    let clip = l.clip_mode & 0x00ffffffu;
    let mode = (l.clip_mode >> 24u) & 3u;
    // Clip table: (first_row, last = n − 1); an unknown clip reads as (0, 0) like the CPU's
    // `clips.get(clip).unwrap_or_default()`.
    var first_row = 0u;
    var last_u = 0u;
    if (clip < bone_params.clip_count) {
        first_row = clips[clip].first_row;
        last_u = max(clips[clip].frames, 1u) - 1u;
    }
    let last = f32(last_u);
    let e = clock - l.anchor;
    let a = e * l.omega_hi + l.phase;
    var phi = f32(a) * TWO_NEG_32 + f32(e) * l.omega_lo;
    var q: f32;
    if ((l.clip_mode & GPU_HELD) != 0u) {
        q = last;
    } else if (mode == MODE_LOOP) {
        if (phi >= 1.0) {
            phi -= 1.0;
        }
        q = phi * last;
    } else if (mode == MODE_PINGPONG) {
        if (phi >= 1.0) {
            phi -= 1.0;
        }
        q = phi * (2.0 * last);
        if (q > last) {
            q = 2.0 * last - q;
        }
    } else {
        q = phi * last;
    }
    q = clamp(q, 0.0, last);
    let fl = floor(q);
    var frac = q - fl;
    var row = first_row + u32(fl);
    if (fl >= last) {
        row = first_row + last_u;
        frac = 0.0;
    }
    return Layer(weight, frac, f32(row), f32(clip));
}

fn instance_layers(inst: u32) -> array<Layer, 4> {
    let rec = gpu_records[inst];
    let none = Layer(0.0, 0.0, 0.0, 0.0);
    var out = array<Layer, 4>(none, none, none, none);
    if ((rec.flags & GPU_ENABLED) == 0u) {
        return out;
    }
    let clock = timing.clock;
    var w1 = 0.0;
    if ((rec.flags & GPU_TWO_LAYERS) != 0u) {
        let ew = clock - rec.w_anchor;
        w1 = clamp(rec.w_start + f32(ew) * rec.w_rate, 0.0, 1.0);
        out[1] = gpu_layer(rec.layers[1], clock, w1);
    }
    out[0] = gpu_layer(rec.layers[0], clock, 1.0 - w1);
    return out;
}
