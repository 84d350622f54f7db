//! Embedding throng in an application that owns its wgpu device and its window.
//!
//! ```text
//! cargo run --release -p throng-render --example crowd                  # a window (winit)
//! cargo run --release -p throng-render --example crowd -- --headless    # crowd.png, no window
//!     [--asset BAKED.glb] [--instances N] [--frames N] [--out FILE.png] [--size WxH]
//! ```
//!
//! The application part links only what a game links — `throng-asset` (load the file),
//! `throng-runtime` (playback) and `throng-render` (drawing). Without `--asset` the example makes
//! its asset first, the built-in fox baked in memory (the offline side: `throng-demo`,
//! `throng-gltf`, `throng-bake`); with `--asset` it loads a file `throng bake` wrote.
//!
//! A crowd of the built-in fox plays in a CPU-timed `throng_runtime::Runtime` (which picks each
//! instance's baked frame rows; `Timing::Gpu` takes the same calls) and the GPU skins and draws it. throng needs
//! from the application only its adapter, device and queue (wrapped once by
//! `Gpu::from_device`), and per frame a command encoder and a target view: `encode_frame`
//! records culling, the shadow pass and the main pass into them; the application submits and
//! presents as it always does. Headless, the target is an offscreen texture of the
//! application's, read back and written as a PNG (tests/example.rs runs this mode).
//!
//! Units: file units (the fox's glTF is in metres), seconds.

use std::error::Error;
use std::sync::Arc;
use std::time::Instant;

use glam::{Mat4, Vec3};
use throng_asset::{BakedAsset, LoopMode};
use throng_render::image::RgbaImage;
use throng_render::{Crowd, FrameStats, Gpu, GpuAsset, RenderOptions, Renderer};
use throng_runtime::{ClipId, InstanceTransform, PlayOptions, Runtime, Timing};
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Simulated seconds per headless frame.
pub const HEADLESS_DT: f64 = 1.0 / 30.0;

/// The built-in fox, generated as glTF in code, imported and baked in memory. An application
/// would load the file `throng bake` wrote instead: `throng_asset::read(path)`.
pub fn bake_fox() -> Result<BakedAsset> {
    let glb = throng_demo::demo_glb();
    let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb")?;
    let options = throng_bake::BakeOptions {
        source_name: "throng-demo-fox.glb".into(),
        ..Default::default()
    };
    Ok(throng_bake::bake(&model, &options)?.0)
}

/// `n` instances on a square grid facing varied ways, each playing one of the looping clips
/// from its own start time and speed, so the crowd is out of step.
pub fn spawn_crowd(asset: &BakedAsset, n: u32) -> Result<Runtime> {
    let mut runtime = Runtime::new(Timing::Cpu, &asset.clips);
    let looping: Vec<usize> = (0..asset.clips.len())
        .filter(|&c| asset.clips[c].loop_mode == LoopMode::Loop)
        .collect();
    // Grid spacing: the character's footprint over all its poses, plus a margin.
    let bounds = asset.pose_bounds();
    let e = bounds.max - bounds.min;
    let spacing = (e.x.max(e.z) * 1.2).max(1e-3);
    let side = (n as f32).sqrt().ceil() as u32;
    for i in 0..n {
        let (col, row) = ((i % side) as f32, (i / side) as f32);
        let centre = (side - 1) as f32 * 0.5;
        let at = Vec3::new(col - centre, 0.0, row - centre) * spacing;
        let place = Mat4::from_translation(at) * Mat4::from_rotation_y(i as f32 * 2.4);
        let h = runtime.spawn(InstanceTransform::from_mat4(&place));
        if let Some(&clip) = looping.get(i as usize % looping.len().max(1)) {
            let opts = PlayOptions::at(i as f32 * 0.37).with_speed(0.8 + 0.1 * (i % 5) as f32);
            runtime.instance(h).play(ClipId::new(clip), opts)?;
        }
    }
    Ok(runtime)
}

