//! The palette pass (docs/design.md §5 "Skinning paths"): after culling, `cs_palette` writes
//! for every instance some pass draws (the culling pass's palette list; without culling, every
//! instance) its blended skin matrices — one 48 B [`PaletteEntry`] per palette entry, frames
//! interpolated and layers blended by the texture path's own WGSL — into the crowd's palette
//! buffer; the main and shadow passes' vertex stage reads one entry per influence. Inputs: a
//! crowd's buffers and (culled) its [`CullRun`]. Output: a [`PaletteRun`] whose buffer the
//! draws bind.
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

/// Bytes of one palette entry of one instance.
pub const PALETTE_ENTRY_BYTES: u64 = std::mem::size_of::<PaletteEntry>() as u64;

/// Largest workgroup count per dispatch dimension (WebGPU's default
/// `max_compute_workgroups_per_dimension`; the culling pass's indirect dispatch uses the same).
const MAX_GROUPS: u32 = 65_535;

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

/// The palette pass: pipelines built on first use and each crowd's palette buffer, kept by
/// (asset, position in the frame's crowd list) and reused while it is large enough.
#[derive(Default)]
pub(crate) struct PalettePass {
    pipelines: HashMap<PaletteKey, (wgpu::BindGroupLayout, wgpu::ComputePipeline)>,
    buffers: HashMap<(wgpu::Buffer, usize), wgpu::Buffer>,
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
}

/// Bytes of the palette buffer of `instances` instances of an asset of `entries` palette
/// entries.
pub fn palette_bytes(instances: u64, entries: u32) -> u64 {
    instances * entries.max(1) as u64 * PALETTE_ENTRY_BYTES
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

/// Workgroups (x, y) covering `invocations` at 64 per workgroup, in rows of at most
/// [`MAX_GROUPS`] (the shader reads its index as `(y · groups_x + x) · 64 + lane`).
fn groups(invocations: u64) -> (u32, u32) {
    let g = invocations.div_ceil(64);
    let x = g.min(MAX_GROUPS as u64) as u32;
    let y = g.div_ceil(MAX_GROUPS as u64) as u32;
    (x, y)
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
        let pipeline = crate::compute::compute_pipeline(device, program, &bgl, "cs_palette")?;
        self.pipelines.insert(key, (bgl, pipeline));
        Ok(())
    }

    /// The palette buffer of the crowd at `slot` of this frame's list, at least `bytes` long.
    fn buffer(
        &mut self,
        device: &wgpu::Device,
        asset: &GpuAsset,
        slot: usize,
        bytes: u64,
    ) -> wgpu::Buffer {
        let key = (asset.params_buffer.clone(), slot);
        if let Some(buf) = self.buffers.get(&key).filter(|b| b.size() >= bytes) {
            return buf.clone();
        }
        if self.buffers.len() >= MAX_BUFFERS {
            self.buffers.clear();
        }
        let buf = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng palette"),
            // Never empty: a storage binding may not be.
            size: bytes.max(PALETTE_ENTRY_BYTES),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        self.buffers.insert(key, buf.clone());
        buf
    }

    /// One crowd's run: its palette buffer, bind group and dispatch (the pipeline of `key`
    /// must be prepared; `cull` is the crowd's culling run when `key.culled`).
    pub fn run(
        &mut self,
        device: &wgpu::Device,
        (asset, slot): (&GpuAsset, usize),
        buffers: &CrowdBuffers,
        instances: u32,
        key: PaletteKey,
        cull: Option<&CullRun>,
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
        let bytes = palette_bytes(instances as u64, asset.params.entries);
        let palette = self.buffer(device, asset, slot, bytes);
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
                let (x, y) = groups(instances as u64 * asset.params.entries as u64);
                Dispatch::Direct(x, y)
            }
        };
        Ok(PaletteRun {
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
        dispatches
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workgroups_cover_every_invocation_in_rows_of_the_limit() {
        assert_eq!(groups(0), (0, 0));
        assert_eq!(groups(1), (1, 1));
        assert_eq!(groups(64), (1, 1));
        assert_eq!(groups(65), (2, 1));
        let n = 64 * MAX_GROUPS as u64 + 1;
        assert_eq!(groups(n), (MAX_GROUPS, 2));
        let (x, y) = groups(n);
        assert!(x as u64 * y as u64 * 64 >= n);
    }

    #[test]
    fn palette_bytes_are_48_per_entry_and_instance() {
        assert_eq!(PALETTE_ENTRY_BYTES, 48);
        assert_eq!(palette_bytes(1000, 24), 1000 * 24 * 48);
        // Fox's 24 entries on a 128 MiB binding.
        assert_eq!((128u64 << 20) / palette_bytes(1, 24), 116_508);
    }
}
