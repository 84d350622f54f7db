//! `throng bake` extras: per-clip settings (loop mode, events, fps), anchors and root motion from
//! flags or a JSON settings file (docs/settings.md).

use anyhow::Context;
use std::path::{Path, PathBuf};
use throng_asset::LoopMode;
use throng_bake::settings::SettingsFile;
use throng_bake::{AnchorSelection, BakeOptions, EventSetting, RootMotion};

/// `CLIP:VALUE` split at the last `:` (so clip names may contain colons); `what` names the value
/// in the error.
fn clip_and_value<'a>(s: &'a str, what: &str) -> Result<(&'a str, &'a str), String> {
    s.rsplit_once(':')
        .ok_or_else(|| format!("expected CLIP:{what}, not {s:?}"))
}

/// `NAME:MODE` of `--loop-mode`.
pub fn parse_loop_mode(s: &str) -> Result<(String, LoopMode), String> {
    let (name, mode) = clip_and_value(s, "MODE")?;
    let mode = mode
        .parse::<LoopMode>()
        .map_err(|e| format!("clip {name:?}: {e}"))?;
    Ok((name.to_string(), mode))
}

/// `NAME:FPS` of `--clip-fps`.
pub fn parse_clip_fps(s: &str) -> Result<(String, f64), String> {
    let (name, fps) = clip_and_value(s, "FPS")?;
    let f = fps
        .parse::<f64>()
        .ok()
        .filter(|f| f.is_finite() && *f > 0.0)
        .ok_or_else(|| {
            format!(
                "clip {name:?}: fps must be a positive number of frames per second, not {fps:?}"
            )
        })?;
    Ok((name.to_string(), f))
}

/// `CLIP:SECONDS:NAME` of `--event`: the first `:`-separated field after which a number follows
/// ends the clip name, so clip and event names may contain colons.
pub fn parse_event(s: &str) -> Result<(String, EventSetting), String> {
    for (i, _) in s.match_indices(':') {
        let (clip, rest) = (&s[..i], &s[i + 1..]);
        if let Some((secs, name)) = rest.split_once(':') {
            if let Ok(t) = secs.parse::<f32>() {
                if !t.is_finite() || name.is_empty() {
                    break;
                }
                return Ok((
                    clip.to_string(),
                    EventSetting {
                        time: t,
                        name: name.to_string(),
                    },
                ));
            }
        }
    }
    Err(format!(
        "expected CLIP:SECONDS:NAME (e.g. Walk:0.35:footstep), not {s:?}"
    ))
}

/// `none` or `extract` of `--root-motion` (the motion root comes from `--motion-root`).
fn parse_root_motion(s: &str) -> Result<RootMotion, String> {
    match s {
        "none" => Ok(RootMotion::None),
        "extract" => Ok(RootMotion::Extract { motion_root: None }),
        _ => Err(format!("expected none or extract, not {s:?}")),
    }
}

#[derive(clap::Args, Default)]
pub struct ExtrasArgs {
    /// JSON settings file: per-clip loop/fps/events, anchors, root motion (docs/settings.md).
    /// Flags below are applied on top of it.
    #[arg(long, value_name = "F.json")]
    pub settings: Option<PathBuf>,
    /// Play this clip once (repeatable; same as --loop-mode NAME:once).
    #[arg(long, value_name = "CLIP")]
    pub once: Vec<String>,
    /// Loop mode of a clip: CLIP:loop|once|clamp|ping-pong (repeatable).
    #[arg(long = "loop-mode", value_name = "CLIP:MODE", value_parser = parse_loop_mode)]
    pub loop_mode: Vec<(String, LoopMode)>,
    /// Named event at a clip time in seconds: CLIP:SECONDS:NAME (repeatable). A clip's events
    /// given here replace the source's and the settings file's.
    #[arg(long, value_name = "CLIP:SECONDS:NAME", value_parser = parse_event)]
    pub event: Vec<(String, EventSetting)>,
    /// Frames per second of one clip: CLIP:FPS (repeatable; overrides --fps).
    #[arg(long = "clip-fps", value_name = "CLIP:FPS", value_parser = parse_clip_fps)]
    pub clip_fps: Vec<(String, f64)>,
    /// Bake this node's model-space transform per row as an anchor (repeatable).
    #[arg(long, value_name = "NODE", conflicts_with = "anchors")]
    pub anchor: Vec<String>,
    /// `auto`: an anchor for every non-joint node under a joint (weapon sockets, props).
    #[arg(long, value_parser = ["auto"])]
    pub anchors: Option<String>,
    /// Root motion: none (default) or extract (docs/design.md §2).
    #[arg(long = "root-motion", value_parser = parse_root_motion, value_name = "none|extract")]
    pub root_motion: Option<RootMotion>,
    /// Motion root node for --root-motion extract (default: the palette's top-most joint).
    #[arg(long = "motion-root", value_name = "NODE")]
    pub motion_root: Option<String>,
    /// Layer mask over joint subtrees: NAME=JOINT[,JOINT...] (repeatable; e.g. upper=Spine).
    /// Layers choose a mask by name at play time (render --blend-mask NAME).
    #[arg(long, value_name = "NAME=JOINT[,JOINT]", value_parser = throng_bake::masks::MaskSetting::parse)]
    pub mask: Vec<throng_bake::masks::MaskSetting>,
    /// Bake CLIP as an additive clip: its rows become deltas from its pose at SECONDS (default
    /// 0), applied on top of other layers (repeatable; CLIP or CLIP:SECONDS).
    #[arg(long, value_name = "CLIP[:SECONDS]", value_parser = parse_additive)]
    pub additive: Vec<(String, f32)>,
}