/// One frame of the application's loop: advances the crowd by `dt` seconds and records its
/// drawing into the application's encoder and `width` × `height` target of `format`.
#[allow(clippy::too_many_arguments)]
pub fn draw(
    renderer: &mut Renderer,
    fox: &GpuAsset,
    runtime: &mut Runtime,
    dt: f64,
    encoder: &mut wgpu::CommandEncoder,
    target: &wgpu::TextureView,
    format: wgpu::TextureFormat,
    (width, height): (u32, u32),
) -> Result<FrameStats> {
    runtime.update(dt);
    let crowd = Crowd {
        asset: fox,
        transforms: runtime.transforms(),
        // The runtime's records are the renderer's layout (one contract type): no copy.
        playback: runtime.records().into(),
        props: &[],
        live: &[],
        appearance: throng_render::CrowdAppearance::Default,
    };
    // camera: None frames the crowd automatically; ground, shadows, culling and LODs are on.
    let opts = RenderOptions::default();
    Ok(renderer.encode_frame(encoder, target, format, width, height, &[crowd], &opts)?)
}

/// The application's own adapter and device: throng needs no optional feature (it uses
/// `INDIRECT_FIRST_INSTANCE` when enabled); the adapter's
/// limits let large crowds have large per-instance buffers. Vulkan, Metal or DX12 (the GL
/// backend draws the same images, slower, and is taken only with `WGPU_BACKEND=gl`).
pub fn create_device(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface>,
) -> Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue)> {
    pollster::block_on(async {
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                compatible_surface: surface,
                ..Default::default()
            })
            .await?;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                required_limits: adapter.limits(),
                // Optional: with first instances the renderer draws all LODs of a primitive
                // with one multi-draw.
                required_features: adapter.features() & wgpu::Features::INDIRECT_FIRST_INSTANCE,
                ..Default::default()
            })
            .await?;
        Ok((adapter, device, queue))
    })
}

/// A headless instance (no display): Vulkan, Metal or DX12, overridable with `WGPU_BACKEND`.
pub fn headless_instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::PRIMARY;
    wgpu::Instance::new(desc.with_env())
}

/// A headless frame read back.
pub struct Frame {
    pub image: RgbaImage,
    pub stats: FrameStats,
}

/// Headless mode: `frames` frames of `instances` foxes, `HEADLESS_DT` apart, drawn with
/// [`draw`] into an offscreen texture of the application's and read back.
pub fn headless(
    (adapter, device, queue): (wgpu::Adapter, wgpu::Device, wgpu::Queue),
    asset: &BakedAsset,
    instances: u32,
    frames: u32,
    (width, height): (u32, u32),
) -> Result<Vec<Frame>> {
    let format = wgpu::TextureFormat::Rgba8UnormSrgb;
    let target = device.create_texture(&throng_render::texture_2d(
        "crowd target",
        (width, height),
        format,
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
    ));
    let view = target.create_view(&Default::default());
    // Rows of a texture-to-buffer copy are padded to 256 bytes.
    let row = (width * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
        * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("crowd readback"),
        size: row as u64 * height as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });

    let mut renderer = Renderer::with_gpu(Gpu::from_device(adapter, device.clone(), queue.clone()));
    let fox = renderer.upload(asset)?;
    let mut runtime = spawn_crowd(asset, instances)?;
    let mut out = Vec::new();
    for _ in 0..frames {
        let mut encoder = device.create_command_encoder(&Default::default());
        let size = (width, height);
        let stats = draw(
            &mut renderer,
            &fox,
            &mut runtime,
            HEADLESS_DT,
            &mut encoder,
            &view,
            format,
            size,
        )?;
        encoder.copy_texture_to_buffer(
            target.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: None,
                },
            },
            target.size(),
        );
        queue.submit([encoder.finish()]);

        let (tx, rx) = std::sync::mpsc::channel();
        readback
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| drop(tx.send(r)));
        device.poll(wgpu::PollType::wait_indefinitely())?;
        rx.recv()??;
        let mut pixels = Vec::with_capacity((width * height * 4) as usize);
        {
            let mapped = readback.slice(..).get_mapped_range()?;
            for y in 0..height as usize {
                let start = y * row as usize;
                pixels.extend_from_slice(&mapped[start..start + width as usize * 4]);
            }
        }
        readback.unmap();
        let image = RgbaImage::from_raw(width, height, pixels).ok_or("image size mismatch")?;
        out.push(Frame { image, stats });
    }
    Ok(out)
}

