//! The window: a winit window whose surface egui-wgpu paints on throng's device. Each frame the
//! model draws the crowd offscreen with throng-render (`render_scene`, `render_reference`) and
//! the image is shown as an egui texture — one readback per frame, which buys the GPU's own
//! counts and timestamps for the statistics panel and pixel-exact side-by-side and overlay
//! comparisons. A screenshot paints the same egui output into an offscreen texture and reads
//! it back, so it holds the panels too.

use anyhow::Context;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use throng_render::image::RgbaImage;
use throng_render::{Gpu, Renderer};
use winit::event::WindowEvent;
use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

use crate::model::{Drawn, ViewModel};
use crate::ui::{self, Shown};

pub struct Viewer {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    renderer: Renderer,
    ctx: egui::Context,
    egui_state: egui_winit::State,
    painter: egui_wgpu::Renderer,
    model: ViewModel,
    main_tex: Option<egui::TextureHandle>,
    source_tex: Option<egui::TextureHandle>,
    /// The central view's size in pixels, from the last frame's layout.
    view_px: (u32, u32),
    last: Instant,
    /// Frames drawn, and a smoothed frame rate.
    pub frames: u32,
    fps: f64,
    draw_ms: f64,
    last_drawn: Option<DrawnInfo>,
}

/// What is kept of the last drawn frame for the panels.
struct DrawnInfo {
    stats: Option<throng_render::FrameStats>,
    heat: Option<crate::heat::Legend>,
}

