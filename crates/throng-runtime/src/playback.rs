//! The one playback API over both timings (docs/design.md §4):
//!
//! - [`PlaybackCommand`]: every change a game makes to an instance's playback, as a value (a
//!   front end can queue it, as the Bevy plugin does, or send it as a batch);
//! - [`PlaybackControl`]: the calls both runtimes answer alike — spawn, playback changes
//!   ([`PlaybackControl::command`]; [`Instance`] spells each, `rt.instance(h).play(..)`),
//!   transforms, update, events, anchors. [`CpuRuntime`], [`GpuRuntime`] and [`Runtime`]
//!   implement it; each also answers `instance` itself, so no import is needed to play;
//! - [`Runtime`]: a runtime whose timing is chosen at run time, which hands the renderer its
//!   records as one contract-level view ([`Records`], [`RecordChanges`]) whatever the timing.
//!   Every front end (command line, viewer, benches, Bevy plugin, examples) plays through it.

use glam::Mat4;
use throng_asset::{AnchorTexture, ClipInfo};
use throng_contract::{GpuInstanceRecord, InstanceTransform, RecordChanges, Records, Timing};

use crate::instance_data::{AttachedData, InstanceData};
use crate::{
    Appearances, ClipId, CpuRuntime, Finished, FiredEvent, GpuRuntime, Handle, Instance,
    PlayOptions, RuntimeError,
};
use throng_contract::Appearance;

/// One change to an instance's playback, as a value (a front end can queue it, or send a
/// batch); [`Instance`]'s calls of the same names send them and say what each does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PlaybackCommand {
    /// [`Instance::play`].
    Play { clip: ClipId, options: PlayOptions },
    /// [`Instance::crossfade_with`] over `seconds` of clock time.
    Crossfade {
        clip: ClipId,
        seconds: f32,
        options: PlayOptions,
    },
    /// [`Instance::blend`]: weight `weight` of clip `b`, `1 − weight` of clip `a`.
    Blend { a: ClipId, b: ClipId, weight: f32 },
    /// [`Instance::layer`].
    Layer {
        clip: ClipId,
        mask: u32,
        weight: f32,
        options: PlayOptions,
    },
    /// [`Instance::speed`].
    Speed(f32),
    /// [`Instance::pause`].
    Pause,
    /// [`Instance::resume`].
    Resume,
    /// [`Instance::seek`] to clip time, seconds.
    Seek(f32),
    /// [`Instance::enabled`].
    Enable(bool),
}

/// The calls both runtimes share, with one meaning. Where the GPU-timed mode differs (two
/// layers; no root motion) the call says so.
pub trait PlaybackControl {
    fn timing(&self) -> Timing;

    /// Live instances.
    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Seconds of clock time since creation (the sum of `update` steps).
    fn time(&self) -> f64;

    /// A new enabled instance at `transform` (world from model, file units) showing the rest
    /// pose until a clip is played.
    fn spawn(&mut self, transform: InstanceTransform) -> Handle;

    /// Removes an instance; the last instance moves into its dense index (other handles stay
    /// valid).
    fn despawn(&mut self, h: Handle) -> Result<(), RuntimeError>;

    /// Dense index of an instance in the records and `transforms()` (changes when another
    /// instance is despawned).
    fn index(&self, h: Handle) -> Option<usize>;

    /// Handle of the instance at a dense index (`None` past the end).
    fn handle_at(&self, index: usize) -> Option<Handle>;

    /// Applies one playback change to instance `h` ([`Instance`]'s calls send them: a
    /// runtime's own `instance(h)`, or [`Instance::of`] in code generic over runtimes).
    fn command(&mut self, h: Handle, command: PlaybackCommand) -> Result<(), RuntimeError>;

    /// The clip called `name`; an unknown name is an error listing the clips (with a match
    /// but for letter case suggested).
    fn clip(&self, name: &str) -> Result<ClipId, RuntimeError>;

    /// Whether the newest layer is a one-shot that has reached its end.
    fn is_finished(&self, h: Handle) -> Result<bool, RuntimeError>;

    fn transform(&self, h: Handle) -> Result<InstanceTransform, RuntimeError>;

    fn set_transform(&mut self, h: Handle, t: InstanceTransform) -> Result<(), RuntimeError>;

