//! A crowd of one or more inputs drawn over a run of frames — what `throng render` writes as a
//! PNG or GIF, and what the viewer lays out:
//!
//! - [`split_layout`]: one layout shared by every input, spaced for the largest, each input
//!   taking every k-th place;
//! - [`ScenePlayer`]: the runtimes of a baked scene stepped together, and where they put
//!   their instances;
//! - [`draw_baked`]: baked assets played by their runtimes (either timing) on the texture,
//!   palette or VAT path, or one asset through the CPU decoder on the reference path, with props
//!   at anchors and, when asked, instances moved by their clips' root motion;
//! - [`draw_source`]: a source model skinned on the CPU at full rate (the reference path).
//!
//! Times are seconds of clock time; lengths file units. Errors name the input; none names a
//! command-line flag (docs/design.md §2).

use anyhow::Context;
use throng_anim::{Model, ModelSkinner, SkinnedPart};
use throng_asset::{Aabb, BakedAsset};
use throng_contract::{InstanceTransform, Records, Timing};
use throng_graph_gpu::{GraphRuntime, StepOn};
use throng_render::image::RgbaImage;
use throng_render::{
    Crowd, DecodedMeshes, FrameStats, Gpu, GpuProp, Playback, Prop, RenderOptions, Renderer,
    SkinPath,
};
use throng_runtime::crowd::{self, Assignment, Layout};
use throng_runtime::{ClipId, PlayOptions, PlaybackCommand, Runtime};

use crate::{source_meshes, GraphPlayer, GraphSetup, PropSource};

/// One input's share of the crowd: its instances' places, clips and phases, and the layers
/// laid over its clip.
#[derive(Debug, Clone)]
pub struct Part {
    pub assignments: Vec<Assignment>,
    /// World from model of each instance at the start (file units).
    pub transforms: Vec<InstanceTransform>,
    /// A second clip blended with each instance's clip: (clip, weight of the second clip).
    pub blend: Option<(usize, f32)>,
    /// A layer over the base layers: a masked or additive clip.
    pub overlay: Option<Overlay>,
    /// Each instance's appearance (tint, variant, parts; [`crate::Variety::appearances`]);
    /// empty: every instance as the asset is.
    pub appearances: Vec<throng_contract::Appearance>,
}

/// A layer laid over every instance's base layers (palette and reference paths).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overlay {
    pub clip: usize,
    /// Layer mask number in the asset's mask table (0 = every joint).
    pub mask: u32,
    pub weight: f32,
}

/// The frames of a run: `count` frames `1/fps` seconds apart, the first at clock time `start`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frames {
    pub start: f64,
    pub fps: f64,
    pub count: u32,
}

impl Frames {
    /// Clock time of frame `f`, seconds.
    pub fn time(&self, f: u32) -> f64 {
        self.start + f as f64 / self.fps
    }
}

/// Props drawn on every input: each prop file once, and per input, per prop, its anchor index
/// in that input's anchor table.
#[derive(Default)]
pub struct PlacedProps {
    pub sources: Vec<PropSource>,
    pub anchors: Vec<Vec<u32>>,
}

/// What [`draw_baked`] draws: baked assets, one [`Part`] each, how they are timed, and their
/// props.
pub struct BakedScene<'a> {
    pub assets: Vec<&'a BakedAsset>,
    pub parts: &'a [Part],
    pub timing: Timing,
    pub props: &'a PlacedProps,
    /// Instances move by their clips' extracted root motion (CPU-timed playback; the
    /// GPU-timed runtime keeps no root motion); `false` holds them at their places.
    pub root_motion: bool,
    /// Play every input through this animation graph (CPU-timed; the parts' clips, blend and
    /// overlay are not used) instead of its runtime.
    pub graph: Option<&'a GraphSetup>,
    /// Where the graph steps once its warm-up (on the CPU) is done and drawing starts on a GPU
    /// path ([`ScenePlayer::place_graphs`]); the reference path steps it on the CPU.
    pub graph_on: StepOn,
}

