// throng::decode — the GPU twin of throng_asset::decode and throng_asset::vat (docs/design.md §3):
// the decoders of every bone-texture encoding, linear blend and dual-quaternion skinning of one
// vertex, and the VAT normal decoding. Written step by step like the Rust (same operations in
// the same order) so the CPU decoder predicts what the GPU draws. Pure functions, no bindings.
//
// Matrices are glTF column-major on the Rust side; an *affine* here is a mat3x4<f32> whose
// column i holds ROW i of the 3×4 matrix [L | t], so `vec4(p, 1.0) * a` applies it.
#define_import_path throng::decode

// Rotation (unit quaternion x, y, z, w), translation (file units), uniform scale: a quat-*
// encoding's decoded entry.
struct Rts {
    q: vec4<f32>,
    t: vec3<f32>,
    s: f32,
}

// mat4-f32: the 4 texels are the columns of S_j; row r of the affine is component r of each.
fn decode_mat4_f32(c0: vec4<f32>, c1: vec4<f32>, c2: vec4<f32>, c3: vec4<f32>) -> mat3x4<f32> {
    return mat3x4<f32>(
        vec4<f32>(c0.x, c1.x, c2.x, c3.x),
        vec4<f32>(c0.y, c1.y, c2.y, c3.y),
        vec4<f32>(c0.z, c1.z, c2.z, c3.z),
    );
}

// mat3x4-f32 / mat3x4-f16: the 3 texels are the rows of the affine part (an Rgba16Float texture
// already returns f32 from textureLoad).
fn decode_mat3x4(r0: vec4<f32>, r1: vec4<f32>, r2: vec4<f32>) -> mat3x4<f32> {
    return mat3x4<f32>(r0, r1, r2);
}

// mat3x4-snorm16: the 3 texels are the rows of the affine part as snorm16, each row's linear
// part (x, y, z) over scale_range and its translation (w) over translation_range. CPU twin:
// throng_asset::decode::skin_matrix.
fn decode_mat3x4_snorm16(t0: vec4<i32>, t1: vec4<i32>, t2: vec4<i32>, translation_range: f32, scale_range: f32) -> mat3x4<f32> {
    let k = vec4<f32>(scale_range, scale_range, scale_range, translation_range);
    return mat3x4<f32>(decode_snorm16(t0) * k, decode_snorm16(t1) * k, decode_snorm16(t2) * k);
}

// q / |q|, or the identity for a zero quaternion (a damaged texture gives the identity, not NaN).
// CPU twin: glam's Vec4::normalize_or(Vec4::W) in throng_asset::decode::quat_texels.
fn quat_normalize_or_identity(q: vec4<f32>) -> vec4<f32> {
    let len = length(q);
    if (len > 0.0) {
        return q * (1.0 / len);
    }
    return vec4<f32>(0.0, 0.0, 0.0, 1.0);
}

// quat-f32: texel 0 = quaternion (renormalised), texel 1 = (translation, uniform scale).
fn decode_quat_f32(t0: vec4<f32>, t1: vec4<f32>) -> Rts {
    return Rts(quat_normalize_or_identity(t0), t1.xyz, t1.w);
}

// Signed-normalised 16-bit integer → [-1, 1] (WebGPU/Vulkan snorm rule: -32768 maps to -1).
fn decode_snorm16(v: vec4<i32>) -> vec4<f32> {
    return max(vec4<f32>(v) / 32767.0, vec4<f32>(-1.0));
}

// quat-snorm16: both texels snorm16; the quaternion is renormalised (16-bit rounding leaves
// its length within ~3e-5 of 1), translation and scale are rescaled by the bake's ranges.
fn decode_quat_snorm16(t0: vec4<i32>, t1: vec4<i32>, translation_range: f32, scale_range: f32) -> Rts {
    let q = decode_snorm16(t0);
    let ts = decode_snorm16(t1);
    return Rts(quat_normalize_or_identity(q), ts.xyz * translation_range, ts.w * scale_range);
}

