//! The graph's integer time over a long session (docs/graph.md "Time"). A state played at a
//! steady rate is exactly `ticks × rate`, however the ticks were stepped; against the
//! normalised time computed directly from the elapsed seconds, its only errors are its clip's
//! duration rounded to 2^-40 s and its rate rounded down to 2^-64 cycles a tick, bounded here
//! for the longest stated session: 30 days.

use throng_asset::{ClipInfo, LoopMode};
use throng_graph::{kind, Graph, GraphCrowd, ParamId};

/// A one-state graph over a clip of `seconds`, its speed the parameter `mult`.
fn crowd(seconds: f64, len: usize) -> (GraphCrowd, ParamId<kind::Float>) {
    let table = vec![ClipInfo::uniform("loop", 1, seconds, 30.0, LoopMode::Loop)];
    let text = r#"{"version": 1, "parameters": [{"name": "mult", "type": "float", "default": 1}],
      "states": [{"name": "loop", "motion": {"clip": {"name": "loop"}},
        "speed_parameter": "mult"}]}"#;
    let g = Graph::from_json(text, "g.json", &table).expect("graph");
    let c = GraphCrowd::new(g, &table, len).expect("crowd");
    let mult = c.param::<kind::Float>("mult").expect("mult");
    (c, mult)
}

/// SplitMix64.
fn next(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const DAY: f64 = 86_400.0;

/// 30 days: an hour of 60 Hz frames of uneven length (whole ticks and not), then steps of up
/// to 1000 s. Every instance plays at its own speed; the session's normalised times equal the
/// same crowd's stepped once a day to the bit, and the time computed directly within the
/// bound the roundings give: the duration's (≤ 2^-41 s, so ≤ 2^-41 / d of a cycle per cycle
/// played) and the rate's (≤ 2^-64 cycles a tick).
#[test]
fn thirty_days_of_play_are_ticks_times_rate() {
    let speeds = [1.0f32, 1.37, 0.25, 7.5, 1000.0];
    for seconds in [1.0, 0.8, 1.0 / 3.0, 2.7] {
        let (mut a, mult) = crowd(seconds, speeds.len());
        let (mut b, _) = crowd(seconds, speeds.len());
        for (i, &s) in speeds.iter().enumerate() {
            a.set_float(i, mult, s).unwrap();
            b.set_float(i, mult, s).unwrap();
        }
        let mut seed = seconds.to_bits();
        while a.time() < 3600.0 {
            let jitter = (next(&mut seed) % 2001) as f64 / 1000.0 - 1.0;
            a.step(1.0 / 60.0 + jitter * 1e-3);
        }
        while a.time() < 30.0 * DAY {
            a.step((next(&mut seed) % 1_000_000) as f64 / 1000.0);
        }
        // the same ticks in a few long steps (each under the clock's 1e6 s cap)
        let total = a.time();
        let mut done = 0.0;
        while done < total {
            let dt = (total - done).min(DAY);
            b.step(dt);
            done += dt;
        }
        assert_eq!(b.time(), total);
        for (i, &s) in speeds.iter().enumerate() {
            let (ta, tb) = (a.normalized_time(i).unwrap(), b.normalized_time(i).unwrap());
            assert_eq!(
                ta.to_bits(),
                tb.to_bits(),
                "{seconds} s at {s}×: {ta} vs {tb}"
            );
            // directly: elapsed × speed / duration, then folded as the crowd folds (past 2^30
            // cycles by 2^29); compared as fractions of a cycle
            let cycles = total * s as f64 / seconds;
            let mut want = cycles;
            let (fold_at, fold) = ((1u64 << 30) as f64, (1u64 << 29) as f64);
            if want >= fold_at {
                want -= ((want - fold_at) / fold).floor() * fold + fold;
            }
            let err = {
                let d = (ta - want).rem_euclid(1.0);
                d.min(1.0 - d)
            };
            // the duration's rounding over every cycle played, the rate's rounding down to
            // 2^-64 cycles a tick over every tick, plus f64's rounding
            let ticks = total * 1048576.0;
            let bound = cycles * (2f64.powi(-41) / seconds + 4.0 * f64::EPSILON)
                + ticks * 2f64.powi(-64)
                + 1e-9;
            assert!(
                err <= bound,
                "{seconds} s at {s}×: {ta} vs {want}, error {err:e} > {bound:e}"
            );
        }
    }
}
