//! Loop mode and events of one clip (docs/design.md §2, docs/settings.md): the clip's settings
//! when given, else the source's `extras.throng`. Checked here, where the frame table is laid
//! out, because an event must lie within the clip as baked.

use crate::error::BakeError;
use crate::settings::ClipSettings;
use throng_asset::{ClipEvent, LoopMode};

/// Loop mode and events of `clip` baked at `fps` over `[0, d]` seconds. Checks the rate and that
/// every event lies within the clip; events sorted by time.
pub fn resolve(
    clip: &throng_anim::Clip,
    set: Option<&ClipSettings>,
    fps: f64,
    d: f64,
    file: &str,
) -> Result<(LoopMode, Vec<ClipEvent>), BakeError> {
    let bad = |what: String| BakeError::InvalidOption {
        file: file.to_string(),
        what: format!("clip {:?}: {what}", clip.name),
    };
    if !(fps.is_finite() && fps > 0.0) {
        return Err(bad(format!("fps must be a positive number, not {fps}")));
    }
    let mode = set.and_then(|s| s.loop_mode).unwrap_or(clip.loop_mode);
    let mut events: Vec<ClipEvent> = match set.and_then(|s| s.events.as_ref()) {
        Some(ev) => {
            let mut out = Vec::with_capacity(ev.len());
            for e in ev {
                let t = e.time as f64;
                // 1 µs of slack for times written with fewer digits than the duration.
                if !(t.is_finite() && (-1e-6..=d + 1e-6).contains(&t)) {
                    return Err(bad(format!(
                        "event {:?} at {} s lies outside the clip (0 to {d} s)",
                        e.name, e.time
                    )));
                }
                if e.name.is_empty() {
                    return Err(bad(format!("the event at {} s has an empty name", e.time)));
                }
                out.push(ClipEvent {
                    time: e.time.clamp(0.0, d as f32),
                    name: e.name.clone(),
                });
            }
            out
        }
        None => clip
            .events
            .iter()
            .map(|e| ClipEvent {
                time: e.time,
                name: e.name.clone(),
            })
            .collect(),
    };
    events.sort_by(|a, b| a.time.total_cmp(&b.time));
    Ok((mode, events))
}
