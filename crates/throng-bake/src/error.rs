//! Typed bake errors. Every message names the source file and the element, and says what to do.

use crate::sampling::MaxError;
use throng_asset::Encoding;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BakeError {
    #[error("{file}: nothing to animate: {why}; bake a file with a skinned mesh or a mesh under an animated node")]
    NothingToAnimate { file: String, why: String },
    #[error("{file}: invalid bake setting: {what}")]
    InvalidOption { file: String, what: String },
    #[error("{file}: the sampled skin matrix of palette entry {entry} (node '{node}') is not finite in clip '{clip}' frame {frame}; check that joint's animation and inverse bind matrix for NaN/infinite values")]
    NonFinite {
        file: String,
        entry: usize,
        node: String,
        clip: String,
        frame: u32,
    },
    #[error("{file}: a bone-texture row would be {width} texels wide ({entries} palette entries × {texels} texels of {encoding}), over the maximum texture size {max}; use a narrower encoding (quat-*) or a larger maximum texture size if your GPU allows it")]
    TextureTooWide {
        file: String,
        entries: usize,
        texels: u32,
        encoding: &'static str,
        width: u64,
        max: u32,
    },
    #[error("{file}: {what} asks for {fps} frames per second, over the limit of {limit}: a rate above the source's keys adds rows (GPU memory) without detail; sample at {limit} fps or less, at the source's own keys, or to an error budget")]
    FpsTooHigh {
        file: String,
        /// "the bake", or "clip 'NAME'" for a per-clip rate.
        what: String,
        fps: f64,
        limit: f64,
    },
    #[error("{file}: the frame table would have {rows} rows, more than a u32 / f32 row index can address exactly (2^24); bake fewer clips or a lower fps")]
    TooManyRows { file: String, rows: u64 },
    #[error("{file}: clip '{clip}' is {seconds:e} s long: {what} would take {count} frames, more than the {limit} rows a frame table can address; bake it at a lower fps (--fps), at the source's own keys (--fps auto), or shorten the clip in the source")]
    ClipTooLong {
        file: String,
        clip: String,
        seconds: f64,
        /// "sampling at 30 fps", or "the error budget's 480 candidate times a second".
        what: String,
        count: u64,
        limit: u64,
    },
    #[error("{file}: encoding {} cannot represent palette entry {entry} (node '{node}') in clip '{clip}' frame {frame}: {why}; use mat3x4-f32, or let the bake fall back to it automatically (not strict)", .encoding.as_str())]
    EncodingUnsupported {
        file: String,
        encoding: Encoding,
        entry: usize,
        node: String,
        clip: String,
        frame: u32,
        why: String,
    },
    #[error("{file}: clip '{clip}': the sampled matrices alone err {at_samples:.2e} (the {encoding} encoding and the {influences}-influence cut), more than half of the error budget {budget}, so no frame spacing can meet it; {advice}")]
    BudgetBelowSampleError {
        file: String,
        clip: String,
        at_samples: f64,
        budget: MaxError,
        encoding: &'static str,
        influences: u32,
        /// What would help, given the influences and encoding baked: allow more error, more
        /// influences (below 8), a finer encoding (not already f32 matrices), or a uniform rate.
        advice: String,
    },
    #[error("{file}: layer mask '{mask}': no joint of the palette is '{joint}' or below it; the joints are: {joints}")]
    UnknownMaskJoint {
        file: String,
        mask: String,
        joint: String,
        joints: String,
    },
    #[error("{file}: additive clip '{clip}': the reference pose at {time} s has a skin matrix that cannot be inverted (palette entry {entry}, node '{node}'); pick another reference time")]
    SingularReference {
        file: String,
        clip: String,
        time: f32,
        entry: usize,
        node: String,
    },
    #[error("{file}: material variant '{variant}': texture {path}: {what}")]
    VariantTexture {
        file: String,
        variant: String,
        path: String,
        /// What is wrong with the file and what to do.
        what: String,
    },
    #[error("{file}: material variant '{variant}': {what}")]
    BadVariant {
        file: String,
        variant: String,
        what: String,
    },
    #[error("{file}: {what}; the importer should have rejected this file, please report it")]
    InvalidModel { file: String, what: String },
    #[error("{file}: mesh {mesh} primitive {primitive} (node '{node}'): {what}")]
    BadPrimitive {
        file: String,
        node: String,
        mesh: usize,
        primitive: usize,
        what: String,
    },
}
