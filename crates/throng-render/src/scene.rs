//! A frame of one or more crowds (DESIGN.md §5): per crowd a GPU culling + LOD pass writing
//! indirect draw arguments, a shadow depth pass and the main pass, with the ground. Draw calls
//! per frame = Σ over crowds of primitives × LODs × passes (+ the ground), whatever the
//! instance count.

use glam::{Mat4, Vec3};
use throng_asset::Aabb;
use wgpu::util::DeviceExt;

use crate::camera::{crowd_bounds, frame_uniform, Camera};
use crate::cull::CullRun;
use crate::error::RenderError;
use crate::gpu_asset::GpuAsset;
use crate::gpu_types::{
    DrawIndexedArgs, DrawParams, FrameUniform, InstanceTransform, MaterialUniform, Playback,
    DRAW_PARAMS_STRIDE,
};
use crate::layouts;
use crate::pipelines::PipelineKey;
use crate::readback::map_read;
use crate::render::{RenderOptions, Renderer, SkinPath, COLOR_FORMAT, DEFAULT_COLOR};
use crate::shadow::{shadow_view_proj, ShadowCamera};
use crate::target::{depth_pass, main_pass, OffscreenTarget};
use throng_contract::Skinning;

/// One crowd of a frame: instances of one asset.
#[derive(Clone, Copy)]
pub struct Crowd<'a> {
    pub asset: &'a GpuAsset,
    /// World-from-model transform per instance (file units).
    pub transforms: &'a [InstanceTransform],
    /// Playback record per instance, CPU- or GPU-timed (DESIGN.md §4).
    pub playback: Playback<'a>,
}

/// What a frame cost: draw calls recorded and, after [`Renderer::render_scene`] (which reads
/// the indirect arguments back), what the GPU drew.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Draw calls recorded in all passes (ground included); independent of instance counts.
    pub draws: u32,
    /// Of which in the shadow pass.
    pub shadow_draws: u32,
    /// Compute dispatches (culling).
    pub dispatches: u32,
    /// Instances drawn in the main pass, by LOD level (summed over crowds).
    pub instances_per_lod: Vec<u64>,
    /// Instances drawn in the main pass and in the shadow pass.
    pub instances_drawn: u64,
    pub shadow_instances: u64,
    /// Triangles drawn in the main pass (ground excluded) and in the shadow pass.
    pub triangles: u64,
    pub shadow_triangles: u64,
}

/// A frame read back from the GPU.
pub struct RenderedFrame {
    /// sRGB RGBA8 pixels.
    pub image: image::RgbaImage,
    pub stats: FrameStats,
}

/// Camera, light and shadow camera of a frame.
pub(crate) struct FrameSetup {
    pub frame: wgpu::Buffer,
    pub view_proj: Mat4,
    pub camera: Camera,
    pub shadow: Option<ShadowCamera>,
    /// (image height / 2) / tan(fov_y / 2).
    pub pixels_per_unit: f32,
    /// Light direction and, in w, how far shadows reach along it (file units).
    pub light_reach: glam::Vec4,
}

/// Everything one crowd's draws need this frame.
struct CrowdFrame<'a> {
    crowd: Crowd<'a>,
    key: PipelineKey,
    shadow_key: Option<PipelineKey>,
    skin_group: wgpu::BindGroup,
    draw_main: wgpu::BindGroup,
    draw_shadow: wgpu::BindGroup,
    materials: Vec<wgpu::BindGroup>,
    vat_groups: Vec<Option<wgpu::BindGroup>>,
    cull: Option<CullRun>,
    lods: u32,
}

/// The ground as a box (receives shadows).
fn ground_box(f: &FrameUniform) -> Aabb {
    let [x, y, z, h] = f.ground;
    Aabb {
        min: Vec3::new(x - h, y, z - h),
        max: Vec3::new(x + h, y, z + h),
    }
}

pub(crate) fn playback_len_matches(crowd: &Crowd) -> Result<(), RenderError> {
    if crowd.transforms.len() != crowd.playback.len() {
        return Err(RenderError::BadInput {
            what: "instance records (one per transform)",
            got: crowd.playback.len(),
            expected: crowd.transforms.len(),
        });
    }
    Ok(())
}

