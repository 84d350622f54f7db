//! The palette pass (docs/design.md §5 "Skinning paths"): after culling, `cs_palette` writes
//! for every instance some pass draws (the culling pass's palette list; without culling, every
//! instance) its blended skin matrices — one 48 B [`PaletteEntry`] per palette entry, frames
//! interpolated and layers blended by the texture path's own WGSL — into the crowd's palette
//! buffer; the main and shadow passes' vertex stage reads one entry per influence. Inputs: a
//! crowd's buffers and (culled) its [`CullRun`]. Output: a [`PaletteRun`] whose buffer the
//! draws bind.
//!
//! The buffer and each instance's palette state (`throng_contract::live`) are kept per crowd
//! across frames ([`PalettePass::begin`]): update-rate LOD lets the culling pass list only the
//! instances due this frame, the others keep their slot's matrices (docs/design.md §5
//! "Update-rate LOD"); live poses are copied into their slots after the pass (§4 "Live
//! poses").
//!
//! Why per instance rather than per (pass, LOD) list entry: an instance is in the main list and
//! usually the shadow list, at LODs that may differ, and with occlusion culling possibly in the
//! second phase's — its matrices are the same in all of them (a LOD only drops influences per
//! vertex), so writing them once per instance is the least work, and the buffer is addressed by
//! instance id, which every draw already has.

use std::collections::HashMap;

use throng_contract::{Encoding, Skinning, Timing};
use wgpu::util::DeviceExt;

use crate::bindings as b;
use crate::crowd::CrowdBuffers;
use crate::error::RenderError;
use crate::gpu_asset::GpuAsset;
use crate::gpu_types::{PaletteEntry, PaletteJob};
use crate::layouts;
use crate::passes::cull::CullRun;
use crate::shaders::Program;

/// The palette buffer's sizes and the pass's workgroups, shared with throng-bevy's palette
/// pass.
pub use throng_asset::gpu::{palette_bytes, palette_workgroups, PALETTE_ENTRY_BYTES};

/// Crowds whose palette buffers are kept between frames (as occlusion culling's histories).
const MAX_BUFFERS: usize = 64;

/// One palette pipeline variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PaletteKey {
    pub encoding: Encoding,
    pub skinning: Skinning,
    pub timing: Timing,
    pub culled: bool,
}

/// The palette pass: pipelines built on first use and each crowd's palette buffer with its
/// palette state, kept by (asset, position in the frame's crowd list); the buffer is reused
/// while it is large enough.
#[derive(Default)]
pub(crate) struct PalettePass {
    pipelines: HashMap<PaletteKey, (wgpu::BindGroupLayout, wgpu::ComputePipeline)>,
    kept: HashMap<(wgpu::Buffer, usize), Kept>,
}

/// What a crowd keeps between frames on the palette path (docs/design.md §5 "Update-rate
/// LOD"): the palette buffer (an instance's slot is its id, so what a frame does not compute
/// stays from an earlier one) and the palette state words (`throng_contract::live`) in the
/// tail of a visible-id buffer, which say which slots are current.
struct Kept {
    palette: wgpu::Buffer,
    /// Without occlusion culling, the visible-id buffer holding the state words (with it, the
    /// occlusion pass keeps that buffer with its history).
    visible: Option<wgpu::Buffer>,
    /// The buffer whose state words describe `palette`; any other starts with zeroed words.
    state_in: Option<wgpu::Buffer>,
    /// The last frame's number.
    frame: u32,
    /// The instances posed live in the last frame (their words go back to 0 when they stop).
    live: Vec<u32>,
    /// Motion vectors: the previous frame's palette and transforms (made on the first frame
    /// that asks for them, dropped on one that does not).
    history: Option<(wgpu::Buffer, wgpu::Buffer)>,
}

