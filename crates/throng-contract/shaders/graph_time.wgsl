// throng::graph_time — the WGSL twin of throng_contract::graph_time (docs/graph.md "Time"):
// animation graphs' time in integers, equal to the Rust functions to the bit
// (crates/throng-render/tests/graph_time_twin.rs). WGSL has no 64-bit integers everywhere
// (GL has none), so a 64-bit number is a vec2<u32> (low word, high word) and a 128-bit one a
// vec4<u32> (lowest word first). Pure functions, no bindings.
#define_import_path throng::graph_time

// The constants (`GT_*`: span and weight bits, the fold, the clip events' limits, bias and
// cycle codes) are written above this text from the Rust ones
// (`throng_contract::wgsl::graph_time_module`).

/// Normalised time: `whole + frac / 2^64` cycles.
struct Phase {
    whole: i32,
    frac: vec2<u32>,
}

/// A phase after [`phase_advance`], and whether it folded.
struct Advanced {
    phase: Phase,
    folded: bool,
}

// ---- 64- and 128-bit integers ----

/// a · b, all 64 bits (16-bit halves: every partial product fits a u32).
fn mul32(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    let lo = (p00 & 0xffffu) | (mid << 16u);
    let hi = p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
    return vec2<u32>(lo, hi);
}

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn ge64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y > b.y || (a.y == b.y && a.x >= b.x);
}

fn min64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return select(a, b, ge64(a, b));
}

/// One word of a sum with its carry in and out.
struct Word {
    value: u32,
    carry: u32,
}

fn add_word(a: u32, b: u32, carry: u32) -> Word {
    let s = a + b;
    let t = s + carry;
    return Word(t, select(0u, 1u, s < a) + select(0u, 1u, t < s));
}

/// a + b modulo 2^128.
fn add128(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    let x = add_word(a.x, b.x, 0u);
    let y = add_word(a.y, b.y, x.carry);
    let z = add_word(a.z, b.z, y.carry);
    let w = add_word(a.w, b.w, z.carry);
    return vec4<u32>(x.value, y.value, z.value, w.value);
}

/// a · b, all 128 bits.
fn mul64(a: vec2<u32>, b: vec2<u32>) -> vec4<u32> {
    let p0 = mul32(a.x, b.x);
    let p1 = mul32(a.x, b.y);
    let p2 = mul32(a.y, b.x);
    let p3 = mul32(a.y, b.y);
    let s = add128(vec4<u32>(p0, 0u, 0u), vec4<u32>(0u, p1, 0u));
    return add128(add128(s, vec4<u32>(0u, p2, 0u)), vec4<u32>(0u, 0u, p3));
}

/// a << s (s < 128; bits shifted past the top are lost).
fn shl128(a: vec4<u32>, s: u32) -> vec4<u32> {
    var w = array<u32, 4>(a.x, a.y, a.z, a.w);
    var r = array<u32, 4>(0u, 0u, 0u, 0u);
    let words = i32(s >> 5u);
    let bits = s & 31u;
    for (var i = 3; i >= words; i -= 1) {
        let src = i - words;
        var v = w[src] << bits;
        // a shift by 32 is not a shift in WGSL: the spill of a whole-word shift is skipped
        if bits != 0u && src >= 1 {
            v = v | (w[src - 1] >> (32u - bits));
        }
        r[i] = v;
    }
    return vec4<u32>(r[0], r[1], r[2], r[3]);
}

/// a >> s (s < 128).
fn shr128(a: vec4<u32>, s: u32) -> vec4<u32> {
    var w = array<u32, 4>(a.x, a.y, a.z, a.w);
    var r = array<u32, 4>(0u, 0u, 0u, 0u);
    let words = i32(s >> 5u);
    let bits = s & 31u;
    for (var i = 0; i + words <= 3; i += 1) {
        let src = i + words;
        var v = w[src] >> bits;
        if bits != 0u && src <= 2 {
            v = v | (w[src + 1] << (32u - bits));
        }
        r[i] = v;
    }
    return vec4<u32>(r[0], r[1], r[2], r[3]);
}

