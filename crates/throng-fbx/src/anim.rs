//! Takes (FBX anim stacks) as clips of TRS channels, through ufbx's animation baking.
//!
//! Clip time is FBX time: a take that starts at 0.8 s keeps its keys at 0.8 s, and the clip's
//! duration is its latest key time, as for glTF (docs/design.md §2: a clip starts at t = 0, the
//! first value holds before the first key). The take's own span (`LocalStart`/`LocalStop`) is
//! not used: exporters write spans longer than the keys (3ds Max: a 3.333 s take with keys
//! up to 0.8 s), and glTF converters (Blender, FBX2glTF) keep the key span too. A take with no
//! keys at all (0 s) is dropped with a warning.

use throng_anim::model::{Channel, ChannelValues, Clip, Interpolation, LoopMode};

use crate::convert::{finite, label, quat, v3};
use crate::error::ImportError;
use crate::nodes::Nodes;
use crate::Ctx;

pub(crate) fn read_clips(ctx: &mut Ctx, nodes: &Nodes) -> Result<Vec<Clip>, ImportError> {
    let scene = ctx.scene;
    let fps = scene.settings.frames_per_second;
    let mut clips = Vec::with_capacity(scene.anim_stacks.len());
    for (si, stack) in scene.anim_stacks.iter().enumerate() {
        let element = label("take", &stack.element.name, si);
        let baked = ufbx::bake_anim(scene, &stack.anim, crate::load::bake_opts(ctx.options, fps))
            .map_err(|e| {
            let mut err = crate::load::error(ctx.file, &e, ctx.options, None);
            if let crate::ImportErrorKind::Malformed { detail } = &mut err.kind {
                *detail = format!("{element}: {detail}");
            }
            err
        })?;
        // Keys past the last authored key only hold it over the rest of the take's span.
        let end = node_key_end(stack).unwrap_or(baked.key_time_max);
        let mut channels = Vec::new();
        for bn in baked.nodes.iter() {
            let Some(node) = scene
                .nodes
                .get(bn.typed_id as usize)
                .and_then(|n| nodes.of(n))
            else {
                continue;
            };
            let what = format!("{element} on {}", nodes.nodes[node].display_name(node));
            let (times, values) = keys(&bn.translation_keys, end, |k| (k.time, v3(&k.value)));
            let values = ChannelValues::Translation(values);
            push(ctx, &mut channels, node, times, values, &what)?;
            let (times, values) = keys(&bn.rotation_keys, end, |k| {
                (k.time, quat(&k.value).normalize())
            });
            let values = ChannelValues::Rotation(values);
            push(ctx, &mut channels, node, times, values, &what)?;
            let (times, values) = keys(&bn.scale_keys, end, |k| (k.time, v3(&k.value)));
            let values = ChannelValues::Scale(values);
            push(ctx, &mut channels, node, times, values, &what)?;
        }
        let duration = channels
            .iter()
            .filter_map(|c| c.times.last().copied())
            .fold(0.0f32, f32::max);
        // before anything is sampled: a clip's frames are allocated from its length
        if f64::from(duration) > throng_anim::model::MAX_CLIP_SECONDS {
            return Err(ctx.err(crate::ImportErrorKind::InvalidData {
                element: element.clone(),
                reason: format!(
                    "its keys end at {duration:e} s, past the longest clip throng bakes ({:e} s)",
                    throng_anim::model::MAX_CLIP_SECONDS
                ),
            }));
        }
        if channels.is_empty() && duration <= 0.0 {
            // Exporters write an empty default take beside the real ones; as clip 0 it would
            // start every viewer on the rest pose (Blender's importer drops it too).
            ctx.warn(format!(
                "{element} has no keys (0 s, nothing animated); it is dropped"
            ));
            continue;
        }
        if baked.elements.iter().any(|e| !e.props.is_empty()) {
            ctx.warn(format!(
                "{element}: animated properties other than node transforms (blend-shape weights, materials, ...) are not imported"
            ));
        }
        clips.push(Clip {
            name: if stack.element.name.is_empty() {
                format!("take{si}")
            } else {
                stack.element.name.to_string()
            },
            duration,
            channels,
            loop_mode: LoopMode::default(),
            events: Vec::new(),
            skipped_morph_channels: 0,
        });
    }
    Ok(clips)
}

/// Key times as f32 seconds, strictly increasing: keys that fall on the same f32 time as the
/// previous one replace it (ufbx's step keys come as such pairs; the later value wins, as
/// FBX's step does), non-finite times are dropped, and so are keys after `end` (the latest
/// authored key of the take) but the first.
fn keys<K, V>(src: &[K], end: f64, f: impl Fn(&K) -> (f64, V)) -> (Vec<f32>, Vec<V>) {
    let mut times: Vec<f32> = Vec::with_capacity(src.len());
    let mut values = Vec::with_capacity(src.len());
    for k in src {
        let (t, v) = f(k);
        if t > end + 1e-6 && !times.is_empty() {
            break;
        }
        let t = t as f32;
        if !t.is_finite() {
            continue;
        }
        match times.last() {
            Some(&last) if t <= last => {
                if let Some(slot) = values.last_mut() {
                    *slot = v;
                }
            }
            _ => {
                times.push(t);
                values.push(v);
            }
        }
    }
    (times, values)
}

/// Adds a channel of `node` unless it has no key; `NonFinite` (naming `element` and the kind
/// of key) when a value is not finite as f32.
fn push(
    ctx: &Ctx,
    channels: &mut Vec<Channel>,
    node: usize,
    times: Vec<f32>,
    values: ChannelValues,
    element: &str,
) -> Result<(), ImportError> {
    let (floats, at): (Vec<f32>, &str) = match &values {
        ChannelValues::Translation(v) => (
            v.iter().flat_map(|v| v.to_array()).collect(),
            "a translation key",
        ),
        ChannelValues::Rotation(q) => (
            q.iter().flat_map(|q| q.to_array()).collect(),
            "a rotation key",
        ),
        ChannelValues::Scale(v) => (v.iter().flat_map(|v| v.to_array()).collect(), "a scale key"),
    };
    finite(&floats, element, || at.into()).map_err(|k| ctx.err(k))?;
    if !times.is_empty() {
        channels.push(Channel {
            node,
            interpolation: Interpolation::Linear,
            times,
            values,
        });
    }
    Ok(())
}

/// The latest authored key of any curve that animates a node in `stack` (None: no such key).
/// ufbx's own `key_time_max` also counts curves of other elements (materials, blend shapes),
/// which exporters key over the whole take.
fn node_key_end(stack: &ufbx::AnimStack) -> Option<f64> {
    let mut end: Option<f64> = None;
    for layer in stack.layers.iter() {
        for prop in layer.anim_props.iter() {
            if prop.element.type_ != ufbx::ElementType::Node {
                continue;
            }
            for curve in prop.anim_value.curves.iter().flatten() {
                if let Some(last) = curve.keyframes.last() {
                    if last.time.is_finite() {
                        end = Some(end.map_or(last.time, |e| e.max(last.time)));
                    }
                }
            }
        }
    }
    end
}
