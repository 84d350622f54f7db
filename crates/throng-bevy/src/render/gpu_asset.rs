//! A baked asset as a Bevy render asset: bone texture, bone parameters, clip table, layer
//! masks, and per primitive its vertex and index buffers and material slots
//! ([`super::materials`]: its own material and every variant's).

use std::sync::Arc;

use bevy::asset::AssetId;
use bevy::ecs::system::lifetimeless::SRes;
use bevy::ecs::system::SystemParamItem;
use bevy::log::warn;
use bevy::render::render_asset::{PrepareAssetError, RenderAsset};
use bevy::render::render_resource::{
    Buffer, BufferInitDescriptor, BufferUsages, Sampler, TextureView,
};
use bevy::render::renderer::{RenderDevice, RenderQueue};
use throng_asset::gpu::cull::{self, LodRanges};
use throng_asset::gpu::{mask_words, BoneParams, GpuVertex, TexelFormat};
use throng_asset::{BakedAsset, BakedMaterial, BakedPrimitive};

use super::materials::{base_color_sampler, GpuMaterials, MaterialUpload};
use super::textures::array_texture;
use crate::asset::ThrongAsset;

/// WGSL `DrawParams` of `throng_bevy::crowd_material` (32 B): how a primitive is drawn (its
/// colours are its material slots, [`GpuMaterials`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct DrawParams {
    /// x: unused; y: double-sided; z: the primitive's index (its bit in an appearance's part
    /// mask).
    pub misc: [u32; 4],
    /// The far tier's crossfade (`throng_bevy::crowd_far::card_share`): the crowd's LOD bias
    /// and crossfade band (pixels), the tier's texel (file units); w unused.
    pub far: [f32; 4],
}

/// A primitive on the GPU.
pub struct GpuPrimitive {
    pub vertices: Buffer,
    /// LOD 0's triangle list followed by every simplified LOD's
    /// (`throng_asset::gpu::cull::LodRanges`).
    pub indices: Buffer,
    /// LOD 0's index count.
    pub index_count: u32,
    /// (first index, index count) of each LOD in `indices`; `[0]` is LOD 0.
    pub lods: Vec<(u32, u32)>,
    pub material: DrawParams,
    /// Its material slots and base colour texture array.
    pub materials: GpuMaterials,
}

/// A baked asset on the GPU: bone texture, clip table, primitives.
pub struct GpuThrongAsset {
    pub baked: Arc<BakedAsset>,
    pub bone_params: Buffer,
    pub clips: Buffer,
    pub frame_times: Buffer,
    pub bone_view: TextureView,
    /// The layer masks (`throng_asset::gpu::mask_words`).
    pub masks: Buffer,
    pub primitives: Vec<GpuPrimitive>,
    /// The sampler of every primitive's base colour array.
    pub sampler: Sampler,
    pub double_sided: bool,
    /// Every primitive has at most 4 influences per vertex (def `INFLUENCES_4`).
    pub four_influences: bool,
    /// One VAT per primitive when the asset has them and they fit the device
    /// ([`super::vat`]); `None` otherwise.
    pub vats: Option<Vec<super::vat::GpuVat>>,
    /// What per-instance culling reads (`crate::render::cull`): each frame-table row's box
    /// (`throng_asset::gpu::cull::row_bound_words`), the asset's box and each LOD level's
    /// simplification error in file units (the asset's LOD count is its length).
    pub row_bounds: Buffer,
    pub cull_bounds: throng_asset::Aabb,
    pub lod_errors: Vec<f32>,
    /// The far tier, when the asset has one and it fits the device ([`super::far`]): the last
    /// LOD level, its error the last of `lod_errors`.
    pub far: Option<super::far::GpuFar>,
}

impl GpuThrongAsset {
    /// LOD levels (1 without simplified LODs), the far tier's included; at most
    /// `throng_asset::gpu::cull::MAX_LODS`.
    pub fn lod_count(&self) -> u32 {
        self.lod_errors.len().max(1) as u32
    }

    /// The mesh LOD levels (those before the far tier's).
    pub fn mesh_lod_count(&self) -> u32 {
        self.lod_count() - self.far.is_some() as u32
    }

    /// The far tier's level, with one.
    pub fn far_level(&self) -> Option<u32> {
        self.far.as_ref().map(|_| self.mesh_lod_count())
    }

    /// (first index, index count) of LOD `l` of primitive `p`, or of its coarsest.
    pub fn lod_range(p: &GpuPrimitive, l: u32) -> (u32, u32) {
        let i = (l as usize).min(p.lods.len().saturating_sub(1));
        p.lods.get(i).copied().unwrap_or((0, p.index_count))
    }
}

impl RenderAsset for GpuThrongAsset {
    type SourceAsset = ThrongAsset;
    type Param = (SRes<RenderDevice>, SRes<RenderQueue>);

    fn prepare_asset(
        source: ThrongAsset,
        _id: AssetId<ThrongAsset>,
        (device, queue): &mut SystemParamItem<Self::Param>,
        _previous: Option<&Self>,
    ) -> Result<Self, PrepareAssetError<ThrongAsset>> {
        Ok(upload(&source, device, queue))
    }
}