/// One layout of `instances` places spaced for the largest of `sizes` (each input's bounds),
/// split among the inputs (input `a` takes places `a, a + k, …`): per input its transforms, and
/// the bounds of the whole crowd.
pub fn split_layout(
    sizes: &[Aabb],
    instances: u32,
    layout: Layout,
    seed: u64,
) -> (Vec<Vec<InstanceTransform>>, Aabb) {
    let spacing = sizes.iter().map(crowd::spacing).fold(0.0f32, f32::max);
    let all = crowd::layout(instances, layout, spacing, seed);
    let mut scene = Aabb::EMPTY;
    let parts = sizes
        .iter()
        .enumerate()
        .map(|(a, size)| {
            let ids = crowd::ids_of(a, sizes.len(), instances);
            let transforms: Vec<InstanceTransform> = ids.iter().map(|&i| all[i as usize]).collect();
            scene = scene.union(&throng_render::camera::crowd_bounds(size, &transforms));
            transforms
        })
        .collect();
    (parts, scene)
}

/// Longest step, seconds, of a graph crowd's warm-up to the first frame's time (a game's
/// frame at 30 fps: transitions and exit times are seen as a game would see them).
pub const GRAPH_WARM_UP_STEP: f64 = 1.0 / 30.0;

/// The players of a [`BakedScene`], one per input (a runtime, or a graph crowd), stepped
/// together: what [`draw_baked`] draws each frame, without a GPU.
pub struct ScenePlayer<'a> {
    scene: &'a BakedScene<'a>,
    players: Vec<Player>,
}

/// What plays one input.
// one a scene input (a handful): the variants' sizes do not matter
#[allow(clippy::large_enum_variant)]
enum Player {
    Clips(Runtime),
    Graph(GraphPlayer),
}

impl<'a> ScenePlayer<'a> {
    /// Every input's runtime playing its part from clock time `start` (seconds), with its
    /// overlay layer; or, with a graph, every input's graph crowd played from its entry state
    /// for `start` seconds (in steps of at most [`GRAPH_WARM_UP_STEP`]), so that a picture at
    /// a time shows what the graph's transitions have reached by then.
    pub fn new(scene: &'a BakedScene<'a>, start: f64) -> anyhow::Result<ScenePlayer<'a>> {
        let players = (scene.assets.iter().zip(scene.parts))
            .map(|(asset, part)| match scene.graph {
                Some(g) => {
                    let mut crowd = g.crowd(asset, part.transforms.len())?;
                    let steps = (start.max(0.0) / GRAPH_WARM_UP_STEP).ceil() as u64;
                    for _ in 0..steps {
                        crowd.step(start / steps as f64);
                    }
                    let rt = GraphRuntime::new(crowd, &asset.clips, None, StepOn::Cpu)?;
                    Ok(Player::Graph(GraphPlayer::new(rt)))
                }
                None => start_runtime(scene.timing, asset, part, start).map(Player::Clips),
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(ScenePlayer { scene, players })
    }

    /// One step of every player by `dt` seconds (a runtime's record writes of the last step
    /// are cleared first); an error where a graph's GPU step fails.
    pub fn step(&mut self, dt: f64) -> anyhow::Result<()> {
        for p in &mut self.players {
            match p {
                Player::Clips(rt) => {
                    rt.clear_changes();
                    rt.update(dt);
                }
                Player::Graph(g) => g.rt.step(dt)?,
            }
        }
        Ok(())
    }

    /// Moves every input's graph to where `scene.graph_on` asks on `gpu`, as its warm-up left
    /// it; its records are then drawn from an upload the pass writes ([`Self::playback`]).
    pub fn place_graphs(&mut self, gpu: &Gpu) -> anyhow::Result<()> {
        for (a, p) in self.players.iter_mut().enumerate() {
            if let Player::Graph(g) = p {
                let asset = self.scene.assets[a];
                g.place(&asset.clips, gpu, self.scene.graph_on)
                    .with_context(|| format!("stepping the graph of {}", asset.source_name))?;
            }
        }
        Ok(())
    }

    /// Hands the records of every graph stepped on the GPU to its upload, before a draw.
    pub fn prepare_draw(&mut self) -> anyhow::Result<()> {
        for (a, p) in self.players.iter_mut().enumerate() {
            if let Player::Graph(g) = p {
                g.prepare_draw(&self.scene.parts[a].transforms, false)?;
            }
        }
        Ok(())
    }

    /// What the renderer draws input `a` from (after [`Self::prepare_draw`]): its records, or
    /// the upload its GPU-stepped graph's records were copied into.
    pub fn playback(&self, a: usize) -> Playback<'_> {
        if let Player::Graph(g) = &self.players[a] {
            return g.playback();
        }
        match self.records(a) {
            Some(records) => records.into(),
            None => Playback::Records(Records::Cpu(&[])),
        }
    }

