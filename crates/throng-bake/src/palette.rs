//! The asset's one palette (docs/design.md §3 "Palette", docs/cases.md 6 and 20): every distinct
//! (node, inverse bind matrix) pair used by any skin — inverse bind matrices compared bitwise, so
//! skins that share joints and bind matrices share entries — then one (node, identity) entry per
//! rigid part node. Entries are numbered in skin order, joint order, then rigid parts in node
//! order, so the palette is deterministic.

use crate::error::BakeError;
use glam::Mat4;
use std::collections::HashMap;
use throng_anim::{BindingKind, MeshBinding, Model};
use throng_asset::PaletteEntry;

/// Most palette entries: joint indices are stored as u16.
pub const MAX_PALETTE_ENTRIES: usize = u16::MAX as usize + 1;

/// The palette and how each skin's joints and each rigid node map into it.
#[derive(Debug, Clone, PartialEq)]
pub struct Palette {
    pub entries: Vec<PaletteEntry>,
    /// Per skin: skin joint index → palette entry.
    pub skin_maps: Vec<Vec<u16>>,
    /// The mesh bindings that animation moves (node order), from `Model::mesh_bindings`.
    pub bindings: Vec<MeshBinding>,
    /// Per binding: the entry of a rigid part's own node (`None` for skinned bindings).
    pub rigid_entries: Vec<Option<u16>>,
}

impl Palette {
    /// Palette entry of skin-joint (or rigid "joint 0") index `j` of binding `b`.
    pub fn entry_of(&self, b: usize, j: u16) -> Option<u16> {
        match self.bindings[b].kind {
            BindingKind::Skinned { skin } => self.skin_maps.get(skin)?.get(j as usize).copied(),
            BindingKind::Rigid => self.rigid_entries[b],
        }
    }

    /// The nodes whose model-space transforms the entries read (with repeats).
    pub fn nodes(&self) -> impl Iterator<Item = usize> + '_ {
        self.entries.iter().map(|e| e.node)
    }

    /// The skin matrices `S_j = W_j · IBM_j` of every entry, in entry order, from a pose's
    /// model-space node transforms `W` (docs/design.md §2).
    pub fn skin_matrices<'a>(&'a self, model_space: &'a [Mat4]) -> impl Iterator<Item = Mat4> + 'a {
        self.entries
            .iter()
            .map(|e| model_space[e.node] * e.inverse_bind_matrix)
    }
}

fn mat_bits(m: &Mat4) -> [u32; 16] {
    m.to_cols_array().map(f32::to_bits)
}

/// Builds the palette of `model`. Errors when nothing moves a mesh, or on indices out of range.
pub fn build(model: &Model, file: &str) -> Result<Palette, BakeError> {
    let bindings = model.mesh_bindings();
    if bindings.is_empty() {
        let why = if model.skins.is_empty() {
            "no skin and no mesh under a joint or an animated node".to_string()
        } else {
            format!(
                "{} skin(s) but no mesh node uses them (an animation-only file? bind its clips to a character that has the joints)",
                model.skins.len()
            )
        };
        return Err(BakeError::NothingToAnimate {
            file: file.to_string(),
            why,
        });
    }
    let node_count = model.nodes.len();
    let invalid = |what: String| BakeError::InvalidModel {
        file: file.to_string(),
        what,
    };
    let mut entries: Vec<PaletteEntry> = Vec::new();
    let mut index: HashMap<(usize, [u32; 16]), u16> = HashMap::new();
    let mut add = |node: usize, ibm: Mat4, rigid: bool| -> Result<u16, BakeError> {
        if node >= node_count {
            return Err(invalid(format!(
                "joint node {node} does not exist ({node_count} nodes)"
            )));
        }
        if let Some(&e) = index.get(&(node, mat_bits(&ibm))) {
            return Ok(e);
        }
        if entries.len() >= MAX_PALETTE_ENTRIES {
            return Err(invalid(format!(
                "more than {MAX_PALETTE_ENTRIES} distinct (joint, inverse bind matrix) pairs"
            )));
        }
        let e = entries.len() as u16;
        entries.push(PaletteEntry {
            node,
            name: model.nodes[node].display_name(node),
            inverse_bind_matrix: ibm,
            rigid,
        });
        index.insert((node, mat_bits(&ibm)), e);
        Ok(e)
    };
    let mut skin_maps = Vec::with_capacity(model.skins.len());
    for skin in &model.skins {
        let mut map = Vec::with_capacity(skin.joints.len());
        for (j, &node) in skin.joints.iter().enumerate() {
            // A missing inverse bind matrix is the identity (glTF 2.0 §3.8, docs/cases.md 5).
            let ibm = skin
                .inverse_bind_matrices
                .get(j)
                .copied()
                .unwrap_or(Mat4::IDENTITY);
            map.push(add(node, ibm, false)?);
        }
        skin_maps.push(map);
    }
    let mut rigid_entries = Vec::with_capacity(bindings.len());
    for b in &bindings {
        match b.kind {
            BindingKind::Skinned { skin } => {
                if skin >= model.skins.len() {
                    return Err(invalid(format!(
                        "node {} uses skin {skin}, but the file has {} skins",
                        b.node,
                        model.skins.len()
                    )));
                }
                rigid_entries.push(None);
            }
            BindingKind::Rigid => rigid_entries.push(Some(add(b.node, Mat4::IDENTITY, true)?)),
        }
        if b.mesh >= model.meshes.len() {
            return Err(invalid(format!(
                "node {} uses mesh {}, but the file has {} meshes",
                b.node,
                b.mesh,
                model.meshes.len()
            )));
        }
    }
    Ok(Palette {
        entries,
        skin_maps,
        bindings,
        rigid_entries,
    })
}
