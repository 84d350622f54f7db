//! A frame's statistics as text, and the warning for inputs of very different sizes.

use std::path::PathBuf;
use throng_asset::Aabb;
use throng_render::FrameStats;

/// Instances drawn per LOD, `LOD 0: 3, LOD 1: 5` (`none` when nothing was drawn).
pub fn lod_counts(s: &FrameStats) -> String {
    let lods: Vec<String> = s
        .instances_per_lod
        .iter()
        .enumerate()
        .map(|(l, n)| format!("LOD {l}: {n}"))
        .collect();
    if lods.is_empty() {
        "none".to_string()
    } else {
        lods.join(", ")
    }
}

/// One line of a frame's statistics: draw calls, instances drawn per LOD, triangles, shadow
/// casters, (palette path) the palettes written.
pub fn stats_line(s: &FrameStats) -> String {
    let palette = if s.palette_instances > 0 {
        format!(
            "; palette pass: {} instances{}",
            s.palette_instances,
            s.palette_ns
                .map(|ns| format!(" ({:.2} ms)", ns as f64 * 1e-6))
                .unwrap_or_default()
        )
    } else {
        String::new()
    };
    format!(
        "frame: {} draw calls ({} shadow), {} culling dispatches; {} instances drawn ({}), \
         {} triangles; shadows: {} instances, {} triangles{palette}{}",
        s.draws,
        s.shadow_draws,
        s.dispatches,
        s.instances_drawn,
        lod_counts(s),
        s.triangles,
        s.shadow_instances,
        s.shadow_triangles,
        s.gpu_ns
            .map(|ns| format!("; GPU {:.2} ms (timestamp queries)", ns as f64 * 1e-6))
            .unwrap_or_default()
    )
}

/// Inputs of very different sizes are drawn in their own units: a warning says so.
pub fn warn_mixed_scales(paths: &[PathBuf], sizes: &[Aabb]) {
    let d: Vec<f32> = sizes.iter().map(|b| b.diagonal()).collect();
    let (small, large) = d
        .iter()
        .fold((f32::MAX, 0.0f32), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    if d.len() > 1 && small > 0.0 && large > 10.0 * small {
        let each: Vec<String> = d
            .iter()
            .zip(paths)
            .map(|(x, p)| format!("{}: {x:.3}", p.display()))
            .collect();
        eprintln!(
            "warning: the inputs differ in size by {:.0}× (bounding diagonals {}); they are drawn \
             in their own file units, so the smallest may be too small to see",
            large / small,
            each.join(", ")
        );
    }
}
