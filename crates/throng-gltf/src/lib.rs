//! glTF 2.0 import into throng's source model ([`throng_anim::model::Model`]), with typed
//! validation errors.
//!
//! Reads `.gltf` (external or data-URI buffers) and `.glb`; decodes KHR_mesh_quantization,
//! sparse accessors, normalised-integer attributes and keyframes; keeps the node hierarchy
//! (matrices exactly), every skin, every triangle primitive, every TRS animation channel and
//! the material variants of KHR_materials_variants.
//! Everything stays in the file's units (metres per glTF 2.0), seconds and radians, with
//! column-major matrices.
//!
//! Parsing uses the `gltf` crate's GLB reader and `gltf-json`'s document types, but not its
//! validation or accessor reader (see `source` and `accessor` for why); every index is checked
//! where it is used, so malformed input gives an [`ImportError`], never a panic.
//!
//! Non-fatal repairs (normalised quaternions, duplicate key times, skipped non-triangle
//! primitives, morph channels, ...) are listed in [`Model::warnings`].
//!
//! Files are untrusted (docs/design.md §6): a `.gltf`'s external buffers and images are read only
//! from regular files inside its folder, or inside [`ImportOptions::asset_root`] when one is
//! given to [`import_with`]; absolute paths, other schemes, `..` or links that leave the folder
//! are [`ImportErrorKind::UnsafeUri`] before anything outside is opened or looked up. A buffer
//! file is read up to its `byteLength` and no further, an image file up to 256 MiB.
//!
//! Flat normals: when a primitive has no NORMAL, each triangle's normal is put on its three
//! vertices. Indexed primitives are unwelded first (one vertex per index, sequential indices)
//! so that every face gets its exact normal; triangle soups (no indices) are kept as they are.

//! ```no_run
//! use std::path::Path;
//! let mut model = throng_gltf::import(Path::new("character.gltf"))?;
//! let anims = throng_gltf::import(Path::new("animations.glb"))?;
//! for warning in throng_gltf::import_clips_from(&mut model, &anims, "animations.glb") {
//!     eprintln!("warning: {warning}");
//! }
//! throng_gltf::check_animatable(&model, Path::new("character.gltf"))?;
//! # Ok::<(), throng_gltf::ImportError>(())
//! ```

mod accessor;
mod anim;
mod confine;
mod error;
mod material;
mod mesh;
mod nodes;
mod options;
mod retarget;
mod source;
mod uri;
mod validate;
mod variants;

use std::path::Path;

use throng_anim::model::Model;

pub use error::{ImportError, ImportErrorKind};
pub use options::ImportOptions;
pub use retarget::{check_animatable, import_clips_from};
pub use source::SUPPORTED_REQUIRED_EXTENSIONS;
pub use uri::UriProblem;

/// Shared state of one import: the parsed source, the file name for messages, warnings.
pub(crate) struct Ctx<'a> {
    pub src: &'a source::Source,
    pub file: &'a str,
    pub warnings: Vec<String>,
}

impl Ctx<'_> {
    pub fn err(&self, kind: ImportErrorKind) -> ImportError {
        ImportError::new(self.file, kind)
    }

    pub fn warn(&mut self, message: String) {
        self.warnings.push(message);
    }

    /// `index` when it is below `count`, the length of the glTF array it points into; else
    /// `BadReference`: `element` refers to "`what` `index`" (e.g. "mesh 9"), which does not
    /// exist.
    pub fn check_index(
        &self,
        element: &str,
        what: &str,
        index: usize,
        count: usize,
    ) -> Result<usize, ImportError> {
        if index < count {
            return Ok(index);
        }
        Err(self.err(ImportErrorKind::BadReference {
            element: element.into(),
            target: format!("{what} {index}"),
        }))
    }
}

/// Imports a `.gltf` or `.glb` file; external buffers and images are read only from inside its
/// folder (docs/design.md §6). Same as [`import_with`] with the default [`ImportOptions`].
pub fn import(path: &Path) -> Result<Model, ImportError> {
    import_with(path, &ImportOptions::default())
}

/// Imports a `.gltf` or `.glb` file; external buffers and images are read only from inside
/// `options.asset_root` (default: the file's folder).
pub fn import_with(path: &Path, options: &ImportOptions) -> Result<Model, ImportError> {
    throng_anim::import_file(path, options::read_input, |bytes, dir, name| {
        import_slice_with(bytes, dir, name, options)
    })
}

/// Imports glTF or GLB bytes. `base_dir` resolves relative URIs, which must stay inside it
/// (None: only embedded data is allowed); `name` is the file name used in errors and warnings.
pub fn import_slice(
    bytes: &[u8],
    base_dir: Option<&Path>,
    name: &str,
) -> Result<Model, ImportError> {
    import_slice_with(bytes, base_dir, name, &ImportOptions::default())
}

/// [`import_slice`] with options: relative URIs resolve against `base_dir` (or, without one,
/// against `options.asset_root`) and must stay inside `options.asset_root` (default:
/// `base_dir`).
pub fn import_slice_with(
    bytes: &[u8],
    base_dir: Option<&Path>,
    name: &str,
    options: &ImportOptions,
) -> Result<Model, ImportError> {
    let src = source::parse(bytes, base_dir, options, name)?;
    let mut ctx = Ctx {
        src: &src,
        file: name,
        warnings: src.warnings.clone(),
    };
    let (nodes, eval_order) = nodes::read_nodes(&mut ctx)?;
    let skins = nodes::read_skins(&mut ctx)?;
    let meshes = mesh::read_meshes(&mut ctx)?;
    let materials = material::read_materials(&mut ctx)?;
    let images = material::read_images(&mut ctx, &materials)?;
    let mut clips = anim::read_clips(&mut ctx)?;
    for w in throng_anim::model::make_clip_names_unique(&mut clips) {
        ctx.warn(w);
    }
    let variants = variants::read_names(&mut ctx);
    let mut model = Model {
        nodes,
        eval_order,
        skins,
        meshes,
        materials,
        images,
        clips,
        variants,
        warnings: Vec::new(),
    };
    mesh::check_joint_ranges(&mut ctx, &mut model)?;
    model.warnings = ctx.warnings;
    Ok(model)
}
