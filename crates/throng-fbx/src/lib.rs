//! FBX import (binary and ASCII FBX 7.x) into throng's source model
//! ([`throng_anim::model::Model`]), the same model the glTF importer fills, through the ufbx
//! library (C, bundled by the `ufbx` crate). docs/fbx.md lists what is read and what is not.
//!
//! What the model holds, in glTF's terms:
//! - **Space**: right-handed, +Y up, metres — ufbx converts the file's axes and unit
//!   (`target_axes`, `target_unit_meters`) in the geometry, the transforms and the keys alike,
//!   so the model's root has no conversion node. [`Model::warnings`] states the conversion.
//! - **Nodes**: every FBX node but the scene root, names kept (clips from other files bind by
//!   them). FBX pivots and pre/post rotations are folded into each node's TRS by ufbx; a node
//!   whose transform TRS cannot hold keeps its matrix (with a warning). Geometry transforms
//!   (3ds Max object offsets) are folded into the vertices; Maya's segment scale compensation
//!   becomes ordinary transforms (a helper node `JOINT (scale)` where a scale needs one).
//! - **Skins**: one per FBX skin deformer (a mesh's `Skin`); its joints are the clusters'
//!   bones (inverse bind matrix: the cluster's mesh-geometry → bone bind transform), then the
//!   other bones of the same skeleton (identity at rest), then — only when some vertex has no
//!   weight — the mesh's own node, which FBX uses to carry such vertices. Every influence is
//!   kept (sets of four, heaviest first).
//! - **Meshes**: one primitive per material part, polygons triangulated (quads from the f32
//!   positions, so a file's ASCII and binary encodings split them alike), vertices shared where
//!   position, normal and UV agree; positions in the mesh's geometry space; UV v flipped to
//!   glTF's top-left origin. Blend shapes are not read (a warning names them).
//! - **Clips**: one per take (anim stack), baked by ufbx to linear TRS keys at the file's frame
//!   rate. Times are FBX times: the clip starts at 0 and lasts to its latest key, as a glTF clip
//!   does (the take's own span is not used; see `anim`).
//! - **Materials**: base colour (factor × colour) and base colour texture, embedded or a PNG or
//!   JPEG next to the file, found by its base name only.
//!
//! Files are untrusted (docs/design.md §6): ufbx runs with a memory limit
//! ([`ImportOptions::memory_limit`]), reads no other file, and its results are checked where
//! they are used (indices, finite values, counts), so a bad file is an [`ImportError`] naming
//! the file, never a panic.
//!
//! ```no_run
//! use std::path::Path;
//! let mut model = throng_fbx::import(Path::new("character.fbx"))?;
//! let run = throng_fbx::import(Path::new("character@run.fbx"))?;
//! // Clips of another file bind by node name, as for glTF, once the model has the scale
//! // helper nodes the clip file has (Maya's segment scale compensation; see `clip_files`).
//! let notes = throng_fbx::add_scale_helpers(&mut model, &run);
//! # let _ = (&mut model, run, notes);
//! # Ok::<(), throng_fbx::ImportError>(())
//! ```

mod anim;
mod clip_files;
mod convert;
mod error;
mod load;
mod material;
mod mesh;
mod nodes;
mod options;

use std::path::Path;

use throng_anim::model::Model;

pub use clip_files::add_scale_helpers;
pub use error::{ImportError, ImportErrorKind};
pub use options::{is_fbx_path, looks_like_fbx, ImportOptions, DEFAULT_MEMORY_LIMIT};

/// Shared state of one import.
pub(crate) struct Ctx<'a> {
    pub scene: &'a ufbx::Scene,
    pub file: &'a str,
    pub options: &'a ImportOptions,
    pub warnings: Vec<String>,
}

impl Ctx<'_> {
    pub fn err(&self, kind: ImportErrorKind) -> ImportError {
        ImportError::new(self.file, kind)
    }

    pub fn warn(&mut self, message: String) {
        self.warnings.push(message);
    }
}

/// Imports a binary or ASCII FBX file with the default [`ImportOptions`]. Texture files are
/// looked for next to it.
pub fn import(path: &Path) -> Result<Model, ImportError> {
    import_with(path, &ImportOptions::default())
}

/// Imports a binary or ASCII FBX file.
pub fn import_with(path: &Path, options: &ImportOptions) -> Result<Model, ImportError> {
    throng_anim::import_file(path, options::read_input, |bytes, dir, name| {
        import_slice_with(bytes, dir, name, options)
    })
}

/// Imports FBX bytes. `base_dir` is where texture files that are not embedded are looked for
/// (None: only embedded textures); `name` is the file name used in errors and warnings.
pub fn import_slice(
    bytes: &[u8],
    base_dir: Option<&Path>,
    name: &str,
) -> Result<Model, ImportError> {
    import_slice_with(bytes, base_dir, name, &ImportOptions::default())
}

/// [`import_slice`] with options.
pub fn import_slice_with(
    bytes: &[u8],
    base_dir: Option<&Path>,
    name: &str,
    options: &ImportOptions,
) -> Result<Model, ImportError> {
    if !looks_like_fbx(&bytes[..bytes.len().min(1024)]) {
        return Err(ImportError::new(name, ImportErrorKind::NotFbx));
    }
    let scene = ufbx::load_memory(bytes, load::load_opts(options))
        .map_err(|e| load::error(name, &e, options, Some(bytes)))?;
    let mut ctx = Ctx {
        scene: &scene,
        file: name,
        options,
        warnings: Vec::new(),
    };
    ctx.warn(space_note(&scene));
    for w in scene.metadata.warnings.iter() {
        let count = if w.count > 1 {
            format!(" ({} times)", w.count)
        } else {
            String::new()
        };
        ctx.warn(format!("FBX reader: {}{count}", &*w.description));
    }
    let mut nodes = nodes::read_nodes(&mut ctx)?;
    let mats = material::read_materials(&mut ctx, base_dir)?;
    let (meshes, skins) = mesh::read_meshes(&mut ctx, &mut nodes, &mats.index)?;
    let mut clips = anim::read_clips(&mut ctx, &nodes)?;
    let renamed = throng_anim::model::make_clip_names_unique(&mut clips);
    for w in renamed {
        ctx.warn(w);
    }
    Ok(Model {
        nodes: nodes.nodes,
        eval_order: nodes.eval_order,
        skins,
        meshes,
        materials: mats.materials,
        images: mats.images,
        clips,
        variants: Vec::new(),
        warnings: ctx.warnings,
    })
}

/// One sentence saying what space the file was authored in and that it was converted.
fn space_note(scene: &ufbx::Scene) -> String {
    let s = &scene.settings;
    let axes = &s.axes;
    format!(
        "FBX {} {} from {:?} {}: axes right {:?}, up {:?}, front {:?}, 1 unit = {} m, converted to glTF's right-handed +Y up metres",
        scene.metadata.version,
        if scene.metadata.ascii { "ASCII" } else { "binary" },
        scene.metadata.latest_application.name.to_string(),
        &*scene.metadata.latest_application.version,
        axes.right,
        axes.up,
        axes.front,
        s.unit_meters
    )
}
