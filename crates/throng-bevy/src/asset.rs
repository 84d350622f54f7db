//! The baked asset as a Bevy asset, and its loader (throng-asset reads and validates the file).

use std::sync::Arc;

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, Handle, LoadContext, RenderAssetUsages};
use bevy::image::{CompressedImageFormats, Image, ImageSampler, ImageType};
use bevy::reflect::TypePath;
use throng_asset::BakedAsset;

/// A baked throng file (`throng bake` output, one `.glb` per character) loaded into Bevy.
///
/// The data is throng-asset's [`BakedAsset`], shared (`Arc`), so the render world's copy and
/// every crowd's runtime read the same clip table. Base-colour images are Bevy [`Image`]s, one
/// per image of the file in file order (labels `image0`, `image1`, …), sampled with Bevy's
/// default sampler; `None` where an image could not be decoded, with a warning. They are the
/// application's: the crowd draw decodes the file's images into its own base colour arrays
/// (one layer per image a primitive's material slots use, `render::materials`), where an
/// undecodable image draws white.
#[derive(Asset, TypePath, Clone)]
pub struct ThrongAsset {
    pub baked: Arc<BakedAsset>,
    pub images: Vec<Option<Handle<Image>>>,
}

impl ThrongAsset {
    /// A clip's index by name (or by its index written as a number), as `throng` resolves
    /// `--clip`.
    pub fn clip(&self, name: &str) -> Option<usize> {
        self.baked.find_clip(name)
    }

    /// An anchor's index by node name, if the file was baked with that anchor.
    pub fn anchor(&self, name: &str) -> Option<usize> {
        self.baked
            .anchors
            .as_ref()?
            .anchors
            .iter()
            .position(|a| a.name == name)
    }
}

/// Why a baked file did not load.
#[derive(Debug, thiserror::Error)]
pub enum ThrongLoadError {
    #[error("reading {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Asset(#[from] throng_asset::AssetError),
}

/// Loads baked `.glb` files as [`ThrongAsset`]. It claims only the `throng.glb` extension, so
/// `bevy_gltf` keeps `.glb` (labelled loads such as `Fox.glb#Scene0` choose by extension);
/// a typed load of any name, `asset_server.load::<ThrongAsset>("fox.glb")`, still comes here,
/// because Bevy picks the only loader of the requested type.
#[derive(Default, TypePath)]
pub struct ThrongAssetLoader;

impl AssetLoader for ThrongAssetLoader {
    type Asset = ThrongAsset;
    type Settings = ();
    type Error = ThrongLoadError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<ThrongAsset, ThrongLoadError> {
        let path = load_context.path().to_string();
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|source| ThrongLoadError::Io {
                path: path.clone(),
                source,
            })?;
        let baked = throng_asset::from_glb_bytes(&bytes, &path)?;
        let images = baked
            .images
            .iter()
            .enumerate()
            .map(|(i, img)| {
                decode_image(img, &path, i)
                    .map(|image| load_context.add_labeled_asset(format!("image{i}"), image))
            })
            .collect();
        Ok(ThrongAsset {
            baked: Arc::new(baked),
            images,
        })
    }

    fn extensions(&self) -> &[&str] {
        &["throng.glb"]
    }
}

/// One embedded image of a baked file as a Bevy image (sRGB: glTF base colour textures are
/// sRGB-encoded), or `None` with a warning when its format is not one Bevy was built to read.
pub(crate) fn decode_image(
    img: &throng_asset::BakedImage,
    file: &str,
    index: usize,
) -> Option<Image> {
    match Image::from_buffer(
        &img.bytes,
        ImageType::MimeType(&img.mime_type),
        CompressedImageFormats::NONE,
        true,
        ImageSampler::Default,
        RenderAssetUsages::RENDER_WORLD,
    ) {
        Ok(image) => Some(image),
        Err(e) => {
            bevy::log::warn!(
                "{file}: image {index} ({}) not decoded: {e}; its material draws its base colour factor only",
                img.mime_type
            );
            None
        }
    }
}

/// A [`ThrongAsset`] from a baked asset made in memory (e.g. baked at start-up): its images go
/// into `images` directly instead of being labelled sub-assets of a file.
pub fn from_baked(baked: BakedAsset, images: &mut bevy::asset::Assets<Image>) -> ThrongAsset {
    let handles = baked
        .images
        .iter()
        .enumerate()
        .map(|(i, img)| decode_image(img, &baked.source_name, i).map(|im| images.add(im)))
        .collect();
    ThrongAsset {
        baked: Arc::new(baked),
        images: handles,
    }
}