/// Motion vectors (docs/design.md §5 "Motion vectors"): a crowd's previous-frame palette and
/// instance transforms, which the main pass's palette draw reads beside this frame's. They are
/// copies of this frame's, made after the frame's passes ([`PalettePass::keep_history`]): a
/// copy rather than two buffers taking turns, because with update-rate LOD an instance's slot
/// keeps its matrices across frames, and the other buffer would hold older ones.
#[derive(Clone)]
pub(crate) struct History {
    pub palette: wgpu::Buffer,
    pub transforms: wgpu::Buffer,
    /// Made this frame: there is no previous frame, so this frame's are copied in before the
    /// main pass too (nothing has moved).
    fresh: bool,
}

/// What [`PalettePass::keep_history`] copies for one crowd: this frame's transforms (the
/// palette is the run's) and the bytes of each.
struct HistoryCopy {
    transforms: wgpu::Buffer,
    palette_bytes: u64,
    transform_bytes: u64,
}

/// One crowd's palette buffer and state for this frame ([`PalettePass::begin`]).
pub(crate) struct PaletteFrame {
    pub palette: wgpu::Buffer,
    /// With motion vectors: the previous frame's palette and transforms.
    pub history: Option<History>,
    /// What the culling pass needs (culled crowds only).
    pub cull: Option<crate::passes::cull::PaletteCull>,
}

/// Where a crowd's palette state words are and what the frame writes into them.
pub(crate) struct StateWords<'a> {
    /// With occlusion culling, the occlusion pass's visible-id buffer of the crowd.
    pub visible: Option<wgpu::Buffer>,
    /// Bytes of the visible-id buffer and the first state word.
    pub bytes: u64,
    pub base: u32,
    pub live: &'a [crate::LivePose<'a>],
    pub refresh: [u32; 4],
}

enum Dispatch {
    /// Workgroups (x, y) for every instance.
    Direct(u32, u32),
    /// The culling pass's argument buffer and the byte offset of the dispatch it wrote.
    Indirect(wgpu::Buffer, u64),
}

/// One crowd's palette pass this frame.
pub(crate) struct PaletteRun {
    /// `array<PaletteEntry>`: instance i's entry j at `i · entries + j`.
    pub palette: wgpu::Buffer,
    key: PaletteKey,
    bind: wgpu::BindGroup,
    dispatch: Dispatch,
    /// Live poses copied into the buffer after the pass.
    live: Option<LiveCopies>,
    /// Motion vectors: the previous frame's buffers and what to copy into them.
    history: Option<(History, HistoryCopy)>,
}

impl PaletteRun {
    /// Instances posed live this frame.
    pub fn live_count(&self) -> usize {
        self.live.as_ref().map_or(0, |l| l.copies.len())
    }

    /// Motion vectors: the previous frame's palette and transforms.
    pub fn history(&self) -> Option<&History> {
        self.history.as_ref().map(|(h, _)| h)
    }

    /// Records the copies of this frame's palette and transforms into the history.
    fn copy_history(&self, enc: &mut wgpu::CommandEncoder) {
        if let Some((h, c)) = &self.history {
            enc.copy_buffer_to_buffer(&self.palette, 0, &h.palette, 0, c.palette_bytes);
            if c.transform_bytes > 0 {
                enc.copy_buffer_to_buffer(&c.transforms, 0, &h.transforms, 0, c.transform_bytes);
            }
        }
    }
}

/// Checks that a palette buffer of `instances` fits the device: one binding holds at most
/// `min(max_storage_buffer_binding_size, max_buffer_size)` bytes, i.e.
/// `limit / (entries · 48 B)` instances (Fox, 24 entries, on a 128 MiB binding: 116,508).
pub(crate) fn check_palette(
    asset: &GpuAsset,
    instances: usize,
    limits: &wgpu::Limits,
) -> Result<(), RenderError> {
    let entries = asset.params.entries;
    let bytes = palette_bytes(instances as u64, entries);
    let limit = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    if bytes > limit {
        return Err(RenderError::PaletteTooLarge {
            asset: asset.name.clone(),
            instances,
            entries,
            bytes,
            limit,
            max_instances: limit / palette_bytes(1, entries),
        });
    }
    Ok(())
}