/// Checks that a crowd's per-instance buffers fit the device: the largest is the visible-id
/// list (4 B × 2 passes × LODs per instance) or the records (64 B per instance).
pub(crate) fn instances_fit(crowd: &Crowd, limits: &wgpu::Limits) -> Result<(), RenderError> {
    let lods = crowd.asset.lod_count() as u64;
    let per_instance = (8 * lods).max(64);
    let n = crowd.transforms.len() as u64;
    // Visible-id segments round each list up to 64 ids.
    let bytes = (n + 64) * per_instance;
    let limit = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    if bytes > limit {
        return Err(RenderError::TooManyInstances {
            asset: crowd.asset.name.clone(),
            instances: crowd.transforms.len(),
            bytes,
            limit,
            max_instances: (limit / per_instance).saturating_sub(64),
        });
    }
    Ok(())
}

impl Renderer {
    /// Camera (given or framing `scene`), frame uniform and shadow camera.
    pub(crate) fn frame_setup(
        &self,
        opts: &RenderOptions,
        scene: &Aabb,
        casters: &Aabb,
    ) -> FrameSetup {
        let aspect = opts.width as f32 / opts.height.max(1) as f32;
        let camera = opts
            .camera
            .unwrap_or_else(|| Camera::framing(scene, aspect));
        let mut u = frame_uniform(&camera, aspect, scene);
        let view_proj = camera.view_proj(aspect);
        let shadow = opts.shadows.then(|| {
            let mut receivers = casters.union(scene);
            if opts.ground {
                receivers = receivers.union(&ground_box(&u));
            }
            shadow_view_proj(
                Vec3::from_slice(&u.light_dir[..3]),
                &receivers,
                casters,
                &view_proj,
                opts.shadow_map_size,
            )
        });
        if let Some(s) = &shadow {
            u.light_view_proj = s.view_proj.to_cols_array_2d();
            u.shadow = [
                1.0,
                1.0 / opts.shadow_map_size.max(1) as f32,
                s.depth_bias,
                0.0,
            ];
        }
        u.debug = opts.debug.words();
        // From the top of the scene down to the ground (or the scene's bottom), along the light.
        let light_dir = Vec3::from_slice(&u.light_dir[..3]);
        let floor = if opts.ground {
            u.ground[1]
        } else {
            scene.min.y
        };
        let drop = if scene.is_empty() {
            0.0
        } else {
            (scene.max.y - floor).max(0.0)
        };
        let reach = drop / (-light_dir.y).max(0.1);
        let frame = self
            .gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("throng frame"),
                contents: bytemuck::bytes_of(&u),
                usage: wgpu::BufferUsages::UNIFORM,
            });
        FrameSetup {
            frame,
            view_proj,
            camera,
            shadow,
            pixels_per_unit: opts.height as f32 * 0.5 / (camera.fov_y * 0.5).tan().max(1e-6),
            light_reach: light_dir.extend(reach),
        }
    }

    /// A per-draw uniform buffer: entry `pass · lods + lod` at a 256 B stride; with `multi`
    /// (one multi-draw over every LOD), entry `pass · lods` serves all LODs of the pass.
    pub(crate) fn draw_params_buffer(
        &self,
        lods: u32,
        segment: u32,
        opts: &RenderOptions,
        multi: bool,
    ) -> wgpu::Buffer {
        let stride = DRAW_PARAMS_STRIDE as usize;
        let mut bytes = vec![0u8; 2 * lods as usize * stride];
        let packed = (0..4).fold(0u32, |a, l| a | opts.influences_at(l) << (8 * l));
        for pass_index in 0..2u32 {
            for lod in 0..lods {
                let entry = pass_index * lods + lod;
                let p = DrawParams {
                    id_base: if multi { 0 } else { entry * segment },
                    influences: opts.influences_at(lod),
                    lod: if multi { DrawParams::ALL_LODS } else { lod },
                    pass_index,
                    segment,
                    lod_count: lods,
                    lod_influences: packed,
                    _pad: 0,
                };
                let at = entry as usize * stride;
                bytes[at..at + std::mem::size_of::<DrawParams>()]
                    .copy_from_slice(bytemuck::bytes_of(&p));
            }
        }
        self.gpu
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("throng draw params"),
                contents: &bytes,
                usage: wgpu::BufferUsages::UNIFORM,
            })
    }

    /// Group 3 bind groups (main pass with the shadow map, shadow pass) over `params`.
    pub(crate) fn draw_groups(
        &self,
        params: &wgpu::Buffer,
        shadow_map: &wgpu::TextureView,
    ) -> (wgpu::BindGroup, wgpu::BindGroup) {
        let device = &self.gpu.device;
        let binding = wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: params,
            offset: 0,
            size: wgpu::BufferSize::new(std::mem::size_of::<DrawParams>() as u64),
        });
        let main = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng draw (main)"),
            layout: &self.draw_main_bgl,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: crate::bindings::DRAW_PARAMS,
                    resource: binding.clone(),
                },
                wgpu::BindGroupEntry {
                    binding: crate::bindings::SHADOW_MAP,
                    resource: wgpu::BindingResource::TextureView(shadow_map),
                },
                wgpu::BindGroupEntry {
                    binding: crate::bindings::SHADOW_SAMPLER,
                    resource: wgpu::BindingResource::Sampler(&self.shadow_sampler),
                },
            ],
        });
        let shadow = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng draw (shadow)"),
            layout: &self.draw_shadow_bgl,
            entries: &[wgpu::BindGroupEntry {
                binding: crate::bindings::DRAW_PARAMS,
                resource: binding,
            }],
        });
        (main, shadow)
    }

    /// Checks a crowd and builds the pipelines it needs.
    fn prepare_pipelines(
        &mut self,
        crowd: &Crowd,
        opts: &RenderOptions,
        format: wgpu::TextureFormat,
    ) -> Result<(PipelineKey, Option<PipelineKey>), RenderError> {
        playback_len_matches(crowd)?;
        instances_fit(crowd, &self.gpu.device.limits())?;
        let asset = crowd.asset;
        let vat = opts.path == SkinPath::Vat;
        if vat && asset.primitives.iter().any(|p| p.vat.is_none()) {
            return Err(RenderError::BadAsset {
                asset: asset.name.clone(),
                what: "the VAT path needs a vertex animation texture for every primitive; bake it with --vat f32|f16|unorm16".into(),
            });
        }
        let timing = crowd.playback.timing();
        let culled = opts.cull && !crowd.transforms.is_empty();
        let skinning = if vat { Skinning::Linear } else { opts.skinning };
        let key = (asset.encoding, skinning, timing, culled, vat, Some(format));
        self.ensure_texture_pipeline(key)?;
        let shadow_key = opts
            .shadows
            .then_some((key.0, key.1, key.2, key.3, key.4, None));
        if let Some(k) = shadow_key {
            self.ensure_texture_pipeline(k)?;
        }
        if culled {
            self.ensure_cull_pipelines(timing)?;
        }
        Ok((key, shadow_key))
    }

    /// Buffers and bind groups of one crowd for this frame.
    fn prepare_crowd<'a>(
        &self,
        crowd: Crowd<'a>,
        keys: (PipelineKey, Option<PipelineKey>),
        setup: &FrameSetup,
        shadow_map: &wgpu::TextureView,
        opts: &RenderOptions,
    ) -> Result<CrowdFrame<'a>, RenderError> {
        let (key, shadow_key) = keys;
        let asset = crowd.asset;
        let device = &self.gpu.device;
        let vat = key.4;
        let transforms_buf = self.storage(
            "throng transforms",
            crowd.transforms,
            InstanceTransform::IDENTITY,
        );
        let play = layouts::PlaybackBuffers::new(device, &crowd.playback);
        let cull = if key.3 {
            self.cull_run(&crowd, &transforms_buf, &play, setup, opts)
        } else {
            None
        };
        let tp = self
            .texture_pipelines
            .get(&key)
            .ok_or(RenderError::Internal(
                "draw pipeline not built before the frame",
            ))?;
        let mut entries = layouts::skin_asset_entries(asset, &transforms_buf);
        if vat {
            // The VAT path reads no bone texture.
            entries.retain(|e| e.binding != crate::bindings::BONE_TEXTURE);
        }
        entries.extend(play.entries());
        entries.push(wgpu::BindGroupEntry {
            binding: crate::bindings::FRAME,
            resource: setup.frame.as_entire_binding(),
        });
        if let Some(run) = &cull {
            entries.push(wgpu::BindGroupEntry {
                binding: crate::bindings::VISIBLE_IDS,
                resource: run.visible.as_entire_binding(),
            });
        }
        let skin_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng skinned draw"),
            layout: &tp.bgl,
            entries: &entries,
        });
        let lods = asset.lod_count();
        let params = self.draw_params_buffer(
            lods,
            cull.as_ref().map_or(0, |c| c.segment),
            opts,
            cull.is_some() && self.multi_draw,
        );
        let (draw_main, draw_shadow) = self.draw_groups(&params, shadow_map);
        let materials = asset
            .primitives
            .iter()
            .map(|p| {
                let (uniform, tex) = p
                    .material
                    .and_then(|m| asset.materials.get(m).copied())
                    .unwrap_or((MaterialUniform::color(DEFAULT_COLOR), None));
                let view = tex
                    .and_then(|t| asset.textures.get(t))
                    .and_then(|v| v.as_ref());
                self.materials.group(device, &uniform, view)
            })
            .collect();
        let vat_groups = asset
            .primitives
            .iter()
            .map(|p| {
                let v = p.vat.as_ref().filter(|_| vat)?;
                Some(crate::vat::bind_group(
                    device,
                    &self.vat_bgl,
                    &self.vat_dummies,
                    v,
                ))
            })
            .collect();
        Ok(CrowdFrame {
            crowd,
            key,
            shadow_key,
            skin_group,
            draw_main,
            draw_shadow,
            materials,
            vat_groups,
            cull,
            lods,
        })
    }

    /// Records one crowd's draws of a pass; returns the draw calls recorded.
    fn draw_crowd(&self, pass: &mut wgpu::RenderPass<'_>, cf: &CrowdFrame, shadow: bool) -> u32 {
        let key = if shadow { cf.shadow_key } else { Some(cf.key) };
        let Some(tp) = key.and_then(|k| self.texture_pipelines.get(&k)) else {
            return 0;
        };
        let n = cf.crowd.transforms.len() as u32;
        if n == 0 {
            return 0;
        }
        let asset = cf.crowd.asset;
        let prims = asset.primitives.len().max(1) as u32;
        let pass_index = shadow as u32;
        let group = if shadow {
            &cf.draw_shadow
        } else {
            &cf.draw_main
        };
        pass.set_pipeline(&tp.pipeline);
        pass.set_bind_group(crate::bindings::group::SKIN, &cf.skin_group, &[]);
        let arg_size = std::mem::size_of::<DrawIndexedArgs>() as u64;
        // One draw per (primitive, LOD), or per primitive with a multi-draw over its LODs.
        let multi = cf.cull.is_some() && self.multi_draw;
        let lods = if cf.cull.is_some() && !multi {
            cf.lods
        } else {
            1
        };
        let mut draws = 0;
        for lod in 0..lods {
            let entry = pass_index * cf.lods + lod;
            pass.set_bind_group(
                crate::bindings::group::DRAW,
                group,
                &[(entry as u64 * DRAW_PARAMS_STRIDE) as u32],
            );
            for (i, p) in asset.primitives.iter().enumerate() {
                if let Some(m) = cf.materials.get(i) {
                    pass.set_bind_group(crate::bindings::group::MATERIAL, m, &[]);
                }
                if let Some(Some(g)) = cf.vat_groups.get(i) {
                    pass.set_bind_group(crate::bindings::group::VAT, g, &[]);
                }
                pass.set_vertex_buffer(0, p.vertices.slice(..));
                pass.set_index_buffer(p.indices.slice(..), wgpu::IndexFormat::Uint32);
                let first_lod = (pass_index * prims + i as u32) * cf.lods;
                match &cf.cull {
                    Some(run) if multi => pass.multi_draw_indexed_indirect(
                        &run.args,
                        first_lod as u64 * arg_size,
                        cf.lods,
                    ),
                    Some(run) => {
                        pass.draw_indexed_indirect(&run.args, (first_lod + lod) as u64 * arg_size)
                    }
                    None => {
                        let (first, count) = p.lod(0);
                        pass.draw_indexed(first..first + count, 0, 0..n);
                    }
                }
                draws += 1;
            }
        }
        draws
    }

    /// Bounds of the crowds (receivers and casters of the frame).
    pub(crate) fn scene_bounds(crowds: &[Crowd]) -> Aabb {
        crowds.iter().fold(Aabb::EMPTY, |a, c| {
            a.union(&crowd_bounds(&c.asset.bounds, c.transforms))
        })
    }

    /// Records a frame of `crowds` into `encoder`: culling, the shadow pass and the main pass
    /// into `color` (a view of a `format` texture of `width` × `height`; the depth target is the
    /// renderer's). For applications with their own device, window and encoder; submit the
    /// encoder afterwards. The returned statistics hold the draw calls only (no readback).
    #[allow(clippy::too_many_arguments)]
    pub fn encode_frame(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        color: &wgpu::TextureView,
        format: wgpu::TextureFormat,
        width: u32,
        height: u32,
        crowds: &[Crowd],
        opts: &RenderOptions,
    ) -> Result<FrameStats, RenderError> {
        let opts = RenderOptions {
            width,
            height,
            ..*opts
        };
        let (stats, _) = self.record(encoder, color, format, crowds, &opts, false)?;
        Ok(stats)
    }

    /// Records a frame; with `readback`, also copies every crowd's indirect arguments into
    /// one buffer (returned with each crowd's (offset, entries, LODs, primitives)).
    #[allow(clippy::type_complexity)]
    fn record(
        &mut self,
        enc: &mut wgpu::CommandEncoder,
        color: &wgpu::TextureView,
        format: wgpu::TextureFormat,
        crowds: &[Crowd],
        opts: &RenderOptions,
        readback: bool,
    ) -> Result<(FrameStats, Option<(wgpu::Buffer, Vec<ArgsLayout>)>), RenderError> {
        self.check_size(opts)?;
        self.ensure_reference_and_ground(format)?;
        let mut keys = Vec::with_capacity(crowds.len());
        for c in crowds {
            keys.push(self.prepare_pipelines(c, opts, format)?);
        }
        let depth = self.depth_view(opts.width, opts.height);
        let shadow_map = self.shadow_view(if opts.shadows {
            opts.shadow_map_size
        } else {
            1
        });
        let scene = Self::scene_bounds(crowds);
        let setup = self.frame_setup(opts, &scene, &scene);
        let mut frames = Vec::with_capacity(crowds.len());
        for (c, k) in crowds.iter().zip(keys) {
            frames.push(self.prepare_crowd(*c, k, &setup, &shadow_map, opts)?);
        }
        let mut stats = FrameStats::default();
        for cf in &frames {
            if let Some(run) = &cf.cull {
                self.encode_cull(run, cf.crowd.playback.timing(), enc);
                stats.dispatches += 2;
            }
        }
        // The ground's group 0 (transforms unused) and group 3.
        let ground_params = self.draw_params_buffer(1, 0, opts, false);
        let (ground_draw, _) = self.draw_groups(&ground_params, &shadow_map);
        let dummy = self.storage(
            "throng no transforms",
            &[InstanceTransform::IDENTITY],
            InstanceTransform::IDENTITY,
        );
        let ground_group = self.reference_group(&dummy, &setup.frame);
        if opts.shadows {
            let mut pass = depth_pass(enc, &shadow_map, "throng shadow pass");
            for cf in &frames {
                let d = self.draw_crowd(&mut pass, cf, true);
                stats.draws += d;
                stats.shadow_draws += d;
            }
        }
        {
            let mut pass = main_pass(enc, color, &depth, opts.background);
            if opts.ground {
                if let Some(g) = self.ground_pipelines.get(&format) {
                    pass.set_pipeline(g);
                    pass.set_bind_group(crate::bindings::group::SKIN, &ground_group, &[]);
                    pass.set_bind_group(crate::bindings::group::DRAW, &ground_draw, &[0]);
                    pass.draw(0..6, 0..1);
                    stats.draws += 1;
                }
            }
            for cf in &frames {
                stats.draws += self.draw_crowd(&mut pass, cf, false);
            }
        }
        let mut out = None;
        if readback {
            let mut layouts = Vec::new();
            let mut offset = 0u64;
            for cf in &frames {
                let prims = cf.crowd.asset.primitives.len().max(1) as u32;
                let bytes = cf.cull.as_ref().map_or(0, |r| {
                    r.entries as u64 * std::mem::size_of::<DrawIndexedArgs>() as u64
                });
                layouts.push(ArgsLayout {
                    offset,
                    culled: cf.cull.is_some(),
                    lods: cf.lods,
                    prims,
                    instances: cf.crowd.transforms.len() as u64,
                    index_counts: cf
                        .crowd
                        .asset
                        .primitives
                        .iter()
                        .map(|p| p.index_count as u64)
                        .collect(),
                    shadows: cf.shadow_key.is_some(),
                });
                offset += bytes.div_ceil(4) * 4;
            }
            let buf = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("throng draw arguments readback"),
                size: offset.max(4),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            for (cf, l) in frames.iter().zip(&layouts) {
                if let Some(run) = &cf.cull {
                    let bytes = run.entries as u64 * std::mem::size_of::<DrawIndexedArgs>() as u64;
                    enc.copy_buffer_to_buffer(&run.args, 0, &buf, l.offset, bytes);
                }
            }
            out = Some((buf, layouts));
        }
        Ok((stats, out))
    }

    /// Draws `crowds` into an offscreen `opts.width` × `opts.height` target and reads the image
    /// and the GPU's draw counts back.
    pub fn render_scene(
        &mut self,
        crowds: &[Crowd],
        opts: &RenderOptions,
    ) -> Result<RenderedFrame, RenderError> {
        self.check_size(opts)?;
        let target = OffscreenTarget::new(&self.gpu.device, opts.width, opts.height);
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        let (mut stats, args) =
            self.record(&mut enc, &target.view, COLOR_FORMAT, crowds, opts, true)?;
        let read = target.copy_out(&self.gpu.device, &mut enc);
        self.gpu.queue.submit([enc.finish()]);
        if let Some((buf, layouts)) = args {
            let bytes = map_read(&self.gpu, &buf)?;
            add_gpu_counts(&mut stats, &bytes, &layouts);
        }
        let image = target.read(&self.gpu, &read)?;
        Ok(RenderedFrame { image, stats })
    }
}

