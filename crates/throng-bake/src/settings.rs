//! Per-clip settings, anchors and root motion (docs/design.md §2–3): what the bake can be told on top
//! of the source's `animations[i].extras.throng`, from command-line flags or a JSON settings file
//! (schema in docs/settings.md). Bake settings override the source.

use serde::Deserialize;
use std::collections::BTreeMap;
use throng_asset::LoopMode;

/// One event of a clip: a name at a clip time (seconds, within `[0, duration]`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventSetting {
    /// Clip time in seconds.
    pub time: f32,
    pub name: String,
}

/// Overrides for one clip; `None` keeps the source's value (or the bake-wide default).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClipSettings {
    /// Loop mode (`loop`, `once`, `clamp`, `ping-pong`).
    #[serde(default, rename = "loop")]
    pub loop_mode: Option<LoopMode>,
    /// Frames per second of this clip's rows (overrides `--fps`, including `auto`).
    #[serde(default)]
    pub fps: Option<f64>,
    /// Replaces the source's events of this clip (an empty list removes them).
    #[serde(default)]
    pub events: Option<Vec<EventSetting>>,
    /// Bake the clip as additive (docs/design.md §4): `true` (reference pose at 0 s) or the
    /// reference clip time in seconds.
    #[serde(default)]
    pub additive: Option<AdditiveSetting>,
}

/// `"additive"` of a clip: `true` / `false`, or the reference time in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum AdditiveSetting {
    On(bool),
    Reference(f32),
}

impl AdditiveSetting {
    /// The reference time, or `None` when the clip is not additive.
    pub fn reference(self) -> Option<f32> {
        match self {
            AdditiveSetting::On(true) => Some(0.0),
            AdditiveSetting::On(false) => None,
            AdditiveSetting::Reference(t) => Some(t),
        }
    }
}

/// Influences per vertex as asked for: a fixed count (4 or 8), or `auto`: 4, or 8 where the
/// error budget needs it (see [`crate::BakeOptions::auto_influences`]). Parsed once
/// ([`InfluenceCount::parse`]) from a flag or the settings file (`4`, `8` or `"auto"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InfluenceCount {
    Fixed(u32),
    Auto,
}

impl InfluenceCount {
    /// `4`, `8` or `auto`.
    pub fn parse(s: &str) -> Result<InfluenceCount, String> {
        match s.trim() {
            "4" => Ok(InfluenceCount::Fixed(4)),
            "8" => Ok(InfluenceCount::Fixed(8)),
            a if a.eq_ignore_ascii_case("auto") => Ok(InfluenceCount::Auto),
            _ => Err(format!(
                "influences per vertex must be 4, 8 or auto, not {s:?}"
            )),
        }
    }

    /// Sets `options.influences` and `options.auto_influences` (auto starts from 4).
    pub fn apply(self, options: &mut crate::BakeOptions) {
        match self {
            InfluenceCount::Fixed(k) => {
                options.influences = k;
                options.auto_influences = false;
            }
            InfluenceCount::Auto => {
                options.influences = 4;
                options.auto_influences = true;
            }
        }
    }
}

impl<'de> Deserialize<'de> for InfluenceCount {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(u32),
            Text(String),
        }
        let text = match Raw::deserialize(d)? {
            Raw::Number(n) => n.to_string(),
            Raw::Text(t) => t,
        };
        InfluenceCount::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// Which nodes get an anchor (attachment socket) track.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum AnchorSelection {
    /// No anchor texture.
    #[default]
    None,
    /// These nodes, by glTF node name (or `node<index>` for unnamed nodes), in this order.
    Nodes(Vec<String>),
    /// Every node that is not a joint of any skin but hangs under one (weapon sockets, props),
    /// in node-index order.
    Auto,
}

/// Root-motion extraction (docs/design.md §2 "Root motion").
#[derive(Debug, Clone, PartialEq, Default)]
pub enum RootMotion {
    /// Poses keep their motion (default).
    #[default]
    None,
    /// Remove the motion root's horizontal translation (X, Z) and yaw (about +Y) relative to each
    /// clip's first frame and store it as a `(dx, dz, dyaw)` curve per frame.
    Extract {
        /// Node name of the motion root; `None` = the top-most joint of the palette.
        motion_root: Option<String>,
    },
}

/// The JSON settings file (`throng bake --settings F.json`, docs/settings.md). Every field is
/// optional; command-line flags are applied on top of it.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SettingsFile {
    /// Per clip, keyed by clip name.
    #[serde(default)]
    pub clips: BTreeMap<String, ClipSettings>,
    /// `"auto"` or a list of node names.
    #[serde(default)]
    pub anchors: Option<AnchorsSetting>,
    /// `"none"` or `"extract"`.
    #[serde(default)]
    pub root_motion: Option<String>,
    /// Node name of the motion root (with `"rootMotion": "extract"`).
    #[serde(default)]
    pub motion_root: Option<String>,
    /// Layer masks: mask name → a joint or a list of joints whose subtrees it covers
    /// (docs/design.md §4); numbered 1, 2, … in name order (layers find them by name).
    #[serde(default)]
    pub masks: Option<serde_json::Map<String, serde_json::Value>>,
    /// Influences per vertex: `4`, `8` or `"auto"` (the default).
    #[serde(default)]
    pub influences: Option<InfluenceCount>,
}

