//! The main world: crowds, instances as entities, playback commands, events, anchors.
//!
//! Every system here runs in `PostUpdate` after Bevy's transform propagation, so an instance
//! is placed where its entity's `GlobalTransform` says this frame.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bevy::math::{Affine3A, Mat4, Vec3};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy::render::sync_world::SyncToRenderWorld;
use throng_asset::BakedAsset;
use throng_contract::names::{Skinning, Timing};
/// The playback commands an instance entity queues: throng-runtime's one vocabulary.
pub use throng_runtime::PlaybackCommand;
use throng_runtime::{ClipId, InstanceTransform, PlayOptions, Runtime};

use crate::asset::ThrongAsset;
use crate::graph::{self, CrowdGraph, GraphOn, GraphSource, ParamValue, ThrongParams};
pub use crate::messages::ThrongEvent;
use crate::messages::{ClipEventNames, ThrongFinished, ThrongStateEvent};

/// How a crowd's vertices are skinned (docs/design.md §5 "Skinning paths"; [`crate::render`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SkinPath {
    /// A palette pass writes every instance's blended skin matrices once a frame; the vertex
    /// stage reads one per influence. Needs `entries × capacity × 48 B` of storage in one
    /// binding (and as much again in a second buffer, the previous frame's palette, while a
    /// camera has Bevy's `MotionVectorPrepass`), the capacity being the instance count rounded up to a power of two (24
    /// entries, 10,000 instances: 16,384 × 24 × 48 B = 18.9 MB); a crowd past the device's
    /// limit is drawn on the texture path, with a warning.
    #[default]
    Palette,
    /// The vertex stage fetches, interpolates and blends every influence's matrices from the
    /// bone texture itself: no palette memory, more work per vertex.
    Texture,
    /// Vertex animation textures (docs/design.md §3 "VAT"; [`crate::render::vat`]): the
    /// asset must be baked with them (`throng bake --vat f32|f16|unorm16`). The vertex stage
    /// fetches the baked skinned position and normal of its vertex at the two frame-table rows
    /// of each playing layer and blends them; no palette pass, no palette memory, no skinning,
    /// but the VAT's memory (rows × vertices × 12–20 B per primitive). Poses are the bake's
    /// linear-blend-skinned ones (no dual quaternions) and motion vectors carry the instances'
    /// movement only. An asset without VATs (or with VATs too large for the device) is drawn
    /// on the palette path, with a warning.
    Vat,
}

/// A crowd of one baked asset: the runtime that plays every instance, fed by entities with
/// [`ThrongInstance`] and, for crowds too large for an entity each, by direct calls on
/// [`ThrongCrowd::runtime_mut`] (the *batch* path: a million instances cost the runtime's SoA
/// arrays and nothing in the ECS).
///
/// Drawn by [`crate::render`] in one instanced draw per primitive of the asset and pass (the
/// main pass, each shadow map it is in, each camera's prepass: [`crate::prepass`]). Bevy's
/// `NotShadowCaster` on the crowd entity keeps the crowd out of shadow maps; its `Visibility`
/// (hidden: drawn nowhere) and `RenderLayers` (drawn by the cameras whose layers meet them)
/// apply to the whole crowd. Instance transforms are world space; the crowd entity's own
/// transform is not applied.
#[derive(Component)]
#[require(SyncToRenderWorld, Visibility)]
pub struct ThrongCrowd {
    pub asset: Handle<ThrongAsset>,
    pub timing: Timing,
    /// How its vertices are skinned (default: the palette path).
    pub skin_path: SkinPath,
    /// How skin matrices combine per vertex (default: linear blend skinning). Dual quaternions
    /// need a `quat-*` bone texture (`throng bake --encoding quat-f32`); with another
    /// encoding the crowd is drawn with linear blend skinning and a warning is logged.
    pub skinning: Skinning,
    pub(crate) runtime: Option<Runtime>,
    pub(crate) baked: Option<Arc<BakedAsset>>,
    /// The animation graph driving every instance, if any ([`ThrongCrowd::with_graph`]).
    pub(crate) graph: Option<CrowdGraph>,
    /// Where the graph is asked to step ([`ThrongCrowd::with_graph_on`]; here, not in the
    /// graph, so the order of the two builders does not matter).
    graph_on: GraphOn,
    /// Runtime handle → instance entity (events name the entity).
    pub(crate) owners: HashMap<throng_runtime::Handle, Entity>,
    /// Bumped whenever an instance transform is written, spawned or despawned.
    pub(crate) transforms_gen: u64,
    /// Bumped whenever records change (every frame CPU-timed, on a change GPU-timed).
    pub(crate) records_gen: u64,
    /// `records_gen` when the runtime was last handed out mutably ([`Self::runtime_mut`]):
    /// what a caller changed there may have left the GPU-timed change list (cleared in
    /// `First`), so the next extract writes every record.
    pub(crate) records_unlisted: u64,
    bounds_gen: u64,
    /// Whether a clip of the asset carries extracted root motion (CPU-timed, the runtime then
    /// moves instances itself every frame).
    pub(crate) root_motion: bool,
    /// World-space box around every instance's poses, for frustum culling of the batch.
    pub(crate) bounds: Option<(Vec3, Vec3)>,
    /// The asset's clip event names, made when it loaded.
    pub(crate) event_names: ClipEventNames,
    /// What the render world sent the GPU for this crowd at its last extract.
    pub(crate) uploaded: Arc<UploadCounter>,
}

