//! The summary of a benchmark run (`throng bench summary DIR`): the figures of the JSON files
//! `bench/gpu.sh` writes into DIR (render.json, field-*.json, far.json, runtime-*.json, steps.tsv,
//! meta.txt) as one JSON file and one Markdown table, for docs/benchmarks.md's "Figures from a
//! real GPU". Missing or failed steps are listed as such; nothing is invented.

use anyhow::Context;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use throng_scene::write_atomic;

fn read_json(dir: &Path, name: &str) -> Option<Value> {
    let text = std::fs::read_to_string(dir.join(name)).ok()?;
    serde_json::from_str(&text).ok()
}

fn ms(v: &Value) -> String {
    v.as_f64().map_or("–".into(), |x| {
        if x >= 100.0 {
            format!("{x:.0}")
        } else {
            format!("{x:.2}")
        }
    })
}

/// Steps as the script logged them: name, exit status, seconds.
fn steps(dir: &Path) -> Vec<(String, String, String)> {
    let Ok(text) = std::fs::read_to_string(dir.join("steps.tsv")) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|l| {
            let mut f = l.split('\t');
            Some((f.next()?.into(), f.next()?.into(), f.next()?.into()))
        })
        .collect()
}

/// Writes `gpu-bench.json` and `gpu-bench.md` into `dir` from the run's files there; returns
/// their paths. A folder with none of those files is an error (nothing is written).
pub fn write(dir: &Path) -> anyhow::Result<(PathBuf, PathBuf)> {
    let render = read_json(dir, "render.json");
    // field-N.json, by N
    let mut field_names: Vec<(u64, String)> = std::fs::read_dir(dir)
        .with_context(|| format!("listing {}", dir.display()))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| {
            let count = n
                .strip_prefix("field-")?
                .strip_suffix(".json")?
                .parse()
                .ok()?;
            Some((count, n))
        })
        .collect();
    field_names.sort();
    let fields: Vec<(String, Value)> = field_names
        .iter()
        .filter_map(|(_, n)| read_json(dir, n).map(|v| (n.clone(), v)))
        .collect();
    let runtimes: Vec<(String, Value)> = ["runtime-cpu.json", "runtime-gpu.json"]
        .iter()
        .filter_map(|n| read_json(dir, n).map(|v| (n.to_string(), v)))
        .collect();
    let far = read_json(dir, "far.json");
    let steps = steps(dir);
    if render.is_none() && fields.is_empty() && runtimes.is_empty() && steps.is_empty() {
        anyhow::bail!(
            "{}: no bench results in it (render.json, field-N.json, runtime-*.json, steps.tsv); pass the folder bench/gpu.sh wrote",
            dir.display()
        );
    }
    let adapter = render
        .as_ref()
        .and_then(|r| r["adapter"].as_str())
        .or_else(|| fields.first().and_then(|f| f.1["adapter"].as_str()))
        .unwrap_or("unknown")
        .to_string();
    let meta = std::fs::read_to_string(dir.join("meta.txt")).unwrap_or_default();
    let mut md = format!("Adapter: {adapter}\n\n{meta}\n");
    md += "| step | status | seconds |\n|---|---|---|\n";
    for (n, st, s) in &steps {
        md += &format!("| {n} | {st} | {s} |\n");
    }
    if let Some(r) = &render {
        md += &format!(
            "\n**Paths** ({} at {}×{}, means of {} frames; frame = wall time incl. read back, GPU = timestamp queries)\n\n",
            r["asset"].as_str().unwrap_or("?"),
            r["width"],
            r["height"],
            r["frames"]
        );
        md += "| instances | path | frame ms | GPU ms | CPU ms | draws |\n|---|---|---|---|---|---|\n";
        for c in r["cases"].as_array().into_iter().flatten() {
            md += &format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                c["instances"],
                c["path"].as_str().unwrap_or("?"),
                ms(&c["frame_ms"]),
                ms(&c["gpu_ms"]),
                ms(&c["cpu_ms"]),
                c["draws"]
            );
        }
    }
    for (name, f) in &fields {
        md += &format!(
            "\n**Field** ({name}: {}, low camera at one edge; medians)\n\n",
            f["asset"].as_str().unwrap_or("?")
        );
        md += "| case | instances | frame ms | GPU ms | CPU ms | draws | drawn | triangles |\n|---|---|---|---|---|---|---|---|\n";
        for c in f["cases"].as_array().into_iter().flatten() {
            md += &format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} |\n",
                c["case"].as_str().unwrap_or("?"),
                c["instances"],
                ms(&c["frame_ms"]),
                ms(&c["gpu_ms"]),
                ms(&c["cpu_ms"]),
                c["draws"],
                c["instances_drawn"],
                c["triangles"]
            );
        }
    }
    if let Some(f) = &far {
        md += &format!(
            "\n**Far tier** ({}, LODs {} and cards past them, every instance in view, {}×{}; means of {} frames)\n\n",
            f["asset"].as_str().unwrap_or("?"),
            f["lod_ratios"],
            f["width"],
            f["height"],
            f["frames"]
        );
        md += "| instances | path | frame ms | GPU ms | GPU × the first count | cards (main pass) |\n|---|---|---|---|---|---|\n";
        let cases: Vec<&Value> = f["cases"].as_array().into_iter().flatten().collect();
        let first = cases.first().and_then(|c| c["gpu_ms"].as_f64());
        for c in &cases {
            let ratio = c["gpu_ms"]
                .as_f64()
                .zip(first)
                .filter(|(_, b)| *b > 0.0)
                .map_or("–".into(), |(a, b)| format!("{:.2}", a / b));
            let cards = c["instances_per_lod"]
                .as_array()
                .and_then(|l| l.last())
                .map_or("–".into(), |v| v.to_string());
            md += &format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                c["instances"],
                c["path"].as_str().unwrap_or("?"),
                ms(&c["frame_ms"]),
                ms(&c["gpu_ms"]),
                ratio,
                cards
            );
        }
    }
    if !runtimes.is_empty() {
        md += "\n**Runtime** (per frame)\n\n| mode | instances | changing | ms per frame | × memset |\n|---|---|---|---|---|\n";
        for (_, r) in &runtimes {
            md += &format!(
                "| {} | {} | {} | {} | {} |\n",
                r["mode"].as_str().unwrap_or("?"),
                r["instances"],
                r["changing"],
                ms(&r["ms_per_frame"]),
                ms(&r["ratio_to_memset"])
            );
        }
    }
    let all = json!({
        "adapter": adapter,
        "meta": meta,
        "steps": steps.iter().map(|(n, st, s)| json!({"step": n, "status": st, "seconds": s})).collect::<Vec<_>>(),
        "render": render,
        "fields": fields.iter().map(|(n, v)| json!({"file": n, "report": v})).collect::<Vec<_>>(),
        "far": far,
        "runtime": runtimes.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>(),
    });
    let json_path = dir.join("gpu-bench.json");
    write_atomic(&json_path, serde_json::to_string_pretty(&all)?.as_bytes())
        .with_context(|| format!("writing {}", json_path.display()))?;
    let md_path = dir.join("gpu-bench.md");
    write_atomic(&md_path, md.as_bytes())
        .with_context(|| format!("writing {}", md_path.display()))?;
    Ok((json_path, md_path))
}