    /// Input `a`'s runtime (`None` when a graph plays it).
    pub fn runtime(&self, a: usize) -> Option<&Runtime> {
        match &self.players[a] {
            Player::Clips(rt) => Some(rt),
            Player::Graph(..) => None,
        }
    }

    /// Input `a`'s graph runtime (`None` when a runtime plays it).
    pub fn graph(&self, a: usize) -> Option<&GraphRuntime> {
        match &self.players[a] {
            Player::Graph(g) => Some(&g.rt),
            Player::Clips(_) => None,
        }
    }

    /// Input `a`'s records as the renderer reads them; `None` for a graph stepped on the GPU,
    /// whose records stay there ([`Self::playback`]).
    pub fn records(&self, a: usize) -> Option<Records<'_>> {
        match &self.players[a] {
            Player::Clips(rt) => Some(rt.records()),
            Player::Graph(g) => (g.rt.cpu_crowd()).map(|c| Records::Cpu(c.records())),
        }
    }

    /// Where input `a`'s instances are drawn: moved by root motion (the runtime's transforms),
    /// or held at their places (and always with a graph, which keeps no root motion).
    pub fn transforms(&self, a: usize) -> &[InstanceTransform] {
        match &self.players[a] {
            Player::Clips(rt) if self.scene.root_motion => rt.transforms(),
            _ => &self.scene.parts[a].transforms,
        }
    }
}

/// Draws `frames` of a baked scene: every input played by its own runtime from `frames.start`
/// (one update of `1/fps` per frame, [`ScenePlayer`]), on `opts.path`. Returns the images and
/// the last frame's statistics (GPU paths). `on_frame` is called once per image drawn
/// (progress).
///
/// With motion vectors on (`opts.motion()`), one frame `1/fps` before the first is drawn and
/// dropped, so the first image has a previous frame.
pub fn draw_baked(
    renderer: &mut Renderer,
    scene: &BakedScene,
    frames: Frames,
    opts: &RenderOptions,
    mut on_frame: impl FnMut(),
) -> anyhow::Result<(Vec<RgbaImage>, Option<FrameStats>)> {
    let primed = opts.motion() as u32;
    let mut player = ScenePlayer::new(scene, frames.start - primed as f64 / frames.fps)?;
    let reference = opts.path == SkinPath::Reference;
    if !reference {
        player.place_graphs(&renderer.gpu)?;
    }
    let gpu_assets = if reference {
        Vec::new()
    } else {
        (scene.assets.iter())
            .map(|a| renderer.upload(a))
            .collect::<Result<Vec<_>, _>>()?
    };
    let gpu_props = upload_props(renderer, &scene.props.sources)?;
    // Per input a Prop per (prop file, mesh) at its anchor.
    let crowd_props: Vec<Vec<Prop>> = (scene.props.anchors.iter())
        .map(|anchors| {
            (anchors.iter().zip(&gpu_props))
                .flat_map(|(&anchor, meshes)| meshes.iter().map(move |mesh| Prop { anchor, mesh }))
                .collect()
        })
        .collect();
    let mut images = Vec::with_capacity(frames.count as usize);
    let mut stats = None;
    for f in 0..frames.count + primed {
        if f > 0 {
            player.step(1.0 / frames.fps)?;
        }
        if reference {
            let records = (player.records(0).and_then(|r| r.cpu()))
                .context("the reference path draws CPU-timed records")?;
            let decoded = DecodedMeshes::new(
                scene.assets[0],
                records,
                player.transforms(0),
                opts.skinning,
            )?;
            let meshes = decoded.meshes_with(&scene.parts[0].appearances);
            images.push(renderer.render_reference(&meshes, opts)?);
        } else {
            player.prepare_draw()?;
            let crowds: Vec<Crowd> = (0..scene.assets.len())
                .map(|a| Crowd {
                    asset: &gpu_assets[a],
                    transforms: player.transforms(a),
                    playback: player.playback(a),
                    props: &crowd_props[a],
                    live: &[],
                    appearance: match scene.parts[a].appearances.as_slice() {
                        [] => throng_render::CrowdAppearance::Default,
                        looks => throng_render::CrowdAppearance::Slice(looks),
                    },
                })
                .collect();
            let frame = renderer.render_scene(&crowds, opts)?;
            if f < primed {
                continue;
            }
            // The last frame's: occlusion culling saves from the third frame of an animation.
            stats = Some(frame.stats);
            images.push(frame.image);
        }
        on_frame();
    }
    Ok((images, stats))
}

