//! Types shared by both playback modes.

use crate::Handle;
use throng_asset::LoopMode;

/// A clip of a runtime's clip table (its index). Found by name once
/// ([`crate::PlaybackControl::clip`]: an unknown name is an error listing the clips, with a
/// case-insensitive match suggested), or made from an index ([`ClipId::new`]); checked against
/// the table where it is played ([`crate::RuntimeError::NoSuchClip`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ClipId(u32);

impl ClipId {
    /// Clip `index` of the clip table (an index past `u32::MAX` is past every table).
    pub const fn new(index: usize) -> ClipId {
        ClipId(if index > u32::MAX as usize {
            u32::MAX
        } else {
            index as u32
        })
    }

    /// Index in the clip table.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// The clip of `names` called `name`, or the error naming the clips.
pub(crate) fn find_clip<'a>(
    name: &str,
    names: impl Iterator<Item = &'a str> + Clone,
) -> Result<ClipId, crate::RuntimeError> {
    match names.clone().position(|n| n == name) {
        Some(i) => Ok(ClipId::new(i)),
        None => {
            let known: Vec<&str> = names.collect();
            Err(crate::RuntimeError::UnknownClip {
                name: name.to_string(),
                hint: throng_contract::clip_name_hint(name, known.iter().copied()),
                known: if known.is_empty() {
                    "none".into()
                } else {
                    known.join(", ")
                },
            })
        }
    }
}

/// How to start a clip.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayOptions {
    /// Clip speed factor (0 to [`MAX_SPEED`]; 1 = authored speed). Multiplied by the instance speed
    /// ([`crate::Instance::speed`]), which applies to all of an instance's layers.
    pub speed: f32,
    /// Overrides the clip table's loop mode.
    pub loop_mode: Option<LoopMode>,
    /// Clip time to start at, seconds (wrapped or clamped by the loop mode).
    pub start_time: f32,
}

impl PlayOptions {
    /// Authored speed, the clip table's loop mode, from clip time `start_time` seconds.
    pub fn at(start_time: f32) -> PlayOptions {
        PlayOptions {
            start_time,
            ..Default::default()
        }
    }

    /// The same options at clip speed factor `speed`.
    pub fn with_speed(self, speed: f32) -> PlayOptions {
        PlayOptions { speed, ..self }
    }

    /// The same options with the clip table's loop mode overridden.
    pub fn with_loop_mode(self, loop_mode: LoopMode) -> PlayOptions {
        PlayOptions {
            loop_mode: Some(loop_mode),
            ..self
        }
    }
}

impl Default for PlayOptions {
    fn default() -> Self {
        PlayOptions {
            speed: 1.0,
            loop_mode: None,
            start_time: 0.0,
        }
    }
}

/// An event crossing (docs/design.md §4): fired once per crossing of the play interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FiredEvent {
    pub instance: Handle,
    pub clip: ClipId,
    /// Index into that clip's `events`.
    pub event: u32,
    /// Runtime clock time of the crossing, seconds since the runtime was created (interpolated
    /// within the update step).
    pub time: f64,
}

/// A one-shot (once/clamp) layer reached its end; it now holds its last frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Finished {
    pub instance: Handle,
    pub clip: ClipId,
    /// Runtime clock time at which the end was reached, seconds.
    pub time: f64,
}

/// The largest speed factor a clip ([`PlayOptions::speed`]) or an instance
/// ([`crate::Instance::speed`]) may be given, in both timings; a larger one (or a
/// negative or non-finite one) is refused with [`crate::RuntimeError::BadSpeed`]. A layer
/// plays at the product of the two, so at most 10^6 × authored speed: a 1 s walk cycle then
/// laps ~17,000 times in a 1/60 s frame, and [`crate::ClipEvents::crossings`] fires the events
/// of the last [`crate::MAX_LAPS`] laps of such a step only. At 1,000 × and 60 Hz every lap's
/// events of a clip of 0.26 s or longer still fire.
pub const MAX_SPEED: f32 = 1000.0;

pub(crate) fn check_speed(speed: f32) -> Result<(), crate::RuntimeError> {
    if (0.0..=MAX_SPEED).contains(&speed) {
        Ok(())
    } else {
        Err(crate::RuntimeError::BadSpeed(speed))
    }
}

pub(crate) fn check_nonneg(what: &'static str, v: f64) -> Result<(), crate::RuntimeError> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(crate::RuntimeError::BadValue { what, value: v })
    }
}

/// Index check of a clip against a table of `clips` clips.
pub(crate) fn check_clip(clip: usize, clips: usize) -> Result<(), crate::RuntimeError> {
    if clip < clips {
        Ok(())
    } else {
        Err(crate::RuntimeError::NoSuchClip { clip, clips })
    }
}

/// Checks an overlay layer (`play_layer` of both runtimes, docs/design.md §4 "Layer masks and
/// additive layers"): weight in [0, 1], mask number at most [`throng_contract::MAX_MASKS`],
/// and a mask or an additive clip. Returns the mask's bits for the layer's clip word.
pub(crate) fn check_overlay(
    clip: usize,
    additive: bool,
    mask: u32,
    weight: f32,
) -> Result<u32, crate::RuntimeError> {
    if !(0.0..=1.0).contains(&weight) {
        return Err(crate::RuntimeError::BadWeight(weight));
    }
    if mask > throng_contract::MAX_MASKS {
        return Err(crate::RuntimeError::NoSuchMask {
            mask,
            max: throng_contract::MAX_MASKS,
        });
    }
    if mask == 0 && !additive {
        return Err(crate::RuntimeError::NotAnOverlay { clip });
    }
    Ok(throng_contract::layer_mask_bits(mask))
}

/// Speed factors of a two-clip blend in normalised time (docs/design.md §4), weight `w` of clip
/// b: each layer's `d_x / lerp(d_a, d_b, w)`, so both complete a cycle together (0 when the
/// mean duration is 0). A weight outside [0, 1] is an error.
pub(crate) fn blend_sync(da: f64, db: f64, weight: f32) -> Result<[f32; 2], crate::RuntimeError> {
    if !(0.0..=1.0).contains(&weight) {
        return Err(crate::RuntimeError::BadWeight(weight));
    }
    let d = da * (1.0 - weight as f64) + db * weight as f64;
    let sync = |dx: f64| if d > 0.0 { (dx / d) as f32 } else { 0.0 };
    Ok([sync(da), sync(db)])
}