impl Viewer {
    pub fn new(
        event_loop: &ActiveEventLoop,
        model: ViewModel,
        size: (u32, u32),
    ) -> anyhow::Result<Viewer> {
        let attrs = Window::default_attributes()
            .with_title("throng view")
            .with_inner_size(winit::dpi::PhysicalSize::new(size.0, size.1));
        let window = Arc::new(
            event_loop
                .create_window(attrs)
                .context("opening the window")?,
        );
        // The display goes to the instance (GL needs it); Vulkan/Metal/DX12 first, GL when
        // nothing else exists or `WGPU_BACKEND=gl`.
        let mut desc = wgpu::InstanceDescriptor::new_with_display_handle(Box::new(
            event_loop.owned_display_handle(),
        ));
        if std::env::var_os("WGPU_BACKEND").is_none() {
            desc.backends = wgpu::Backends::PRIMARY | wgpu::Backends::GL;
        }
        let instance = wgpu::Instance::new(desc.with_env());
        let surface = instance
            .create_surface(window.clone())
            .context("creating the window's surface")?;
        let (adapter, device, queue) = pollster::block_on(async {
            let adapter = instance
                .request_adapter(&wgpu::RequestAdapterOptions {
                    compatible_surface: Some(&surface),
                    ..Default::default()
                })
                .await
                .context("no GPU adapter can draw to this window")?;
            // Only what the renderer's mode on this adapter needs (docs/downlevel.md), with
            // the adapter's own texture size for large windows.
            let (limits, required_features, _) = throng_render::downlevel::device_request(&adapter);
            let (device, queue) = adapter
                .request_device(&wgpu::DeviceDescriptor {
                    label: Some("throng view"),
                    required_limits: limits.using_resolution(adapter.limits()),
                    required_features,
                    ..Default::default()
                })
                .await
                .context("creating the GPU device")?;
            anyhow::Ok((adapter, device, queue))
        })?;
        let px = window.inner_size();
        let config =
            throng_render::device::surface_config(&surface, &adapter, (px.width, px.height))
                .context("the adapter cannot present to this window")?;
        surface.configure(&device, &config);
        let painter = egui_wgpu::Renderer::new(&device, config.format, Default::default());
        let renderer = Renderer::with_gpu(Gpu::from_device(adapter, device, queue));
        eprintln!("adapter: {}", renderer.adapter());
        let mut model = model;
        if let Some(missing) = renderer.downlevel_reason() {
            eprintln!(
                "mode: downlevel (this device lacks {missing}): culling and LODs on the CPU, plain instanced draws (docs/downlevel.md)"
            );
            if model.settings.path == throng_render::SkinPath::Palette {
                eprintln!(
                    "path: texture (the palette path needs compute shaders, which the downlevel mode does without)"
                );
                model.settings.path = throng_render::SkinPath::Texture;
            }
        }
        let ctx = egui::Context::default();
        let egui_state = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            None,
            Some(renderer.gpu.device.limits().max_texture_dimension_2d as usize),
        );
        Ok(Viewer {
            window,
            surface,
            config,
            renderer,
            ctx,
            egui_state,
            painter,
            model,
            main_tex: None,
            source_tex: None,
            view_px: (
                size.0.saturating_sub(320).max(64),
                size.1.saturating_sub(40).max(64),
            ),
            last: Instant::now(),
            frames: 0,
            fps: 0.0,
            draw_ms: 0.0,
            last_drawn: None,
        })
    }

    pub fn request_redraw(&self) {
        self.window.request_redraw();
    }

    /// Passes a window event to egui; handles resizes and dropped files.
    pub fn event(&mut self, event: &WindowEvent) {
        let _ = self.egui_state.on_window_event(&self.window, event);
        match event {
            WindowEvent::Resized(size) if size.width > 0 && size.height > 0 => {
                (self.config.width, self.config.height) = (size.width, size.height);
                self.surface
                    .configure(&self.renderer.gpu.device, &self.config);
            }
            WindowEvent::DroppedFile(path) => self.open(path),
            _ => {}
        }
    }

    fn open(&mut self, path: &Path) {
        let opened = crate::model::open(path, None, &self.model.settings, &Default::default());
        match opened {
            Ok(e) => self.model.add(e),
            Err(e) => self.model.tell(format!("{e:#}"), true),
        }
    }

    /// Draws one frame; with `screenshot`, also writes the window's image (panels included).
    pub fn frame(&mut self, screenshot: Option<&PathBuf>) -> anyhow::Result<()> {
        let dt = self.last.elapsed().as_secs_f64();
        self.last = Instant::now();
        // Frames per second from the time between frames (the first has no predecessor).
        if self.frames > 0 && dt > 0.0 {
            self.fps = if self.fps == 0.0 {
                1.0 / dt
            } else {
                self.fps * 0.9 + 0.1 / dt
            };
        }
        self.model.step(dt);
        let t0 = Instant::now();
        match self.model.draw(&mut self.renderer, self.view_px) {
            Ok(d) => self.show(d),
            Err(e) => self.model.tell(format!("{e:#}"), true),
        }
        self.draw_ms = t0.elapsed().as_secs_f64() * 1e3;

        let blank = || egui::TextureId::default();
        let shown = Shown {
            main: self.main_tex.as_ref().map_or_else(blank, |t| t.id()),
            source: self.source_tex.as_ref().map(|t| t.id()),
            stats: self.last_drawn.as_ref().and_then(|d| d.stats.clone()),
            heat: self.last_drawn.as_ref().and_then(|d| d.heat),
            draw_ms: self.draw_ms,
            fps: self.fps,
        };
        let raw = self.egui_state.take_egui_input(&self.window);
        let dropped: Vec<PathBuf> = raw
            .dropped_files
            .iter()
            .map(|f| f.path().to_path_buf())
            .collect();
        let model = &mut self.model;
        let mut view_px = self.view_px;
        let out = self.ctx.run_ui(raw, |ui| {
            view_px = ui::draw(ui, model, &shown);
        });
        self.view_px = view_px;
        for p in dropped {
            self.open(&p);
        }
        self.egui_state
            .handle_platform_output(&self.window, out.platform_output);
        let jobs = self.ctx.tessellate(out.shapes, out.pixels_per_point);
        let gpu = &self.renderer.gpu;
        for (id, deltas) in &out.textures_delta.set {
            for delta in deltas {
                self.painter
                    .update_texture(&gpu.device, &gpu.queue, *id, delta);
            }
        }
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point: out.pixels_per_point,
        };
        let mut enc = gpu.device.create_command_encoder(&Default::default());
        let extra = self
            .painter
            .update_buffers(&gpu.device, &gpu.queue, &mut enc, &jobs, &screen);
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f)
            | wgpu::CurrentSurfaceTexture::Suboptimal(f) => Some(f),
            wgpu::CurrentSurfaceTexture::Outdated => {
                self.surface.configure(&gpu.device, &self.config);
                None
            }
            _ => None,
        };
        if let Some(f) = &frame {
            let view = f.texture.create_view(&Default::default());
            paint(&self.painter, &mut enc, &view, &jobs, &screen);
        }
        let shot = screenshot.map(|_| {
            let tex = gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("throng view screenshot"),
                size: wgpu::Extent3d {
                    width: self.config.width,
                    height: self.config.height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: self.config.format,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            });
            let view = tex.create_view(&Default::default());
            paint(&self.painter, &mut enc, &view, &jobs, &screen);
            tex
        });
        gpu.queue.submit(extra.into_iter().chain([enc.finish()]));
        if let Some(f) = frame {
            self.window.pre_present_notify();
            gpu.queue.present(f);
        }
        for id in &out.textures_delta.free {
            self.painter.free_texture(id);
        }
        if let (Some(path), Some(tex)) = (screenshot, shot) {
            let img = read_texture(gpu, &tex, self.config.format)?;
            let bytes = throng_scene::encode_png(&img)?;
            throng_scene::write_atomic(path, &bytes)
                .with_context(|| format!("writing {}", path.display()))?;
            eprintln!(
                "wrote {} ({}×{}, the window with its panels)",
                path.display(),
                img.width(),
                img.height()
            );
            if let Some(l) = self.last_drawn.as_ref().and_then(|d| d.heat) {
                eprintln!(
                    "heat map at {:.4} s: worst vertex {:.3e} file units = {:.3e} of the diagonal",
                    self.model.time,
                    l.worst,
                    l.worst / l.diagonal
                );
            }
        }
        self.frames += 1;
        Ok(())
    }

    /// Hands the drawn images to egui.
    fn show(&mut self, d: Drawn) {
        let to_egui = |img: &RgbaImage| {
            egui::ColorImage::from_rgba_unmultiplied(
                [img.width() as usize, img.height() as usize],
                img.as_raw(),
            )
        };
        let opts = egui::TextureOptions::LINEAR;
        let main = to_egui(&d.main);
        match &mut self.main_tex {
            Some(t) => t.set(main, opts),
            None => self.main_tex = Some(self.ctx.load_texture("throng-frame", main, opts)),
        }
        match (&d.source, &mut self.source_tex) {
            (Some(img), Some(t)) => t.set(to_egui(img), opts),
            (Some(img), None) => {
                self.source_tex = Some(self.ctx.load_texture("throng-source", to_egui(img), opts))
            }
            (None, _) => self.source_tex = None,
        }
        self.last_drawn = Some(DrawnInfo {
            stats: d.stats,
            heat: d.heat,
        });
    }
}