/// n / d rounded down (d ≠ 0): restoring division, a bit at a time from the top.
fn div128(n: vec4<u32>, d: vec2<u32>) -> vec4<u32> {
    var nw = array<u32, 4>(n.x, n.y, n.z, n.w);
    var q = array<u32, 4>(0u, 0u, 0u, 0u);
    var r = vec2<u32>(0u, 0u);
    for (var i = 127; i >= 0; i -= 1) {
        let bit = (nw[i >> 5u] >> u32(i & 31)) & 1u;
        // the remainder's top bit before the shift: with it the remainder is past 2^64 > d
        let top = r.y >> 31u;
        r = vec2<u32>((r.x << 1u) | bit, (r.y << 1u) | (r.x >> 31u));
        if top != 0u || ge64(r, d) {
            r = sub64(r, d);
            q[i >> 5u] = q[i >> 5u] | (1u << u32(i & 31));
        }
    }
    return vec4<u32>(q[0], q[1], q[2], q[3]);
}

/// min(a, 2^64 − 1).
fn sat64(a: vec4<u32>) -> vec2<u32> {
    if a.z != 0u || a.w != 0u {
        return vec2<u32>(0xffffffffu, 0xffffffffu);
    }
    return a.xy;
}

// ---- graph time (throng_contract::graph_time, function by function) ----

/// `weight_units`: w in [0, 1] in units of 2^-48, rounded down.
fn weight_units(w: f32) -> vec2<u32> {
    let b = bitcast<u32>(w);
    // negative, -0 and NaN are 0; 1 and more (inf) are 2^48
    if (b >> 31u) != 0u || b > 0x7f800000u {
        return vec2<u32>(0u, 0u);
    }
    if b >= 0x3f800000u {
        return vec2<u32>(0u, 1u << 16u);
    }
    let e = max(b >> 23u, 1u);
    var m = b & 0x7fffffu;
    if (b >> 23u) != 0u {
        m = m | 0x800000u;
    }
    // w · 2^48 = m · 2^(e − 102), e ≤ 126
    if e >= 102u {
        return shl128(vec4<u32>(m, 0u, 0u, 0u), e - 102u).xy;
    }
    let s = 102u - e;
    if s >= 32u {
        return vec2<u32>(0u, 0u);
    }
    return vec2<u32>(m >> s, 0u);
}

/// `weighted`: one clip's part of a cycle.
fn weighted(w: f32, span: vec2<u32>) -> vec4<u32> {
    return mul64(weight_units(w), span);
}

/// `cycle_span`: the cycle from the sum of the parts, 1 s when 0.
fn cycle_span(sum: vec4<u32>) -> vec2<u32> {
    let c = sat64(shr128(sum, GT_WEIGHT_BITS));
    if c.x == 0u && c.y == 0u {
        return vec2<u32>(0u, 1u << (GT_SPAN_BITS - 32u));
    }
    return c;
}

/// `rate`: cycles per tick (2^-64 units) at `speed` of a cycle `cycle` span units long.
fn rate(speed: f32, cycle: vec2<u32>) -> vec2<u32> {
    let b = bitcast<u32>(speed);
    // NaN, negative and zero speeds, and zero cycles, play nothing
    if (b >> 31u) != 0u || b == 0u || b > 0x7f800000u || (cycle.x == 0u && cycle.y == 0u) {
        return vec2<u32>(0u, 0u);
    }
    let exp = i32(b >> 23u);
    var m = b & 0x7fffffu;
    var e = -149;
    if exp != 0 {
        m = m | 0x800000u;
        e = exp - 150;
    }
    let shift = e + 64 + i32(GT_SPAN_BITS) - 20;
    if shift >= 0 {
        let n = shl128(vec4<u32>(m, 0u, 0u, 0u), u32(min(shift, 100)));
        return sat64(div128(n, cycle));
    }
    let k = u32(-shift);
    if k >= 32u {
        return vec2<u32>(0u, 0u);
    }
    return sat64(div128(vec4<u32>(m >> k, 0u, 0u, 0u), cycle));
}

