// throng::playback — the per-instance contract on the GPU (docs/design.md §4): the records,
// the instance transform, the clip table, and the time rules' twin. Rust twins (same layouts,
// checked by naga in throng-render's tests): throng_contract::{Layer, InstanceRecord,
// InstanceTransform, GpuClip, GpuLayer, GpuInstanceRecord, FrameTimeTable}. One binding, the
// frame-time table of listed clips: the embedder chooses its group and binding with the shader
// defs G_FRAME_TIMES and B_FRAME_TIMES; everything else comes in as values.
#define_import_path throng::playback

#import throng::constants::{MODE_LOOP, MODE_PINGPONG, CLIP_MASK, MODE_SHIFT, GPU_HELD, GPU_ENABLED, GPU_TWO_LAYERS, TWO_NEG_32, UNIFORM_FRAMES, LAYER_MASK_SHIFT, CLIP_ADDITIVE, CLIP_CUBIC, CLIP_PERIODIC, CLIP_DEGREE_SHIFT}

// Frame times (f32 bits) and lookup grids of the clips with frame-time lists
// (throng_contract::FrameTimeTable).
@group(#{G_FRAME_TIMES}) @binding(#{B_FRAME_TIMES}) var<storage, read> frame_times: array<u32>;

// One playback layer: weight, frac = weight of row + 1, global frame-table row as f32, and
// the clip word: clip index (bits 0..23) | mask number << LAYER_MASK_SHIFT (0 = no mask).
struct Layer {
    weight: f32,
    frac: f32,
    row: f32,
    clip: u32,
}

// CPU-timed per-instance record: 4 layers, 64 B.
struct InstanceRecord {
    layers: array<Layer, 4>,
}

// Model transform of an instance: the 3 rows of its 3×4 affine matrix, 48 B.
struct InstanceTransform {
    rows: array<vec4<f32>, 3>,
}

// One clip of the frame table, 48 B. bounds_min > bounds_max on some axis: no bounds.
struct Clip {
    first_row: u32,
    frames: u32,
    // Start of the clip's frame-time list in frame_times, or UNIFORM_FRAMES.
    times_offset: u32,
    // Bit 0 (CLIP_ADDITIVE): the clip's rows are deltas from a reference pose.
    flags: u32,
    bounds_min: vec4<f32>,
    bounds_max: vec4<f32>,
}

// One layer of a GPU-timed record (see throng_contract::gpu_timed for the arithmetic).
struct GpuLayer {
    // Clock tick (low 32 bits) at which `phase` holds.
    anchor: u32,
    // Position at `anchor` as a fraction of the period, 0.32 fixed point.
    phase: u32,
    // Periods per tick, 0.32 fixed point, rounded down.
    omega_hi: u32,
    // Periods per tick left over (< 2^-32).
    omega_lo: f32,
    // Clip index (bits 0..23) | loop mode << 24 | HELD (bit 26) | mask << 29.
    clip_mode: u32,
}

// GPU-timed per-instance record, 56 B.
struct GpuInstanceRecord {
    layers: array<GpuLayer, 2>,
    w_anchor: u32,
    w_start: f32,
    w_rate: f32,
    // Bit 0 enabled, bit 1 layer 1 in use.
    flags: u32,
}

// One changed record and the instance it belongs to (64 B), scattered into the record buffer
// by the GPU. Rust twin: gpu_timed::GpuRecordWrite.
struct GpuRecordWrite {
    record: GpuInstanceRecord,
    index: u32,
    pad: u32,
}

// Where a clip time lands: global row and the weight of row + 1.
struct FrameRef {
    row: u32,
    frac: f32,
}

// An *affine* here is a mat3x4<f32> whose column i holds ROW i of the 3×4 matrix [L | t], so
// `vec4(p, 1.0) * a` applies it with three dot products.
fn instance_affine(x: InstanceTransform) -> mat3x4<f32> {
    return mat3x4<f32>(x.rows[0], x.rows[1], x.rows[2]);
}

// The clip index of a layer. Rust twin: Layer::clip_index.
fn layer_clip(l: Layer) -> u32 {
    return l.clip & CLIP_MASK;
}

// The mask number of a layer (0 = none). Rust twin: Layer::mask.
fn layer_mask(l: Layer) -> u32 {
    return l.clip >> LAYER_MASK_SHIFT;
}

// Whether a clip is additive.
fn clip_additive(c: Clip) -> bool {
    return (c.flags & CLIP_ADDITIVE) != 0u;
}

// The affine a · b (b first), both in the row form above. Rust twin:
// throng_asset::decode::affine_mul.
fn affine_mul(a: mat3x4<f32>, b: mat3x4<f32>) -> mat3x4<f32> {
    var out: mat3x4<f32>;
    for (var i = 0u; i < 3u; i++) {
        let r = a[i];
        out[i] = b[0] * r.x + b[1] * r.y + b[2] * r.z + vec4<f32>(0.0, 0.0, 0.0, r.w);
    }
    return out;
}

// L = n − 1 of a clip.
fn clip_last(c: Clip) -> u32 {
    return max(c.frames, 1u) - 1u;
}

// Frame time k of a listed clip.
fn listed_time(c: Clip, k: u32) -> f32 {
    return bitcast<f32>(frame_times[c.times_offset + k]);
}

// The row lookup of a listed clip: τ = q / L · d, the grid cell of τ, then forward to the
// largest k with t_k ≤ τ. Rust twin: listed_frame_f32.
fn listed_frame(c: Clip, q_in: f32) -> FrameRef {
    let n = max(c.frames, 1u);
    let last_u = n - 1u;
    let last = f32(last_u);
    let q = clamp(q_in, 0.0, last);
    if (q >= last || n < 2u) {
        return FrameRef(c.first_row + last_u, 0.0);
    }
    let d = listed_time(c, last_u);
    let tau = q / last * d;
    let cells = max(last_u, 1u);
    let cell = min(u32(tau / d * f32(cells)), cells - 1u);
    var k = min(frame_times[c.times_offset + n + cell], last_u - 1u);
    for (var i = 0u; i < n && k > 0u && listed_time(c, k) > tau; i++) {
        k -= 1u;
    }
    for (var i = 0u; i < n; i++) {
        if (k + 2u > last_u || listed_time(c, k + 1u) > tau) {
            break;
        }
        k += 1u;
    }
    let a = listed_time(c, k);
    let b = listed_time(c, k + 1u);
    var frac = 0.0;
    if (b > a) {
        frac = (tau - a) / (b - a);
    }
    return FrameRef(c.first_row + k, clamp(frac, 0.0, 1.0));
}

// The time rules' frame(q): shown position q (clamped into [0, L]) → row and frac, frac 0 on
// the last frame. Rust twins: ClipFrames::frame (f64), clip_frame_f32.
fn clip_frame(c: Clip, q_in: f32) -> FrameRef {
    if (c.times_offset != UNIFORM_FRAMES) {
        return listed_frame(c, q_in);
    }
    let last_u = clip_last(c);
    let last = f32(last_u);
    let q = clamp(q_in, 0.0, last);
    let fl = floor(q);
    if (fl >= last) {
        return FrameRef(c.first_row + last_u, 0.0);
    }
    return FrameRef(c.first_row + u32(fl), q - fl);
}

// Shown position of a layer at phase φ (periods). Rust twin: gpu_timed::phase_position.
fn phase_position(phi_in: f32, mode: u32, held: bool, last: f32) -> f32 {
    var phi = phi_in;
    var q: f32;
    if (held) {
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
    return q;
}

// The clip index of a GPU-timed layer.
fn gpu_layer_clip(l: GpuLayer) -> u32 {
    return l.clip_mode & CLIP_MASK;
}

// One GPU-timed layer at `clock`, with its clip `c` (the zero clip for an unknown index).
// Rust twin: gpu_timed::gpu_layer.
fn gpu_layer(l: GpuLayer, c: Clip, clock: u32, weight: f32) -> Layer {
    let mode = (l.clip_mode >> MODE_SHIFT) & 3u;
    let e = clock - l.anchor;
    let a = e * l.omega_hi + l.phase;
    let phi = f32(a) * TWO_NEG_32 + f32(e) * l.omega_lo;
    let q = phase_position(phi, mode, (l.clip_mode & GPU_HELD) != 0u, f32(clip_last(c)));
    let f = clip_frame(c, q);
    return Layer(weight, f.frac, f32(f.row), gpu_layer_clip(l) | (l.clip_mode & (7u << LAYER_MASK_SHIFT)));
}

// Layer 1's weight of a GPU-timed record at `clock` (0 with one layer).
fn gpu_layer1_weight(rec: GpuInstanceRecord, clock: u32) -> f32 {
    if ((rec.flags & GPU_TWO_LAYERS) == 0u) {
        return 0.0;
    }
    let ew = clock - rec.w_anchor;
    return clamp(rec.w_start + f32(ew) * rec.w_rate, 0.0, 1.0);
}

// The 4 layers a GPU-timed record shows at `clock`, given the clips of its two layers; an
// overlay layer 1 (masked, or of an additive clip) leaves layer 0 its full weight. Rust twin:
// gpu_timed::gpu_layers.
fn gpu_layers(rec: GpuInstanceRecord, c0: Clip, c1: Clip, clock: u32) -> array<Layer, 4> {
    let none = Layer(0.0, 0.0, 0.0, 0u);
    var out = array<Layer, 4>(none, none, none, none);
    if ((rec.flags & GPU_ENABLED) == 0u) {
        return out;
    }
    let w1 = gpu_layer1_weight(rec, clock);
    var w0 = 1.0;
    if ((rec.flags & GPU_TWO_LAYERS) != 0u) {
        out[1] = gpu_layer(rec.layers[1], c1, clock, w1);
        let overlay = (rec.layers[1].clip_mode >> LAYER_MASK_SHIFT) != 0u || clip_additive(c1);
        if (!overlay) {
            w0 = 1.0 - w1;
        }
    }
    out[0] = gpu_layer(rec.layers[0], c0, clock, w0);
    return out;
}

// The layer's row and the next row, clamped into the layer's clip (the CPU writes frac = 0 on
// a clip's last frame, but the shader still must not read the next clip's first row) and
// into the table of `table_rows` rows (a bad record cannot read outside the texture).
// `known`: whether `c` is the layer's clip (false for an index past the table). Rust twin:
// throng_asset::decode::layer_rows.
fn layer_rows(l: Layer, c: Clip, known: bool, table_rows: u32) -> vec2<u32> {
    let last_row = table_rows - 1u;
    let row = min(u32(max(l.row, 0.0)), last_row);
    var last = last_row;
    if (known) {
        last = min(c.first_row + clip_last(c), last_row);
    }
    return vec2<u32>(row, max(min(row + 1u, last), row));
}

// Up to four frame-table rows and their weights; a weight of 0 means the row is not read
// (docs/design.md §3 "Row interpolation"). Rust twin: throng_contract::RowTaps.
struct RowTaps {
    rows: vec4<u32>,
    weights: vec4<f32>,
}

// Weights of frames k − 1 … k + 2 of the uniform Catmull-Rom spline at f. Rust twin:
// throng_contract::catmull_rom_weights (same order of operations).
fn catmull_rom_weights(f: f32) -> vec4<f32> {
    let f2 = f * f;
    let f3 = f2 * f;
    return vec4<f32>(
        0.5 * (-f3 + 2.0 * f2 - f),
        0.5 * (3.0 * f3 - 5.0 * f2 + 2.0),
        0.5 * (-3.0 * f3 + 4.0 * f2 + f),
        0.5 * (f3 - f2),
    );
}

// Weights of a polynomial piece's rows 0 ..= d at x ∈ [0, d]: the Lagrange basis of the nodes
// 0, 1, …, d for d = 2 or 3. Rust twin: throng_contract::piece_weights (same order).
fn piece_weights(d: u32, x: f32) -> vec4<f32> {
    if (d == 2u) {
        return vec4<f32>(0.5 * (x - 1.0) * (x - 2.0), -x * (x - 2.0), 0.5 * x * (x - 1.0), 0.0);
    }
    if (d == 3u) {
        return vec4<f32>(
            -(x - 1.0) * (x - 2.0) * (x - 3.0) / 6.0,
            0.5 * x * (x - 2.0) * (x - 3.0),
            -0.5 * x * (x - 1.0) * (x - 3.0),
            x * (x - 1.0) * (x - 2.0) / 6.0,
        );
    }
    return vec4<f32>(1.0 - x, x, 0.0, 0.0);
}

// The rows a layer's pose sums and their weights: layer_rows' two at (1 − frac, frac), or on a
// clip of polynomial pieces (degree d in the flags' CLIP_DEGREE_SHIFT bits) the d + 1 rows of
// the piece holding the row at the Lagrange weights, or on a
// cubic clip (CLIP_CUBIC) with frac > 0 also the frame before and after them — across the seam
// of a periodic clip (CLIP_PERIODIC), the end frame again otherwise — at the Catmull-Rom
// weights. Every row stays inside the clip and the table. Rust twin: throng_contract::row_taps.
fn layer_taps(l: Layer, c: Clip, known: bool, table_rows: u32) -> RowTaps {
    let r = layer_rows(l, c, known, table_rows);
    let f = l.frac;
    let linear = RowTaps(vec4<u32>(r.x, r.x, r.y, r.y), vec4<f32>(0.0, 1.0 - f, f, 0.0));
    let d = (c.flags >> CLIP_DEGREE_SHIFT) & 3u;
    if (!known || f == 0.0 || (d < 2u && (c.flags & CLIP_CUBIC) == 0u)) {
        return linear;
    }
    let first = c.first_row;
    let last = min(first + clip_last(c), table_rows - 1u);
    if (last <= first) {
        return linear;
    }
    if (d >= 2u) {
        // The piece holding gap row − first, and where in it the row is.
        let o = (max(r.x, first) - first) % d;
        let s = r.x - o;
        let rows = min(vec4<u32>(s, s + 1u, s + 2u, s + 3u), vec4<u32>(last));
        return RowTaps(rows, piece_weights(d, f32(o) + f));
    }
    let periodic = (c.flags & CLIP_PERIODIC) != 0u;
    var before = first;
    if (r.x > first) {
        before = r.x - 1u;
    } else if (periodic) {
        before = last - 1u;
    }
    var after = last;
    if (r.y < last) {
        after = r.y + 1u;
    } else if (periodic) {
        after = first + 1u;
    }
    return RowTaps(vec4<u32>(before, r.x, r.y, after), catmull_rom_weights(f));
}
