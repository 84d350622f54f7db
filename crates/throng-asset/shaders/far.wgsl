// throng::far — what a far-tier card shows (docs/design.md §3 "Far tier"): the GPU twin of
// throng_asset::FarTier's `view_taps`, `frame_taps_at`, `sample` and `shown_at`. Pure functions:
// the tier's two pictures come in as textures (RGBA8 `Rgba8Unorm` atlases of tiles, `columns`
// tiles a row; colour stored sRGB-encoded and decoded here, so filtering happens on linear
// values exactly as the CPU twin does it), its material variants' colour maps as an
// `Rgba32Float` texture (throng_asset::gpu::far::FarAtlas::variant_colours) and its layout as a
// FarParams (Rust twin throng_asset::gpu::far::FarParams).
#define_import_path throng::far

#import throng::decode::{affine_scale, affine_cofactors}
#import throng::appearance::{Appearance, shows_part}

struct FarParams {
    // Centre (model space, file units) and radius of the sphere every tile frames.
    sphere: vec4<f32>,
    // Texels per tile side, azimuths, elevations, tiles per atlas row.
    grid: vec4<u32>,
    // Between elevations i and i + 1 (the first `grid.z − 1`): the sine of their midpoint.
    // A view direction whose y is above it is nearer elevation i + 1 (comparing sines, not
    // angles: a GPU's asin is too coarse to split directions as the CPU twin does).
    elevation_bounds: array<vec4<f32>, 2>,
}

// One clip's frames in the tier (Rust twin throng_asset::gpu::far::FarClipWords).
struct FarClip {
    first_frame: u32,
    frames: u32,
    // 1: the frames close on the first (a looping clip).
    looped: u32,
    pad: u32,
}

// A tap: an index (a view, or a frame among all of the tier's) and its weight.
struct FarTap {
    index: u32,
    weight: f32,
}

// What the tier shows at one point: linear base colour, covered share, and the mean normal of
// the covered samples (model space, length ≤ 1).
struct FarTexel {
    albedo: vec3<f32>,
    coverage: f32,
    normal: vec3<f32>,
}

const FAR_TAU: f32 = 6.283185307179586;

fn far_elevation_bound(p: FarParams, e: u32) -> f32 {
    return p.elevation_bounds[e / 4u][e % 4u];
}

// The two views around `toward` (model space, from the character towards the eye; any
// length): the azimuths on either side, linear in the angle, at the nearest elevation.
fn far_view_taps(p: FarParams, toward: vec3<f32>) -> array<FarTap, 2> {
    var d = vec3<f32>(0.0, 0.0, 1.0);
    let len = length(toward);
    if (len > 0.0) {
        d = toward / len;
    }
    let n = max(p.grid.y, 1u);
    // Straight up or down every azimuth is the same view; atan2(0, 0) is undefined in WGSL.
    var az = 0.0;
    if (abs(d.x) + abs(d.z) > 1e-6) {
        az = atan2(d.x, d.z);
    }
    if (az < 0.0) {
        az += FAR_TAU;
    }
    let x = az / FAR_TAU * f32(n);
    let a0 = u32(floor(x)) % n;
    let f = x - floor(x);
    var e = 0u;
    for (var i = 0u; i + 1u < p.grid.z; i++) {
        if (d.y > far_elevation_bound(p, i)) {
            e = i + 1u;
        }
    }
    return array<FarTap, 2>(FarTap(e * n + a0, 1.0 - f), FarTap(e * n + (a0 + 1u) % n, f));
}

// The two frames of clip `c` around frame coordinate `x` and their weights.
fn far_frame_taps(c: FarClip, x: f32) -> array<FarTap, 2> {
    let n = max(c.frames, 1u);
    let xc = clamp(x, 0.0, f32(n));
    let k = min(u32(floor(xc)), n - 1u);
    let f = clamp(xc - f32(k), 0.0, 1.0);
    var next = min(k + 1u, n - 1u);
    if (c.looped == 1u) {
        next = (k + 1u) % n;
    }
    return array<FarTap, 2>(FarTap(c.first_frame + k, 1.0 - f), FarTap(c.first_frame + next, f));
}

// The sRGB transfer function, code in [0, 1] to linear.
fn far_srgb_decode(c: f32) -> f32 {
    if (c <= 0.04045) {
        return c / 12.92;
    }
    return pow((c + 0.055) / 1.055, 2.4);
}

