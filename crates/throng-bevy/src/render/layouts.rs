//! The bind group layouts of the crowd draw (group `CROWD_GROUP`) and of the palette pass
//! (group `PALETTE_GROUP`), with the numbers of [`bindings`].

use bevy::render::render_resource::{
    BindGroupLayoutDescriptor, BindGroupLayoutEntry, BindingType, BufferBindingType,
    SamplerBindingType, ShaderStages, TextureSampleType, TextureViewDimension,
};
use throng_asset::gpu::TexelFormat;
use throng_asset::Encoding;

use super::bindings;
use super::formats::sample_type;

pub(crate) fn buffer_entry(
    binding: u32,
    visibility: ShaderStages,
    ty: BufferBindingType,
) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding,
        visibility,
        ty: BindingType::Buffer {
            ty,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn bone_texture_entry(visibility: ShaderStages, encoding: Encoding) -> BindGroupLayoutEntry {
    BindGroupLayoutEntry {
        binding: bindings::BONE_TEXTURE,
        visibility,
        ty: BindingType::Texture {
            sample_type: sample_type(TexelFormat::bone(encoding)),
            view_dimension: TextureViewDimension::D2Array,
            multisampled: false,
        },
        count: None,
    }
}

/// The layout of the asset and the crowd's playback (bone texture, clip table, records,
/// clock), read by the palette pass or, on the texture path, by the vertex stage.
pub(crate) fn playback_entries(
    visibility: ShaderStages,
    encoding: Encoding,
) -> [BindGroupLayoutEntry; 6] {
    let storage = BufferBindingType::Storage { read_only: true };
    [
        buffer_entry(
            bindings::BONE_PARAMS,
            visibility,
            BufferBindingType::Uniform,
        ),
        buffer_entry(bindings::CLIPS, visibility, storage),
        buffer_entry(bindings::FRAME_TIMES, visibility, storage),
        bone_texture_entry(visibility, encoding),
        buffer_entry(bindings::CPU_RECORDS, visibility, storage),
        buffer_entry(bindings::CLOCK, visibility, BufferBindingType::Uniform),
    ]
}

/// The crowd draw's bind group layout (group [`bindings::CROWD_GROUP`]) for a bone texture of
/// `encoding`, with the primitive's VAT bindings when `vat` (the VAT path) and the far tier's
/// when `far` (an asset with one, [`super::far`]). The same layout serves the palette and
/// texture paths: the palette path reads the palette, the texture path the bone texture and
/// records.
pub fn crowd_layout(encoding: Encoding, vat: bool, far: bool) -> BindGroupLayoutDescriptor {
    let vf = ShaderStages::VERTEX_FRAGMENT;
    let storage = BufferBindingType::Storage { read_only: true };
    let mut entries = playback_entries(vf, encoding).to_vec();
    entries.extend([
        buffer_entry(bindings::INSTANCE_TRANSFORMS, vf, storage),
        buffer_entry(bindings::PALETTE, vf, storage),
        // Read with motion vectors (def MOTION); the current buffers stand in without.
        buffer_entry(bindings::PREV_TRANSFORMS, vf, storage),
        buffer_entry(bindings::PREV_PALETTE, vf, storage),
        // Read with per-instance culling (def CULLED); a stand-in without.
        buffer_entry(bindings::VISIBLE_IDS, vf, storage),
        buffer_entry(bindings::DRAW, vf, BufferBindingType::Uniform),
        buffer_entry(bindings::MATERIALS, vf, BufferBindingType::Uniform),
        BindGroupLayoutEntry {
            binding: bindings::BASE_COLOR_LAYERS,
            visibility: vf,
            ty: BindingType::Texture {
                sample_type: TextureSampleType::Float { filterable: true },
                view_dimension: TextureViewDimension::D2Array,
                multisampled: false,
            },
            count: None,
        },
        BindGroupLayoutEntry {
            binding: bindings::SAMPLER,
            visibility: vf,
            ty: BindingType::Sampler(SamplerBindingType::Filtering),
            count: None,
        },
    ]);
    entries.push(BindGroupLayoutEntry {
        binding: bindings::APPEARANCES,
        visibility: vf,
        ty: BindingType::Texture {
            sample_type: TextureSampleType::Uint,
            view_dimension: TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    });
    if vat {
        entries.extend(super::vat::layout_entries(vf));
    }
    if far {
        entries.extend(far_entries(vf));
    }
    BindGroupLayoutDescriptor::new("throng crowd", &entries)
}

/// The far tier's entries of the crowd group's layout (`super::far`'s textures, parameters and
/// tables, read by `throng_bevy::crowd_far`).
fn far_entries(visibility: ShaderStages) -> [BindGroupLayoutEntry; 7] {
    let storage = BufferBindingType::Storage { read_only: true };
    let texture = |binding| BindGroupLayoutEntry {
        binding,
        visibility,
        ty: BindingType::Texture {
            sample_type: TextureSampleType::Float { filterable: false },
            view_dimension: TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    };
    [
        texture(bindings::FAR_COLOUR),
        texture(bindings::FAR_SURFACE),
        texture(bindings::FAR_VARIANTS),
        buffer_entry(bindings::FAR_PARAMS, visibility, BufferBindingType::Uniform),
        buffer_entry(bindings::FAR_CLIPS, visibility, storage),
        buffer_entry(bindings::FAR_ROWS, visibility, storage),
        buffer_entry(bindings::FAR_RECTS, visibility, storage),
    ]
}

/// The palette pass's bind group layout (group [`bindings::PALETTE_GROUP`]) for a bone texture of
/// `encoding`.
pub fn palette_layout(encoding: Encoding) -> BindGroupLayoutDescriptor {
    let c = ShaderStages::COMPUTE;
    let mut entries = playback_entries(c, encoding).to_vec();
    entries.extend([
        buffer_entry(
            bindings::MASKS,
            c,
            BufferBindingType::Storage { read_only: true },
        ),
        buffer_entry(
            bindings::PALETTE,
            c,
            BufferBindingType::Storage { read_only: false },
        ),
        buffer_entry(bindings::PALETTE_JOB, c, BufferBindingType::Uniform),
        // Per-instance culling (def CULLED): the palette list and its length; stand-ins
        // without.
        buffer_entry(
            bindings::VISIBLE_IDS,
            c,
            BufferBindingType::Storage { read_only: true },
        ),
        buffer_entry(
            bindings::PALETTE_COUNT,
            c,
            BufferBindingType::Storage { read_only: true },
        ),
    ]);
    BindGroupLayoutDescriptor::new("throng palette pass", &entries)
}
