//! throng-view: a window to look at bakes — the crowd drawn by throng-render on any path,
//! panels (egui) for clips, playback, crowd, drawing and statistics, and the source beside it,
//! over it, or as an error heat map. A second front end over the libraries `throng render` uses
//! (throng-scene's inputs, `throng_runtime::crowd`, throng-render), so a still of the viewer and
//! of `render` agree; the window is winit's, painted by egui-wgpu on throng's own device.
//!
//! One entry point, [`run`], with a plain [`ViewOptions`]; the `throng view` command parses its
//! flags into them. With [`ViewOptions::screenshot`] it runs [`ViewOptions::frames`] frames in
//! the real window, writes its image with the panels and returns (for tests and
//! documentation). Errors are [`ViewError`]s: the command line words the ones a flag fixes.

mod graph;
mod heat;
mod model;
mod ui;
mod window;

use anyhow::Context;
use std::path::PathBuf;
use throng_asset::Encoding;
use throng_contract::{Skinning, Timing};
use throng_render::SkinPath;
use throng_scene::SourceOptions;
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::WindowId;

pub use model::Compare;
use model::{Entry, Settings, ViewModel};

/// What the viewer opens and how it starts.
#[derive(Debug, Clone)]
pub struct ViewOptions {
    /// Baked throng assets (.glb) or source glTF files (baked in memory), side by side:
    /// instance i belongs to file i mod K. At least one.
    pub files: Vec<PathBuf>,
    /// How source glTF files are read: extra clip files, the folder their URIs may reach.
    pub source_options: SourceOptions,
    /// The source glTF of the first (baked) file, for the comparison views.
    pub source: Option<PathBuf>,
    /// Clip name or index to start with (`None`: the first).
    pub clip: Option<String>,
    /// Clip time to start at, seconds (wrapped or held by the clip's loop mode).
    pub time: f64,
    /// Start paused (the pose changes only through the panels).
    pub paused: bool,
    /// Seconds of clip time between consecutive instances.
    pub stagger: f64,
    /// Instances in the crowd.
    pub instances: u32,
    pub path: SkinPath,
    /// Who times playback.
    pub timing: Timing,
    pub skinning: Skinning,
    /// Bone-texture encoding of in-memory bakes (source files); `None`: the bake's default.
    pub encoding: Option<Encoding>,
    /// Window size in pixels (width, height).
    pub size: (u32, u32),
    /// Write the window's image (with the panels) as a PNG after `frames` frames, then return.
    pub screenshot: Option<PathBuf>,
    /// Frames to run before returning (`None`: until the window is closed; with a screenshot,
    /// 3).
    pub frames: Option<u32>,
    /// How the source is shown at the start; anything but [`Compare::Off`] needs a source.
    pub compare: Compare,
    /// An animation graph (docs/graph.md) that plays every file's crowd, its parameters set
    /// from the Graph panel; the comparisons are off with it.
    pub graph: Option<PathBuf>,
    /// Starting values of the graph's parameters: (name, value as text; `None` fires a
    /// trigger), as `throng_scene::param_value` reads them.
    pub graph_params: Vec<(String, Option<String>)>,
    /// Where the graph steps (`StepOn::Auto`: the GPU on a hardware adapter, the CPU on a
    /// software one); it steps on the CPU until the first frame is drawn.
    pub graph_on: throng_graph_gpu::StepOn,
}

/// Why the viewer could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// No display to open the window on (`DISPLAY` and `WAYLAND_DISPLAY` unset).
    #[error(
        "the viewer needs a display to open its window on: DISPLAY and WAYLAND_DISPLAY are unset"
    )]
    NoDisplay,
    /// The window system refused the event loop.
    #[error("cannot open a window on the display {display:?} ({cause})")]
    Window {
        display: String,
        cause: winit::error::EventLoopError,
    },
    /// [`ViewOptions::source`] is not the source `file` was baked from.
    #[error("{} is not the source of {}", source_file.display(), file.display())]
    NotTheSource {
        source_file: PathBuf,
        file: PathBuf,
        #[source]
        cause: anyhow::Error,
    },
    /// The VAT path and a baked `file` without a vertex animation texture (and no source to
    /// bake one from).
    #[error("{}: the VAT path needs a vertex animation texture for every primitive", file.display())]
    NoVat { file: PathBuf },
    /// [`ViewOptions::clip`] names no clip of `file`.
    #[error("the starting clip in {}", file.display())]
    NoClip {
        file: PathBuf,
        #[source]
        cause: anyhow::Error,
    },
    /// A comparison was asked for and the first file has no source.
    #[error("comparing needs the source of {}", file.display())]
    NoSource { file: PathBuf },
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

