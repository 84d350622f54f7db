//! Consistency checks of a [`BakedAsset`]: run before writing (so no file is written that the
//! reader would reject) and after reading (so the decoders and the renderer can index without
//! further checks). Every failure names the element.

use crate::error::AssetError;
use crate::types::{
    Aabb, AnchorTexture, BakedAsset, BakedPrimitive, ClipInfo, Encoding, RowInterpolation, Vat,
    VatEncoding, MAX_MATERIAL_VARIANTS, VAT_NORMAL_BYTES_PER_TEXEL,
};

/// Most frame-table rows: a row travels to the GPU as an f32 (docs/design.md §4), exact below 2^24;
/// the baker stops at the same number. Also the most texture rows per array layer.
pub const MAX_ROWS: u32 = 1 << 24;

/// Largest clip sample rate, frames per second. Only the rate's finiteness matters to the
/// decoders; a million frames a second is far beyond any animation and keeps `1e308` out.
pub const MAX_FPS: f64 = 1e6;

/// Longest clip, seconds, and slowest clip rate: the contract's limits.
pub use throng_contract::limits::{MAX_CLIP_SECONDS, MIN_FPS};

/// Largest magnitude of the numbers skinning multiplies: texel values, bind-space positions,
/// normals and tangents, VAT positions and ranges, `translationRange` / `scaleRange`. The
/// product of two, summed over influences and layers, stays far inside f32 (3.4e38), so no file
/// can make a sample non-finite; no real asset comes near (a kilometre is 1e6 mm).
pub const MAX_MAGNITUDE: f32 = 1e12;

/// Relative tolerance of `step = duration / (frames − 1)`: writers compute it in f64 and JSON
/// round-trips it exactly, so only a damaged or foreign file misses by more.
const STEP_TOLERANCE: f64 = 1e-9;

/// Float formats of texel data.
#[derive(Clone, Copy)]
enum Float {
    F32,
    F16,
}

struct Check<'a> {
    file: &'a str,
}

