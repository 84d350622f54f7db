//! The crowd's pipelines: the main pass's (Bevy's mesh pipeline specialised for the view, with
//! throng's vertex stage and bind group) and the palette pass's compute pipeline, with the
//! shader defs of what a crowd varies by ([`CrowdKey`]).

use std::sync::Arc;

use bevy::mesh::{Mesh, MeshVertexBufferLayout, MeshVertexBufferLayoutRef, VertexBufferLayout};
use bevy::pbr::{MeshPipeline, MeshPipelineKey};
use bevy::prelude::*;
use bevy::render::render_resource::{
    ComputePipelineDescriptor, Face, PrimitiveTopology, RenderPipelineDescriptor,
    SpecializedComputePipeline, SpecializedMeshPipeline, SpecializedRenderPipeline, VertexStepMode,
};
use bevy::shader::{Shader, ShaderDefVal};
use throng_asset::gpu::GpuVertex;
use throng_asset::Encoding;

use super::bindings::{binding_defs, CROWD_GROUP, PALETTE_GROUP};
use super::crowd_gpu::CrowdGpu;
use super::debug_view::ThrongDebugView;
use super::formats::{attribute, vertex_layout, VERTEX_BYTES};
use super::gpu_asset::GpuThrongAsset;
use super::layouts::{crowd_layout, palette_layout};

/// The crowd shaders' handles, set by the plugin: the draw and the palette pass.
#[derive(Resource, Clone)]
pub struct ThrongShader {
    pub draw: Handle<Shader>,
    pub palette: Handle<Shader>,
    /// Shadow maps and prepasses (`crate::prepass`).
    pub depth: Handle<Shader>,
}

/// The crowd pipeline: Bevy's mesh pipeline for the view, with throng's vertex stage.
#[derive(Resource, Clone)]
pub struct ThrongPipeline {
    pub mesh_pipeline: MeshPipeline,
    pub shader: Handle<Shader>,
}

/// What a crowd's vertex stage varies by, in every pass that draws it (main, shadow, prepass).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CrowdKey {
    /// The bone texture's encoding (def `ENCODING`: its code).
    pub encoding: Encoding,
    pub gpu_timed: bool,
    pub double_sided: bool,
    /// The palette path (def `PALETTE`), else the texture path.
    pub palette: bool,
    /// At most 4 influences per vertex (def `INFLUENCES_4`).
    pub four_influences: bool,
    /// Dual-quaternion skinning (def `DUAL_QUAT`; a `quat-*` encoding).
    pub dual_quat: bool,
    /// The VAT path (def `VAT`: positions and normals from the primitive's VAT, no skinning;
    /// [`super::vat`]).
    pub vat: bool,
    /// Per-instance culling (def `CULLED`): the draws' instances are visible-id lists.
    pub culled: bool,
    /// The asset has a far tier (def `FAR_TIER`: its bindings are in the crowd's layout,
    /// [`super::far`]).
    pub far: bool,
    /// The far tier's cards (def `CARD`: entry points `card_vertex` and `card_fragment`, no
    /// vertex buffer, both faces drawn), not the meshes.
    pub card: bool,
    /// With `card`: the one-pixel cards, a point list (entry point `card_dot_vertex`; a
    /// camera's main pass only, [`super::ThrongCull::far_dots`]).
    pub dot: bool,
}

impl CrowdKey {
    /// The key of crowd `g` of `asset`.
    pub fn of(g: &CrowdGpu, asset: &GpuThrongAsset) -> Self {
        Self {
            encoding: asset.baked.bone_texture.encoding,
            gpu_timed: g.buffers.gpu_timed,
            double_sided: asset.double_sided,
            palette: g.skin.palette_path,
            four_influences: asset.four_influences,
            dual_quat: g.skin.dual_quat,
            vat: g.vats(asset).is_some(),
            culled: g.cull.enabled,
            far: asset.far.is_some(),
            card: false,
            dot: false,
        }
    }

