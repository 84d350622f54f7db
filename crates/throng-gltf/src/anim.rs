//! Animations (glTF 2.0 §3.11) as clips of TRS channels, plus throng's authoring extras
//! `animations[i].extras.throng = {"loop": .., "events": [{"time": s, "name": ..}]}`.

use glam::{Quat, Vec3};
use gltf_json::animation::{Interpolation as JInterp, Property};
use gltf_json::validation::Checked;
use throng_anim::model::{
    Channel, ChannelValues, Clip, ClipEvent, Interpolation, LoopMode, MAX_CLIP_SECONDS,
};

use crate::accessor;
use crate::error::{ImportError, ImportErrorKind as K};
use crate::nodes::{node_label, unit_quat, QuatFix};
use crate::Ctx;

pub(crate) fn read_clips(ctx: &mut Ctx) -> Result<Vec<Clip>, ImportError> {
    let src = ctx.src;
    if src.channels_without_node > 0 {
        ctx.warn(format!(
            "{} animation channels have no target node and are ignored",
            src.channels_without_node
        ));
    }
    let mut clips = Vec::with_capacity(src.root.animations.len());
    for (ai, ja) in src.root.animations.iter().enumerate() {
        let anim_label = match &ja.name {
            Some(n) => format!("animation {ai} ({n:?})"),
            None => format!("animation {ai}"),
        };
        let name = match &ja.name {
            Some(n) if !n.is_empty() => n.clone(),
            _ => format!("clip{ai}"),
        };
        let mut channels = Vec::with_capacity(ja.channels.len());
        let mut skipped_morph_channels = 0;
        for (ci, jc) in ja.channels.iter().enumerate() {
            let element = format!("{anim_label} channel {ci}");
            let node = ctx.check_index(
                &element,
                "node",
                jc.target.node.value(),
                src.root.nodes.len(),
            )?;
            let path = match jc.target.path {
                Checked::Valid(Property::MorphTargetWeights) => {
                    skipped_morph_channels += 1;
                    continue;
                }
                Checked::Valid(p) => p,
                Checked::Invalid => {
                    ctx.warn(format!("{element} has an unknown target path; ignored"));
                    continue;
                }
            };
            let si = jc.sampler.value();
            let Some(js) = ja.samplers.get(si) else {
                return Err(ctx.err(K::BadReference {
                    element,
                    target: format!("sampler {si}"),
                }));
            };
            let element = format!("{element} (sampler {si})");
            if let Some(ch) = read_channel(ctx, js, node, path, &element)? {
                if src.root.nodes[node].matrix.is_some() {
                    ctx.warn(format!(
                        "{element} animates {} which has a matrix (glTF 2.0 §3.5.3 forbids this); its TRS decomposition is animated",
                        node_label(&src.root, node)
                    ));
                }
                let same = |c: &Channel| {
                    c.node == node
                        && std::mem::discriminant(&c.values) == std::mem::discriminant(&ch.values)
                };
                if channels.iter().any(same) {
                    ctx.warn(format!(
                        "{element} animates the same property of {} as an earlier channel; both are kept, the later one wins when sampled",
                        node_label(&src.root, node)
                    ));
                }
                channels.push(ch);
            }
        }
        if skipped_morph_channels > 0 {
            ctx.warn(format!(
                "{anim_label} has {skipped_morph_channels} morph-weight channels; morph targets are not baked, they are skipped"
            ));
        }
        let duration = channels
            .iter()
            .filter_map(|c| c.times.last().copied())
            .fold(0.0f32, f32::max);
        let (loop_mode, events) = read_extras(ctx, ja.extras.as_deref(), &anim_label);
        clips.push(Clip {
            name,
            duration,
            channels,
            loop_mode,
            events,
            skipped_morph_channels,
        });
    }
    Ok(clips)
}