impl Check<'_> {
    fn fail(&self, element: impl Into<String>, what: impl Into<String>) -> AssetError {
        AssetError::Invalid {
            file: self.file.to_string(),
            element: element.into(),
            what: what.into(),
        }
    }

    fn finite(&self, element: &str, values: &[f32]) -> Result<(), AssetError> {
        match values.iter().position(|v| !v.is_finite()) {
            Some(i) => Err(self.fail(
                element,
                format!("value {i} is {} (must be finite)", values[i]),
            )),
            None => Ok(()),
        }
    }

    /// Finite and at most [`MAX_MAGNITUDE`] in magnitude: a number skinning multiplies.
    fn bounded(&self, element: &str, values: &[f32]) -> Result<(), AssetError> {
        match values
            .iter()
            .position(|v| !(v.is_finite() && v.abs() <= MAX_MAGNITUDE))
        {
            Some(i) => Err(self.fail(
                element,
                format!(
                    "value {i} is {} (must be finite, at most {MAX_MAGNITUDE:e} in magnitude)",
                    values[i]
                ),
            )),
            None => Ok(()),
        }
    }

    /// Every float of texel data is [`Check::bounded`]: a NaN, infinity or 1e38 would reach
    /// every skinned vertex that uses it. `row_bytes` only locates the value for the message.
    fn texels_bounded(
        &self,
        element: &str,
        float: Float,
        data: &[u8],
        row_bytes: usize,
    ) -> Result<(), AssetError> {
        let size = match float {
            Float::F32 => 4,
            Float::F16 => 2,
        };
        let bad = data.chunks_exact(size).position(|b| match float {
            Float::F32 => {
                let v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                !(v.is_finite() && v.abs() <= MAX_MAGNITUDE)
            }
            // IEEE 754 binary16: an all-ones exponent is an infinity or a NaN.
            Float::F16 => u16::from_le_bytes([b[0], b[1]]) & 0x7C00 == 0x7C00,
        });
        match bad {
            Some(i) => Err(self.fail(
                element,
                format!(
                    "value {i} (texture row {}) is not finite or above {MAX_MAGNITUDE:e} in magnitude",
                    i * size / row_bytes.max(1)
                ),
            )),
            None => Ok(()),
        }
    }

    /// Errors at `{el}.{field}` unless `index`, the number of a `what`, is below `count`.
    fn index(
        &self,
        el: &str,
        field: &str,
        (what, index): (&str, usize),
        count: usize,
    ) -> Result<(), AssetError> {
        if index < count {
            return Ok(());
        }
        Err(self.fail(
            format!("{el}.{field}"),
            format!("{what} {index} of {count}"),
        ))
    }

    /// Empty is exactly (+∞, −∞) (docs/format.md); anything else is finite and ordered. A box
    /// "empty" on one axis only would pass `Aabb::is_empty` and cull wrongly.
    fn bounds(&self, element: &str, b: &Aabb) -> Result<(), AssetError> {
        if *b == Aabb::EMPTY {
            return Ok(());
        }
        self.finite(element, &b.min.to_array())?;
        self.finite(element, &b.max.to_array())?;
        self.ordered(element, b.min.to_array(), b.max.to_array())
    }

    fn ordered(&self, element: &str, min: [f32; 3], max: [f32; 3]) -> Result<(), AssetError> {
        match (0..3).find(|&a| min[a] > max[a]) {
            Some(a) => Err(self.fail(
                element,
                format!(
                    "min {} is above max {} on {}",
                    min[a],
                    max[a],
                    ["x", "y", "z"][a]
                ),
            )),
            None => Ok(()),
        }
    }

    /// A range of the `quat-snorm16` and `mat3x4-snorm16` decodings: finite, ≥ 0 (0 decodes to 0, docs/format.md),
    /// at most [`MAX_MAGNITUDE`].
    fn range(&self, element: &str, v: f32) -> Result<(), AssetError> {
        if v.is_finite() && (0.0..=MAX_MAGNITUDE).contains(&v) {
            Ok(())
        } else {
            Err(self.fail(
                element,
                format!("{v} is not a number in [0, {MAX_MAGNITUDE:e}]"),
            ))
        }
    }

    /// Rows per array layer: at least 1, at most [`MAX_ROWS`], and no taller than the texture
    /// unless it is the bake's texture-size limit (the baker writes that; the GPU clamps it).
    fn rows_per_layer(
        &self,
        element: &str,
        rpl: u32,
        texture_rows: u32,
        max_texture_size: u32,
    ) -> Result<(), AssetError> {
        if rpl == 0 || rpl > MAX_ROWS || (rpl > texture_rows && rpl != max_texture_size) {
            return Err(self.fail(
                element,
                format!(
                    "{rpl} rows per layer for {texture_rows} rows (must be 1..={MAX_ROWS}, and no more than the rows unless it is settings.maxTextureSize {max_texture_size})"
                ),
            ));
        }
        Ok(())
    }
}

/// Checks every count, index and number the decoders, writer and renderer rely on.
pub fn validate(asset: &BakedAsset, file: &str) -> Result<(), AssetError> {
    let c = Check { file };
    bone_texture(&c, asset)?;
    let rows = asset.bone_texture.rows;
    for (i, p) in asset.palette.iter().enumerate() {
        c.finite(
            &format!("palette[{i}].inverseBindMatrix"),
            &p.inverse_bind_matrix.to_cols_array(),
        )?;
    }
    masks(&c, asset)?;
    if asset.row_bounds.len() != rows as usize {
        return Err(c.fail(
            "rowBounds",
            format!("{} boxes for {} rows", asset.row_bounds.len(), rows),
        ));
    }
    for (i, b) in asset.row_bounds.iter().enumerate() {
        c.bounds(&format!("rowBounds[{i}]"), b)?;
    }
    for (i, clip) in asset.clips.iter().enumerate() {
        clip_info(&c, i, clip, rows)?;
    }
    clips_disjoint(&c, &asset.clips)?;
    for (i, p) in asset.primitives.iter().enumerate() {
        primitive(&c, asset, i, p)?;
    }
    materials(&c, asset)?;
    variants(&c, asset)?;
    for (i, img) in asset.images.iter().enumerate() {
        if img.bytes.is_empty() {
            return Err(c.fail(format!("images[{i}]"), "no bytes"));
        }
    }
    if let Some(a) = &asset.anchors {
        anchors(&c, a, rows)?;
    }
    Ok(())
}