/// The window: its surface, the renderer on the application's device, the crowd.
struct Windowed {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    renderer: Renderer,
    fox: GpuAsset,
    runtime: Runtime,
    last: Instant,
    frames: u32,
    /// When the frame rate was last printed, and the frame count then.
    report: (Instant, u32),
}

impl Windowed {
    fn new(event_loop: &ActiveEventLoop, asset: &BakedAsset, instances: u32) -> Result<Windowed> {
        let attrs = Window::default_attributes()
            .with_title("throng: a crowd in a winit window")
            .with_inner_size(winit::dpi::LogicalSize::new(1280, 720));
        let window = Arc::new(event_loop.create_window(attrs)?);
        // The display goes to the instance (needed by GL, harmless elsewhere).
        let mut desc = wgpu::InstanceDescriptor::new_with_display_handle(Box::new(
            event_loop.owned_display_handle(),
        ));
        desc.backends = wgpu::Backends::PRIMARY;
        let instance = wgpu::Instance::new(desc.with_env());
        let surface = instance.create_surface(window.clone())?;
        let (adapter, device, queue) = create_device(&instance, Some(&surface))?;
        let size = window.inner_size();
        // The renderer writes linear colour: the configuration asks for an sRGB format.
        let config =
            throng_render::device::surface_config(&surface, &adapter, (size.width, size.height))
                .ok_or("the adapter cannot present to this window")?;
        surface.configure(&device, &config);
        let renderer = Renderer::with_gpu(Gpu::from_device(adapter, device, queue));
        println!("adapter: {}", renderer.adapter());
        let fox = renderer.upload(asset)?;
        let runtime = spawn_crowd(asset, instances)?;
        Ok(Windowed {
            window,
            surface,
            config,
            renderer,
            fox,
            runtime,
            last: Instant::now(),
            frames: 0,
            report: (Instant::now(), 0),
        })
    }

    fn resize(&mut self, width: u32, height: u32) {
        if width > 0 && height > 0 {
            (self.config.width, self.config.height) = (width, height);
            self.surface
                .configure(&self.renderer.gpu.device, &self.config);
        }
    }

    /// Draws and presents one frame, advancing the crowd by the wall-clock time since the last.
    fn frame(&mut self) -> Result<()> {
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f)
            | wgpu::CurrentSurfaceTexture::Suboptimal(f) => f,
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => {
                return Ok(());
            }
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.surface
                    .configure(&self.renderer.gpu.device, &self.config);
                return Ok(());
            }
            other => return Err(format!("cannot draw to the window: {other:?}").into()),
        };
        let view = frame.texture.create_view(&Default::default());
        let dt = self.last.elapsed().as_secs_f64();
        self.last = Instant::now();
        let device = self.renderer.gpu.device.clone();
        let mut encoder = device.create_command_encoder(&Default::default());
        let (format, size) = (self.config.format, (self.config.width, self.config.height));
        let stats = draw(
            &mut self.renderer,
            &self.fox,
            &mut self.runtime,
            dt,
            &mut encoder,
            &view,
            format,
            size,
        )?;
        self.renderer.gpu.queue.submit([encoder.finish()]);
        self.window.pre_present_notify();
        self.renderer.gpu.queue.present(frame);
        self.frames += 1;
        // Once a second: frames drawn and what they cost.
        let (since, drawn) = self.report;
        if since.elapsed().as_secs_f64() >= 1.0 {
            println!(
                "{:.1} frames/s: {} instances in {} draw calls per frame",
                (self.frames - drawn) as f64 / since.elapsed().as_secs_f64(),
                self.runtime.len(),
                stats.draws,
            );
            self.report = (Instant::now(), self.frames);
        }
        Ok(())
    }
}