/// A runtime playing `part` from clock time `start`, with its overlay layer.
fn start_runtime(
    timing: Timing,
    asset: &BakedAsset,
    part: &Part,
    start: f64,
) -> anyhow::Result<Runtime> {
    let mut rt = crowd::new_runtime(
        timing,
        &asset.clips,
        &part.assignments,
        &part.transforms,
        start,
        part.blend,
    )?;
    if let Some(o) = part.overlay {
        rt.command_all(PlaybackCommand::Layer {
            clip: ClipId::new(o.clip),
            mask: o.mask,
            weight: o.weight,
            options: PlayOptions::at(start as f32),
        })
        .with_context(|| format!("{}: the overlay layer", asset.source_name))?;
    }
    Ok(rt)
}

/// Each prop file's meshes, once on the GPU.
fn upload_props(
    renderer: &mut Renderer,
    sources: &[PropSource],
) -> anyhow::Result<Vec<Vec<GpuProp>>> {
    sources
        .iter()
        .map(|s| {
            (s.meshes().iter())
                .map(|m| renderer.upload_prop(m))
                .collect::<Result<Vec<_>, _>>()
                .with_context(|| format!("uploading the prop {}", s.path.display()))
        })
        .collect()
}

/// The most memory the reference path may take for one frame's skinned vertices (bytes): it
/// holds every instance's vertices at once, on the CPU and on the GPU.
pub const REFERENCE_MEMORY_LIMIT: u64 = 4 << 30;

/// Bytes per skinned vertex per instance the reference path holds for a frame, at most: the
/// CPU's positions and normals (24 B; tangents, where the source has them, 16 B more) and the
/// GPU's interleaved vertex (32 B). Indices and textures are uploaded once for all instances.
pub const REFERENCE_BYTES_PER_VERTEX: u64 = 72;

/// Refuses a reference frame of `instances` × `vertices` skinned vertices past
/// [`REFERENCE_MEMORY_LIMIT`], saying what to do instead.
pub fn check_reference_memory(name: &str, instances: usize, vertices: usize) -> anyhow::Result<()> {
    let need = instances as u64 * vertices as u64 * REFERENCE_BYTES_PER_VERTEX;
    if need > REFERENCE_MEMORY_LIMIT {
        let most = REFERENCE_MEMORY_LIMIT / (vertices.max(1) as u64 * REFERENCE_BYTES_PER_VERTEX);
        anyhow::bail!(
            "{name}: the reference path skins every instance on the CPU and would hold {:.1} GiB for {instances} instances of {vertices} vertices (its limit is {} GiB, {most} instances of this model); draw at most {most} with --path reference, or leave --path reference out to draw the crowd baked, on the GPU",
            need as f64 / (1u64 << 30) as f64,
            REFERENCE_MEMORY_LIMIT >> 30
        );
    }
    Ok(())
}

/// Draws `frames` of a source model skinned on the CPU at full rate (the reference path):
/// every instance posed at its clip's local time of the frame (the time rules on the source
/// clip). `name` names the model in errors; `on_frame` is called once per image (progress).
pub fn draw_source(
    renderer: &mut Renderer,
    model: &Model,
    name: &str,
    part: &Part,
    frames: Frames,
    opts: &RenderOptions,
    mut on_frame: impl FnMut(),
) -> anyhow::Result<Vec<RgbaImage>> {
    let mut skinner = ModelSkinner::new(model);
    if skinner.is_empty() {
        anyhow::bail!(
            "{name}: nothing to animate (no skin and no mesh under a joint or an animated node)"
        );
    }
    check_reference_memory(name, part.assignments.len(), skinner.vertex_count(model))?;
    let mut images = Vec::with_capacity(frames.count as usize);
    let mut parts: Vec<Vec<SkinnedPart>> = vec![Vec::new(); part.assignments.len()];
    for f in 0..frames.count {
        let t = frames.time(f);
        for (a, out) in part.assignments.iter().zip(&mut parts) {
            let clip = a.clip.and_then(|c| model.clips.get(c).map(|cl| (c, cl)));
            let local = clip.map_or(0.0, |(_, cl)| cl.local_time(cl.loop_mode, t + a.phase));
            skinner.skin(
                model,
                clip.map(|(c, _)| c),
                local as f32,
                opts.skinning,
                out,
            );
        }
        let meshes = source_meshes(model, &parts, &part.transforms);
        images.push(renderer.render_reference(&meshes, opts)?);
        on_frame();
    }
    Ok(images)
}