/// Paints egui's output over a cleared `view`.
fn paint(
    painter: &egui_wgpu::Renderer,
    enc: &mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    jobs: &[egui::ClippedPrimitive],
    screen: &egui_wgpu::ScreenDescriptor,
) {
    let pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("throng view egui"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color {
                    r: 0.1,
                    g: 0.1,
                    b: 0.1,
                    a: 1.0,
                }),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    });
    painter.render(&mut pass.forget_lifetime(), jobs, screen);
}

/// Reads a 2D texture of a 4-byte format back as RGBA (BGRA formats swizzled).
fn read_texture(
    gpu: &Gpu,
    tex: &wgpu::Texture,
    format: wgpu::TextureFormat,
) -> anyhow::Result<RgbaImage> {
    let (w, h) = (tex.width(), tex.height());
    let row =
        (w * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buf = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("throng view screenshot readback"),
        size: row as u64 * h as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    enc.copy_texture_to_buffer(
        tex.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buf,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: None,
            },
        },
        tex.size(),
    );
    gpu.queue.submit([enc.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    buf.slice(..)
        .map_async(wgpu::MapMode::Read, move |r| drop(tx.send(r)));
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .context("waiting for the screenshot")?;
    rx.recv().context("the screenshot readback was dropped")??;
    let bgra = matches!(
        format,
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
    );
    let mut pixels = Vec::with_capacity((w * h * 4) as usize);
    {
        let mapped = buf.slice(..).get_mapped_range()?;
        for y in 0..h as usize {
            let line = &mapped[y * row as usize..y * row as usize + w as usize * 4];
            for p in line.chunks_exact(4) {
                if bgra {
                    pixels.extend_from_slice(&[p[2], p[1], p[0], 255]);
                } else {
                    pixels.extend_from_slice(&[p[0], p[1], p[2], 255]);
                }
            }
        }
    }
    buf.unmap();
    RgbaImage::from_raw(w, h, pixels).context("screenshot size")
}
