//! The page's playback state, independent of the browser: one baked asset, one
//! [`throng_runtime::Runtime`] (the one playback type every front end talks to), the ids the
//! JavaScript side holds for instances, the camera, and the frame's render options. The
//! browser glue (`web`) only converts JavaScript values and draws; the native tests drive this
//! same type to draw the page's scene on lavapipe.

use std::collections::HashMap;

use glam::{Mat4, Vec3};
use throng_asset::{Aabb, BakedAsset, LoopMode};
use throng_render::{camera::crowd_bounds, Camera, Crowd, GpuAsset, RenderOptions, SkinPath};
use throng_runtime::crowd::{self, ClipMix, Layout};
use throng_runtime::{Handle, InstanceTransform, PlayOptions, PlaybackCommand, Runtime, Timing};

use crate::error::WebError;

/// Most instances one crowd takes from a page (a guard against a typo's billion, not a device
/// limit: the renderer reports what the device cannot draw).
pub const MAX_INSTANCES: u32 = 1_000_000;

/// A clip named by the caller: its name in the asset, or its index in the clip table.
#[derive(Debug, Clone, PartialEq)]
pub enum ClipRef {
    Name(String),
    Index(usize),
}

/// A crowd laid out and started as `throng render` lays out and starts one (the same
/// functions of `throng_runtime::crowd`), so the page and the command line draw the same
/// picture for the same numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct CrowdSpec {
    pub count: u32,
    /// `None`: the first clip for one instance, a seeded mix of clips for more.
    pub clip: Option<ClipRef>,
    /// Seconds of clip time between consecutive instances.
    pub stagger: f64,
    pub random_phase: bool,
    /// Crowd time every instance starts at, seconds (`throng render --time`).
    pub time: f64,
    pub layout: Layout,
    pub seed: u64,
}

impl Default for CrowdSpec {
    fn default() -> Self {
        CrowdSpec {
            count: 1,
            clip: None,
            stagger: 0.0,
            random_phase: false,
            time: 0.0,
            layout: Layout::Grid,
            seed: 1,
        }
    }
}

/// A clip event that fired during a step, with the names a page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct EventInfo {
    /// The instance's id (as `spawn` returned it).
    pub instance: u32,
    pub clip: u32,
    pub clip_name: String,
    /// Index into the clip's events.
    pub event: u32,
    pub name: String,
    /// Clock time of the crossing, seconds: the runtime's, or for a graph's clip event the
    /// graph's (from 0 when `playGraph` started it).
    pub time: f64,
}

impl EventInfo {
    /// Event `event` of clip `clip` of `clips` crossed by instance `id` at `time`, with its
    /// names; `None` for a clip or event the table does not have.
    pub(crate) fn named(
        clips: &[throng_asset::ClipInfo],
        id: u32,
        clip: usize,
        event: u32,
        time: f64,
    ) -> Option<EventInfo> {
        let c = clips.get(clip)?;
        Some(EventInfo {
            instance: id,
            clip: clip as u32,
            clip_name: c.name.clone(),
            event,
            name: c.events.get(event as usize)?.name.clone(),
            time,
        })
    }
}

/// The graph a page plays, as [`Player::play_graph`] made it (crate::graph).
pub(crate) struct PageGraph {
    pub(crate) player: throng_graph_gpu::GraphPlayer,
    /// Transforms moved since the last draw (the GPU's copy needs them again).
    pub(crate) moved: bool,
    /// Why the page keeps the graph on the CPU where the runtime's own rule would not say.
    pub(crate) because: Option<String>,
}

/// A one-shot layer (once or clamp) that reached its end during a step.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedInfo {
    /// The instance's id (as `spawn` returned it).
    pub instance: u32,
    pub clip: u32,
    pub clip_name: String,
    /// Runtime clock time the end was reached at, seconds.
    pub time: f64,
}

/// One asset's crowd: playback, instance ids, camera.
pub struct Player {
    asset: BakedAsset,
    pub(crate) runtime: Runtime,
    ids: HashMap<u32, Handle>,
    handles: HashMap<Handle, u32>,
    next_id: u32,
    /// Counts changes to the instances' transforms or dense order (spawn, despawn, clear,
    /// set_transform): an adapter re-uploads its per-instance tables when it moves.
    placement: u32,
    /// `None`: frame the crowd as `throng render` does (re-framed every frame).
    pub camera: Option<Camera>,
    /// The graph playing the instances ([`Player::play_graph`]), if any.
    pub(crate) graph: Option<PageGraph>,
}

