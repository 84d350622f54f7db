//! The JavaScript API (wasm-bindgen): the `Crowd` class over [`Player`] and the renderer on a
//! `<canvas>`. Only conversions and drawing live here; playback is the player's, errors the
//! crates' own (each becomes a JavaScript `Error` with the same message).

use std::cell::{RefCell, RefMut};
use std::sync::{Arc, Mutex};

use js_sys::{Function, Object, Reflect};
use throng_render::{device::surface_config, Gpu, GpuAsset, Renderer};
use throng_runtime::{ClipId, PlaybackCommand, Timing};
use wasm_bindgen::prelude::*;
use web_sys::HtmlCanvasElement;

use crate::backend::{check_capabilities, Backend};
use crate::error::{message_chain, WebError};
use crate::graph::{step_on, ParamValue, StateEventInfo};
use crate::options::{clip_ref, crowd_spec, opt_str, param_value, play_opts, Opts};
use crate::player::{EventInfo, FinishedInfo, Player};
use throng_graph_gpu::StepOn;

/// A JavaScript `Error` carrying the typed error's message and causes.
fn js(e: WebError) -> JsValue {
    JsError::new(&message_chain(&e)).into()
}

/// An optional options object as a value (`undefined` when omitted).
fn value(o: Option<Object>) -> JsValue {
    o.map_or(JsValue::UNDEFINED, JsValue::from)
}

fn err<T>(r: Result<T, WebError>) -> Result<T, JsValue> {
    r.map_err(js)
}

thread_local! {
    static PANIC_HANDLER: std::cell::RefCell<Option<Function>> = const { std::cell::RefCell::new(None) };
}

/// Installed when the module starts: a Rust panic is written to the console with its message
/// and location, and handed to the handler of `setPanicHandler` (the module cannot be used
/// after a panic: every later call throws).
#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let text = info.to_string();
        PANIC_HANDLER.with(|h| {
            if let Some(f) = h.borrow().as_ref() {
                let _ = f.call1(&JsValue::NULL, &JsValue::from_str(&text));
            }
        });
    }));
}

/// Calls `handler(message)` when Rust code panics (after the message is written to the
/// console); `null` removes it.
#[wasm_bindgen(js_name = setPanicHandler)]
pub fn set_panic_handler(handler: Option<Function>) {
    PANIC_HANDLER.with(|h| *h.borrow_mut() = handler);
}

/// A crowd of one baked asset drawn on a canvas: instances, their playback, the camera.
///
/// Every method takes `&self` and borrows the state for its own duration only, and no borrow
/// is held while a callback runs: a handler may call any method of the crowd (wasm-bindgen
/// refuses a call into an object a `&self` method is still inside of).
#[wasm_bindgen]
pub struct Crowd {
    state: RefCell<State>,
    on_event: RefCell<Option<Function>>,
    on_finished: RefCell<Option<Function>>,
    on_state_event: RefCell<Option<Function>>,
}

/// What the crowd's calls read and change.
struct State {
    player: Player,
    /// The canvas throng draws on; `None` for a crowd an engine's own renderer draws
    /// (`Crowd.headless`).
    stage: Option<Stage>,
    draws: u32,
}

/// throng's renderer on a canvas.
struct Stage {
    canvas: HtmlCanvasElement,
    renderer: Renderer,
    gpu_asset: GpuAsset,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    /// The sRGB view of the canvas texture the renderer writes (it writes linear colour).
    view_format: wgpu::TextureFormat,
    backend: Backend,
    /// The first error the GPU reported since the last frame (validation, out of memory).
    gpu_error: Arc<Mutex<Option<String>>>,
}

