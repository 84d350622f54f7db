//! `throng inspect`: what a glTF file or a baked asset holds. The JSON keys are a contract that
//! tools read (see README).

pub(crate) mod baked;

use super::shared::{cell, load_model, print_stdout, usage, InputArgs};
use serde_json::{json, Value};
use throng_anim::{BindingKind, Model};

#[derive(clap::Args)]
pub struct Args {
    // The input file and its source options, shared with the other command that reads either kind.
    #[command(flatten)]
    pub file: InputArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    if throng_asset::is_baked_file(&args.file.input) {
        if !args.file.source_args.clips.is_empty() {
            return Err(usage(format!(
                "{}: --clips binds animation files to a source's skeleton (glTF or FBX); this file is \
                 already baked (inspect it without --clips)",
                args.file.input.display()
            )));
        }
        return baked::run(&args.file.input, args.json);
    }
    let model = load_model(&args.file.input, &args.file.source_args)?;
    let report = describe(&model);
    if args.json {
        print_stdout(&serde_json::to_string_pretty(&report)?)?;
    } else {
        print_table(&args.file.input, &report);
    }
    Ok(())
}

fn node_name(model: &Model, i: usize) -> Value {
    match model.nodes.get(i).and_then(|n| n.name.clone()) {
        Some(n) => Value::String(n),
        None => Value::Null,
    }
}

/// The JSON description of a source model.
pub fn describe(model: &Model) -> Value {
    let skins: Vec<Value> = model
        .skins
        .iter()
        .map(|s| json!({ "name": s.name, "joint_count": s.joints.len() }))
        .collect();
    let mut skinned = Vec::new();
    let mut rigid = Vec::new();
    let mut warnings = model.warnings.clone();
    for b in model.mesh_bindings() {
        for (pi, prim) in model.meshes[b.mesh].primitives.iter().enumerate() {
            let mut entry = json!({
                "node_index": b.node,
                "node": node_name(model, b.node),
                "mesh": b.mesh,
                "mesh_name": model.meshes[b.mesh].name,
                "primitive": pi,
                "vertex_count": prim.vertex_count(),
                "triangles": prim.indices.len() / 3,
                "material": prim.material,
                // Per material variant (by name), the material this primitive shows in it.
                "variants": prim.variant_materials.iter()
                    .filter_map(|&(v, m)| Some((model.variants.get(v)?.clone(), json!(m))))
                    .collect::<serde_json::Map<_, _>>(),
            });
            match b.kind {
                BindingKind::Skinned { skin } => {
                    let (_, rep) = throng_anim::binding_influences(&b, prim);
                    if rep.zero_weight_vertices > 0 {
                        warnings.push(format!(
                            "mesh {} primitive {pi}: {} vertices have all-zero weights; \
                             they are bound to the first joint of skin {skin}",
                            b.mesh, rep.zero_weight_vertices
                        ));
                    }
                    if rep.renormalised_vertices > 0 {
                        warnings.push(format!(
                            "mesh {} primitive {pi}: {} vertices have weights not summing to 1 \
                             (worst sum {:.4}); they are renormalised",
                            b.mesh, rep.renormalised_vertices, rep.worst_sum
                        ));
                    }
                    entry["skin"] = json!(skin);
                    entry["influences"] = json!(prim.max_influences());
                    skinned.push(entry);
                }
                BindingKind::Rigid => rigid.push(entry),
            }
        }
    }
    let clips: Vec<Value> = model
        .clips
        .iter()
        .enumerate()
        .map(|(i, c)| {
            json!({
                "index": i,
                "name": c.name,
                "duration_s": c.duration,
                "channels": c.channels.len(),
                "loop": c.loop_mode.as_str(),
                "events": c.events.iter().map(|e| json!({"time": e.time, "name": e.name})).collect::<Vec<_>>(),
                "skipped_morph_channels": c.skipped_morph_channels,
            })
        })
        .collect();
    let animatable = !model.mesh_bindings().is_empty();
    json!({
        "nodes": model.nodes.len(),
        "skins": skins,
        "skinned_primitives": skinned,
        "rigid_parts": rigid,
        "clips": clips,
        "materials": model.materials.iter().map(|m| json!({
            "name": m.name,
            "base_color_factor": m.base_color_factor.to_array(),
            "base_color_image": m.base_color_texture.as_ref().map(|t| t.image),
        })).collect::<Vec<_>>(),
        "variants": model.variants,
        "animatable": animatable,
        "warnings": warnings,
    })
}

