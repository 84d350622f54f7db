//! What to draw and how: [`RenderOptions`], the skinning path and the debug views.

/// Format of the offscreen colour target of [`crate::Renderer::render_scene`].
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// Depth format of the main pass and the shadow map.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Format of the motion vector target (docs/design.md §5 "Motion vectors"): per pixel the
/// screen-space motion from the previous frame, in UV units (fractions of the width and
/// height, +x right, +y down).
pub const MOTION_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rg16Float;
/// The motion the motion debug view shows at full brightness, pixels per frame.
pub const MOTION_VIEW_PIXELS: f32 = 8.0;
/// [`RenderOptions::far_fade`]'s default: the card fades in over the distances at which its
/// texel shrinks from `lod_bias` to 0.7 · `lod_bias` pixels (about 1.4× farther).
pub const DEFAULT_FAR_FADE: f32 = 0.3;
/// Base colour of primitives without a material (linear RGBA).
pub const DEFAULT_COLOR: [f32; 4] = [0.6, 0.6, 0.62, 1.0];

/// How the vertices of a crowd are animated (docs/design.md §5 "Skinning paths").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum SkinPath {
    /// The vertex shader skins with matrices read from the bone texture.
    #[default]
    Texture,
    /// After culling, a compute pass blends each drawn instance's skin matrices once (frames
    /// interpolated, layers blended) into a palette buffer; the vertex shader reads one matrix
    /// (or dual quaternion) per influence.
    Palette,
    /// The vertex shader fetches baked positions and normals (every primitive needs a VAT).
    Vat,
    /// Vertices skinned on the CPU and uploaded each frame (`Renderer::render_reference`): the
    /// classic baseline.
    Reference,
}

/// How the shadow pass picks each caster's LOD (docs/design.md §5 "Shadow LOD").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ShadowLod {
    /// The coarsest LOD whose simplification error covers at most `lod_bias` shadow-map texels
    /// (the light's camera is orthographic: the same at any distance), but never finer than
    /// the view's: a shadow needs no more detail than its caster shows.
    #[default]
    Texel,
    /// Always the coarsest LOD a view may pick (the cheapest shadows): the far tier's cards when
    /// it is drawn, else the coarsest mesh.
    Lowest,
    /// The LOD the main view chose for the instance.
    Main,
}

/// What a debug view colours the crowd by (docs/design.md §5 "Debug views"); GPU paths only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum DebugView {
    /// Heat map (blue 0 → red 1) of the weight of the chosen palette entry (`--debug-joint`,
    /// `RenderOptions::debug_joint`); without one, of 1 − the vertex's largest weight (red where
    /// joints share a vertex).
    Weights,
    /// A colour per palette index of each vertex's strongest influence.
    Palette,
    /// Heat map of the frame row (bone-texture row) of the first active layer.
    Row,
    /// A colour per LOD level.
    Lod,
    /// Motion vectors (turns them on; palette path): hue by direction, brightness by length,
    /// full at 8 px per frame; black where a drawn surface did not move, the background where
    /// nothing is drawn.
    Motion,
    /// The world-space normal as colour, `n · 0.5 + 0.5` per channel (x red, y green, z blue;
    /// back faces with the flipped normal), unlit: checks the positions and normals of every
    /// skinning path, and is what throng-bevy's `ThrongDebugView::Normals` writes, so the two
    /// renderers' pictures of one scene compare pixel for pixel. Written into the sRGB target
    /// as linear values (the PNG holds them sRGB-encoded).
    Normals,
}

impl DebugView {
    /// The `FrameUniform.debug` words of a view (None: normal shading).
    pub(crate) fn words(view: Option<DebugView>, joint: Option<u32>) -> [u32; 4] {
        match view {
            None => [0, 0, 0, 0],
            Some(DebugView::Weights) => [1, joint.unwrap_or(u32::MAX), 0, 0],
            Some(DebugView::Palette) => [2, 0, 0, 0],
            Some(DebugView::Row) => [3, 0, 0, 0],
            Some(DebugView::Lod) => [4, 0, 0, 0],
            Some(DebugView::Motion) => [5, 0, 0, 0],
            Some(DebugView::Normals) => [6, 0, 0, 0],
        }
    }
}

