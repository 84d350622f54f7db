//! Peak memory of a bake with its own measure and of `verify` (issue 52 item 4), on a character
//! the size of Mixamo's Samba Dancing (67 joints, ~35,000 vertices) with a 35 s clip: bounded by
//! the data, not by the times verification samples. The errors of every (time, vertex) pair —
//! billions here — are folded into histograms a batch of times at a time.
//!
//! Bound: 4 × (the model's data + the baked asset's) + 64 MiB, the model's data counted as its
//! vertex streams and keys. A process of its own (this file holds one test), peak read from
//! `/proc/self/status` (`VmHWM`).

mod common;

fn peak_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    kb * 1024
}

#[test]
fn bake_and_verify_of_a_large_character_stay_within_the_data_bound() {
    // 67 joints × 522 vertices = 34,974 vertices; 1,051 keys = 35 s at 30 fps
    let model = common::dense_chain_rig(67, 1051, 522);
    let vertices: usize = model
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .map(|p| p.vertex_count())
        .sum();
    let keys: usize = (model.clips.iter().flat_map(|c| &c.channels))
        .map(|ch| ch.times.len())
        .sum();
    // positions, normals, 4 joints, 4 weights; per key a time and up to 4 floats
    let source = vertices * (12 + 12 + 8 + 16) + keys * 20;
    let options = throng_bake::BakeOptions {
        source_name: "samba-sized.glb".into(),
        ..Default::default()
    };
    let (asset, _) = throng_bake::bake(&model, &options).expect("bakes");
    let baked = throng_asset::to_glb_bytes(&asset).expect("writes").len();
    let fidelity = throng_bake::verify::verify(&asset, &model).expect("verifies");
    let peak = peak_bytes();
    let bound = 4 * (source + baked) as u64 + (64 << 20);
    eprintln!(
        "{vertices} vertices, {} rows: source data {:.1} MiB, baked {:.1} MiB, peak {:.1} MiB (bound {:.1} MiB); worst mid-sample error {:.2e}",
        asset.rows(),
        source as f64 / (1 << 20) as f64,
        baked as f64 / (1 << 20) as f64,
        peak as f64 / (1 << 20) as f64,
        bound as f64 / (1 << 20) as f64,
        fidelity.iter().map(|f| f.max_rel_mid).fold(0.0, f64::max),
    );
    assert!(peak <= bound, "peak {peak} bytes over the bound {bound}");
}
