//! Stage: validation up front. The options are checked against each other and against the
//! model before any work, so a typo fails in milliseconds rather than after placing frames, and
//! the stages after it need not check again. Messages speak of the options as [`BakeOptions`]
//! names them; front ends add how to set them.

use crate::error::BakeError;
use crate::options::{BakeOptions, MaxError, RootMotion, Sampling};
use crate::palette::Palette;
use crate::sampling::MAX_FPS;
use throng_anim::Model;
use throng_asset::Encoding;
use throng_contract::limits::{MAX_CLIP_SECONDS, MIN_FPS};

/// Checks what the options say on their own: influences, texture size, LOD ratios, additive
/// clips and the sampling.
pub fn options(o: &BakeOptions) -> Result<(), BakeError> {
    let bad = |what: String| BakeError::InvalidOption {
        file: o.source_name.clone(),
        what,
    };
    if o.influences != 4 && o.influences != 8 {
        return Err(bad(format!(
            "influences per vertex must be 4 or 8, not {}",
            o.influences
        )));
    }
    if o.max_texture_size == 0 {
        return Err(bad("the maximum texture size must be at least 1".into()));
    }
    crate::lod::check_ratios(&o.lods).map_err(bad)?;
    if !o.additive.is_empty() && o.root_motion != RootMotion::None {
        return Err(bad(
            "additive clips cannot be baked with root-motion extraction (the delta would carry the removed motion); bake them without it".into(),
        ));
    }
    for (clip, t) in &o.additive {
        if !(t.is_finite() && *t >= 0.0) {
            return Err(bad(format!(
                "additive clip {clip:?}: the reference time must be a finite number of seconds >= 0, not {t}"
            )));
        }
    }
    let too_high = |what: String, fps: f64| BakeError::FpsTooHigh {
        file: o.source_name.clone(),
        what,
        fps,
        limit: MAX_FPS,
    };
    for (clip, settings) in &o.clip_settings {
        match settings.fps {
            Some(f) if !(f.is_finite() && f >= MIN_FPS) => {
                return Err(bad(format!(
                    "clip {clip:?}: fps must be a number of at least {MIN_FPS:e} (one frame in the longest clip, {MAX_CLIP_SECONDS:e} s), not {f}"
                )))
            }
            Some(f) if f > MAX_FPS => return Err(too_high(format!("clip '{clip}'"), f)),
            _ => {}
        }
    }
    match o.sampling {
        Sampling::Fixed(f) if f.is_finite() && f > MAX_FPS => {
            Err(too_high("the bake".into(), f))
        }
        Sampling::Fixed(f) if !(f.is_finite() && f >= MIN_FPS) => Err(bad(format!(
            "fps must be a number of at least {MIN_FPS:e} (one frame in the longest clip, {MAX_CLIP_SECONDS:e} s), not {f}"
        ))),
        Sampling::MaxError(MaxError::Relative(r)) if !(r.is_finite() && r > 0.0 && r < 1.0) => {
            Err(bad(format!(
                "the max error (the sampling's error budget) must be a fraction of the bounding diagonal between 0 and 1, not {r}"
            )))
        }
        Sampling::MaxError(MaxError::Absolute(a)) if !(a.is_finite() && a > 0.0) => {
            Err(bad(format!(
                "the max error (the sampling's error budget) must be a positive length, not {a} file units"
            )))
        }
        _ => Ok(()),
    }
}

/// Checks the options against the model and its palette: the bone texture's row fits the
/// texture size, and every clip the settings name exists (so a typo does not silently do
/// nothing).
pub fn against_model(model: &Model, palette: &Palette, o: &BakeOptions) -> Result<(), BakeError> {
    let file = o.source_name.as_str();
    width(file, palette.entries.len(), o.encoding, o.max_texture_size)?;
    for name in o.clip_settings.keys().chain(o.additive.keys()) {
        if !model.clips.iter().any(|c| &c.name == name) {
            let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
            let hint = throng_contract::clip_name_hint(name, names.iter().copied());
            return Err(BakeError::InvalidOption {
                file: file.to_string(),
                what: format!(
                    "clip settings name clip {name:?}{hint}, which the file does not have (clips: {})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            });
        }
    }
    Ok(())
}

/// A bone-texture row of `entries` palette entries in `enc` must fit `max` texels.
pub fn width(file: &str, entries: usize, enc: Encoding, max: u32) -> Result<(), BakeError> {
    let width = entries as u64 * enc.texels_per_entry() as u64;
    if width > max as u64 {
        return Err(BakeError::TextureTooWide {
            file: file.to_string(),
            entries,
            texels: enc.texels_per_entry(),
            encoding: enc.as_str(),
            width,
            max,
        });
    }
    Ok(())
}
