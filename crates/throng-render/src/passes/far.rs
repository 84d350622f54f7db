//! Far tier draws (docs/design.md §5 "Far tier"), shared by the shadow and main passes: the
//! pipelines per (timing, colour format, motion), and per crowd whose asset has a far tier a
//! bind group and one indirect draw of cards per pass — the culling pass's list of the far
//! level, whose argument entry (primitive 0's, of that pass and level) counts six indices a
//! card. In the main pass a second, non-instanced draw of points shows the cards whose screen
//! box holds one pixel centre (`RenderOptions::far_dots`; the culling pass counts them in
//! their own entry and keeps them at the end of the far level's list). Inputs: a culled crowd,
//! its buffers, its culling run and the frame. Output: draw calls recorded into a pass after
//! the crowd's meshes.

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
use crate::shaders::Program;

/// Indices of one card: two triangles over its four corners (vertex index bit 0: right, bit
/// 1: top).
pub(crate) const CARD_INDICES: u32 = 6;
const CARD: [u32; CARD_INDICES as usize] = [0, 1, 2, 2, 1, 3];

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

/// A far pipeline: its timing, its colour target (None: the shadow pass) and motion vectors.
type FarKey = (Timing, Option<wgpu::TextureFormat>, bool);

/// The far tier's pipelines, their group 0 layouts and the card's index buffer, built on first
/// use.
#[derive(Default)]
pub(crate) struct FarDraws {
    bgl: HashMap<Timing, wgpu::BindGroupLayout>,
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
    /// Builds the pipeline of cards played with `timing` into a pass of `color` (None: the
    /// shadow pass), with `motion` vectors, if it does not exist yet.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        layouts: &DrawLayouts,
        (timing, color, motion): FarKey,
    ) -> Result<(), RenderError> {
        // The shadow pass's pipeline has no motion target, whatever the main pass writes.
        let motion = motion && color.is_some();
        if self.pipelines.contains_key(&(timing, color, motion)) {
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
            .entry(timing)
            .or_insert_with(|| layouts::far_draw(device, timing));
        let module = crate::pipelines::shader_module(device, Program::FarDraw { timing, motion })?;
        let (pass, fs) = match (color, motion) {
            (None, _) => (" (shadow)", "fs_far_shadow"),
            (Some(_), true) => ("", "fs_far_motion"),
            (Some(_), false) => ("", "fs_far"),
        };
        let pipeline = pipeline_with(
            device,
            &format!("throng far draw{pass}"),
            &module,
            groups(bgl, None, None, layouts.draw(color)),
            &[],
            ("vs_far", fs),
            (color, motion),
            true,
        );
        self.pipelines.insert((timing, color, motion), pipeline);
        if color.is_some() {
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
            self.dots.insert((timing, color, motion), dots);
        }
        Ok(())
    }

    /// The far draw of a culled crowd of `asset` (None when the asset has no far tier).
    pub fn crowd(
        &self,
        device: &wgpu::Device,
        asset: &GpuAsset,
        buffers: &CrowdBuffers,
        run: &CullRun,
        frame: &wgpu::Buffer,
        timing: Timing,
    ) -> Result<Option<FarDraw>, RenderError> {
        let Some(far) = &asset.far else {
            return Ok(None);
        };
        let bgl = self.bgl.get(&timing).ok_or(RenderError::Internal(
            "far pipeline not built before the frame",
        ))?;
        let mut entries = buffers.skin_entries(asset, false);
        entries.extend([
            b::buffer_entry(b::FRAME, frame),
            b::buffer_entry(b::VISIBLE_IDS, &run.visible),
            wgpu::BindGroupEntry {
                binding: b::FAR_COLOUR,
                resource: wgpu::BindingResource::TextureView(&far.colour),
            },
            wgpu::BindGroupEntry {
                binding: b::FAR_SURFACE,
                resource: wgpu::BindingResource::TextureView(&far.surface),
            },
            b::buffer_entry(b::FAR_PARAMS, &far.params),
            b::buffer_entry(b::FAR_CLIPS, &far.clips),
            b::buffer_entry(b::FAR_ROWS, &far.rows),
            wgpu::BindGroupEntry {
                binding: b::FAR_VARIANTS,
                resource: wgpu::BindingResource::TextureView(&far.variants),
            },
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

    /// Records a crowd's cards of pass `pass_index` (0 main, 1 shadow, 2 occlusion culling's
    /// second phase) from `run`'s arguments; `draw_group`: that pass's group 3 (the per-draw
    /// uniform of (pass, far level) gives the list's start). Returns the draw calls recorded.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        draw: &FarDraw,
        key: FarKey,
        run: &CullRun,
        (pass_index, lods, prims): (u32, u32, u32),
        draw_group: &wgpu::BindGroup,
    ) -> u32 {
        let (timing, color, motion) = key;
        let motion = motion && color.is_some();
        let (Some(pipeline), Some(card)) =
            (self.pipelines.get(&(timing, color, motion)), &self.card)
        else {
            return 0;
        };
        pass.set_pipeline(pipeline);
        pass.set_bind_group(b::group::SKIN, &draw.group, &[]);
        let entry = pass_index * lods + draw.level;
        pass.set_bind_group(
            b::group::DRAW,
            draw_group,
            &[(entry as u64 * DRAW_PARAMS_STRIDE) as u32],
        );
        pass.set_index_buffer(card.slice(..), wgpu::IndexFormat::Uint32);
        // The counter of (pass, far level) is primitive 0's entry.
        let arg = (pass_index * prims * lods + draw.level) as u64;
        let arg_size = std::mem::size_of::<DrawIndexedArgs>() as u64;
        pass.draw_indexed_indirect(&run.args, arg * arg_size);
        // The one-pixel cards: their counter's words 1–4 are (vertices, 1 instance, 0, 0).
        let dots = self.dots.get(&(timing, color, motion));
        let (Some(first), Some(dots), false) = (run.dots(), dots, pass_index == 1) else {
            return 1;
        };
        pass.set_pipeline(dots);
        pass.draw_indirect(&run.args, (first + pass_index) as u64 * arg_size + 4);
        2
    }
}