    /// Transforms of all live instances in dense order, ready to upload unchanged.
    fn transforms(&self) -> &[InstanceTransform];

    /// Advances the clock by `dt` seconds (negative or non-finite = 0): CPU-timed, every
    /// instance and its record; GPU-timed, only the instances that are due (events, one-shot
    /// ends, crossfade ends, re-anchoring).
    fn update(&mut self, dt: f64);

    /// Events fired by the last `update`.
    fn events(&self) -> &[FiredEvent];

    /// One-shot layers that reached their end during the last `update`.
    fn finished(&self) -> &[Finished];

    /// World transform (file units) of `anchor` for instance `h` (see
    /// [`crate::anchor_world`]).
    fn anchor_world(
        &self,
        h: Handle,
        anchors: &AnchorTexture,
        anchor: usize,
    ) -> Result<Mat4, RuntimeError>;
}

/// A runtime of either timing, chosen at run time: what every front end plays through.
///
/// CPU-timed it rewrites every 64 B record each `update`; GPU-timed it writes a 56 B record
/// only when an instance's playback changes and keeps a copy of every record, so that
/// [`Runtime::records`] is always the whole crowd (for a draw that uploads every record) while
/// [`Runtime::record_changes`] also gives just what changed (for an upload kept across frames).
///
/// It is also the one store of per-instance data beside playback (docs/design.md §4 "One
/// instance store"): each instance's [`Appearance`] ([`Runtime::set_appearance`]) and
/// whatever a front end attaches ([`Runtime::attach`]: an animation graph's state, its own
/// values) follow every spawn and despawn, addressed by [`Handle`].
pub struct Runtime {
    timed: Timed,
    appearances: Appearances,
    data: AttachedData,
}

enum Timed {
    Cpu(CpuRuntime),
    Gpu {
        rt: GpuRuntime,
        /// Every instance's record in dense order, kept equal to the runtime's state after
        /// each call (the runtime itself keeps only the frame's changed records).
        records: Vec<GpuInstanceRecord>,
    },
}

impl Runtime {
    /// The runtime of its timing, for the calls it answers alike.
    fn engine(&self) -> &dyn PlaybackControl {
        match &self.timed {
            Timed::Cpu(rt) => rt,
            Timed::Gpu { rt, .. } => rt,
        }
    }

