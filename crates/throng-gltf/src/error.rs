//! Typed import errors. Every error names the file (first, in `Display`), the glTF element
//! (e.g. "accessor 12 (POSITION of mesh 3 primitive 0)") and says what to do about it.

/// An import failure: which file, and what went wrong where ([`ImportErrorKind`]). `Display`
/// is `FILE: what went wrong`.
pub type ImportError = throng_anim::FileError<ImportErrorKind>;

/// What went wrong. `element` strings name the glTF element, e.g. "accessor 12 (POSITION of
/// mesh 3 primitive 0)" or "node 4 (\"Hips\")".
#[derive(Debug, thiserror::Error)]
pub enum ImportErrorKind {
    #[error("cannot read the file: {source}; check the path and permissions")]
    Io {
        #[from]
        source: std::io::Error,
    },

    #[error("not a glTF file (neither a GLB binary nor a JSON object); pass a .gltf or .glb file")]
    NotGltf,

    #[error(
        "malformed JSON: {source}; the file is damaged or truncated, re-export it from the authoring tool"
    )]
    MalformedJson {
        #[source]
        source: serde_json::Error,
    },

    #[error(
        "the JSON is not a glTF 2.0 document: {source}; re-export it as glTF 2.0 or validate it with the Khronos glTF-Validator"
    )]
    NotGltfSchema {
        #[source]
        source: serde_json::Error,
    },

    #[error("malformed GLB container: {reason}; re-export the file or validate it with the Khronos glTF-Validator")]
    MalformedGlb { reason: String },

    #[error(
        "truncated file: {element} needs {needed} bytes but only {available} are present; the file was cut short, copy or download it again"
    )]
    Truncated {
        element: String,
        needed: u64,
        available: u64,
    },

    #[error(
        "{element}: cannot read external file {uri:?} ({reason}); put it next to the .gltf file or embed it (e.g. convert to .glb)"
    )]
    MissingExternalFile {
        element: String,
        uri: String,
        reason: String,
    },

    #[error("{element}: {reason}; fix the file or re-export it")]
    BadUri { element: String, reason: String },

    /// A buffer or image URI that could reach outside the asset folder, or names something that
    /// is not a regular file. Nothing outside the folder was opened or even looked up.
    #[error(
        "{element}: uri {uri:?} {problem}; throng reads external files only inside the asset's folder (or an asset root given to the import): move the file there or embed it (e.g. convert to .glb)"
    )]
    UnsafeUri {
        element: String,
        /// The URI as written (shortened to 200 characters).
        uri: String,
        problem: crate::uri::UriProblem,
    },

    #[error(
        "cannot resolve external files: {reason}; pass an asset root that contains the file's folder"
    )]
    AssetRoot { reason: String },

    #[error(
        "{element} refers to {target}, which does not exist; the file is inconsistent, re-export it"
    )]
    BadReference { element: String, target: String },

    #[error(
        "{element}: {reason}; re-export the file or validate it with the Khronos glTF-Validator"
    )]
    InvalidData { element: String, reason: String },

    #[error(
        "{element} holds a non-finite value (NaN or infinity) at {at}; fix the source scene and re-export"
    )]
    NonFinite { element: String, at: String },

    #[error(
        "the file requires extension {extension}, which throng cannot decode; write an uncompressed copy with a glTF tool first (e.g. `gltf-transform copy in.glb out.glb`) or re-export it without that extension"
    )]
    UnsupportedExtension { extension: String },

    #[error(
        "node hierarchy has a cycle through {element}; each node must have one parent and the tree must end at root nodes, fix the scene hierarchy and re-export"
    )]
    HierarchyCycle { element: String },

    #[error(
        "{element} is a child of several nodes ({parents}); glTF nodes have at most one parent, fix the scene hierarchy and re-export"
    )]
    MultipleParents { element: String, parents: String },

    #[error(
        "{element}: vertex {vertex} uses joint {joint} with weight {weight} but {skin} has only {joint_count} joints; re-export the skin with the mesh"
    )]
    JointOutOfRange {
        element: String,
        vertex: usize,
        joint: u32,
        weight: f32,
        skin: String,
        joint_count: usize,
    },

    #[error("{element}: key times {reason}; fix the animation's keys and re-export")]
    BadKeyTimes { element: String, reason: String },

    #[error("{element}: {reason}; re-export the animation (or bake it to LINEAR keys)")]
    BadSampler { element: String, reason: String },

    #[error("{element}: cannot decode the image ({reason}); convert it to PNG or JPEG")]
    ImageDecode { element: String, reason: String },

    #[error(
        "nothing to animate: the file has no skin and no mesh under a joint or an animated node; export the character with its armature/skin or node animation"
    )]
    NothingToAnimate,
}