#[wasm_bindgen]
impl Crowd {
    /// Loads a baked `.glb` (`throng bake`'s output) and creates the renderer on `canvas`.
    /// Options: `backend` (`"auto"`: WebGPU when `navigator.gpu` gives an adapter, else WebGL2;
    /// `"webgpu"`; `"webgl2"`), `timing` (`"cpu"` or `"gpu"`), `name` (the file's name in
    /// errors). Rejects with an `Error` naming what is wrong with the file or the device.
    pub async fn create(
        canvas: HtmlCanvasElement,
        glb: Vec<u8>,
        #[wasm_bindgen(unchecked_optional_param_type = "CrowdOptions")] options: Option<Object>,
    ) -> Result<Crowd, JsValue> {
        let options = value(options);
        let o = Opts(&options);
        let backend = err(Backend::parse(
            &opt_str(&o, "backend")?.unwrap_or("auto".into()),
        ))?;
        // The file first: a bad file fails before any GPU work.
        let (asset, timing) = load(&glb, &o)?;
        let webgpu = wgpu::util::is_browser_webgpu_supported().await;
        let chosen = err(backend.choose(webgpu))?;
        let (surface, gpu) = err(device_on(&canvas, chosen).await)?;
        let gpu_error = Arc::new(Mutex::new(None));
        let sink = gpu_error.clone();
        gpu.device
            .on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
                let text = e.to_string();
                web_sys::console::error_1(&JsValue::from_str(&text));
                if let Ok(mut slot) = sink.lock() {
                    slot.get_or_insert(text);
                }
            }));
        let size = (canvas.width(), canvas.height());
        let mut config = surface_config(&surface, &gpu.adapter, size).ok_or_else(|| {
            js(WebError::Surface {
                backend: chosen.as_str(),
                why: "the adapter cannot present to this canvas".into(),
            })
        })?;
        let view_format = config.format.add_srgb_suffix();
        if view_format != config.format {
            config.view_formats.push(view_format);
        }
        surface.configure(&gpu.device, &config);
        let renderer = Renderer::with_gpu(gpu);
        let gpu_asset = err(renderer.upload(&asset).map_err(WebError::from))?;
        Ok(Crowd::new(State {
            player: Player::new(asset, timing),
            stage: Some(Stage {
                canvas,
                renderer,
                gpu_asset,
                surface,
                config,
                view_format,
                backend: chosen,
                gpu_error,
            }),
            draws: 0,
        }))
    }

    /// Loads a baked `.glb` for an engine's own renderer to draw (three.js: `throng/three`,
    /// Babylon.js: `throng/babylon`): playback, events and the data of `meshes()`,
    /// `boneRows()`, `instanceMatrices()`, `records()` / `gpuRecords()`, with no canvas and no
    /// GPU of throng's. Options: `timing` (`"cpu"`, the default, or `"gpu"`), `name`.
    pub fn headless(
        glb: Vec<u8>,
        #[wasm_bindgen(unchecked_optional_param_type = "CrowdOptions")] options: Option<Object>,
    ) -> Result<Crowd, JsValue> {
        let options = value(options);
        let (asset, timing) = load(&glb, &Opts(&options))?;
        Ok(Crowd::new(State {
            player: Player::new(asset, timing),
            stage: None,
            draws: 0,
        }))
    }

    /// Whether rows derive on the GPU from `clock` (`timing: "gpu"`).
    #[wasm_bindgen(getter, js_name = gpuTimed)]
    pub fn gpu_timed(&self) -> bool {
        self.st().player.runtime().timing() == Timing::Gpu
    }

    /// The vertex-stage GLSL ES 3.00 the adapters inject into their engines' materials:
    /// `throngSkin()` returns world · skin matrix of the vertex (docs/web.md "Writing an
    /// adapter"); define `THRONG_GPU_TIMED` before it for a GPU-timed crowd.
    pub fn glsl() -> String {
        crate::adapter::glsl()
    }

    /// The adapters' far-tier card GLSL (`adapter_far.glsl`, docs/web.md "Writing an adapter for
    /// another engine"): the vertex stage appends it to [`Crowd::glsl`]; the fragment stage defines
    /// `THRONG_FAR_FRAGMENT` before it.
    #[wasm_bindgen(js_name = farGlsl)]
    pub fn far_glsl() -> String {
        crate::adapter::far_glsl()
    }

    /// The asset's far tier as the adapters' card shader reads it, or `null` when it has none:
    /// `{width, height, colour, surface}` (the tiles' atlases, RGBA8 `Uint8Array`s, rows top
    /// first), `sphere` (model centre and radius, file units), `grid` (texels a tile side,
    /// azimuths, elevations, tiles an atlas row), `elevationBounds` (8 sines), `clips`
    /// (`Uint32Array`: the clip count, 0, 0, 0, then per clip `firstFrame, frames, looped, 0`,
    /// then the tiles' rects four at a time, `x0 | y0 << 8 | x1 << 16 | y1 << 24`), `rows`
    /// (`Float32Array`: each frame-table row's frame coordinate, padded to a multiple of 4),
    /// `error` (one tile texel, file units: a card is drawn where it covers at most the LOD
    /// bias in pixels) and `indices` (`Uint16Array`: a card's two triangles over its four
    /// corners, the corner's bit 0 right and bit 1 top). Throws when the tier does not fit
    /// WebGL2's 2048-texel textures.
    #[wasm_bindgen(js_name = farTier)]
    pub fn far_tier(&self) -> Result<JsValue, JsValue> {
        let far = crate::adapter::far(self.st().player.asset())
            .map_err(|why| js(WebError::Name(format!("the far tier: {why}"))))?;
        let Some(f) = far else {
            return Ok(JsValue::NULL);
        };
        let o = Object::new();
        let set = |k: &str, v: JsValue| Reflect::set(&o, &JsValue::from_str(k), &v);
        set("width", f.width.into())?;
        set("height", f.height.into())?;
        set("colour", js_sys::Uint8Array::from(&f.colour[..]).into())?;
        set("surface", js_sys::Uint8Array::from(&f.surface[..]).into())?;
        set("sphere", js_sys::Float32Array::from(&f.sphere[..]).into())?;
        set("grid", js_sys::Uint32Array::from(&f.grid[..]).into())?;
        set(
            "elevationBounds",
            js_sys::Float32Array::from(&f.elevation_bounds[..]).into(),
        )?;
        set("clips", js_sys::Uint32Array::from(&f.clips[..]).into())?;
        set("rows", js_sys::Float32Array::from(&f.rows[..]).into())?;
        set("error", f.error.into())?;
        set(
            "indices",
            js_sys::Uint16Array::from(&throng_asset::gpu::far::CARD_INDICES.map(|i| i as u16)[..])
                .into(),
        )?;
        Ok(o.into())
    }

    /// Texels per row of the adapters' tables (transforms, records, clips, frame times).
    #[wasm_bindgen(js_name = tableWidth)]
    pub fn table_width() -> u32 {
        crate::adapter::TABLE_WIDTH
    }

    /// Moves whenever transforms or the dense order change (spawn, despawn, clear,
    /// setTransform): re-read `instanceMatrices()` and every record then.
    #[wasm_bindgen(getter)]
    pub fn placement(&self) -> u32 {
        self.st().player.placement()
    }

    /// GPU-timed: every instance's record, 16 words each (the 14 words of the record, 2
    /// unused), and `clock` below is what the shader derives rows from.
    #[wasm_bindgen(js_name = gpuRecords)]
    pub fn gpu_records(&self) -> Result<js_sys::Uint32Array, JsValue> {
        let r = crate::adapter::gpu_records(&self.st().player).ok_or_else(|| {
            js(WebError::Name(
                "a CPU-timed crowd has no GPU-timed records: read records()".into(),
            ))
        })?;
        Ok(js_sys::Uint32Array::from(&r[..]))
    }

    /// GPU-timed: the low 32 bits of the runtime's clock, 2^20 ticks a second; 0 CPU-timed.
    #[wasm_bindgen(getter)]
    pub fn clock(&self) -> u32 {
        crate::adapter::clock(&self.st().player)
    }

    /// GPU-timed: the records rewritten since the last call, 16 words each (14 record words,
    /// the dense index, 1 unused), and forgets them: what an upload kept across frames sends.
    /// Empty CPU-timed.
    #[wasm_bindgen(js_name = takeRecordWrites)]
    pub fn take_record_writes(&self) -> js_sys::Uint32Array {
        js_sys::Uint32Array::from(&self.st().player.take_record_writes()[..])
    }

    /// The clip table (both timings: the row taps read each clip's interpolation):
    /// `{clips, frameTimes}` (Uint32Array): per clip
    /// `(firstRow, frames, timesOffset, flags)`, and the frame-time table's words.
    #[wasm_bindgen(js_name = clipTable)]
    pub fn clip_table(&self) -> Result<Object, JsValue> {
        let (clips, times) = crate::adapter::clip_table(self.st().player.asset());
        let o = Object::new();
        Reflect::set(&o, &"clips".into(), &js_sys::Uint32Array::from(&clips[..]))?;
        Reflect::set(
            &o,
            &"frameTimes".into(),
            &js_sys::Uint32Array::from(&times[..]),
        )?;
        Ok(o)
    }

    /// Per primitive: `positions`, `normals` (Float32Array, bind space), `uvs` (empty without
    /// texture coordinates), `joints` (Uint16Array) and `weights` (Float32Array), four per
    /// vertex; `lods` (Uint32Array triangle lists, LOD 0 first), `lodErrors`, `baseColor`
    /// (linear RGBA) and `image` (`{bytes, mimeType}` or undefined).
    pub fn meshes(&self) -> Result<js_sys::Array, JsValue> {
        let st = self.st();
        let asset = st.player.asset();
        let out = js_sys::Array::new();
        for m in crate::adapter::meshes(asset) {
            let o = Object::new();
            let set = |k: &str, v: JsValue| Reflect::set(&o, &JsValue::from_str(k), &v);
            set(
                "positions",
                js_sys::Float32Array::from(&m.positions[..]).into(),
            )?;
            set("normals", js_sys::Float32Array::from(&m.normals[..]).into())?;
            set("uvs", js_sys::Float32Array::from(&m.uvs[..]).into())?;
            set("joints", js_sys::Uint16Array::from(&m.joints[..]).into())?;
            set("weights", js_sys::Float32Array::from(&m.weights[..]).into())?;
            let lods = js_sys::Array::new();
            for l in &m.lods {
                lods.push(&js_sys::Uint32Array::from(&l[..]));
            }
            set("lods", lods.into())?;
            set(
                "lodErrors",
                js_sys::Float32Array::from(&m.lod_errors[..]).into(),
            )?;
            set(
                "baseColor",
                js_sys::Float32Array::from(&m.base_color[..]).into(),
            )?;
            if let Some(img) = m.image.and_then(|i| asset.images.get(i)) {
                let i = Object::new();
                Reflect::set(
                    &i,
                    &"bytes".into(),
                    &js_sys::Uint8Array::from(&img.bytes[..]),
                )?;
                Reflect::set(&i, &"mimeType".into(), &img.mime_type.as_str().into())?;
                set("image", i.into())?;
            }
            out.push(&o);
        }
        Ok(out)
    }

    /// The bone texture decoded to floats: `{width, height, data}`, `height` rows of `width =
    /// 3 · entries` RGBA texels, texel `(3j + r, row)` = row r of entry j's skin matrix.
    #[wasm_bindgen(js_name = boneRows)]
    pub fn bone_rows(&self) -> Result<Object, JsValue> {
        let b = err(crate::adapter::bone_rows(self.st().player.asset()).map_err(WebError::from))?;
        let o = Object::new();
        Reflect::set(&o, &"width".into(), &b.width.into())?;
        Reflect::set(&o, &"height".into(), &b.rows.into())?;
        Reflect::set(&o, &"data".into(), &js_sys::Float32Array::from(&b.data[..]))?;
        Ok(o)
    }

    /// Per instance its world matrix, 16 numbers column-major, in the runtime's dense order.
    #[wasm_bindgen(js_name = instanceMatrices)]
    pub fn instance_matrices(&self) -> js_sys::Float32Array {
        js_sys::Float32Array::from(&crate::adapter::instance_matrices(&self.st().player)[..])
    }

    /// Per instance its CPU-timed record, 16 numbers: per layer (weight, frac, row, clip index).
    pub fn records(&self) -> Result<js_sys::Float32Array, JsValue> {
        let r = crate::adapter::records(&self.st().player).ok_or_else(|| {
            js(WebError::Name(
                "no per-layer rows to read: the crowd is GPU-timed, or its graph steps on the GPU (its records stay on the device; stepOn: \"cpu\" keeps them here)".into(),
            ))
        })?;
        Ok(js_sys::Float32Array::from(&r[..]))
    }

    /// Model-space bounds of the asset over every baked row: `[minX, minY, minZ, maxX, maxY, maxZ]`.
    #[wasm_bindgen(js_name = poseBounds)]
    pub fn pose_bounds(&self) -> Vec<f32> {
        let b = self.st().player.asset().pose_bounds();
        [b.min.to_array(), b.max.to_array()].concat()
    }

    /// `"webgpu"` or `"webgl2"`: what draws the page.
    #[wasm_bindgen(getter)]
    pub fn backend(&self) -> String {
        self.st()
            .stage
            .as_ref()
            .map_or("none".into(), |s| s.backend.as_str().into())
    }

    /// The adapter, e.g. "SwiftShader Device (Subzero) (webgpu, Cpu)".
    #[wasm_bindgen(getter)]
    pub fn adapter(&self) -> String {
        let Some(stage) = &self.st().stage else {
            return "none (headless)".into();
        };
        let a = stage.renderer.adapter();
        // Browsers may hide the adapter's name (WebGPU's adapter info is opt-in).
        if a.name.is_empty() {
            format!("an unnamed {} adapter ({})", a.backend, a.device_type)
        } else {
            a.to_string()
        }
    }

    /// What the device lacks for the renderer's full mode (e.g. "compute shaders" on WebGL2):
    /// frames are drawn in the downlevel mode (CPU culling, the texture path, no palettes,
    /// props or motion vectors; docs/web.md). `undefined` in the full mode.
    #[wasm_bindgen(getter)]
    pub fn downlevel(&self) -> Option<String> {
        self.st()
            .stage
            .as_ref()
            .and_then(|s| s.renderer.downlevel_reason().map(String::from))
    }

    /// Live instances.
    #[wasm_bindgen(getter)]
    pub fn count(&self) -> u32 {
        self.st().player.len() as u32
    }

    /// The clip names, in clip-table order (a clip's index is its position here).
    #[wasm_bindgen(getter)]
    pub fn clips(&self) -> Vec<String> {
        self.st()
            .player
            .asset()
            .clips
            .iter()
            .map(|c| c.name.clone())
            .collect()
    }

    /// Draw calls of the last frame (all passes; independent of the instance count).
    #[wasm_bindgen(getter, js_name = lastDraws)]
    pub fn last_draws(&self) -> u32 {
        self.st().draws
    }

    /// A new instance at `matrix` (16 numbers, column-major: three.js `Matrix4.elements`;
    /// world from model, file units; identity when omitted), showing the rest pose until a clip
    /// plays. Returns its id.
    pub fn spawn(&self, matrix: Option<Vec<f32>>) -> Result<u32, JsValue> {
        let m = matrix.unwrap_or_else(|| glam::Mat4::IDENTITY.to_cols_array().to_vec());
        err(self.st().player.spawn(&m))
    }

    /// A new instance standing at (x, y, z) turned `yaw` radians about +Y.
    #[wasm_bindgen(js_name = spawnAt)]
    pub fn spawn_at(&self, x: f32, y: f32, z: f32, yaw: f32) -> Result<u32, JsValue> {
        let m = glam::Mat4::from_rotation_translation(
            glam::Quat::from_rotation_y(yaw),
            glam::Vec3::new(x, y, z),
        );
        err(self.st().player.spawn(&m.to_cols_array()))
    }

    /// Adds a crowd laid out and started as `throng render` does (`count`, `clip`, `stagger`,
    /// `randomPhase`, `time`, `layout`: `"grid"` or `"random"`, `seed`); returns the new ids.
    #[wasm_bindgen(js_name = spawnCrowd)]
    pub fn spawn_crowd(
        &self,
        #[wasm_bindgen(unchecked_param_type = "CrowdSpec")] spec: JsValue,
    ) -> Result<Vec<u32>, JsValue> {
        let spec = crowd_spec(&spec)?;
        err(self.st().player.spawn_crowd(&spec))
    }

    pub fn despawn(&self, id: u32) -> Result<(), JsValue> {
        err(self.st().player.despawn(id))
    }

    /// Despawns every instance.
    pub fn clear(&self) {
        self.st().player.clear();
    }

    /// Ids of the live instances.
    pub fn ids(&self) -> Vec<u32> {
        self.st().player.ids()
    }

    #[wasm_bindgen(js_name = setTransform)]
    pub fn set_transform(&self, id: u32, matrix: Vec<f32>) -> Result<(), JsValue> {
        err(self.st().player.set_transform(id, &matrix))
    }

    /// Plays `clip` (name or index) on instance `id`, replacing its layers. Options: `speed`
    /// (clip speed factor, 0 to 1000), `loop` (`"loop"`, `"once"`, `"clamp"`, `"ping-pong"`),
    /// `startTime` (seconds).
    pub fn play(
        &self,
        id: u32,
        #[wasm_bindgen(unchecked_param_type = "string | number")] clip: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "PlayOptions")] options: Option<Object>,
    ) -> Result<(), JsValue> {
        let command = self.play_command(&clip, &value(options))?;
        err(self.st().player.command(Some(id), command))
    }

    /// `play` on every instance.
    #[wasm_bindgen(js_name = playAll)]
    pub fn play_all(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | number")] clip: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "PlayOptions")] options: Option<Object>,
    ) -> Result<(), JsValue> {
        let command = self.play_command(&clip, &value(options))?;
        err(self.st().player.command(None, command))
    }

    /// Crossfades instance `id` to `clip` over `seconds` of clock time, the outgoing clips
    /// playing on while they fade (the runtime's `crossfade_with`).
    pub fn crossfade(
        &self,
        id: u32,
        #[wasm_bindgen(unchecked_param_type = "string | number")] clip: JsValue,
        seconds: f32,
        #[wasm_bindgen(unchecked_optional_param_type = "PlayOptions")] options: Option<Object>,
    ) -> Result<(), JsValue> {
        let command = self.fade_command(&clip, seconds, &value(options))?;
        err(self.st().player.command(Some(id), command))
    }

    /// `crossfade` on every instance.
    #[wasm_bindgen(js_name = crossfadeAll)]
    pub fn crossfade_all(
        &self,
        #[wasm_bindgen(unchecked_param_type = "string | number")] clip: JsValue,
        seconds: f32,
        #[wasm_bindgen(unchecked_optional_param_type = "PlayOptions")] options: Option<Object>,
    ) -> Result<(), JsValue> {
        let command = self.fade_command(&clip, seconds, &value(options))?;
        err(self.st().player.command(None, command))
    }

    /// Blends two clips in normalised time: `weight` of `clipB`, `1 − weight` of `clipA`
    /// (calling it again with the same clips changes the weight and keeps the phase).
    pub fn blend(
        &self,
        id: u32,
        #[wasm_bindgen(js_name = clipA, unchecked_param_type = "string | number")] clip_a: JsValue,
        #[wasm_bindgen(js_name = clipB, unchecked_param_type = "string | number")] clip_b: JsValue,
        weight: f32,
    ) -> Result<(), JsValue> {
        let command = self.blend_command(&clip_a, &clip_b, weight)?;
        err(self.st().player.command(Some(id), command))
    }

    /// `blend` on every instance.
    #[wasm_bindgen(js_name = blendAll)]
    pub fn blend_all(
        &self,
        #[wasm_bindgen(js_name = clipA, unchecked_param_type = "string | number")] clip_a: JsValue,
        #[wasm_bindgen(js_name = clipB, unchecked_param_type = "string | number")] clip_b: JsValue,
        weight: f32,
    ) -> Result<(), JsValue> {
        let command = self.blend_command(&clip_a, &clip_b, weight)?;
        err(self.st().player.command(None, command))
    }

    /// Instance speed multiplier (0 to 1000; larger throws), applied to all of its layers.
    #[wasm_bindgen(js_name = setSpeed)]
    pub fn set_speed(&self, id: u32, speed: f32) -> Result<(), JsValue> {
        err(self
            .st()
            .player
            .command(Some(id), PlaybackCommand::Speed(speed)))
    }

    /// `setSpeed` on every instance.
    #[wasm_bindgen(js_name = setSpeedAll)]
    pub fn set_speed_all(&self, speed: f32) -> Result<(), JsValue> {
        err(self
            .st()
            .player
            .command(None, PlaybackCommand::Speed(speed)))
    }

    pub fn pause(&self, id: u32) -> Result<(), JsValue> {
        err(self.st().player.command(Some(id), PlaybackCommand::Pause))
    }

    pub fn resume(&self, id: u32) -> Result<(), JsValue> {
        err(self.st().player.command(Some(id), PlaybackCommand::Resume))
    }

    /// Jumps the instance's newest layer to clip time `seconds`.
    pub fn seek(&self, id: u32, seconds: f32) -> Result<(), JsValue> {
        err(self
            .st()
            .player
            .command(Some(id), PlaybackCommand::Seek(seconds)))
    }

    /// Calls `callback({instance, clip, clipName, event, name, time})` once per clip event
    /// crossed during `frame`, after playback has advanced and before the frame is drawn; the
    /// handler may call any method of the crowd (`play`, `despawn`, …), and what it changes is
    /// drawn in the same frame. `null` removes it. An exception in the callback is rethrown by
    /// `frame` after the frame is drawn.
    #[wasm_bindgen(js_name = onEvent)]
    pub fn on_event(
        &self,
        #[wasm_bindgen(unchecked_param_type = "((e: ThrongEvent) => void) | null")]
        callback: Option<Function>,
    ) {
        *self.on_event.borrow_mut() = callback;
    }

    /// Calls `callback({instance, clip, clipName, time})` once per one-shot layer (`loop:
    /// "once"` or `"clamp"`) that reached its end during `frame` (the instance now holds the
    /// clip's last frame), after the event callbacks and under the same rules; `null` removes
    /// it.
    #[wasm_bindgen(js_name = onFinished)]
    pub fn on_finished(
        &self,
        #[wasm_bindgen(unchecked_param_type = "((e: ThrongFinished) => void) | null")]
        callback: Option<Function>,
    ) {
        *self.on_finished.borrow_mut() = callback;
    }

    /// Plays the animation graph `json` (a throng graph file's text, docs/graph.md) on every
    /// instance of the crowd from now on, each in the graph's entry state. Options: `stepOn`
    /// (`"auto"`: the GPU on a hardware adapter with compute shaders, else the CPU; `"cpu"`;
    /// `"gpu"`, an error where the device cannot), `name` (the file's name in errors). The
    /// crowd must be CPU-timed (the default `timing`); while the graph plays, its instances are
    /// fixed (spawn, despawn and clip commands throw until `clear()`), their transforms may
    /// move. A headless crowd steps its graph on the CPU. Throws naming what is wrong with the
    /// file (its clip names are checked against the asset's).
    #[wasm_bindgen(js_name = playGraph)]
    pub fn play_graph(
        &self,
        json: &str,
        #[wasm_bindgen(unchecked_optional_param_type = "GraphOptions")] options: Option<Object>,
    ) -> Result<(), JsValue> {
        let options = value(options);
        let o = Opts(&options);
        let on = err(step_on(&opt_str(&o, "stepOn")?.unwrap_or("auto".into())))?;
        let name = opt_str(&o, "name")?.unwrap_or_else(|| "the graph".into());
        let mut st = self.st();
        let st = &mut *st;
        let gpu = st.stage.as_ref().map(|s| &s.renderer.gpu);
        err(st.player.play_graph(json, &name, gpu, on))?;
        // a page's main thread cannot wait on the device: the GPU step's events are taken
        // once their copy has arrived (docs/web.md "Graph crowds")
        st.player.never_wait_for_graph_events();
        if gpu.is_none() && on == StepOn::Auto {
            st.player
                .note_graph_cpu_because("a headless crowd has no GPU of throng's");
        }
        Ok(())
    }

    /// Where the playing graph steps: `"gpu"` or `"cpu"`; `undefined` when no graph plays.
    #[wasm_bindgen(getter, js_name = graphStepsOn)]
    pub fn graph_steps_on(&self) -> Option<String> {
        let st = self.st();
        let rt = st.player.graph()?;
        Some(if rt.on_gpu() { "gpu" } else { "cpu" }.into())
    }

    /// The playing graph's parameters, in the file's order: `[{name, kind, default}]`, `kind`
    /// one of `"float"`, `"int"`, `"bool"`, `"trigger"`; empty when no graph plays.
    #[wasm_bindgen(getter, js_name = graphParameters)]
    pub fn graph_parameters(&self) -> Result<js_sys::Array, JsValue> {
        let out = js_sys::Array::new();
        let st = self.st();
        let Some(rt) = st.player.graph() else {
            return Ok(out);
        };
        for p in rt.graph().parameters() {
            let o = Object::new();
            Reflect::set(&o, &"name".into(), &p.name().into())?;
            Reflect::set(&o, &"kind".into(), &p.kind().name().into())?;
            Reflect::set(&o, &"default".into(), &p.default_value().into())?;
            out.push(&o);
        }
        Ok(out)
    }

    /// Why `stepOn: "auto"` kept the playing graph on the CPU (e.g. a software adapter);
    /// `undefined` on the GPU, when asked for the CPU, or without a graph.
    #[wasm_bindgen(getter, js_name = graphCpuBecause)]
    pub fn graph_cpu_because(&self) -> Option<String> {
        self.st().player.graph_cpu_because().map(str::to_string)
    }

    /// Whether the events a frame reports (`onEvent`, `onStateEvent`) are those of earlier
    /// frames: a graph stepped on the GPU reads them back once they have arrived, so a frame
    /// never waits for the GPU — usually the frame before's, later on a slow GPU (a frame may
    /// then report several steps' events, in order).
    #[wasm_bindgen(getter, js_name = eventsFrameLate)]
    pub fn events_frame_late(&self) -> bool {
        self.st()
            .player
            .graph()
            .is_some_and(|rt| rt.events_frame_late())
    }

    /// Whether some events of the steps the last `frame` reported were lost: on the GPU, past
    /// the room a step keeps for them (eight clip events an instance, 256 to 2^20; two state
    /// events an instance), or because a step's copy had not arrived six frames later.
    #[wasm_bindgen(getter, js_name = eventsLost)]
    pub fn events_lost(&self) -> bool {
        self.st().player.graph().is_some_and(|rt| rt.events_lost())
    }

    /// Sets the playing graph's parameter `name` of instance `id` for the next frame: a float
    /// or int parameter to a number (ints whole, at most 2^24 in magnitude), a bool to
    /// `true`/`false`; a trigger fires with `true` (or use `fire`). Throws for an unknown
    /// parameter (listing the graph's), a value of another kind, or no graph.
    #[wasm_bindgen(js_name = setParam)]
    pub fn set_param(
        &self,
        id: u32,
        name: &str,
        #[wasm_bindgen(unchecked_param_type = "number | boolean")] value: JsValue,
    ) -> Result<(), JsValue> {
        let v = param_value(&value)?;
        err(self.st().player.set_param(Some(id), name, v))
    }

    /// `setParam` on every instance.
    #[wasm_bindgen(js_name = setParamAll)]
    pub fn set_param_all(
        &self,
        name: &str,
        #[wasm_bindgen(unchecked_param_type = "number | boolean")] value: JsValue,
    ) -> Result<(), JsValue> {
        let v = param_value(&value)?;
        err(self.st().player.set_param(None, name, v))
    }

    /// Fires the playing graph's trigger `name` of instance `id`: it stays set until a
    /// transition with it among its conditions fires.
    pub fn fire(&self, id: u32, name: &str) -> Result<(), JsValue> {
        err(self.st().player.set_param(Some(id), name, ParamValue::Fire))
    }

    /// `fire` on every instance.
    #[wasm_bindgen(js_name = fireAll)]
    pub fn fire_all(&self, name: &str) -> Result<(), JsValue> {
        err(self.st().player.set_param(None, name, ParamValue::Fire))
    }

    /// Calls `callback({instance, state, name, kind})` once per state event of the playing
    /// graph (a state entered, `kind: "enter"`, or left, `"exit"`, whose `on_enter` /
    /// `on_exit` names event `name`) during `frame` (`eventsFrameLate`: the frame before's),
    /// after `onEvent` and before `onFinished`, under the same rules; `null` removes it.
    #[wasm_bindgen(js_name = onStateEvent)]
    pub fn on_state_event(
        &self,
        #[wasm_bindgen(unchecked_param_type = "((e: ThrongStateEvent) => void) | null")]
        callback: Option<Function>,
    ) {
        *self.on_state_event.borrow_mut() = callback;
    }

    /// Puts the camera at `eye` looking at `target` (world space, file units) with a vertical
    /// field of view of `fovY` radians.
    #[wasm_bindgen(js_name = lookAt)]
    pub fn look_at(
        &self,
        eye: Vec<f32>,
        target: Vec<f32>,
        #[wasm_bindgen(js_name = fovY)] fov_y: f32,
    ) -> Result<(), JsValue> {
        let three = |v: &[f32], what: &str| -> Result<[f32; 3], JsValue> {
            v.try_into().map_err(|_| {
                js(WebError::Name(format!(
                    "{what} needs 3 numbers, got {}",
                    v.len()
                )))
            })
        };
        let (eye, target) = (three(&eye, "eye")?, three(&target, "target")?);
        err(self.st().player.look_at(eye, target, fov_y))
    }

    /// Frames the whole crowd every frame again (the default; `throng render`'s camera).
    #[wasm_bindgen(js_name = autoCamera)]
    pub fn auto_camera(&self) {
        self.st().player.camera = None;
    }

    /// Resizes the drawing buffer to `width` × `height` pixels (the canvas's `width` and
    /// `height` attributes are set too).
    pub fn resize(&self, width: u32, height: u32) {
        let mut st = self.st();
        let Some(s) = st.stage.as_mut() else {
            return;
        };
        s.config.width = width.max(1);
        s.config.height = height.max(1);
        s.canvas.set_width(s.config.width);
        s.canvas.set_height(s.config.height);
        s.surface.configure(&s.renderer.gpu.device, &s.config);
    }

    /// Advances playback by `dt` seconds (negative counts as 0), calls the event callbacks
    /// (`onEvent`, then `onFinished`) for what the step crossed, and draws the frame on the
    /// canvas (a headless crowd draws nothing). An exception in a callback is rethrown after
    /// the frame is drawn.
    pub fn frame(&self, dt: f64) -> Result<(), JsValue> {
        let (events, states, finished) = {
            let mut st = self.st();
            let events = err(st.player.step(dt))?;
            (events, st.player.state_events(), st.player.finished())
        };
        // no borrow is held from here to the draw: the handlers may call back into the crowd
        let called = self.report(&events, &states, &finished);
        let drawn = self.st().draw();
        drawn.and(called)
    }
}

