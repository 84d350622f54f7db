//! The culling pass (docs/design.md §5): per crowd, `cs_cull` tests every instance against the
//! view frustum and the shadow camera, picks its LOD and appends its id to its (pass, LOD)
//! list; `cs_cull_finish` copies the counts into every primitive's indirect draw arguments.
//! Inputs: the crowd's buffers and the frame's cameras. Outputs: a [`CullRun`] — the visible-id
//! lists and the indirect arguments the shadow and main passes draw with.

use std::collections::HashMap;

use glam::{Mat4, Vec3};
use throng_contract::Timing;
use wgpu::util::DeviceExt;

use crate::bindings as b;
use crate::crowd::CrowdBuffers;
use crate::error::RenderError;
use crate::frame::FrameSetup;
use crate::gpu_asset::{GpuAsset, MAX_LODS};
use crate::gpu_types::{CullParams, DrawIndexedArgs};
use crate::layouts;
use crate::options::RenderOptions;
use crate::passes::occlusion::PyramidFrame;
use crate::shaders::Program;

/// Instance ids the culling pass kept, per LOD level, ascending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CullLists {
    /// Seen by the main camera.
    pub main: Vec<Vec<u32>>,
    /// Inside the shadow camera (casters; empty without shadows).
    pub shadow: Vec<Vec<u32>>,
    /// Of the main camera's far-tier level, the cards drawn as one point (their screen box
    /// holds one pixel centre; [`crate::RenderOptions::far_dots`]).
    pub dots: Vec<u32>,
}

struct CullPipelines {
    bgl: wgpu::BindGroupLayout,
    cull: wgpu::ComputePipeline,
    finish: wgpu::ComputePipeline,
}

/// The culling pass: its pipelines per (playback timing, occlusion culling) and occlusion
/// culling's second phase, built on first use.
#[derive(Default)]
pub(crate) struct CullPass {
    pipelines: HashMap<(Timing, bool), CullPipelines>,
    late: Option<CullPipelines>,
}

/// One crowd's culling run: what the draws of this frame read.
pub(crate) struct CullRun {
    bind: wgpu::BindGroup,
    /// Occlusion culling's second phase.
    late_bind: Option<wgpu::BindGroup>,
    timing: Timing,
    /// With occlusion culling: pass 2 holds the second phase's instances.
    pub occlusion: bool,
    /// Visible ids of (pass, LOD) at `(pass · lods + LOD) · segment` (with occlusion culling,
    /// followed by the history, one word per instance).
    pub visible: wgpu::Buffer,
    /// `DrawIndexedIndirect` arguments, [pass][primitive][LOD].
    pub args: wgpu::Buffer,
    pub instances: u32,
    /// Lists per LOD: 2 (main, shadow), 3 with occlusion culling.
    pub passes: u32,
    /// Indirect argument entries: passes × LODs × primitives.
    pub entries: u32,
    pub segment: u32,
    /// The palette path: the culling pass's palette list (docs/design.md §5).
    pub palette: Option<PaletteList>,
    /// One-pixel cards are listed (`RenderOptions::far_tier` and `far_dots`, on an asset with a
    /// far tier): the arguments end with their counter per pass ([`CullRun::dots`]).
    pub far: bool,
}

/// Where the culling pass leaves the palette path's list of instances to write: its first word
/// in [`CullRun::visible`], the word of [`CullRun::args`] holding its length, and the byte
/// offset of the palette pass's indirect dispatch arguments in `args`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PaletteList {
    pub base: u32,
    pub count_word: u32,
    pub dispatch_offset: u64,
}

/// What occlusion culling adds to a crowd's culling run.
pub(crate) struct OcclusionInputs<'a> {
    /// The crowd's visible-id buffer with last frame's history, [`visible_bytes`] long, and
    /// its buffer of boxes (32 B per instance;
    /// [`crate::passes::occlusion::OcclusionPass::crowd_buffers`]).
    pub visible: wgpu::Buffer,
    pub boxes: wgpu::Buffer,
    pub pyramid: &'a PyramidFrame,
}

