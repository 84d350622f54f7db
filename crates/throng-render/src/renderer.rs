//! The [`Renderer`]: a device and the passes of a frame. A frame of crowds is drawn by
//! [`Renderer::render_scene`] (offscreen, read back to RGBA8 with the GPU's draw counts) or
//! recorded into an application's own encoder and target by [`Renderer::encode_frame`]; the
//! reference path by [`Renderer::render_reference`]. Per frame: the culling pass per crowd,
//! the shadow pass, the main pass — with occlusion culling, its first phase, the depth pyramid,
//! culling's second phase and the main pass's second phase (docs/design.md §5).

use throng_asset::BakedAsset;
use throng_contract::{InstanceRecord, InstanceTransform, Records};

use crate::crowd::{Crowd, CrowdBuffers, Playback};
use crate::device::{AdapterSummary, Gpu};
use crate::error::RenderError;
use crate::frame::{
    add_gpu_counts, scene_bounds, ArgsLayout, FrameSetup, FrameStats, FrameTimer, PaletteCount,
    RenderedFrame,
};
use crate::gpu_asset::GpuAsset;
use crate::gpu_types::{DrawIndexedArgs, DRAW_PARAMS_STRIDE};
use crate::options::{RenderOptions, COLOR_FORMAT};
use crate::passes::cull::{
    palette_state_base, visible_bytes, CullInputs, CullLists, CullPass, OcclusionInputs,
};
use crate::passes::draw::{CrowdDraw, PipelineKey, Route, SkinnedDraws};
use crate::passes::main::{GroundDraw, MainPass, MainPhase};
use crate::passes::occlusion::{OcclusionPass, PyramidFrame};
use crate::passes::palette::PalettePass;
use crate::passes::reference::{ReferenceMesh, ReferencePass};
use crate::passes::shadow::{depth_pass, ShadowPass};
use crate::passes::{draw_params_buffer, DrawLayouts, NO_FADE};
use crate::prop::{GpuProp, PropMesh};
use crate::readback::{map_read, read_buffer};
use crate::target::OffscreenTarget;

/// A renderer: a device plus the passes, whose pipelines are built on first use. Holds no
/// per-frame state: every frame's buffers are made from its inputs (only the depth target and
/// the shadow map are kept between frames), except a crowd drawn from a [`crate::CrowdUpload`],
/// which the application keeps and updates with what changed, and occlusion culling's history:
/// per crowd, by its asset and its position in the frame's list, which instances the last frame
/// saw (it only decides what the first phase draws; the image never depends on it).
pub struct Renderer {
    pub gpu: Gpu,
    layouts: DrawLayouts,
    cull: CullPass,
    draws: SkinnedDraws,
    shadow: ShadowPass,
    main: MainPass,
    occlusion: OcclusionPass,
    palette: PalettePass,
    reference: ReferencePass,
    /// Draw each primitive's LODs with one multi-draw (first instances point each LOD's draw at
    /// its visible-id list). On when the device has `INDIRECT_FIRST_INSTANCE`; turning it off
    /// gives one indirect draw per primitive and LOD, the path every device can take.
    pub multi_draw: bool,
    /// Motion vectors: the last frame's clip-from-world matrix (None after a frame without
    /// them).
    prev_view_proj: Option<glam::Mat4>,
    /// What the device lacks for the full mode (None: it has everything); with Some, every
    /// frame draws in the downlevel mode (docs/downlevel.md).
    device_downlevel: Option<&'static str>,
    /// The downlevel mode's instance and appearance textures, kept across frames.
    downlevel_textures: crate::data_texture::DataTextures,
}

/// Where each crowd's indirect arguments are copied for the statistics.
type ArgsReadback = (wgpu::Buffer, Vec<ArgsLayout>);

impl Renderer {
    /// Creates a device on any adapter ([`Gpu::new`]).
    pub fn new() -> Result<Renderer, RenderError> {
        Ok(Self::with_gpu(Gpu::new()?))
    }

    /// A renderer on an existing device (e.g. an application's, see [`Gpu::from_device`]).
    /// On a device without compute shaders, vertex-stage storage buffers or indirect draws
    /// ([`Gpu::full_path_missing`]) every frame draws in the downlevel mode.
    pub fn with_gpu(gpu: Gpu) -> Renderer {
        let device_downlevel = gpu.full_path_missing();
        let multi_draw = device_downlevel.is_none()
            && gpu
                .device
                .features()
                .contains(wgpu::Features::INDIRECT_FIRST_INSTANCE);
        Renderer {
            layouts: DrawLayouts::new(&gpu.device, &gpu.queue),
            reference: ReferencePass::new(&gpu.device, device_downlevel.is_some()),
            device_downlevel,
            cull: CullPass::default(),
            draws: SkinnedDraws::default(),
            shadow: ShadowPass::default(),
            main: MainPass::default(),
            occlusion: OcclusionPass::default(),
            palette: PalettePass::default(),
            multi_draw,
            prev_view_proj: None,
            downlevel_textures: Default::default(),
            gpu,
        }
    }

