//! The CPU-timed per-instance record and the instance transform (docs/design.md §4), uploaded
//! to the GPU unchanged. WGSL twins: `Layer`, `InstanceRecord`, `InstanceTransform` in
//! `shaders/playback.wgsl` (sizes and offsets checked by naga in throng-render's tests).

use bytemuck::{Pod, Zeroable};

/// One playback layer: `row` is the global frame-table row as an f32 (exact below
/// [`crate::MAX_ROWS`]), `frac` ∈ [0, 1) the weight of `row + 1`, `clip` a word packing the clip
/// index (bits 0..23, [`crate::CLIP_MASK`]; culling reads its bounds, interpolation stays inside
/// it) and the layer's mask (bits 29..31, [`crate::LAYER_MASK_SHIFT`]; 0 = no mask), at the
/// same bit positions as the GPU-timed record's `clip_mode`. 16 B.
///
/// A layer with a mask, or whose clip is additive, is an *overlay*; the others are *base*
/// layers, whose weights sum to 1 (docs/design.md §4 "Layer masks and additive layers").
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct Layer {
    pub weight: f32,
    pub frac: f32,
    pub row: f32,
    pub clip: u32,
}

impl Layer {
    /// A layer showing `(row, frac)` of `clip` with `weight`, no mask.
    pub fn new(weight: f32, frame: crate::FrameRef, clip: u32) -> Layer {
        Layer {
            weight,
            frac: frame.frac,
            row: frame.row as f32,
            clip: clip & crate::CLIP_MASK,
        }
    }

    /// The same layer under mask `mask` (1 ..= [`crate::MAX_MASKS`] is the asset's mask
    /// `mask − 1`; 0 = none; only the low 3 bits are kept).
    pub fn with_mask(self, mask: u32) -> Layer {
        Layer {
            clip: (self.clip & crate::CLIP_MASK) | crate::layer_mask_bits(mask),
            ..self
        }
    }

    /// The clip index.
    pub fn clip_index(&self) -> u32 {
        self.clip & crate::CLIP_MASK
    }

    /// The mask number (0 = none).
    pub fn mask(&self) -> u32 {
        crate::layer_mask_of(self.clip)
    }
}

/// Per-instance CPU-timed record: [`crate::MAX_LAYERS`] layers, 64 B, 16-byte aligned (one
/// `array<Layer, 4>` in WGSL). Unused layers are all zero; the weights of the used ones sum
/// to 1; all weights zero = disabled (the shaders show the rest row 0).
#[repr(C, align(16))]
#[derive(Debug, Clone, Copy, PartialEq, Default, Pod, Zeroable)]
pub struct InstanceRecord {
    pub layers: [Layer; crate::MAX_LAYERS],
}

impl InstanceRecord {
    /// A record showing one frame of `clip` at full weight.
    pub fn single(frame: crate::FrameRef, clip: u32) -> InstanceRecord {
        let mut r = InstanceRecord::zeroed();
        r.layers[0] = Layer::new(1.0, frame, clip);
        r
    }
}

/// Instance model transform: the 3 rows of its 3×4 affine matrix (`world = M · model`,
/// column vectors), each a vec4 `(m_r0, m_r1, m_r2, translation_r)`. 48 B, 16-byte aligned
/// (three `vec4<f32>` in WGSL). File units. The GPU-facing affine ([`crate::Affine3x4`]);
/// its default is the identity.
pub type InstanceTransform = crate::Affine3x4;