fn read_channel(
    ctx: &mut Ctx,
    js: &gltf_json::animation::Sampler,
    node: usize,
    path: Property,
    element: &str,
) -> Result<Option<Channel>, ImportError> {
    let interpolation = interpolation_of(ctx, js, element);
    let times = read_key_times(ctx, js.input.value(), element)?;
    if times.is_empty() {
        ctx.warn(format!("{element} has no keys; ignored"));
        return Ok(None);
    }
    let per_key = if interpolation == Interpolation::CubicSpline {
        if times.len() < 2 {
            return Err(ctx.err(K::BadSampler {
                element: element.into(),
                reason: "CUBICSPLINE needs at least 2 keys (glTF 2.0 Appendix C)".into(),
            }));
        }
        3
    } else {
        1
    };
    let out = read_outputs(
        ctx,
        js.output.value(),
        path,
        element,
        (times.len(), per_key),
    )?;

    // Keys at the same time: the later key wins (it is the value from that time on).
    let mut keep: Vec<usize> = Vec::with_capacity(times.len());
    for k in 0..times.len() {
        if k + 1 < times.len() && times[k + 1] == times[k] {
            continue;
        }
        keep.push(k);
    }
    if keep.len() < times.len() {
        ctx.warn(format!(
            "{element} has {} keys at duplicate times; the last key at each time is kept",
            times.len() - keep.len()
        ));
    }
    let kept_times: Vec<f32> = keep.iter().map(|&k| times[k]).collect();
    let values = channel_values(ctx, path, &out, &keep, per_key);
    if interpolation == Interpolation::CubicSpline && kept_times.len() < 2 {
        return Err(ctx.err(K::BadSampler {
            element: element.into(),
            reason: "CUBICSPLINE needs at least 2 keys at distinct times".into(),
        }));
    }
    Ok(Some(Channel {
        node,
        interpolation,
        times: kept_times,
        values,
    }))
}

/// The sampler's interpolation; an unknown one is LINEAR, with a warning.
fn interpolation_of(
    ctx: &mut Ctx,
    js: &gltf_json::animation::Sampler,
    element: &str,
) -> Interpolation {
    match js.interpolation {
        Checked::Valid(JInterp::Linear) => Interpolation::Linear,
        Checked::Valid(JInterp::Step) => Interpolation::Step,
        Checked::Valid(JInterp::CubicSpline) => Interpolation::CubicSpline,
        Checked::Invalid => {
            ctx.warn(format!(
                "{element} has an unknown interpolation; LINEAR used"
            ));
            Interpolation::Linear
        }
    }
}

/// The sampler's input (accessor `in_acc`): key times in seconds, finite, not decreasing,
/// starting at 0 or later (glTF 2.0 §3.11).
fn read_key_times(ctx: &Ctx, in_acc: usize, element: &str) -> Result<Vec<f32>, ImportError> {
    let in_usage = format!("input of {element}");
    let times: Vec<f32> = accessor::read_finite::<1>(ctx.src, in_acc, &in_usage, ctx.file)?
        .into_iter()
        .map(|[t]| t)
        .collect();
    let in_label = accessor::label(in_acc, &in_usage);
    if let Some(w) = times.windows(2).position(|w| w[1] < w[0]) {
        return Err(ctx.err(K::BadKeyTimes {
            element: in_label,
            reason: format!(
                "decrease at key {} ({} s after {} s); they must increase",
                w + 1,
                times[w + 1],
                times[w]
            ),
        }));
    }
    if let Some(t) = times.first().filter(|t| **t < 0.0) {
        return Err(ctx.err(K::BadKeyTimes {
            element: in_label,
            reason: format!("start at a negative time ({t} s); they must be >= 0"),
        }));
    }
    // before anything is sampled: a clip's frames are allocated from its length
    if let Some(t) = times.last().filter(|t| f64::from(**t) > MAX_CLIP_SECONDS) {
        return Err(ctx.err(K::BadKeyTimes {
            element: in_label,
            reason: format!(
                "end at {t:e} s, past the longest clip throng bakes ({MAX_CLIP_SECONDS:e} s)"
            ),
        }));
    }
    Ok(times)
}

/// A sampler's outputs, as many as its keys need.
struct Outputs {
    /// Per key `per_key` elements of `components` floats each.
    flat: Vec<f32>,
    components: usize,
    /// The accessor as messages name it.
    label: String,
}

/// Reads the sampler's output (accessor `out_acc`) for `keys` keys of `per_key` elements
/// each: finite elements of 4 components for rotations, 3 otherwise; extra outputs are
/// dropped with a warning.
fn read_outputs(
    ctx: &mut Ctx,
    out_acc: usize,
    path: Property,
    element: &str,
    (keys, per_key): (usize, usize),
) -> Result<Outputs, ImportError> {
    let out_usage = format!("output of {element}");
    let out_label = accessor::label(out_acc, &out_usage);
    let n = if path == Property::Rotation { 4 } else { 3 };
    let raw = accessor::read(ctx.src, out_acc, &out_usage, ctx.file)?;
    if raw.components != n {
        return Err(ctx.err(K::InvalidData {
            element: out_label,
            reason: format!("has {} components per key, expected {n}", raw.components),
        }));
    }
    let mut flat = raw.to_f32();
    accessor::check_finite(&flat, n, &out_label, ctx.file)?;
    let needed = keys * per_key;
    if raw.count < needed {
        return Err(ctx.err(K::BadSampler {
            element: element.into(),
            reason: format!(
                "{keys} keys need {needed} outputs ({per_key} per key) but {out_label} has {}",
                raw.count
            ),
        }));
    }
    if raw.count > needed {
        ctx.warn(format!(
            "{element} has {} outputs for {keys} keys; the extra outputs are ignored",
            raw.count,
        ));
    }
    flat.truncate(needed * n);
    Ok(Outputs {
        flat,
        components: n,
        label: out_label,
    })
}