/// The bone texture: as many entries as the palette, 1 to [`MAX_ROWS`] rows, its data the
/// size its encoding implies and every float in it bounded, its decoding ranges valid.
fn bone_texture(c: &Check, asset: &BakedAsset) -> Result<(), AssetError> {
    let tex = &asset.bone_texture;
    let rows = tex.rows;
    if tex.entries as usize != asset.palette.len() {
        return Err(c.fail(
            "boneTexture.entries",
            format!(
                "{} entries but the palette has {}",
                tex.entries,
                asset.palette.len()
            ),
        ));
    }
    if rows == 0 {
        return Err(c.fail(
            "boneTexture.rows",
            "0 rows (row 0, the rest pose, is required)",
        ));
    }
    if rows > MAX_ROWS {
        return Err(c.fail(
            "boneTexture.rows",
            format!("{rows} rows, more than the {MAX_ROWS} a frame table can address"),
        ));
    }
    c.rows_per_layer(
        "boneTexture.rowsPerLayer",
        tex.rows_per_layer,
        rows,
        asset.settings.max_texture_size,
    )?;
    let expect =
        (rows as u64) * (tex.entries as u64) * (tex.encoding.bytes_per_entry_frame() as u64);
    if tex.data.len() as u64 != expect {
        return Err(c.fail(
            "boneTexture data",
            format!(
                "{} bytes, expected rows {} × entries {} × {} B = {expect}",
                tex.data.len(),
                rows,
                tex.entries,
                tex.encoding.bytes_per_entry_frame()
            ),
        ));
    }
    let row_bytes = (tex.entries as usize) * tex.encoding.bytes_per_entry_frame() as usize;
    let float = match tex.encoding {
        Encoding::Mat4F32 | Encoding::Mat3x4F32 | Encoding::QuatF32 => Some(Float::F32),
        Encoding::Mat3x4F16 => Some(Float::F16),
        Encoding::QuatSnorm16 | Encoding::Mat3x4Snorm16 => None,
    };
    if let Some(f) = float {
        c.texels_bounded("boneTexture data", f, &tex.data, row_bytes)?;
    }
    c.range("boneTexture.translationRange", tex.translation_range)?;
    c.range("boneTexture.scaleRange", tex.scale_range)?;
    Ok(())
}

/// At most [`throng_contract::MAX_MASKS`] masks, each one weight in [0, 1] per palette entry.
fn masks(c: &Check, asset: &BakedAsset) -> Result<(), AssetError> {
    if asset.masks.len() > throng_contract::MAX_MASKS as usize {
        return Err(c.fail(
            "masks",
            format!(
                "{} masks, more than the {} a layer can name",
                asset.masks.len(),
                throng_contract::MAX_MASKS
            ),
        ));
    }
    for (i, m) in asset.masks.iter().enumerate() {
        let el = format!("masks[{i}] ('{}').weights", m.name);
        if m.weights.len() != asset.palette.len() {
            return Err(c.fail(
                el,
                format!(
                    "{} weights for {} palette entries",
                    m.weights.len(),
                    asset.palette.len()
                ),
            ));
        }
        if let Some(w) = m.weights.iter().find(|w| !(0.0..=1.0).contains(*w)) {
            return Err(c.fail(el, format!("weight {w} outside [0, 1]")));
        }
    }
    Ok(())
}

