//! Source files (glTF, GLB or FBX) for the tools: loading (with extra clip files bound by joint
//! name), finding clips, and the reference path of a source model (its bounds, its CPU-skinned
//! meshes, props).

use anyhow::Context;
use std::path::{Path, PathBuf};
use throng_anim::Model;
use throng_asset::BakedAsset;

use crate::file_name;

/// How a tool reads a source glTF: extra clip files and the folder its URIs may reach.
#[derive(Debug, Clone, Default)]
pub struct SourceOptions {
    /// Animation-only glTF files whose clips bind to the source skeleton by joint name.
    pub clips: Vec<PathBuf>,
    /// The folder a glTF's buffer and image URIs may reach (with `..`); `None`: each file's
    /// own folder. It must contain that folder.
    pub asset_root: Option<PathBuf>,
}

/// Imports one source file: FBX (by its `.fbx` extension or its first bytes, see
/// [`throng_fbx::is_fbx_path`]) through throng-fbx, anything else through throng-gltf.
fn import_source(path: &Path, options: &throng_gltf::ImportOptions) -> anyhow::Result<Model> {
    if throng_fbx::is_fbx_path(path) {
        Ok(throng_fbx::import(path)?)
    } else {
        Ok(throng_gltf::import_with(path, options)?)
    }
}

/// Imports `input` (glTF, GLB or FBX) and appends the clips of every `source.clips` file (any
/// of those formats, bound by joint name), with their binding warnings in the model's warnings.
/// A clip file none of whose animated nodes matches a node of the model is an error.
pub fn load_model(input: &Path, source: &SourceOptions) -> anyhow::Result<Model> {
    if throng_asset::is_baked_file(input) {
        anyhow::bail!(
            "{} is already a baked throng asset; pass the source glTF or FBX it was baked from",
            input.display()
        );
    }
    let options = throng_gltf::ImportOptions {
        asset_root: source.asset_root.clone(),
    };
    let mut model = import_source(input, &options)?;
    for other_path in &source.clips {
        let other = import_source(other_path, &options)
            .with_context(|| format!("loading clips from {}", other_path.display()))?;
        if throng_fbx::is_fbx_path(other_path) {
            // Scale helper nodes that the clip file has and the model lacks (docs/fbx.md).
            let notes = throng_fbx::add_scale_helpers(&mut model, &other);
            model.warnings.extend(notes);
        }
        let before = model.clips.len();
        let warnings = throng_gltf::import_clips_from(&mut model, &other, &file_name(other_path));
        // Clips with keys of which no channel found a node of the same name would bake as the
        // rest pose: the file animates another skeleton.
        let keyed = other.clips.iter().any(|c| !c.channels.is_empty());
        if keyed && model.clips[before..].iter().all(|c| c.channels.is_empty()) {
            anyhow::bail!(
                "{}: none of its animated nodes has a node of the same name in {}, so its clips would hold the rest pose; pass a clip file made for this skeleton (its joints named as the model's)",
                other_path.display(),
                file_name(input)
            );
        }
        model.warnings.extend(warnings);
        model
            .warnings
            .extend(empty_clip_warnings(&other, &file_name(other_path)));
    }
    Ok(model)
}

/// Warnings for a clip file that adds nothing that moves: no clip at all, or a clip without
/// keys (no channel, 0 s), which is still added and holds the rest pose.
fn empty_clip_warnings(other: &Model, name: &str) -> Vec<String> {
    if other.clips.is_empty() {
        return vec![format!(
            "{name} has no animation clips; it adds nothing (is it the mesh file, or was it exported without animation?)"
        )];
    }
    other
        .clips
        .iter()
        .filter(|c| c.channels.is_empty() && c.duration <= 0.0)
        .map(|c| {
            format!(
                "{name}: clip {:?} has no keys (no channel, 0 s); it is added but holds the rest pose (export it with its animation baked to keys)",
                c.name
            )
        })
        .collect()
}

