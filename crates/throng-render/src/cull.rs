//! GPU culling runs (DESIGN.md §5): per crowd, the buffers and bind group of `cs_cull` /
//! `cs_cull_finish` (cull.wgsl), and a readback of the lists it keeps for tests and statistics.

use glam::{Mat4, Vec3};
use wgpu::util::DeviceExt;

use crate::camera::frustum_planes;
use crate::error::RenderError;
use crate::gpu_asset::{GpuAsset, MAX_LODS};
use crate::gpu_types::{CullParams, DrawIndexedArgs, InstanceTransform, Playback};
use crate::layouts;
use crate::readback::map_read;
use crate::render::{RenderOptions, Renderer};
use crate::scene::{playback_len_matches, Crowd, FrameSetup};
use throng_contract::Timing;

/// Instance ids the culling pass kept, per LOD level, ascending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CullLists {
    /// Seen by the main camera.
    pub main: Vec<Vec<u32>>,
    /// Inside the shadow camera (casters; empty without shadows).
    pub shadow: Vec<Vec<u32>>,
}

/// Buffers of one crowd's culling run.
pub(crate) struct CullRun {
    pub bind: wgpu::BindGroup,
    pub visible: wgpu::Buffer,
    pub args: wgpu::Buffer,
    pub instances: u32,
    /// Indirect argument entries: 2 passes × LODs × primitives.
    pub entries: u32,
    pub segment: u32,
}