    /// The key of crowd `g`'s far-tier cards, when it draws them: a far tier and per-instance
    /// culling (which lists the instances shown as cards).
    pub fn card_of(g: &CrowdGpu, asset: &GpuThrongAsset) -> Option<Self> {
        let key = Self::of(g, asset);
        key.draws_cards().then_some(Self { card: true, ..key })
    }

    /// The key of crowd `g`'s one-pixel cards, when it draws cards and asks for points
    /// (`ThrongCull::far_dots`; which views draw them is the culling pass's choice).
    pub fn dot_of(g: &CrowdGpu, asset: &GpuThrongAsset) -> Option<Self> {
        let card = Self::card_of(g, asset)?;
        g.cull.far_dots.then_some(Self { dot: true, ..card })
    }

    /// The shader defs of `throng_bevy::crowd_vertex` and the shared modules it imports,
    /// with the crowd's group at [`CROWD_GROUP`].
    pub fn shader_defs(&self) -> Vec<ShaderDefVal> {
        let mut defs = binding_defs(CROWD_GROUP);
        defs.extend(playback_defs(self.encoding, self.gpu_timed, self.dual_quat));
        defs.push(if self.vat {
            "VAT".into()
        } else if self.palette {
            "PALETTE".into()
        } else {
            "BONE_TEXTURE".into()
        });
        if self.four_influences {
            defs.push("INFLUENCES_4".into());
        }
        if self.culled {
            defs.push("CULLED".into());
        }
        if self.far {
            defs.push("FAR_TIER".into());
        }
        if self.card {
            defs.push("CARD".into());
        }
        defs
    }

    /// Whether the crowd draws the far tier's cards, crossfading them with its coarsest meshes
    /// in a camera's draws (def `CROSSFADE`): a far tier, and culling to list the instances
    /// shown as cards.
    pub fn draws_cards(&self) -> bool {
        self.far && self.culled
    }

    /// Back faces culled unless the asset has a double-sided material; a card always faces
    /// its view, whichever way its corners wind after the instance's transform.
    pub fn cull_mode(&self) -> Option<Face> {
        (!self.double_sided && !self.card).then_some(Face::Back)
    }

    /// The layout of the crowd's group.
    pub fn layout(&self) -> bevy::render::render_resource::BindGroupLayoutDescriptor {
        crowd_layout(self.encoding, self.vat, self.far)
    }

    /// The vertex and fragment entry points and vertex buffers of the pass's program (the main
    /// and depth programs name theirs alike).
    pub fn entry_points(&self) -> (&'static str, &'static str, Vec<VertexBufferLayout>) {
        if self.dot {
            ("card_dot_vertex", "card_dot_fragment", Vec::new())
        } else if self.card {
            ("card_vertex", "card_fragment", Vec::new())
        } else {
            ("vertex", "fragment", vec![vertex_layout()])
        }
    }
}

/// What a crowd's main-pass pipeline varies by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThrongPipelineKey {
    pub mesh_key: MeshPipelineKey,
    pub crowd: CrowdKey,
    /// The crowd's debug view (def `DEBUG_NORMALS` for [`ThrongDebugView::Normals`]).
    pub debug_view: Option<ThrongDebugView>,
}

/// The defs shared by both programs of a crowd: the asset's encoding, the timing and the
/// skinning.
fn playback_defs(encoding: Encoding, gpu_timed: bool, dual_quat: bool) -> Vec<ShaderDefVal> {
    let mut defs = vec![ShaderDefVal::UInt("ENCODING".into(), encoding.code())];
    if gpu_timed {
        defs.push("GPU_TIMED".into());
    }
    if dual_quat {
        defs.push("DUAL_QUAT".into());
    }
    defs
}

impl SpecializedRenderPipeline for ThrongPipeline {
    type Key = ThrongPipelineKey;