/// "no clip named or numbered … (did you mean …?); the file has N clip(s): 0: a, 1: b".
fn no_clip(clip: &str, what: &str, names: impl Iterator<Item = String>) -> anyhow::Error {
    let names: Vec<String> = names.collect();
    let hint = throng_contract::clip_name_hint(clip, names.iter().map(String::as_str));
    let names: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, n)| format!("{i}: {n}"))
        .collect();
    anyhow::anyhow!(
        "no clip named or numbered {clip:?}{hint}; the {what} has {} clip(s): {}",
        names.len(),
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    )
}

/// A source model's clip by name or index.
pub fn find_clip(model: &Model, clip: &str) -> anyhow::Result<usize> {
    if let Some(i) = model.clips.iter().position(|c| c.name == clip) {
        return Ok(i);
    }
    match clip.parse::<usize>() {
        Ok(i) if i < model.clips.len() => Ok(i),
        _ => Err(no_clip(
            clip,
            "file",
            model.clips.iter().map(|c| c.name.clone()),
        )),
    }
}

/// A baked asset's clip by name or index.
pub fn find_baked_clip(asset: &BakedAsset, clip: &str) -> anyhow::Result<usize> {
    asset
        .find_clip(clip)
        .ok_or_else(|| no_clip(clip, "asset", asset.clips.iter().map(|c| c.name.clone())))
}

/// Bounds (model space, file units) of every skinned vertex of `model` over the rest pose and
/// every clip sampled at 30 fps: the source's counterpart of a baked asset's row bounds, so a
/// source drawn by the reference path is framed like its bake.
pub fn source_bounds(model: &Model) -> throng_asset::Aabb {
    let mut skinner = throng_anim::ModelSkinner::new(model);
    let mut b = throng_asset::Aabb::EMPTY;
    let mut parts = Vec::new();
    let mut add = |clip: Option<usize>, t: f32, parts: &mut Vec<throng_anim::SkinnedPart>| {
        skinner.skin(model, clip, t, throng_anim::Skinning::Linear, parts);
        for p in parts.iter() {
            p.vertices.positions.iter().for_each(|v| b.extend(*v));
        }
    };
    add(None, 0.0, &mut parts);
    for (c, clip) in model.clips.iter().enumerate() {
        let n = throng_bake::frames::frame_count(clip.duration as f64, 30.0);
        for k in 0..n {
            let t = if n > 1 {
                clip.duration * k as f32 / (n - 1) as f32
            } else {
                0.0
            };
            add(Some(c), t, &mut parts);
        }
    }
    b
}

/// The material of a source primitive as the renderer takes it (base colour factor and
/// texture transform), and its encoded base colour image.
fn source_material<'a>(
    model: &'a Model,
    prim: &throng_anim::Primitive,
) -> (throng_render::gpu_types::MaterialUniform, Option<&'a [u8]>) {
    use throng_render::gpu_types::MaterialUniform;
    let mat = prim.material.and_then(|m| model.materials.get(m));
    let tex = mat.and_then(|m| m.base_color_texture.as_ref());
    (
        mat.map(|m| {
            let (color, transform) = throng_bake::material_factors(m);
            MaterialUniform::new(color, &transform)
        })
        .unwrap_or(MaterialUniform::color(throng_render::DEFAULT_COLOR)),
        tex.and_then(|t| model.images.get(t.image))
            .map(|img| img.encoded.as_slice())
            .filter(|b| !b.is_empty()),
    )
}

/// A skinned primitive of `model` with the source's material.
fn part_mesh<'a>(model: &'a Model, p: &'a throng_anim::SkinnedPart) -> throng_render::PropMesh<'a> {
    let prim = &model.meshes[p.mesh].primitives[p.primitive];
    let (material, texture) = source_material(model, prim);
    throng_render::PropMesh {
        positions: &p.vertices.positions,
        normals: &p.vertices.normals,
        indices: &prim.indices,
        uvs: prim.uv0.as_deref(),
        material,
        texture,
    }
}