impl PalettePass {
    /// Builds the pipeline of `key` if it does not exist yet.
    pub fn prepare(&mut self, device: &wgpu::Device, key: PaletteKey) -> Result<(), RenderError> {
        if self.pipelines.contains_key(&key) {
            return Ok(());
        }
        let program = Program::PaletteCompute {
            encoding: key.encoding,
            skinning: key.skinning,
            timing: key.timing,
            culled: key.culled,
        };
        let bgl = layouts::palette_compute(device, key.encoding, key.timing, key.culled);
        let pipeline = crate::pipelines::compute_pipeline(device, program, &bgl, "cs_palette")?;
        self.pipelines.insert(key, (bgl, pipeline));
        Ok(())
    }

    /// The palette buffer of the crowd of `instances` at `slot` of this frame's list (at least
    /// their size) and, when culled (`state`), its palette state for the culling pass: the
    /// frame's number, the words of live poses written (`PALETTE_LIVE`, and 0 for those that
    /// stopped being live), every word zeroed where they do not describe this palette buffer
    /// (a new buffer on either side: every instance is computed afresh). `slot` `None`: a
    /// buffer of its own for this call only (tools and tests). With `motion` (and a slot), the
    /// crowd's [`History`] too.
    pub fn begin(
        &mut self,
        gpu: &crate::Gpu,
        (asset, slot): (&GpuAsset, Option<usize>),
        instances: u32,
        state: Option<StateWords>,
        motion: bool,
    ) -> PaletteFrame {
        let device = &gpu.device;
        let bytes = palette_bytes(instances as u64, asset.params.entries);
        let new_palette = || {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("throng palette"),
                // Never empty: a storage binding may not be.
                size: bytes.max(PALETTE_ENTRY_BYTES),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let fresh = || Kept {
            palette: new_palette(),
            visible: None,
            state_in: None,
            frame: 0,
            live: Vec::new(),
            history: None,
        };
        let mut scratch;
        let kept = match slot {
            None => {
                scratch = fresh();
                &mut scratch
            }
            Some(slot) => {
                let key = (asset.params_buffer.clone(), slot);
                let reuse = self
                    .kept
                    .get(&key)
                    .is_some_and(|k| k.palette.size() >= bytes);
                if !reuse {
                    if self.kept.len() >= MAX_BUFFERS {
                        self.kept.clear();
                    }
                    self.kept.insert(key.clone(), fresh());
                }
                match self.kept.get_mut(&key) {
                    Some(k) => k,
                    None => {
                        scratch = fresh();
                        &mut scratch
                    }
                }
            }
        };
        let history = if motion && slot.is_some() {
            let transform_bytes =
                instances as u64 * std::mem::size_of::<throng_contract::InstanceTransform>() as u64;
            let fits = kept
                .history
                .as_ref()
                .is_some_and(|(_, t)| t.size() >= transform_bytes);
            let fresh = !fits;
            if fresh {
                let buffer = |label, size: u64| {
                    device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some(label),
                        size: size.max(PALETTE_ENTRY_BYTES),
                        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                };
                kept.history = Some((
                    buffer("throng previous palette", kept.palette.size()),
                    buffer("throng previous transforms", transform_bytes),
                ));
            }
            kept.history.clone().map(|(palette, transforms)| History {
                palette,
                transforms,
                fresh,
            })
        } else {
            kept.history = None;
            None
        };
        let Some(state) = state else {
            return PaletteFrame {
                palette: kept.palette.clone(),
                history,
                cull: None,
            };
        };
        let own = state.visible.is_none();
        let visible = match state.visible {
            Some(v) => v,
            None => match kept.visible.clone().filter(|v| v.size() == state.bytes) {
                Some(v) => v,
                None => {
                    let v = crate::passes::cull::visible_buffer(device, state.bytes);
                    kept.visible = Some(v.clone());
                    v
                }
            },
        };
        let word = |i: u32| state.base as u64 * 4 + i as u64 * 4;
        if kept.state_in.as_ref() != Some(&visible) {
            // Nothing here describes this palette buffer: every instance is computed afresh.
            let zeros = vec![0u8; instances as usize * 4];
            if !zeros.is_empty() {
                gpu.queue.write_buffer(&visible, word(0), &zeros);
            }
            kept.state_in = Some(visible.clone());
            kept.live.clear();
        }
        let live: Vec<u32> = state.live.iter().map(|l| l.instance).collect();
        for &i in kept.live.iter().filter(|i| !live.contains(i)) {
            let off = throng_contract::PALETTE_UNWRITTEN.to_le_bytes();
            gpu.queue.write_buffer(&visible, word(i), &off);
        }
        for &i in &live {
            let on = throng_contract::PALETTE_LIVE.to_le_bytes();
            gpu.queue.write_buffer(&visible, word(i), &on);
        }
        kept.live = live;
        kept.frame = throng_contract::next_palette_frame(kept.frame);
        PaletteFrame {
            palette: kept.palette.clone(),
            history,
            cull: Some(crate::passes::cull::PaletteCull {
                visible: own.then_some(visible),
                frame: kept.frame,
                refresh: state.refresh,
            }),
        }
    }

    /// One crowd's run: its palette buffer (and motion vectors' history), bind group and
    /// dispatch (the pipeline of `key` must be prepared; `cull` is the crowd's culling run when
    /// `key.culled`).
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &mut self,
        device: &wgpu::Device,
        (asset, palette, history): (&GpuAsset, wgpu::Buffer, Option<History>),
        buffers: &CrowdBuffers,
        instances: u32,
        key: PaletteKey,
        cull: Option<&CullRun>,
        live: &[crate::LivePose],
    ) -> Result<PaletteRun, RenderError> {
        let missing = RenderError::Internal("palette pipeline not built before the frame");
        let list = match (key.culled, cull) {
            (true, Some(run)) => Some(
                run.palette
                    .map(|l| (run, l))
                    .ok_or(RenderError::Internal("culling kept no palette list"))?,
            ),
            (true, None) => return Err(RenderError::Internal("culled palette without culling")),
            (false, _) => None,
        };
        let (bgl, _) = self.pipelines.get(&key).ok_or(missing)?;
        let job = PaletteJob {
            instances: if list.is_some() { 0 } else { instances },
            list_base: list.map_or(0, |(_, l)| l.base),
            count_word: list.map_or(0, |(_, l)| l.count_word),
            _pad: 0,
        };
        let job_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng palette job"),
            contents: bytemuck::bytes_of(&job),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let mut entries = buffers.skin_entries(asset, true);
        entries.push(b::buffer_entry(b::PALETTE_JOB, &job_buf));
        entries.push(b::buffer_entry(b::PALETTE, &palette));
        entries.push(b::buffer_entry(b::MASKS, &asset.masks));
        if let Some((run, _)) = list {
            entries.push(b::buffer_entry(b::VISIBLE_IDS, &run.visible));
            entries.push(b::buffer_entry(b::PALETTE_COUNT, &run.args));
        }
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng palette"),
            layout: bgl,
            entries: &entries,
        });
        let dispatch = match list {
            Some((run, l)) => Dispatch::Indirect(run.args.clone(), l.dispatch_offset),
            None => {
                let (x, y) = palette_workgroups(instances as u64 * asset.params.entries as u64);
                Dispatch::Direct(x, y)
            }
        };
        let history = history.map(|h| {
            let copy = HistoryCopy {
                transforms: buffers.transforms.clone(),
                palette_bytes: palette_bytes(instances as u64, asset.params.entries),
                transform_bytes: instances as u64
                    * std::mem::size_of::<throng_contract::InstanceTransform>() as u64,
            };
            (h, copy)
        });
        Ok(PaletteRun {
            live: live_copies(device, asset.params.entries, key.skinning, live),
            history,
            palette,
            key,
            bind,
            dispatch,
        })
    }

    /// Records every run of a frame into one compute pass (with `timestamps`, timed); returns
    /// the dispatches.
    pub fn encode(
        &self,
        runs: &[&PaletteRun],
        enc: &mut wgpu::CommandEncoder,
        timestamps: Option<wgpu::ComputePassTimestampWrites>,
    ) -> u32 {
        if runs.is_empty() {
            return 0;
        }
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("throng palette pass"),
            timestamp_writes: timestamps,
        });
        let mut dispatches = 0;
        for run in runs {
            let Some((_, pipeline)) = self.pipelines.get(&run.key) else {
                continue;
            };
            pass.set_pipeline(pipeline);
            pass.set_bind_group(b::group::SKIN, &run.bind, &[]);
            match &run.dispatch {
                Dispatch::Direct(0, _) | Dispatch::Direct(_, 0) => continue,
                Dispatch::Direct(x, y) => pass.dispatch_workgroups(*x, *y, 1),
                Dispatch::Indirect(buf, offset) => pass.dispatch_workgroups_indirect(buf, *offset),
            }
            dispatches += 1;
        }
        drop(pass);
        // Live poses over whatever the pass wrote (without culling it writes every instance).
        for run in runs {
            if let Some(live) = &run.live {
                for &(src, dst) in &live.copies {
                    enc.copy_buffer_to_buffer(&live.staging, src, &run.palette, dst, live.bytes);
                }
            }
        }
        // A history made this frame starts as this frame: nothing moved yet.
        for run in runs {
            if run.history().is_some_and(|h| h.fresh) {
                run.copy_history(enc);
            }
        }
        dispatches
    }

    /// Motion vectors: after every pass of the frame has read them, copies each run's palette
    /// and transforms into its history, for the next frame.
    pub fn keep_history(&self, runs: &[&PaletteRun], enc: &mut wgpu::CommandEncoder) {
        for run in runs {
            run.copy_history(enc);
        }
    }
}