impl Crowd {
    fn new(state: State) -> Crowd {
        Crowd {
            state: RefCell::new(state),
            on_event: RefCell::new(None),
            on_finished: RefCell::new(None),
            on_state_event: RefCell::new(None),
        }
    }

    /// The state, for one call's duration. Never borrowed twice: no method calls JavaScript
    /// while it holds the borrow (`frame` lets go before the callbacks run).
    fn st(&self) -> RefMut<'_, State> {
        self.state.borrow_mut()
    }

    fn play_command(&self, clip: &JsValue, options: &JsValue) -> Result<PlaybackCommand, JsValue> {
        let clip = err(self.st().player.clip(&clip_ref(clip)?))?;
        Ok(PlaybackCommand::Play {
            clip: ClipId::new(clip),
            options: play_opts(options)?,
        })
    }

    fn fade_command(
        &self,
        clip: &JsValue,
        seconds: f32,
        options: &JsValue,
    ) -> Result<PlaybackCommand, JsValue> {
        let clip = err(self.st().player.clip(&clip_ref(clip)?))?;
        Ok(PlaybackCommand::Crossfade {
            clip: ClipId::new(clip),
            seconds,
            options: play_opts(options)?,
        })
    }

    fn blend_command(
        &self,
        a: &JsValue,
        b: &JsValue,
        weight: f32,
    ) -> Result<PlaybackCommand, JsValue> {
        let a = err(self.st().player.clip(&clip_ref(a)?))?;
        let b = err(self.st().player.clip(&clip_ref(b)?))?;
        Ok(PlaybackCommand::Blend {
            a: ClipId::new(a),
            b: ClipId::new(b),
            weight,
        })
    }

    /// Calls the handlers for the step's events and completions; the first exception, if any.
    fn report(
        &self,
        events: &[EventInfo],
        states: &[StateEventInfo],
        finished: &[FinishedInfo],
    ) -> Result<(), JsValue> {
        // cloned out: a handler may replace or remove itself
        let on_event = self.on_event.borrow().clone();
        let on_state_event = self.on_state_event.borrow().clone();
        let on_finished = self.on_finished.borrow().clone();
        let mut first_error = None;
        if let Some(f) = on_event {
            for e in events {
                let o = Object::new();
                let set = |k: &str, v: JsValue| Reflect::set(&o, &JsValue::from_str(k), &v);
                set("instance", e.instance.into())?;
                set("clip", e.clip.into())?;
                set("clipName", e.clip_name.as_str().into())?;
                set("event", e.event.into())?;
                set("name", e.name.as_str().into())?;
                set("time", e.time.into())?;
                if let Err(x) = f.call1(&JsValue::NULL, &o) {
                    first_error.get_or_insert(x);
                }
            }
        }
        if let Some(f) = on_state_event {
            for e in states {
                let o = Object::new();
                let set = |k: &str, v: JsValue| Reflect::set(&o, &JsValue::from_str(k), &v);
                set("instance", e.instance.into())?;
                set("state", e.state.as_str().into())?;
                set("name", e.name.as_str().into())?;
                set("kind", e.kind.into())?;
                if let Err(x) = f.call1(&JsValue::NULL, &o) {
                    first_error.get_or_insert(x);
                }
            }
        }
        if let Some(f) = on_finished {
            for e in finished {
                let o = Object::new();
                let set = |k: &str, v: JsValue| Reflect::set(&o, &JsValue::from_str(k), &v);
                set("instance", e.instance.into())?;
                set("clip", e.clip.into())?;
                set("clipName", e.clip_name.as_str().into())?;
                set("time", e.time.into())?;
                if let Err(x) = f.call1(&JsValue::NULL, &o) {
                    first_error.get_or_insert(x);
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl State {
    fn draw(&mut self) -> Result<(), JsValue> {
        let Some(s) = self.stage.as_mut() else {
            return Ok(());
        };
        if let Some(e) = s.gpu_error.lock().ok().and_then(|mut e| e.take()) {
            return Err(js(WebError::Gpu(e)));
        }
        let texture = match s.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            // The canvas was resized or hidden: configure again and draw the next frame.
            _ => {
                s.surface.configure(&s.renderer.gpu.device, &s.config);
                return Ok(());
            }
        };
        let view = texture.texture.create_view(&wgpu::TextureViewDescriptor {
            format: Some(s.view_format),
            ..Default::default()
        });
        err(self.player.prepare_draw())?;
        let (w, h) = (s.config.width, s.config.height);
        let entries = self.player.asset().palette.len();
        let fits = s.renderer.palette_fits(entries, self.player.len());
        let opts = self.player.render_options(w, h, fits);
        let device = s.renderer.gpu.device.clone();
        let mut encoder = device.create_command_encoder(&Default::default());
        let crowd = self.player.crowd(&s.gpu_asset);
        let stats = err(s
            .renderer
            .encode_frame(&mut encoder, &view, s.view_format, w, h, &[crowd], &opts)
            .map_err(WebError::from))?;
        self.draws = stats.draws;
        s.renderer.gpu.queue.submit([encoder.finish()]);
        s.renderer.gpu.queue.present(texture);
        Ok(())
    }
}

/// The baked file and the `timing` option of `create` and `headless` (`name`: the file's name
/// in errors).
fn load(glb: &[u8], o: &Opts<'_>) -> Result<(throng_asset::BakedAsset, Timing), JsValue> {
    let timing = match opt_str(o, "timing")? {
        Some(t) => err(t
            .parse::<Timing>()
            .map_err(|e| WebError::Name(e.to_string())))?,
        None => Timing::Cpu,
    };
    let name = opt_str(o, "name")?.unwrap_or_else(|| "the baked file".into());
    let asset = err(throng_asset::from_glb_bytes(glb, &name).map_err(WebError::from))?;
    Ok((asset, timing))
}

/// A surface on `canvas` and a device for `backend` whose adapter can present to it and run
/// the renderer, in the full mode or (WebGL2) the downlevel mode.
async fn device_on(
    canvas: &HtmlCanvasElement,
    backend: Backend,
) -> Result<(wgpu::Surface<'static>, Gpu), WebError> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = match backend {
        Backend::WebGl2 => wgpu::Backends::GL,
        _ => wgpu::Backends::BROWSER_WEBGPU,
    };
    let instance = wgpu::Instance::new(desc);
    let surface = instance
        .create_surface(wgpu::SurfaceTarget::Canvas(canvas.clone()))
        .map_err(|e| WebError::Surface {
            backend: backend.as_str(),
            why: e.to_string(),
        })?;
    let adapter = instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(&surface),
            ..Default::default()
        })
        .await
        .map_err(|e| WebError::NoAdapter {
            backend: backend.as_str(),
            why: e.to_string(),
        })?;
    let name = throng_render::AdapterSummary::of(&adapter).to_string();
    // A WebGL2 adapter (no compute shaders) passes when it has WebGL2's limits: the renderer
    // then draws in its downlevel mode, and `Gpu::from_adapter` asks for that mode's limits.
    check_capabilities(
        backend,
        &name,
        &adapter.get_downlevel_capabilities(),
        &adapter.limits(),
    )?;
    let gpu = Gpu::from_adapter(adapter).await?;
    Ok((surface, gpu))
}

