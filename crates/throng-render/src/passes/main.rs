//! The main pass: the ground and the crowds into the colour target, lit by the directional
//! light and shadowed by the shadow map; with occlusion culling in two phases (docs/design.md
//! §5), the second drawn on top of the first after the depth pyramid. Inputs: the crowds' draws
//! (culled against the view), the frame, the shadow map. Output: the colour target (and, after
//! a first phase, its depth).

use std::collections::HashMap;

use super::draw::{CrowdDraw, SkinnedDraws};
use super::{groups, mesh_pipeline, DrawLayouts};
use crate::bindings as b;
use crate::error::RenderError;
use crate::options::DEPTH_FORMAT;
use crate::shaders::Program;
use crate::target::CachedTarget;

/// The main pass: its depth and motion vector targets (kept between frames) and the ground's
/// pipelines per (colour format, with motion vectors).
#[derive(Default)]
pub(crate) struct MainPass {
    depth: CachedTarget,
    motion: CachedTarget,
    ground: HashMap<(wgpu::TextureFormat, bool), wgpu::RenderPipeline>,
}

/// The ground's bind groups of a frame (group 0: frame uniform; group 3: a per-draw uniform
/// and the shadow map).
#[derive(Clone, Copy)]
pub(crate) struct GroundDraw<'a> {
    pub frame_group: &'a wgpu::BindGroup,
    pub draw_group: &'a wgpu::BindGroup,
}

/// Which part of the main pass a render pass draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MainPhase {
    /// The whole main pass (no occlusion culling).
    Only,
    /// Occlusion culling's first phase: clears, draws, keeps the depth for the pyramid.
    First,
    /// The second phase: draws on top of the first phase's colour and depth.
    Second,
}

/// The main pass's render targets: colour, depth and (with motion vectors) the motion target.
#[derive(Clone, Copy)]
pub(crate) struct MainTargets<'a> {
    pub color: &'a wgpu::TextureView,
    pub format: wgpu::TextureFormat,
    pub depth: &'a wgpu::TextureView,
    pub motion: Option<&'a wgpu::TextureView>,
}

/// The main pass's render pass: colour cleared to `background` (linear RGBA), motion vectors
/// to 0, depth to the far plane — or, in the second phase, all kept.
pub(crate) fn begin<'e>(
    enc: &'e mut wgpu::CommandEncoder,
    targets: MainTargets,
    background: [f32; 4],
    phase: MainPhase,
) -> wgpu::RenderPass<'e> {
    let bg = background.map(f64::from);
    let second = phase == MainPhase::Second;
    let attachment = |view, clear: [f64; 4]| {
        Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: if second {
                    wgpu::LoadOp::Load
                } else {
                    wgpu::LoadOp::Clear(wgpu::Color {
                        r: clear[0],
                        g: clear[1],
                        b: clear[2],
                        a: clear[3],
                    })
                },
                store: wgpu::StoreOp::Store,
            },
        })
    };
    let mut color_attachments = vec![attachment(targets.color, bg)];
    if let Some(m) = targets.motion {
        color_attachments.push(attachment(m, [0.0; 4]));
    }
    let depth = targets.depth;
    enc.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("throng main pass"),
        color_attachments: &color_attachments,
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: depth,
            depth_ops: Some(wgpu::Operations {
                load: if second {
                    wgpu::LoadOp::Load
                } else {
                    wgpu::LoadOp::Clear(1.0)
                },
                store: if phase == MainPhase::First {
                    wgpu::StoreOp::Store
                } else {
                    wgpu::StoreOp::Discard
                },
            }),
            stencil_ops: None,
        }),
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

impl MainPass {
    /// Builds the ground pipeline for `format` (`motion`: also writing motion vectors) if it
    /// does not exist yet (its group 0 is the reference draw's: transforms and the frame).
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        layouts: &DrawLayouts,
        frame_bgl: &wgpu::BindGroupLayout,
        (format, motion): (wgpu::TextureFormat, bool),
    ) -> Result<(), RenderError> {
        if self.ground.contains_key(&(format, motion)) {
            return Ok(());
        }
        let module = crate::pipelines::shader_module(device, Program::Ground { motion })?;
        let fs = if motion {
            "fs_ground_motion"
        } else {
            "fs_ground"
        };
        let p = mesh_pipeline(
            device,
            "throng ground",
            &module,
            groups(frame_bgl, None, None, &layouts.draw_main),
            &[],
            ("vs_ground", fs),
            (Some(format), motion),
        );
        self.ground.insert((format, motion), p);
        Ok(())
    }

    /// The motion vector target of `width` × `height` ([`crate::MOTION_FORMAT`]).
    pub fn motion(&mut self, device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
        self.motion.view(
            device,
            "throng motion vectors",
            (width, height),
            crate::options::MOTION_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
        )
    }

    /// The motion vector target the last frame with motion vectors wrote.
    pub fn motion_target(&self) -> Option<(&wgpu::Texture, &wgpu::TextureView)> {
        self.motion.made()
    }

    /// The depth target of `width` × `height` (the depth pyramid's build reads it).
    pub fn depth(&mut self, device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
        self.depth.view(
            device,
            "throng depth target",
            (width, height),
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        )
    }

    /// Records the ground into a main pass of `format` (with `motion` vectors or not; one draw;
    /// 0 if its pipeline is missing).
    pub fn record_ground(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        format: (wgpu::TextureFormat, bool),
        frame_group: &wgpu::BindGroup,
        draw_group: &wgpu::BindGroup,
    ) -> u32 {
        let Some(p) = self.ground.get(&format) else {
            return 0;
        };
        pass.set_pipeline(p);
        pass.set_bind_group(b::group::SKIN, frame_group, &[]);
        pass.set_bind_group(b::group::DRAW, draw_group, &[0]);
        pass.draw(0..6, 0..1);
        1
    }

    /// Records a phase of the main pass into `targets`: the ground (when given, not in the
    /// second phase) and every crowd's instances of the phase; returns the draw calls.
    #[allow(clippy::too_many_arguments)]
    pub fn encode(
        &self,
        enc: &mut wgpu::CommandEncoder,
        targets: MainTargets,
        background: [f32; 4],
        ground: Option<GroundDraw>,
        crowds: &[CrowdDraw],
        draws: &SkinnedDraws,
        multi_draw: bool,
        phase: MainPhase,
    ) -> u32 {
        let mut pass = begin(enc, targets, background, phase);
        let mut n = 0;
        if let Some(g) = ground.filter(|_| phase != MainPhase::Second) {
            let format = (targets.format, targets.motion.is_some());
            n += self.record_ground(&mut pass, format, g.frame_group, g.draw_group);
        }
        let pass_index = if phase == MainPhase::Second { 2 } else { 0 };
        for cd in crowds {
            n += draws.record(&mut pass, cd, pass_index, multi_draw);
        }
        n
    }
}
