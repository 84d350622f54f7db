//! `throng inspect` of a baked asset: encoding, palette, frame table, texture sizes, primitives
//! (the parts: part i is primitive i), materials and material variants.

use super::super::shared::{cell, name_width};
use serde_json::{json, Value};
use std::path::Path;
use throng_asset::BakedAsset;

/// Shortest and longest interval between a clip's frames (seconds; 0 for one frame).
fn steps(c: &throng_asset::ClipInfo) -> (f64, f64) {
    (1..c.frames).fold(
        (if c.frames > 1 { f64::INFINITY } else { 0.0 }, 0.0f64),
        |(lo, hi), k| {
            let s = c.frame_time(k) - c.frame_time(k - 1);
            (lo.min(s), hi.max(s))
        },
    )
}

pub fn describe(asset: &BakedAsset) -> Value {
    let tex = &asset.bone_texture;
    let clips: Vec<Value> = asset
        .clips
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (min_step, max_step) = steps(c);
            json!({
                "index": i,
                "name": c.name,
                "first_row": c.first_row,
                "frames": c.frames,
                "fps": c.fps,
                "frame_times": c.times,
                "min_step_s": min_step,
                "max_step_s": max_step,
                "duration_s": c.duration,
                "loop": c.loop_mode.as_str(),
                "events": c.events.iter().map(|e| json!({"time": e.time, "name": e.name})).collect::<Vec<_>>(),
                "root_motion": c.root_motion.is_some(),
                // The reference clip time (seconds) of an additive clip, whose rows are deltas
                // from its pose there; null for an ordinary clip.
                "additive": c.additive,
                "interpolation": c.interpolation.as_str(),
                "periodic": c.periodic,
                "degree": c.degree,
                "bounds": {"min": c.bounds.min.to_array(), "max": c.bounds.max.to_array()},
            })
        })
        .collect();
    let primitives: Vec<Value> = asset
        .primitives
        .iter()
        .enumerate()
        .map(|(i, p)| {
            json!({
                "part": i,
                "material": p.material,
                "node_index": p.node_index,
                "node": node_name(asset, p.node_index),
                "mesh": p.mesh,
                "primitive": p.primitive,
                "rigid": p.rigid,
                "vertex_count": p.vertex_count(),
                "triangles": p.indices.len() / 3,
                "influences": p.influences,
                "vat": p.vat.as_ref().map(|v| json!({
                    "encoding": v.encoding.as_str(),
                    "width": v.width,
                    "rows": v.rows,
                    "bytes": v.byte_len(),
                })),
                "lods": p.lods.iter().map(|l| json!({"ratio": l.ratio, "triangles": l.indices.len() / 3, "error": l.error})).collect::<Vec<_>>(),
            })
        })
        .collect();
    let anchors: Vec<Value> = asset
        .anchors
        .iter()
        .flat_map(|a| a.anchors.iter())
        .map(|a| json!({"name": a.name, "node": a.node}))
        .collect();
    // Layer masks in mask-number order (layers name them; number k is index k − 1): the
    // subtree roots they were made from and the palette entries they cover (weight > 0).
    let masks: Vec<Value> = asset
        .masks
        .iter()
        .enumerate()
        .map(|(i, m)| {
            json!({
                "number": i + 1,
                "name": m.name,
                "roots": m.roots,
                "weights": m.weights,
                "entries": covered(m),
            })
        })
        .collect();
    let materials: Vec<Value> = asset
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| {
            json!({
                "index": i,
                "name": m.name,
                "base_color_factor": m.base_color_factor,
                "base_color_texture": m.base_color_texture,
            })
        })
        .collect();
    // Variant number k is index k − 1 (0 is every part's own material); per part the material
    // it shows, its own where the variant keeps it.
    let variants: Vec<Value> = asset
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| {
            json!({
                "number": i + 1,
                "name": v.name,
                "materials": v.materials,
                "shown": (0..asset.primitives.len())
                    .map(|p| asset.variant_material(i as u32 + 1, p))
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "source": asset.source_name,
        "encoding": tex.encoding.as_str(),
        "requested_encoding": asset.settings.requested_encoding.as_str(),
        "palette_size": asset.palette.len(),
        "rows": tex.rows,
        "layers": tex.layers(),
        "rows_per_layer": tex.rows_per_layer,
        "texture_width": tex.width(),
        "texture_bytes": tex.byte_len(),
        "bytes_per_entry_frame": tex.encoding.bytes_per_entry_frame(),
        "influences": asset.settings.influences,
        "fps": asset.settings.fps,
        "root_motion": asset.settings.root_motion,
        "palette": asset.palette.iter().map(|e| json!({"node": e.node, "name": e.name, "rigid": e.rigid})).collect::<Vec<_>>(),
        "clips": clips,
        "primitives": primitives,
        "anchors": anchors,
        "masks": masks,
        "materials": materials,
        "variants": variants,
        "far_tier": asset.far_tier.as_ref().map(|f| json!({
            "tile": f.tile,
            "azimuths": f.azimuths,
            "elevations_deg": f.elevations.iter().map(|e| e.to_degrees()).collect::<Vec<_>>(),
            "radius": f.radius,
            "clips": f.clips.iter().enumerate().map(|(i, c)| json!({
                "frames": c.frames,
                "bytes": f.clip_bytes(i),
            })).collect::<Vec<_>>(),
            "variant_colour_maps": f.variant_colours.iter().map(Vec::len).sum::<usize>(),
        })),
    })
}

