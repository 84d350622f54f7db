//! The source model: what an importer produces and what sampling, reference skinning and the
//! baker read. Plain, editable data in glTF terms (glTF 2.0 §3.5 nodes, §3.7 meshes, §3.8 skins,
//! §3.11 animations). Units are the file's own (metres per the glTF spec), time in seconds,
//! angles in radians, matrices column-major, quaternions (x, y, z, w).
//!
//! Indices (`node`, `mesh`, `skin`, `material`, `image`) are the glTF indices of the source file
//! so that baked output can be matched with the source.

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use serde::{Deserialize, Serialize};

/// A node's local transform as translation, rotation (unit quaternion) and scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trs {
    pub translation: Vec3,
    pub rotation: Quat,
    pub scale: Vec3,
}

impl Trs {
    pub const IDENTITY: Trs = Trs {
        translation: Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: Vec3::ONE,
    };

    /// `T · R · S` as a column-major matrix (glTF 2.0 §3.5.3).
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

impl Default for Trs {
    fn default() -> Self {
        Trs::IDENTITY
    }
}

/// How a node's local transform is given in the file. A node with `matrix` cannot be the target
/// of animation (glTF 2.0 §3.5.3), so the matrix is kept exactly instead of being decomposed
/// (it may hold shear).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LocalTransform {
    Trs(Trs),
    Matrix(Mat4),
}

impl LocalTransform {
    pub fn to_mat4(&self) -> Mat4 {
        match self {
            LocalTransform::Trs(trs) => trs.to_mat4(),
            LocalTransform::Matrix(m) => *m,
        }
    }