/// What to draw around the crowd and how.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RenderOptions {
    /// Image size in pixels.
    pub width: u32,
    pub height: u32,
    pub skinning: throng_contract::Skinning,
    /// Texture, palette or VAT skinning (the reference path has its own call).
    pub path: SkinPath,
    /// `None`: framed from the scene's bounds ([`crate::Camera::framing`]).
    pub camera: Option<crate::Camera>,
    /// Bounds of the scene (world space, file units) that place the ground, the shadow camera
    /// and the framing camera. `None`: the crowds' bounds (each asset's bounds over every baked
    /// row, moved by every instance transform) or, on the reference path, the uploaded
    /// vertices' — give the same bounds to two paths for images that match pixel by pixel.
    pub scene: Option<throng_asset::Aabb>,
    /// Draw the checkered ground plane under the crowd.
    pub ground: bool,
    /// Cull instances on the GPU (view frustum and shadow camera vs each instance's box), pick
    /// LODs and draw with indirect draws; off: draw every instance at LOD 0.
    pub cull: bool,
    /// Culling boxes from the frame-table rows each instance shows (the baked per-row bounds,
    /// docs/design.md §5); off: from the union over its clips' rows (a looser box, for
    /// comparison).
    pub row_bounds: bool,
    /// With `cull`: also cull instances hidden behind others (docs/design.md §5 "Occlusion
    /// culling"): the main pass draws in two phases around a depth pyramid. Never changes the
    /// image; saves work from the second frame of a view on (the renderer remembers what the
    /// last frame saw). Shadow casters are culled by the frustums only.
    pub occlusion: bool,
    /// Shadows of the directional light (a depth pass with the same skinning).
    pub shadows: bool,
    /// Shadow map size, texels per side.
    pub shadow_map_size: u32,
    /// Largest projected LOD simplification error allowed, pixels: larger picks coarser LODs
    /// nearer the camera; 0 keeps LOD 0 everywhere.
    pub lod_bias: f32,
    /// Draw an asset's far tier (docs/design.md §5 "Far tier"), when it has one, past its mesh
    /// LODs: an instance whose far-tier texel covers at most `lod_bias` pixels is one card.
    /// Off: such instances stay at the coarsest mesh LOD.
    pub far_tier: bool,
    /// Width of the crossfade between the coarsest mesh and the far card, as a share of
    /// `lod_bias`: in the main view the card starts to show where one of its texels covers
    /// `lod_bias` pixels (seen from the nearest point of its sphere) and shows alone where it
    /// covers `(1 − far_fade) · lod_bias`; between, the two draw complementary halves of a
    /// screen-door pattern in proportion, so an instance walking away does not pop. 0: a hard
    /// switch. The shadow pass switches without a fade. Clamped to 0..1.
    pub far_fade: f32,
    /// Draw a far card whose screen box holds a single pixel centre as one point at that centre
    /// (the same fragment the card would make there, or none), in one non-instanced draw: the
    /// same picture at a fraction of the cost where most cards of a large crowd are that small
    /// (docs/design.md §5 "Far tier"). Off: every card is an instanced quad, as the downlevel
    /// mode always draws them.
    pub far_dots: bool,
    /// Influences per vertex used by LOD 0, 1, 2 and 3+ (0: all the asset has).
    pub lod_influences: [u32; 4],
    /// How the shadow pass picks its LOD per caster.
    pub shadow_lod: ShadowLod,
    /// At most this many influences per vertex in the shadow pass (0: as the main view).
    pub shadow_influences: u32,
    /// A debug view instead of normal shading.
    pub debug: Option<DebugView>,
    /// With [`DebugView::Weights`]: the palette entry whose weight is shown.
    pub debug_joint: Option<u32>,
    /// Linear RGBA clear colour.
    pub background: [f32; 4],
    /// The palette path's update-rate LOD (docs/design.md §5 "Update-rate LOD"): an instance
    /// at LOD 0, 1, 2 and 3+ computes its palette every N-th frame (phase spread by instance,
    /// so 1/N of them each frame); in between it keeps its last matrices. 0 or 1: every frame.
    /// Needs culling (the LOD is the culling pass's); the default computes every frame.
    pub palette_refresh: [u32; 4],
    /// Motion vectors (docs/design.md §5 "Motion vectors"): the main pass also writes each
    /// pixel's screen-space motion since the previous frame into a [`MOTION_FORMAT`] target
    /// (read back in [`crate::RenderedFrame::motion`], or [`crate::Renderer::motion_target`]),
    /// from the previous frame's palette, instance transforms and camera, which the renderer
    /// keeps. Errors: [`crate::RenderError::MotionVectorsNeedPalette`] off the palette path,
    /// [`crate::RenderError::MotionVectorsWithProps`] with props. A renderer's first frame with
    /// motion vectors shows no motion (there is no previous frame); a crowd whose history is
    /// new (its first frame, or its buffers remade for more instances) shows only the
    /// camera's motion. With update-rate LOD an instance not recomputed this frame shows no
    /// motion of its own: it is drawn as it was. [`RenderOptions::motion`] says whether a
    /// frame writes them.
    pub motion_vectors: bool,
    /// Draw in the downlevel mode (docs/downlevel.md) even where the device runs the full one:
    /// CPU culling and LOD selection, instances from a data texture, plain instanced draws, no
    /// compute and no storage buffers — what a device without compute shaders (WebGL2, GL ES
    /// 3.0, GL 3.3) draws, chosen there whatever this says
    /// ([`crate::Renderer::downlevel_reason`]). Texture and VAT paths; the palette path,
    /// motion vectors, props and live poses need the full mode
    /// ([`crate::RenderError::NeedsCapability`]); occlusion culling is off.
    pub downlevel: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            width: 256,
            height: 256,
            skinning: throng_contract::Skinning::Linear,
            path: SkinPath::Texture,
            camera: None,
            scene: None,
            ground: true,
            cull: true,
            row_bounds: true,
            occlusion: true,
            shadows: true,
            shadow_map_size: crate::light::DEFAULT_SHADOW_MAP_SIZE,
            lod_bias: 1.0,
            far_tier: true,
            far_fade: DEFAULT_FAR_FADE,
            far_dots: true,
            lod_influences: [0; 4],
            shadow_lod: ShadowLod::Texel,
            shadow_influences: 0,
            debug: None,
            debug_joint: None,
            background: [0.55, 0.66, 0.8, 1.0],
            palette_refresh: [1; 4],
            motion_vectors: false,
            downlevel: false,
        }
    }
}

impl RenderOptions {
    /// The far tier's crossfade band in pixels ([`RenderOptions::far_fade`] of `lod_bias`).
    pub fn far_band(&self) -> f32 {
        let share = if self.far_fade.is_finite() {
            self.far_fade.clamp(0.0, 1.0)
        } else {
            0.0
        };
        share * self.lod_bias.max(0.0)
    }

    /// Whether the frame writes motion vectors (asked for, or shown by the debug view).
    pub fn motion(&self) -> bool {
        self.motion_vectors || self.debug == Some(DebugView::Motion)
    }

    /// Influences used at LOD `lod` (1..=8).
    pub fn influences_at(&self, lod: u32) -> u32 {
        match self.lod_influences[(lod as usize).min(3)] {
            0 => 8,
            k => k.min(8),
        }
    }

    /// Influences the shadow pass uses at LOD `lod`: the main view's, capped by
    /// `shadow_influences`.
    pub fn shadow_influences_at(&self, lod: u32) -> u32 {
        match self.shadow_influences {
            0 => self.influences_at(lod),
            k => self.influences_at(lod).min(k),
        }
    }
}