/// Opens the files and runs the window until it is closed (or, with a screenshot or a frame
/// count, for that many frames).
pub fn run(options: ViewOptions) -> Result<(), ViewError> {
    if cfg!(target_os = "linux")
        && std::env::var_os("DISPLAY").is_none()
        && std::env::var_os("WAYLAND_DISPLAY").is_none()
    {
        return Err(ViewError::NoDisplay);
    }
    let mut settings = Settings {
        instances: options.instances,
        path: options.path,
        timing: options.timing,
        skinning: options.skinning,
        playing: !options.paused,
        stagger: options.stagger,
        compare: options.compare,
        ..Default::default()
    };
    if let Some(e) = options.encoding {
        settings.encoding = e;
    }
    let entries = open_all(&options, &settings)?;
    let all_baked = entries.iter().all(|e| throng_asset::is_baked_file(&e.path));
    // The drawing panel starts at what the first file was baked with.
    if options.encoding.is_none() || all_baked {
        settings.encoding = entries[0].asset.bone_texture.encoding;
        settings.influences = Some(entries[0].asset.settings.influences);
    }
    check_vat(&entries, &settings)?;
    if let Some(c) = &options.clip {
        for (e, f) in entries.iter().zip(&options.files) {
            let i =
                throng_scene::find_baked_clip(&e.asset, c).map_err(|cause| ViewError::NoClip {
                    file: f.clone(),
                    cause,
                })?;
            if std::ptr::eq(e, &entries[0]) {
                settings.clip = i;
            }
        }
        settings.fade_to = settings.clip;
    }
    if settings.compare != Compare::Off && entries[0].source.is_none() {
        return Err(ViewError::NoSource {
            file: options.files[0].clone(),
        });
    }
    let sizes: Vec<throng_asset::Aabb> = entries.iter().map(|e| e.asset.pose_bounds()).collect();
    throng_scene::warn_mixed_scales(&options.files, &sizes);
    if options.graph.is_some() && settings.compare != Compare::Off {
        return Err(ViewError::Other(anyhow::anyhow!(
            "a graph plays the crowd: the comparisons with the source follow clips, not a graph"
        )));
    }
    let mut model = ViewModel::new(entries, settings)?;
    if let Some(g) = &options.graph {
        model.set_graph(g.clone(), &options.graph_params, options.graph_on)?;
    }
    model.start_at(options.time);
    let frames = options.frames.or(options.screenshot.as_ref().map(|_| 3));
    let event_loop = EventLoop::new().map_err(|cause| ViewError::Window {
        display: std::env::var("DISPLAY").unwrap_or_default(),
        cause,
    })?;
    let mut app = App {
        model: Some(model),
        size: options.size,
        frames,
        screenshot: options.screenshot,
        viewer: None,
        error: None,
    };
    event_loop
        .run_app(&mut app)
        .context("running the window's event loop")?;
    match app.error {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// Every file of `options`, the first with its source when one is given (and checked to be
/// that file's source).
fn open_all(options: &ViewOptions, settings: &Settings) -> Result<Vec<Entry>, ViewError> {
    let mut entries = Vec::with_capacity(options.files.len());
    for (i, f) in options.files.iter().enumerate() {
        let source = if i == 0 {
            options.source.as_deref()
        } else {
            None
        };
        let e = model::open(f, source, settings, &options.source_options)?;
        if let (Some(src), Some(m)) = (source, &e.source) {
            throng_bake::verify::check_source(&e.asset, m).map_err(|cause| {
                ViewError::NotTheSource {
                    source_file: src.to_path_buf(),
                    file: f.clone(),
                    cause: cause.into(),
                }
            })?;
        }
        entries.push(e);
    }
    Ok(entries)
}

/// On the VAT path, every baked file without a source needs a VAT for every primitive.
fn check_vat(entries: &[Entry], settings: &Settings) -> Result<(), ViewError> {
    if settings.path != SkinPath::Vat {
        return Ok(());
    }
    match entries
        .iter()
        .find(|e| e.source.is_none() && e.asset.primitives.iter().any(|p| p.vat.is_none()))
    {
        Some(e) => Err(ViewError::NoVat {
            file: e.path.clone(),
        }),
        None => Ok(()),
    }
}

/// winit's application: the window is made when the event loop starts (`resumed`).
struct App {
    model: Option<ViewModel>,
    size: (u32, u32),
    frames: Option<u32>,
    screenshot: Option<PathBuf>,
    viewer: Option<window::Viewer>,
    error: Option<anyhow::Error>,
}

impl App {
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: anyhow::Error) {
        self.error = Some(e);
        event_loop.exit();
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.viewer.is_some() {
            return;
        }
        let Some(model) = self.model.take() else {
            return;
        };
        match window::Viewer::new(event_loop, model, self.size) {
            Ok(v) => {
                v.request_redraw();
                self.viewer = Some(v);
            }
            Err(e) => self.fail(event_loop, e),
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(v) = self.viewer.as_mut() else {
            return;
        };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::RedrawRequested => {
                let last = self.frames.is_some_and(|n| v.frames + 1 >= n);
                let shot = if last { self.screenshot.as_ref() } else { None };
                if let Err(e) = v.frame(shot) {
                    return self.fail(event_loop, e);
                }
                if last {
                    return event_loop.exit();
                }
                // Draw continuously: the crowd is always moving.
                v.request_redraw();
            }
            other => v.event(&other),
        }
    }
}