/// Bytes a crowd's last extract sent the GPU, by what they were ([`ThrongCrowd::uploaded`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Uploaded {
    /// Records: every record CPU-timed (64 B each); GPU-timed only those rewritten since the
    /// last frame (64 B each: the 56 B record and its index), or every record (56 B each)
    /// after the crowd's count changed.
    pub records: u64,
    /// Instance transforms (48 B each), when some moved, spawned or despawned.
    pub transforms: u64,
}

/// The render world's extract reads the main world only; it reports what it sent through
/// this counter, which the crowd shares with it.
#[derive(Debug, Default)]
pub(crate) struct UploadCounter {
    pub records: AtomicU64,
    pub transforms: AtomicU64,
}

impl ThrongCrowd {
    pub fn new(asset: Handle<ThrongAsset>, timing: Timing) -> ThrongCrowd {
        ThrongCrowd {
            asset,
            timing,
            skin_path: SkinPath::default(),
            skinning: Skinning::default(),
            runtime: None,
            baked: None,
            graph: None,
            graph_on: GraphOn::default(),
            owners: HashMap::default(),
            transforms_gen: 0,
            records_gen: 0,
            records_unlisted: 0,
            bounds_gen: u64::MAX,
            root_motion: false,
            bounds: None,
            event_names: ClipEventNames::default(),
            uploaded: Arc::default(),
        }
    }

    /// Bytes the render world sent the GPU for this crowd at its last extract (zero without
    /// a render app).
    pub fn uploaded(&self) -> Uploaded {
        Uploaded {
            records: self.uploaded.records.load(Ordering::Relaxed),
            transforms: self.uploaded.transforms.load(Ordering::Relaxed),
        }
    }

    /// The crowd drawn on `path`.
    pub fn with_skin_path(mut self, path: SkinPath) -> ThrongCrowd {
        self.skin_path = path;
        self
    }

    /// The crowd driven by an animation graph (docs/graph.md): every instance plays the
    /// graph from its entry state and [`ThrongParams`] on instance entities set its parameters
    /// ([`ThrongCrowd::set_param`] for batch instances); where it steps: [`Self::with_graph_on`]. Playback commands
    /// ([`ThrongPlayback`]) are then not used. The graph is parsed against the asset's clip
    /// table once it has loaded and attached to the runtime, which keeps it in step with every
    /// spawn and despawn; an invalid graph is logged as an error naming the file and element,
    /// and the crowd stands in its rest pose. A graph keeps no root motion.
    pub fn with_graph(mut self, source: GraphSource) -> ThrongCrowd {
        self.graph = Some(CrowdGraph::new(source));
        self
    }

    /// Where the crowd's graph steps (default [`GraphOn::Auto`]: the GPU on a hardware adapter,
    /// the CPU on a software one). On the GPU (a CPU-timed crowd only) the CPU sends each frame
    /// only the parameter changes, spawns and despawns, a compute pass steps every instance's
    /// state machine and writes its record, and the state and clip events arrive as messages
    /// a frame or two after the step that fired them (docs/graph.md "On the GPU"): an event
    /// of an instance despawned since names no entity. Set it before the asset loads: the
    /// render world places the crowd once (from the first frame its pipelines are ready and it
    /// has an instance), and it stays where it was placed: a later call changes nothing.
    pub fn with_graph_on(mut self, on: GraphOn) -> ThrongCrowd {
        self.graph_on = on;
        self
    }

    /// Where the graph was asked to step ([`Self::with_graph_on`]).
    pub fn graph_on(&self) -> GraphOn {
        self.graph_on
    }

    /// Why the render world placed the graph on the CPU (e.g. "llvmpipe … is a software
    /// adapter", "asked for"); `None` on the GPU, or before it was placed.
    pub fn graph_cpu_because(&self) -> Option<String> {
        match self.graph.as_ref()?.link.lock().placement.as_ref()? {
            crate::graph_gpu::Placement::Cpu(why) => Some(why.clone()),
            crate::graph_gpu::Placement::Gpu(_) => None,
        }
    }

