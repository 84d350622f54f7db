//! The sampling setting (docs/design.md §3 "Sampling"): how a bake places its frames in time.
//! One typed value from the command line to the file and back: parsed once
//! ([`Sampling::parse_fps`], [`MaxError::parse`], and [`Sampling::from_setting`] for a baked
//! file's settings), printed one way (`Display`), recorded one way ([`Sampling::as_setting`]).
//! It sits below every other module of the crate, so options, reports and errors all carry it.

use std::fmt;

/// Default error budget of a bake: 1e-3 of the bounding diagonal between samples (about 2 mm
/// on a 1.8 m character; docs/design.md §3 "Error-budgeted clips").
pub const DEFAULT_MAX_ERROR: MaxError = MaxError::Relative(1e-3);

/// Highest uniform sample rate a bake takes (frames per second, `--fps` and per-clip rates
/// alike). Authored keys run at 24–120 fps and motion capture at up to a few hundred, so a
/// higher rate adds rows without detail; rows cost GPU memory (one bone-texture row of every
/// palette entry per frame: 100,000 fps wrote a 203 MB file for a 2 s clip), and a bake over
/// this rate is refused with [`crate::BakeError::FpsTooHigh`] before any work.
pub const MAX_FPS: f64 = 1000.0;

/// How the frame table is sampled in time (docs/design.md §3).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sampling {
    /// Every clip uniformly at this many frames per second.
    Fixed(f64),
    /// Per clip, on the source's own key times, even irregular ones (see
    /// [`crate::frames::key_times`]); uniform rows when the keys are evenly spaced.
    SourceKeys,
    /// Per clip, the fewest frame times whose matrix lerp keeps every vertex within this error
    /// of reference skinning at every time between samples ([`crate::budget`]).
    MaxError(MaxError),
}

impl Default for Sampling {
    fn default() -> Self {
        Sampling::MaxError(DEFAULT_MAX_ERROR)
    }
}

impl Sampling {
    /// Parses a rate: `auto` (the source's keys) or a positive number of frames per second.
    pub fn parse_fps(s: &str) -> Option<Sampling> {
        if s.eq_ignore_ascii_case("auto") {
            return Some(Sampling::SourceKeys);
        }
        s.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite() && *f > 0.0)
            .map(Sampling::Fixed)
    }

    /// As recorded in the file's bake settings: `"auto"`, the number of frames per second, or
    /// `"max-error E"` (`E` as [`MaxError`] prints); [`Sampling::from_setting`] reads it back.
    pub fn as_setting(&self) -> String {
        match self {
            Sampling::SourceKeys => "auto".to_string(),
            Sampling::Fixed(f) => format!("{f}"),
            Sampling::MaxError(e) => format!("{MAX_ERROR_SETTING}{e}"),
        }
    }

    /// The sampling a file's bake settings record ([`Sampling::as_setting`]), parsed once where
    /// the file is read; `None` for text no bake writes.
    pub fn from_setting(s: &str) -> Option<Sampling> {
        match s.strip_prefix(MAX_ERROR_SETTING) {
            Some(e) => MaxError::parse(e).ok().map(Sampling::MaxError),
            None => Sampling::parse_fps(s),
        }
    }
}

/// How the file's bake settings spell an error budget: this, then the budget.
const MAX_ERROR_SETTING: &str = "max-error ";

/// How reports and tables name a sampling: `30 fps`, `source keys` or `max-error 1e-3`
/// (padded to a table column's width).
impl fmt::Display for Sampling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&match self {
            Sampling::Fixed(fps) => format!("{fps} fps"),
            Sampling::SourceKeys => "source keys".to_string(),
            Sampling::MaxError(e) => format!("{MAX_ERROR_SETTING}{e}"),
        })
    }
}

/// An error budget between samples: a fraction of the bounding diagonal, or a length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MaxError {
    /// Fraction of the diagonal of the reference-skinned vertices' bounding box at each time
    /// measured (the measure of `throng verify`, docs/design.md §7).
    Relative(f64),
    /// File units (metres in a conforming glTF, glTF 2.0 §3.5.4).
    Absolute(f64),
}