impl Player {
    pub fn new(asset: BakedAsset, timing: Timing) -> Player {
        let runtime = Runtime::new(timing, &asset.clips);
        Player {
            asset,
            runtime,
            ids: HashMap::new(),
            handles: HashMap::new(),
            next_id: 0,
            placement: 0,
            camera: None,
            graph: None,
        }
    }

    pub fn asset(&self) -> &BakedAsset {
        &self.asset
    }

    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    /// Live instance count.
    pub fn len(&self) -> usize {
        self.runtime.len()
    }

    pub fn is_empty(&self) -> bool {
        self.runtime.is_empty()
    }

    /// The clip table index of `clip`.
    pub fn clip(&self, clip: &ClipRef) -> Result<usize, WebError> {
        let found = match clip {
            ClipRef::Name(name) => self.asset.find_clip(name),
            ClipRef::Index(i) => (*i < self.asset.clips.len()).then_some(*i),
        };
        found.ok_or_else(|| WebError::NoSuchClip {
            asset: self.asset.source_name.clone(),
            clip: match clip {
                ClipRef::Name(n) => n.clone(),
                ClipRef::Index(i) => i.to_string(),
            },
            clips: self.asset.clips.iter().map(|c| c.name.clone()).collect(),
        })
    }

    /// Instance `id`'s place in the dense order (a graph's instance index).
    pub(crate) fn dense_index(&self, id: u32) -> Result<usize, WebError> {
        let h = self.handle(id)?;
        self.runtime.index(h).ok_or(WebError::NoSuchInstance { id })
    }

    /// The id of the instance at dense index `i`.
    pub(crate) fn id_at(&self, i: usize) -> Option<u32> {
        let h = self.runtime.handle_at(i)?;
        self.handles.get(&h).copied()
    }

    fn handle(&self, id: u32) -> Result<Handle, WebError> {
        self.ids
            .get(&id)
            .copied()
            .ok_or(WebError::NoSuchInstance { id })
    }

    fn add(&mut self, h: Handle) -> u32 {
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        self.ids.insert(id, h);
        self.handles.insert(h, id);
        self.placement = self.placement.wrapping_add(1);
        id
    }

    /// See the field: moves on every change of transforms or dense order.
    pub fn placement(&self) -> u32 {
        self.placement
    }

    /// GPU-timed: the records written since the last call, as 16 words each (the 64 B
    /// `GpuRecordWrite`: record, dense index, pad), and forgets them; empty CPU-timed.
    pub fn take_record_writes(&mut self) -> Vec<u32> {
        let words = match self.runtime.record_changes().writes {
            Some(w) => bytemuck::cast_slice(w).to_vec(),
            None => Vec::new(),
        };
        self.runtime.clear_changes();
        words
    }

    /// A new instance at `matrix` (16 numbers, column-major, world from model, file units);
    /// returns its id.
    pub fn spawn(&mut self, matrix: &[f32]) -> Result<u32, WebError> {
        self.no_graph("spawn")?;
        let t = transform_of(matrix)?;
        self.check_room(1)?;
        let h = self.runtime.spawn(t);
        Ok(self.add(h))
    }

    fn check_room(&self, more: u32) -> Result<(), WebError> {
        let count = (self.len() as u64 + more as u64).min(u32::MAX as u64) as u32;
        if count > MAX_INSTANCES {
            return Err(WebError::TooManyInstances {
                count,
                max: MAX_INSTANCES,
            });
        }
        Ok(())
    }

    pub fn despawn(&mut self, id: u32) -> Result<(), WebError> {
        self.no_graph("despawn")?;
        let h = self.handle(id)?;
        self.runtime.despawn(h)?;
        self.placement = self.placement.wrapping_add(1);
        self.ids.remove(&id);
        self.handles.remove(&h);
        Ok(())
    }

    /// Despawns every instance (and ends the graph playing them).
    pub fn clear(&mut self) {
        self.graph = None;
        self.runtime = Runtime::new(self.runtime.timing(), &self.asset.clips);
        self.placement = self.placement.wrapping_add(1);
        self.ids.clear();
        self.handles.clear();
    }

    /// Ids of the live instances, in the runtime's dense order.
    pub fn ids(&self) -> Vec<u32> {
        (0..self.len())
            .filter_map(|i| self.runtime.handle_at(i))
            .filter_map(|h| self.handles.get(&h).copied())
            .collect()
    }

