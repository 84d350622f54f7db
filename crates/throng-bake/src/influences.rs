//! Vertex influences (docs/design.md §3 "Influences"): every influence of every JOINTS_n/WEIGHTS_n
//! set (repaired by throng-anim: zero weights dropped, all-zero vertices on joint 0, sums
//! renormalised), remapped into the palette, sorted by weight (descending), cut to K,
//! renormalised and quantised to unorm16 integers that sum to exactly 65535.

/// Sum of every vertex's unorm16 weights.
pub const UNORM16_ONE: u32 = 65535;

/// Influences of one vertex in palette space, full (not cut to K).
pub type VertexInfluences = Vec<(u16, f32)>;

/// Merges duplicate palette entries (a skin may list one node twice with one bind matrix, or a
/// file may repeat a joint across sets) by summing their weights, then sorts by weight
/// descending; ties by ascending entry, so the order is deterministic.
pub fn merge_and_sort(list: &mut VertexInfluences) {
    list.sort_by_key(|&(e, _)| e);
    list.dedup_by(|b, a| {
        if a.0 == b.0 {
            a.1 += b.1;
            true
        } else {
            false
        }
    });
    list.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
}

/// Largest-remainder rounding of non-negative `weights` (any positive sum) to unorm16 integers
/// that sum to exactly 65535: each gets `floor(w / Σw · 65535)`, then the integers still missing
/// go one each to the largest fractional parts (ties to the earlier weight). All-zero input gives
/// 65535 on the first weight.
pub fn quantize_unorm16(weights: &[f32]) -> Vec<u16> {
    let sum: f64 = weights.iter().map(|&w| w.max(0.0) as f64).sum();
    if weights.is_empty() {
        return Vec::new();
    }
    if sum.is_nan() || sum <= 0.0 || !sum.is_finite() {
        let mut out = vec![0; weights.len()];
        out[0] = UNORM16_ONE as u16;
        return out;
    }
    let scaled: Vec<f64> = weights
        .iter()
        .map(|&w| w.max(0.0) as f64 / sum * UNORM16_ONE as f64)
        .collect();
    let mut q: Vec<i64> = scaled.iter().map(|s| s.floor() as i64).collect();
    let mut missing = UNORM16_ONE as i64 - q.iter().sum::<i64>();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    // Largest fraction first; ties to the earlier (larger) weight.
    order.sort_by(|&a, &b| {
        let (fa, fb) = (scaled[a] - scaled[a].floor(), scaled[b] - scaled[b].floor());
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    let mut i = 0;
    while missing > 0 {
        q[order[i % order.len()]] += 1;
        missing -= 1;
        i += 1;
    }
    // Only reachable through rounding of a sum a hair above 1: take back from the largest.
    while missing < 0 {
        if let Some(m) = q.iter_mut().max() {
            *m -= 1;
        }
        missing += 1;
    }
    q.into_iter().map(|v| v.clamp(0, 65535) as u16).collect()
}

/// One vertex cut to K: `(entries, unorm16 weights)` padded with (entry 0, weight 0), plus the
/// largest weight dropped (0 when nothing was) — of the full, normalised list.
pub fn cut_vertex(sorted: &[(u16, f32)], k: usize) -> (Vec<u16>, Vec<u16>, f32) {
    let total: f32 = sorted.iter().map(|x| x.1).sum();
    let kept = &sorted[..sorted.len().min(k)];
    let dropped = sorted
        .get(k)
        .map(|x| if total > 0.0 { x.1 / total } else { 0.0 })
        .unwrap_or(0.0);
    let w: Vec<f32> = kept.iter().map(|x| x.1).collect();
    let mut q = quantize_unorm16(&w);
    let mut joints: Vec<u16> = kept.iter().map(|x| x.0).collect();
    joints.resize(k, 0);
    q.resize(k, 0);
    (joints, q, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantised_weights_sum_to_65535_exactly() {
        let cases: [&[f32]; 6] = [
            &[1.0 / 3.0; 3],
            &[0.5, 0.5],
            &[0.7, 0.2, 0.1],
            &[0.85, 0.85],
            &[0.25; 4],
            &[0.4, 0.3, 0.1, 0.1, 0.05, 0.03, 0.01, 0.01],
        ];
        for w in cases {
            let q = quantize_unorm16(w);
            assert_eq!(
                q.iter().map(|&x| x as u32).sum::<u32>(),
                65535,
                "{w:?} → {q:?}"
            );
            let s: f32 = w.iter().sum();
            for (a, b) in w.iter().zip(&q) {
                // Each integer is within one step of its exact share.
                assert!((a / s * 65535.0 - *b as f32).abs() <= 1.0, "{w:?} → {q:?}");
            }
        }
        // 1/3 each: 21845 × 3 = 65535 exactly.
        assert_eq!(quantize_unorm16(&[1.0 / 3.0; 3]), vec![21845; 3]);
        // 0.5/0.5: 32767.5 each; the tie goes to the first.
        assert_eq!(quantize_unorm16(&[0.5, 0.5]), vec![32768, 32767]);
    }

    #[test]
    fn cut_sorts_drops_and_pads() {
        let mut v = vec![(3, 0.1), (1, 0.4), (2, 0.3), (1, 0.1), (5, 0.05), (6, 0.05)];
        merge_and_sort(&mut v);
        assert_eq!(v[0], (1, 0.5));
        assert_eq!(v[1], (2, 0.3));
        let (j, w, dropped) = cut_vertex(&v, 4);
        assert_eq!(j, vec![1, 2, 3, 5]);
        assert_eq!(w.iter().map(|&x| x as u32).sum::<u32>(), 65535);
        assert!((dropped - 0.05).abs() < 1e-6);
        let (j, w, dropped) = cut_vertex(&[(7, 1.0)], 4);
        assert_eq!(
            (j, w, dropped),
            (vec![7, 0, 0, 0], vec![65535, 0, 0, 0], 0.0)
        );
    }
}