    /// The TRS that animation channels start from. For a matrix node this is a decomposition,
    /// used only if a (non-conforming) file animates it anyway.
    pub fn trs(&self) -> Trs {
        match self {
            LocalTransform::Trs(trs) => *trs,
            LocalTransform::Matrix(m) => {
                let (scale, rotation, translation) = m.to_scale_rotation_translation();
                Trs {
                    translation,
                    rotation,
                    scale,
                }
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The glTF node name, if any.
    pub name: Option<String>,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub local: LocalTransform,
    pub mesh: Option<usize>,
    pub skin: Option<usize>,
}

impl Node {
    /// The name used in messages and anchor tables: the node name, or `node<index>`.
    pub fn display_name(&self, index: usize) -> String {
        match &self.name {
            Some(n) if !n.is_empty() => n.clone(),
            _ => format!("node{index}"),
        }
    }
}

/// A glTF skin (§3.8): joints (node indices) and their inverse bind matrices (identity when the
/// file has none).
#[derive(Debug, Clone, PartialEq)]
pub struct Skin {
    pub name: Option<String>,
    pub joints: Vec<usize>,
    /// One per joint, column-major, mapping model space to the joint's bind space.
    pub inverse_bind_matrices: Vec<Mat4>,
    /// `skin.skeleton`: only a hint (docs/cases.md 4).
    pub skeleton: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mesh {
    pub name: Option<String>,
    pub primitives: Vec<Primitive>,
}

/// One triangle-list primitive with every attribute decoded to f32 (normalised integer and
/// KHR_mesh_quantization attributes already converted).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Primitive {
    /// Bind-space positions (for a skinned mesh) or the node's local space (for a rigid part).
    pub positions: Vec<Vec3>,
    /// Unit normals; flat normals when the file has none (`generated_normals` is then true).
    pub normals: Vec<Vec3>,
    pub generated_normals: bool,
    /// xyz tangent and w = handedness (±1), only when present in the file.
    pub tangents: Option<Vec<Vec4>>,
    pub uv0: Option<Vec<Vec2>>,
    /// Triangle list; sequential when the file has no indices.
    pub indices: Vec<u32>,
    /// Every JOINTS_n set in order: per vertex four joint indices into the skin's `joints`.
    pub joint_sets: Vec<Vec<[u16; 4]>>,
    /// Every WEIGHTS_n set in order, decoded to f32 (c/255, c/65535 for normalised integers).
    pub weight_sets: Vec<Vec<[f32; 4]>>,
    pub material: Option<usize>,
    /// The material this primitive shows in material variants (glTF `KHR_materials_variants`
    /// mappings): `(variant, material)` pairs, `variant` an index into [`Model::variants`],
    /// sorted by variant, at most one per variant. A variant not listed keeps
    /// [`Self::material`]. Sparse, so its size follows the file's mappings, not variants ×
    /// primitives.
    pub variant_materials: Vec<(usize, usize)>,
}

impl Primitive {
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// The material shown in variant `variant` (an index into [`Model::variants`]), when that
    /// variant maps this primitive to one.
    pub fn variant_material(&self, variant: usize) -> Option<usize> {
        self.variant_materials
            .binary_search_by_key(&variant, |&(v, _)| v)
            .ok()
            .map(|i| self.variant_materials[i].1)
    }

    /// Most non-zero influences any vertex has (over all JOINTS_n/WEIGHTS_n sets).
    pub fn max_influences(&self) -> usize {
        (0..self.vertex_count())
            .map(|v| {
                self.weight_sets
                    .iter()
                    .map(|set| set[v].iter().filter(|w| **w > 0.0).count())
                    .sum::<usize>()
            })
            .max()
            .unwrap_or(0)
    }
}

/// KHR_texture_transform: uv' = T(offset) · R(rotation) · S(scale) · uv.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureTransform {
    pub offset: Vec2,
    /// Radians, counter-clockwise in UV space.
    pub rotation: f32,
    pub scale: Vec2,
}

impl Default for TextureTransform {
    fn default() -> Self {
        TextureTransform {
            offset: Vec2::ZERO,
            rotation: 0.0,
            scale: Vec2::ONE,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TextureRef {
    /// Index into `Model::images`.
    pub image: usize,
    pub transform: TextureTransform,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    pub name: Option<String>,
    /// Linear RGBA.
    pub base_color_factor: Vec4,
    pub base_color_texture: Option<TextureRef>,
    /// glTF 2.0's `metallicFactor` and `roughnessFactor`, in [0, 1]; not used by throng's own
    /// shading, kept for the baked file's standard glTF part (0 and 1 where the source has none).
    pub metallic_factor: f32,
    pub roughness_factor: f32,
    pub double_sided: bool,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            name: None,
            base_color_factor: Vec4::ONE,
            base_color_texture: None,
            metallic_factor: 0.0,
            roughness_factor: 1.0,
            double_sided: false,
        }
    }
}

/// A decoded image (sRGB RGBA8) and its original encoded bytes, so a baked file can embed it
/// unchanged.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    pub name: Option<String>,
    pub width: u32,
    pub height: u32,
    pub rgba8: Vec<u8>,
    pub encoded: Vec<u8>,
    /// `image/png` or `image/jpeg`.
    pub mime_type: String,
}

/// What a clip does at its ends: throng-contract's one loop-mode enum.
pub use throng_contract::limits::MAX_CLIP_SECONDS;
pub use throng_contract::LoopMode;

/// A named event at a clip time (seconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClipEvent {
    pub time: f32,
    pub name: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interpolation {
    Linear,
    Step,
    /// Three outputs per key: in-tangent, value, out-tangent (glTF 2.0 Appendix C).
    CubicSpline,
}

/// Keyframe values of one channel. For `CubicSpline` there are 3 values per key.
#[derive(Debug, Clone, PartialEq)]
pub enum ChannelValues {
    Translation(Vec<Vec3>),
    Rotation(Vec<Quat>),
    Scale(Vec<Vec3>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    pub node: usize,
    pub interpolation: Interpolation,
    /// Strictly increasing key times in seconds (validated at import).
    pub times: Vec<f32>,
    pub values: ChannelValues,
}

/// A glTF animation as a clip of TRS channels. Morph-weight channels are not kept (counted in
/// `skipped_morph_channels`).
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    pub name: String,
    /// Latest key time of any channel (seconds); the clip starts at t = 0 (docs/design.md §2).
    pub duration: f32,
    pub channels: Vec<Channel>,
    pub loop_mode: LoopMode,
    pub events: Vec<ClipEvent>,
    pub skipped_morph_channels: usize,
}

/// The first of `base`, `base (2)`, `base (3)`, … that `taken` does not hold: how throng names a
/// clip whose name another clip of the model already has (docs/settings.md "Clip names").
pub fn unique_clip_name(base: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_string();
    }
    (2usize..)
        .map(|n| format!("{base} ({n})"))
        .find(|name| !taken(name))
        .unwrap_or_else(|| base.to_string())
}

/// Renames every clip whose name an earlier clip already has (`Walk`, `Walk` → `Walk`,
/// `Walk (2)`), so that a name addresses one clip and a baked clip finds its source by name.
/// Returns one warning per renamed clip.
pub fn make_clip_names_unique(clips: &mut [Clip]) -> Vec<String> {
    let mut warnings = Vec::new();
    for i in 1..clips.len() {
        if !clips[..i].iter().any(|c| c.name == clips[i].name) {
            continue;
        }
        // a new name is free among the earlier clips and the later ones' own names
        let name = unique_clip_name(&clips[i].name, |n| clips.iter().any(|c| c.name == n));
        warnings.push(format!(
            "clip {i} has the name {:?} of an earlier clip; it is renamed {name:?} (each clip needs its own name to be chosen by it)",
            clips[i].name
        ));
        clips[i].name = name;
    }
    warnings
}

impl Clip {
    /// The local clip time (seconds, in [0, duration]) shown at time `t` (any sign) played with
    /// `mode`: the time rules of throng-contract, applied to a source clip at full rate.
    pub fn local_time(&self, mode: LoopMode, t: f64) -> f64 {
        throng_contract::wrap_time(mode, self.duration as f64, t).0
    }
}

/// A decoded glTF file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Model {
    pub nodes: Vec<Node>,
    /// Every node index, parents before children (one forward pass computes model space).
    pub eval_order: Vec<usize>,
    pub skins: Vec<Skin>,
    pub meshes: Vec<Mesh>,
    pub materials: Vec<Material>,
    pub images: Vec<Image>,
    pub clips: Vec<Clip>,
    /// Names of the material variants (glTF `KHR_materials_variants`), in the file's order;
    /// [`Primitive::variant_materials`] is indexed by position here.
    pub variants: Vec<String>,
    /// Non-fatal oddities found at import, one sentence each.
    pub warnings: Vec<String>,
}

