//! Far tier draws (docs/design.md §5 "Far tier"), shared by the shadow and main passes: the
//! pipelines per (timing, colour format, motion), and per crowd whose asset has a far tier a
//! bind group and one indirect draw of cards per pass — the culling pass's list of the far
//! level, whose argument entry (primitive 0's, of that pass and level) counts six indices a
//! card. In the main pass a second, non-instanced draw of points shows the cards whose screen
//! box holds one pixel centre (`RenderOptions::far_dots`; the culling pass counts them in
//! their own entry and keeps them at the end of the far level's list). In the downlevel mode
//! (docs/downlevel.md) one plain instanced draw of cards per pass, of the CPU culling's far
//! list. Inputs: a culled crowd, its buffers and culling run (or its downlevel run) and the
//! frame. Output: draw calls recorded into a pass after the crowd's meshes.

use std::collections::HashMap;

use throng_contract::Timing;
use wgpu::util::DeviceExt;

use super::{groups, pipeline_of, pipeline_with, DrawLayouts};
use crate::bindings as b;
use crate::crowd::CrowdBuffers;
use crate::error::RenderError;
use crate::gpu_asset::GpuAsset;
use crate::gpu_types::{DrawIndexedArgs, DRAW_PARAMS_STRIDE};
use crate::layouts;
use crate::passes::cull::CullRun;
use crate::passes::downlevel::DownlevelRun;
use crate::passes::draw::PipelineKey;
use crate::shaders::Program;

/// Indices of one card (`throng_asset::gpu::far::CARD_INDICES`).
pub(crate) const CARD_INDICES: u32 = CARD.len() as u32;
const CARD: [u32; 6] = throng_asset::gpu::far::CARD_INDICES;

/// The indices (first, count) an argument entry of primitive `p` at LOD level `lod` of `asset`
/// draws: at the far tier's level a card for primitive 0 (six indices into the card's own index
/// buffer) and nothing for the others — the meshes never draw it — else the primitive's LOD
/// range. The culling pass's arguments and the downlevel mode's counts both follow it.
pub(crate) fn entry_indices(asset: &GpuAsset, p: usize, lod: u32) -> (u32, u32) {
    let far = asset.far.as_ref().is_some_and(|f| f.level == lod);
    if far {
        return throng_asset::gpu::far::entry_indices(p);
    }
    asset.primitives.get(p).map_or((0, 0), |p| p.lod(lod))
}

/// The crossfade words of the mesh and card draws of a crowd of `asset`
/// (`DrawParams::far_sphere`, `far_fade`): the tier's sphere, and its texel (the far level's
/// error), the LOD bias and the band in pixels — the culling pass's `far_share` arguments —
/// or zeros where nothing crossfades (no far tier, or not drawn).
pub(crate) fn fade_words(asset: &GpuAsset, opts: &crate::RenderOptions) -> super::FadeWords {
    match asset.far.as_ref().filter(|_| opts.far_tier) {
        Some(far) => [far.sphere, [far.error, opts.lod_bias, opts.far_band(), 0.0]],
        None => super::NO_FADE,
    }
}

/// A far pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct FarKey {
    pub timing: Timing,
    /// The colour target (None: the shadow pass).
    pub color: Option<wgpu::TextureFormat>,
    /// Motion vectors (colour passes of the full mode only).
    pub motion: bool,
    /// The downlevel mode's program ([`Program::FarDrawDownlevel`]).
    pub downlevel: bool,
}

impl FarKey {
    /// The key of the cards beside a crowd's mesh draw of `k`.
    pub fn of(k: &PipelineKey) -> Self {
        Self {
            timing: k.timing,
            color: k.color,
            motion: k.motion,
            downlevel: k.downlevel,
        }
    }

    /// The key of the pipeline that draws it: the shadow pass has no motion target, whatever
    /// the main pass writes, and the downlevel mode none at all.
    fn drawn(self) -> Self {
        Self {
            motion: self.motion && self.color.is_some() && !self.downlevel,
            ..self
        }
    }
}

/// The far tier's pipelines, their group 0 layouts (by timing and mode) and the card's index
/// buffer, built on first use.
#[derive(Default)]
pub(crate) struct FarDraws {
    bgl: HashMap<(Timing, bool), wgpu::BindGroupLayout>,
    pipelines: HashMap<FarKey, wgpu::RenderPipeline>,
    /// The one-pixel cards' point pipelines (colour passes only).
    dots: HashMap<FarKey, wgpu::RenderPipeline>,
    card: Option<wgpu::Buffer>,
}