/// The rules a culling run applies, from [`RenderOptions`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct CullRules {
    pub lod_bias: f32,
    /// Boxes from the rows shown (else from the clips).
    pub row_bounds: bool,
    pub shadow_lod: crate::ShadowLod,
    /// List far instances under the far tier's level (`RenderOptions::far_tier`).
    pub far_tier: bool,
    /// The far tier's crossfade band, pixels (`RenderOptions::far_band`).
    pub far_band: f32,
    /// Draw a card whose screen box holds one pixel centre as one point
    /// (`RenderOptions::far_dots`).
    pub far_dots: bool,
}

impl CullRules {
    pub fn of(opts: &RenderOptions) -> CullRules {
        CullRules {
            lod_bias: opts.lod_bias,
            row_bounds: opts.row_bounds,
            shadow_lod: opts.shadow_lod,
            far_tier: opts.far_tier,
            far_band: opts.far_band(),
            far_dots: opts.far_dots,
        }
    }
}

/// What one crowd's culling needs besides its buffers.
pub(crate) struct CullInputs<'a> {
    pub asset: &'a GpuAsset,
    pub buffers: &'a CrowdBuffers,
    pub instances: u32,
    pub timing: Timing,
    pub setup: &'a FrameSetup,
    pub rules: CullRules,
    /// Lay the arguments out for multi-draws with first instances.
    pub multi_draw: bool,
    /// Occlusion culling (two phases a frame), or frustum only.
    pub occlusion: Option<OcclusionInputs<'a>>,
    /// The palette path: also list every instance in view or casting a shadow whose palette
    /// is computed this frame, once.
    pub palette: Option<PaletteCull>,
}

impl<'a> CullInputs<'a> {
    /// Frustum culling (no occlusion culling, no palette list) of `instances` instances of
    /// `asset` played with `timing`, with `opts`' LOD and box settings.
    pub fn new(
        asset: &'a GpuAsset,
        buffers: &'a CrowdBuffers,
        (instances, timing): (u32, Timing),
        setup: &'a FrameSetup,
        opts: &RenderOptions,
        multi_draw: bool,
    ) -> CullInputs<'a> {
        CullInputs {
            asset,
            buffers,
            instances,
            timing,
            setup,
            rules: CullRules::of(opts),
            multi_draw,
            occlusion: None,
            palette: None,
        }
    }
}

/// What the palette path adds to a crowd's culling run (docs/design.md §5 "Update-rate LOD").
#[derive(Debug, Clone)]
pub(crate) struct PaletteCull {
    /// Without occlusion culling: the crowd's visible-id buffer kept across frames (its
    /// palette state words must outlive the frame); None: a new one.
    pub visible: Option<wgpu::Buffer>,
    /// This frame's number (`throng_contract::next_palette_frame`).
    pub frame: u32,
    /// Refresh interval per LOD (`RenderOptions::palette_refresh`).
    pub refresh: [u32; 4],
}

/// Ids per (pass, LOD) list of `instances`: rounded up to 64 so that every list starts 256 B
/// aligned.
pub(crate) fn segment(instances: u32) -> u32 {
    instances.div_ceil(64).max(1) * 64
}

/// Bytes of a crowd's visible-id buffer: `passes` × `lods` lists of [`segment`] ids, with
/// occlusion culling (3 passes) the history, a word per instance, and on the palette path the
/// palette list (one more segment) and the palette state words (one per instance, kept across
/// frames: [`palette_state_base`]).
pub(crate) fn visible_bytes(instances: u32, lods: u32, passes: u32, palette: bool) -> u64 {
    let tail = segment(instances) as u64 + instances as u64;
    4 * (palette_base(instances, lods, passes) as u64 + palette as u64 * tail)
}

/// The first palette state word (`throng_contract::live`) in the visible-id buffer.
pub(crate) fn palette_state_base(instances: u32, lods: u32, passes: u32) -> u32 {
    palette_base(instances, lods, passes) + segment(instances)
}