/// `CLIP` or `CLIP:SECONDS` of `--additive` (the last `:` separates, so clip names may hold
/// colons when a time is given).
fn parse_additive(s: &str) -> Result<(String, f32), String> {
    if let Some((clip, t)) = s.rsplit_once(':') {
        if let Ok(v) = t.parse::<f32>() {
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("{s:?}: the reference time must be seconds >= 0"));
            }
            return Ok((clip.to_string(), v));
        }
    }
    Ok((s.to_string(), 0.0))
}

/// Applies the settings file, then the flags, to `options`.
pub fn apply(x: &ExtrasArgs, options: &mut BakeOptions) -> anyhow::Result<()> {
    if let Some(path) = &x.settings {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading settings {}", path.display()))?;
        let file =
            SettingsFile::parse(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let at = |e: String| anyhow::anyhow!("{}: {e}", path.display());
        if let Some(a) = file.anchor_selection().map_err(at)? {
            options.anchors = a;
        }
        if let Some(r) = file.root_motion_setting().map_err(at)? {
            options.root_motion = r;
        }
        options.masks = file.mask_settings().map_err(at)?;
        if let Some(k) = file.influences {
            k.apply(options);
        }
        for (name, c) in file.clips {
            if let Some(t) = c.additive.and_then(|a| a.reference()) {
                options.additive.insert(name.clone(), t);
            }
            options.clip_settings.insert(name, c);
        }
    }
    for m in &x.mask {
        options.masks.retain(|o| o.name != m.name);
        options.masks.push(m.clone());
    }
    for (clip, t) in &x.additive {
        options.additive.insert(clip.clone(), *t);
    }
    for n in &x.once {
        options
            .clip_settings
            .entry(n.clone())
            .or_default()
            .loop_mode = Some(LoopMode::Once);
    }
    for (n, m) in &x.loop_mode {
        options
            .clip_settings
            .entry(n.clone())
            .or_default()
            .loop_mode = Some(*m);
    }
    for (n, f) in &x.clip_fps {
        options.clip_settings.entry(n.clone()).or_default().fps = Some(*f);
    }
    // Events given as flags replace the clip's list as a whole.
    let mut replaced: Vec<&str> = Vec::new();
    for (n, e) in &x.event {
        let c = options.clip_settings.entry(n.clone()).or_default();
        if !replaced.contains(&n.as_str()) {
            c.events = Some(Vec::new());
            replaced.push(n);
        }
        c.events.get_or_insert_with(Vec::new).push(e.clone());
    }
    if !x.anchor.is_empty() {
        options.anchors = AnchorSelection::Nodes(x.anchor.clone());
    } else if x.anchors.is_some() {
        options.anchors = AnchorSelection::Auto;
    }
    match &x.root_motion {
        Some(RootMotion::Extract { .. }) => {
            options.root_motion = RootMotion::Extract {
                motion_root: x.motion_root.clone(),
            }
        }
        Some(RootMotion::None) if x.motion_root.is_some() => {
            anyhow::bail!("--motion-root needs --root-motion extract")
        }
        Some(RootMotion::None) => options.root_motion = RootMotion::None,
        None => {
            if let Some(m) = &x.motion_root {
                match &mut options.root_motion {
                    RootMotion::Extract { motion_root } => *motion_root = Some(m.clone()),
                    RootMotion::None => anyhow::bail!("--motion-root needs --root-motion extract"),
                }
            }
        }
    }
    Ok(())
}

/// Checks that every clip a flag names exists in `input`, so the error names the flag (the
/// settings file's names are checked by the bake itself).
pub fn check_clip_flags(x: &ExtrasArgs, input: &Path, clips: &[&str]) -> anyhow::Result<()> {
    let named = x
        .once
        .iter()
        .map(|n| ("--once", n))
        .chain(x.loop_mode.iter().map(|(n, _)| ("--loop-mode", n)))
        .chain(x.event.iter().map(|(n, _)| ("--event", n)))
        .chain(x.clip_fps.iter().map(|(n, _)| ("--clip-fps", n)))
        .chain(x.additive.iter().map(|(n, _)| ("--additive", n)));
    for (flag, name) in named {
        if !clips.contains(&name.as_str()) {
            anyhow::bail!(
                "{flag} names clip {name:?}, which {} does not have (clips: {})",
                input.display(),
                if clips.is_empty() {
                    "none".to_string()
                } else {
                    clips.join(", ")
                }
            );
        }
    }
    Ok(())
}