/// Reference meshes of a source model skinned on the CPU: `parts[i]` are instance i's skinned
/// primitives (throng-anim's `ModelSkinner`), drawn at `transforms[i]` with the source's
/// materials.
pub fn source_meshes<'a>(
    model: &'a Model,
    parts: &'a [Vec<throng_anim::SkinnedPart>],
    transforms: &'a [throng_render::InstanceTransform],
) -> Vec<throng_render::ReferenceMesh<'a>> {
    let mut meshes = Vec::new();
    for (inst, instance_parts) in parts.iter().enumerate() {
        for p in instance_parts {
            meshes.push(throng_render::ReferenceMesh {
                mesh: part_mesh(model, p),
                transforms: std::slice::from_ref(&transforms[inst]),
            });
        }
    }
    meshes
}

/// A prop: every mesh of a glTF as it stands — the rest pose, static
/// meshes included (`ModelSkinner::with_static_meshes`) — in the file's model space scaled by
/// `scale` about its origin. That space is the anchor's the prop is attached to.
pub struct PropSource {
    pub path: PathBuf,
    model: Model,
    parts: Vec<throng_anim::SkinnedPart>,
}

impl PropSource {
    /// Reads `path` (a source glTF); fails when it has no mesh with triangles.
    pub fn load(path: &Path, source: &SourceOptions, scale: f32) -> anyhow::Result<PropSource> {
        let model = load_model(
            path,
            &SourceOptions {
                clips: Vec::new(),
                ..source.clone()
            },
        )?;
        let mut parts = Vec::new();
        throng_anim::ModelSkinner::with_static_meshes(&model).skin(
            &model,
            None,
            0.0,
            throng_anim::Skinning::Linear,
            &mut parts,
        );
        for p in &mut parts {
            p.vertices.positions.iter_mut().for_each(|v| *v *= scale);
        }
        let triangles = parts
            .iter()
            .any(|p| model.meshes[p.mesh].primitives[p.primitive].indices.len() >= 3);
        if !triangles {
            anyhow::bail!(
                "{}: no mesh with triangles to draw as a prop",
                path.display()
            );
        }
        Ok(PropSource {
            path: path.to_path_buf(),
            model,
            parts,
        })
    }

    /// One mesh per primitive, with the file's materials.
    pub fn meshes(&self) -> Vec<throng_render::PropMesh<'_>> {
        self.parts
            .iter()
            .map(|p| part_mesh(&self.model, p))
            .filter(|m| m.indices.len() >= 3)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use throng_anim::model::{Clip, LoopMode};

    /// The tools' path for `--clips`: an FBX take file that scales compensated joints binds
    /// every channel to the mesh file's model (throng-fbx's tests check the motion itself).
    #[test]
    fn fbx_clip_files_bind_their_scale_helpers() {
        let Some(mesh) = throng_testdata::asset("fbx/ufbx/maya_game_sausage_7500_binary.fbx")
        else {
            return;
        };
        let take = mesh.with_file_name("maya_game_sausage_7500_binary_deform.fbx");
        let source = SourceOptions {
            clips: vec![take],
            asset_root: None,
        };
        let model = load_model(&mesh, &source).expect("load");
        let clip = &model.clips[0];
        assert_eq!((clip.name.as_str(), clip.channels.len()), ("deform", 21));
        assert!(
            !model
                .warnings
                .iter()
                .any(|w| w.contains("channels are dropped")),
            "{:?}",
            model.warnings
        );
    }

    #[test]
    fn clip_files_that_add_nothing_that_moves_are_named() {
        let mut other = Model::default();
        let w = empty_clip_warnings(&other, "mesh.fbx");
        assert!(
            w.len() == 1 && w[0].starts_with("mesh.fbx has no animation clips"),
            "{w:?}"
        );
        other.clips.push(Clip {
            name: "Take 001".into(),
            duration: 0.0,
            channels: Vec::new(),
            loop_mode: LoopMode::default(),
            events: Vec::new(),
            skipped_morph_channels: 0,
        });
        let w = empty_clip_warnings(&other, "walk.fbx");
        assert!(
            w.len() == 1 && w[0].starts_with("walk.fbx: clip \"Take 001\" has no keys"),
            "{w:?}"
        );
    }
}