/// A material by index as `3 "body red"`.
fn material_label(r: &Value, m: &Value) -> String {
    match m.as_u64() {
        None => "none".into(),
        Some(i) => match r["materials"][i as usize]["name"].as_str() {
            Some(n) => format!("{i} {n:?}"),
            None => i.to_string(),
        },
    }
}

/// `mesh 0 "figure" prim 1: 4 vertices, 2 triangles, material 1 "hat"; red → 3 "hat blue"`.
fn part_line(r: &Value, p: &Value) -> String {
    let mesh = match p["mesh_name"].as_str() {
        Some(n) => format!("mesh {} {n:?}", p["mesh"]),
        None => format!("mesh {}", p["mesh"]),
    };
    let mut line = format!(
        "{mesh} prim {}: {} vertices, {} triangles, material {}",
        p["primitive"],
        p["vertex_count"],
        p["triangles"],
        material_label(r, &p["material"])
    );
    if let Some(v) = p["variants"].as_object().filter(|v| !v.is_empty()) {
        let shown: Vec<String> = v
            .iter()
            .map(|(name, m)| format!("{name} → {}", material_label(r, m)))
            .collect();
        line.push_str(&format!("; {}", shown.join(", ")));
    }
    line
}

fn print_table(path: &std::path::Path, r: &Value) {
    println!("{}", path.display());
    println!("  nodes: {}", r["nodes"]);
    let list = |k: &str| r[k].as_array().cloned().unwrap_or_default();
    println!("  skins: {}", list("skins").len());
    for s in list("skins") {
        println!(
            "    {:<24} {} joints",
            cell(s["name"].as_str().unwrap_or("(unnamed)"), 24),
            s["joint_count"]
        );
    }
    println!("  skinned primitives: {}", list("skinned_primitives").len());
    for p in list("skinned_primitives") {
        println!(
            "    node {:>3} {:<20} {}: up to {} influences",
            p["node_index"],
            cell(p["node"].as_str().unwrap_or("-"), 20),
            part_line(r, &p),
            p["influences"]
        );
    }
    println!("  rigid parts: {}", list("rigid_parts").len());
    for p in list("rigid_parts") {
        println!(
            "    node {:>3} {:<20} {}",
            p["node_index"],
            cell(p["node"].as_str().unwrap_or("-"), 20),
            part_line(r, &p)
        );
    }
    let variants = list("variants");
    if !variants.is_empty() {
        let names: Vec<&str> = variants.iter().filter_map(Value::as_str).collect();
        println!(
            "  material variants: {} ({}; each primitive's line lists its own)",
            names.len(),
            names.join(", ")
        );
    }
    println!("  clips: {}", list("clips").len());
    for c in list("clips") {
        println!(
            "    {:>2} {:<28} {:>8.3} s  {:>3} channels  {}",
            c["index"],
            cell(c["name"].as_str().unwrap_or(""), 28),
            c["duration_s"].as_f64().unwrap_or(0.0),
            c["channels"],
            c["loop"].as_str().unwrap_or("")
        );
    }
    if r["animatable"] == Value::Bool(false) {
        println!("  nothing to animate: no skin and no mesh under a joint or an animated node");
    }
    let warnings = list("warnings");
    if !warnings.is_empty() {
        println!("  warnings:");
        for w in warnings {
            println!("    {}", w.as_str().unwrap_or(""));
        }
    }
}