    pub fn adapter(&self) -> &AdapterSummary {
        &self.gpu.summary
    }

    /// What the device lacks for the full mode, by name (e.g. "compute shaders"); `Some`:
    /// every frame draws in the downlevel mode (docs/downlevel.md), whatever
    /// [`RenderOptions::downlevel`] says.
    pub fn downlevel_reason(&self) -> Option<&'static str> {
        self.device_downlevel
    }

    /// Whether a frame drawn with `opts` draws in the downlevel mode: the device needs it, or
    /// `opts.downlevel` asks for it.
    pub fn draws_downlevel(&self, opts: &RenderOptions) -> bool {
        self.device_downlevel.is_some() || opts.downlevel
    }

    /// The downlevel mode of a frame: `Some(what the device lacks)`, `Some("")` when asked
    /// for on a full device, None for the full mode.
    fn downlevel_of(&self, opts: &RenderOptions) -> Option<&'static str> {
        match (self.device_downlevel, opts.downlevel) {
            (Some(r), _) => Some(r),
            (None, true) => Some(""),
            (None, false) => None,
        }
    }

    /// Whether `instances` of an asset with `palette_entries` skin matrices per frame fit one
    /// palette buffer binding of this device (the palette path's limit, checked again when
    /// drawing: [`RenderError::PaletteTooLarge`]). Tools choose the palette path, the fastest
    /// measured (docs/benchmarks.md), when it does.
    pub fn palette_fits(&self, palette_entries: usize, instances: usize) -> bool {
        if self.device_downlevel.is_some() {
            return false;
        }
        let limits = self.gpu.device.limits();
        let limit = (limits.max_storage_buffer_binding_size).min(limits.max_buffer_size);
        crate::palette_bytes(instances as u64, palette_entries as u32) <= limit
    }

    /// Uploads a prop mesh to attach to anchors ([`GpuProp::new`]).
    pub fn upload_prop(&self, mesh: &PropMesh) -> Result<GpuProp, RenderError> {
        GpuProp::new(&self.gpu, mesh)
    }

    /// Uploads a baked asset ([`GpuAsset::new`]).
    pub fn upload(&self, asset: &BakedAsset) -> Result<GpuAsset, RenderError> {
        GpuAsset::new(&self.gpu, asset)
    }

    fn check_size(&self, opts: &RenderOptions) -> Result<(), RenderError> {
        let limit = self.gpu.device.limits().max_texture_dimension_2d;
        let bad = |v: u32| v == 0 || v > limit;
        if bad(opts.width) || bad(opts.height) || bad(opts.shadow_map_size) {
            return Err(RenderError::BadImageSize {
                width: opts.width,
                height: opts.height,
                limit,
            });
        }
        Ok(())
    }

    /// Records a frame of `crowds` into `encoder`: culling, the shadow pass and the main pass
    /// into `color` (a view of a `format` texture of `width` × `height`; the depth target is the
    /// renderer's). For applications with their own device, window and encoder; submit the
    /// encoder afterwards, before the next frame is encoded (the renderer keeps some of a
    /// frame's data, e.g. the downlevel mode's data textures, for the next one to rewrite).
    /// The returned statistics hold the draw calls only (no readback).
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
        let (stats, _, _) = self.record(encoder, color, format, crowds, &opts, (false, None))?;
        Ok(stats)
    }

    /// The motion vector target ([`crate::MOTION_FORMAT`], the frame's size) of the last
    /// frame drawn with motion vectors ([`RenderOptions::motion`]): per pixel the screen-space motion since the
    /// frame before, in UV units (docs/design.md §5 "Motion vectors"). For an application's
    /// own passes after [`Renderer::encode_frame`] (temporal anti-aliasing, motion blur).
    pub fn motion_target(&self) -> Option<&wgpu::Texture> {
        self.main.motion_target().map(|(t, _)| t)
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
        let timer = FrameTimer::new(&self.gpu.device);
        let mut enc = self.gpu.device.create_command_encoder(&Default::default());
        if let Some(t) = &timer {
            t.mark(&mut enc, 0);
        }
        let (mut stats, args, palette) = self.record(
            &mut enc,
            &target.view,
            COLOR_FORMAT,
            crowds,
            opts,
            (true, timer.as_ref()),
        )?;
        if let Some(t) = &timer {
            t.mark(&mut enc, 1);
            t.resolve(&mut enc, palette);
        }
        let read = target.copy_out(&self.gpu.device, &mut enc);
        let motion_read = match self.main.motion_target() {
            Some((texture, _)) if opts.motion() => Some(crate::target::copy_out(
                &self.gpu.device,
                &mut enc,
                texture,
                4,
            )),
            _ => None,
        };
        self.gpu.queue.submit([enc.finish()]);
        if let Some((buf, layouts)) = args {
            let bytes = map_read(&self.gpu, &buf)?;
            add_gpu_counts(&mut stats, &bytes, &layouts);
        }
        if let Some(t) = timer {
            (stats.gpu_ns, stats.palette_ns) = t.read(&self.gpu, palette);
        }
        let image = target.read(&self.gpu, &read)?;
        let motion = match motion_read {
            Some(m) => Some(crate::target::read_motion(
                &self.gpu,
                &m,
                (opts.width, opts.height),
            )?),
            None => None,
        };
        Ok(RenderedFrame {
            image,
            stats,
            motion,
        })
    }

    /// Draws one crowd, CPU- or GPU-timed; see [`Renderer::render_scene`].
    pub fn render_playback(
        &mut self,
        asset: &GpuAsset,
        transforms: &[InstanceTransform],
        playback: Playback,
        opts: &RenderOptions,
    ) -> Result<image::RgbaImage, RenderError> {
        let crowd = Crowd::new(asset, transforms, playback);
        Ok(self.render_scene(&[crowd], opts)?.image)
    }

    /// Draws a CPU-timed crowd of `asset`: instance i has transform `transforms[i]` and record
    /// `records[i]` (docs/design.md §4).
    pub fn render_texture(
        &mut self,
        asset: &GpuAsset,
        transforms: &[InstanceTransform],
        records: &[InstanceRecord],
        opts: &RenderOptions,
    ) -> Result<image::RgbaImage, RenderError> {
        self.render_playback(
            asset,
            transforms,
            Playback::Records(Records::Cpu(records)),
            opts,
        )
    }

    /// Builds what a frame's crowds need: pipelines, buffers, culling runs, bind groups
    /// (`pyramid`: with occlusion culling).
    fn prepare_crowds<'a>(
        &mut self,
        crowds: &[Crowd<'a>],
        opts: &RenderOptions,
        format: wgpu::TextureFormat,
        setup: &FrameSetup,
        shadow_map: &wgpu::TextureView,
        pyramid: Option<&PyramidFrame>,
    ) -> Result<Vec<CrowdDraw<'a>>, RenderError> {
        let downlevel = self.downlevel_of(opts);
        let device = &self.gpu.device;
        let limits = device.limits();
        let mut keys = Vec::with_capacity(crowds.len());
        for c in crowds {
            match downlevel {
                None => c.check(&limits)?,
                // The downlevel mode binds no storage buffer, and check_downlevel (in keys)
                // names what it cannot draw.
                Some(_) => c.check_records()?,
            }
            let k = SkinnedDraws::keys(c, opts, format, downlevel)?;
            self.draws.prepare(device, &self.layouts, k.0)?;
            if let Some(s) = k.1 {
                self.draws.prepare(device, &self.layouts, s)?;
            }
            if downlevel.is_some() && crate::passes::downlevel::may_draw_cards(c.asset, opts) {
                self.draws.far.prepare_crowd(device, &self.layouts, &k)?;
            }
            keys.push(k);
        }
        if downlevel.is_some() {
            return self.prepare_downlevel(crowds, keys, opts, setup, shadow_map);
        }
        for (c, k) in crowds.iter().zip(&keys) {
            if k.0.culled {
                self.cull.prepare(device, k.0.timing, pyramid.is_some())?;
            }
            if k.0.palette {
                crate::passes::palette::check_palette(c.asset, c.len(), &limits)?;
            } else if !c.live.is_empty() {
                return Err(RenderError::LivePoseNeedsPalette {
                    asset: c.asset.name.clone(),
                });
            }
            if let Some(pk) = crate::passes::draw::palette_key(&k.0) {
                self.palette.prepare(device, pk)?;
            }
            if k.0.culled && c.asset.far.is_some() {
                self.draws.far.prepare_crowd(device, &self.layouts, k)?;
            }
            if !c.props.is_empty() {
                for color in [k.0.color].into_iter().chain(k.1.map(|s| s.color)) {
                    self.draws
                        .props
                        .prepare(device, &self.layouts, k.0.timing, color)?;
                }
            }
        }
        let mut out = Vec::with_capacity(crowds.len());
        for (slot, (c, k)) in crowds.iter().zip(keys).enumerate() {
            let mut owned = None;
            let buffers = CrowdBuffers::of(device, c, &mut owned);
            let n = c.len() as u32;
            let palette = k.0.palette && k.0.culled;
            let occlusion = pyramid.map(|pyramid| {
                let (visible, boxes) = self.occlusion.crowd_buffers(
                    device,
                    c.asset,
                    slot,
                    (visible_bytes(n, c.asset.lod_count(), 3, palette), n),
                );
                OcclusionInputs {
                    visible,
                    boxes,
                    pyramid,
                }
            });
            // The palette path: the crowd's kept palette buffer and, culled, its state words.
            let palette_frame = k.0.palette.then(|| {
                let lods = c.asset.lod_count();
                let passes = 2 + occlusion.is_some() as u32;
                let state = palette.then(|| crate::passes::palette::StateWords {
                    visible: occlusion.as_ref().map(|o| o.visible.clone()),
                    bytes: visible_bytes(n, lods, passes, true),
                    base: palette_state_base(n, lods, passes),
                    live: c.live,
                    refresh: opts.palette_refresh,
                });
                self.palette
                    .begin(&self.gpu, (c.asset, Some(slot)), n, state, opts.motion())
            });
            let cull = if k.0.culled {
                self.cull.run(
                    device,
                    &CullInputs {
                        occlusion,
                        palette: palette_frame.as_ref().and_then(|p| p.cull.clone()),
                        ..CullInputs::new(
                            c.asset,
                            buffers,
                            (c.len() as u32, k.0.timing),
                            setup,
                            opts,
                            self.multi_draw,
                        )
                    },
                )
            } else {
                None
            };
            let palette = match (crate::passes::draw::palette_key(&k.0), palette_frame) {
                (Some(pk), Some(pf)) => Some(self.palette.run(
                    device,
                    (c.asset, pf.palette, pf.history),
                    buffers,
                    n,
                    pk,
                    cull.as_ref(),
                    c.live,
                )?),
                _ => None,
            };
            out.push(self.draws.crowd(
                &self.gpu,
                &self.layouts,
                *c,
                Route::Full {
                    buffers,
                    cull,
                    palette,
                },
                k,
                setup,
                shadow_map,
                opts,
                self.multi_draw,
            )?);
        }
        Ok(out)
    }

    /// The rest of [`Self::prepare_crowds`] in the downlevel mode, the crowds' pipelines of
    /// `keys` built: CPU culling and each crowd's instance texture and bind groups.
    fn prepare_downlevel<'a>(
        &mut self,
        crowds: &[Crowd<'a>],
        keys: Vec<(PipelineKey, Option<PipelineKey>)>,
        opts: &RenderOptions,
        setup: &FrameSetup,
        shadow_map: &wgpu::TextureView,
    ) -> Result<Vec<CrowdDraw<'a>>, RenderError> {
        let device = &self.gpu.device;
        let mut out = Vec::with_capacity(crowds.len());
        for (slot, (c, k)) in crowds.iter().zip(keys).enumerate() {
            let run = crate::passes::downlevel::run(
                (device, &self.gpu.queue),
                &mut self.downlevel_textures,
                slot,
                c,
                (setup, opts),
            )?;
            out.push(self.draws.crowd(
                &self.gpu,
                &self.layouts,
                *c,
                Route::Downlevel(run),
                k,
                setup,
                shadow_map,
                opts,
                false,
            )?);
        }
        Ok(out)
    }

    /// Records a frame; with `readback`, also copies every crowd's indirect arguments into
    /// one buffer (returned with where each crowd's are); with a `timer`, times the palette
    /// pass (the last value: whether one ran).
    fn record(
        &mut self,
        enc: &mut wgpu::CommandEncoder,
        color: &wgpu::TextureView,
        format: wgpu::TextureFormat,
        crowds: &[Crowd],
        opts: &RenderOptions,
        (readback, timer): (bool, Option<&FrameTimer>),
    ) -> Result<(FrameStats, Option<ArgsReadback>, bool), RenderError> {
        self.check_size(opts)?;
        let motion = opts.motion();
        self.main.prepare(
            &self.gpu.device,
            &self.layouts,
            &self.reference.bgl,
            (format, motion),
        )?;
        let depth = self.main.depth(&self.gpu.device, opts.width, opts.height);
        let motion_view =
            motion.then(|| self.main.motion(&self.gpu.device, opts.width, opts.height));
        let shadow_map = self.shadow_map(opts);
        let scene = opts.scene.unwrap_or_else(|| scene_bounds(crowds));
        let prev_view_proj = self.prev_view_proj.filter(|_| motion);
        let setup = FrameSetup::new(&self.gpu.device, opts, (&scene, &scene), prev_view_proj);
        let pyramid = if self.occlusion_culls(opts, crowds) {
            self.occlusion.prepare(&self.gpu.device)?;
            self.occlusion.frame(
                &self.gpu.device,
                &depth,
                setup.view_proj,
                (opts.width, opts.height),
            )
        } else {
            None
        };
        let frames =
            self.prepare_crowds(crowds, opts, format, &setup, &shadow_map, pyramid.as_ref())?;
        let device = &self.gpu.device;
        let mut stats = FrameStats::default();
        for cd in &frames {
            if let Some(run) = cd.cull() {
                stats.dispatches += self.cull.encode(run, enc);
            }
        }
        // The palette path: after culling, before any pass draws.
        let palettes: Vec<_> = frames.iter().filter_map(|cd| cd.palette()).collect();
        stats.palette_live = palettes.iter().map(|p| p.live_count() as u64).sum();
        if !palettes.is_empty() {
            let d = self
                .palette
                .encode(&palettes, enc, timer.map(|t| t.palette_writes()));
            stats.dispatches += d;
        }
        if opts.shadows {
            let d = self
                .shadow
                .encode(enc, &shadow_map, &frames, &self.draws, self.multi_draw);
            stats.draws += d;
            stats.shadow_draws += d;
        }
        // The ground's group 0 (transforms unused) and group 3.
        let ground_params = draw_params_buffer(device, (1, 0), opts, false, NO_FADE);
        let (ground_draw, _) = self
            .layouts
            .draw_groups(device, &ground_params, &shadow_map, None);
        let dummy = crate::data_texture::InstanceData::transforms(
            device,
            &self.gpu.queue,
            &[InstanceTransform::IDENTITY],
            self.device_downlevel.is_some(),
        )?;
        let ground_group = self.reference.group(device, &dummy, &setup.frame);
        let ground = opts.ground.then_some(GroundDraw {
            frame_group: &ground_group,
            draw_group: &ground_draw,
        });
        let targets = crate::passes::main::MainTargets {
            color,
            format,
            depth: &depth,
            motion: motion_view.as_ref(),
        };
        let main = |enc: &mut wgpu::CommandEncoder, phase| {
            self.main.encode(
                enc,
                targets,
                opts.background,
                ground,
                &frames,
                &self.draws,
                self.multi_draw,
                phase,
            )
        };
        match &pyramid {
            None => stats.draws += main(enc, MainPhase::Only),
            Some(p) => {
                stats.draws += main(enc, MainPhase::First);
                stats.dispatches += self.occlusion.encode(p, enc);
                for run in frames.iter().filter_map(|cd| cd.cull()) {
                    stats.dispatches += self.cull.encode_late(run, enc);
                }
                stats.draws += main(enc, MainPhase::Second);
            }
        }
        if motion {
            self.palette.keep_history(&palettes, enc);
        }
        self.prev_view_proj = motion.then_some(setup.view_proj);
        for cd in &frames {
            if let Some(run) = cd.downlevel() {
                run.add_counts(&mut stats, &lod_indices(cd.crowd.asset, run.lods));
            }
        }
        let args = readback.then(|| self.copy_args(enc, &frames));
        Ok((stats, args, !palettes.is_empty()))
    }

    /// Whether this frame culls by occlusion: asked for, with culling, and some crowd to cull.
    /// (Needs compute: never in the downlevel mode.)
    fn occlusion_culls(&self, opts: &RenderOptions, crowds: &[Crowd]) -> bool {
        opts.occlusion
            && opts.cull
            && self.downlevel_of(opts).is_none()
            && crowds.iter().any(|c| !c.is_empty())
    }

    /// The shadow map this frame draws into (1 texel when shadows are off).
    fn shadow_map(&mut self, opts: &RenderOptions) -> wgpu::TextureView {
        let size = if opts.shadows {
            opts.shadow_map_size
        } else {
            1
        };
        self.shadow.map(&self.gpu.device, size)
    }

    /// Copies every culled crowd's indirect arguments into one readback buffer.
    fn copy_args(&self, enc: &mut wgpu::CommandEncoder, frames: &[CrowdDraw]) -> ArgsReadback {
        let arg_size = std::mem::size_of::<DrawIndexedArgs>() as u64;
        let mut layouts = Vec::new();
        let mut offset = 0u64;
        // Downlevel crowds count on the CPU (`record`).
        for cd in frames.iter().filter(|cd| cd.downlevel().is_none()) {
            let prims = cd.crowd.asset.primitives.len().max(1) as u32;
            let bytes = cd
                .cull()
                .map_or(0, |r| r.counted_entries() as u64 * arg_size);
            layouts.push(ArgsLayout {
                offset,
                culled: cd.cull().is_some(),
                passes: cd.cull().map_or(2, |r| r.passes),
                lods: cd.lods,
                prims,
                instances: cd.crowd.len() as u64,
                index_counts: cd
                    .crowd
                    .asset
                    .primitives
                    .iter()
                    .map(|p| p.index_count as u64)
                    .collect(),
                shadows: cd.casts_shadows(),
                dots: cd.cull().and_then(|r| r.dots()),
                palette: cd.palette().map(|_| match cd.cull() {
                    Some(run) => run
                        .palette
                        .map_or(PaletteCount::All, |_| PaletteCount::Listed(run.entries)),
                    None => PaletteCount::All,
                }),
            });
            offset += bytes.div_ceil(4) * 4;
        }
        let buf = read_buffer(
            &self.gpu.device,
            "throng draw arguments readback",
            offset.max(4),
        );
        let full = frames.iter().filter(|cd| cd.downlevel().is_none());
        for (cd, l) in full.zip(&layouts) {
            if let Some(run) = cd.cull() {
                let bytes = run.counted_entries() as u64 * arg_size;
                enc.copy_buffer_to_buffer(&run.args, 0, &buf, l.offset, bytes);
            }
        }
        (buf, layouts)
    }

    /// Runs only one crowd's culling pass (camera as [`Renderer::render_scene`] sets it up)
    /// and returns the instance ids kept per (pass, LOD): frustum culling and LOD only
    /// (occlusion culling needs the frame's depth; see [`FrameStats::second_phase_instances`]).
    pub fn cull_lists(
        &mut self,
        crowd: &Crowd,
        opts: &RenderOptions,
    ) -> Result<CullLists, RenderError> {
        if self.device_downlevel.is_some() {
            return self.cpu_cull_lists(crowd, opts);
        }
        let device = &self.gpu.device;
        crowd.check(&device.limits())?;
        if crowd.is_empty() {
            return Ok(CullLists::default());
        }
        let timing = crowd.playback.timing();
        self.cull.prepare(device, timing, false)?;
        let setup = FrameSetup::of_crowd(device, crowd, opts);
        let mut owned = None;
        let buffers = CrowdBuffers::of(device, crowd, &mut owned);
        let inputs = CullInputs::new(
            crowd.asset,
            buffers,
            (crowd.len() as u32, timing),
            &setup,
            opts,
            self.multi_draw,
        );
        let Some(run) = self.cull.run(device, &inputs) else {
            return Ok(CullLists::default());
        };
        let read = |size| read_buffer(device, "throng cull readback", size);
        let ids_size = run.visible.size();
        let args_size = run.args.size();
        let ids_read = read(ids_size);
        let args_read = read(args_size);
        let mut enc = device.create_command_encoder(&Default::default());
        self.cull.encode(&run, &mut enc);
        enc.copy_buffer_to_buffer(&run.visible, 0, &ids_read, 0, ids_size);
        enc.copy_buffer_to_buffer(&run.args, 0, &args_read, 0, args_size);
        self.gpu.queue.submit([enc.finish()]);
        let args: Vec<DrawIndexedArgs> =
            bytemuck::pod_collect_to_vec(&map_read(&self.gpu, &args_read)?);
        let ids: Vec<u32> = bytemuck::pod_collect_to_vec(&map_read(&self.gpu, &ids_read)?);
        Ok(run.lists(
            &ids,
            &args,
            crowd.asset.lod_count() as usize,
            crowd.asset.primitives.len().max(1),
            opts.shadows,
        ))
    }

    /// The downlevel mode's culling of one crowd on the CPU (docs/downlevel.md), camera as
    /// [`Renderer::render_scene`] sets it up: the instance ids kept per (pass, LOD), by the
    /// rules of the GPU pass ([`Renderer::cull_lists`] on a full device), whatever the device.
    pub fn cpu_cull_lists(
        &self,
        crowd: &Crowd,
        opts: &RenderOptions,
    ) -> Result<CullLists, RenderError> {
        let device = &self.gpu.device;
        if crowd.is_empty() {
            return Ok(CullLists::default());
        }
        let setup = FrameSetup::of_crowd(device, crowd, opts);
        let opts = RenderOptions {
            cull: true,
            ..*opts
        };
        Ok(crate::passes::downlevel::lists(crowd, &setup, &opts)?.1)
    }

    /// Runs one crowd's culling (with `opts.cull`; frustum only) and palette pass as
    /// [`Renderer::render_scene`] would on the palette path (skinning `opts.skinning`) and reads
    /// the palette buffer back, for tests against the CPU decoder and for tools.
    pub fn palettes(
        &mut self,
        crowd: &Crowd,
        opts: &RenderOptions,
    ) -> Result<Palettes, RenderError> {
        if let Some(missing) = self.device_downlevel {
            return Err(RenderError::NeedsCapability {
                what: "the palette pass",
                missing: "compute shaders",
                reason: format!(", and this device lacks {missing}"),
                instead: "draw on the texture path",
            });
        }
        let device = &self.gpu.device;
        let limits = device.limits();
        crowd.check(&limits)?;
        crate::passes::palette::check_palette(crowd.asset, crowd.len(), &limits)?;
        let opts = RenderOptions {
            path: crate::SkinPath::Palette,
            ..*opts
        };
        let (key, _) = SkinnedDraws::keys(crowd, &opts, COLOR_FORMAT, None)?;
        let pk = crate::passes::draw::palette_key(&key)
            .ok_or(RenderError::Internal("palette key of the palette path"))?;
        self.palette.prepare(device, pk)?;
        if key.culled {
            self.cull.prepare(device, key.timing, false)?;
        }
        let setup = FrameSetup::of_crowd(device, crowd, &opts);
        let mut owned = None;
        let buffers = CrowdBuffers::of(device, crowd, &mut owned);
        let n = crowd.len() as u32;
        let lods = crowd.asset.lod_count();
        // A buffer of its own (no slot): the frames' palette buffers stay as they are; every
        // instance is computed (a new buffer has no current slots).
        let state = key.culled.then(|| crate::passes::palette::StateWords {
            visible: None,
            bytes: visible_bytes(n, lods, 2, true),
            base: palette_state_base(n, lods, 2),
            live: crowd.live,
            refresh: [1; 4],
        });
        let frame = self
            .palette
            .begin(&self.gpu, (crowd.asset, None), n, state, false);
        let device = &self.gpu.device;
        let cull = if key.culled {
            self.cull.run(
                device,
                &CullInputs {
                    palette: frame.cull.clone(),
                    ..CullInputs::new(
                        crowd.asset,
                        buffers,
                        (n, key.timing),
                        &setup,
                        &opts,
                        self.multi_draw,
                    )
                },
            )
        } else {
            None
        };
        let run = self.palette.run(
            device,
            (crowd.asset, frame.palette, None),
            buffers,
            n,
            pk,
            cull.as_ref(),
            crowd.live,
        )?;
        let read = |size| read_buffer(device, "throng palette readback", size);
        let bytes = crate::passes::palette::palette_bytes(n as u64, crowd.asset.params.entries)
            .max(crate::passes::palette::PALETTE_ENTRY_BYTES);
        let palette_read = read(bytes);
        let mut enc = device.create_command_encoder(&Default::default());
        if let Some(c) = &cull {
            self.cull.encode(c, &mut enc);
        }
        self.palette.encode(&[&run], &mut enc, None);
        enc.copy_buffer_to_buffer(&run.palette, 0, &palette_read, 0, bytes);
        let lists = cull.as_ref().and_then(|c| c.palette.map(|l| (c, l)));
        let list_reads = lists.map(|(c, _)| {
            let ids = read(c.visible.size());
            let args = read(c.args.size());
            enc.copy_buffer_to_buffer(&c.visible, 0, &ids, 0, c.visible.size());
            enc.copy_buffer_to_buffer(&c.args, 0, &args, 0, c.args.size());
            (ids, args)
        });
        self.gpu.queue.submit([enc.finish()]);
        let entries: Vec<crate::gpu_types::PaletteEntry> =
            bytemuck::pod_collect_to_vec(&map_read(&self.gpu, &palette_read)?);
        let mut written: Vec<u32> = match (lists, list_reads) {
            (Some((_, l)), Some((ids, args))) => {
                let ids: Vec<u32> = bytemuck::pod_collect_to_vec(&map_read(&self.gpu, &ids)?);
                let words: Vec<u32> = bytemuck::pod_collect_to_vec(&map_read(&self.gpu, &args)?);
                let count = words.get(l.count_word as usize).copied().unwrap_or(0) as usize;
                let base = l.base as usize;
                ids.get(base..base + count.min(n as usize))
                    .unwrap_or(&[])
                    .to_vec()
            }
            _ => (0..n).collect(),
        };
        written.sort_unstable();
        Ok(Palettes {
            entries_per_instance: crowd.asset.params.entries,
            entries: entries
                .into_iter()
                .take(n as usize * crowd.asset.params.entries as usize)
                .collect(),
            written,
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
        let lists = self.cull_lists(&Crowd::new(asset, transforms, playback), opts)?;
        let mut v: Vec<u32> = lists.main.into_iter().flatten().collect();
        v.sort_unstable();
        Ok(v)
    }

    /// Draws CPU-skinned meshes (the reference path) with the same camera, light, shadows and
    /// ground as [`Renderer::render_scene`]; each mesh once per its transforms.
    pub fn render_reference(
        &mut self,
        meshes: &[ReferenceMesh],
        opts: &RenderOptions,
    ) -> Result<image::RgbaImage, RenderError> {
        self.check_size(opts)?;
        let device = &self.gpu.device;
        self.reference
            .prepare(device, &self.layouts, COLOR_FORMAT)?;
        self.main.prepare(
            device,
            &self.layouts,
            &self.reference.bgl,
            (COLOR_FORMAT, false),
        )?;
        let upload = self
            .reference
            .upload(device, &self.gpu.queue, &self.layouts, meshes)?;
        let shadow_map = self.shadow_map(opts);
        let device = &self.gpu.device;
        let depth = self.main.depth(device, opts.width, opts.height);
        let scene = opts.scene.unwrap_or(upload.bounds);
        let setup = FrameSetup::new(device, opts, (&scene, &scene), None);
        let group = self
            .reference
            .group(device, &upload.transforms, &setup.frame);
        let device = &self.gpu.device;
        let params = draw_params_buffer(device, (1, 0), opts, false, NO_FADE);
        let (draw_main, draw_shadow) = self.layouts.draw_groups(device, &params, &shadow_map, None);
        let target = OffscreenTarget::new(device, opts.width, opts.height);
        let mut enc = device.create_command_encoder(&Default::default());
        if opts.shadows {
            let mut pass = depth_pass(&mut enc, &shadow_map, "throng shadow pass");
            pass.set_bind_group(
                crate::bindings::group::DRAW,
                &draw_shadow,
                &[DRAW_PARAMS_STRIDE as u32],
            );
            self.reference.record(&mut pass, &upload, &group, None);
        }
        {
            let targets = crate::passes::main::MainTargets {
                color: &target.view,
                format: COLOR_FORMAT,
                depth: &depth,
                motion: None,
            };
            let mut pass =
                crate::passes::main::begin(&mut enc, targets, opts.background, MainPhase::Only);
            pass.set_bind_group(crate::bindings::group::DRAW, &draw_main, &[0]);
            if opts.ground {
                self.main
                    .record_ground(&mut pass, (COLOR_FORMAT, false), &group, &draw_main);
            }
            self.reference
                .record(&mut pass, &upload, &group, Some(COLOR_FORMAT));
        }
        let read = target.copy_out(device, &mut enc);
        self.gpu.queue.submit([enc.finish()]);
        target.read(&self.gpu, &read)
    }
}

/// A crowd's palette buffer read back ([`Renderer::palettes`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Palettes {
    /// Palette entries per instance (the asset's palette size).
    pub entries_per_instance: u32,
    /// Instance i's entry j at `i · entries_per_instance + j` ([`crate::gpu_types::PaletteEntry`];
    /// instances the pass did not write hold whatever the buffer held).
    pub entries: Vec<crate::gpu_types::PaletteEntry>,
    /// The instances the palette pass computed, ascending: every instance in view or casting a
    /// shadow (every instance without culling) but those with live poses, whose entries are the
    /// application's matrices.
    pub written: Vec<u32>,
}

/// One-call render of a baked asset: a device, an upload and a texture-path draw.
pub fn render_png(
    asset: &BakedAsset,
    transforms: &[InstanceTransform],
    records: &[InstanceRecord],
    opts: &RenderOptions,
) -> Result<image::RgbaImage, RenderError> {
    let mut r = Renderer::new()?;
    let g = r.upload(asset)?;
    r.render_texture(&g, transforms, records, opts)
}

/// Per LOD below `lods`, the index count of every primitive of `asset` summed, as the
/// argument entries count them (the far tier's level: one card; the downlevel mode lists no
/// instance there unless it draws cards).
fn lod_indices(asset: &GpuAsset, lods: u32) -> Vec<u64> {
    (0..lods)
        .map(|l| {
            (0..asset.primitives.len())
                .map(|p| crate::passes::far::entry_indices(asset, p, l).1 as u64)
                .sum()
        })
        .collect()
}
