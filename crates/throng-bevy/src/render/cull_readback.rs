//! Reading back what per-instance culling kept (tests and tools): on request, after a frame's
//! culling and palette passes, each culling crowd's lists per view and LOD, its palette list
//! and the transforms and records the pass read, copied to the CPU (a blocking read: for tests
//! and tools, not for a game's frame).

use std::sync::{Arc, Mutex};

use bevy::math::Mat4;
use bevy::prelude::*;
use bevy::render::render_resource::{Buffer, BufferDescriptor, BufferUsages, MapMode, PollType};
use bevy::render::renderer::{RenderDevice, RenderQueue};

use super::crowd_gpu::{CrowdGpu, CrowdGpus};

/// Shared by the main and the render world (insert the same value in both): set `requested`,
/// and after the next rendered frame `snapshots` holds one entry per culling crowd.
#[derive(Resource, Clone, Default)]
pub struct CullReadback(pub Arc<Mutex<ReadbackState>>);

#[derive(Default)]
pub struct ReadbackState {
    pub requested: bool,
    pub snapshots: Vec<CullSnapshot>,
}

/// One crowd's culling run as read back.
#[derive(Debug, Clone)]
pub struct CullSnapshot {
    /// The crowd's main-world entity.
    pub crowd: Entity,
    pub gpu_timed: bool,
    pub instances: u32,
    pub lods: u32,
    pub views: Vec<ViewSnapshot>,
    /// Instances the palette pass posed, ascending (empty on the texture path).
    pub palette: Vec<u32>,
    /// The instance transforms and records the culling pass read (their GPU buffers' bytes).
    pub transforms: Vec<u8>,
    pub records: Vec<u8>,
}

/// One view's lists.
#[derive(Debug, Clone)]
pub struct ViewSnapshot {
    /// A light's view (shadow map).
    pub light: bool,
    pub clip_from_world: Mat4,
    pub clip_from_view: Mat4,
    pub world_from_view: Mat4,
    /// `CullView::eye`.
    pub eye: [f32; 4],
    /// Instance ids per LOD, ascending (the far tier's level: its cards drawn as quads and
    /// as points together).
    pub lists: Vec<Vec<u32>>,
    /// How many of the far level's cards were drawn as points ([`super::ThrongCull::far_dots`]).
    pub points: u32,
}

fn staging(device: &RenderDevice, bytes: u64) -> Buffer {
    device.create_buffer(&BufferDescriptor {
        label: Some("throng cull readback"),
        size: bytes.max(4).div_ceil(4) * 4,
        usage: BufferUsages::MAP_READ | BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// The bytes of `buffers` (each `(source, bytes)`), copied and mapped; None on a map failure.
fn read_buffers(
    device: &RenderDevice,
    queue: &RenderQueue,
    buffers: &[(&Buffer, u64)],
) -> Option<Vec<Vec<u8>>> {
    let mut encoder = device.create_command_encoder(&Default::default());
    let stages: Vec<Buffer> = buffers
        .iter()
        .map(|&(src, bytes)| {
            let s = staging(device, bytes);
            let n = bytes.div_ceil(4) * 4;
            if n > 0 {
                encoder.copy_buffer_to_buffer(src, 0, &s, 0, n.min(src.size()));
            }
            s
        })
        .collect();
    queue.submit([encoder.finish()]);
    for s in &stages {
        s.slice(..).map_async(MapMode::Read, |_| {});
    }
    device.poll(PollType::wait_indefinitely()).ok()?;
    let out = stages
        .iter()
        .zip(buffers)
        .map(|(s, &(_, bytes))| {
            let data = s.slice(..).get_mapped_range().to_vec();
            s.unmap();
            data[..(bytes as usize).min(data.len())].to_vec()
        })
        .collect();
    Some(out)
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Crowd `g`'s snapshot (None when it did not cull this frame).
fn snapshot(
    main: Entity,
    g: &CrowdGpu,
    device: &RenderDevice,
    queue: &RenderQueue,
) -> Option<CullSnapshot> {
    let c = &g.cull;
    let (Some(ids), Some(args), Some(tb), Some(rb)) =
        (&c.ids, &c.args, &g.buffers.transforms, &g.buffers.records)
    else {
        return None;
    };
    if !g.cull.enabled || c.views.is_empty() {
        return None;
    }
    let n = g.buffers.instances as u64;
    let read = read_buffers(
        device,
        queue,
        &[
            (ids, ids.size()),
            (args, args.size()),
            (tb, n * 48),
            (rb, n * g.buffers.record_bytes),
        ],
    )?;
    let (ids, args) = (words(&read[0]), words(&read[1]));
    // instance_count is word 1 of each 5-word entry; the (view, LOD) counter is primitive 0's.
    let count = |entry: u32| args.get(entry as usize * 5 + 1).copied().unwrap_or(0);
    let list = |start: u32, len: u32| {
        let mut v = ids
            .get(start as usize..(start + len.min(c.segment)) as usize)
            .unwrap_or(&[])
            .to_vec();
        v.sort_unstable();
        v
    };
    let views = c
        .views
        .iter()
        .enumerate()
        .map(|(v, e)| {
            let v = v as u32;
            // The one-pixel cards' draw's vertex count: word 0 of its entry.
            let points = if c.mesh_lods < c.lods {
                let words = args.get(c.dot_entry(v) as usize * 5).copied();
                words.unwrap_or(0).min(c.segment)
            } else {
                0
            };
            ViewSnapshot {
                light: e.light,
                clip_from_world: e.clip_from_world,
                clip_from_view: e.clip_from_view,
                world_from_view: e.world_from_view,
                eye: e.view.eye,
                lists: (0..c.lods)
                    .map(|l| {
                        let mut ids = list(
                            (v * c.lods + l) * c.segment,
                            count(v * c.prims * c.lods + l),
                        );
                        if l + 1 == c.lods && points > 0 {
                            // The far level's one-pixel cards, at the end of its list.
                            let end = (v * c.lods + l + 1) * c.segment;
                            ids.extend(list(end - points, points));
                            ids.sort_unstable();
                        }
                        ids
                    })
                    .collect(),
                points,
            }
        })
        .collect();
    let palette = if c.palette_base != 0 {
        let k = c.palette_counter();
        let mut p = ids
            .get(c.palette_base as usize..(c.palette_base + count(k).min(c.segment)) as usize)
            .unwrap_or(&[])
            .to_vec();
        p.sort_unstable();
        p
    } else {
        Vec::new()
    };
    Some(CullSnapshot {
        crowd: main,
        gpu_timed: g.buffers.gpu_timed,
        instances: g.buffers.instances,
        lods: c.lods,
        views,
        palette,
        transforms: read[2].clone(),
        records: read[3].clone(),
    })
}

/// On request, reads back every culling crowd's run of this frame (after the culling and
/// palette passes were submitted).
pub(crate) fn read_back_culls(
    readback: Option<Res<CullReadback>>,
    gpus: Res<CrowdGpus>,
    device: Res<RenderDevice>,
    queue: Res<RenderQueue>,
) {
    let Some(readback) = readback else {
        return;
    };
    let Ok(mut state) = readback.0.lock() else {
        return;
    };
    if !state.requested {
        return;
    }
    let snaps: Vec<CullSnapshot> = gpus
        .0
        .iter()
        .filter_map(|(main, g)| snapshot(*main, g, &device, &queue))
        .collect();
    if !snaps.is_empty() {
        state.requested = false;
        state.snapshots = snaps;
    }
}