/// A frame's live poses of one crowd, in palette-entry form, and where each goes.
pub(crate) struct LiveCopies {
    staging: wgpu::Buffer,
    /// (source offset, palette buffer offset) per live instance, `bytes` each.
    copies: Vec<(u64, u64)>,
    bytes: u64,
}

/// The live poses as palette entries (linear blend: the matrices' rows as they are; dual
/// quaternions: each matrix as a unit dual quaternion and uniform scale, as the pass would
/// write one term) in one staging buffer, with a copy per instance into its slot.
fn live_copies(
    device: &wgpu::Device,
    entries: u32,
    skinning: Skinning,
    live: &[crate::LivePose],
) -> Option<LiveCopies> {
    if live.is_empty() || entries == 0 {
        return None;
    }
    let mut data: Vec<PaletteEntry> = Vec::with_capacity(live.len() * entries as usize);
    for l in live {
        data.extend(l.matrices.iter().map(|m| match skinning {
            Skinning::Linear => bytemuck::cast(*m),
            Skinning::DualQuat => dq_entry(m),
        }));
    }
    let staging = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("throng live poses"),
        contents: bytemuck::cast_slice(&data),
        usage: wgpu::BufferUsages::COPY_SRC,
    });
    let bytes = palette_bytes(1, entries);
    let copies = live
        .iter()
        .enumerate()
        .map(|(k, l)| (k as u64 * bytes, l.instance as u64 * bytes))
        .collect();
    Some(LiveCopies {
        staging,
        copies,
        bytes,
    })
}

/// A skin matrix as the palette pass's dual-quaternion entry of one term: the unit dual
/// quaternion of its rotation and translation (dual part ½ · (t, 0) · q) and its scale (the
/// mean of the axes' scales: dual quaternions skin with uniform scale only).
fn dq_entry(m: &throng_contract::SkinMatrix) -> PaletteEntry {
    let (scale, q, t) = m.to_mat4().to_scale_rotation_translation();
    let q = q.normalize();
    let dual = glam::Quat::from_xyzw(t.x, t.y, t.z, 0.0) * q * 0.5;
    PaletteEntry {
        a: q.to_array(),
        b: dual.to_array(),
        c: [(scale.x + scale.y + scale.z) / 3.0, 0.0, 0.0, 0.0],
    }
}