/// The far tier's layout and its bytes per clip.
pub fn print_far_tier(asset: &BakedAsset, indent: &str) {
    let Some(f) = &asset.far_tier else {
        return;
    };
    let elevations: Vec<String> = f
        .elevations
        .iter()
        .map(|e| format!("{:.0}°", e.to_degrees()))
        .collect();
    let total: u64 = (0..f.clips.len()).map(|c| f.clip_bytes(c)).sum();
    println!(
        "{indent}far tier: tiles of {0} × {0} texels over a sphere of radius {1:.3} (file units), {2} views ({3} azimuths at {4}), {5} bytes",
        f.tile,
        f.radius,
        f.views(),
        f.azimuths,
        elevations.join(", "),
        total
    );
    for (i, c) in f.clips.iter().enumerate() {
        let name = asset.clips.get(i).map_or("?", |c| c.name.as_str());
        println!(
            "{indent}  clip {i} {name:?}: {} frames, {} bytes",
            c.frames,
            f.clip_bytes(i)
        );
    }
    let maps: usize = f.variant_colours.iter().map(Vec::len).sum();
    if maps > 0 {
        println!(
            "{indent}  material variants: {} colour maps ({} variants × {} primitives, {} bytes)",
            maps,
            f.variant_colours.len(),
            f.variant_colours.first().map_or(0, Vec::len),
            maps * 48
        );
    } else if !asset.variants.is_empty() {
        println!(
            "{indent}  material variants: no colour maps (baked before format 3.4): cards show the own colours; bake again to recolour them"
        );
    }
}

/// The name of source node `node` when the palette has it (a rigid part's node, or a joint); a
/// skinned mesh's own node is not stored in a baked file.
fn node_name(asset: &BakedAsset, node: usize) -> Option<&str> {
    asset
        .palette
        .iter()
        .find(|e| e.node == node)
        .map(|e| e.name.as_str())
}

/// `3 "body red" (texture image 1)`, or `none`.
fn material_label(asset: &BakedAsset, m: Option<usize>) -> String {
    let Some(i) = m else {
        return "none".into();
    };
    let Some(mat) = asset.materials.get(i) else {
        return format!("{i}");
    };
    let name = mat
        .name
        .as_deref()
        .map(|n| format!(" {n:?}"))
        .unwrap_or_default();
    match mat.base_color_texture {
        Some(t) => format!("{i}{name} (texture image {t})"),
        None => format!("{i}{name}"),
    }
}

/// The variants, one line each: the material every part shows in it.
fn print_variants(asset: &BakedAsset) {
    if asset.variants.is_empty() {
        println!("  material variants: none (`throng bake --variant NAME=TEXTURE.png` adds one)");
        return;
    }
    println!(
        "  material variants: {} (variant 0 is every part's own material)",
        asset.variants.len()
    );
    for (i, v) in asset.variants.iter().enumerate() {
        let parts: Vec<String> = v
            .materials
            .iter()
            .enumerate()
            .map(|(p, m)| match m {
                Some(_) => format!("part {p} → material {}", material_label(asset, *m)),
                None => format!("part {p} keeps its own"),
            })
            .collect();
        println!("    {} {}: {}", i + 1, v.name, parts.join(", "));
    }
}

/// The palette entries a mask covers (weight above 0), in palette order.
fn covered(m: &throng_asset::LayerMask) -> Vec<usize> {
    m.weights
        .iter()
        .enumerate()
        .filter(|(_, &w)| w > 0.0)
        .map(|(j, _)| j)
        .collect()
}