/// The first word after the lists and the history: where the palette list starts.
fn palette_base(instances: u32, lods: u32, passes: u32) -> u32 {
    let history = if passes > 2 { instances } else { 0 };
    passes * lods * segment(instances) + history
}

/// Margin of a frame-table row's box in culling, as a fraction of the asset's bounding
/// diagonal (see `CullParams::row_pad`; one value for every embedding).
pub use throng_asset::gpu::cull::ROW_PAD;

/// A new (zeroed) visible-id buffer of `bytes`.
pub(crate) fn visible_buffer(device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
    crate::passes::occlusion::zeroed(
        device,
        "throng visible instances",
        bytes,
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
    )
}

/// The sizes of one crowd's culling run: instances, LODs, primitives, lists per LOD (2, or 3
/// with occlusion culling) and ids per list.
#[derive(Clone, Copy)]
struct ListShape {
    instances: u32,
    lods: u32,
    prims: u32,
    passes: u32,
    segment: u32,
}

impl ListShape {
    fn of(input: &CullInputs) -> ListShape {
        ListShape {
            instances: input.instances,
            lods: input.asset.lod_count(),
            prims: input.asset.primitives.len().max(1) as u32,
            passes: 2 + input.occlusion.is_some() as u32,
            segment: segment(input.instances),
        }
    }
}

/// The culling program's parameters for one crowd's run.
fn cull_params(input: &CullInputs, shape: &ListShape) -> CullParams {
    params_of(
        input.asset,
        input.setup,
        input.rules,
        input.palette.as_ref(),
        shape,
    )
}

/// The parameters of a frustum-only run (no occlusion culling, no palette list) of
/// `instances` instances of `asset` with `opts`' LOD and box rules: what the GPU pass reads
/// and what the downlevel mode's CPU culling (`passes::cpu_cull`) evaluates.
pub(crate) fn frustum_params(
    asset: &GpuAsset,
    instances: u32,
    setup: &FrameSetup,
    opts: &RenderOptions,
) -> CullParams {
    let shape = ListShape {
        instances,
        lods: asset.lod_count(),
        prims: asset.primitives.len().max(1) as u32,
        passes: 2,
        segment: segment(instances),
    };
    params_of(asset, setup, CullRules::of(opts), None, &shape)
}

/// [`cull_params`] from its pieces. With the far tier not drawn its level's error is never
/// within the bias and its level is given as 0, so no instance joins its list or crossfades.
fn params_of(
    asset: &GpuAsset,
    setup: &FrameSetup,
    rules: CullRules,
    palette: Option<&PaletteCull>,
    shape: &ListShape,
) -> CullParams {
    let ListShape {
        instances: n,
        lods,
        prims,
        passes,
        segment,
    } = *shape;
    let bounds = &asset.bounds;
    let (lo, hi) = if bounds.is_empty() {
        (Vec3::splat(-f32::MAX), Vec3::splat(f32::MAX))
    } else {
        (bounds.min, bounds.max)
    };
    let mut lod_error = [0.0f32; MAX_LODS];
    for (d, s) in lod_error.iter_mut().zip(&asset.lod_errors) {
        *d = *s;
    }
    let CullRules {
        lod_bias,
        row_bounds,
        shadow_lod,
        far_tier,
        far_band,
        far_dots,
    } = rules;
    if let Some(far) = asset.far.as_ref().filter(|_| !far_tier) {
        lod_error[far.level as usize] = f32::MAX;
    }
    CullParams {
        planes: crate::camera::frustum_planes(&setup.view_proj).map(|p| p.to_array()),
        shadow_planes: crate::camera::frustum_planes(
            &setup.shadow.map_or(Mat4::IDENTITY, |s| s.view_proj),
        )
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
        lod_bias,
        shadows: setup.shadow.is_some() as u32,
        row_pad: ROW_PAD * bounds.diagonal().max(0.0),
        row_bounds: row_bounds as u32,
        shadow_lod: [
            setup
                .shadow
                .map_or(0.0, |s| 1.0 / s.texel.max(f32::MIN_POSITIVE)),
            match shadow_lod {
                crate::ShadowLod::Texel => 0.0,
                crate::ShadowLod::Lowest => 1.0,
                crate::ShadowLod::Main => 2.0,
            },
            0.0,
            0.0,
        ],
        pass_count: passes,
        history_base: passes * lods * segment,
        palette_base: if palette.is_some() {
            palette_base(n, lods, passes)
        } else {
            0
        },
        palette_state: palette_state_base(n, lods, passes),
        frame: palette.map_or(0, |p| p.frame),
        far_level: asset
            .far
            .as_ref()
            .filter(|_| far_tier)
            .map_or(0, |f| f.level),
        far_diameter: asset.far.as_ref().map_or(0.0, |f| f.diameter),
        far_band,
        refresh: palette.map_or([1; 4], |p| p.refresh),
        view_proj: setup.view_proj.to_cols_array_2d(),
        viewport: [
            setup.size.x,
            setup.size.y,
            (far_dots && far_tier && asset.far.is_some()) as u32 as f32,
            0.0,
        ],
        far_sphere: asset.far.as_ref().map_or([0.0; 4], |f| f.sphere),
    }
}