// Material variant `variant`'s colour where the tier stored `own` (linear) on a texel showing
// primitive `prim`: clamp(M · own + b, 0, 1) by the variant's map of that primitive (row
// variant − 1 of `maps`, texels 3·prim .. 3·prim + 2 the rows of [M | b]), or `own` where there
// is none (variant 0, past the maps, or a primitive they do not hold).
fn far_variant_colour(maps: texture_2d<f32>, variant: u32, prim: u32, own: vec3<f32>) -> vec3<f32> {
    let size = textureDimensions(maps);
    if (variant == 0u || variant > size.y || prim >= size.x / 3u) {
        return own;
    }
    let at = vec2<i32>(i32(3u * prim), i32(variant - 1u));
    let c = vec4<f32>(own, 1.0);
    let r0 = textureLoad(maps, at, 0);
    let r1 = textureLoad(maps, at + vec2<i32>(1, 0), 0);
    let r2 = textureLoad(maps, at + vec2<i32>(2, 0), 0);
    return clamp(vec3<f32>(dot(r0, c), dot(r1, c), dot(r2, c)), vec3<f32>(0.0), vec3<f32>(1.0));
}

// Tile `tile`'s texel (i, j), clamped to the tile, as an instance of appearance `look` shows it:
// linear colour in its material variant and coverage (0 where its part mask hides the texel's
// primitive), and the normal.
fn far_texel(colour: texture_2d<f32>, surface: texture_2d<f32>, maps: texture_2d<f32>, p: FarParams, tile: u32, i: i32, j: i32, look: Appearance) -> array<vec4<f32>, 2> {
    let n = i32(p.grid.x);
    let cols = max(p.grid.w, 1u);
    let origin = vec2<i32>(i32(tile % cols), i32(tile / cols)) * n;
    let at = origin + vec2<i32>(clamp(i, 0, n - 1), clamp(j, 0, n - 1));
    let c = textureLoad(colour, at, 0);
    let s = textureLoad(surface, at, 0);
    let prim = u32(round(s.a * 255.0));
    var lin = vec3<f32>(far_srgb_decode(c.r), far_srgb_decode(c.g), far_srgb_decode(c.b));
    if (look.variant != 0u) {
        lin = far_variant_colour(maps, look.variant, prim, lin);
    }
    let coverage = select(0.0, c.a, shows_part(look, prim));
    return array<vec4<f32>, 2>(vec4<f32>(lin, coverage), vec4<f32>(s.rgb * (255.0 / 127.5) - 1.0, 0.0));
}

// Tile `tile` at `uv` (0..1 across, from the top-left) in appearance `look`, bilinear with
// clamped edges.
fn far_sample(colour: texture_2d<f32>, surface: texture_2d<f32>, maps: texture_2d<f32>, p: FarParams, tile: u32, uv: vec2<f32>, look: Appearance) -> FarTexel {
    let n = f32(p.grid.x);
    let x = uv.x * n - 0.5;
    let y = uv.y * n - 0.5;
    let fx = x - floor(x);
    let fy = y - floor(y);
    let i = i32(floor(x));
    let j = i32(floor(y));
    let a = far_texel(colour, surface, maps, p, tile, i, j, look);
    let b = far_texel(colour, surface, maps, p, tile, i + 1, j, look);
    let c = far_texel(colour, surface, maps, p, tile, i, j + 1, look);
    let d = far_texel(colour, surface, maps, p, tile, i + 1, j + 1, look);
    let col = mix(mix(a[0], b[0], fx), mix(c[0], d[0], fx), fy);
    let nrm = mix(mix(a[1], b[1], fx), mix(c[1], d[1], fx), fy);
    return FarTexel(col.rgb, col.a, nrm.xyz);
}

// The four tiles a card blends — two frames × two views — and their weights (frame-major).
struct FarTaps {
    tiles: vec4<u32>,
    weights: vec4<f32>,
}

