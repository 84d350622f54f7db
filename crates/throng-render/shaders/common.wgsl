// common.wgsl: the contracts shared by every throng shader (composed by concatenation: WGSL
// has no imports). Mirrors the Rust side: throng_asset::Layer, the runtime's 64 B record, the
// 48 B instance transform, crate::gpu_types::{GpuClip, BoneParams}. Matrices are glTF
// column-major on the Rust side; an *affine* here is a mat3x4<f32> whose column i holds ROW i
// of the 3×4 affine matrix [L | t], so `vec4(p, 1.0) * a` applies it (three dot products).

// One layer of the CPU-timed record (DESIGN.md §4): weight, frac = weight of row + 1, global
// frame-table row as f32, clip index as f32.
struct Layer {
    weight: f32,
    frac: f32,
    row: f32,
    clip: f32,
}

// CPU-timed per-instance record: 4 layers, 64 B.
struct InstanceRecord {
    layers: array<Layer, 4>,
}

// Model transform of an instance: the 3 rows of its 3×4 affine matrix, 48 B.
struct InstanceTransform {
    rows: array<vec4<f32>, 3>,
}

// One clip of the frame table (crate::gpu_types::GpuClip), 48 B.
struct Clip {
    first_row: u32,
    frames: u32,
    _pad0: u32,
    _pad1: u32,
    bounds_min: vec4<f32>,
    bounds_max: vec4<f32>,
}

// Bone texture description (crate::gpu_types::BoneParams), 32 B.
struct BoneParams {
    entries: u32,
    rows: u32,
    rows_per_layer: u32,
    clip_count: u32,
    // quat-snorm16: translation = snorm · translation_range (file units).
    translation_range: f32,
    // quat-snorm16: uniform scale = snorm · scale_range.
    scale_range: f32,
    _pad0: f32,
    _pad1: f32,
}

// Rotation (unit quaternion x, y, z, w), translation (file units), uniform scale: the quat-*
// encodings' decoded entry.
struct Rts {
    q: vec4<f32>,
    t: vec3<f32>,
    s: f32,
}

fn instance_affine(x: InstanceTransform) -> mat3x4<f32> {
    return mat3x4<f32>(x.rows[0], x.rows[1], x.rows[2]);
}

// ---- decoders of every bone-texture encoding (DESIGN.md §3; CPU twin: throng_asset::decode) ----

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

// Linear blend skinning with a blended affine: position by the full affine, normal by the
// inverse-transpose of its 3×3 (cofactor rows / det; only the direction matters, so the sign of
// det is kept and the division dropped), tangent by the 3×3 itself with w flipped where det < 0
// (DESIGN.md §2).
// CPU twin: throng_asset::decode::{lbs_point, lbs_normal, lbs_tangent}, written on the columns
// c0..c3 of [L | t] in the same order.
fn apply_affine(m: mat3x4<f32>, p: vec3<f32>, n: vec3<f32>, t: vec4<f32>) -> Skinned {
    let c0 = vec3<f32>(m[0].x, m[1].x, m[2].x);
    let c1 = vec3<f32>(m[0].y, m[1].y, m[2].y);
    let c2 = vec3<f32>(m[0].z, m[1].z, m[2].z);
    let c3 = vec3<f32>(m[0].w, m[1].w, m[2].w);
    // Cofactor columns [c1×c2, c2×c0, c0×c1] = det(L) · L⁻ᵀ.
    let k0 = cross(c1, c2);
    let k1 = cross(c2, c0);
    let k2 = cross(c0, c1);
    let det = dot(c0, k0);
    let sgn = sign_or_one(det);
    var out: Skinned;
    out.position = c0 * p.x + c1 * p.y + c2 * p.z + c3;
    out.normal = normalize_or_zero((k0 * n.x + k1 * n.y + k2 * n.z) * sgn);
    out.tangent = vec4<f32>(normalize_or_zero(c0 * t.x + c1 * t.y + c2 * t.z), t.w * sgn);
    return out;
}