/// `transition_span`: a length held to 2048 s.
fn transition_span(span: vec2<u32>) -> vec2<u32> {
    // 2048 · 2^40 = 2^51
    return min64(span, vec2<u32>(0u, 1u << 19u));
}

/// `cycles_span`: `units` of 2^-32 cycles of a cycle `cycle` span units long.
fn cycles_span(units: vec2<u32>, cycle: vec2<u32>) -> vec2<u32> {
    return sat64(shr128(mul64(units, cycle), 32u));
}

/// Ticks as span units (a tick is 2^20 of them).
fn tick_span(elapsed: u32) -> vec2<u32> {
    return vec2<u32>(elapsed << 20u, elapsed >> 12u);
}

/// `progress`: a transition's progress after `elapsed` ticks of `length` span units.
fn progress(elapsed: u32, length: vec2<u32>) -> f32 {
    if length.x == 0u && length.y == 0u {
        return 1.0;
    }
    let done = min64(tick_span(elapsed), length);
    let q = div128(shl128(vec4<u32>(done, 0u, 0u), 24u), length);
    return f32(q.x) * (1.0 / 16777216.0);
}

/// `reached`: whether `elapsed` ticks have reached `length` span units.
fn reached(elapsed: u32, length: vec2<u32>) -> bool {
    return ge64(tick_span(elapsed), length);
}

/// `Phase::advance`: `p + ticks · rate`, folded back by 2^29 cycles past 2^30 (ticks ≤ 2^40,
/// the clock's longest step; p.whole in [−2^29, 2^30)).
fn phase_advance(p: Phase, ticks: vec2<u32>, r: vec2<u32>) -> Advanced {
    let add = mul64(ticks, r);
    let frac = add64(p.frac, add.xy);
    // the fraction's sum overflowed when it came out below what it added to
    let carry = add64(add.zw, vec2<u32>(select(0u, 1u, !ge64(frac, p.frac)), 0u));
    // whole + carry ≥ 2^30? (whole ≥ −2^29: past 2^31 of carry it is)
    var fold = carry.y != 0u || carry.x >= 0x80000000u;
    var biased = 0u;
    if !fold {
        biased = u32(p.whole + i32(GT_FOLD)) + carry.x;
        fold = biased >= GT_FOLD_AT + GT_FOLD;
    }
    if fold {
        // 2^29 + (whole + carry) mod 2^29
        let low = (bitcast<u32>(p.whole) + carry.x) & (GT_FOLD - 1u);
        return Advanced(Phase(i32(GT_FOLD + low), frac), true);
    }
    return Advanced(Phase(i32(biased) - i32(GT_FOLD), frac), false);
}

/// `a >= b` of phases.
fn phase_ge(a: Phase, b: Phase) -> bool {
    return a.whole > b.whole || (a.whole == b.whole && ge64(a.frac, b.frac));
}

// ---- f32 division, correctly rounded ----