// The taps of clip `c` at frame coordinate `x` seen from `toward` (model space).
fn far_taps(p: FarParams, c: FarClip, x: f32, toward: vec3<f32>) -> FarTaps {
    let frames = far_frame_taps(c, x);
    let views = far_view_taps(p, toward);
    let views_per_frame = max(p.grid.y, 1u) * p.grid.z;
    var t: FarTaps;
    for (var fi = 0u; fi < 2u; fi++) {
        for (var vi = 0u; vi < 2u; vi++) {
            t.tiles[2u * fi + vi] = frames[fi].index * views_per_frame + views[vi].index;
            t.weights[2u * fi + vi] = frames[fi].weight * views[vi].weight;
        }
    }
    return t;
}

// The taps' tiles at `uv` in appearance `look` blended with their weights — coverage as it is,
// colour and normal weighted by coverage and divided by the blended coverage.
fn far_blend(colour: texture_2d<f32>, surface: texture_2d<f32>, maps: texture_2d<f32>, p: FarParams, t: FarTaps, uv: vec2<f32>, look: Appearance) -> FarTexel {
    var albedo = vec3<f32>(0.0);
    var normal = vec3<f32>(0.0);
    var coverage = 0.0;
    for (var k = 0u; k < 4u; k++) {
        let w = t.weights[k];
        if (w == 0.0) {
            continue;
        }
        let s = far_sample(colour, surface, maps, p, t.tiles[k], uv, look);
        albedo += s.albedo * (s.coverage * w);
        normal += s.normal * (s.coverage * w);
        coverage += s.coverage * w;
    }
    if (coverage > 0.0) {
        albedo /= coverage;
        normal /= coverage;
    }
    return FarTexel(albedo, coverage, normal);
}

// What a card shows at `uv` of clip `c` at frame coordinate `x` in appearance `look`, seen from
// `toward` (model space): far_blend of far_taps.
fn far_shown(colour: texture_2d<f32>, surface: texture_2d<f32>, maps: texture_2d<f32>, p: FarParams, c: FarClip, x: f32, toward: vec3<f32>, uv: vec2<f32>, look: Appearance) -> FarTexel {
    return far_blend(colour, surface, maps, p, far_taps(p, c, x, toward), uv, look);
}

// The tier's sphere (`sphere`: model centre, radius) placed by an instance's affine `m`: world
// centre (xyz) and radius (w, by the largest row length, so it holds the placed character).
fn far_placed_sphere(m: mat3x4<f32>, sphere: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(vec4<f32>(sphere.xyz, 1.0) * m, sphere.w * affine_scale(m));
}

// The share of an instance its far card shows while it crossfades with its coarsest mesh
// (docs/design.md §5 "Far tier"): 0 all mesh, 1 all card. It follows how many pixels one texel of
// the tier covers — `texel` model units (the far level's simplification error, 2r / tile) grown
// by the instance's scale, seen from `eye` (xyz, world; w the pixels a length of 1 covers at a
// distance of 1) at the nearest point of the placed sphere: the card starts to show where the
// texel covers `band.x` pixels (the LOD bias) and shows alone `band.y` pixels below that (0: a
// hard switch at `band.x`). The culling pass lists the mesh where the share is below 1 and the
// card where it is above 0; both draws keep complementary halves of one screen-door pattern.
// CPU twin: throng_asset::far_tier::card_share.
fn far_share(m: mat3x4<f32>, sphere: vec4<f32>, texel: f32, eye: vec4<f32>, band: vec2<f32>) -> f32 {
    let s = far_placed_sphere(m, sphere);
    let dist = max(length(s.xyz - eye.xyz) - s.w, 1e-6);
    let pixels = texel * affine_scale(m) * eye.w / dist;
    if (band.y <= 0.0) {
        return select(0.0, 1.0, pixels <= band.x);
    }
    return clamp((band.x - pixels) / band.y, 0.0, 1.0);
}

// The ordered-dither threshold at framebuffer position `frag`: a 4×4 Bayer matrix, (k + 0.5) / 16.
fn far_dither_threshold(frag: vec2<f32>) -> f32 {
    let p = vec2<u32>(frag) & vec2<u32>(3u);
    let bayer = array<f32, 16>(0.0, 8.0, 2.0, 10.0, 12.0, 4.0, 14.0, 6.0, 3.0, 11.0, 1.0, 9.0, 15.0, 7.0, 13.0, 5.0);
    return (bayer[p.y * 4u + p.x] + 0.5) / 16.0;
}

