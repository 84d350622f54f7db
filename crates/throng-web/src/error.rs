//! The package's typed errors. In the browser each becomes a JavaScript `Error` whose message is
//! the error's message followed by its causes (`: cause`), the same text the native crates give.

use thiserror::Error;

/// Why a call of the JavaScript API failed.
#[derive(Debug, Error)]
pub enum WebError {
    #[error(transparent)]
    Asset(#[from] throng_asset::AssetError),
    #[error(transparent)]
    Decode(#[from] throng_asset::DecodeError),
    #[error(transparent)]
    Runtime(#[from] throng_runtime::RuntimeError),
    #[error(transparent)]
    Render(#[from] throng_render::RenderError),
    #[error(transparent)]
    Device(#[from] throng_render::DeviceError),
    /// A graph file or a parameter set (`playGraph`, `setParam`).
    #[error(transparent)]
    Graph(#[from] throng_graph::GraphError),
    #[error(transparent)]
    GraphRuntime(#[from] throng_graph_gpu::GraphRuntimeError),
    #[error("{0}")]
    Name(String),
    #[error("asset {asset} has no clip {clip:?}{}; its clips: {}", throng_contract::clip_name_hint(clip, clips.iter().map(String::as_str)), clips.join(", "))]
    NoSuchClip {
        asset: String,
        clip: String,
        clips: Vec<String>,
    },
    #[error("instance {id} is not alive (despawned, or never spawned by this crowd)")]
    NoSuchInstance { id: u32 },
    #[error("transform element {index} is {value}: every element of a transform must be finite")]
    NonFiniteTransform { index: usize, value: f32 },
    #[error("a transform needs 16 numbers (a column-major 4×4 matrix, as three.js Matrix4.elements), got {got}")]
    TransformLength { got: usize },
    #[error("transform row 4 is ({0}, {1}, {2}, {3}), not (0, 0, 0, 1): instances take affine transforms only (no projection)")]
    NotAffine(f32, f32, f32, f32),
    #[error("{what} must be finite (got {value})")]
    NotFinite { what: &'static str, value: f64 },
    #[error("unknown backend {got:?}: expected auto, webgpu or webgl2")]
    UnknownBackend { got: String },
    #[error("unknown layout {got:?}: expected grid or random")]
    UnknownLayout { got: String },
    #[error("{count} instances asked for; a crowd holds at most {max} here")]
    TooManyInstances { count: u32, max: u32 },
    #[error("no {backend} adapter: {why}")]
    NoAdapter { backend: &'static str, why: String },
    #[error(
        "the {backend} adapter {adapter} lacks {missing}, which throng's renderer needs; {advice}"
    )]
    MissingCapability {
        backend: &'static str,
        adapter: String,
        missing: String,
        advice: &'static str,
    },
    #[error("the canvas cannot show {backend} frames: {why}")]
    Surface { backend: &'static str, why: String },
    #[error("the GPU reported an error: {0}")]
    Gpu(String),
}

/// The error's message and the messages of its causes, joined by `: ` (what a JavaScript
/// `Error` carries, since JavaScript has no chain of causes to walk).
pub fn message_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        // `#[error(transparent)]` layers repeat their source's message.
        if !out.ends_with(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cause = c.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_chain_keeps_each_cause_once() {
        let e = WebError::from(throng_runtime::RuntimeError::BadWeight(2.0));
        assert_eq!(message_chain(&e), "blend weight must be in [0, 1] (got 2)");
        let bad = throng_asset::from_glb_bytes(b"glTF", "fox.glb").expect_err("truncated");
        let text = message_chain(&WebError::from(bad));
        assert!(text.starts_with("fox.glb"), "{text}");
    }
}
