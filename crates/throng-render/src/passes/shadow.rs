//! The shadow pass (docs/design.md §5 "Shadows"): the crowds drawn depth-only from the
//! directional light's shadow camera with the same skinning as the main pass. Input: the
//! crowds' draws (culled against the shadow camera). Output: the shadow map the main pass
//! samples.

use super::draw::{CrowdDraw, SkinnedDraws};
use crate::options::DEPTH_FORMAT;
use crate::target::CachedTarget;

/// The shadow pass and its shadow map (kept between frames).
#[derive(Default)]
pub(crate) struct ShadowPass {
    map: CachedTarget,
}

/// A depth-only pass clearing `view` to the far plane.
pub(crate) fn depth_pass<'e>(
    enc: &'e mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    label: &str,
) -> wgpu::RenderPass<'e> {
    enc.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[],
        depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
            view,
            depth_ops: Some(wgpu::Operations {
                load: wgpu::LoadOp::Clear(1.0),
                store: wgpu::StoreOp::Store,
            }),
            stencil_ops: None,
        }),
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

impl ShadowPass {
    /// The shadow map of `size` texels per side (1 texel when shadows are off, so the main
    /// pass's binding exists).
    pub fn map(&mut self, device: &wgpu::Device, size: u32) -> wgpu::TextureView {
        self.map.view(
            device,
            "throng shadow map",
            (size, size),
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        )
    }

    /// Draws every crowd's shadow casters into `map`; returns the draw calls.
    pub fn encode(
        &self,
        enc: &mut wgpu::CommandEncoder,
        map: &wgpu::TextureView,
        crowds: &[CrowdDraw],
        draws: &SkinnedDraws,
        multi_draw: bool,
    ) -> u32 {
        let mut pass = depth_pass(enc, map, "throng shadow pass");
        crowds
            .iter()
            .map(|cd| draws.record(&mut pass, cd, 1, multi_draw))
            .sum()
    }
}