/// `a / b` rounded to nearest even, as IEEE 754 (and the CPU) divide, for a, b ≥ 0 (NaN,
/// infinities, zeros and subnormals included): WGSL allows a division 2.5 ulp of error, so a
/// graph step that must equal the CPU's divides by long division. A negative operand falls
/// back to the native division.
fn div_f32(a: f32, b: f32) -> f32 {
    let ab = bitcast<u32>(a);
    let bb = bitcast<u32>(b);
    if ((ab | bb) >> 31u) != 0u {
        return a / b;
    }
    // A bitcast of constant bits to NaN or infinity is a shader-creation error in WGSL (a
    // const-expression must be finite: Chromium's compiler refuses it, naga does not), so the
    // bits are or-ed with a value known only when the shader runs: the signs, both 0 here.
    let signs = (ab | bb) >> 31u;
    let nan = bitcast<f32>(0x7fc00000u | signs);
    let inf = bitcast<f32>(0x7f800000u | signs);
    if ab > 0x7f800000u || bb > 0x7f800000u {
        return nan;
    }
    if ab == 0x7f800000u {
        return select(inf, nan, bb == 0x7f800000u);
    }
    if bb == 0x7f800000u {
        return 0.0;
    }
    if bb == 0u {
        return select(inf, nan, ab == 0u);
    }
    if ab == 0u {
        return 0.0;
    }
    // significands in [2^23, 2^24) and unbiased exponents, subnormals normalised
    var ma = ab & 0x7fffffu;
    var ea = i32(ab >> 23u);
    if ea == 0 {
        let s = countLeadingZeros(ma) - 8u;
        ma = ma << s;
        ea = 1 - i32(s);
    } else {
        ma = ma | 0x800000u;
    }
    var mb = bb & 0x7fffffu;
    var eb = i32(bb >> 23u);
    if eb == 0 {
        let s = countLeadingZeros(mb) - 8u;
        mb = mb << s;
        eb = 1 - i32(s);
    } else {
        mb = mb | 0x800000u;
    }
    // the biased exponent of a quotient in [1, 2)
    var e = ea - eb + 127;
    if ma < mb {
        ma = ma << 1u;
        e -= 1;
    }
    if e >= 255 {
        return inf;
    }
    // 26 quotient bits (one whole, 25 of fraction) and whether anything remains
    var q = 0u;
    var r = ma;
    for (var k = 0; k < 26; k += 1) {
        q = q << 1u;
        if r >= mb {
            r -= mb;
            q = q | 1u;
        }
        r = r << 1u;
    }
    // keep 24 bits, or fewer for a subnormal result (exponent field 0)
    var shift = 2u;
    if e <= 0 {
        shift = u32(3 - e);
        if shift > 26u {
            return 0.0;
        }
    }
    var m = q >> shift;
    let rest = q & ((1u << shift) - 1u);
    let half = 1u << (shift - 1u);
    if rest > half || (rest == half && (r != 0u || (m & 1u) != 0u)) {
        m += 1u;
    }
    if e <= 0 {
        return bitcast<f32>(m);
    }
    // the significand's top bit adds 1 to the exponent field; a carry from rounding adds
    // another (up to infinity)
    return bitcast<f32>((u32(e - 1) << 23u) + m);
}

// ---- clip events (graph_time.rs `event_series`, `step_fraction`) ----

/// `Series`: crossings at `first + j · 2^shift` for j in `from_j..n`.
struct Series {
    first: vec4<u32>,
    from_j: u32,
    n: u32,
    shift: u32,
}

/// a − b modulo 2^128.
fn sub128(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    return add128(add128(a, ~b), vec4<u32>(1u, 0u, 0u, 0u));
}

fn ge128(a: vec4<u32>, b: vec4<u32>) -> bool {
    if a.w != b.w {
        return a.w > b.w;
    }
    if a.z != b.z {
        return a.z > b.z;
    }
    return ge64(a.xy, b.xy);
}

/// Bits of `a` up to its highest set bit (0 for 0).
fn bit_length128(a: vec4<u32>) -> u32 {
    if a.w != 0u {
        return 128u - countLeadingZeros(a.w);
    }
    if a.z != 0u {
        return 96u - countLeadingZeros(a.z);
    }
    if a.y != 0u {
        return 64u - countLeadingZeros(a.y);
    }
    return 32u - countLeadingZeros(a.x);
}

/// `Series::at`.
fn series_at(s: Series, j: u32) -> vec4<u32> {
    return add128(s.first, shl128(vec4<u32>(j, 0u, 0u, 0u), s.shift));
}