    pub fn set_transform(&mut self, id: u32, matrix: &[f32]) -> Result<(), WebError> {
        let t = transform_of(matrix)?;
        let h = self.handle(id)?;
        self.runtime.set_transform(h, t)?;
        self.placement = self.placement.wrapping_add(1);
        if let Some(g) = &mut self.graph {
            g.moved = true;
        }
        Ok(())
    }

    /// Applies `command` to instance `id`, or to every instance when `id` is `None`.
    pub fn command(&mut self, id: Option<u32>, command: PlaybackCommand) -> Result<(), WebError> {
        self.no_graph("a clip command (play, crossfade, blend, speed, pause, seek)")?;
        match id {
            Some(id) => {
                let h = self.handle(id)?;
                Ok(self.runtime.command(h, command)?)
            }
            None => Ok(self.runtime.command_all(command)?),
        }
    }

    /// Adds `spec.count` instances laid out and started as `throng render` does; returns their
    /// ids.
    pub fn spawn_crowd(&mut self, spec: &CrowdSpec) -> Result<Vec<u32>, WebError> {
        self.no_graph("spawnCrowd")?;
        self.check_room(spec.count)?;
        finite("time", spec.time)?;
        finite("stagger", spec.stagger)?;
        let clip = match &spec.clip {
            Some(c) => Some(self.clip(c)?),
            None => (!self.asset.clips.is_empty()).then_some(0),
        };
        let mix = ClipMix {
            clip,
            mix: spec.clip.is_none() && spec.count > 1,
            stagger: spec.stagger,
            random_phase: spec.random_phase,
            seed: spec.seed,
        };
        let durations: Vec<f64> = self.asset.clips.iter().map(|c| c.duration).collect();
        let ids: Vec<u32> = (0..spec.count).collect();
        let assignments = crowd::assign(&mix, &ids, &durations);
        let spacing = crowd::spacing(&self.asset.pose_bounds());
        let places = crowd::layout(spec.count, spec.layout, spacing, spec.seed);
        let mut out = Vec::with_capacity(places.len());
        for (a, t) in assignments.iter().zip(places) {
            let h = crowd::start(&mut self.runtime, &self.asset.clips, a, t, spec.time, None)?;
            out.push(self.add(h));
        }
        Ok(out)
    }

    /// Advances playback by `dt` seconds; the clip events that fired, in the runtime's order
    /// (a graph's: [`Player::step_graph`]).
    pub fn step(&mut self, dt: f64) -> Result<Vec<EventInfo>, WebError> {
        finite("dt", dt)?;
        if self.graph.is_some() {
            return self.step_graph(dt);
        }
        self.runtime.update(dt);
        let clips = &self.asset.clips;
        Ok(self
            .runtime
            .events()
            .iter()
            .filter_map(|e| {
                let id = *self.handles.get(&e.instance)?;
                EventInfo::named(clips, id, e.clip.index(), e.event, e.time)
            })
            .collect())
    }

    /// The one-shot layers that reached their end during the last step, in the runtime's
    /// order (an instance despawned since is left out).
    pub fn finished(&self) -> Vec<FinishedInfo> {
        if self.graph.is_some() {
            // a graph reports state events instead; the runtime's list is from before it
            return Vec::new();
        }
        let clips = &self.asset.clips;
        (self.runtime.finished().iter())
            .filter_map(|f| {
                Some(FinishedInfo {
                    instance: *self.handles.get(&f.instance)?,
                    clip: f.clip.index() as u32,
                    clip_name: clips.get(f.clip.index())?.name.clone(),
                    time: f.time,
                })
            })
            .collect()
    }

    /// Bounds of the crowd as placed now (world space, file units).
    pub fn scene_bounds(&self) -> Aabb {
        crowd_bounds(&self.asset.pose_bounds(), self.runtime.transforms())
    }

    /// The frame's options at `width` × `height` pixels: the camera (or the framing camera of
    /// `throng render`), the scene bounds, and the palette path when the crowd fits one
    /// palette buffer (`palette_fits`), else the texture path — the command line's choices.
    pub fn render_options(&self, width: u32, height: u32, palette_fits: bool) -> RenderOptions {
        let scene = self.scene_bounds();
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        RenderOptions {
            width,
            height,
            path: if palette_fits {
                SkinPath::Palette
            } else {
                SkinPath::Texture
            },
            camera: Some(
                self.camera
                    .unwrap_or_else(|| Camera::framing(&scene, aspect)),
            ),
            scene: Some(scene),
            ..Default::default()
        }
    }