    /// Whether the graph is ready: parsed against the loaded asset and attached (on either
    /// side). False before the asset loads, without a graph, and after a graph error (logged).
    pub fn graph_ready(&self) -> bool {
        self.graph_on_gpu()
            || (self.runtime.as_ref())
                .is_some_and(|rt| rt.data::<throng_graph::GraphCrowd>().is_some())
    }

    /// Whether the graph steps on the GPU (placed by the render world; false before).
    pub fn graph_on_gpu(&self) -> bool {
        self.graph.as_ref().is_some_and(CrowdGraph::on_gpu)
    }

    /// The graph crowd (instance index: the runtime's dense index), once the asset has loaded
    /// and the graph parsed, while it steps on the CPU: `None` on the GPU, where the state
    /// machines are the GPU's ([`Self::graph_on_gpu`]).
    pub fn graph_crowd(&self) -> Option<&throng_graph::GraphCrowd> {
        if self.graph_on_gpu() {
            return None;
        }
        self.runtime.as_ref()?.data::<throng_graph::GraphCrowd>()
    }

    /// The graph crowd and instance `h`'s index in it, to set a batch instance's parameters,
    /// while it steps on the CPU (`None` on the GPU: use [`Self::set_param`], which works on
    /// either side).
    pub fn graph_crowd_mut(
        &mut self,
        h: throng_runtime::Handle,
    ) -> Option<(&mut throng_graph::GraphCrowd, usize)> {
        if self.graph_on_gpu() {
            return None;
        }
        self.runtime.as_mut()?.data_of(h).ok()
    }

    /// Sets parameter `name` of batch instance `h` for the next step, wherever the graph
    /// steps. Before the graph is ready ([`Self::graph_ready`]) nothing is set and it returns
    /// `Ok` (an instance entity's [`ThrongParams`] waits for the graph instead); an instance
    /// the runtime does not hold, an unknown parameter or a value of another kind is an error
    /// and nothing is set.
    pub fn set_param(
        &mut self,
        h: throng_runtime::Handle,
        name: &str,
        value: ParamValue,
    ) -> Result<(), throng_graph::GraphError> {
        let Some(rt) = self.runtime.as_mut() else {
            return Ok(());
        };
        if rt.data::<throng_graph::GraphCrowd>().is_none() {
            return Ok(());
        }
        let len = rt.len();
        let Ok((_, i)) = rt.data_of::<throng_graph::GraphCrowd>(h) else {
            return Err(throng_graph::GraphError::NoSuchInstance {
                index: h.slot() as usize,
                len,
            });
        };
        graph::set_param(rt, i, name, value)
    }

    /// Despawns batch instance `h` (the same as the runtime's `despawn`: its appearance and
    /// graph state go with it).
    pub fn despawn(
        &mut self,
        h: throng_runtime::Handle,
    ) -> Result<(), throng_runtime::RuntimeError> {
        let Some(rt) = self.runtime.as_mut() else {
            return Ok(());
        };
        rt.despawn(h)?;
        self.owners.remove(&h);
        self.transforms_gen += 1;
        self.records_gen += 1;
        Ok(())
    }

    /// The crowd skinned with `skinning`.
    pub fn with_skinning(mut self, skinning: Skinning) -> ThrongCrowd {
        self.skinning = skinning;
        self
    }

    /// Whether the crowd is drawn with dual-quaternion skinning: asked for, and its asset (once
    /// loaded) has a `quat-*` bone texture.
    pub fn dual_quat(&self) -> bool {
        self.skinning == Skinning::DualQuat
            && self
                .baked
                .as_ref()
                .is_some_and(|b| b.bone_texture.encoding.is_quat())
    }

    /// The runtime, once the asset has loaded (the first `PostUpdate` after it has).
    pub fn runtime(&self) -> Option<&Runtime> {
        self.runtime.as_ref()
    }

    /// The runtime for batch use: spawn, play and move instances without entities. Marks the
    /// crowd's transforms and records as changed (they are uploaded again).
    pub fn runtime_mut(&mut self) -> Option<&mut Runtime> {
        self.transforms_gen += 1;
        self.records_gen += 1;
        self.records_unlisted = self.records_gen;
        self.runtime.as_mut()
    }

    /// The runtime for commands that rewrite records (they are uploaded again; GPU-timed, as
    /// the runtime lists them); None before the asset has loaded.
    pub(crate) fn runtime_for_records(&mut self) -> Option<&mut Runtime> {
        self.runtime.as_ref()?;
        self.records_gen += 1;
        self.runtime.as_mut()
    }

