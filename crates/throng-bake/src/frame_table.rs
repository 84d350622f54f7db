//! Stage: the frame table (docs/design.md §3 "Frame table"). Row 0 is the rest pose, then each
//! clip's frames at the times [`crate::timing`] chose; per clip the table's entry
//! ([`ClipInfo`], its bounds and root motion filled in by later stages) and the report's.

use crate::error::BakeError;
use crate::frames::{self, clip_duration, frame_step, frame_time};
use crate::options::BakeOptions;
use crate::playback;
use crate::report::{ClipReport, ClipSampling, ErrorParts};
use throng_anim::Model;
use throng_asset::{Aabb, ClipInfo};

/// Rows beyond this cannot be addressed exactly by the f32 row of the per-instance record
/// (the contract's limit).
pub const MAX_ROWS: u64 = throng_contract::MAX_ROWS as u64;

/// Frame times of one clip: uniform `(frames, fps)` or an explicit increasing list (seconds).
#[derive(Debug, Clone, PartialEq)]
pub enum ClipTimes {
    Uniform(u64, f64),
    Listed(Vec<f32>),
}

/// When one clip is sampled and why, as [`crate::timing`] decided.
#[derive(Debug, Clone, PartialEq)]
pub struct ClipPlan {
    pub times: ClipTimes,
    pub sampling: ClipSampling,
    /// Under an error budget, the error the placed frames were measured to make.
    pub error: Option<ErrorParts>,
    /// How the clip's rows are interpolated (Catmull-Rom only on uniform times).
    pub interpolation: throng_asset::RowInterpolation,
    /// The clip ends where it starts (a cubic clip's taps wrap).
    pub periodic: bool,
    /// The degree of polynomial pieces (interpolation `pieces`), else 0.
    pub degree: u8,
}

/// One frame-table row: which clip (None = rest), which frame, at what clip time (seconds).
#[derive(Debug, Clone, Copy)]
pub struct RowTime {
    pub clip: Option<usize>,
    pub frame: u32,
    pub time: f32,
}

impl RowTime {
    /// The row's clip name for messages (`rest` for row 0).
    pub fn clip_name(&self, model: &Model) -> String {
        match self.clip {
            None => "rest".to_string(),
            Some(c) => model.clips[c].name.clone(),
        }
    }
}

/// The frame table: its rows, and per clip the asset's entry and the report's.
pub struct FrameTable {
    pub rows: Vec<RowTime>,
    pub clips: Vec<ClipInfo>,
    pub reports: Vec<ClipReport>,
}

/// Lays out the rows of `plans` (one per clip of `model`), with each clip's loop mode and events
/// ([`playback::resolve`]). Errors when the table outgrows [`MAX_ROWS`], or on a clip's bad
/// playback settings.
pub fn build(
    model: &Model,
    options: &BakeOptions,
    plans: &[ClipPlan],
) -> Result<FrameTable, BakeError> {
    let file = options.source_name.as_str();
    let mut rows = vec![RowTime {
        clip: None,
        frame: 0,
        time: 0.0,
    }];
    let mut clips = Vec::with_capacity(model.clips.len());
    let mut reports = Vec::with_capacity(model.clips.len());
    for (ci, (clip, plan)) in model.clips.iter().zip(plans).enumerate() {
        let d = clip_duration(clip);
        let (n, fps, listed) = match &plan.times {
            ClipTimes::Uniform(n, f) => (*n, *f, None),
            ClipTimes::Listed(t) => (t.len() as u64, (t.len() - 1) as f64 / d, Some(t)),
        };
        let set = options.clip_settings.get(&clip.name);
        let (loop_mode, events) = playback::resolve(clip, set, fps, d, file)?;
        let first = rows.len() as u64;
        if first + n > MAX_ROWS {
            return Err(BakeError::TooManyRows {
                file: file.to_string(),
                rows: first + n,
            });
        }
        rows.extend((0..n).map(|k| RowTime {
            clip: Some(ci),
            frame: k as u32,
            time: match listed {
                None => frame_time(k, n, d) as f32,
                Some(t) => t[k as usize],
            },
        }));
        let (min_step, max_step) = step_range(listed.map(Vec::as_slice), n, d);
        clips.push(ClipInfo {
            times: listed.cloned(),
            name: clip.name.clone(),
            first_row: first as u32,
            frames: n as u32,
            fps,
            step: frame_step(n, d),
            duration: d,
            loop_mode,
            events,
            root_motion: None,
            bounds: Aabb::EMPTY,
            additive: None,
            interpolation: plan.interpolation,
            periodic: plan.periodic,
            degree: plan.degree,
        });
        reports.push(ClipReport {
            name: clip.name.clone(),
            fps,
            key_rate: frames::key_rate(clip),
            sampling: plan.sampling,
            frames: n as u32,
            first_row: first as u32,
            duration: d,
            min_step,
            max_step,
            error: plan.error.clone(),
        });
    }
    Ok(FrameTable {
        rows,
        clips,
        reports,
    })
}

/// Shortest and longest interval between frames (seconds; 0 for one frame).
fn step_range(listed: Option<&[f32]>, n: u64, d: f64) -> (f64, f64) {
    match listed {
        Some(t) if t.len() > 1 => t.windows(2).fold((f64::INFINITY, 0.0f64), |(lo, hi), w| {
            let s = w[1] as f64 - w[0] as f64;
            (lo.min(s), hi.max(s))
        }),
        _ => {
            let s = frame_step(n, d);
            (s, s)
        }
    }
}
