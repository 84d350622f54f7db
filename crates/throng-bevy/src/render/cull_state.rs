//! The state a crowd's culling keeps in the render world, and what decides whether it culls:
//! the types the crowd's GPU state holds ([`CrowdCull`], [`ThrongCull`]) apart from the
//! systems that fill them (`super::cull`), so that the crowd's state needs nothing of theirs.

use bevy::prelude::*;
use bevy::render::render_resource::{Buffer, WgpuFeatures};
use bevy::render::renderer::RenderDevice;
use bevy::render::view::RetainedViewEntity;
use throng_asset::gpu::cull::MAX_LODS;
use throng_asset::gpu::PaletteJob;

/// A crowd's culling settings (a component of the crowd entity; without one, the defaults).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct ThrongCull {
    /// Cull each instance against each view and pick its LOD (else every instance is drawn,
    /// at LOD 0, whenever the crowd's box is in view).
    pub per_instance: bool,
    /// Largest projected simplification error a LOD may show, pixels (shadow-map texels for a
    /// cascade); ≤ 0 always draws LOD 0. throng-render's `RenderOptions::lod_bias`.
    pub lod_bias: f32,
    /// How far (world units, along the light) a fox's shadow can fall, for the directional
    /// lights' cascades: a caster the camera does not see is drawn into a cascade only when its
    /// box swept that far along the light meets the camera's frustum (throng-render's rule;
    /// `shadow_reaches_view`). `Some(0.0)` or less: no sweep test (every caster in the
    /// cascade's frustum, as Bevy culls its own meshes). None: from the top of the crowd's
    /// world box down to its bottom (receivers below the crowd's feet get no shadow from
    /// casters out of view).
    pub shadow_reach: Option<f32>,
    /// An asset with a far tier: the width of the crossfade between an instance's coarsest
    /// mesh and its card, as a share of `lod_bias` (throng-render's `RenderOptions::far_fade`):
    /// the card starts to show where one texel of the tier covers `lod_bias` pixels and shows
    /// alone `far_fade · lod_bias` pixels below that, the two drawn as complementary halves of
    /// one screen door; 0 switches at `lod_bias`.
    pub far_fade: f32,
    /// An asset with a far tier: a perspective camera that draws its viewport at one sample a
    /// pixel (`Msaa::Off`, no `TemporalJitter`, no `MainPassResolutionOverride`) and has no
    /// prepass draws a card whose screen box holds exactly one pixel centre as one point
    /// there, carrying what the card's quad shows at that centre (throng-render's
    /// `RenderOptions::far_dots`; docs/design.md §5 "One-pixel cards"). A software rasteriser
    /// spends far more on a quad than on its one fragment, so this pays where most cards are
    /// about a pixel across (0.83–0.89× of a million foxes' frame at 640 × 360 on lavapipe,
    /// docs/benchmarks.md "One-pixel cards in Bevy") and changes nothing where they are larger.
    /// Shadow maps and other views draw every card as a quad. On by default.
    pub far_dots: bool,
}

impl Default for ThrongCull {
    fn default() -> Self {
        Self {
            per_instance: true,
            lod_bias: 1.0,
            shadow_reach: None,
            far_fade: 0.3,
            far_dots: true,
        }
    }
}

/// WGSL `CullJob` of `shaders/crowd_cull.wgsl` (128 B): one crowd's culling run.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CullJob {
    /// The asset's box (file units; `throng_asset::gpu::cull::cull_bounds`), w unused.
    pub fallback_min: [f32; 4],
    pub fallback_max: [f32; 4],
    /// Simplification error of each LOD level, file units ([0] = 0).
    pub lod_error: [f32; MAX_LODS],
    pub instance_count: u32,
    pub view_count: u32,
    pub lod_count: u32,
    pub primitive_count: u32,
    /// Ids per (view, LOD) list.
    pub segment: u32,
    /// First word of the palette list in the id buffer; 0 without one (texture path).
    pub palette_base: u32,
    /// Margin of each row's box, file units (`ROW_PAD` × the asset's diagonal).
    pub row_pad: f32,
    /// 1: boxes from the rows shown.
    pub row_bounds: u32,
    pub lod_bias: f32,
    /// The far tier's level (the last LOD level; 0: none).
    pub far_level: u32,
    /// The far tier's crossfade band, pixels (`ThrongCull::far_fade` × `lod_bias`; 0: a hard
    /// switch).
    pub far_band: f32,
    pub _pad: u32,
    /// The far tier's sphere: model centre (file units) and radius.
    pub far_sphere: [f32; 4],
}

