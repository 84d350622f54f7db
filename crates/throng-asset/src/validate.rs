//! Consistency checks of a [`BakedAsset`]: run before writing (so no file is written that the
//! reader would reject) and after reading (so the decoders and the renderer can index without
//! further checks). Every failure names the element.

use crate::error::AssetError;
use crate::types::{Aabb, BakedAsset, BakedPrimitive, Vat, VAT_NORMAL_BYTES_PER_TEXEL};

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

    fn finite64(&self, element: &str, v: f64) -> Result<(), AssetError> {
        if v.is_finite() && v >= 0.0 {
            Ok(())
        } else {
            Err(self.fail(element, format!("{v} is not a finite number ≥ 0")))
        }
    }

    fn bounds(&self, element: &str, b: &Aabb) -> Result<(), AssetError> {
        if b.is_empty() {
            return Ok(());
        }
        self.finite(element, &b.min.to_array())?;
        self.finite(element, &b.max.to_array())?;
        if b.min.cmpgt(b.max).any() {
            return Err(self.fail(element, "min is above max on some axis"));
        }
        Ok(())
    }
}

/// Checks every count, index and number the decoders, writer and renderer rely on.
pub fn validate(asset: &BakedAsset, file: &str) -> Result<(), AssetError> {
    let c = Check { file };
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
    if tex.rows_per_layer == 0 {
        return Err(c.fail("boneTexture.rowsPerLayer", "must be at least 1"));
    }
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
    c.finite(
        "boneTexture.translationRange/scaleRange",
        &[tex.translation_range, tex.scale_range],
    )?;
    for (i, p) in asset.palette.iter().enumerate() {
        c.finite(
            &format!("palette[{i}].inverseBindMatrix"),
            &p.inverse_bind_matrix.to_cols_array(),
        )?;
    }
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
        c.finite64(&format!("{el}.fps"), clip.fps)?;
        c.finite64(&format!("{el}.step"), clip.step)?;
        c.finite64(&format!("{el}.duration"), clip.duration)?;
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
    }
    for (i, p) in asset.primitives.iter().enumerate() {
        primitive(&c, asset, i, p)?;
    }
    for (i, m) in asset.materials.iter().enumerate() {
        let el = format!("materials[{i}]");
        c.finite(&format!("{el}.baseColorFactor"), &m.base_color_factor)?;
        let t = &m.texture_transform;
        c.finite(
            &format!("{el}.textureTransform"),
            &[t.offset[0], t.offset[1], t.rotation, t.scale[0], t.scale[1]],
        )?;
        if let Some(img) = m.base_color_texture {
            if img >= asset.images.len() {
                return Err(c.fail(
                    format!("{el}.baseColorTexture"),
                    format!("image {img} of {}", asset.images.len()),
                ));
            }
        }
    }
    for (i, img) in asset.images.iter().enumerate() {
        if img.bytes.is_empty() {
            return Err(c.fail(format!("images[{i}]"), "no bytes"));
        }
    }
    if let Some(a) = &asset.anchors {
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
        c.finite("anchors data", &a.data)?;
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
    c.finite(
        &format!("{el}.positions"),
        bytemuck::cast_slice(&p.positions),
    )?;
    c.finite(&format!("{el}.normals"), bytemuck::cast_slice(&p.normals))?;
    if let Some(t) = &p.tangents {
        c.finite(&format!("{el}.tangents"), bytemuck::cast_slice(t))?;
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
        vat(c, &format!("{el}.vat"), t, v, asset.bone_texture.rows)?;
    }
    if let Some(m) = p.material {
        if m >= asset.materials.len() {
            return Err(c.fail(
                format!("{el}.material"),
                format!("material {m} of {}", asset.materials.len()),
            ));
        }
    }
    Ok(())
}

/// A VAT must cover every vertex at every frame-table row, in the sizes its layout implies.
fn vat(c: &Check, el: &str, t: &Vat, v: usize, rows: u32) -> Result<(), AssetError> {
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
    c.finite(el, &[t.min.x, t.min.y, t.min.z, t.max.x, t.max.y, t.max.z])
}