    /// The crowd to draw this frame (the runtime's transforms and records, no copy).
    pub fn crowd<'a>(&'a self, asset: &'a GpuAsset) -> Crowd<'a> {
        Crowd {
            asset,
            transforms: self.runtime.transforms(),
            playback: self.playback(),
            props: &[],
            live: &[],
            appearance: throng_render::CrowdAppearance::Default,
        }
    }

    /// Puts the camera at `eye` looking at `target` (world space, file units) with a vertical
    /// field of view of `fov_y` radians.
    pub fn look_at(&mut self, eye: [f32; 3], target: [f32; 3], fov_y: f32) -> Result<(), WebError> {
        for v in eye.iter().chain(&target).chain([&fov_y]) {
            finite("camera", *v as f64)?;
        }
        self.camera = Some(Camera::looking_at(
            Vec3::from(eye),
            Vec3::from(target),
            fov_y,
        ));
        Ok(())
    }
}

/// Play options as the Rust API takes them: clip speed factor, an optional loop mode by name
/// (`loop`, `once`, `clamp`, `ping-pong`), start time in seconds.
pub fn play_options(
    speed: Option<f64>,
    loop_mode: Option<&str>,
    start_time: Option<f64>,
) -> Result<PlayOptions, WebError> {
    let mut o = PlayOptions::default();
    if let Some(s) = speed {
        finite("speed", s)?;
        o.speed = s as f32;
    }
    if let Some(t) = start_time {
        finite("startTime", t)?;
        o.start_time = t as f32;
    }
    if let Some(l) = loop_mode {
        let mode: LoopMode = l.parse().map_err(|e| WebError::Name(format!("{e}")))?;
        o.loop_mode = Some(mode);
    }
    Ok(o)
}

/// The crowd layout named `name` (`grid` or `random`).
pub fn layout(name: &str) -> Result<Layout, WebError> {
    match name {
        "grid" => Ok(Layout::Grid),
        "random" => Ok(Layout::Random),
        _ => Err(WebError::UnknownLayout { got: name.into() }),
    }
}

fn finite(what: &'static str, value: f64) -> Result<(), WebError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(WebError::NotFinite { what, value })
    }
}

/// An instance transform from 16 numbers, column-major (three.js `Matrix4.elements` order):
/// finite, with a last row of (0, 0, 0, 1) within 1e-6.
pub fn transform_of(m: &[f32]) -> Result<InstanceTransform, WebError> {
    let m: &[f32; 16] = m
        .try_into()
        .map_err(|_| WebError::TransformLength { got: m.len() })?;
    if let Some((index, &value)) = m.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        return Err(WebError::NonFiniteTransform { index, value });
    }
    let row = [m[3], m[7], m[11], m[15]];
    let off = [0.0, 0.0, 0.0, 1.0];
    if row.iter().zip(off).any(|(a, b)| (a - b).abs() > 1e-6) {
        return Err(WebError::NotAffine(row[0], row[1], row[2], row[3]));
    }
    Ok(InstanceTransform::from_mat4(&Mat4::from_cols_array(m)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transforms_must_be_16_finite_numbers_of_an_affine_matrix() {
        let id = Mat4::IDENTITY.to_cols_array();
        assert_eq!(
            transform_of(&id).expect("identity"),
            InstanceTransform::IDENTITY
        );
        let moved = Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0));
        let t = transform_of(&moved.to_cols_array()).expect("translation");
        assert_eq!(t.to_mat4(), moved);
        let mut nan = id;
        nan[5] = f32::NAN;
        let e = transform_of(&nan).expect_err("NaN");
        assert_eq!(
            e.to_string(),
            "transform element 5 is NaN: every element of a transform must be finite"
        );
        assert!(matches!(
            transform_of(&id[..12]),
            Err(WebError::TransformLength { got: 12 })
        ));
        let mut proj = id;
        proj[11] = -1.0;
        assert!(matches!(transform_of(&proj), Err(WebError::NotAffine(..))));
    }

    #[test]
    fn play_options_take_the_contract_names() {
        let o = play_options(Some(2.0), Some("ping-pong"), Some(0.5)).expect("valid");
        assert_eq!(
            o,
            PlayOptions::at(0.5)
                .with_speed(2.0)
                .with_loop_mode(LoopMode::PingPong)
        );
        let e = play_options(None, Some("bounce"), None).expect_err("bad loop");
        assert!(e.to_string().contains("bounce"), "{e}");
        assert!(play_options(Some(f64::NAN), None, None).is_err());
        assert_eq!(layout("random").expect("known"), Layout::Random);
        assert!(layout("ring").is_err());
    }
}