// The crossfade between a card and its mesh as a screen door: at share s the card keeps the
// fragments whose threshold is below s and the mesh the others, so together they cover the
// character once. The same matrix as the card's coverage dither, shifted by (2, 1) so the two
// patterns do not line up.
fn far_fade_threshold(frag: vec2<f32>) -> f32 {
    return far_dither_threshold(frag + vec2<f32>(2.0, 1.0));
}

// Whether a card shows at a fragment of framebuffer position `frag` with covered share
// `coverage`: above an ordered-dither threshold, so the card is drawn opaque, like every throng
// material, yet a thin part covering a third of its texels shows on about a third of its
// pixels — as a mesh drawn with one sample a pixel shows it — instead of vanishing under a fixed
// threshold of one half. Near the switch it keeps only its share of the crossfade's screen door.
fn far_covered(frag: vec2<f32>, coverage: f32, share: f32) -> bool {
    return coverage > far_dither_threshold(frag) && far_card_half(frag, share);
}

// Whether framebuffer position `frag` is in the card's half of the crossfade's screen door at
// share `share` (0: none of it): the card keeps such fragments and the mesh discards them.
fn far_card_half(frag: vec2<f32>, share: f32) -> bool {
    return share > 0.0 && far_fade_threshold(frag) < share;
}

// A card of an instance placed by affine `m`, facing `toward_world` (from the tier's sphere
// centre towards the viewer, world): the direction in model space, the card's right and up axes
// there (through the sphere centre), and det(L) · L⁻ᵀ of the instance's linear part by columns
// with the sign of det(L) (model normals to world, orientation kept).
struct FarCardAxes {
    toward: vec3<f32>,
    right: vec3<f32>,
    up: vec3<f32>,
    kx: vec3<f32>,
    ky: vec3<f32>,
    kz: vec3<f32>,
}

fn far_card_axes(m: mat3x4<f32>, toward_world: vec3<f32>) -> FarCardAxes {
    let k = affine_cofactors(m);
    let det = dot(vec3<f32>(m[0].x, m[1].x, m[2].x), k[0]);
    // L⁻¹ d up to a positive factor: the direction in model space.
    var toward = vec3<f32>(dot(k[0], toward_world), dot(k[1], toward_world), dot(k[2], toward_world));
    if (det < 0.0) {
        toward = -toward;
    }
    let d = normalize(toward);
    var right = cross(vec3<f32>(0.0, 1.0, 0.0), d);
    if (dot(right, right) < 1e-12) {
        right = vec3<f32>(1.0, 0.0, 0.0);
    }
    right = normalize(right);
    let s = sign(det);
    return FarCardAxes(toward, right, cross(d, right), k[0] * s, k[1] * s, k[2] * s);
}

// The model-space point (a, b) of a card (−1..1 along its right and up axes) framing the tier's
// sphere (`sphere`: model centre, radius).
fn far_card_point(sphere: vec4<f32>, axes: FarCardAxes, ab: vec2<f32>) -> vec3<f32> {
    return sphere.xyz + sphere.w * (ab.x * axes.right + ab.y * axes.up);
}

// The point (a, b) of a card (as far_card_point; placed by the instance's affine `m`) that the
// ray through `ndc` (normalised device coordinates of `view_proj`) meets — where a one-pixel
// card's point shows what its quad shows at that pixel's centre. With the card's centre and its
// axes scaled to the corners in clip space, the ray is where clip.xy = ndc · clip.w: two linear
// equations in (a, b). A ray parallel to the card gives a non-finite (a, b), which fails every
// |a|, |b| ≤ 1 test.
fn far_card_at_ndc(m: mat3x4<f32>, sphere: vec4<f32>, axes: FarCardAxes, view_proj: mat4x4<f32>, ndc: vec2<f32>) -> vec2<f32> {
    let qc = view_proj * vec4<f32>(vec4<f32>(sphere.xyz, 1.0) * m, 1.0);
    let qr = view_proj * vec4<f32>(vec4<f32>(axes.right * sphere.w, 0.0) * m, 0.0);
    let qu = view_proj * vec4<f32>(vec4<f32>(axes.up * sphere.w, 0.0) * m, 0.0);
    let fc = qc.xy - ndc * qc.w;
    let fr = qr.xy - ndc * qr.w;
    let fu = qu.xy - ndc * qu.w;
    let det = fr.x * fu.y - fu.x * fr.y;
    return vec2<f32>(fu.x * fc.y - fc.x * fu.y, fc.x * fr.y - fr.x * fc.y) / det;
}