/// One crowd's far draw this frame.
pub(crate) struct FarDraw {
    group: wgpu::BindGroup,
    /// The far tier's LOD level.
    level: u32,
}

impl FarDraws {
    /// Builds the pipelines of the cards beside a crowd's mesh draws of `keys` (main, shadow)
    /// if they do not exist yet.
    pub fn prepare_crowd(
        &mut self,
        device: &wgpu::Device,
        layouts: &DrawLayouts,
        (main, shadow): &(PipelineKey, Option<PipelineKey>),
    ) -> Result<(), RenderError> {
        for color in [main.color].into_iter().chain(shadow.map(|s| s.color)) {
            self.prepare(
                device,
                layouts,
                FarKey {
                    color,
                    ..FarKey::of(main)
                },
            )?;
        }
        Ok(())
    }

    /// Builds the pipeline of `key` if it does not exist yet.
    fn prepare(
        &mut self,
        device: &wgpu::Device,
        layouts: &DrawLayouts,
        key: FarKey,
    ) -> Result<(), RenderError> {
        let key = key.drawn();
        let FarKey {
            timing,
            color,
            motion,
            downlevel,
        } = key;
        if self.pipelines.contains_key(&key) {
            return Ok(());
        }
        if self.card.is_none() {
            self.card = Some(
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("throng far card"),
                    contents: bytemuck::cast_slice(&CARD),
                    usage: wgpu::BufferUsages::INDEX,
                }),
            );
        }
        let bgl = self
            .bgl
            .entry((timing, downlevel))
            .or_insert_with(|| match downlevel {
                true => layouts::far_draw_downlevel(device),
                false => layouts::far_draw(device, timing),
            });
        let program = match downlevel {
            true => Program::FarDrawDownlevel,
            false => Program::FarDraw { timing, motion },
        };
        let module = crate::pipelines::shader_module(device, program)?;
        let mode = if downlevel { " (downlevel)" } else { "" };
        let (pass, fs) = match (color, motion) {
            (None, _) => (" (shadow)", "fs_far_shadow"),
            (Some(_), true) => ("", "fs_far_motion"),
            (Some(_), false) => ("", "fs_far"),
        };
        let pipeline = pipeline_with(
            device,
            &format!("throng far draw{mode}{pass}"),
            &module,
            groups(bgl, None, None, layouts.draw(color)),
            &[],
            ("vs_far", fs),
            (color, motion),
            true,
        );
        self.pipelines.insert(key, pipeline);
        // The downlevel mode draws every card as a quad: its lists hold no one-pixel cards.
        if color.is_some() && !downlevel {
            let dots = pipeline_of(
                device,
                "throng far draw (one-pixel cards)",
                &module,
                (groups(bgl, None, None, layouts.draw(color)), &[]),
                (
                    "vs_far_dot",
                    if motion {
                        "fs_far_dot_motion"
                    } else {
                        "fs_far_dot"
                    },
                ),
                (color, motion),
                (true, wgpu::PrimitiveTopology::PointList),
            );
            self.dots.insert(key, dots);
        }
        Ok(())
    }

    /// The far draw of a crowd of `asset` whose cards are listed in `instances` (None when the
    /// asset has no far tier).
    pub fn crowd(
        &self,
        device: &wgpu::Device,
        asset: &GpuAsset,
        instances: FarInstances,
        frame: &wgpu::Buffer,
        timing: Timing,
    ) -> Result<Option<FarDraw>, RenderError> {
        let Some(far) = &asset.far else {
            return Ok(None);
        };
        let downlevel = matches!(instances, FarInstances::Downlevel(_));
        let bgl = self
            .bgl
            .get(&(timing, downlevel))
            .ok_or(RenderError::Internal(
                "far pipeline not built before the frame",
            ))?;
        let texture = |binding, view| wgpu::BindGroupEntry {
            binding,
            resource: wgpu::BindingResource::TextureView(view),
        };
        let mut entries = match instances {
            FarInstances::Culled(buffers, run) => {
                let mut e = buffers.skin_entries(asset, false);
                e.extend([
                    b::buffer_entry(b::VISIBLE_IDS, &run.visible),
                    b::buffer_entry(b::FAR_CLIPS, &far.clips),
                    b::buffer_entry(b::FAR_ROWS, &far.rows),
                    b::buffer_entry(b::FAR_RECTS, &far.rects),
                ]);
                e
            }
            FarInstances::Downlevel(run) => {
                let mut e = super::draw::downlevel_entries(asset, run, false);
                e.extend([
                    texture(b::FAR_CLIPS, &far.tables.clips),
                    texture(b::FAR_ROWS, &far.tables.rows),
                ]);
                e
            }
        };
        entries.extend([
            b::buffer_entry(b::FRAME, frame),
            texture(b::FAR_COLOUR, &far.colour),
            texture(b::FAR_SURFACE, &far.surface),
            b::buffer_entry(b::FAR_PARAMS, &far.params),
            texture(b::FAR_VARIANTS, &far.variants),
        ]);
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng far draw"),
            layout: bgl,
            entries: &entries,
        });
        Ok(Some(FarDraw {
            group,
            level: far.level,
        }))
    }

    /// Sets `key`'s pipeline, the crowd's group and its per-draw `entry` of `draw_group` and the
    /// card's index buffer; false where the pipeline was not built.
    fn begin(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        (draw, key): (&FarDraw, FarKey),
        draw_group: &wgpu::BindGroup,
        entry: u32,
    ) -> bool {
        let (Some(pipeline), Some(card)) = (self.pipelines.get(&key.drawn()), &self.card) else {
            return false;
        };
        pass.set_pipeline(pipeline);
        pass.set_bind_group(b::group::SKIN, &draw.group, &[]);
        pass.set_bind_group(
            b::group::DRAW,
            draw_group,
            &[(entry as u64 * DRAW_PARAMS_STRIDE) as u32],
        );
        pass.set_index_buffer(card.slice(..), wgpu::IndexFormat::Uint32);
        true
    }

    /// Records a crowd's cards of pass `pass_index` (0 main, 1 shadow, 2 occlusion culling's
    /// second phase) from `run`'s arguments; `draw_group`: that pass's group 3 (the per-draw
    /// uniform of (pass, far level) gives the list's start). Returns the draw calls recorded.
    pub fn record(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        (draw, key): (&FarDraw, FarKey),
        run: &CullRun,
        (pass_index, lods, prims): (u32, u32, u32),
        draw_group: &wgpu::BindGroup,
    ) -> u32 {
        if !self.begin(
            pass,
            (draw, key),
            draw_group,
            pass_index * lods + draw.level,
        ) {
            return 0;
        }
        // The counter of (pass, far level) is primitive 0's entry.
        let arg = (pass_index * prims * lods + draw.level) as u64;
        let arg_size = std::mem::size_of::<DrawIndexedArgs>() as u64;
        pass.draw_indexed_indirect(&run.args, arg * arg_size);
        // The one-pixel cards: their counter's words 1–4 are (vertices, 1 instance, 0, 0).
        let dots = self.dots.get(&key.drawn());
        let (Some(first), Some(dots), false) = (run.dots(), dots, pass_index == 1) else {
            return 1;
        };
        pass.set_pipeline(dots);
        pass.draw_indirect(&run.args, (first + pass_index) as u64 * arg_size + 4);
        2
    }

    /// Records a downlevel crowd's cards of pass `pass_index` (0 main, 1 shadow): one instanced
    /// draw of the far level's list, which starts at its per-draw uniform's `id_base`. Returns
    /// the draw calls recorded.
    pub fn record_downlevel(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        (draw, key): (&FarDraw, FarKey),
        run: &DownlevelRun,
        pass_index: u32,
        draw_group: &wgpu::BindGroup,
    ) -> u32 {
        let (_, count) = run.list(pass_index, draw.level);
        if count == 0
            || !self.begin(
                pass,
                (draw, key),
                draw_group,
                pass_index * run.lods + draw.level,
            )
        {
            return 0;
        }
        pass.draw_indexed(0..CARD_INDICES, 0, 0..count);
        1
    }
}

/// Where a crowd's cards find their instances.
pub(crate) enum FarInstances<'a> {
    /// The culling pass's far list: the crowd's buffers and its culling run.
    Culled(&'a CrowdBuffers, &'a CullRun),
    /// The downlevel mode's data texture (its CPU culling's lists).
    Downlevel(&'a DownlevelRun),
}