    /// The playback calls of instance `h` (no trait import needed).
    pub fn instance(&mut self, h: Handle) -> Instance<'_, Runtime> {
        Instance { rt: self, h }
    }

    /// An empty runtime of `timing` for one asset's clip table.
    pub fn new(timing: Timing, clips: &[ClipInfo]) -> Runtime {
        Runtime {
            timed: match timing {
                Timing::Cpu => Timed::Cpu(CpuRuntime::new(clips)),
                Timing::Gpu => Timed::Gpu {
                    rt: GpuRuntime::new(clips),
                    records: Vec::new(),
                },
            },
            appearances: Appearances::default(),
            data: AttachedData::default(),
        }
    }

    /// Every instance's appearance in dense order with the changes since
    /// [`Self::clear_appearance_changes`], for the renderer's upload.
    pub fn appearances(&self) -> &Appearances {
        &self.appearances
    }

    /// Instance `h`'s appearance ([`Appearance::DEFAULT`] until set).
    pub fn appearance(&self, h: Handle) -> Result<Appearance, RuntimeError> {
        let i = self.live(h)?;
        Ok(self.appearances.get(i).unwrap_or(Appearance::DEFAULT))
    }

    /// Sets instance `h`'s appearance (checked as [`Appearances::set`] checks it).
    pub fn set_appearance(&mut self, h: Handle, a: Appearance) -> Result<(), RuntimeError> {
        let i = self.live(h)?;
        self.appearances.set(i, a)
    }

    /// Forgets the appearance changes once they are uploaded.
    pub fn clear_appearance_changes(&mut self) {
        self.appearances.clear_changes();
    }

    fn live(&self, h: Handle) -> Result<usize, RuntimeError> {
        self.index(h).ok_or(RuntimeError::DeadHandle { handle: h })
    }

    /// Attaches per-instance data that then follows every spawn and despawn (replacing data
    /// of the same type). It must hold one entry per instance now.
    pub fn attach<T: InstanceData>(&mut self, data: T) -> Result<(), RuntimeError> {
        let got = data.instance_count();
        let expected = self.len();
        if self.data.attach(data, expected) {
            Ok(())
        } else {
            Err(RuntimeError::InstanceDataCount { got, expected })
        }
    }

    /// Takes attached data back out (it no longer follows the runtime).
    pub fn detach<T: InstanceData>(&mut self) -> Option<T> {
        self.data.detach::<T>()
    }

    /// Attached data of type `T`, indexed by dense index ([`PlaybackControl::index`]).
    pub fn data<T: InstanceData>(&self) -> Option<&T> {
        self.data.get::<T>()
    }

    pub fn data_mut<T: InstanceData>(&mut self) -> Option<&mut T> {
        self.data.get_mut::<T>()
    }

    /// Attached data of type `T` and instance `h`'s dense index in it.
    pub fn data_of<T: InstanceData>(&mut self, h: Handle) -> Result<(&mut T, usize), RuntimeError> {
        let i = self.live(h)?;
        let data = self
            .data
            .get_mut::<T>()
            .ok_or(RuntimeError::NoInstanceData {
                what: std::any::type_name::<T>(),
            })?;
        Ok((data, i))
    }

    /// Runs `f` with attached data of type `T` and the runtime together (e.g. a graph telling
    /// the runtime what its instances show); spawns and despawns `f` makes reach the data when
    /// it returns (data of type `T` that `f` attaches replaces it). `None` without such data.
    pub fn with_data<T: InstanceData, R>(
        &mut self,
        f: impl FnOnce(&mut T, &mut Runtime) -> R,
    ) -> Option<R> {
        let (mut item, mark) = self.data.lend::<T>()?;
        let out = item.any_mut().downcast_mut::<T>().map(|t| f(t, self));
        // data of the same type attached by `f` replaces the lent one
        let replaced = self.data.get::<T>().is_some();
        self.data.give_back(item, mark, replaced);
        out
    }

    /// Every instance's record in dense order as the renderer reads it — CPU-timed as the
    /// last `update` wrote them (empty after [`CpuRuntime::update_into`] wrote them elsewhere),
    /// GPU-timed as of the last call, with the clock.
    pub fn records(&self) -> Records<'_> {
        match &self.timed {
            Timed::Cpu(rt) => Records::Cpu(rt.records()),
            Timed::Gpu { rt, records } => Records::Gpu {
                records,
                clock: rt.gpu_clock(),
            },
        }
    }

    /// Every record and, GPU-timed, the records rewritten since [`Self::clear_changes`]: what
    /// an upload kept across frames sends (throng-render's `CrowdUpload::update`).
    pub fn record_changes(&self) -> RecordChanges<'_> {
        RecordChanges {
            records: self.records(),
            writes: match &self.timed {
                Timed::Cpu(_) => None,
                Timed::Gpu { rt, .. } => Some(rt.record_writes()),
            },
        }
    }

    /// Forgets the changes [`Self::record_changes`] lists, once they are sent. Call it once a
    /// frame (also when only [`Self::records`] is drawn): a GPU-timed update then costs the
    /// frame's changes, not every change since the start.
    pub fn clear_changes(&mut self) {
        if let Timed::Gpu { rt, .. } = &mut self.timed {
            rt.clear_dirty();
        }
    }

    /// Instance `h`'s layers as (clip, weight, clip time in seconds), newest last; `None`
    /// GPU-timed (the GPU derives its clip times) or for a dead handle.
    pub fn layer_times(&self, h: Handle) -> Option<Vec<(usize, f32, f64)>> {
        self.cpu().and_then(|rt| rt.layer_times(h).ok())
    }

    /// The CPU-timed runtime, for calls only it has ([`CpuRuntime::update_into`]).
    pub fn cpu(&self) -> Option<&CpuRuntime> {
        match &self.timed {
            Timed::Cpu(rt) => Some(rt),
            Timed::Gpu { .. } => None,
        }
    }

    /// The CPU-timed runtime, mutably (it keeps no copy of anything to invalidate).
    pub fn cpu_mut(&mut self) -> Option<&mut CpuRuntime> {
        match &mut self.timed {
            Timed::Cpu(rt) => Some(rt),
            Timed::Gpu { .. } => None,
        }
    }

    /// The GPU-timed runtime, for what only it answers (e.g. `exact_record`); read only, so
    /// that every change passes through [`Runtime`] and reaches [`Self::records`].
    pub fn gpu(&self) -> Option<&GpuRuntime> {
        match &self.timed {
            Timed::Gpu { rt, .. } => Some(rt),
            Timed::Cpu(_) => None,
        }
    }

    /// Applies `command` to every live instance in dense order; stops at the first error.
    pub fn command_all(&mut self, command: PlaybackCommand) -> Result<(), RuntimeError> {
        for i in 0..self.len() {
            if let Some(h) = self.handle_at(i) {
                self.command(h, command)?;
            }
        }
        Ok(())
    }

    /// GPU-timed: copies the runtime's record writes into the kept records.
    fn sync_writes(&mut self) {
        if let Timed::Gpu { rt, records } = &mut self.timed {
            if records.len() != rt.len() {
                *records = rt.collect_records();
                return;
            }
            for w in rt.record_writes() {
                if let Some(r) = records.get_mut(w.index as usize) {
                    *r = w.record;
                }
            }
        }
    }

    /// GPU-timed: brings instance `h`'s kept record up to date after a change to it, from the
    /// record the change wrote into the runtime's list (not listed: the record is unchanged).
    fn sync_one(&mut self, h: Handle) {
        if let Timed::Gpu { rt, records } = &mut self.timed {
            if let Some(i) = rt.index(h) {
                if let (Some(r), Some(slot)) = (rt.listed_record(i), records.get_mut(i)) {
                    *slot = *r;
                }
            }
        }
    }
}