    fn specialize(&self, key: ThrongPipelineKey) -> RenderPipelineDescriptor {
        // Bevy's mesh pipeline wants a mesh layout to derive vertex defs from: the position,
        // normal and uv attributes of throng's stream stand in for a Bevy mesh.
        let stand_in = MeshVertexBufferLayoutRef(Arc::new(MeshVertexBufferLayout::new(
            vec![
                Mesh::ATTRIBUTE_POSITION.id,
                Mesh::ATTRIBUTE_NORMAL.id,
                Mesh::ATTRIBUTE_UV_0.id,
            ],
            VertexBufferLayout {
                array_stride: VERTEX_BYTES,
                step_mode: VertexStepMode::Vertex,
                attributes: [GpuVertex::POSITION, GpuVertex::NORMAL, GpuVertex::UV]
                    .map(attribute)
                    .to_vec(),
            },
        )));
        let mut d = match self.mesh_pipeline.specialize(key.mesh_key, &stand_in) {
            Ok(d) => d,
            Err(e) => {
                // Only a missing vertex attribute fails here, and the stand-in has them all.
                error!("throng: mesh pipeline specialisation failed: {e}");
                RenderPipelineDescriptor::default()
            }
        };
        let view_layout = self.mesh_pipeline.get_view_layout(key.mesh_key.into());
        d.layout = vec![
            view_layout.main_layout.clone(),
            view_layout.binding_array_layout.clone(),
            view_layout.empty_layout.clone(),
            key.crowd.layout(),
        ];
        let mut defs = d.vertex.shader_defs.clone();
        defs.extend(key.crowd.shader_defs());
        defs.push(ShaderDefVal::UInt(
            "MATERIAL_BIND_GROUP".into(),
            CROWD_GROUP,
        ));
        // The camera has a prepass: its depth was written by crate::prepass's pipeline with
        // the same vertex function, and this pass's depth test must pass on exactly it.
        if key.mesh_key.intersects(
            MeshPipelineKey::DEPTH_PREPASS
                | MeshPipelineKey::NORMAL_PREPASS
                | MeshPipelineKey::MOTION_VECTOR_PREPASS,
        ) {
            defs.push("INVARIANT_POSITION".into());
        }
        if key.crowd.draws_cards() {
            defs.push("CROSSFADE".into());
        }
        if key.debug_view == Some(ThrongDebugView::Normals) {
            defs.push("DEBUG_NORMALS".into());
        }
        d.label = Some("throng crowd pipeline".into());
        let (vertex, fragment, buffers) = key.crowd.entry_points();
        d.vertex.shader = self.shader.clone();
        d.vertex.shader_defs = defs.clone();
        d.vertex.entry_point = Some(vertex.into());
        d.vertex.buffers = buffers;
        if let Some(f) = d.fragment.as_mut() {
            f.shader = self.shader.clone();
            f.shader_defs = defs;
            f.entry_point = Some(fragment.into());
        }
        d.primitive.cull_mode = key.crowd.cull_mode();
        if key.crowd.dot {
            d.primitive.topology = PrimitiveTopology::PointList;
            d.primitive.strip_index_format = None;
        }
        d
    }
}

/// The palette pass's compute pipeline (`throng_asset::gpu::PALETTE_PASS`, throng-render's too).
#[derive(Resource, Clone)]
pub struct PalettePipeline {
    pub shader: Handle<Shader>,
}

/// What a palette pass varies by: `(bone texture encoding, GPU-timed, dual quaternions,
/// culled)`.
pub type PaletteKey = (Encoding, bool, bool, bool);

impl SpecializedComputePipeline for PalettePipeline {
    type Key = PaletteKey;

    fn specialize(
        &self,
        (encoding, gpu_timed, dual_quat, culled): PaletteKey,
    ) -> ComputePipelineDescriptor {
        let mut defs = binding_defs(PALETTE_GROUP);
        defs.extend(playback_defs(encoding, gpu_timed, dual_quat));
        defs.push("BONE_TEXTURE".into());
        defs.push("PALETTE_WRITE".into());
        if culled {
            defs.push("CULLED".into());
        }
        ComputePipelineDescriptor {
            label: Some("throng palette pass".into()),
            layout: vec![palette_layout(encoding)],
            shader: self.shader.clone(),
            shader_defs: defs,
            entry_point: Some("cs_palette".into()),
            zero_initialize_workgroup_memory: false,
            ..default()
        }
    }
}