/// winit's application: the window is made when the event loop starts (`resumed`).
struct App {
    asset: BakedAsset,
    args: Args,
    state: Option<Windowed>,
    error: Option<Box<dyn Error>>,
}

impl App {
    fn fail(&mut self, event_loop: &ActiveEventLoop, e: Box<dyn Error>) {
        self.error = Some(e);
        event_loop.exit();
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_none() {
            match Windowed::new(event_loop, &self.asset, self.args.instances) {
                Ok(w) => self.state = Some(w),
                Err(e) => self.fail(event_loop, e),
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(w) = self.state.as_mut() else { return };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => w.resize(size.width, size.height),
            WindowEvent::RedrawRequested => {
                if let Err(e) = w.frame() {
                    return self.fail(event_loop, e);
                }
                if self.args.frames.is_some_and(|n| w.frames >= n) {
                    return event_loop.exit();
                }
                // Draw continuously: the crowd is always moving.
                w.window.request_redraw();
            }
            _ => {}
        }
    }
}

/// Command-line options (see the module docs).
struct Args {
    headless: bool,
    /// A baked asset to load instead of baking the built-in fox.
    asset: Option<std::path::PathBuf>,
    instances: u32,
    /// Frames to draw (headless default 10; windowed default: until closed).
    frames: Option<u32>,
    out: std::path::PathBuf,
    size: (u32, u32),
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        headless: false,
        asset: None,
        instances: 1_000,
        frames: None,
        out: "crowd.png".into(),
        size: (640, 360),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--headless" => args.headless = true,
            "--asset" => args.asset = Some(value()?.into()),
            "--instances" => match value()?.parse()? {
                0 => return Err("--instances needs at least 1".into()),
                n => args.instances = n,
            },
            "--frames" => match value()?.parse()? {
                0 => return Err("--frames needs at least 1".into()),
                n => args.frames = Some(n),
            },
            "--out" => {
                args.out = value()?.into();
                if args
                    .out
                    .extension()
                    .is_none_or(|e| !e.eq_ignore_ascii_case("png"))
                {
                    return Err("--out writes a PNG: name it *.png".into());
                }
            }
            "--size" => {
                let v = value()?;
                let (w, h) = v.split_once('x').ok_or("--size takes WIDTHxHEIGHT")?;
                args.size = (w.parse()?, h.parse()?);
                if !(1..=8192).contains(&args.size.0) || !(1..=8192).contains(&args.size.1) {
                    return Err("--size: 1 to 8192 pixels per side".into());
                }
            }
            _ => return Err(format!("unknown argument {a}; see the example's docs").into()),
        }
    }
    Ok(args)
}

fn main() -> Result<()> {
    let args = parse_args()?;
    let asset = match &args.asset {
        Some(path) => throng_asset::read(path)?,
        None => bake_fox()?,
    };
    if args.headless {
        let device = create_device(&headless_instance(), None)?;
        let frames = args.frames.unwrap_or(10);
        let t = Instant::now();
        let out = headless(device, &asset, args.instances, frames, args.size)?;
        let last = out.last().ok_or("no frame drawn")?;
        last.image.save(&args.out)?;
        println!(
            "{} frames of {} instances in {:.1} s, {} draw calls each; wrote {}",
            frames,
            args.instances,
            t.elapsed().as_secs_f64(),
            last.stats.draws,
            args.out.display()
        );
        return Ok(());
    }
    let mut app = App {
        asset,
        args,
        state: None,
        error: None,
    };
    let event_loop = EventLoop::new().map_err(|e| {
        format!("cannot open a window ({e}); on a machine without a display run with --headless")
    })?;
    event_loop.run_app(&mut app)?;
    app.error.map_or(Ok(()), Err)
}
