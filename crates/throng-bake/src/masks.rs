//! Layer masks (docs/design.md §4 "Layer masks and additive layers"): a named weight per
//! palette entry, authored as joint subtrees. Every entry whose node is one of the mask's roots
//! or hangs below one gets weight 1, every other entry 0. Stored in the asset
//! (`BakedAsset::masks`); a layer picks one at play time by its number.

use crate::error::BakeError;
use crate::nodes::{below_marked, find_node};
use crate::palette::Palette;
use throng_anim::Model;
use throng_asset::LayerMask;

/// One mask to bake: its name and the nodes whose subtrees it covers (by glTF node name,
/// `node<index>` for an unnamed node, `name#<index>` to pick one of several nodes with the same
/// name).
#[derive(Debug, Clone, PartialEq)]
pub struct MaskSetting {
    pub name: String,
    pub roots: Vec<String>,
}

impl MaskSetting {
    /// Parses `NAME=JOINT[,JOINT...]` (e.g. `upper=Spine`).
    pub fn parse(s: &str) -> Result<MaskSetting, String> {
        let bad = || format!("{s:?} is not a mask: give NAME=JOINT[,JOINT...], e.g. upper=Spine");
        let (name, roots) = s.split_once('=').ok_or_else(bad)?;
        let roots: Vec<String> = roots
            .split(',')
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty())
            .collect();
        if name.trim().is_empty() || roots.is_empty() {
            return Err(bad());
        }
        Ok(MaskSetting {
            name: name.trim().to_string(),
            roots,
        })
    }
}

/// The masks of `settings` over `palette`. Errors: more than [`throng_contract::MAX_MASKS`]
/// masks, a name given twice, or a root that is not a node of the model or moves no palette
/// entry (the error lists the joints a mask can name).
pub fn build(
    model: &Model,
    palette: &Palette,
    settings: &[MaskSetting],
    file: &str,
) -> Result<Vec<LayerMask>, BakeError> {
    let max = throng_contract::MAX_MASKS as usize;
    let bad = |what: String| BakeError::InvalidOption {
        file: file.to_string(),
        what,
    };
    if settings.len() > max {
        return Err(bad(format!(
            "{} layer masks, more than the {max} a layer can name",
            settings.len()
        )));
    }
    let joint_names = || {
        palette
            .entries
            .iter()
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out: Vec<LayerMask> = Vec::with_capacity(settings.len());
    for m in settings {
        if out.iter().any(|o| o.name == m.name) {
            return Err(bad(format!("layer mask {:?} is given twice", m.name)));
        }
        let mut weights = vec![0.0f32; palette.entries.len()];
        for r in &m.roots {
            // A name no node has and a node that moves nothing get the same answer: the joints
            // a mask can name.
            let unknown = || BakeError::UnknownMaskJoint {
                file: file.to_string(),
                mask: m.name.clone(),
                joint: r.clone(),
                joints: joint_names(),
            };
            let root = find_node(model, r, file, "layer mask joint").map_err(|_| unknown())?;
            // The root's subtree, found in one pass over the nodes.
            let mut root_mark = vec![false; model.nodes.len()];
            root_mark[root] = true;
            let below = below_marked(model, &root_mark);
            let mut moved = false;
            for (w, e) in weights.iter_mut().zip(&palette.entries) {
                if e.node == root || below.get(e.node).copied().unwrap_or(false) {
                    *w = 1.0;
                    moved = true;
                }
            }
            if !moved {
                return Err(unknown());
            }
        }
        out.push(LayerMask {
            name: m.name.clone(),
            roots: m.roots.clone(),
            weights,
        });
    }
    Ok(out)
}
