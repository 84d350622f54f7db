//! Occlusion culling's depth pyramid and the visibility each crowd keeps between frames
//! (docs/design.md §5 "Occlusion culling").
//!
//! A frame with occlusion culling draws the main pass in two phases: first the instances in view
//! that were visible last frame, then — after [`OcclusionPass::encode`] has reduced that depth
//! into the pyramid and the culling pass's `cs_occlusion` has tested every instance in view
//! against it — those that are visible and were not drawn yet. Inputs: the main pass's depth
//! target after the first phase, the main camera. Outputs: the pyramid (a [`PyramidFrame`]) and,
//! per crowd, a visible-id buffer whose tail is the history the next frame starts from.

use std::collections::HashMap;

use glam::Mat4;

use crate::bindings as b;
use crate::error::RenderError;
use crate::gpu_types::{DepthPyramid, PyramidStep, MAX_PYRAMID_LEVELS};
use crate::layouts;
use crate::shaders::Program;

/// Byte stride of the per-level [`PyramidStep`] entries (dynamic uniform offsets).
const STEP_STRIDE: u64 = 256;

/// Histories kept at most; beyond, all are dropped (the next frames start afresh: more drawn in
/// the second phase, never a different picture).
const MAX_HISTORIES: usize = 64;

/// The pyramid's pipeline (built on first use), its texel buffer (kept while the depth
/// target's size stays) and every crowd's visible-id buffer with its history.
#[derive(Default)]
pub(crate) struct OcclusionPass {
    pipeline: Option<(wgpu::BindGroupLayout, wgpu::ComputePipeline)>,
    texels: Option<((u32, u32), wgpu::Buffer)>,
    /// Per crowd, by its asset (its bone parameters' buffer) and its position in the frame's
    /// crowd list (an application that draws two views of other assets with one renderer keeps
    /// both histories): its visible-id buffer and its boxes.
    visible: HashMap<(wgpu::Buffer, usize), (wgpu::Buffer, wgpu::Buffer)>,
}

/// A new buffer of `size` bytes (wgpu zero-initialises it).
pub(crate) fn zeroed(
    device: &wgpu::Device,
    label: &str,
    size: u64,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage,
        mapped_at_creation: false,
    })
}

/// One frame's depth pyramid: what culling's second phase binds, and the build's bind group.
pub(crate) struct PyramidFrame {
    /// The `DepthPyramid` uniform.
    pub params: wgpu::Buffer,
    /// Every level's texels, `array<f32>`.
    pub texels: wgpu::Buffer,
    bind: wgpu::BindGroup,
    /// Width and height of each level, for the dispatches.
    sizes: Vec<(u32, u32)>,
}

impl OcclusionPass {
    /// Builds the pyramid's pipeline if it does not exist yet.
    pub fn prepare(&mut self, device: &wgpu::Device) -> Result<(), RenderError> {
        if self.pipeline.is_none() {
            let bgl = layouts::depth_pyramid(device);
            let p = crate::pipelines::compute_pipeline(
                device,
                Program::DepthPyramid,
                &bgl,
                "cs_pyramid",
            )?;
            self.pipeline = Some((bgl, p));
        }
        Ok(())
    }