/// How a node's mesh is moved by the skeleton.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingKind {
    /// Skinned by `skin`; the node's own transform is ignored (glTF 2.0 §3.7.3, docs/cases.md 1).
    Skinned { skin: usize },
    /// A mesh without a skin under a joint or an animated node: rigidly bound to its own node.
    Rigid,
}

/// One (node, mesh) pair that animation moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshBinding {
    pub node: usize,
    pub mesh: usize,
    pub kind: BindingKind,
}

impl Model {
    /// Nodes targeted by any TRS channel of any clip.
    pub fn animated_nodes(&self) -> Vec<bool> {
        let mut animated = vec![false; self.nodes.len()];
        for clip in &self.clips {
            for ch in &clip.channels {
                if let Some(a) = animated.get_mut(ch.node) {
                    *a = true;
                }
            }
        }
        animated
    }

    /// Nodes that are joints of any skin.
    pub fn joint_nodes(&self) -> Vec<bool> {
        let mut joint = vec![false; self.nodes.len()];
        for skin in &self.skins {
            for &j in &skin.joints {
                if let Some(x) = joint.get_mut(j) {
                    *x = true;
                }
            }
        }
        joint
    }

    /// The nodes whose model-space transforms skinning reads: the joints of every skin a mesh
    /// binding uses and every rigid part's own node (with repeats). Posing these and their
    /// ancestors alone ([`crate::Poser::of_nodes`]) skins every binding.
    pub fn skinning_nodes(&self) -> Vec<usize> {
        let mut nodes = Vec::new();
        for b in self.mesh_bindings() {
            match b.kind {
                BindingKind::Skinned { skin } => {
                    nodes.extend(self.skins.get(skin).iter().flat_map(|s| s.joints.iter()));
                }
                BindingKind::Rigid => nodes.push(b.node),
            }
        }
        nodes
    }

    /// Every node with a mesh that animation moves, in node order: skinned meshes, and meshes
    /// without a skin whose node or any ancestor is a joint or animated (rigid parts).
    pub fn mesh_bindings(&self) -> Vec<MeshBinding> {
        let animated = self.animated_nodes();
        let joint = self.joint_nodes();
        // Parents come first in eval_order, so "moved" propagates in one pass.
        let mut moved = vec![false; self.nodes.len()];
        for &n in &self.eval_order {
            let parent_moved = self.nodes[n].parent.is_some_and(|p| moved[p]);
            moved[n] = parent_moved || animated[n] || joint[n];
        }
        let mut out = Vec::new();
        for (i, node) in self.nodes.iter().enumerate() {
            let Some(mesh) = node.mesh else { continue };
            if let Some(skin) = node.skin {
                out.push(MeshBinding {
                    node: i,
                    mesh,
                    kind: BindingKind::Skinned { skin },
                });
            } else if moved[i] {
                out.push(MeshBinding {
                    node: i,
                    mesh,
                    kind: BindingKind::Rigid,
                });
            }
        }
        out
    }
}
