//! Prop draws (docs/design.md §5 "Props"), shared by the shadow and main passes: the pipelines
//! per (timing, colour format), and per crowd and prop this frame a bind group and one instanced
//! draw over every instance of the crowd. Inputs: a crowd with props, its buffers, the frame.
//! Output: draw calls recorded into a pass, after the crowd's own.
//!
//! Every instance gets its props, not only the instances culling kept: the visible-id lists are
//! segmented per LOD (one draw cannot cover them without a list of its own from the culling
//! pass), and a prop costs a few dozen vertices against the character's thousands; instances
//! out of view are clipped after the vertex stage.

use std::collections::HashMap;

use throng_contract::Timing;
use wgpu::util::DeviceExt;

use super::{groups, mesh_pipeline, DrawLayouts};
use crate::bindings as b;
use crate::crowd::{Crowd, CrowdBuffers};
use crate::error::RenderError;
use crate::gpu_types::PropParams;
use crate::layouts;
use crate::prop::GpuProp;
use crate::shaders::Program;
use crate::static_mesh::RefVertex;

/// The prop pipelines and their group 0 layouts, built on first use.
#[derive(Default)]
pub(crate) struct PropDraws {
    bgl: HashMap<Timing, wgpu::BindGroupLayout>,
    pipelines: HashMap<(Timing, Option<wgpu::TextureFormat>), wgpu::RenderPipeline>,
}

/// One prop of one crowd this frame.
pub(crate) struct PropDraw<'a> {
    mesh: &'a GpuProp,
    group: wgpu::BindGroup,
    material: wgpu::BindGroup,
}

impl PropDraws {
    /// Builds the pipeline of props played with `timing` into a pass of `color` (None: the
    /// shadow pass) if it does not exist yet.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        layouts: &DrawLayouts,
        timing: Timing,
        color: Option<wgpu::TextureFormat>,
    ) -> Result<(), RenderError> {
        if self.pipelines.contains_key(&(timing, color)) {
            return Ok(());
        }
        let bgl = self
            .bgl
            .entry(timing)
            .or_insert_with(|| layouts::prop_draw(device, timing));
        let module = crate::pipelines::shader_module(device, Program::PropDraw { timing })?;
        let pass = if color.is_some() { "" } else { " (shadow)" };
        let pipeline = mesh_pipeline(
            device,
            &format!("throng prop draw{pass}"),
            &module,
            groups(bgl, Some(&layouts.materials.bgl), None, layouts.draw(color)),
            &[Some(RefVertex::layout())],
            ("vs_main", "fs_main"),
            (color, false),
        );
        self.pipelines.insert((timing, color), pipeline);
        Ok(())
    }

    /// Bind groups of every prop of `crowd` for this frame (`frame`: the frame uniform).
    pub fn crowd<'a>(
        &self,
        device: &wgpu::Device,
        layouts: &DrawLayouts,
        crowd: &Crowd<'a>,
        buffers: &CrowdBuffers,
        frame: &wgpu::Buffer,
    ) -> Result<Vec<PropDraw<'a>>, RenderError> {
        if crowd.props.is_empty() {
            return Ok(Vec::new());
        }
        let timing = crowd.playback.timing();
        let bgl = self.bgl.get(&timing).ok_or(RenderError::Internal(
            "prop pipeline not built before the frame",
        ))?;
        let asset = crowd.asset;
        crowd
            .props
            .iter()
            .enumerate()
            .map(|(k, p)| {
                asset.check_anchor(p.anchor)?;
                let params = prop_params(device, asset, p.anchor, crowd.len() as u32);
                let mut entries = anchor_entries(buffers, asset, &params);
                entries.push(wgpu::BindGroupEntry {
                    binding: b::FRAME,
                    resource: frame.as_entire_binding(),
                });
                let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("throng prop draw"),
                    layout: bgl,
                    entries: &entries,
                });
                // Prop k shows where the instance's prop mask has bit k.
                let set = crate::gpu_types::MaterialSet {
                    prop: k as u32,
                    ..crate::gpu_types::MaterialSet::single(p.mesh.material)
                };
                let material = layouts
                    .materials
                    .group(device, &set, p.mesh.mesh.texture.as_ref());
                Ok(PropDraw {
                    mesh: p.mesh,
                    group,
                    material,
                })
            })
            .collect()
    }

    /// Records `props` of a crowd of `instances` into a pass (`color` None: the shadow pass),
    /// one instanced draw each; group 3 (`draw_group` at `draw_offset`) is that pass's per-draw
    /// uniform. Returns the draw calls recorded.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        props: &[PropDraw],
        timing: Timing,
        color: Option<wgpu::TextureFormat>,
        draw_group: &wgpu::BindGroup,
        draw_offset: u32,
        instances: u32,
    ) -> u32 {
        let Some(pipeline) = self.pipelines.get(&(timing, color)) else {
            return 0;
        };
        if props.is_empty() || instances == 0 {
            return 0;
        }
        pass.set_pipeline(pipeline);
        pass.set_bind_group(b::group::DRAW, draw_group, &[draw_offset]);
        for p in props {
            pass.set_bind_group(b::group::SKIN, &p.group, &[]);
            pass.set_bind_group(b::group::MATERIAL, &p.material, &[]);
            pass.set_vertex_buffer(0, p.mesh.mesh.vertices.slice(..));
            pass.set_index_buffer(p.mesh.mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..p.mesh.mesh.index_count, 0, 0..instances);
        }
        props.len() as u32
    }
}

/// The uniform that selects `anchor` of `asset` for a crowd of `instances`.
pub(crate) fn prop_params(
    device: &wgpu::Device,
    asset: &crate::GpuAsset,
    anchor: u32,
    instances: u32,
) -> wgpu::Buffer {
    let p = PropParams {
        anchor,
        anchor_count: asset.anchor_names.len() as u32,
        instance_count: instances,
        _pad: 0,
    };
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("throng prop params"),
        contents: bytemuck::bytes_of(&p),
        usage: wgpu::BufferUsages::UNIFORM,
    })
}

/// Group 0 entries placing a prop (the layout's `anchor_entries`): the asset's bone params,
/// clips and anchors, the crowd's transforms and records, and the prop's `params`.
pub(crate) fn anchor_entries<'a>(
    buffers: &'a CrowdBuffers,
    asset: &'a crate::GpuAsset,
    params: &'a wgpu::Buffer,
) -> Vec<wgpu::BindGroupEntry<'a>> {
    let mut e = buffers.skin_entries(asset, false);
    e.extend([
        wgpu::BindGroupEntry {
            binding: b::ANCHORS,
            resource: asset.anchors_buffer.as_entire_binding(),
        },
        wgpu::BindGroupEntry {
            binding: b::PROP_PARAMS,
            resource: params.as_entire_binding(),
        },
    ]);
    e
}