#[wasm_bindgen(typescript_custom_section)]
const TS: &'static str = r#"
/** Options of Crowd.create. */
export interface CrowdOptions {
  /** "auto" (WebGPU when navigator.gpu gives an adapter, else WebGL2), "webgpu" or "webgl2". */
  backend?: "auto" | "webgpu" | "webgl2";
  /** "cpu": the CPU writes every record each frame; "gpu": the GPU derives frames from a clock. */
  timing?: "cpu" | "gpu";
  /** The file's name in error messages. */
  name?: string;
}
/** How to start a clip (the Rust API's PlayOptions). */
export interface PlayOptions {
  /** Clip speed factor, 0 to 1000 (1 = authored; larger throws). */
  speed?: number;
  /** Overrides the clip's loop mode. */
  loop?: "loop" | "once" | "clamp" | "ping-pong";
  /** Clip time to start at, seconds. */
  startTime?: number;
}
/** A crowd laid out and started as `throng render` does. */
export interface CrowdSpec {
  count: number;
  /** Clip name or index; omitted: a seeded mix of clips (the first clip for one instance). */
  clip?: string | number;
  /** Seconds of clip time between consecutive instances. */
  stagger?: number;
  randomPhase?: boolean;
  /** Crowd time every instance starts at, seconds. */
  time?: number;
  layout?: "grid" | "random";
  seed?: number;
}
/** Options of Crowd.playGraph. */
export interface GraphOptions {
  /** "auto" (the GPU on a hardware adapter with compute shaders, else the CPU), "cpu" or "gpu". */
  stepOn?: "auto" | "cpu" | "gpu";
  /** The graph file's name in error messages. */
  name?: string;
}
/** A state of the playing graph entered or left, naming an on_enter / on_exit event. */
export interface ThrongStateEvent {
  instance: number;
  /** The state entered or left. */
  state: string;
  /** The event's name in the graph file. */
  name: string;
  kind: "enter" | "exit";
}
/** A one-shot layer that reached its end during Crowd.frame. */
export interface ThrongFinished {
  instance: number;
  clip: number;
  clipName: string;
  /** Runtime clock time it ended at, seconds. */
  time: number;
}
/** A clip event crossed during Crowd.frame. */
export interface ThrongEvent {
  instance: number;
  clip: number;
  clipName: string;
  event: number;
  name: string;
  /** Clock time of the crossing, seconds: the runtime's, or a playing graph's (from 0 at playGraph). */
  time: number;
}
"#;