/// The values of the keys `keep` (indices into the sampler's keys), `per_key` elements each.
/// Rotation values are made unit quaternions, with one warning per channel for those that
/// were not; CUBICSPLINE tangents are kept as they are.
fn channel_values(
    ctx: &mut Ctx,
    path: Property,
    out: &Outputs,
    keep: &[usize],
    per_key: usize,
) -> ChannelValues {
    let rows = |k: usize| -> &[f32] {
        let start = k * per_key * out.components;
        &out.flat[start..start + per_key * out.components]
    };
    match path {
        Property::Rotation => {
            let mut values = Vec::with_capacity(keep.len() * per_key);
            let (mut normalised, mut zero) = (0, 0);
            for &k in keep {
                for (e, q) in rows(k).chunks_exact(4).enumerate() {
                    let q = Quat::from_xyzw(q[0], q[1], q[2], q[3]);
                    // Only values are rotations; CUBICSPLINE tangents are not unit quaternions.
                    let is_value = per_key == 1 || e == 1;
                    if !is_value {
                        values.push(q);
                        continue;
                    }
                    let (u, fix) = unit_quat(q);
                    match fix {
                        QuatFix::None => {}
                        QuatFix::Normalised => normalised += 1,
                        QuatFix::Zero => zero += 1,
                    }
                    values.push(u);
                }
            }
            if normalised + zero > 0 {
                // One warning per channel, not per key.
                ctx.warn(format!(
                    "{} has {normalised} non-unit rotation keys (normalised) and {zero} zero ones (identity used)",
                    out.label
                ));
            }
            ChannelValues::Rotation(values)
        }
        _ => {
            let mut values = Vec::with_capacity(keep.len() * per_key);
            for &k in keep {
                values.extend(rows(k).chunks_exact(3).map(|v| Vec3::new(v[0], v[1], v[2])));
            }
            if path == Property::Translation {
                ChannelValues::Translation(values)
            } else {
                ChannelValues::Scale(values)
            }
        }
    }
}

/// Reads `extras.throng`; malformed values give a warning and the default (loop, no events).
fn read_extras(
    ctx: &mut Ctx,
    extras: Option<&serde_json::value::RawValue>,
    anim_label: &str,
) -> (LoopMode, Vec<ClipEvent>) {
    let mut loop_mode = LoopMode::default();
    let mut events = Vec::new();
    let Some(raw) = extras else {
        return (loop_mode, events);
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(raw.get()) else {
        return (loop_mode, events);
    };
    let Some(throng) = value.get("throng") else {
        return (loop_mode, events);
    };
    match throng.get("loop") {
        None => {}
        Some(serde_json::Value::String(s)) => match LoopMode::parse(s) {
            Some(m) => loop_mode = m,
            None => ctx.warn(format!(
                "{anim_label} extras.throng.loop {s:?} is not loop, once, clamp or ping-pong; loop used"
            )),
        },
        Some(other) => ctx.warn(format!(
            "{anim_label} extras.throng.loop {other} is not a string; loop used"
        )),
    }
    match throng.get("events") {
        None => {}
        Some(serde_json::Value::Array(list)) => {
            for (i, e) in list.iter().enumerate() {
                let time = e.get("time").and_then(|t| t.as_f64());
                let name = e.get("name").and_then(|n| n.as_str());
                match (time, name) {
                    (Some(t), Some(n)) if t.is_finite() && t >= 0.0 => events.push(ClipEvent {
                        time: t as f32,
                        name: n.to_string(),
                    }),
                    _ => ctx.warn(format!(
                        "{anim_label} extras.throng.events[{i}] needs a time >= 0 (seconds) and a name; ignored"
                    )),
                }
            }
            events.sort_by(|a, b| a.time.total_cmp(&b.time));
        }
        Some(_) => ctx.warn(format!(
            "{anim_label} extras.throng.events is not a list; no events used"
        )),
    }
    (loop_mode, events)
}