    /// The pyramid of this frame over `depth` (a `width` × `height` view drawn with
    /// `view_proj`); None before [`Self::prepare`].
    pub fn frame(
        &mut self,
        device: &wgpu::Device,
        depth: &wgpu::TextureView,
        view_proj: Mat4,
        (width, height): (u32, u32),
    ) -> Option<PyramidFrame> {
        use wgpu::util::DeviceExt;
        let (bgl, _) = self.pipeline.as_ref()?;
        let (params, texel_count) = DepthPyramid::new(view_proj.to_cols_array_2d(), width, height);
        let texels = match &self.texels {
            Some((size, buf)) if *size == (width, height) => buf.clone(),
            _ => {
                let buf = zeroed(
                    device,
                    "throng depth pyramid",
                    4 * texel_count.max(1) as u64,
                    wgpu::BufferUsages::STORAGE,
                );
                self.texels = Some(((width, height), buf.clone()));
                buf
            }
        };
        let levels = params.size[2] as usize;
        let mut steps = vec![0u8; MAX_PYRAMID_LEVELS * STEP_STRIDE as usize];
        for level in 0..levels {
            let at = level * STEP_STRIDE as usize;
            let step = PyramidStep {
                level: level as u32,
                _pad: [0; 3],
            };
            steps[at..at + std::mem::size_of::<PyramidStep>()]
                .copy_from_slice(bytemuck::bytes_of(&step));
        }
        let steps = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng depth pyramid steps"),
            contents: &steps,
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let params_buf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng depth pyramid params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng depth pyramid"),
            layout: bgl,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: b::PYRAMID_PARAMS,
                    resource: params_buf.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: b::PYRAMID_STEP,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &steps,
                        offset: 0,
                        size: wgpu::BufferSize::new(std::mem::size_of::<PyramidStep>() as u64),
                    }),
                },
                wgpu::BindGroupEntry {
                    binding: b::PYRAMID_DEPTH,
                    resource: wgpu::BindingResource::TextureView(depth),
                },
                wgpu::BindGroupEntry {
                    binding: b::PYRAMID,
                    resource: texels.as_entire_binding(),
                },
            ],
        });
        let sizes = params.levels[..levels]
            .iter()
            .map(|l| (l[1], l[2]))
            .collect();
        Some(PyramidFrame {
            params: params_buf,
            texels,
            bind,
            sizes,
        })
    }

    /// The visible-id buffer (`bytes` long) and the boxes (32 B per instance) of the crowd of
    /// `instances` of `asset` at `slot` in the frame's list: the ones it had last frame (its
    /// history intact) while the sizes stay, else new zeroed ones (no history: the first phase
    /// draws nothing and the second everything in view).
    pub fn crowd_buffers(
        &mut self,
        device: &wgpu::Device,
        asset: &crate::GpuAsset,
        slot: usize,
        (bytes, instances): (u64, u32),
    ) -> (wgpu::Buffer, wgpu::Buffer) {
        let key = (asset.params_buffer.clone(), slot);
        let box_bytes = 32 * instances.max(1) as u64;
        match self.visible.get(&key) {
            Some((v, b)) if v.size() == bytes && b.size() == box_bytes => (v.clone(), b.clone()),
            _ => {
                if self.visible.len() >= MAX_HISTORIES {
                    self.visible.clear();
                }
                // wgpu zero-initialises new buffers: an empty history.
                // COPY_DST: the palette path writes live poses' state words into it.
                let buffer = |label, size| {
                    zeroed(
                        device,
                        label,
                        size,
                        wgpu::BufferUsages::STORAGE
                            | wgpu::BufferUsages::COPY_SRC
                            | wgpu::BufferUsages::COPY_DST,
                    )
                };
                let v = buffer("throng visible instances and history", bytes);
                let b = buffer("throng culling boxes", box_bytes);
                self.visible.insert(key, (v.clone(), b.clone()));
                (v, b)
            }
        }
    }

    /// Records the pyramid's build: one dispatch per level. Returns the dispatches.
    pub fn encode(&self, frame: &PyramidFrame, enc: &mut wgpu::CommandEncoder) -> u32 {
        let Some((_, pipeline)) = &self.pipeline else {
            return 0;
        };
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("throng depth pyramid"),
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        for (level, &(w, h)) in frame.sizes.iter().enumerate() {
            pass.set_bind_group(
                b::group::SKIN,
                &frame.bind,
                &[(level as u64 * STEP_STRIDE) as u32],
            );
            pass.dispatch_workgroups(w.div_ceil(8), h.div_ceil(8), 1);
        }
        frame.sizes.len() as u32
    }
}
