//! Frustum culling and LOD selection on the CPU: the downlevel mode's culling pass
//! (docs/downlevel.md), the twin of `shaders/cull.wgsl`'s `cs_cull` without occlusion culling
//! and palette lists, line by line, on the same [`CullParams`] the GPU pass gets — the same
//! boxes, planes, LOD rule and shadow rules, so both keep the same instances
//! (`tests/downlevel.rs` compares the lists). One pass over the instances, no allocation but
//! the lists.

use glam::{Vec2, Vec3, Vec4};
use throng_contract::{GpuClipTable, InstanceRecord, InstanceTransform, Layer, CLIP_MASK};

use crate::gpu_types::CullParams;
use crate::passes::cull::CullLists;

/// What culling reads of an asset and a crowd.
pub(crate) struct CpuCullInput<'a> {
    pub params: &'a CullParams,
    pub clips: &'a GpuClipTable,
    /// Frame-table rows (the bone texture's).
    pub rows: u32,
    /// Per row (min, 0), (max, 0); an empty row's min exceeds its max.
    pub row_bounds: &'a [[f32; 4]],
    pub transforms: &'a [InstanceTransform],
    /// Every instance's layers as the shaders see them (`instance_layers`: GPU-timed records
    /// already derived at the clock).
    pub layers: &'a [InstanceRecord],
}

/// A world-space box: centre, half extent, and the largest row length of the instance's
/// linear part.
struct WorldBox {
    centre: Vec3,
    half: Vec3,
    scale: f32,
}