pub fn run(path: &Path, json_out: bool) -> anyhow::Result<()> {
    let asset = throng_asset::read(path)?;
    let r = describe(&asset);
    if json_out {
        return Ok(crate::cmd::shared::print_stdout(
            &serde_json::to_string_pretty(&r)?,
        )?);
    }
    println!("{} (baked from {})", path.display(), asset.source_name);
    println!(
        "  encoding {} (asked {}), {} palette entries, {} influences per vertex",
        r["encoding"].as_str().unwrap_or(""),
        r["requested_encoding"].as_str().unwrap_or(""),
        asset.palette.len(),
        asset.settings.influences
    );
    println!(
        "  bone texture: {} × {} texels in {} layer(s), {} bytes ({} B per entry-frame)",
        asset.bone_texture.width(),
        asset.bone_texture.rows,
        asset.bone_texture.layers(),
        asset.bone_texture.byte_len(),
        asset.bone_texture.encoding.bytes_per_entry_frame()
    );
    // The palette by index: debug views (`render --debug weights --debug-joint N`) name entries
    // by these numbers.
    println!("  palette:");
    for (i, e) in asset.palette.iter().enumerate() {
        println!(
            "    {i:>3} {}{}",
            e.name,
            if e.rigid { " (rigid part)" } else { "" }
        );
    }
    println!("  clips: {} (row 0 is the rest pose)", asset.clips.len());
    let w = name_width(asset.clips.iter().map(|c| c.name.as_str()), 28, 48);
    for (i, c) in asset.clips.iter().enumerate() {
        let spacing = match &c.times {
            None => format!("at {:>6.2} fps", c.fps),
            Some(_) => {
                let (lo, hi) = steps(c);
                format!(
                    "listed, {:.2} fps mean, steps {:.1}–{:.1} ms",
                    c.fps,
                    lo * 1e3,
                    hi * 1e3
                )
            }
        };
        let additive = c
            .additive
            .map(|t| format!("  additive (deltas from its pose at {t:.3} s)"))
            .unwrap_or_default();
        let cubic = match (c.interpolation, c.periodic) {
            (throng_asset::RowInterpolation::Linear, _) => String::new(),
            (throng_asset::RowInterpolation::Pieces, _) => {
                format!("  degree-{} polynomial pieces", c.degree)
            }
            (i, true) => format!("  {i} rows, periodic"),
            (i, false) => format!("  {i} rows"),
        };
        println!(
            "    {i:>2} {:<w$} rows {:>5}..{:<5} {:>4} frames {spacing}  {:>7.3} s  {}{cubic}{additive}",
            cell(&c.name, w),
            c.first_row,
            c.first_row + c.frames.max(1) - 1,
            c.frames,
            c.duration,
            c.loop_mode.as_str()
        );
        if !c.events.is_empty() {
            let ev: Vec<String> = c
                .events
                .iter()
                .map(|e| format!("{} at {:.3} s", e.name, e.time))
                .collect();
            println!("       events: {}", ev.join(", "));
        }
        if let Some(rm) = c.root_motion.as_ref().and_then(|r| r.last()) {
            println!(
                "       root motion (extracted) over the clip: dx {:.4}, dz {:.4} (file units), dyaw {:.4} rad",
                rm[0], rm[1], rm[2]
            );
        }
    }
    println!("  parts (primitives): {}", asset.primitives.len());
    for (i, p) in asset.primitives.iter().enumerate() {
        println!(
            "    {i:>2} node {:>3}{} mesh {} prim {}: {} vertices, {} triangles, material {}{}",
            p.node_index,
            node_name(&asset, p.node_index)
                .map(|n| format!(" {n:?}"))
                .unwrap_or_default(),
            p.mesh,
            p.primitive,
            p.vertex_count(),
            p.indices.len() / 3,
            material_label(&asset, p.material),
            if p.rigid { " (rigid part)" } else { "" }
        );
        for l in &p.lods {
            println!(
                "      LOD {:.2}: {} triangles (error {:.2e} of the mesh's extent)",
                l.ratio,
                l.indices.len() / 3,
                l.error
            );
        }
        if let Some(v) = &p.vat {
            println!(
                "      VAT {}: {} × {} texels, {} bytes",
                v.encoding.as_str(),
                v.width,
                v.texture_rows(),
                v.byte_len()
            );
        }
    }
    print_variants(&asset);
    print_far_tier(&asset, "  ");
    if !asset.masks.is_empty() {
        println!("  layer masks: {}", asset.masks.len());
        for (i, m) in asset.masks.iter().enumerate() {
            let entries = covered(m);
            println!(
                "    {} {} (subtrees of {}): {} of {} palette entries",
                i + 1,
                m.name,
                m.roots.join(", "),
                entries.len(),
                m.weights.len()
            );
        }
    }
    if let Some(a) = &asset.anchors {
        println!("  anchors: {}", a.anchors.len());
        for x in &a.anchors {
            println!("    {} (node {})", x.name, x.node);
        }
    }
    Ok(())
}
