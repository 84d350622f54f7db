//! `throng view`: a window to look at bakes — the crowd drawn by throng-render on any path,
//! panels (egui) for clips, playback, crowd, drawing and statistics, and the source beside it,
//! over it, or as an error heat map. A second front end over the libraries `render` uses; the
//! window is winit's, painted by egui-wgpu on throng's own device.
//!
//! `--screenshot OUT.png --frames N` runs N frames in the real window and writes its image with
//! the panels, then exits (for tests and documentation). Without a display it fails with how to
//! run it under Xvfb.

mod heat;
mod model;
mod ui;
mod window;

use anyhow::Context;
use std::path::PathBuf;
use throng_asset::Encoding;
use throng_contract::{Skinning, Timing};
use throng_render::SkinPath;
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::WindowId;

use super::shared::{self, SourceArgs};
use model::{Settings, ViewModel};

#[derive(clap::Args)]
pub struct Args {
    /// Baked throng assets (.glb) or source glTF files (baked in memory), side by side: instance
    /// i belongs to file i mod K.
    #[arg(required = true, num_args = 1.., value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub source_args: SourceArgs,
    /// The source glTF of the first (baked) file, for the comparison views.
    #[arg(long)]
    pub source: Option<PathBuf>,
    /// Clip name or index to start with (default: the first).
    #[arg(long)]
    pub clip: Option<String>,
    /// Clip time to start at, seconds (wrapped or held by the clip's loop mode).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true, value_parser = shared::parse_finite)]
    pub time: f64,
    /// Start paused (the pose changes only through the panels).
    #[arg(long)]
    pub paused: bool,
    /// Seconds of clip time between consecutive instances.
    #[arg(long, default_value_t = 0.1, allow_negative_numbers = true, value_parser = shared::parse_finite)]
    pub stagger: f64,
    /// Instances in the crowd.
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub instances: u32,
    /// `texture`, `palette`, `vat` (baked in memory with a VAT for source files) or
    /// `reference`.
    #[arg(long, value_enum, default_value_t = SkinPath::Texture)]
    pub path: SkinPath,
    /// Who times playback: `cpu` or `gpu`.
    #[arg(long, value_enum, default_value_t = Timing::Cpu)]
    pub timing: Timing,
    /// Skinning method: linear blend (lbs) or dual quaternion (dq).
    #[arg(long, value_enum, default_value_t = Skinning::Linear)]
    pub skinning: Skinning,
    /// Bone-texture encoding of in-memory bakes (source files).
    #[arg(long, value_enum)]
    pub encoding: Option<Encoding>,
    /// Window size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = shared::parse_size)]
    pub size: (u32, u32),
    /// Write the window's image (with the panels) as a PNG after `--frames` frames, then exit.
    #[arg(long, value_name = "OUT.png")]
    pub screenshot: Option<PathBuf>,
    /// Frames to run before exiting (default: until the window is closed; with --screenshot, 3).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub frames: Option<u32>,
    /// Start with the source beside the bake (`beside`), over it (`over`) or as an error heat
    /// map (`heat`); needs a source.
    #[arg(long, value_enum)]
    pub compare: Option<CompareArg>,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareArg {
    Beside,
    Over,
    Heat,
}

/// Advice when there is no display to open a window on.
const NO_DISPLAY: &str = "throng view needs a display to open its window on: DISPLAY and \
    WAYLAND_DISPLAY are unset. Run it in a desktop session, or headless under Xvfb: \
    xvfb-run -a -s \"-screen 0 1280x720x24\" throng view FILE";

/// Flags that do not go together, and a screenshot path that cannot be written: found before
/// the window opens.
fn check_usage(args: &Args) -> anyhow::Result<()> {
    if args.source.is_some() && !throng_asset::is_baked_file(&args.files[0]) {
        return Err(shared::usage(format!(
            "--source gives a baked file its source glTF; {} is already a source",
            args.files[0].display()
        )));
    }
    if let Some(p) = &args.screenshot {
        let png = p.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"));
        if !png {
            return Err(shared::usage(format!(
                "--screenshot writes a PNG: give a path ending in .png (got {})",
                p.display()
            )));
        }
        shared::check_folder(p).context("--screenshot")?;
    }
    Ok(())
}

pub fn run(args: Args) -> anyhow::Result<()> {
    check_usage(&args)?;
    if cfg!(target_os = "linux")
        && std::env::var_os("DISPLAY").is_none()
        && std::env::var_os("WAYLAND_DISPLAY").is_none()
    {
        anyhow::bail!("{NO_DISPLAY}");
    }
    let mut settings = Settings {
        instances: args.instances,
        path: args.path,
        timing: args.timing,
        skinning: args.skinning,
        playing: !args.paused,
        stagger: args.stagger,
        ..Default::default()
    };
    if let Some(e) = args.encoding {
        settings.encoding = e;
    }
    if let Some(c) = args.compare {
        settings.compare = match c {
            CompareArg::Beside => model::Compare::Beside,
            CompareArg::Over => model::Compare::Over,
            CompareArg::Heat => model::Compare::Heat,
        };
    }
    let mut entries = Vec::with_capacity(args.files.len());
    for (i, f) in args.files.iter().enumerate() {
        let source = if i == 0 { args.source.as_deref() } else { None };
        let e = model::open(f, source, &settings, &args.source_args)?;
        if let (Some(src), Some(m)) = (source, &e.source) {
            throng_bake::verify::check_source(&e.asset, m).with_context(|| {
                format!(
                    "--source {} is not the source of {}",
                    src.display(),
                    f.display()
                )
            })?;
        }
        entries.push(e);
    }
    let all_baked = entries.iter().all(|e| throng_asset::is_baked_file(&e.path));
    if args.encoding.is_some() && all_baked {
        eprintln!(
            "warning: --encoding applies to source glTF files baked in memory; the baked input(s) keep their encoding"
        );
    }
    // The drawing panel starts at what the first file was baked with.
    if args.encoding.is_none() || all_baked {
        settings.encoding = entries[0].asset.bone_texture.encoding;
        settings.influences = entries[0].asset.settings.influences;
    }
    if settings.path == SkinPath::Vat {
        if let Some(e) = entries
            .iter()
            .find(|e| e.source.is_none() && e.asset.primitives.iter().any(|p| p.vat.is_none()))
        {
            anyhow::bail!(
                "{}: the VAT path needs a vertex animation texture for every primitive; bake it with --vat f32|f16|unorm16, or open its source glTF",
                e.path.display()
            );
        }
    }
    if let Some(c) = &args.clip {
        for (e, f) in entries.iter().zip(&args.files) {
            let i = shared::find_baked_clip(&e.asset, c)
                .with_context(|| format!("--clip in {}", f.display()))?;
            if std::ptr::eq(e, &entries[0]) {
                settings.clip = i;
            }
        }
        settings.fade_to = settings.clip;
    }
    if settings.compare != model::Compare::Off && entries[0].source.is_none() {
        return Err(shared::usage(format!(
            "--compare needs the source of {}: open the source glTF, or pass --source SRC",
            args.files[0].display()
        )));
    }
    let sizes: Vec<throng_asset::Aabb> = entries.iter().map(|e| e.asset.pose_bounds()).collect();
    throng_scene::warn_mixed_scales(&args.files, &sizes);
    let mut model = ViewModel::new(entries, settings)?;
    model.start_at(args.time);
    let frames = args.frames.or(args.screenshot.as_ref().map(|_| 3));
    let event_loop = EventLoop::new().map_err(|e| {
        let display = std::env::var("DISPLAY").unwrap_or_default();
        anyhow::anyhow!(
            "cannot open a window on the display {display:?} ({e}). Run throng view in a desktop session, or headless under Xvfb: xvfb-run -a -s \"-screen 0 1280x720x24\" throng view FILE"
        )
    })?;
    let mut app = App {
        model: Some(model),
        size: args.size,
        frames,
        screenshot: args.screenshot,
        viewer: None,
        error: None,
    };
    event_loop
        .run_app(&mut app)
        .context("running the window's event loop")?;
    match app.error {
        Some(e) => Err(e),
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