/// WGSL `CullView` of `shaders/crowd_cull.wgsl` (224 B): one view that may draw a crowd.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct CullView {
    /// Frustum planes, xyz the normal pointing inside, w the offset; (0, 0, 0, 1) for none.
    pub planes: [[f32; 4]; 6],
    /// Perspective: eye (world) and (viewport height / 2) · clip_from_view[1][1]; orthographic:
    /// w = pixels (texels) per unit of length.
    pub eye: [f32; 4],
    /// 1: orthographic.
    pub ortho: u32,
    /// The camera whose LOD an orthographic view draws the instances that camera sees at
    /// (`u32::MAX`: none).
    pub floor_view: u32,
    /// A camera's viewport size, pixels (its cards' pixel-centre test; unused for a light's
    /// view).
    pub viewport: [f32; 2],
    /// A directional light's view: the unit direction the light travels (world) and how far a
    /// shadow reaches along it (file units); a caster the floor view does not see is kept only
    /// when its box swept that far meets the floor view. w < 0: no sweep test.
    pub light: [f32; 4],
    /// The view's `clip_from_world`, column-major (a camera's cards' pixel-centre test).
    pub clip_from_world: [[f32; 4]; 4],
    /// 1: a perspective camera drawing its viewport at one sample a pixel through this
    /// projection (no MSAA, no TAA jitter, no main-pass resolution override), so a far card
    /// whose screen box holds no pixel centre makes no fragment and is not listed
    /// (throng-render's rule); 0 otherwise and for a light's view (`cull::one_sample_target`).
    pub pixel_test: u32,
    /// 1: a camera with `pixel_test` and no prepass whose crowd draws one-pixel cards
    /// ([`ThrongCull::far_dots`]): a card whose screen box holds exactly one pixel centre is
    /// listed as a point ([`CrowdCull::dot_draw`]).
    pub dots: u32,
    pub _pad: [u32; 2],
}

/// wgpu's `DrawIndexedIndirect` arguments (20 B), as the culling pass counts into them
/// (throng-asset's definition, which throng-render uses too).
pub use throng_asset::gpu::cull::DrawIndexedArgs;

pub(crate) const ARGS_BYTES: u64 = std::mem::size_of::<DrawIndexedArgs>() as u64;

/// Ids per (view, LOD) list of `instances`: rounded up to 64, so every list starts 256 B in.
pub fn segment(instances: u32) -> u32 {
    instances.div_ceil(64).max(1) * 64
}

/// One view's entry in a crowd's culling run.
#[derive(Clone, Copy, Debug)]
pub struct ViewEntry {
    pub retained: RetainedViewEntity,
    pub view: CullView,
    /// A light's view (shadow map), not a camera's.
    pub light: bool,
    /// For readbacks: the view's `clip_from_world`, `clip_from_view` and `world_from_view`.
    pub clip_from_world: Mat4,
    pub clip_from_view: Mat4,
    pub world_from_view: Mat4,
}

/// A crowd's culling state in the render world (a field of `CrowdGpu`).
#[derive(Default)]
pub struct CrowdCull {
    /// Per-instance culling and LOD this frame (asked for by the crowd's `ThrongCull`, and the
    /// device draws indirectly with first instances).
    pub enabled: bool,
    /// The crowd's `ThrongCull::lod_bias` (pixels), `far_fade` and `shadow_reach`.
    pub lod_bias: f32,
    pub far_fade: f32,
    pub shadow_reach: Option<f32>,
    /// The crowd's `ThrongCull::far_dots`.
    pub far_dots: bool,
    /// This frame's views, in list order.
    pub views: Vec<ViewEntry>,
    pub(crate) job: Option<Buffer>,
    pub(crate) view_buffer: Option<Buffer>,
    pub(crate) view_capacity: u64,
    /// The lists and the palette list.
    pub(crate) ids: Option<Buffer>,
    pub(crate) ids_words: u64,
    /// The indirect arguments: (view, primitive, LOD), the palette counter, the dispatch, then
    /// per view its one-pixel cards' draw.
    pub(crate) args: Option<Buffer>,
    pub(crate) args_entries: u64,
    pub(crate) lods: u32,
    /// The mesh levels among `lods` (all but a far tier's).
    pub(crate) mesh_lods: u32,
    pub(crate) prims: u32,
    pub(crate) segment: u32,
    pub(crate) palette_base: u32,
    /// The pipeline has compiled: the crowd may be drawn culled.
    pub(crate) ready: bool,
}