    /// World-space box (min, max; file units) around every instance in any pose, as culling
    /// uses it; `None` before the first update or without instances.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        self.bounds
    }

    /// The records in dense order as bytes (what the GPU reads): 64 B per instance CPU-timed,
    /// 56 B GPU-timed; none for a graph stepped on the GPU, which writes them there.
    pub fn record_bytes(&self) -> &[u8] {
        let Some(rt) = self.runtime.as_ref() else {
            return &[];
        };
        if self.graph_on_gpu() {
            // the GPU writes them, into the crowd's record buffer
            return &[];
        }
        match (self.graph_crowd(), rt.cpu()) {
            // CPU-timed with a graph: the graph writes the records
            (Some(g), Some(_)) => bytemuck::cast_slice(g.records()),
            _ => rt.records().bytes(),
        }
    }

    /// The baked asset, once loaded.
    pub fn baked(&self) -> Option<&Arc<BakedAsset>> {
        self.baked.as_ref()
    }

    /// Number of instances (entities and batch).
    pub fn len(&self) -> usize {
        self.runtime.as_ref().map_or(0, Runtime::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One instance of a crowd as an entity: its `GlobalTransform` places the instance (moving the
/// entity moves it), [`ThrongPlayback`] drives what it plays. Despawning the entity (or
/// removing this component) removes the instance.
#[derive(Component, Clone, Copy, Debug)]
#[require(Transform, ThrongPlayback)]
pub struct ThrongInstance {
    pub crowd: Entity,
}

/// The runtime handle of a spawned [`ThrongInstance`] (added by the plugin).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct ThrongHandle(pub throng_runtime::Handle);

/// Playback commands of one instance entity, applied in order by the plugin in `PostUpdate`
/// (then cleared). Write them from any system: `playback.crossfade(run, 0.3)`.
#[derive(Component, Default, Debug, Clone)]
pub struct ThrongPlayback {
    pub commands: Vec<PlaybackCommand>,
}

impl ThrongPlayback {
    pub fn play(&mut self, clip: usize) -> &mut Self {
        self.play_with(clip, PlayOptions::default())
    }
    pub fn play_with(&mut self, clip: usize, options: PlayOptions) -> &mut Self {
        self.commands.push(PlaybackCommand::Play {
            clip: ClipId::new(clip),
            options,
        });
        self
    }
    pub fn crossfade(&mut self, clip: usize, seconds: f32) -> &mut Self {
        self.commands.push(PlaybackCommand::Crossfade {
            clip: ClipId::new(clip),
            seconds,
            options: PlayOptions::default(),
        });
        self
    }
    pub fn blend(&mut self, a: usize, b: usize, weight: f32) -> &mut Self {
        self.commands.push(PlaybackCommand::Blend {
            a: ClipId::new(a),
            b: ClipId::new(b),
            weight,
        });
        self
    }
    pub fn set_speed(&mut self, speed: f32) -> &mut Self {
        self.commands.push(PlaybackCommand::Speed(speed));
        self
    }
    pub fn pause(&mut self) -> &mut Self {
        self.commands.push(PlaybackCommand::Pause);
        self
    }
    pub fn resume(&mut self) -> &mut Self {
        self.commands.push(PlaybackCommand::Resume);
        self
    }
    pub fn seek(&mut self, seconds: f32) -> &mut Self {
        self.commands.push(PlaybackCommand::Seek(seconds));
        self
    }
    pub fn set_enabled(&mut self, enabled: bool) -> &mut Self {
        self.commands.push(PlaybackCommand::Enable(enabled));
        self
    }
}

/// A child entity of an instance entity that follows one anchor (socket) of the asset: the
/// plugin writes its `Transform` (relative to the instance, file units) every frame, so
/// anything spawned under it (a sword) follows the hand. The asset must be baked with the
/// anchor (`throng bake --anchor NODE`).
#[derive(Component, Clone, Debug)]
#[require(Transform)]
pub struct ThrongAnchor {
    /// Node name of the anchor, as baked.
    pub name: String,
}

/// An entity that follows one anchor of any instance of a crowd, batch instances included
/// (for an instance entity, a [`ThrongAnchor`] child does the same relative to it): the plugin
/// writes its `Transform` and `GlobalTransform` every frame to the anchor's world transform
/// (instance transform × the anchor's model-space transform of the current pose, file units).
/// The entity should have no parent. An instance handle that is no longer live, or an anchor
/// the asset was not baked with, leaves it where it is.
#[derive(Component, Clone, Debug)]
#[require(Transform)]
pub struct ThrongProp {
    pub crowd: Entity,
    /// The instance's runtime handle (a batch spawn's return value, or an instance entity's
    /// [`ThrongHandle`]).
    pub instance: throng_runtime::Handle,
    /// Node name of the anchor, as baked.
    pub anchor: String,
}

impl ThrongAnchor {
    /// A follower of the anchor baked from node `name`.
    pub fn new(name: impl Into<String>) -> ThrongAnchor {
        ThrongAnchor { name: name.into() }
    }
}

/// Bevy's `GlobalTransform` as the contract's instance transform (glam 0.32 → 0.34 through
/// column arrays).
pub fn instance_transform(g: &GlobalTransform) -> InstanceTransform {
    let m = g.to_matrix().to_cols_array();
    InstanceTransform::from_mat4(&glam::Mat4::from_cols_array(&m))
}

/// throng's glam 0.34 matrix as Bevy's.
pub fn bevy_mat4(m: &glam::Mat4) -> Mat4 {
    Mat4::from_cols_array(&m.to_cols_array())
}

/// Creates the runtime of every crowd whose asset has loaded.
pub(crate) fn init_crowds(mut crowds: Query<&mut ThrongCrowd>, assets: Res<Assets<ThrongAsset>>) {
    for mut crowd in &mut crowds {
        if crowd.runtime.is_some() {
            continue;
        }
        let Some(a) = assets.get(&crowd.asset) else {
            continue;
        };
        let baked = a.baked.clone();
        // Messages name the file the application loaded (the baked file's own source name
        // is the glTF it was baked from); an asset made in memory by its source.
        let label = crowd
            .asset
            .path()
            .map(|p| p.to_string())
            .unwrap_or_else(|| baked.source_name.clone());
        let encoding = baked.bone_texture.encoding;
        let has_vats = baked.primitives.iter().all(|p| p.vat.is_some());
        if crowd.skin_path == SkinPath::Vat && !has_vats {
            warn!(
                "throng: the VAT path needs a VAT on every primitive and {} lacks them: \
                 drawn on the palette path (bake it with a VAT encoding, or choose another path)",
                label
            );
        }
        if crowd.skin_path == SkinPath::Vat && has_vats && crowd.skinning == Skinning::DualQuat {
            warn!(
                "throng: {}'s VATs hold linear-blend-skinned poses: dual-quaternion skinning \
                 does not apply on the VAT path",
                label
            );
        }
        if crowd.skinning == Skinning::DualQuat && !encoding.is_quat() {
            warn!(
                "throng: dual-quaternion skinning needs a quat-* bone texture and {} has {}: \
                 drawn with linear blend skinning (bake it with a quat-* encoding)",
                label,
                encoding.as_str()
            );
        }
        // GPU-timed playback keeps no root motion (the GPU times the clips).
        crowd.root_motion = crowd.timing == Timing::Cpu
            && crowd.graph.is_none()
            && baked.clips.iter().any(|c| c.root_motion.is_some());
        crowd.runtime = Some(Runtime::new(crowd.timing, &baked.clips));
        crowd.event_names = ClipEventNames::of(&baked);
        crowd.baked = Some(baked);
        let crowd = &mut *crowd;
        if let (Some(g), Some(baked), Some(rt)) = (
            crowd.graph.as_mut(),
            crowd.baked.as_ref(),
            crowd.runtime.as_mut(),
        ) {
            graph::ensure_graph(g, baked, rt);
        }
    }
}

/// Removes the instances of despawned entities (or entities that lost [`ThrongInstance`]).
pub(crate) fn despawn_instances(
    mut removed: RemovedComponents<ThrongInstance>,
    mut index: ResMut<InstanceIndex>,
    mut crowds: Query<&mut ThrongCrowd>,
) {
    for e in removed.read() {
        let Some((crowd_e, h)) = index.0.remove(&e) else {
            continue;
        };
        let Ok(mut crowd) = crowds.get_mut(crowd_e) else {
            continue;
        };
        if let Err(err) = crowd.despawn(h) {
            warn!("throng: despawning the instance of {e}: {err}");
        }
    }
}

/// Every instance entity's crowd and runtime handle, so despawns find their instance after
/// the entity is gone.
#[derive(Resource, Default)]
pub(crate) struct InstanceIndex(pub HashMap<Entity, (Entity, throng_runtime::Handle)>);

/// Spawns the runtime instance of every new [`ThrongInstance`] whose crowd is ready.
pub(crate) fn spawn_instances(
    mut commands: Commands,
    new: Query<(Entity, &ThrongInstance, &GlobalTransform), Without<ThrongHandle>>,
    mut crowds: Query<&mut ThrongCrowd>,
    mut index: ResMut<InstanceIndex>,
) {
    for (e, inst, g) in &new {
        let Ok(mut crowd) = crowds.get_mut(inst.crowd) else {
            continue;
        };
        let Some(rt) = crowd.runtime.as_mut() else {
            continue;
        };
        let h = rt.spawn(instance_transform(g));
        crowd.owners.insert(h, e);
        crowd.transforms_gen += 1;
        crowd.records_gen += 1;
        index.0.insert(e, (inst.crowd, h));
        commands.entity(e).insert(ThrongHandle(h));
    }
}

/// Instances whose playback has commands to apply: new ones, or ones just spawned into the
/// runtime (commands given before the asset loaded).
type CommandsToApply = Or<(Changed<ThrongPlayback>, Added<ThrongHandle>)>;

/// Applies the queued [`ThrongPlayback`] commands (errors — a clip index past the table, a
/// negative speed — are logged, the command skipped). Commands given before the crowd's asset
/// had loaded wait in the component and are applied in the frame its instance is spawned
/// (`Added<ThrongHandle>`): a crowd spawned with `play` right after `AssetServer::load` plays.
pub(crate) fn apply_playback(
    mut instances: Query<
        (Entity, &ThrongInstance, &ThrongHandle, &mut ThrongPlayback),
        CommandsToApply,
    >,
    mut crowds: Query<&mut ThrongCrowd>,
) {
    for (e, inst, h, mut pb) in &mut instances {
        if pb.commands.is_empty() {
            continue;
        }
        let crowd = crowds.get_mut(inst.crowd).ok().map(Mut::into_inner);
        let Some(rt) = crowd.and_then(ThrongCrowd::runtime_for_records) else {
            continue;
        };
        for c in pb.commands.drain(..) {
            if let Err(err) = rt.command(h.0, c) {
                warn!("throng: {c:?} on {e}: {err}");
            }
        }
    }
}

/// Instances whose parameters have changes to apply: new ones, or ones just spawned into the
/// runtime (changes given before the asset loaded).
type ParamsToApply = Or<(Changed<ThrongParams>, Added<ThrongHandle>)>;

/// Applies the queued [`ThrongParams`] changes of instance entities of graph-driven crowds
/// (errors — an unknown parameter, a value of another kind — are logged, the change skipped).
/// Changes given before the graph is ready wait in the component.
pub(crate) fn apply_params(
    mut instances: Query<
        (Entity, &ThrongInstance, &ThrongHandle, &mut ThrongParams),
        ParamsToApply,
    >,
    mut crowds: Query<&mut ThrongCrowd>,
) {
    for (e, inst, h, mut params) in &mut instances {
        if params.changes.is_empty() {
            continue;
        }
        let Ok(crowd) = crowds.get_mut(inst.crowd).map(Mut::into_inner) else {
            continue;
        };
        let (Some(rt), Some(g)) = (crowd.runtime.as_mut(), crowd.graph.as_mut()) else {
            continue;
        };
        let Ok((_, i)) = rt.data_of::<throng_graph::GraphCrowd>(h.0) else {
            continue;
        };
        for (name, value) in params.changes.drain(..) {
            if let Err(err) = graph::set_param(rt, i, &name, value) {
                g.warn_param(&name, e, &err);
            }
        }
    }
}

/// Moves the instances of entities whose `GlobalTransform` changed.
pub(crate) fn sync_transforms(
    moved: Query<(&ThrongInstance, &ThrongHandle, &GlobalTransform), Changed<GlobalTransform>>,
    mut crowds: Query<&mut ThrongCrowd>,
) {
    for (inst, h, g) in &moved {
        let Ok(mut crowd) = crowds.get_mut(inst.crowd) else {
            continue;
        };
        let crowd = &mut *crowd;
        if let Some(rt) = crowd.runtime.as_mut() {
            if rt.set_transform(h.0, instance_transform(g)).is_ok() {
                crowd.transforms_gen += 1;
            }
        }
    }
}

/// Forgets the GPU-timed records rewritten last frame, which the render world's extract has
/// scattered into its buffer (in `First`, so a whole frame's rewrites — commands, graph
/// changes, the update — reach one extract).
pub(crate) fn clear_record_changes(mut crowds: Query<&mut ThrongCrowd>) {
    for mut crowd in &mut crowds {
        // read first: a crowd with nothing to clear is not marked changed
        let dirty = (crowd.runtime.as_ref())
            .is_some_and(|rt| rt.record_changes().writes.is_some_and(|w| !w.is_empty()));
        if dirty {
            if let Some(rt) = crowd.runtime.as_mut() {
                rt.clear_changes();
            }
        }
    }
}

/// Advances every crowd by the frame's time and sends its events and completions as messages.
pub(crate) fn advance_crowds(
    time: Res<Time>,
    mut crowds: Query<(Entity, &mut ThrongCrowd)>,
    mut events: MessageWriter<ThrongEvent>,
    mut finished: MessageWriter<ThrongFinished>,
    mut states: MessageWriter<ThrongStateEvent>,
) {
    let dt = time.delta_secs_f64();
    for (crowd_e, mut crowd) in &mut crowds {
        let crowd = &mut *crowd;
        let Some(rt) = crowd.runtime.as_mut() else {
            continue;
        };
        graph::step(crowd.graph.as_mut(), rt, dt);
        // CPU-timed, a graph crowd's records are the graph's: the runtime keeps only time
        let graph_writes = rt.data::<throng_graph::GraphCrowd>().is_some();
        match rt.cpu_mut().filter(|_| graph_writes) {
            Some(cpu) => cpu.advance_clock(dt),
            None => rt.update(dt),
        }
        // GPU-timed, the graph's commands are part of this frame's record changes
        if let (Some(g), Some(rt)) = (crowd.graph.as_mut(), crowd.runtime.as_mut()) {
            let parts = (g, rt, &crowd.event_names);
            graph::after_update(crowd_e, parts, &crowd.owners, &mut events, &mut states);
        }
        let (Some(rt), Some(baked)) = (crowd.runtime.as_mut(), crowd.baked.as_ref()) else {
            continue;
        };
        // CPU-timed every record is new; GPU-timed only when a record was rewritten (the
        // list of rewrites is kept for the render world's extract and cleared in `First`)
        if rt.record_changes().writes.is_none_or(|w| !w.is_empty()) {
            crowd.records_gen += 1;
        }
        if crowd.root_motion {
            // the runtime moved the instances playing root-motion clips
            crowd.transforms_gen += 1;
        }
        let (fired, done) = (rt.events(), rt.finished());
        for f in fired {
            events.write(ThrongEvent {
                crowd: crowd_e,
                entity: crowd.owners.get(&f.instance).copied(),
                handle: f.instance,
                clip: f.clip,
                event: f.event,
                name: crowd.event_names.get(f.clip, f.event),
                time: f.time,
            });
        }
        for f in done {
            finished.write(ThrongFinished {
                crowd: crowd_e,
                entity: crowd.owners.get(&f.instance).copied(),
                handle: f.instance,
                clip: f.clip,
                time: f.time,
            });
        }
        if crowd.bounds_gen != crowd.transforms_gen {
            crowd.bounds_gen = crowd.transforms_gen;
            crowd.bounds = world_bounds(rt.transforms(), &baked.pose_bounds());
        }
    }
}

/// Queues the frame's step of every graph crowd stepped on the GPU (`crate::graph_gpu`), in
/// `Last`: after every system that may spawn, despawn or set a parameter this frame, so the
/// step the render world runs holds them all and the extract draws what it wrote.
pub(crate) fn queue_graph_steps(time: Res<Time>, mut crowds: Query<&mut ThrongCrowd>) {
    let dt = time.delta_secs_f64();
    for mut crowd in &mut crowds {
        // read first: a crowd without a graph on the GPU is not marked changed
        if !crowd.graph_on_gpu() {
            continue;
        }
        let crowd = &mut *crowd;
        if let (Some(g), Some(rt)) = (crowd.graph.as_mut(), crowd.runtime.as_mut()) {
            graph::queue_gpu_step(g, rt, dt);
        }
    }
}

/// A world box around every instance of `transforms` in any pose of `pose` (model space):
/// each instance's origin, grown by the farthest pose corner from the model origin times the
/// instance's largest axis scale. `None` for no instances. O(n), run only when transforms
/// changed.
pub fn world_bounds(
    transforms: &[InstanceTransform],
    pose: &throng_asset::Aabb,
) -> Option<(Vec3, Vec3)> {
    if transforms.is_empty() || pose.is_empty() {
        return None;
    }
    let reach = pose
        .corners()
        .iter()
        .map(|c| c.length())
        .fold(0.0f32, f32::max);
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    let mut scale = 0.0f32;
    for t in transforms {
        let [r0, r1, r2] = t.rows;
        let p = Vec3::new(r0[3], r1[3], r2[3]);
        lo = lo.min(p);
        hi = hi.max(p);
        for c in 0..3 {
            let s = Vec3::new(r0[c], r1[c], r2[c]).length_squared();
            scale = scale.max(s);
        }
    }
    let grow = Vec3::splat(reach * scale.sqrt());
    Some((lo - grow, hi + grow))
}

/// Moves every instance entity of a crowd with root motion to where the runtime's root motion
/// took its instance this frame: its `Transform` (relative to its parent, if it has one) and
/// its `GlobalTransform` at once, so anchors and gameplay see the new place in the same frame.
/// The next frame's `sync_transforms` then hands the runtime back the same place (after
/// Bevy's TRS round trip, ~1e-7), and moving the entity from gameplay still moves the instance.
/// An instance entity whose parent is itself an instance entity is left alone (its parent's
/// `GlobalTransform` is being written here too).
pub(crate) fn follow_root_motion(
    mut instances: Query<(
        &ThrongInstance,
        &ThrongHandle,
        &mut Transform,
        &mut GlobalTransform,
        Option<&ChildOf>,
    )>,
    parents: Query<&GlobalTransform, Without<ThrongInstance>>,
    crowds: Query<&ThrongCrowd>,
) {
    if !crowds.iter().any(|c| c.root_motion) {
        return;
    }
    for (inst, h, mut local, mut global, child_of) in &mut instances {
        let Ok(crowd) = crowds.get(inst.crowd) else {
            continue;
        };
        let Some(rt) = crowd.runtime.as_ref().filter(|_| crowd.root_motion) else {
            continue;
        };
        let Ok(t) = rt.transform(h.0) else {
            continue;
        };
        if t == instance_transform(&global) {
            continue;
        }
        let world = bevy_mat4(&t.to_mat4());
        let parent = match child_of {
            Some(c) => match parents.get(c.parent()) {
                Ok(p) => p.to_matrix(),
                Err(_) => continue,
            },
            None => Mat4::IDENTITY,
        };
        *local = Transform::from_matrix(parent.inverse() * world);
        *global = GlobalTransform::from(Affine3A::from_mat4(world));
    }
}

/// What an anchor or prop entity holds (a sword under a hand): its descendants' global
/// transforms, composed from its own as Bevy's propagation would, in the same frame. Bevy's
/// propagation ran before the plugin moved the followers, so without this their subtrees
/// would show last frame's pose.
type Held<'w, 's> = Query<
    'w,
    's,
    (
        &'static Transform,
        &'static mut GlobalTransform,
        Option<&'static Children>,
    ),
    (
        Without<ThrongAnchor>,
        Without<ThrongProp>,
        Without<ThrongInstance>,
    ),
>;

/// Propagates `global` (a follower's new world transform) to every descendant of `children`
/// (an explicit stack: hierarchies are data, not recursion depth).
fn propagate_held(global: GlobalTransform, children: &Children, held: &mut Held) {
    let mut stack: Vec<(GlobalTransform, Entity)> = children.iter().map(|c| (global, c)).collect();
    while let Some((parent, e)) = stack.pop() {
        let Ok((local, mut g, kids)) = held.get_mut(e) else {
            continue;
        };
        let world = parent.mul_transform(*local);
        *g = world;
        if let Some(kids) = kids {
            stack.extend(kids.iter().map(|c| (world, c)));
        }
    }
}

/// The world transform of `anchor` on `instance` of `crowd`, as Bevy's matrix; `None` before
/// the crowd has loaded, for an asset without that anchor or a handle that is not live.
fn anchor_world(
    crowd: &ThrongCrowd,
    instance: throng_runtime::Handle,
    anchor: &str,
) -> Option<Mat4> {
    let (rt, baked) = (crowd.runtime.as_ref()?, crowd.baked.as_ref()?);
    let table = baked.anchors.as_ref()?;
    let i = table.anchors.iter().position(|a| a.name == anchor)?;
    rt.anchor_world(instance, table, i)
        .ok()
        .map(|m| bevy_mat4(&m))
}

/// Places every [`ThrongProp`] at its anchor (and what it holds, the same frame).
pub(crate) fn follow_props(
    mut props: Query<(
        &ThrongProp,
        &mut Transform,
        &mut GlobalTransform,
        Option<&Children>,
    )>,
    crowds: Query<&ThrongCrowd>,
    mut held: Held,
) {
    for (prop, mut local, mut global, children) in &mut props {
        let Ok(crowd) = crowds.get(prop.crowd) else {
            continue;
        };
        let Some(world) = anchor_world(crowd, prop.instance, &prop.anchor) else {
            continue;
        };
        *local = Transform::from_matrix(world);
        *global = GlobalTransform::from(Affine3A::from_mat4(world));
        if let Some(children) = children {
            propagate_held(*global, children, &mut held);
        }
    }
}

/// Writes the transform of every [`ThrongAnchor`] child from its parent instance's pose
/// (and its `GlobalTransform` at once, and its descendants', so the follower and what it
/// holds do not lag a frame).
pub(crate) fn follow_anchors(
    mut anchors: Query<(
        &ThrongAnchor,
        &ChildOf,
        &mut Transform,
        &mut GlobalTransform,
        Option<&Children>,
    )>,
    parents: Query<(&ThrongInstance, &ThrongHandle, &GlobalTransform), Without<ThrongAnchor>>,
    crowds: Query<&ThrongCrowd>,
    mut held: Held,
) {
    for (anchor, child_of, mut local, mut global, children) in &mut anchors {
        let Ok((inst, h, parent_g)) = parents.get(child_of.parent()) else {
            continue;
        };
        let Ok(crowd) = crowds.get(inst.crowd) else {
            continue;
        };
        let Some(world) = anchor_world(crowd, h.0, &anchor.name) else {
            continue;
        };
        let parent = parent_g.to_matrix();
        *local = Transform::from_matrix(parent.inverse() * world);
        *global = GlobalTransform::from(Affine3A::from_mat4(world));
        if let Some(children) = children {
            propagate_held(*global, children, &mut held);
        }
    }
}