/// The indirect draw arguments, [pass][primitive][LOD]: a primitive's LODs are contiguous for
/// multi-draws, whose first instance points the instance index at the (pass, LOD) list.
fn draw_args(input: &CullInputs, shape: &ListShape) -> Vec<DrawIndexedArgs> {
    let ListShape {
        lods,
        prims,
        passes,
        segment,
        ..
    } = *shape;
    let mut args = Vec::with_capacity((passes * lods * prims) as usize);
    for pass_index in 0..passes {
        for p in 0..prims as usize {
            for lod in 0..lods {
                let (first_index, index_count) =
                    crate::passes::far::entry_indices(input.asset, p, lod);
                args.push(DrawIndexedArgs {
                    index_count,
                    first_index,
                    first_instance: if input.multi_draw {
                        (pass_index * lods + lod) * segment
                    } else {
                        0
                    },
                    ..Default::default()
                });
            }
        }
    }
    args
}

/// The culling pass's bind group: the crowd's skin bindings (no bone texture), `lists` (the
/// parameters, the visible ids, the arguments), the row bounds and, with occlusion culling,
/// the boxes.
fn cull_bind_group(
    device: &wgpu::Device,
    bgl: &wgpu::BindGroupLayout,
    input: &CullInputs,
    lists: &[(u32, &wgpu::Buffer); 3],
) -> wgpu::BindGroup {
    let mut entries = input.buffers.skin_entries(input.asset, false);
    entries.extend(lists.map(|(binding, buf)| b::buffer_entry(binding, buf)));
    entries.push(b::buffer_entry(
        b::ROW_BOUNDS,
        &input.asset.row_bounds_buffer,
    ));
    if let Some(o) = &input.occlusion {
        entries.push(b::buffer_entry(b::CULL_BOXES, &o.boxes));
    }
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("throng cull"),
        layout: bgl,
        entries: &entries,
    })
}

/// Occlusion culling's second phase's bind group: `lists`, the boxes and the depth pyramid.
fn late_bind_group(
    device: &wgpu::Device,
    bgl: &wgpu::BindGroupLayout,
    o: &OcclusionInputs,
    lists: &[(u32, &wgpu::Buffer); 3],
) -> wgpu::BindGroup {
    let mut entries: Vec<_> = lists
        .map(|(binding, buf)| b::buffer_entry(binding, buf))
        .into();
    entries.extend([
        b::buffer_entry(b::CULL_BOXES, &o.boxes),
        b::buffer_entry(b::PYRAMID_PARAMS, &o.pyramid.params),
        b::buffer_entry(b::PYRAMID, &o.pyramid.texels),
    ]);
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("throng occlusion"),
        layout: bgl,
        entries: &entries,
    })
}