impl Renderer {
    /// Buffers and bind group of one crowd's culling run.
    pub(crate) fn cull_run(
        &self,
        crowd: &Crowd,
        transforms_buf: &wgpu::Buffer,
        play: &layouts::PlaybackBuffers,
        setup: &FrameSetup,
        opts: &RenderOptions,
    ) -> Option<CullRun> {
        let asset = crowd.asset;
        let cp = self.cull_pipelines.get(&crowd.playback.timing())?;
        let device = &self.gpu.device;
        let n = crowd.transforms.len() as u32;
        let lods = asset.lod_count();
        let prims = asset.primitives.len().max(1) as u32;
        // 64-id segments keep every (pass, LOD) list 256 B aligned.
        let segment = n.div_ceil(64).max(1) * 64;
        let b = &asset.bounds;
        let (lo, hi) = if b.is_empty() {
            (Vec3::splat(-f32::MAX), Vec3::splat(f32::MAX))
        } else {
            (b.min, b.max)
        };
        let mut lod_error = [0.0f32; MAX_LODS];
        for (d, s) in lod_error.iter_mut().zip(&asset.lod_errors) {
            *d = *s;
        }
        let params = CullParams {
            planes: frustum_planes(&setup.view_proj).map(|p| p.to_array()),
            shadow_planes: frustum_planes(&setup.shadow.map_or(Mat4::IDENTITY, |s| s.view_proj))
                .map(|p| p.to_array()),
            fallback_min: lo.extend(0.0).into(),
            fallback_max: hi.extend(0.0).into(),
            eye: setup.camera.eye.extend(setup.pixels_per_unit).into(),
            lod_error,
            light: setup.light_reach.to_array(),
            instance_count: n,
            primitive_count: prims,
            lod_count: lods,
            segment,
            lod_bias: opts.lod_bias,
            shadows: setup.shadow.is_some() as u32,
            _pad: [0; 2],
        };
        let params_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng cull params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let visible = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("throng visible instances"),
            size: 4 * 2 * lods as u64 * segment as u64,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        // [pass][primitive][LOD]: a primitive's LODs are contiguous for multi-draws, whose
        // first instance points the instance index at the (pass, LOD) list.
        let mut args = Vec::with_capacity((2 * lods * prims) as usize);
        for pass_index in 0..2 {
            for p in 0..prims as usize {
                for lod in 0..lods {
                    let (first_index, index_count) =
                        asset.primitives.get(p).map_or((0, 0), |p| p.lod(lod));
                    args.push(DrawIndexedArgs {
                        index_count,
                        first_index,
                        first_instance: if self.multi_draw {
                            (pass_index * lods + lod) * segment
                        } else {
                            0
                        },
                        ..Default::default()
                    });
                }
            }
        }
        let args_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng draw arguments"),
            contents: bytemuck::cast_slice(&args),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_SRC,
        });
        let mut entries = layouts::skin_asset_entries(asset, transforms_buf);
        // Culling reads no bone texture.
        entries.retain(|e| e.binding != crate::bindings::BONE_TEXTURE);
        entries.extend(play.entries());
        entries.extend([
            wgpu::BindGroupEntry {
                binding: crate::bindings::CULL_PARAMS,
                resource: params_buf.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: crate::bindings::VISIBLE_IDS,
                resource: visible.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: crate::bindings::DRAW_ARGS,
                resource: args_buf.as_entire_binding(),
            },
        ]);
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng cull"),
            layout: &cp.bgl,
            entries: &entries,
        });
        Some(CullRun {
            bind,
            visible,
            args: args_buf,
            instances: n,
            entries: args.len() as u32,
            segment,
        })
    }

    pub(crate) fn encode_cull(
        &self,
        run: &CullRun,
        timing: Timing,
        enc: &mut wgpu::CommandEncoder,
    ) {
        let Some(cp) = self.cull_pipelines.get(&timing) else {
            return;
        };
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_bind_group(crate::bindings::group::SKIN, &run.bind, &[]);
        pass.set_pipeline(&cp.cull);
        pass.dispatch_workgroups(run.instances.div_ceil(64).max(1), 1, 1);
        pass.set_pipeline(&cp.finish);
        pass.dispatch_workgroups(run.entries.div_ceil(64).max(1), 1, 1);
    }

    /// Runs only one crowd's culling pass (camera as [`Renderer::render_scene`] sets it up)
    /// and returns the instance ids kept per (pass, LOD).
    pub fn cull_lists(
        &mut self,
        crowd: &Crowd,
        opts: &RenderOptions,
    ) -> Result<CullLists, RenderError> {
        playback_len_matches(crowd)?;
        crate::scene::instances_fit(crowd, &self.gpu.device.limits())?;
        if crowd.transforms.is_empty() {
            return Ok(CullLists::default());
        }
        let timing = crowd.playback.timing();
        self.ensure_cull_pipelines(timing)?;
        let scene = Self::scene_bounds(std::slice::from_ref(crowd));
        let setup = self.frame_setup(opts, &scene, &scene);
        let transforms_buf = self.storage(
            "throng transforms",
            crowd.transforms,
            InstanceTransform::IDENTITY,
        );
        let play = layouts::PlaybackBuffers::new(&self.gpu.device, &crowd.playback);
        let Some(run) = self.cull_run(crowd, &transforms_buf, &play, &setup, opts) else {
            return Ok(CullLists::default());
        };
        let device = &self.gpu.device;
        let read = |size: u64| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("throng cull readback"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let ids_size = run.visible.size();
        let args_size = run.entries as u64 * std::mem::size_of::<DrawIndexedArgs>() as u64;
        let ids_read = read(ids_size);
        let args_read = read(args_size);
        let mut enc = device.create_command_encoder(&Default::default());
        self.encode_cull(&run, timing, &mut enc);
        enc.copy_buffer_to_buffer(&run.visible, 0, &ids_read, 0, ids_size);
        enc.copy_buffer_to_buffer(&run.args, 0, &args_read, 0, args_size);
        self.gpu.queue.submit([enc.finish()]);
        let args: Vec<DrawIndexedArgs> =
            bytemuck::pod_collect_to_vec(&map_read(&self.gpu, &args_read)?);
        let ids: Vec<u32> = bytemuck::pod_collect_to_vec(&map_read(&self.gpu, &ids_read)?);
        let lods = crowd.asset.lod_count() as usize;
        let prims = crowd.asset.primitives.len().max(1);
        let list = |group: usize| {
            // The counter of (pass, LOD) is the entry of primitive 0.
            let (pass_index, lod) = (group / lods, group % lods);
            let counter = pass_index * prims * lods + lod;
            let count = args.get(counter).map_or(0, |a| a.instance_count) as usize;
            let start = group * run.segment as usize;
            let mut v = ids
                .get(start..start + count.min(run.segment as usize))
                .unwrap_or(&[])
                .to_vec();
            v.sort_unstable();
            v
        };
        Ok(CullLists {
            main: (0..lods).map(list).collect(),
            shadow: if opts.shadows {
                (lods..2 * lods).map(list).collect()
            } else {
                Vec::new()
            },
        })
    }

    /// The instances the culling pass keeps in the main view (every LOD), ascending.
    pub fn visible_instances(
        &mut self,
        asset: &GpuAsset,
        transforms: &[InstanceTransform],
        playback: Playback,
        opts: &RenderOptions,
    ) -> Result<Vec<u32>, RenderError> {
        let lists = self.cull_lists(
            &Crowd {
                asset,
                transforms,
                playback,
            },
            opts,
        )?;
        let mut v: Vec<u32> = lists.main.into_iter().flatten().collect();
        v.sort_unstable();
        Ok(v)
    }
}
