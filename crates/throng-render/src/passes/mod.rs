//! The passes of a frame, each a type with explicit inputs and outputs, owned by the
//! [`crate::Renderer`]:
//!
//! - [`cull::CullPass`]: crowd buffers + cameras → visible-id lists and indirect arguments;
//! - [`draw::SkinnedDraws`]: the skinned mesh pipelines (texture and VAT paths) and one crowd's
//!   draws into a pass, shared by the shadow and main passes;
//! - [`shadow::ShadowPass`]: the shadow map, drawn from the light with the same skinning;
//! - [`main::MainPass`]: ground and crowds into the colour target, lit and shadowed (with
//!   occlusion culling in two phases);
//! - [`occlusion::OcclusionPass`]: the depth pyramid between the phases, and each crowd's
//!   visibility history;
//! - [`reference::ReferencePass`]: vertices skinned elsewhere (CPU), uploaded and drawn like the
//!   GPU paths;
//! - [`props::PropDraws`]: static meshes on a crowd's anchors, drawn after the crowd in the
//!   shadow and main passes.
//!
//! What they share lives here: the bind group layouts every mesh draw uses ([`DrawLayouts`]),
//! the mesh pipeline description, and the per-draw uniform.

pub(crate) mod cpu_cull;
pub(crate) mod cull;
pub(crate) mod downlevel;
pub(crate) mod draw;
pub(crate) mod far;
pub(crate) mod main;
pub(crate) mod occlusion;
pub(crate) mod palette;
pub(crate) mod props;
pub(crate) mod reference;
pub(crate) mod shadow;

use wgpu::util::DeviceExt;

use crate::bindings as b;
use crate::gpu_types::{DrawParams, DRAW_PARAMS_STRIDE};
use crate::layouts;
use crate::material::MaterialResources;
use crate::options::{RenderOptions, DEPTH_FORMAT, MOTION_FORMAT};

/// Bind group layouts (and their fixed resources) of every mesh draw: the material (group 1),
/// a primitive's VAT (group 2) and the per-draw uniform with (main pass) the shadow map
/// (group 3).
pub(crate) struct DrawLayouts {
    pub materials: MaterialResources,
    pub vat: wgpu::BindGroupLayout,
    pub vat_dummies: crate::vat::VatDummies,
    pub draw_main: wgpu::BindGroupLayout,
    pub draw_shadow: wgpu::BindGroupLayout,
    pub shadow_sampler: wgpu::Sampler,
    /// One default appearance texel: what draws without appearances bind (every index past
    /// it reads the default).
    pub no_appearance: wgpu::TextureView,
}

impl DrawLayouts {
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> DrawLayouts {
        DrawLayouts {
            materials: MaterialResources::new(device, queue),
            vat: layouts::vat_textures(device),
            vat_dummies: crate::vat::VatDummies::new(device),
            draw_main: layouts::draw_params(device, true),
            draw_shadow: layouts::draw_params(device, false),
            shadow_sampler: device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("throng shadow sampler"),
                address_mode_u: wgpu::AddressMode::ClampToEdge,
                address_mode_v: wgpu::AddressMode::ClampToEdge,
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                compare: Some(wgpu::CompareFunction::LessEqual),
                ..Default::default()
            }),
            no_appearance: crate::appearance::appearance_texture(device, queue, &[]).1,
        }
    }

    /// Group 3's layout of a pass: with the shadow map (`color` Some: the main pass) or without.
    pub fn draw(&self, color: Option<wgpu::TextureFormat>) -> &wgpu::BindGroupLayout {
        if color.is_some() {
            &self.draw_main
        } else {
            &self.draw_shadow
        }
    }

    /// Group 3 bind groups (main pass with the shadow map, shadow pass) over `params` and the
    /// crowd's `appearance` texture (None: [`Self::no_appearance`]).
    pub fn draw_groups(
        &self,
        device: &wgpu::Device,
        params: &wgpu::Buffer,
        shadow_map: &wgpu::TextureView,
        appearance: Option<&wgpu::TextureView>,
    ) -> (wgpu::BindGroup, wgpu::BindGroup) {
        let looks = wgpu::BindGroupEntry {
            binding: b::APPEARANCES,
            resource: wgpu::BindingResource::TextureView(appearance.unwrap_or(&self.no_appearance)),
        };
        let binding = wgpu::BindingResource::Buffer(wgpu::BufferBinding {
            buffer: params,
            offset: 0,
            size: wgpu::BufferSize::new(std::mem::size_of::<DrawParams>() as u64),
        });
        let main = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng draw (main)"),
            layout: &self.draw_main,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: b::DRAW_PARAMS,
                    resource: binding.clone(),
                },
                looks.clone(),
                wgpu::BindGroupEntry {
                    binding: b::SHADOW_MAP,
                    resource: wgpu::BindingResource::TextureView(shadow_map),
                },
                wgpu::BindGroupEntry {
                    binding: b::SHADOW_SAMPLER,
                    resource: wgpu::BindingResource::Sampler(&self.shadow_sampler),
                },
            ],
        });
        let shadow = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng draw (shadow)"),
            layout: &self.draw_shadow,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: b::DRAW_PARAMS,
                    resource: binding,
                },
                looks,
            ],
        });
        (main, shadow)
    }
}

