//! `throng bake` mesh extras (docs/design.md §3 "VAT", "Meshes", "Exports"): `--vat`, `--lod`,
//! `--variant` and `--export-dir`, and their lines in the bake summary.

use anyhow::Context;
use std::path::PathBuf;
use throng_asset::{BakedAsset, VatEncoding};
use throng_bake::{BakeOptions, TextureVariant};

#[derive(clap::Args, Debug, Clone, Default)]
pub struct MeshArgs {
    /// Bake a vertex animation texture per primitive (skinned positions and octahedral normals
    /// per frame-table row): positions as f32 (default), f16 or unorm16.
    #[arg(long, value_name = "STORAGE", value_enum, num_args = 0..=1, default_missing_value = "f32")]
    pub vat: Option<VatEncoding>,
    /// LODs as index-count ratios, each smaller than the one before, e.g. `--lod 0.5,0.25,0.1`
    /// (meshoptimizer's simplifier; a LOD it cannot bring near its ratio is a warning).
    #[arg(long = "lod", value_name = "R,R,...", value_delimiter = ',', value_parser = crate::cmd::shared::parse_lod)]
    pub lods: Vec<f32>,
    /// A material variant NAME whose textured materials show TEXTURE.png (PNG or JPEG) as base
    /// colour instead of their own texture; untextured materials stay as they are. A texture of
    /// another size than the one it replaces is resized to it (with a warning). Repeatable; the
    /// source's own variants (glTF KHR_materials_variants) come first.
    #[arg(long = "variant", value_name = "NAME=TEXTURE.png", value_parser = parse_variant)]
    pub variants: Vec<TextureVariant>,
    /// Bake the far-field tier: small pictures of the character from views around it, a few
    /// frames per clip, drawn on one card per instance once it covers fewer pixels than a
    /// picture holds (docs/design.md §3 "Far tier"). Optional `KEY=VALUE,...` over the
    /// defaults `tile=16,azimuths=16,elevations=30,fps=8,frames=8,clip-bytes=262144`
    /// (elevations in degrees separated by `/`).
    #[arg(long, value_name = "KEY=VALUE,...", num_args = 0..=1, default_missing_value = "", value_parser = parse_far_tier)]
    pub far_tier: Option<throng_bake::far_tier::FarTierSettings>,
    /// Also write every texture as KTX2 (exact formats), `manifest.json` and PNG previews here.
    #[arg(long, value_name = "DIR")]
    pub export_dir: Option<PathBuf>,
}

/// Puts the mesh flags into the bake options.
pub fn apply(args: &MeshArgs, options: &mut BakeOptions) {
    options.vat = args.vat;
    options.lods = args.lods.clone();
    options.texture_variants = args.variants.clone();
    options.far_tier = args.far_tier.clone();
}

fn parse_far_tier(s: &str) -> Result<throng_bake::far_tier::FarTierSettings, String> {
    s.parse()
}

/// `NAME=PATH`: a non-empty name (no `=` in it) and a non-empty path.
pub fn parse_variant(s: &str) -> Result<TextureVariant, String> {
    let Some((name, path)) = s.split_once('=') else {
        return Err(format!(
            "{s:?} is not NAME=TEXTURE.png (e.g. --variant red=fox_red.png)"
        ));
    };
    if name.trim().is_empty() || path.is_empty() {
        return Err(format!(
            "{s:?}: both the variant's name and the texture's path are needed (NAME=TEXTURE.png)"
        ));
    }
    Ok(TextureVariant {
        name: name.trim().to_string(),
        path: PathBuf::from(path),
    })
}

/// Summary lines: the material variants, triangles and simplification error per LOD, VAT size
/// per primitive, the far tier's bytes per clip.
pub fn print_summary(asset: &BakedAsset) {
    crate::cmd::inspect::baked::print_far_tier(asset, "  ");
    if !asset.variants.is_empty() {
        let names: Vec<&str> = asset.variants.iter().map(|v| v.name.as_str()).collect();
        println!(
            "  {} material variant(s): {} (throng inspect lists their materials)",
            names.len(),
            names.join(", ")
        );
    }
    for (i, p) in asset.primitives.iter().enumerate() {
        if !p.lods.is_empty() {
            let lods: Vec<String> = p
                .lods
                .iter()
                .map(|l| {
                    format!(
                        "{} → {} tris (error {:.1e} of the extent)",
                        l.ratio,
                        l.indices.len() / 3,
                        l.error
                    )
                })
                .collect();
            println!(
                "  primitive {i}: LOD 0 {} tris; {}",
                p.indices.len() / 3,
                lods.join(", ")
            );
        }
        if let Some(v) = &p.vat {
            println!(
                "  primitive {i}: VAT {} {} × {} texels in {} layer(s) ({} rows per frame), {} bytes",
                v.encoding.as_str(),
                v.width,
                v.texture_rows(),
                v.layers(),
                v.rows_per_frame(),
                v.byte_len()
            );
        }
    }
}

/// Writes the exports when `--export-dir` was given.
pub fn export(args: &MeshArgs, asset: &BakedAsset) -> anyhow::Result<()> {
    let Some(dir) = &args.export_dir else {
        return Ok(());
    };
    let m = throng_bake::export::export(asset, dir)
        .with_context(|| format!("exporting textures to {}", dir.display()))?;
    println!(
        "  exported {} texture(s) as KTX2 + PNG previews with {}",
        m.textures.len(),
        dir.join("manifest.json").display()
    );
    Ok(())
}