// [s·R(q) | t] as an affine (rows), R from a unit quaternion (same formula as glam's
// Mat3::from_quat).
fn rts_to_affine(x: Rts) -> mat3x4<f32> {
    let q = x.q;
    let x2 = q.x + q.x;
    let y2 = q.y + q.y;
    let z2 = q.z + q.z;
    let xx = q.x * x2;
    let xy = q.x * y2;
    let xz = q.x * z2;
    let yy = q.y * y2;
    let yz = q.y * z2;
    let zz = q.z * z2;
    let wx = q.w * x2;
    let wy = q.w * y2;
    let wz = q.w * z2;
    let s = x.s;
    return mat3x4<f32>(
        vec4<f32>((1.0 - (yy + zz)) * s, (xy - wz) * s, (xz + wy) * s, x.t.x),
        vec4<f32>((xy + wz) * s, (1.0 - (xx + zz)) * s, (yz - wx) * s, x.t.y),
        vec4<f32>((xz - wy) * s, (yz + wx) * s, (1.0 - (xx + yy)) * s, x.t.z),
    );
}

// ---- quaternion / dual-quaternion helpers (Kavan et al. 2007, "Skinning with dual quaternions") ----

fn quat_mul(a: vec4<f32>, b: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(a.w * b.xyz + b.w * a.xyz + cross(a.xyz, b.xyz), a.w * b.w - dot(a.xyz, b.xyz));
}

// Rotates v by a unit quaternion: v + 2 · r × (r × v + w · v).
fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let r = q.xyz;
    return v + 2.0 * cross(r, cross(r, v) + q.w * v);
}

// normalize() that maps a zero vector to zero instead of NaN (glam's normalize_or_zero).
fn normalize_or_zero(v: vec3<f32>) -> vec3<f32> {
    let len = length(v);
    if (len > 0.0) {
        return v * (1.0 / len);
    }
    return vec3<f32>(0.0);
}

fn sign_or_one(x: f32) -> f32 {
    return select(1.0, -1.0, x < 0.0);
}

// Skinned vertex attributes in model space.
struct Skinned {
    position: vec3<f32>,
    normal: vec3<f32>,
    // xyz and handedness w.
    tangent: vec4<f32>,
}

// The largest row length of an affine [L | t] stored as rows: its scale for uniform scales, and
// how much it can stretch a length for any other.
fn affine_scale(m: mat3x4<f32>) -> f32 {
    return max(length(m[0].xyz), max(length(m[1].xyz), length(m[2].xyz)));
}

// The cofactor columns [c1×c2, c2×c0, c0×c1] = det(L) · L⁻ᵀ of the linear part L (columns
// c0, c1, c2) of an affine [L | t] stored as rows; det(L) = c0 · (c1×c2).
fn affine_cofactors(m: mat3x4<f32>) -> mat3x3<f32> {
    let c0 = vec3<f32>(m[0].x, m[1].x, m[2].x);
    let c1 = vec3<f32>(m[0].y, m[1].y, m[2].y);
    let c2 = vec3<f32>(m[0].z, m[1].z, m[2].z);
    return mat3x3<f32>(cross(c1, c2), cross(c2, c0), cross(c0, c1));
}

// Linear blend skinning with a blended affine: position by the full affine, normal by the
// inverse-transpose of its 3×3 (cofactor rows / det; only the direction matters, so the sign of
// det is kept and the division dropped), tangent by the 3×3 itself with w flipped where det < 0
// (docs/design.md §2). CPU twin: throng_asset::decode::{lbs_point, lbs_normal, lbs_tangent},
// written on the columns c0..c3 of [L | t] in the same order.
fn apply_affine(m: mat3x4<f32>, p: vec3<f32>, n: vec3<f32>, t: vec4<f32>) -> Skinned {
    let c0 = vec3<f32>(m[0].x, m[1].x, m[2].x);
    let c1 = vec3<f32>(m[0].y, m[1].y, m[2].y);
    let c2 = vec3<f32>(m[0].z, m[1].z, m[2].z);
    let c3 = vec3<f32>(m[0].w, m[1].w, m[2].w);
    let k = affine_cofactors(m);
    let k0 = k[0];
    let k1 = k[1];
    let k2 = k[2];
    let det = dot(c0, k0);
    let sgn = sign_or_one(det);
    var out: Skinned;
    out.position = c0 * p.x + c1 * p.y + c2 * p.z + c3;
    out.normal = normalize_or_zero((k0 * n.x + k1 * n.y + k2 * n.z) * sgn);
    out.tangent = vec4<f32>(normalize_or_zero(c0 * t.x + c1 * t.y + c2 * t.z), t.w * sgn);
    return out;
}

