//! throng's built-in demo character: a fox generated entirely in code and written as a glTF 2.0
//! binary (GLB), so every throng command and test has a skinned, animated asset without any
//! external file.
//!
//! The fox: 24 joints (root, hips, spine, chest, neck, head, two ears, four legs of three joints,
//! a four-joint tail), a single skinned primitive of smooth swept tubes (about 8,900 vertices,
//! up to four influences per vertex), one material (`baseColorFactor` fox orange × a small
//! generated PNG), and four clips keyed at 30 fps with LINEAR interpolation: `idle`, `walk`,
//! `run` (looping) and `sit` (`"loop": "once"`), with `animations[i].extras.throng` loop modes
//! and events (docs/design.md §2). Units are metres, +Y up, facing +Z; time in seconds.
//!
//! Generation is deterministic: the same bytes on every call and every run (no hash-map
//! order, no clock; the only floating-point library calls are `sin`/`cos`/`powi`, so another
//! platform's libm could differ in the last bit). It takes about 4 ms in a release build.
//!
//! The tests read the file back with the `gltf` crate and with `throng-gltf`, and run the
//! Khronos glTF-Validator through `tests/validate.mjs` when `node` and the npm package are
//! found: install it with `npm install --prefix <dir> gltf-validator` and set
//! `GLTF_VALIDATOR_DIR=<dir>` (also looked for in /tmp/gv and in a `node_modules` beside the
//! repository). Outside CI a missing validator skips that test; with `CI` set it fails.

mod band;
mod body;
mod clips;
mod glb;
mod shape;
mod skeleton;
mod texture;

pub use clips::{DemoLoop, FPS};

/// Fox orange, linear RGB (sRGB ≈ #E2742B), opaque.
pub const BASE_COLOR: [f32; 4] = [0.76, 0.18, 0.025, 1.0];

/// Summary of one clip of the demo asset.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoClip {
    pub name: &'static str,
    /// Seconds.
    pub duration: f32,
    pub loop_mode: DemoLoop,
    pub keys: usize,
    /// (time in seconds, name), sorted by time.
    pub events: Vec<(f32, String)>,
}

/// What `demo_glb` contains, for messages and tests.
#[derive(Debug, Clone, PartialEq)]
pub struct DemoDescription {
    pub joints: usize,
    pub joint_names: Vec<&'static str>,
    pub vertices: usize,
    pub triangles: usize,
    pub clips: Vec<DemoClip>,
    /// Size of the GLB in bytes.
    pub bytes: usize,
}

struct DemoModel {
    joints: Vec<skeleton::Joint>,
    mesh: shape::MeshData,
    clips: Vec<clips::ClipData>,
    png: Vec<u8>,
}

fn build() -> DemoModel {
    let joints = skeleton::joints();
    let mesh = body::build_mesh();
    let clips = clips::build_clips(&joints);
    DemoModel {
        joints,
        mesh,
        clips,
        png: texture::png(),
    }
}

fn encode(model: &DemoModel) -> Vec<u8> {
    glb::write(&glb::GlbInput {
        joints: &model.joints,
        mesh: &model.mesh,
        clips: &model.clips,
        png: &model.png,
        base_color: BASE_COLOR,
    })
}

/// The demo fox as GLB bytes (glTF 2.0 binary). Deterministic.
pub fn demo_glb() -> Vec<u8> {
    encode(&build())
}

/// A summary of the demo fox (joints, vertices, clips, size) without parsing the GLB.
pub fn demo_description() -> DemoDescription {
    let model = build();
    let bytes = encode(&model).len();
    DemoDescription {
        joints: model.joints.len(),
        joint_names: model.joints.iter().map(|j| j.name).collect(),
        vertices: model.mesh.vertex_count(),
        triangles: model.mesh.indices.len() / 3,
        clips: model
            .clips
            .iter()
            .map(|c| DemoClip {
                name: c.name,
                duration: c.duration,
                loop_mode: c.loop_mode,
                keys: c.times.len(),
                events: c.events.clone(),
            })
            .collect(),
        bytes,
    }
}