impl CrowdCull {
    /// The far tier's crossfade band, pixels (`far_fade` × `lod_bias`, 0 for a negative or NaN
    /// fade).
    pub(crate) fn far_band(&self) -> f32 {
        let fade = if self.far_fade > 0.0 {
            self.far_fade
        } else {
            0.0
        };
        fade * self.lod_bias.max(0.0)
    }

    /// The index of `retained`'s lists this frame.
    pub(crate) fn view_index(&self, retained: &RetainedViewEntity) -> Option<u32> {
        self.views
            .iter()
            .position(|v| v.retained == *retained)
            .map(|i| i as u32)
    }

    /// The argument buffer and the byte offsets of primitive `prim`'s draws (one per mesh LOD)
    /// in `retained`'s view; None when the crowd was not culled for that view this frame.
    pub fn view_draws(
        &self,
        retained: &RetainedViewEntity,
        prim: u32,
    ) -> Option<(&Buffer, impl Iterator<Item = u64>)> {
        let v = self.view_index(retained)?;
        let args = self.args.as_ref()?;
        let first = (v * self.prims + prim) * self.lods;
        Some((
            args,
            (first..first + self.mesh_lods).map(|k| k as u64 * ARGS_BYTES),
        ))
    }

    /// The argument buffer and the byte offset of the far tier's card draw in `retained`'s
    /// view (primitive 0's entry of the last level); None without a far tier or when the crowd
    /// was not culled for that view this frame.
    pub fn card_draw(&self, retained: &RetainedViewEntity) -> Option<(&Buffer, u64)> {
        if self.mesh_lods >= self.lods {
            return None;
        }
        let v = self.view_index(retained)?;
        let args = self.args.as_ref()?;
        let k = v * self.prims * self.lods + self.mesh_lods;
        Some((args, k as u64 * ARGS_BYTES))
    }

    /// The argument buffer and the byte offset of the one-pixel cards' `DrawIndirect` in
    /// `retained`'s view (a point list: one vertex per card, its first instance the far list's
    /// last id); None when the view draws no points ([`CullView::dots`]) or was not culled
    /// this frame.
    pub fn dot_draw(&self, retained: &RetainedViewEntity) -> Option<(&Buffer, u64)> {
        let v = self.view_index(retained)?;
        if self.mesh_lods >= self.lods || self.views[v as usize].view.dots == 0 {
            return None;
        }
        let args = self.args.as_ref()?;
        Some((args, self.dot_entry(v) * ARGS_BYTES))
    }

    /// The argument entry counting the palette list: the one after every (view, primitive,
    /// LOD) draw's (WGSL `palette_counter`); the palette dispatch follows it, then each view's
    /// one-pixel cards.
    pub(crate) fn palette_counter(&self) -> u32 {
        self.views.len() as u32 * self.prims * self.lods
    }

    /// The argument entry of view `v`'s one-pixel cards (after the palette dispatch).
    pub(crate) fn dot_entry(&self, v: u32) -> u64 {
        self.palette_counter() as u64 + 2 + v as u64
    }

    /// The palette pass's job: the palette list when culled, else every instance.
    pub(crate) fn palette_job(&self, instances: u32) -> PaletteJob {
        if !self.enabled || self.palette_base == 0 {
            return PaletteJob::all(instances);
        }
        PaletteJob {
            instances: 0,
            list_base: self.palette_base,
            // instance_count is the second word of an entry.
            count_word: self.palette_counter() * (ARGS_BYTES / 4) as u32 + 1,
            _pad: 0,
        }
    }

    /// Byte offset of the palette pass's indirect dispatch in `args`.
    pub(crate) fn dispatch_offset(&self) -> u64 {
        (self.palette_counter() as u64 + 1) * ARGS_BYTES
    }
}

/// Whether the device draws indirectly with first instances (the lists' starts): per-instance
/// culling needs it.
pub fn culling_supported(device: &RenderDevice) -> bool {
    device
        .features()
        .contains(WgpuFeatures::INDIRECT_FIRST_INSTANCE)
}