/// A per-draw uniform buffer: entry `pass · lods + lod` at a 256 B stride for passes 0 (main),
/// 1 (shadow) and 2 (the main pass's second phase of occlusion culling); with `multi` (one
/// multi-draw over every LOD), entry `pass · lods` serves all LODs of the pass. `fade`: the
/// far tier's crossfade words (`DrawParams::far_sphere`, `far_fade`; [`far::fade_words`]).
pub(crate) fn draw_params_buffer(
    device: &wgpu::Device,
    (lods, segment): (u32, u32),
    opts: &RenderOptions,
    multi: bool,
    fade: FadeWords,
) -> wgpu::Buffer {
    if multi {
        return draw_params(device, (lods, segment), opts, (true, fade), |_, _| 0);
    }
    draw_params(device, (lods, segment), opts, (false, fade), |pass, lod| {
        (pass * lods + lod) * segment
    })
}

/// `DrawParams::far_sphere` and `far_fade`: zero where nothing crossfades.
pub(crate) type FadeWords = [[f32; 4]; 2];

/// [`FadeWords`] of a draw where nothing crossfades.
pub(crate) const NO_FADE: FadeWords = [[0.0; 4]; 2];

/// A per-draw uniform buffer as [`draw_params_buffer`]'s (one draw per LOD) whose list of
/// (pass, LOD) starts at `id_base(pass, LOD)`: the downlevel mode's lists, packed.
pub(crate) fn draw_params_at(
    device: &wgpu::Device,
    lods: u32,
    opts: &RenderOptions,
    fade: FadeWords,
    id_base: impl Fn(u32, u32) -> u32,
) -> wgpu::Buffer {
    draw_params(device, (lods, 0), opts, (false, fade), id_base)
}

fn draw_params(
    device: &wgpu::Device,
    (lods, segment): (u32, u32),
    opts: &RenderOptions,
    (multi, [far_sphere, far_fade]): (bool, FadeWords),
    id_base: impl Fn(u32, u32) -> u32,
) -> wgpu::Buffer {
    let stride = DRAW_PARAMS_STRIDE as usize;
    let mut bytes = vec![0u8; 3 * lods as usize * stride];
    for pass_index in 0..3u32 {
        // Pass 1 (shadow) may skin with fewer influences.
        let at = |l| match pass_index {
            1 => opts.shadow_influences_at(l),
            _ => opts.influences_at(l),
        };
        let packed = (0..4).fold(0u32, |a, l| a | at(l) << (8 * l));
        for lod in 0..lods {
            let entry = pass_index * lods + lod;
            let p = DrawParams {
                id_base: id_base(pass_index, lod),
                influences: at(lod),
                lod: if multi { DrawParams::ALL_LODS } else { lod },
                pass_index,
                segment,
                lod_count: lods,
                lod_influences: packed,
                _pad: 0,
                far_sphere,
                far_fade,
            };
            let at = entry as usize * stride;
            bytes[at..at + std::mem::size_of::<DrawParams>()]
                .copy_from_slice(bytemuck::bytes_of(&p));
        }
    }
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("throng draw params"),
        contents: &bytes,
        usage: wgpu::BufferUsages::UNIFORM,
    })
}

/// The four bind group layouts of a mesh pipeline, by group index.
pub(crate) type GroupLayouts<'a> = [Option<&'a wgpu::BindGroupLayout>; 4];