// The part of a card that its taps show something in, as (a0, b0, a1, b1): its lower-left and
// upper-right corners (−1..1 along the card's right and up axes). `rects` are the four taps'
// tile rects (throng_asset::gpu::far::tile_rects: x0 | y0 << 8 | x1 << 16 | y1 << 24, inclusive
// texels from the top-left; x0 > x1 an empty tile), `weights` the taps' weights, `tile` the
// texels a tile side. The union of the rects of the taps of nonzero weight; a card none of whose
// taps shows anything is a point. Outside it every tap's filtered coverage is 0, so a card drawn
// over it shows what the whole square shows with fewer fragments. Rust twin
// throng_asset::gpu::far::taps_extent.
fn far_taps_extent(rects: vec4<u32>, weights: vec4<f32>, tile: u32) -> vec4<f32> {
    var lo = vec2<u32>(255u);
    var hi = vec2<u32>(0u);
    for (var k = 0u; k < 4u; k++) {
        let r = rects[k];
        let r0 = vec2<u32>(r & 255u, (r >> 8u) & 255u);
        let r1 = vec2<u32>((r >> 16u) & 255u, r >> 24u);
        if (weights[k] > 0.0 && r0.x <= r1.x) {
            lo = min(lo, r0);
            hi = max(hi, r1);
        }
    }
    if (lo.x > hi.x) {
        return vec4<f32>(0.0);
    }
    let n = f32(max(tile, 1u));
    // Texel columns lo.x ..= hi.x span u in [lo.x, hi.x + 1] / n, and a = 2u − 1; rows lo.y ..=
    // hi.y span v likewise, and b = 1 − 2v (far_card_uv), the top rows the upper b.
    let u = vec2<f32>(f32(lo.x), f32(hi.x + 1u)) / n;
    let v = vec2<f32>(f32(lo.y), f32(hi.y + 1u)) / n;
    let a = clamp(u * 2.0 - 1.0, vec2<f32>(-1.0), vec2<f32>(1.0));
    let b = clamp(vec2<f32>(1.0) - 2.0 * vec2<f32>(v.y, v.x), vec2<f32>(-1.0), vec2<f32>(1.0));
    return vec4<f32>(a.x, b.x, a.y, b.y);
}

// Corner `v` of a card's part `extent` (far_taps_extent), as (a, b): bit 0 the right side, bit 1
// the upper (the card's indices are throng_asset::gpu::far::CARD_INDICES).
fn far_extent_corner(extent: vec4<f32>, v: u32) -> vec2<f32> {
    return vec2<f32>(select(extent.x, extent.z, (v & 1u) == 1u), select(extent.y, extent.w, (v & 2u) == 2u));
}

// The place on the card (0..1 from its top-left) of its point (a, b).
fn far_card_uv(ab: vec2<f32>) -> vec2<f32> {
    return vec2<f32>(ab.x * 0.5 + 0.5, 0.5 - ab.y * 0.5);
}

// A card's model normal `n` (the tier's mean normal, length ≤ 1) in world space,
// keeping its length: a Lambert term of it stays the mean of the covered samples'.
// (`kx`..`kz`: FarCardAxes's.)
fn far_world_normal(kx: vec3<f32>, ky: vec3<f32>, kz: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    let nw = kx * n.x + ky * n.y + kz * n.z;
    return normalize(nw) * length(n);
}

// The heaviest base layer among an instance's four shown ones (its index).
fn far_base_layer(base: vec4<bool>, weights: vec4<f32>) -> u32 {
    var best = 0u;
    var w = -1.0;
    for (var i = 0u; i < 4u; i++) {
        if (base[i] && weights[i] > w) {
            w = weights[i];
            best = i;
        }
    }
    return best;
}

// The frame coordinate between two frame-table rows of frame coordinates `x0` and `x1` in a
// clip of `frames` far frames, at `frac` from the first: across a looping clip's seam the next
// row is the first again, one period on.
fn far_frame_x(x0: f32, x1: f32, frames: u32, frac: f32) -> f32 {
    var next = x1;
    if (next < x0) {
        next += f32(max(frames, 1u));
    }
    return mix(x0, next, frac);
}