impl MaxError {
    /// Parses `1e-3` (a fraction of the bounding diagonal), `2mm`, `0.5cm`, `0.002m` (metres,
    /// the glTF unit) or `0.02u` (file units, whatever the file uses). The value must be finite
    /// and positive; a fraction must be below 1.
    pub fn parse(s: &str) -> Result<MaxError, String> {
        let t = s.trim();
        let (num, scale) = if let Some(n) = t.strip_suffix("mm") {
            (n, Some(1e-3))
        } else if let Some(n) = t.strip_suffix("cm") {
            (n, Some(1e-2))
        } else if let Some(n) = t.strip_suffix('m') {
            (n, Some(1.0))
        } else if let Some(n) = t.strip_suffix('u') {
            (n, Some(1.0))
        } else {
            (t, None)
        };
        let bad = || {
            format!(
                "{s:?} is not an error budget: give a fraction of the bounding diagonal (1e-3), \
                 a length in metres (2mm, 0.5cm, 0.002m) or in file units (0.02u)"
            )
        };
        let v: f64 = num.trim().parse().map_err(|_| bad())?;
        if !(v.is_finite() && v > 0.0) {
            return Err(bad());
        }
        match scale {
            Some(k) => Ok(MaxError::Absolute(v * k)),
            None if v < 1.0 => Ok(MaxError::Relative(v)),
            None => Err(format!(
                "{s:?}: a fraction of the bounding diagonal must be below 1; for a length add a unit (2mm, 0.02u)"
            )),
        }
    }

    /// The budget's number in its own unit: a fraction of the bounding diagonal, or file units.
    pub fn value(self) -> f64 {
        match self {
            MaxError::Relative(v) | MaxError::Absolute(v) => v,
        }
    }

    /// Whether the budget is a length in file units rather than a fraction of the diagonal.
    pub fn in_file_units(self) -> bool {
        matches!(self, MaxError::Absolute(_))
    }

    /// A budget of `value` in the same unit as this one.
    pub fn with_value(self, value: f64) -> MaxError {
        match self {
            MaxError::Relative(_) => MaxError::Relative(value),
            MaxError::Absolute(_) => MaxError::Absolute(value),
        }
    }

    /// Of one error given both ways, the one in this budget's unit.
    pub fn pick(self, relative: f64, absolute: f64) -> f64 {
        match self {
            MaxError::Relative(_) => relative,
            MaxError::Absolute(_) => absolute,
        }
    }

    /// The budget as a length (file units) where the bounding diagonal is `diagonal`.
    pub fn length_at(self, diagonal: f64) -> f64 {
        match self {
            MaxError::Relative(r) => r * diagonal,
            MaxError::Absolute(a) => a,
        }
    }
}

/// `1e-3` for a fraction, `0.002u` for a length (file units); [`MaxError::parse`] reads it back.
impl fmt::Display for MaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(&match self {
            MaxError::Relative(r) => format!("{r:e}"),
            MaxError::Absolute(a) => format!("{a}u"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_parse_and_print_back() {
        assert_eq!(MaxError::parse("1e-3"), Ok(MaxError::Relative(1e-3)));
        assert_eq!(MaxError::parse("2mm"), Ok(MaxError::Absolute(2e-3)));
        assert_eq!(MaxError::parse("0.5cm"), Ok(MaxError::Absolute(5e-3)));
        assert_eq!(MaxError::parse("0.02u"), Ok(MaxError::Absolute(0.02)));
        assert_eq!(MaxError::parse("0.002m"), Ok(MaxError::Absolute(0.002)));
        for bad in ["", "x", "0", "-1e-3", "NaN", "inf", "2", "1mmm", "mm"] {
            assert!(MaxError::parse(bad).is_err(), "{bad:?}");
        }
        for e in [MaxError::Relative(1e-4), MaxError::Absolute(0.0025)] {
            assert_eq!(MaxError::parse(&e.to_string()), Ok(e));
        }
        assert_eq!(Sampling::default().as_setting(), "max-error 1e-3");
        for s in [
            Sampling::default(),
            Sampling::MaxError(MaxError::Absolute(0.5)),
            Sampling::Fixed(30.0),
            Sampling::Fixed(12.5),
            Sampling::SourceKeys,
        ] {
            assert_eq!(Sampling::from_setting(&s.as_setting()), Some(s), "{s}");
        }
        assert_eq!(Sampling::from_setting("max-error x"), None);
        assert_eq!(Sampling::Fixed(30.0).to_string(), "30 fps");
        assert_eq!(Sampling::default().to_string(), "max-error 1e-3");
        assert_eq!(Sampling::parse_fps("auto"), Some(Sampling::SourceKeys));
        assert_eq!(Sampling::parse_fps("30"), Some(Sampling::Fixed(30.0)));
        assert_eq!(Sampling::parse_fps("0"), None);
    }
}