/// Where one crowd's indirect arguments sit in the readback buffer.
struct ArgsLayout {
    offset: u64,
    culled: bool,
    lods: u32,
    prims: u32,
    instances: u64,
    index_counts: Vec<u64>,
    shadows: bool,
}

/// Adds what the GPU drew (from the indirect arguments read back) to `stats`.
fn add_gpu_counts(stats: &mut FrameStats, bytes: &[u8], layouts: &[ArgsLayout]) {
    let arg_size = std::mem::size_of::<DrawIndexedArgs>();
    for l in layouts {
        if !l.culled {
            // Every instance at LOD 0 in each pass.
            let tris: u64 = l.index_counts.iter().sum::<u64>() / 3;
            if stats.instances_per_lod.is_empty() {
                stats.instances_per_lod.push(0);
            }
            stats.instances_per_lod[0] += l.instances;
            stats.instances_drawn += l.instances;
            stats.triangles += tris * l.instances;
            if l.shadows {
                stats.shadow_instances += l.instances;
                stats.shadow_triangles += tris * l.instances;
            }
            continue;
        }
        for pass_index in 0..2u32 {
            for lod in 0..l.lods {
                for p in 0..l.prims {
                    let k = ((pass_index * l.prims + p) * l.lods + lod) as usize;
                    let at = l.offset as usize + k * arg_size;
                    let Some(raw) = bytes.get(at..at + arg_size) else {
                        continue;
                    };
                    let a: DrawIndexedArgs = bytemuck::pod_read_unaligned(raw);
                    let tris = a.index_count as u64 / 3 * a.instance_count as u64;
                    if pass_index == 0 {
                        stats.triangles += tris;
                        if p == 0 {
                            if stats.instances_per_lod.len() <= lod as usize {
                                stats.instances_per_lod.resize(lod as usize + 1, 0);
                            }
                            stats.instances_per_lod[lod as usize] += a.instance_count as u64;
                            stats.instances_drawn += a.instance_count as u64;
                        }
                    } else {
                        stats.shadow_triangles += tris;
                        if p == 0 {
                            stats.shadow_instances += a.instance_count as u64;
                        }
                    }
                }
            }
        }
    }
}
