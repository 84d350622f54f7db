//! Clips from another file (docs/cases.md 18): animation-only files drive a model's skeleton when
//! their target nodes match the model's nodes by name.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use throng_anim::model::{unique_clip_name, Model};

use crate::error::{ImportError, ImportErrorKind as K};

/// Appends `other`'s clips to `model.clips`, retargeting every channel to the node of `model`
/// with the same name (glTF node names; unnamed nodes never match). Channels whose target has
/// no match are dropped. Key values are used as they are (local TRS in the other file's units).
///
/// A clip whose name the model already has is renamed: to `other_name`'s stem when `other` has
/// one clip (`mixamo.com` from `Jump.fbx` becomes `Jump`), else to `name (2)`, `name (3)`, …
/// (see [`unique_clip_name`]), so every clip keeps a name of its own.
///
/// Returns warnings (for `other_name`): one listing every unmatched target node, and one per
/// renamed clip or clip left without channels.
pub fn import_clips_from(model: &mut Model, other: &Model, other_name: &str) -> Vec<String> {
    let mut warnings = Vec::new();
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    let mut duplicate_names = BTreeSet::new();
    for (i, n) in model.nodes.iter().enumerate() {
        if let Some(name) = n.name.as_deref().filter(|s| !s.is_empty()) {
            if by_name.contains_key(name) {
                duplicate_names.insert(name.to_string());
            } else {
                by_name.insert(name, i);
            }
        }
    }
    let mut unmatched = BTreeSet::new();
    let mut new_clips: Vec<throng_anim::model::Clip> = Vec::with_capacity(other.clips.len());
    for clip in &other.clips {
        let mut c = clip.clone();
        c.channels.clear();
        for ch in &clip.channels {
            let target = other.nodes.get(ch.node).and_then(|n| n.name.as_deref());
            match target.and_then(|name| by_name.get(name)) {
                Some(&node) => {
                    let mut ch = ch.clone();
                    ch.node = node;
                    c.channels.push(ch);
                }
                None => {
                    let label = other
                        .nodes
                        .get(ch.node)
                        .map_or_else(|| format!("node{}", ch.node), |n| n.display_name(ch.node));
                    unmatched.insert(label);
                }
            }
        }
        if c.channels.is_empty() && !clip.channels.is_empty() {
            warnings.push(format!(
                "{other_name}: clip {:?} has no channel left after matching nodes by name",
                clip.name
            ));
        }
        let taken = |n: &str| {
            model.clips.iter().any(|m| m.name == n) || new_clips.iter().any(|m| m.name == n)
        };
        if taken(&c.name) {
            // Exporters give every take one name (Mixamo: `mixamo.com`): a file of one clip
            // names it better than a number does.
            let stem = Path::new(other_name).file_stem().and_then(|s| s.to_str());
            let base = match stem {
                Some(stem) if other.clips.len() == 1 && !stem.is_empty() => stem,
                _ => c.name.as_str(),
            };
            let name = unique_clip_name(base, taken);
            warnings.push(format!(
                "{other_name}: clip {:?} has the name of a clip already in the model; it is added as {name:?}",
                c.name
            ));
            c.name = name;
        }
        new_clips.push(c);
    }
    if !duplicate_names.is_empty() {
        warnings.push(format!(
            "{other_name}: the model has several nodes named {}; the first of each is animated",
            duplicate_names.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    if !unmatched.is_empty() {
        warnings.push(format!(
            "{other_name}: {} animated nodes have no node of the same name in the model; their channels are dropped: {}",
            unmatched.len(),
            unmatched.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    model.clips.extend(new_clips);
    warnings
}

/// Errors with [`K::NothingToAnimate`] when the model has no mesh that animation moves (no
/// skinned mesh and no rigid part, see `Model::mesh_bindings`). Import itself accepts such
/// files so they can be inspected; the baker calls this.
pub fn check_animatable(model: &Model, file: &Path) -> Result<(), ImportError> {
    if model.mesh_bindings().is_empty() {
        return Err(ImportError::new(
            &file.display().to_string(),
            K::NothingToAnimate,
        ));
    }
    Ok(())
}