/// `"anchors"` of the settings file: `"auto"` or a list of node names.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum AnchorsSetting {
    Keyword(String),
    Nodes(Vec<String>),
}

impl SettingsFile {
    /// Parses the settings JSON; the error names the line and column and what was expected.
    pub fn parse(json: &str) -> Result<SettingsFile, String> {
        serde_json::from_str(json).map_err(|e| e.to_string())
    }

    /// The anchor selection this file asks for (`None` when it does not mention anchors).
    pub fn anchor_selection(&self) -> Result<Option<AnchorSelection>, String> {
        match &self.anchors {
            None => Ok(None),
            Some(AnchorsSetting::Keyword(k)) if k == "auto" => Ok(Some(AnchorSelection::Auto)),
            Some(AnchorsSetting::Keyword(k)) => Err(format!(
                "\"anchors\" must be \"auto\" or a list of node names, not {k:?}"
            )),
            Some(AnchorsSetting::Nodes(n)) => Ok(Some(AnchorSelection::Nodes(n.clone()))),
        }
    }

    /// The layer masks this file asks for, in name order.
    pub fn mask_settings(&self) -> Result<Vec<crate::masks::MaskSetting>, String> {
        let Some(m) = &self.masks else {
            return Ok(Vec::new());
        };
        m.iter()
            .map(|(name, v)| {
                let roots: Option<Vec<String>> = match v {
                    serde_json::Value::String(s) => Some(vec![s.clone()]),
                    serde_json::Value::Array(a) => {
                        a.iter().map(|x| x.as_str().map(str::to_string)).collect()
                    }
                    _ => None,
                };
                match roots {
                    Some(r) if !r.is_empty() => Ok(crate::masks::MaskSetting {
                        name: name.clone(),
                        roots: r,
                    }),
                    _ => Err(format!(
                        "\"masks\".{name:?} must be a joint name or a list of joint names"
                    )),
                }
            })
            .collect()
    }

    /// The root-motion setting this file asks for (`None` when it does not mention it).
    pub fn root_motion_setting(&self) -> Result<Option<RootMotion>, String> {
        match self.root_motion.as_deref() {
            None if self.motion_root.is_some() => {
                Err("\"motionRoot\" needs \"rootMotion\": \"extract\"".to_string())
            }
            None => Ok(None),
            Some("none") if self.motion_root.is_some() => {
                Err("\"motionRoot\" needs \"rootMotion\": \"extract\", not \"none\"".to_string())
            }
            Some("none") => Ok(Some(RootMotion::None)),
            Some("extract") => Ok(Some(RootMotion::Extract {
                motion_root: self.motion_root.clone(),
            })),
            Some(o) => Err(format!(
                "\"rootMotion\" must be \"none\" or \"extract\", not {o:?}"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_example() {
        let s = SettingsFile::parse(
            r#"{
              "clips": {
                "Walk": { "loop": "loop", "fps": 60, "events": [{ "time": 0.2, "name": "step" }] },
                "Survey": { "loop": "once" }
              },
              "anchors": ["b_Head_05"],
              "rootMotion": "extract",
              "motionRoot": "b_Root_00"
            }"#,
        )
        .unwrap();
        assert_eq!(s.clips["Walk"].fps, Some(60.0));
        assert_eq!(s.clips["Survey"].loop_mode, Some(LoopMode::Once));
        assert_eq!(
            s.anchor_selection().unwrap(),
            Some(AnchorSelection::Nodes(vec!["b_Head_05".into()]))
        );
        assert_eq!(
            s.root_motion_setting().unwrap(),
            Some(RootMotion::Extract {
                motion_root: Some("b_Root_00".into())
            })
        );
    }

    #[test]
    fn influences_are_4_8_or_auto_as_numbers_or_text() {
        let k = |json: &str| SettingsFile::parse(json).map(|s| s.influences);
        assert_eq!(
            k(r#"{"influences": 8}"#),
            Ok(Some(InfluenceCount::Fixed(8)))
        );
        assert_eq!(
            k(r#"{"influences": "4"}"#),
            Ok(Some(InfluenceCount::Fixed(4)))
        );
        assert_eq!(
            k(r#"{"influences": "auto"}"#),
            Ok(Some(InfluenceCount::Auto))
        );
        assert_eq!(k("{}"), Ok(None));
        for bad in [
            r#"{"influences": 6}"#,
            r#"{"influences": "all"}"#,
            r#"{"influences": -4}"#,
        ] {
            assert!(k(bad).is_err(), "{bad} accepted");
        }
        let mut o = crate::BakeOptions::default();
        InfluenceCount::Auto.apply(&mut o);
        assert_eq!((o.influences, o.auto_influences), (4, true));
        InfluenceCount::Fixed(8).apply(&mut o);
        assert_eq!((o.influences, o.auto_influences), (8, false));
    }

    #[test]
    fn rejects_typos_and_bad_values() {
        assert!(SettingsFile::parse(r#"{"clip": {}}"#).is_err());
        assert!(SettingsFile::parse(r#"{"clips": {"A": {"loop": "bounce"}}}"#).is_err());
        let s = SettingsFile::parse(r#"{"anchors": "all"}"#).unwrap();
        assert!(s.anchor_selection().is_err());
        let s = SettingsFile::parse(r#"{"motionRoot": "hips"}"#).unwrap();
        assert!(s.root_motion_setting().is_err());
    }
}