/// A triangle-list pipeline with depth test from the (vertex, fragment) entry points; `color`:
/// the colour target's format, or None for a depth-only shadow pipeline (slope-scaled depth bias
/// against shadow acne); with `motion`, a second colour target of [`MOTION_FORMAT`] for the
/// motion vectors.
pub(crate) fn mesh_pipeline(
    device: &wgpu::Device,
    label: &str,
    module: &wgpu::ShaderModule,
    groups: GroupLayouts,
    buffers: &[Option<wgpu::VertexBufferLayout>],
    (vs, fs): (&str, &str),
    (color, motion): (Option<wgpu::TextureFormat>, bool),
) -> wgpu::RenderPipeline {
    pipeline_with(
        device,
        label,
        module,
        groups,
        buffers,
        (vs, fs),
        (color, motion),
        false,
    )
}

/// [`mesh_pipeline`]; with `depth_fragment`, a depth-only pipeline (`color` None) keeps the
/// fragment stage `fs` (for fragments it discards, as the far tier's cards do).
#[allow(clippy::too_many_arguments)]
pub(crate) fn pipeline_with(
    device: &wgpu::Device,
    label: &str,
    module: &wgpu::ShaderModule,
    groups: GroupLayouts,
    buffers: &[Option<wgpu::VertexBufferLayout>],
    (vs, fs): (&str, &str),
    (color, motion): (Option<wgpu::TextureFormat>, bool),
    depth_fragment: bool,
) -> wgpu::RenderPipeline {
    pipeline_of(
        device,
        label,
        module,
        (groups, buffers),
        (vs, fs),
        (color, motion),
        (depth_fragment, wgpu::PrimitiveTopology::TriangleList),
    )
}

/// [`pipeline_with`] drawing `topology` (the far tier's one-pixel cards are a point list; a
/// point list takes no depth bias, so it is for colour passes only).
pub(crate) fn pipeline_of(
    device: &wgpu::Device,
    label: &str,
    module: &wgpu::ShaderModule,
    (groups, buffers): (GroupLayouts, &[Option<wgpu::VertexBufferLayout>]),
    (vs, fs): (&str, &str),
    (color, motion): (Option<wgpu::TextureFormat>, bool),
    (depth_fragment, topology): (bool, wgpu::PrimitiveTopology),
) -> wgpu::RenderPipeline {
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(label),
        bind_group_layouts: &groups,
        immediate_size: 0,
    });
    let target = |format| {
        Some(wgpu::ColorTargetState {
            format,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
        })
    };
    let targets = color.map(|format| {
        let mut t = vec![target(format)];
        if motion {
            t.push(target(MOTION_FORMAT));
        }
        t
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(label),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some(vs),
            compilation_options: Default::default(),
            buffers,
        },
        // No culling: double-sided materials and mirrored instances need none, and one-sided
        // ones only lose a little speed (the fragment shader lights back faces with the
        // flipped normal).
        primitive: wgpu::PrimitiveState {
            topology,
            cull_mode: None,
            ..Default::default()
        },
        depth_stencil: Some(wgpu::DepthStencilState {
            format: DEPTH_FORMAT,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: Default::default(),
            bias: if color.is_some() {
                Default::default()
            } else {
                wgpu::DepthBiasState {
                    constant: 2,
                    slope_scale: 2.0,
                    clamp: 0.0,
                }
            },
        }),
        multisample: Default::default(),
        fragment: match (&targets, depth_fragment) {
            (None, false) => None,
            (t, _) => Some(wgpu::FragmentState {
                module,
                entry_point: Some(fs),
                compilation_options: Default::default(),
                targets: t.as_deref().unwrap_or(&[]),
            }),
        },
        multiview_mask: None,
        cache: None,
    })
}

/// Group index → slot of a [`GroupLayouts`].
pub(crate) fn groups<'a>(
    skin: &'a wgpu::BindGroupLayout,
    material: Option<&'a wgpu::BindGroupLayout>,
    vat: Option<&'a wgpu::BindGroupLayout>,
    draw: &'a wgpu::BindGroupLayout,
) -> GroupLayouts<'a> {
    let mut g: GroupLayouts = [None; 4];
    g[b::group::SKIN as usize] = Some(skin);
    g[b::group::MATERIAL as usize] = material;
    g[b::group::VAT as usize] = vat;
    g[b::group::DRAW as usize] = Some(draw);
    g
}
