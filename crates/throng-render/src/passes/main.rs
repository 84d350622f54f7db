//! The main pass: the ground and the crowds into the colour target, lit by the directional
//! light and shadowed by the shadow map. Inputs: the crowds' draws (culled against the view),
//! the frame, the shadow map. Output: the colour target.

use std::collections::HashMap;

use super::draw::{CrowdDraw, SkinnedDraws};
use super::{groups, mesh_pipeline, DrawLayouts};
use crate::bindings as b;
use crate::error::RenderError;
use crate::layouts;
use crate::options::DEPTH_FORMAT;
use crate::shaders::Program;
use crate::target::CachedTarget;

/// The main pass: its depth target (kept between frames) and the ground's pipelines per colour
/// format.
#[derive(Default)]
pub(crate) struct MainPass {
    depth: CachedTarget,
    ground: HashMap<wgpu::TextureFormat, wgpu::RenderPipeline>,
}

/// The ground's bind groups of a frame (group 0: frame uniform; group 3: a per-draw uniform
/// and the shadow map).
pub(crate) struct GroundDraw<'a> {
    pub frame_group: &'a wgpu::BindGroup,
    pub draw_group: &'a wgpu::BindGroup,
}

/// The main pass's render pass: colour cleared to `background` (linear RGBA), depth to the far
/// plane.
pub(crate) fn begin<'e>(
    enc: &'e mut wgpu::CommandEncoder,
    color: &wgpu::TextureView,
    depth: &wgpu::TextureView,
    background: [f32; 4],
) -> wgpu::RenderPass<'e> {
    let bg = background.map(f64::from);
    enc.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("throng main pass"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: color,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color {
                    r: bg[0],
                    g: bg[1],
                    b: bg[2],
                    a: bg[3],
                }),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view: depth,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(1.0),
                store: wgpu::StoreOp::Discard,
            }),
            stencil_ops: None,
        }),
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

impl MainPass {
    /// Builds the ground pipeline for `format` if it does not exist yet (its group 0 is the
    /// reference draw's: transforms and the frame).
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        layouts: &DrawLayouts,
        frame_bgl: &wgpu::BindGroupLayout,
        format: wgpu::TextureFormat,
    ) -> Result<(), RenderError> {
        if self.ground.contains_key(&format) {
            return Ok(());
        }
        let module = layouts::shader_module(device, Program::Ground)?;
        let p = mesh_pipeline(
            device,
            "throng ground",
            &module,
            groups(frame_bgl, None, None, &layouts.draw_main),
            &[],
            ("vs_ground", "fs_ground"),
            Some(format),
        );
        self.ground.insert(format, p);
        Ok(())
    }

    /// The depth target of `width` × `height`.
    pub fn depth(&mut self, device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
        self.depth.view(
            device,
            "throng depth target",
            (width, height),
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        )
    }

    /// Records the ground into a main pass of `format` (one draw; 0 if its pipeline is missing).
    pub fn record_ground(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        format: wgpu::TextureFormat,
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

    /// Records the ground (when given) and every crowd into `color`; returns the draw calls.
    #[allow(clippy::too_many_arguments)]
    pub fn encode(
        &self,
        enc: &mut wgpu::CommandEncoder,
        color: &wgpu::TextureView,
        format: wgpu::TextureFormat,
        depth: &wgpu::TextureView,
        background: [f32; 4],
        ground: Option<GroundDraw>,
        crowds: &[CrowdDraw],
        draws: &SkinnedDraws,
        multi_draw: bool,
    ) -> u32 {
        let mut pass = begin(enc, color, depth, background);
        let mut n = 0;
        if let Some(g) = ground {
            n += self.record_ground(&mut pass, format, g.frame_group, g.draw_group);
        }
        for cd in crowds {
            n += draws.record(&mut pass, cd, false, multi_draw);
        }
        n
    }
}