impl CullPass {
    /// Builds the pipelines of `timing` (with or without occlusion culling) if they do not
    /// exist yet.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        timing: Timing,
        occlusion: bool,
    ) -> Result<(), RenderError> {
        if self.pipelines.contains_key(&(timing, occlusion)) {
            return Ok(());
        }
        let bgl = layouts::cull_compute(device, timing, occlusion);
        let program = Program::Cull { timing, occlusion };
        let pipeline = |entry| crate::pipelines::compute_pipeline(device, program, &bgl, entry);
        let cull = pipeline("cs_cull")?;
        let finish = pipeline("cs_cull_finish")?;
        self.pipelines
            .insert((timing, occlusion), CullPipelines { bgl, cull, finish });
        if occlusion && self.late.is_none() {
            let bgl = layouts::occlusion_compute(device);
            let pipeline =
                |entry| crate::pipelines::compute_pipeline(device, Program::Occlusion, &bgl, entry);
            let cull = pipeline("cs_occlusion")?;
            let finish = pipeline("cs_occlusion_finish")?;
            self.late = Some(CullPipelines { bgl, cull, finish });
        }
        Ok(())
    }

    /// Buffers and bind group of one crowd's culling run (None before [`Self::prepare`]).
    pub fn run(&self, device: &wgpu::Device, input: &CullInputs) -> Option<CullRun> {
        let occlusion = input.occlusion.is_some();
        let cp = self.pipelines.get(&(input.timing, occlusion))?;
        let shape = ListShape::of(input);
        let params = cull_params(input, &shape);
        let params_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng cull params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let kept = input.palette.as_ref().and_then(|p| p.visible.clone());
        let visible = match (&input.occlusion, kept) {
            (Some(o), _) => o.visible.clone(),
            (None, Some(v)) => v,
            (None, None) => visible_buffer(
                device,
                visible_bytes(
                    shape.instances,
                    shape.lods,
                    shape.passes,
                    input.palette.is_some(),
                ),
            ),
        };
        let mut args = draw_args(input, &shape);
        let draw_entries = args.len() as u32;
        // One-pixel cards are listed (viewport z) where the far tier is drawn with them.
        let far = params.viewport[2] == 1.0;
        // The palette list's counter, then the palette pass's dispatch (written by
        // cs_cull_finish); unused but present before the far tier's point counters.
        if input.palette.is_some() || far {
            args.extend([DrawIndexedArgs::default(); 2]);
        }
        // Per pass, the one-pixel cards' counter (cs_cull's append_dot), read from its second
        // word as a non-indexed draw of that many vertices and `first_index` (1) instances.
        if far {
            args.extend((0..shape.passes).map(|_| DrawIndexedArgs {
                first_index: 1,
                ..Default::default()
            }));
        }
        let palette = input.palette.is_some().then(|| {
            let words = (std::mem::size_of::<DrawIndexedArgs>() / 4) as u32;
            PaletteList {
                base: params.palette_base,
                // instance_count is the second word of an entry.
                count_word: draw_entries * words + 1,
                dispatch_offset: (draw_entries as u64 + 1)
                    * std::mem::size_of::<DrawIndexedArgs>() as u64,
            }
        });
        let args_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng draw arguments"),
            contents: bytemuck::cast_slice(&args),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::INDIRECT
                | wgpu::BufferUsages::COPY_SRC,
        });
        // What both phases bind: the parameters, the lists, the arguments.
        let lists = [
            (b::CULL_PARAMS, &params_buf),
            (b::VISIBLE_IDS, &visible),
            (b::DRAW_ARGS, &args_buf),
        ];
        let bind = cull_bind_group(device, &cp.bgl, input, &lists);
        let late_bind = match (&input.occlusion, &self.late) {
            (Some(o), Some(late)) => Some(late_bind_group(device, &late.bgl, o, &lists)),
            _ => None,
        };
        Some(CullRun {
            bind,
            late_bind,
            timing: input.timing,
            occlusion,
            visible,
            args: args_buf,
            instances: shape.instances,
            passes: shape.passes,
            entries: draw_entries,
            segment: shape.segment,
            palette,
            far,
        })
    }

    /// Records a run's two dispatches (with occlusion culling, its first phase).
    pub fn encode(&self, run: &CullRun, enc: &mut wgpu::CommandEncoder) -> u32 {
        self.dispatch(run, enc, false)
    }

    /// Records occlusion culling's second phase of a run (after the depth pyramid is built);
    /// nothing for a run without occlusion culling.
    pub fn encode_late(&self, run: &CullRun, enc: &mut wgpu::CommandEncoder) -> u32 {
        if !run.occlusion {
            return 0;
        }
        self.dispatch(run, enc, true)
    }

    fn dispatch(&self, run: &CullRun, enc: &mut wgpu::CommandEncoder, late: bool) -> u32 {
        let (cp, bind) = if late {
            match (&self.late, &run.late_bind) {
                (Some(cp), Some(bind)) => (cp, bind),
                _ => return 0,
            }
        } else {
            match self.pipelines.get(&(run.timing, run.occlusion)) {
                Some(cp) => (cp, &run.bind),
                None => return 0,
            }
        };
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_bind_group(b::group::SKIN, bind, &[]);
        pass.set_pipeline(&cp.cull);
        pass.dispatch_workgroups(run.instances.div_ceil(64).max(1), 1, 1);
        pass.set_pipeline(&cp.finish);
        pass.dispatch_workgroups(run.entries.div_ceil(64).max(1), 1, 1);
        2
    }
}