fn v3(a: [f32; 4]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

/// Whether a layer is an overlay (`layer_is_overlay`): under a mask, or of an additive clip.
fn is_overlay(l: &Layer, clips: &GpuClipTable) -> bool {
    let clip = clips.clip(l.clip_index());
    let known = l.clip_index() < clips.clips.len() as u32;
    l.mask() != 0 || (known && clip.flags & throng_contract::CLIP_ADDITIVE != 0)
}

/// `shown_layers`: the record's layers, with the rest row as a full-weight base layer of clip
/// CLIP_MASK in the first unused slot when none is a base layer.
fn shown_layers(rec: &InstanceRecord, clips: &GpuClipTable) -> [Layer; 4] {
    let mut layers = rec.layers;
    let mut based = false;
    let mut free = 4usize;
    for (i, l) in layers.iter().enumerate() {
        if l.weight != 0.0 && !is_overlay(l, clips) {
            based = true;
        }
        if l.weight == 0.0 && free == 4 {
            free = i;
        }
    }
    if !based {
        layers[free.min(3)] = Layer {
            weight: 1.0,
            frac: 0.0,
            row: 0.0,
            clip: CLIP_MASK,
        };
    }
    layers
}

/// `layer_rows_of`: the two rows a layer interpolates, inside its clip and the table.
fn layer_rows(l: &Layer, clips: &GpuClipTable, table_rows: u32) -> (u32, u32) {
    let c = l.clip_index();
    let last_row = table_rows.saturating_sub(1);
    // WGSL's u32(f32) saturates like Rust's `as`.
    let row = (l.row.max(0.0) as u32).min(last_row);
    let mut last = last_row;
    if c < clips.clips.len() as u32 {
        last = (clips.clip(c).first_row + clips.clip(c).last()).min(last_row);
    }
    (row, (row + 1).min(last).max(row))
}

fn row_box(input: &CpuCullInput, row: u32) -> (Vec3, Vec3) {
    let at = 2 * row as usize;
    match (input.row_bounds.get(at), input.row_bounds.get(at + 1)) {
        (Some(&lo), Some(&hi)) => (v3(lo), v3(hi)),
        // A row past the table has no box (`min > max`).
        _ => (Vec3::splat(f32::MAX), Vec3::splat(-f32::MAX)),
    }
}

/// A model-space box moved by an instance's transform (the end of `instance_box`).
fn world_box(t: &InstanceTransform, lo: Vec3, hi: Vec3) -> WorldBox {
    let rows = t.rows.map(Vec4::from_array);
    let c = (lo + hi) * 0.5;
    let e = (hi - lo) * 0.5;
    let centre4 = c.extend(1.0);
    WorldBox {
        centre: Vec3::new(
            rows[0].dot(centre4),
            rows[1].dot(centre4),
            rows[2].dot(centre4),
        ),
        half: Vec3::new(
            rows[0].truncate().abs().dot(e),
            rows[1].truncate().abs().dot(e),
            rows[2].truncate().abs().dot(e),
        ),
        scale: t.scale(),
    }
}

/// The model-space box every instance box of the crowd lies in: each layer's box is its clip's
/// (or the fallback) or smaller, so the union of the fallback and every clip's box holds them.
fn loosest_box(input: &CpuCullInput) -> (Vec3, Vec3) {
    let p = input.params;
    let (mut lo, mut hi) = (v3(p.fallback_min), v3(p.fallback_max));
    for c in &input.clips.clips {
        let (cmin, cmax) = (v3(c.bounds_min), v3(c.bounds_max));
        if cmin.cmple(cmax).all() {
            lo = lo.min(cmin);
            hi = hi.max(cmax);
        }
    }
    (lo, hi)
}

/// Frustum planes ready for the quick test: normals, their absolute values and offsets.
struct QuickPlanes {
    n: [Vec3; 6],
    /// Each normal's length (the planes are not normalised).
    len: [f32; 6],
    w: [f32; 6],
}

impl QuickPlanes {
    fn of(planes: &[[f32; 4]; 6]) -> QuickPlanes {
        let n = planes.map(v3);
        QuickPlanes {
            len: n.map(Vec3::length),
            n,
            w: planes.map(|p| p[3]),
        }
    }

    /// Whether the sphere (`centre`, `radius`) around a box lies outside a plane by more than
    /// rounding: then every box inside it is outside too, as the GPU pass computes it (the
    /// sphere holds the box; the planes' normals are not unit vectors, so the radius is
    /// scaled by their length).
    fn clearly_outside(&self, centre: Vec3, radius: f32) -> bool {
        (0..6).any(|k| {
            let (d, r, w) = (self.n[k].dot(centre), radius * self.len[k], self.w[k]);
            d + r + w < -1e-4 * (d.abs() + r + w.abs()) - 1e-30
        })
    }
}

impl QuickPlanes {
    /// Whether the sphere swept from `centre` by `sweep` lies outside a plane by more than
    /// rounding (`shadow_reaches_view` with a sphere around the box): then no box inside it
    /// casts a shadow into the view. `sweep[k]` is the plane's normal · the sweep vector, the
    /// same for every instance (`n·(c + s)` as `n·c + n·s`: within the test's margin).
    fn clearly_outside_swept(&self, centre: Vec3, sweep: &[f32; 6], radius: f32) -> bool {
        (0..6).any(|k| {
            let dc = self.n[k].dot(centre);
            let d = dc.max(dc + sweep[k]);
            let (r, w) = (radius * self.len[k], self.w[k]);
            d + r + w < -1e-4 * (d.abs() + r + w.abs()) - 1e-30
        })
    }
}

/// Centre and half extent of the model box (`c`, `e`) moved by `t` (as [`world_box`]).
fn moved(t: &InstanceTransform, c: Vec4, e: Vec3) -> (Vec3, Vec3) {
    let [r0, r1, r2] = t.rows.map(Vec4::from_array);
    (
        Vec3::new(r0.dot(c), r1.dot(c), r2.dot(c)),
        Vec3::new(
            r0.truncate().abs().dot(e),
            r1.truncate().abs().dot(e),
            r2.truncate().abs().dot(e),
        ),
    )
}

/// `instance_box`.
fn instance_box(input: &CpuCullInput, inst: usize) -> WorldBox {
    let p = input.params;
    let layers = shown_layers(&input.layers[inst], input.clips);
    let mut lo = Vec3::splat(3.4e38);
    let mut hi = Vec3::splat(-3.4e38);
    let (fmin, fmax) = (v3(p.fallback_min), v3(p.fallback_max));
    for l in &layers {
        if l.weight == 0.0 {
            continue;
        }
        let c = l.clip_index();
        let (mut bmin, mut bmax) = (fmin, fmax);
        if c < input.clips.clips.len() as u32 {
            let clip = input.clips.clip(c);
            let (cmin, cmax) = (v3(clip.bounds_min), v3(clip.bounds_max));
            if cmin.cmple(cmax).all() {
                (bmin, bmax) = (cmin, cmax);
            }
        }
        if p.row_bounds == 1 {
            let (ra, rc) = layer_rows(l, input.clips, input.rows);
            let (amin, amax) = row_box(input, ra);
            let (cmin, cmax) = row_box(input, rc);
            if amin.cmple(amax).all() && cmin.cmple(cmax).all() {
                let pad = Vec3::splat(p.row_pad);
                bmin = bmin.max(amin.min(cmin) - pad);
                bmax = bmax.min(amax.max(cmax) + pad);
            }
        }
        lo = lo.min(bmin);
        hi = hi.max(bmax);
    }
    world_box(&input.transforms[inst], lo, hi)
}

fn inside(planes: &[[f32; 4]; 6], b: &WorldBox) -> bool {
    planes.iter().all(|pl| {
        let n = v3(*pl);
        n.dot(b.centre) + n.abs().dot(b.half) + pl[3] >= 0.0
    })
}

fn lod_error(p: &CullParams, l: u32) -> f32 {
    p.lod_error.get(l as usize).copied().unwrap_or(0.0)
}

/// `shadow_reaches_view`: the box swept along the light meets the view frustum.
fn shadow_reaches_view(p: &CullParams, b: &WorldBox) -> bool {
    let light = Vec4::from_array(p.light);
    let end = b.centre + light.truncate() * light.w;
    p.planes.iter().all(|pl| {
        let n = v3(*pl);
        let reach = n.abs().dot(b.half) + pl[3];
        n.dot(b.centre).max(n.dot(end)) + reach >= 0.0
    })
}

/// `choose_lod`: the coarsest LOD whose projected error is within `lod_bias` pixels.
fn choose_lod(p: &CullParams, b: &WorldBox) -> u32 {
    let eye = Vec4::from_array(p.eye);
    let dist = ((b.centre - eye.truncate()).length() - b.half.length()).max(1e-6);
    let mut lod = 0;
    for l in 1..p.lod_count {
        if lod_error(p, l) * b.scale * eye.w / dist <= p.lod_bias {
            lod = l;
        }
    }
    lod
}

/// `choose_shadow_lod`.
fn choose_shadow_lod(p: &CullParams, b: &WorldBox, view_lod: u32) -> u32 {
    match p.shadow_lod[1] as u32 {
        // The coarsest level a view may pick: not one of infinite error (a far tier not drawn).
        1 => {
            let mut l = p.lod_count.saturating_sub(1);
            while l > 0 && lod_error(p, l) >= 3.0e38 {
                l -= 1;
            }
            return l;
        }
        2 => return view_lod,
        _ => {}
    }
    let mut lod = view_lod;
    for l in view_lod + 1..p.lod_count {
        if lod_error(p, l) * b.scale * p.shadow_lod[0] <= p.lod_bias {
            lod = l;
        }
    }
    lod
}

/// `far_placed_sphere` + `sphere_pixel_centres` (`cull.wgsl`'s `sphere_pixel_counts`): how
/// many pixel centres instance `t`'s far card may cover along x and y (−1: unbounded).
fn card_pixel_counts(p: &CullParams, t: &InstanceTransform) -> Vec2 {
    let card = throng_asset::far_tier::placed_sphere(t, Vec4::from_array(p.far_sphere));
    let counts = throng_asset::gpu::cull::sphere_pixel_centres(
        card.truncate(),
        card.w,
        &glam::Mat4::from_cols_array_2d(&p.view_proj),
        Vec2::new(p.viewport[0], p.viewport[1]),
        p.eye[3],
    );
    Vec2::new(counts.z, counts.w)
}

/// `card_share` of `shaders/cull.wgsl`: the share of the instance its far card shows in the
/// main view (0 without a far tier).
fn card_share(p: &CullParams, t: &InstanceTransform) -> f32 {
    if p.far_level == 0 {
        return 0.0;
    }
    throng_asset::far_tier::card_share(
        t,
        Vec4::from_array(p.far_sphere),
        lod_error(p, p.far_level),
        Vec4::from_array(p.eye),
        Vec2::new(p.lod_bias, p.far_band),
    )
}

/// The instance ids kept per (pass, LOD), ascending: what `cs_cull` appends (in another
/// order) for the main and shadow passes.
pub(crate) fn cull(input: &CpuCullInput) -> CullLists {
    let p = input.params;
    let lods = p.lod_count.max(1) as usize;
    let mut lists = CullLists {
        main: vec![Vec::new(); lods],
        shadow: vec![Vec::new(); lods],
        dots: Vec::new(),
    };
    let n = input.transforms.len().min(input.layers.len());
    let (loose_lo, loose_hi) = loosest_box(input);
    let (loose_c, loose_e) = (
        ((loose_lo + loose_hi) * 0.5).extend(1.0),
        (loose_hi - loose_lo) * 0.5,
    );
    let shadows = p.shadows == 1;
    let (view, light) = (
        QuickPlanes::of(&p.planes),
        QuickPlanes::of(&p.shadow_planes),
    );
    // How far along the light a shadow reaches (`shadow_reaches_view`).
    let reach = v3(p.light) * p.light[3];
    let sweep = view.n.map(|n| n.dot(reach));
    for i in 0..n {
        // Most instances of a large crowd are far outside both cameras: the loosest box says so
        // without the rows.
        let (c, h) = moved(&input.transforms[i], loose_c, loose_e);
        // The sphere around the moved box, grown by a part in 10^4 for rounding.
        let r = h.length() * 1.0001;
        // Outside the view with its shadow's whole sweep: neither seen nor casting into it
        // (a plane the sweep is outside of, the box is outside of too).
        let culled = match shadows {
            false => view.clearly_outside(c, r),
            true => {
                view.clearly_outside_swept(c, &sweep, r)
                    || (view.clearly_outside(c, r) && light.clearly_outside(c, r))
            }
        };
        if culled {
            continue;
        }
        let b = instance_box(input, i);
        let seen = inside(&p.planes, &b);
        let casts = shadows && inside(&p.shadow_planes, &b) && (seen || shadow_reaches_view(p, &b));
        if !seen && !casts {
            continue;
        }
        let lod = choose_lod(p, &b);
        // The mesh while the card's share of the crossfade is below 1, at most the coarsest
        // mesh; the card while it is above 0 and its screen box holds a pixel centre.
        let share = card_share(p, &input.transforms[i]);
        let mesh_lod = match p.far_level {
            0 => lod,
            far => lod.min(far - 1),
        };
        if seen && share < 1.0 {
            lists.main[(mesh_lod as usize).min(lods - 1)].push(i as u32);
        }
        // The card while its share is above 0 and its screen box holds a pixel centre; as one
        // point where it holds one (`far_dots`, viewport z).
        let pixels = match seen && share > 0.0 {
            true => card_pixel_counts(p, &input.transforms[i]),
            false => Vec2::ZERO,
        };
        if pixels.x != 0.0 && pixels.y != 0.0 {
            lists.main[(p.far_level as usize).min(lods - 1)].push(i as u32);
            if p.viewport[2] == 1.0 && pixels == Vec2::ONE {
                lists.dots.push(i as u32);
            }
        }
        if casts {
            let s = choose_shadow_lod(p, &b, lod);
            // `far_shadow_dropped`: a far caster under one shadow-map texel casts nothing.
            let far = p.far_level != 0 && s == p.far_level;
            if !(far && p.far_diameter * b.scale * p.shadow_lod[0] < 1.0) {
                lists.shadow[(s as usize).min(lods - 1)].push(i as u32);
            }
        }
    }
    if p.shadows != 1 {
        lists.shadow.clear();
    }
    lists
}
