//! The far tier in Bevy (docs/design.md §5 "Far tier"; an asset baked with `--far-tier`): its
//! pictures, colour maps, parameters, clips and row coordinates on the GPU
//! (`throng_asset::gpu::far::upload`, what throng-render uploads), the crowd group's layout and
//! bind group entries of them, and the card's index buffer. A card covers the union of its four
//! tiles' rects (`throng_asset::gpu::far::tile_rects`), not the whole square around the tier's
//! sphere: the same pixels, with a fraction of the fragments.
//!
//! How a crowd draws it: the culling pass lists a camera's instance at the far tier's level — the
//! last, after the mesh LODs — while its card's share of the crossfade (throng's `far_share`:
//! the card starts to show where one texel of a tile covers `ThrongCull::lod_bias` pixels and
//! shows alone `far_fade · lod_bias` pixels below that) is above 0 — and, on a target of one
//! sample a pixel, while its screen box holds a pixel centre (throng-render's rule,
//! `throng::cull::sphere_pixel_centres`: a card that holds none makes no fragment; under MSAA a
//! sample lies off its pixel's centre and the card stays listed) — and at its coarsest mesh
//! while the share is below 1; the two draws keep complementary halves of one screen door (def
//! `CROSSFADE`, `throng_bevy::crowd_far::card_share`). A cascade draws what its camera shows
//! alone (a card where the card shows alone, else the mesh), or by its texels, and drops a card
//! caster smaller than one of its texels; the palette pass skips instances no view lists at a
//! mesh level. Each view that lists cards then draws its far list with one indirect draw of the
//! card's six indices (argument entry (view, primitive 0, far level)) with the card pipeline of
//! the pass (`CrowdKey::card`: `crowd.wgsl`'s `card_vertex` / `card_fragment`, lit by Bevy's
//! PBR functions; `crowd_prepass.wgsl`'s for shadow maps and prepasses). A card faces the
//! view's camera (a directional light's cascade: its backward axis) and shows `throng::far`'s
//! blend of the tiles, in the instance's tint, material variant and part mask. A camera of one
//! sample a pixel without a prepass draws a card whose screen box holds exactly one pixel
//! centre as one point there (`ThrongCull::far_dots`, throng-render's `RenderOptions::far_dots`:
//! `crowd.wgsl`'s `card_dot_vertex`, one `draw_indirect` of the view's points,
//! `CrowdCull::dot_draw`).

use bevy::render::render_resource::{
    BindGroupEntries, BindingResource, Buffer, BufferInitDescriptor, BufferUsages, Extent3d,
    TextureDataOrder, TextureDescriptor, TextureDimension, TextureFormat, TextureUsages,
    TextureView, TextureViewDescriptor,
};
use bevy::render::renderer::{RenderDevice, RenderQueue};
use throng_asset::gpu::far;
use throng_asset::BakedAsset;

use super::bindings;

/// The card's index buffer (the corner a vertex stage reads from its index's bits).
pub use throng_asset::gpu::far::CARD_INDICES;

/// An asset's far tier on the GPU.
pub struct GpuFar {
    pub colour: TextureView,
    pub surface: TextureView,
    pub variants: TextureView,
    pub params: Buffer,
    pub clips: Buffer,
    pub rows: Buffer,
    /// Per tile, the texels a card covers (`throng_asset::gpu::far::tile_rects`).
    pub rects: Buffer,
    /// [`CARD_INDICES`].
    pub card_indices: Buffer,
    /// The far level's simplification error, file units (one texel of a tile).
    pub error: f32,
    /// The tier's sphere: model centre and radius.
    pub sphere: [f32; 4],
}

fn texture(
    device: &RenderDevice,
    queue: &RenderQueue,
    label: &'static str,
    (width, height): (u32, u32),
    format: TextureFormat,
    data: &[u8],
) -> TextureView {
    device
        .create_texture_with_data(
            queue,
            &TextureDescriptor {
                label: Some(label),
                size: Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: TextureDimension::D2,
                format,
                usage: TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            },
            TextureDataOrder::LayerMajor,
            data,
        )
        .create_view(&TextureViewDescriptor::default())
}

fn storage(device: &RenderDevice, label: &'static str, bytes: &[u8]) -> Buffer {
    // wgpu rejects zero-sized storage bindings.
    let zero = [0u8; 16];
    device.create_buffer_with_data(&BufferInitDescriptor {
        label: Some(label),
        contents: if bytes.is_empty() { &zero[..] } else { bytes },
        usage: BufferUsages::STORAGE,
    })
}

/// `baked`'s far tier on `device`, or None without one; an error says what does not fit the
/// device (then the crowd draws its coarsest mesh as before, with a warning).
pub fn upload_far(
    baked: &BakedAsset,
    device: &RenderDevice,
    queue: &RenderQueue,
) -> Result<Option<GpuFar>, String> {
    let Some(tier) = &baked.far_tier else {
        return Ok(None);
    };
    let max = device.limits().max_texture_dimension_2d;
    let up = far::upload(baked, tier, max)?;
    let a = &up.atlas;
    let rgba8 = |label, data: &[u8]| {
        texture(
            device,
            queue,
            label,
            (a.width, a.height),
            TextureFormat::Rgba8Unorm,
            data,
        )
    };
    Ok(Some(GpuFar {
        colour: rgba8("throng far colour", &a.colour),
        surface: rgba8("throng far surface", &a.surface),
        variants: texture(
            device,
            queue,
            "throng far variant colours",
            (a.variant_size[0], a.variant_size[1]),
            TextureFormat::Rgba32Float,
            bytemuck::cast_slice(&a.variant_colours),
        ),
        params: device.create_buffer_with_data(&BufferInitDescriptor {
            label: Some("throng far params"),
            contents: bytemuck::bytes_of(&a.params),
            usage: BufferUsages::UNIFORM,
        }),
        clips: storage(device, "throng far clips", bytemuck::cast_slice(&up.clips)),
        rows: storage(device, "throng far rows", bytemuck::cast_slice(&up.rows)),
        rects: storage(
            device,
            "throng far tile rects",
            bytemuck::cast_slice(&up.rects),
        ),
        card_indices: device.create_buffer_with_data(&BufferInitDescriptor {
            label: Some("throng far card indices"),
            contents: bytemuck::cast_slice(&CARD_INDICES),
            usage: BufferUsages::INDEX,
        }),
        error: up.error,
        sphere: up.sphere,
    }))
}

/// The far tier's entries of the crowd's bind group.
pub fn bind_entries(f: &GpuFar) -> BindGroupEntries<'_, 7> {
    BindGroupEntries::with_indices((
        (
            bindings::FAR_COLOUR,
            BindingResource::TextureView(&f.colour),
        ),
        (
            bindings::FAR_SURFACE,
            BindingResource::TextureView(&f.surface),
        ),
        (
            bindings::FAR_VARIANTS,
            BindingResource::TextureView(&f.variants),
        ),
        (bindings::FAR_PARAMS, f.params.as_entire_binding()),
        (bindings::FAR_CLIPS, f.clips.as_entire_binding()),
        (bindings::FAR_ROWS, f.rows.as_entire_binding()),
        (bindings::FAR_RECTS, f.rects.as_entire_binding()),
    ))
}