impl Runtime {
    /// The timing chosen at creation.
    pub fn timing(&self) -> Timing {
        match self.timed {
            Timed::Cpu(_) => Timing::Cpu,
            Timed::Gpu { .. } => Timing::Gpu,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Live instances.
    pub fn len(&self) -> usize {
        self.engine().len()
    }

    /// Seconds of clock time since creation (the sum of `update` steps).
    pub fn time(&self) -> f64 {
        self.engine().time()
    }

    /// A new enabled instance at `transform` (world from model, file units) showing the rest
    /// pose until a clip is played, with the default appearance and an entry in every
    /// attached data.
    pub fn spawn(&mut self, transform: InstanceTransform) -> Handle {
        let h = match &mut self.timed {
            Timed::Cpu(rt) => rt.spawn(transform),
            Timed::Gpu { rt, records } => {
                let h = rt.spawn(transform);
                // spawning lists the new instance with its record
                let listed = rt.index(h).and_then(|i| rt.listed_record(i));
                records.push(listed.copied().unwrap_or_default());
                h
            }
        };
        self.appearances.push(Appearance::DEFAULT);
        self.data.spawned();
        h
    }

    /// Removes an instance; the last instance moves into its dense index, and so do its
    /// record, appearance and attached data (other handles stay valid).
    pub fn despawn(&mut self, h: Handle) -> Result<(), RuntimeError> {
        let i = self.live(h)?;
        match &mut self.timed {
            Timed::Cpu(rt) => rt.despawn(h)?,
            Timed::Gpu { rt, records } => {
                rt.despawn(h)?;
                if i < records.len() {
                    // the runtime moved its last instance into i, as here
                    records.swap_remove(i);
                }
            }
        }
        // and so does everything else kept per instance
        self.appearances.swap_remove(i);
        self.data.despawned(i);
        Ok(())
    }

    /// Dense index of an instance in the records, transforms, appearances and attached data.
    pub fn index(&self, h: Handle) -> Option<usize> {
        self.engine().index(h)
    }

    /// Handle of the instance at a dense index (`None` past the end).
    pub fn handle_at(&self, index: usize) -> Option<Handle> {
        self.engine().handle_at(index)
    }

    /// Applies one playback change ([`Self::instance`]'s calls send them).
    pub fn command(&mut self, h: Handle, command: PlaybackCommand) -> Result<(), RuntimeError> {
        match &mut self.timed {
            Timed::Cpu(rt) => rt.command(h, command)?,
            Timed::Gpu { rt, .. } => rt.command(h, command)?,
        }
        self.sync_one(h);
        Ok(())
    }

    /// The clip called `name`; an unknown name is an error listing the clips (with a match but
    /// for letter case suggested).
    pub fn clip(&self, name: &str) -> Result<ClipId, RuntimeError> {
        self.engine().clip(name)
    }

    /// Whether the newest layer is a one-shot that has reached its end.
    pub fn is_finished(&self, h: Handle) -> Result<bool, RuntimeError> {
        self.engine().is_finished(h)
    }

    pub fn transform(&self, h: Handle) -> Result<InstanceTransform, RuntimeError> {
        self.engine().transform(h)
    }

    pub fn set_transform(&mut self, h: Handle, t: InstanceTransform) -> Result<(), RuntimeError> {
        match &mut self.timed {
            Timed::Cpu(rt) => rt.set_transform(h, t),
            Timed::Gpu { rt, .. } => rt.set_transform(h, t),
        }
    }

    /// Transforms of all live instances in dense order, ready to upload unchanged.
    pub fn transforms(&self) -> &[InstanceTransform] {
        self.engine().transforms()
    }

    /// Advances the clock by `dt` seconds (negative or non-finite = 0): CPU-timed, every
    /// instance and its record; GPU-timed, only the instances that are due.
    pub fn update(&mut self, dt: f64) {
        match &mut self.timed {
            Timed::Cpu(rt) => rt.update(dt),
            Timed::Gpu { rt, .. } => rt.update(dt),
        }
        self.sync_writes();
    }

    /// Events fired by the last `update`.
    pub fn events(&self) -> &[FiredEvent] {
        self.engine().events()
    }

    /// One-shot layers that reached their end during the last `update`.
    pub fn finished(&self) -> &[Finished] {
        self.engine().finished()
    }

    /// World transform (file units) of `anchor` for instance `h` ([`crate::anchor_world`]).
    pub fn anchor_world(
        &self,
        h: Handle,
        anchors: &AnchorTexture,
        anchor: usize,
    ) -> Result<Mat4, RuntimeError> {
        self.engine().anchor_world(h, anchors, anchor)
    }
}

/// The calls both runtimes answer alike, answered by `Runtime`'s own methods of the same
/// names (so that front ends call them without importing the trait).
impl PlaybackControl for Runtime {
    fn timing(&self) -> Timing {
        Runtime::timing(self)
    }
    fn len(&self) -> usize {
        Runtime::len(self)
    }
    fn time(&self) -> f64 {
        Runtime::time(self)
    }
    fn spawn(&mut self, transform: InstanceTransform) -> Handle {
        Runtime::spawn(self, transform)
    }
    fn despawn(&mut self, h: Handle) -> Result<(), RuntimeError> {
        Runtime::despawn(self, h)
    }
    fn index(&self, h: Handle) -> Option<usize> {
        Runtime::index(self, h)
    }
    fn handle_at(&self, index: usize) -> Option<Handle> {
        Runtime::handle_at(self, index)
    }
    fn command(&mut self, h: Handle, command: PlaybackCommand) -> Result<(), RuntimeError> {
        Runtime::command(self, h, command)
    }
    fn clip(&self, name: &str) -> Result<ClipId, RuntimeError> {
        Runtime::clip(self, name)
    }
    fn is_finished(&self, h: Handle) -> Result<bool, RuntimeError> {
        Runtime::is_finished(self, h)
    }
    fn transform(&self, h: Handle) -> Result<InstanceTransform, RuntimeError> {
        Runtime::transform(self, h)
    }
    fn set_transform(&mut self, h: Handle, t: InstanceTransform) -> Result<(), RuntimeError> {
        Runtime::set_transform(self, h, t)
    }
    fn transforms(&self) -> &[InstanceTransform] {
        Runtime::transforms(self)
    }
    fn update(&mut self, dt: f64) {
        Runtime::update(self, dt)
    }
    fn events(&self) -> &[FiredEvent] {
        Runtime::events(self)
    }
    fn finished(&self) -> &[Finished] {
        Runtime::finished(self)
    }
    fn anchor_world(
        &self,
        h: Handle,
        anchors: &AnchorTexture,
        anchor: usize,
    ) -> Result<Mat4, RuntimeError> {
        Runtime::anchor_world(self, h, anchors, anchor)
    }
}