fn storage_with(device: &RenderDevice, label: &str, bytes: &[u8]) -> Buffer {
    // wgpu rejects zero-sized storage bindings: an empty table gets one zero word.
    let zero = [0u8; 16];
    let contents = if bytes.is_empty() { &zero[..] } else { bytes };
    device.create_buffer_with_data(&BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: BufferUsages::STORAGE | BufferUsages::COPY_DST,
    })
}

/// The bone texture as a 2D array (rows beyond `rows_per_layer` in further layers) and its
/// view.
fn bone_texture(baked: &BakedAsset, device: &RenderDevice, queue: &RenderQueue) -> TextureView {
    let bones = &baked.bone_texture;
    let rpl = bones.rows_per_layer.max(1);
    let height = bones.rows.clamp(1, rpl);
    // At least 2 layers: wgpu's GL backend gives a 1-layer texture the 2D target, which a
    // texture_2d_array binding cannot read.
    let layers = bones.layers().max(2);
    let size = (bones.width().max(1), height, layers);
    let format = TexelFormat::bone(bones.encoding);
    array_texture(
        device,
        queue,
        "throng bone texture",
        format,
        size,
        &bones.data,
    )
}

/// Primitive `p`'s buffers and draw parameters (`materials`: its slots).
fn upload_primitive(
    device: &RenderDevice,
    p: &BakedPrimitive,
    mat: Option<&BakedMaterial>,
    materials: GpuMaterials,
) -> GpuPrimitive {
    let lods = LodRanges::of(p);
    GpuPrimitive {
        vertices: device.create_buffer_with_data(&BufferInitDescriptor {
            label: Some("throng vertices"),
            contents: bytemuck::cast_slice(&GpuVertex::all(p)),
            usage: BufferUsages::VERTEX,
        }),
        indices: device.create_buffer_with_data(&BufferInitDescriptor {
            label: Some("throng indices"),
            contents: bytemuck::cast_slice(&lods.indices),
            usage: BufferUsages::INDEX,
        }),
        index_count: p.indices.len() as u32,
        lods: lods.ranges,
        material: DrawParams {
            misc: [0, mat.is_some_and(|m| m.double_sided) as u32, 0, 0],
            far: [0.0; 4],
        },
        materials,
    }
}

/// Uploads a loaded asset (throng-asset validated it on load, so sizes agree).
fn upload(source: &ThrongAsset, device: &RenderDevice, queue: &RenderQueue) -> GpuThrongAsset {
    let baked = &source.baked;
    let table = throng_asset::gpu_clip_table(&baked.clips);
    let params = BoneParams::new(&baked.bone_texture, baked.clips.len());
    let material = |p: &BakedPrimitive| p.material.and_then(|m| baked.materials.get(m));
    let mut slots = MaterialUpload::new(baked);
    let mut lod_errors = cull::lod_errors(
        baked
            .primitives
            .iter()
            .map(|p| LodRanges::of(p).errors)
            .collect::<Vec<_>>()
            .iter()
            .map(Vec::as_slice),
    );
    let far = match super::far::upload_far(baked, device, queue) {
        Ok(f) if lod_errors.len().max(1) < cull::MAX_LODS => f,
        Ok(Some(_)) => {
            warn!("throng: {} mesh LODs and a far tier: a crowd selects between at most {} levels; its far tier is not drawn (bake fewer LODs)", lod_errors.len(), cull::MAX_LODS);
            None
        }
        Ok(None) => None,
        Err(what) => {
            warn!("throng: the far tier is not drawn: {what}");
            None
        }
    };
    if let Some(f) = &far {
        // LOD 0's error is 0 even without simplified LODs, so the far level comes after it.
        lod_errors.resize(lod_errors.len().max(1), 0.0);
        lod_errors.push(f.error);
    }
    GpuThrongAsset {
        baked: baked.clone(),
        bone_params: device.create_buffer_with_data(&BufferInitDescriptor {
            label: Some("throng bone params"),
            contents: bytemuck::bytes_of(&params),
            usage: BufferUsages::UNIFORM,
        }),
        clips: storage_with(
            device,
            "throng clips",
            bytemuck::cast_slice(table.clip_upload()),
        ),
        frame_times: storage_with(
            device,
            "throng frame times",
            bytemuck::cast_slice(table.frame_times.upload_words()),
        ),
        bone_view: bone_texture(baked, device, queue),
        masks: storage_with(
            device,
            "throng layer masks",
            bytemuck::cast_slice(&mask_words(baked)),
        ),
        primitives: baked
            .primitives
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let materials = slots.primitive(baked, i, p.material, device, queue);
                let mut gp = upload_primitive(device, p, material(p), materials);
                gp.material.misc[2] = i as u32;
                gp
            })
            .collect(),
        sampler: base_color_sampler(device),
        double_sided: baked
            .primitives
            .iter()
            .any(|p| material(p).is_some_and(|m| m.double_sided)),
        four_influences: baked.primitives.iter().all(|p| p.influences <= 4),
        vats: super::vat::upload_vats(baked, device, queue),
        row_bounds: storage_with(
            device,
            "throng row bounds",
            bytemuck::cast_slice(&cull::row_bound_words(baked)),
        ),
        cull_bounds: cull::cull_bounds(baked),
        lod_errors,
        far,
    }
}