/// `biased`: p + 2^30 cycles, positive.
fn phase_biased(p: Phase) -> vec4<u32> {
    return vec4<u32>(p.frac.x, p.frac.y, bitcast<u32>(p.whole) + GT_BIAS_WHOLE, 0u);
}

/// The crossings of a repeating series at `at` (period 2^shift) from biased phase `p`.
fn repeat_series(at: vec4<u32>, p: vec4<u32>, advance: vec4<u32>, shift: u32) -> Series {
    let d = sub128(at, p);
    var first = vec4<u32>(d.x, d.y, 0u, 0u);
    if shift == 65u {
        first.z = d.z & 1u;
    }
    if ge128(first, advance) {
        return Series(vec4<u32>(0u), 0u, 0u, 0u);
    }
    let laps = shr128(sub128(sub128(advance, first), vec4<u32>(1u, 0u, 0u, 0u)), shift);
    let n = laps.x + 1u;
    return Series(first, select(0u, n - GT_EVENT_LAPS, n > GT_EVENT_LAPS), n, shift);
}

/// `event_series`.
fn event_series(start: Phase, advance: vec4<u32>, mark: vec4<u32>, cycle: u32, fresh: bool, which: u32) -> Series {
    let none = Series(vec4<u32>(0u), 0u, 0u, 0u);
    let p = phase_biased(start);
    let end = add128(p, advance);
    if ge128(advance, GT_MAX_ADVANCE) || ge128(end, GT_MAX_END) || which > 1u {
        return none;
    }
    if cycle == GT_CYCLE_STATIC {
        if fresh && which == 0u {
            return Series(vec4<u32>(0u), 0u, 1u, 0u);
        }
        return none;
    }
    if cycle == GT_CYCLE_ONCE {
        let m = add128(vec4<u32>(0u, 0u, GT_BIAS_WHOLE, 0u), mark);
        let one_cycle = vec4<u32>(0u, 0u, GT_BIAS_WHOLE + 1u, 0u);
        var cut = end;
        if ge128(end, one_cycle) {
            cut = one_cycle;
        }
        let inside = ge128(m, p) && !ge128(m, cut);
        let at_end = ge128(mark, vec4<u32>(0u, 0u, 1u, 0u)) && ge128(end, one_cycle)
            && (!ge128(p, one_cycle) || (fresh && ge128(one_cycle, p)));
        if which == 0u && (inside || at_end) {
            var first = vec4<u32>(0u);
            if ge128(m, p) {
                first = sub128(m, p);
            }
            return Series(first, 0u, 1u, 0u);
        }
        return none;
    }
    if cycle == GT_CYCLE_LOOP {
        if which == 0u {
            // an event at the end of a loop is the one at its start
            return repeat_series(vec4<u32>(mark.x, mark.y, 0u, 0u), p, advance, 64u);
        }
        return none;
    }
    if which == 0u {
        return repeat_series(mark, p, advance, 65u);
    }
    let inner = mark.z == 0u && (mark.x != 0u || mark.y != 0u);
    if inner {
        // the way back
        return repeat_series(sub128(vec4<u32>(0u, 0u, 2u, 0u), mark), p, advance, 65u);
    }
    return none;
}

/// `step_fraction`.
fn step_fraction(distance: vec4<u32>, advance: vec4<u32>) -> u32 {
    if all(advance == vec4<u32>(0u)) {
        return 0u;
    }
    let bits = bit_length128(advance);
    let shift = select(0u, bits - 64u, bits > 64u);
    var d = distance;
    if ge128(d, advance) {
        d = advance;
    }
    let q = div128(shl128(shr128(d, shift), GT_STEP_FRACTION_BITS), shr128(advance, shift).xy);
    if q.y != 0u || q.z != 0u || q.w != 0u {
        return 1u << GT_STEP_FRACTION_BITS;
    }
    return min(q.x, 1u << GT_STEP_FRACTION_BITS);
}