/// Clip `i`: its rows inside the frame table, its timing, frame times, events, root motion
/// and bounds.
fn clip_info(c: &Check, i: usize, clip: &ClipInfo, rows: u32) -> Result<(), AssetError> {
    let el = format!("clips[{i}] ({:?})", clip.name);
    let end = clip.first_row as u64 + clip.frames as u64;
    if clip.first_row == 0 || clip.frames == 0 || end > rows as u64 {
        return Err(c.fail(
            el,
            format!(
                "rows {}..{} do not fit in the frame table (rows 1..{rows}; at least one frame)",
                clip.first_row, end
            ),
        ));
    }
    clip_timing(c, &el, clip)?;
    if let Some(t) = &clip.times {
        frame_times(c, &el, clip, t)?;
    }
    row_interpolation(c, &el, clip)?;
    for (k, e) in clip.events.iter().enumerate() {
        c.finite(&format!("{el}.events[{k}].time"), &[e.time])?;
    }
    if let Some(rm) = &clip.root_motion {
        if rm.len() != clip.frames as usize {
            return Err(c.fail(
                format!("{el}.rootMotion"),
                format!("{} samples for {} frames", rm.len(), clip.frames),
            ));
        }
        for (k, s) in rm.iter().enumerate() {
            c.finite(&format!("{el}.rootMotion[{k}]"), s)?;
        }
    }
    c.bounds(&format!("{el}.bounds"), &clip.bounds)?;
    Ok(())
}

/// Materials: finite factors and texture transforms, textures that exist.
fn materials(c: &Check, asset: &BakedAsset) -> Result<(), AssetError> {
    for (i, m) in asset.materials.iter().enumerate() {
        let el = format!("materials[{i}]");
        c.finite(&format!("{el}.baseColorFactor"), &m.base_color_factor)?;
        let t = &m.texture_transform;
        c.finite(
            &format!("{el}.textureTransform"),
            &[t.offset[0], t.offset[1], t.rotation, t.scale[0], t.scale[1]],
        )?;
        if let Some(img) = m.base_color_texture {
            c.index(&el, "baseColorTexture", ("image", img), asset.images.len())?;
        }
    }
    Ok(())
}