impl CullRun {
    /// With one-pixel cards listed: the argument entry counting pass 0's (pass p's is this +
    /// p), after the palette list's two; the cards are kept at the end of the far level's list
    /// (`RenderOptions::far_dots`).
    pub fn dots(&self) -> Option<u32> {
        self.far.then_some(self.entries + 2)
    }

    /// The argument entries a frame's figures read: the draws' and, on the palette path, the
    /// palette list's counter; with a far tier, through the one-pixel cards' counters.
    pub fn counted_entries(&self) -> u32 {
        match self.dots() {
            Some(first) => first + self.passes,
            None => self.entries + self.palette.is_some() as u32,
        }
    }

    /// The lists a run kept, from its visible ids and arguments read back.
    pub fn lists(
        &self,
        ids: &[u32],
        args: &[DrawIndexedArgs],
        lods: usize,
        prims: usize,
        shadows: bool,
    ) -> CullLists {
        let segment = self.segment as usize;
        let list = |group: usize| {
            // The counter of (pass, LOD) is the entry of primitive 0.
            let (pass_index, lod) = (group / lods, group % lods);
            let counter = pass_index * prims * lods + lod;
            let count = args.get(counter).map_or(0, |a| a.instance_count) as usize;
            let start = group * segment;
            let mut v = ids
                .get(start..start + count.min(segment))
                .unwrap_or(&[])
                .to_vec();
            v.sort_unstable();
            v
        };
        // A pass's one-pixel cards: from the end of its far level's (the last) list down.
        let dots_of = |pass_index: usize| {
            let Some(first) = self.dots() else {
                return Vec::new();
            };
            let count = args
                .get(first as usize + pass_index)
                .map_or(0, |a| a.instance_count) as usize;
            let end = (pass_index + 1) * lods * segment;
            let count = count.min(segment).min(end);
            ids.get(end - count..end).unwrap_or(&[]).to_vec()
        };
        let mut dots = dots_of(0);
        if self.passes > 2 {
            dots.extend(dots_of(2));
        }
        dots.sort_unstable();
        CullLists {
            // With occlusion culling, the main view's instances are both phases'; the far
            // level's include its one-pixel cards.
            main: (0..lods)
                .map(|l| {
                    let mut v = list(l);
                    if self.passes > 2 {
                        v.extend(list(2 * lods + l));
                    }
                    if l + 1 == lods {
                        v.extend(&dots);
                    }
                    v.sort_unstable();
                    v
                })
                .collect(),
            shadow: if shadows {
                (lods..2 * lods).map(list).collect()
            } else {
                Vec::new()
            },
            dots,
        }
    }
}