// Dual-quaternion linear blending: every (influence, layer, frame) term becomes a unit dual
// quaternion weighted by w_i · (w_l · (1 − f_l)) or w_i · (w_l · f_l); each is flipped into the
// hemisphere of the first term of non-zero weight (the pivot), summed, then normalised by
// |Σ real|. Uniform scale is blended linearly with the same weights (never flipped) and applied
// before the rotation, as in [s·R | t]. CPU twin: throng_asset::decode::{DualQuat, DqBlend}.
struct DqAcc {
    real: vec4<f32>,
    dual: vec4<f32>,
    scale: f32,
    pivot: vec4<f32>,
    has_pivot: bool,
}

fn dq_add(acc: ptr<function, DqAcc>, w: f32, x: Rts) {
    if (w == 0.0) {
        return;
    }
    // Dual part of the unit dual quaternion of (q, t): ½ · (t, 0) · q.
    dq_add_parts(acc, w, x.q, quat_mul(vec4<f32>(x.t, 0.0), x.q) * 0.5, x.s);
}

// Adds w · (real + ε · dual) with its scale: the term of `dq_add`, or (the palette path,
// docs/design.md §5) an already blended, unnormalised dual quaternion of one palette entry —
// its real part need not be unit, only its direction decides the hemisphere.
fn dq_add_parts(acc: ptr<function, DqAcc>, w: f32, real: vec4<f32>, dual: vec4<f32>, scale: f32) {
    if (w == 0.0) {
        return;
    }
    if (!(*acc).has_pivot) {
        (*acc).pivot = real;
        (*acc).has_pivot = true;
    }
    let ws = select(w, -w, dot(real, (*acc).pivot) < 0.0);
    (*acc).real += real * ws;
    (*acc).dual += dual * ws;
    (*acc).scale += scale * w;
}

// The blended dual quaternion applied to one vertex.
fn dq_apply(acc: DqAcc, p: vec3<f32>, n: vec3<f32>, t: vec4<f32>) -> Skinned {
    var r = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    var d = vec4<f32>(0.0);
    var s = 1.0;
    let len = length(acc.real);
    if (len > 0.0) {
        let inv = 1.0 / len;
        r = acc.real * inv;
        d = acc.dual * inv;
        s = acc.scale;
    }
    // Translation 2 · (d · conj(r)).xyz = 2 · (w_r · d − w_d · r + r × d).
    let tr = 2.0 * (r.w * d.xyz - d.w * r.xyz + cross(r.xyz, d.xyz));
    let sgn = sign_or_one(s);
    var out: Skinned;
    out.position = quat_rotate(r, p * s) + tr;
    out.normal = normalize_or_zero(quat_rotate(r, n) * sgn);
    out.tangent = vec4<f32>(quat_rotate(r, t.xyz) * sgn, t.w * sgn);
    return out;
}

// ---- VAT decoding (CPU twin: throng_asset::vat) ----

// unorm16 VAT position: min + q / 65535 · (max − min), per axis.
fn vat_unorm16_position(q: vec3<u32>, lo: vec3<f32>, hi: vec3<f32>) -> vec3<f32> {
    return lo + (vec3<f32>(q) / 65535.0) * (hi - lo);
}

fn sign_nz(x: f32) -> f32 {
    return select(-1.0, 1.0, x >= 0.0);
}

// Octahedral (u, v) ∈ [−1, 1]² → unit vector (Cigolle et al. 2014, JCGT 3(2), §3.1).
fn oct_unwrap(e: vec2<f32>) -> vec3<f32> {
    let z = 1.0 - abs(e.x) - abs(e.y);
    var x = e.x;
    var y = e.y;
    if (z < 0.0) {
        x = (1.0 - abs(e.y)) * sign_nz(e.x);
        y = (1.0 - abs(e.x)) * sign_nz(e.y);
    }
    return normalize_or_zero(vec3<f32>(x, y, z));
}

// A VAT normal texel (two snorm16) → unit vector.
fn vat_normal_decode(q: vec2<i32>) -> vec3<f32> {
    return oct_unwrap(max(vec2<f32>(q) / 32767.0, vec2<f32>(-1.0)));
}