/// Material variants: at most [`MAX_MATERIAL_VARIANTS`], each named (non-empty, unique), with
/// one entry per primitive, each a material that exists.
fn variants(c: &Check, asset: &BakedAsset) -> Result<(), AssetError> {
    if asset.variants.len() > MAX_MATERIAL_VARIANTS {
        return Err(c.fail(
            "variants",
            format!(
                "{} material variants, more than the {MAX_MATERIAL_VARIANTS} an instance can pick",
                asset.variants.len()
            ),
        ));
    }
    let mut names = std::collections::BTreeSet::new();
    for (i, v) in asset.variants.iter().enumerate() {
        let el = format!("variants[{i}] ({:?})", v.name);
        if v.name.is_empty() {
            return Err(c.fail(el, "has an empty name"));
        }
        if !names.insert(v.name.as_str()) {
            return Err(c.fail(el, "repeats the name of an earlier variant"));
        }
        if v.materials.len() != asset.primitives.len() {
            return Err(c.fail(
                format!("{el}.materials"),
                format!(
                    "{} entries for {} primitives",
                    v.materials.len(),
                    asset.primitives.len()
                ),
            ));
        }
        for (p, m) in v.materials.iter().enumerate() {
            if let Some(m) = *m {
                if m >= asset.materials.len() {
                    return Err(c.fail(
                        format!("{el}.materials[{p}]"),
                        format!("material {m} of {}", asset.materials.len()),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Anchors: one 12-float transform per anchor on every frame-table row, all finite.
fn anchors(c: &Check, a: &AnchorTexture, rows: u32) -> Result<(), AssetError> {
    if a.rows != rows {
        return Err(c.fail(
            "anchors.rows",
            format!("{} rows, the frame table has {rows}", a.rows),
        ));
    }
    let expect = rows as u64 * a.anchors.len() as u64 * 12;
    if a.data.len() as u64 != expect {
        return Err(c.fail(
            "anchors data",
            format!(
                "{} floats, expected rows × anchors × 12 = {expect}",
                a.data.len()
            ),
        ));
    }
    c.finite("anchors data", &a.data)
}

/// fps, step and duration: finite, in range, and `step = duration / (frames − 1)` (0 for one
/// frame), as the frame table's time grid defines them (docs/format.md "clips").
fn clip_timing(c: &Check, el: &str, clip: &ClipInfo) -> Result<(), AssetError> {
    if !(clip.fps.is_finite() && (MIN_FPS..=MAX_FPS).contains(&clip.fps)) {
        return Err(c.fail(
            format!("{el}.fps"),
            format!(
                "{} is not a rate in [{MIN_FPS:e}, {MAX_FPS:e}] frames per second",
                clip.fps
            ),
        ));
    }
    if !(clip.duration.is_finite() && (0.0..=MAX_CLIP_SECONDS).contains(&clip.duration)) {
        return Err(c.fail(
            format!("{el}.duration"),
            format!(
                "{} is not a time in [0, {MAX_CLIP_SECONDS:e}] seconds",
                clip.duration
            ),
        ));
    }
    let want = if clip.frames <= 1 {
        0.0
    } else {
        if clip.duration == 0.0 {
            return Err(c.fail(
                format!("{el}.duration"),
                format!(
                    "0 s for {} frames (more than one frame needs a duration)",
                    clip.frames
                ),
            ));
        }
        clip.duration / (clip.frames - 1) as f64
    };
    let off = (clip.step - want).abs();
    if !clip.step.is_finite() || off > STEP_TOLERANCE * want.max(f64::MIN_POSITIVE) {
        return Err(c.fail(
            format!("{el}.step"),
            format!(
                "{} s, but duration {} s over {} frames gives {want} s",
                clip.step, clip.duration, clip.frames
            ),
        ));
    }
    Ok(())
}

/// A clip's row interpolation fits its frames: Catmull-Rom rows on uniform frames only;
/// polynomial pieces of degree 2 or 3 that tile its gaps (docs/design.md §3 "Row
/// interpolation"); a degree only with pieces.
fn row_interpolation(c: &Check, el: &str, clip: &ClipInfo) -> Result<(), AssetError> {
    let gaps = clip.frames.saturating_sub(1);
    let why = match clip.interpolation {
        RowInterpolation::CatmullRom if clip.times.is_some() => Some(
            "catmull-rom rows need uniform frames, and this clip lists its frame times".to_string(),
        ),
        RowInterpolation::Pieces if !matches!(clip.degree, 2 | 3) => Some(format!(
            "pieces of degree {} (2 or 3 are read)",
            clip.degree
        )),
        RowInterpolation::Pieces if !gaps.is_multiple_of(clip.degree as u32) => Some(format!(
            "{gaps} gaps between frames do not make whole pieces of degree {}",
            clip.degree
        )),
        RowInterpolation::Linear | RowInterpolation::CatmullRom if clip.degree != 0 => {
            Some(format!("a degree ({}) without pieces", clip.degree))
        }
        RowInterpolation::Pieces => clip
            .times
            .as_deref()
            .and_then(|t| uneven_piece(t, clip.degree)),
        _ => None,
    };
    match why {
        Some(w) => Err(c.fail(
            format!("{el}.interpolation"),
            format!("{w}; re-bake the source"),
        )),
        None => Ok(()),
    }
}

/// A frame-time list (docs/format.md "clips"): one time per frame, `0` first, strictly
/// increasing, the duration (as f32) last. The time rules' search and the shaders' lookup grid
/// rely on all of it.
/// The first piece of degree `d` whose listed frames are not equally spaced in time (within
/// 1e-3 of the piece's length, plus f32 rounding of the times), as a message; the shaders show a
/// piece as if they were.
fn uneven_piece(t: &[f32], d: u8) -> Option<String> {
    let d = d as usize;
    if d < 2 {
        return None;
    }
    (0..t.len().saturating_sub(1) / d).find_map(|p| {
        let (a, b) = (t[p * d] as f64, t[p * d + d] as f64);
        let slack = 1e-3 * (b - a) + 4.0 * f32::EPSILON as f64 * b.abs();
        (1..d).find_map(|j| {
            let want = a + (b - a) * j as f64 / d as f64;
            let got = t[p * d + j] as f64;
            ((got - want).abs() > slack).then(|| {
                format!(
                    "frame {} at {got} s is not where its piece's equal spacing puts it ({want} s)",
                    p * d + j
                )
            })
        })
    })
}

fn frame_times(c: &Check, el: &str, clip: &ClipInfo, t: &[f32]) -> Result<(), AssetError> {
    let el = format!("{el}.times");
    if t.len() != clip.frames as usize || t.len() < 2 {
        return Err(c.fail(
            el,
            format!(
                "{} times for {} frames (a list needs one per frame, at least two)",
                t.len(),
                clip.frames
            ),
        ));
    }
    c.finite(&el, t)?;
    if t[0] != 0.0 || t[t.len() - 1] != clip.duration as f32 {
        return Err(c.fail(
            el,
            format!(
                "runs from {} to {} s, but must run from 0 to the duration {} s",
                t[0],
                t[t.len() - 1],
                clip.duration as f32
            ),
        ));
    }
    if let Some(k) = t.windows(2).position(|w| w[1] <= w[0]) {
        return Err(c.fail(
            format!("{el}[{}]", k + 1),
            format!(
                "{} s is not after {} s (times must increase)",
                t[k + 1],
                t[k]
            ),
        ));
    }
    Ok(())
}

/// No frame-table row belongs to two clips with different ranges (docs/design.md §6): interpolation
/// is clamped into a clip's own rows, and a clip whose frames run into another's is what a
/// damaged `firstRow` or `frames` looks like. Clips with the very same rows (aliases, e.g. one
/// take under two names with different loop modes or events) share every row and stay
/// consistent, so they are allowed.
fn clips_disjoint(c: &Check, clips: &[ClipInfo]) -> Result<(), AssetError> {
    let mut order: Vec<usize> = (0..clips.len()).collect();
    order.sort_by_key(|&i| (clips[i].first_row, clips[i].frames, i));
    order.dedup_by_key(|i| (clips[*i].first_row, clips[*i].frames));
    for w in order.windows(2) {
        let (a, b) = (&clips[w[0]], &clips[w[1]]);
        let a_end = a.first_row as u64 + a.frames as u64;
        if a_end > b.first_row as u64 {
            return Err(c.fail(
                format!("clips[{}] ({:?})", w[1], b.name),
                format!(
                    "rows {}..{} overlap rows {}..{a_end} of clips[{}] ({:?})",
                    b.first_row,
                    b.first_row as u64 + b.frames as u64,
                    a.first_row,
                    w[0],
                    a.name
                ),
            ));
        }
    }
    Ok(())
}

fn primitive(
    c: &Check,
    asset: &BakedAsset,
    i: usize,
    p: &BakedPrimitive,
) -> Result<(), AssetError> {
    let el = format!(
        "primitives[{i}] (node {}, mesh {}, primitive {})",
        p.node_index, p.mesh, p.primitive
    );
    let v = p.positions.len();
    let k = p.influences as usize;
    if !(1..=8).contains(&k) {
        return Err(c.fail(&el, format!("{k} influences per vertex (1 to 8 supported)")));
    }
    let count = |name: &str, n: usize, want: usize| {
        if n == want {
            Ok(())
        } else {
            Err(c.fail(
                format!("{el}.{name}"),
                format!("{n} values, expected {want}"),
            ))
        }
    };
    count("normals", p.normals.len(), v)?;
    if let Some(t) = &p.tangents {
        count("tangents", t.len(), v)?;
    }
    if let Some(t) = &p.uv0 {
        count("uv0", t.len(), v)?;
    }
    count("joints", p.joints.len(), v * k)?;
    count("weights", p.weights.len(), v * k)?;
    c.bounded(
        &format!("{el}.positions"),
        bytemuck::cast_slice(&p.positions),
    )?;
    c.bounded(&format!("{el}.normals"), bytemuck::cast_slice(&p.normals))?;
    if let Some(t) = &p.tangents {
        c.bounded(&format!("{el}.tangents"), bytemuck::cast_slice(t))?;
    }
    if let Some(t) = &p.uv0 {
        c.finite(&format!("{el}.uv0"), bytemuck::cast_slice(t))?;
    }
    let entries = asset.palette.len();
    if let Some(n) = p.joints.iter().position(|&j| j as usize >= entries) {
        return Err(c.fail(
            format!("{el}.joints"),
            format!(
                "vertex {} uses palette entry {} of {entries}",
                n / k,
                p.joints[n]
            ),
        ));
    }
    let tris = |name: &str, idx: &[u32]| {
        if !idx.len().is_multiple_of(3) {
            return Err(c.fail(
                format!("{el}.{name}"),
                format!("{} indices is not a triangle list", idx.len()),
            ));
        }
        match idx.iter().position(|&x| x as usize >= v) {
            Some(n) => Err(c.fail(
                format!("{el}.{name}"),
                format!("index {n} is {} but there are {v} vertices", idx[n]),
            )),
            None => Ok(()),
        }
    };
    tris("indices", &p.indices)?;
    for (l, lod) in p.lods.iter().enumerate() {
        tris(&format!("lods[{l}].indices"), &lod.indices)?;
        c.finite(&format!("{el}.lods[{l}]"), &[lod.ratio, lod.error])?;
    }
    if let Some(t) = &p.vat {
        vat(c, asset, &format!("{el}.vat"), t, v)?;
    }
    if let Some(m) = p.material {
        c.index(&el, "material", ("material", m), asset.materials.len())?;
    }
    Ok(())
}

/// A VAT must cover every vertex at every frame-table row, in the sizes its layout implies.
fn vat(c: &Check, asset: &BakedAsset, el: &str, t: &Vat, v: usize) -> Result<(), AssetError> {
    let rows = asset.bone_texture.rows;
    if t.vertices as usize != v || t.rows != rows {
        return Err(c.fail(
            el,
            format!(
                "covers {} vertices × {} rows; the primitive has {v} vertices and the frame table {rows} rows",
                t.vertices, t.rows
            ),
        ));
    }
    if t.width == 0 || t.rows_per_layer == 0 {
        return Err(c.fail(el, "width and rows per layer must be at least 1"));
    }
    c.rows_per_layer(
        &format!("{el}.rowsPerLayer"),
        t.rows_per_layer,
        t.texture_rows(),
        asset.settings.max_texture_size,
    )?;
    let texels = t.texture_rows() as usize * t.width as usize;
    let want_pos = texels * t.encoding.bytes_per_texel() as usize;
    let want_nrm = texels * (VAT_NORMAL_BYTES_PER_TEXEL / 2) as usize;
    if t.positions.len() != want_pos || t.normals.len() != want_nrm {
        return Err(c.fail(
            el,
            format!(
                "{} position bytes and {} normal components, expected {want_pos} and {want_nrm}",
                t.positions.len(),
                t.normals.len()
            ),
        ));
    }
    let float = match t.encoding {
        VatEncoding::F32 => Some(Float::F32),
        VatEncoding::F16 => Some(Float::F16),
        VatEncoding::Unorm16 => None,
    };
    if let Some(f) = float {
        let row_bytes = t.width as usize * t.encoding.bytes_per_texel() as usize;
        c.texels_bounded(&format!("{el}.positions"), f, &t.positions, row_bytes)?;
    }
    c.bounded(el, &[t.min.x, t.min.y, t.min.z, t.max.x, t.max.y, t.max.z])?;
    c.ordered(&format!("{el}.min/max"), t.min.to_array(), t.max.to_array())
}
