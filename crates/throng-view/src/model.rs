//! What the viewer shows, apart from the window: the open files, the settings the panels edit,
//! the crowd's players, and one frame drawn offscreen by throng-render at a given size. Built
//! from the same library functions `throng render` uses (throng-scene, `throng_runtime::crowd`,
//! `throng_render`), so a still of the viewer and of `render` agree.

use anyhow::Context;
use glam::Vec3;
use std::path::{Path, PathBuf};
use throng_anim::{Model, ModelSkinner, SkinnedPart};
use throng_asset::{Aabb, BakedAsset, ClipInfo, Encoding, LoopMode, VatEncoding};
use throng_contract::{Skinning, Timing};
use throng_render::image::RgbaImage;
use throng_render::{
    Camera, Crowd, DebugView, FrameStats, GpuAsset, InstanceTransform, RenderOptions, Renderer,
    SkinPath,
};
use throng_runtime::crowd::{self, ClipMix, Layout};

use crate::graph::ViewGraph;
use crate::heat;
use throng_runtime::{ClipId, PlayOptions, PlaybackCommand, Runtime};
use throng_scene::{bake_model, load_model, source_meshes, InMemoryBake, SourceOptions};

/// One open file: its baked asset (read, or baked in memory from the source) and, when known,
/// the source it was baked from (for re-baking and for the comparison).
pub struct Entry {
    pub path: PathBuf,
    pub asset: BakedAsset,
    pub source: Option<Model>,
    gpu: Option<GpuAsset>,
}

/// How the source is shown beside the bake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    Off,
    /// The source skinned on the CPU (reference path) to the right of the bake.
    Beside,
    /// The source drawn half-transparent over the bake.
    Over,
    /// The bake's decoder coloured by its distance to the source at every vertex.
    Heat,
}

/// Everything the panels edit.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Clip of the first file; the others play the clip of the same name, else the same index.
    pub clip: usize,
    pub playing: bool,
    /// Playback speed factor (clock seconds per second).
    pub speed: f32,
    /// Overrides the clip table's loop mode.
    pub loop_mode: Option<LoopMode>,
    pub fade_to: usize,
    /// Crossfade duration, seconds.
    pub fade_s: f32,
    /// Blends this clip in at `blend_weight`, in normalised time.
    pub blend: Option<usize>,
    pub blend_weight: f32,
    pub instances: u32,
    pub layout: Layout,
    /// Clip seconds between consecutive instances.
    pub stagger: f64,
    pub random_phase: bool,
    /// Holds every instance at its place in the layout; otherwise an asset baked with root
    /// motion moves its instances (CPU timing; the comparisons always hold them, so the source
    /// and the bake line up).
    pub in_place: bool,
    pub path: SkinPath,
    pub timing: Timing,
    pub skinning: Skinning,
    /// Encoding and influences of an in-memory bake (files with a source only).
    pub encoding: Encoding,
    /// `None`: 4 or 8 by the error budget, as `throng bake` chooses by default.
    pub influences: Option<u32>,
    pub lod_bias: f32,
    /// Draw far instances as far-tier cards (assets baked with a far tier).
    pub far_tier: bool,
    /// Occlusion culling (besides the frustum).
    pub occlusion: bool,
    pub shadows: bool,
    pub ground: bool,
    pub debug: Option<DebugView>,
    pub compare: Compare,
    /// Crowd variety (docs/design.md §4 "Appearance"), the "Variety" panel.
    pub variety: Variety,
}

/// What the "Variety" panel sets, for every crowd: per-instance tints from the demo crowd's
/// palette, the parts (primitives) every instance shows, the parts every other instance hides,
/// and the material variant (0: own materials).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Variety {
    pub tints: bool,
    /// Bit i: primitive i shown on every instance.
    pub parts: u32,
    /// Bit i: primitive i hidden on every other instance (odd indices).
    pub alternate: u32,
    pub variant: u32,
}

impl Default for Variety {
    fn default() -> Variety {
        Variety {
            tints: false,
            parts: u32::MAX,
            alternate: 0,
            variant: 0,
        }
    }
}

impl Variety {
    /// The appearances of `n` instances.
    pub fn appearances(&self, n: usize) -> Vec<throng_contract::Appearance> {
        (0..n)
            .map(|i| {
                let base = if self.tints {
                    // The demo's tints, without its hidden parts.
                    throng_scene::demo_appearance(i as u64, 1)
                } else {
                    throng_contract::Appearance::DEFAULT
                };
                let hidden = if i % 2 == 1 { self.alternate } else { 0 };
                base.with_parts(self.parts & !hidden)
                    .with_variant(self.variant)
            })
            .collect()
    }
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            clip: 0,
            playing: true,
            speed: 1.0,
            loop_mode: None,
            fade_to: 0,
            fade_s: 0.5,
            blend: None,
            blend_weight: 0.5,
            instances: 9,
            layout: Layout::Grid,
            stagger: 0.1,
            random_phase: false,
            in_place: false,
            // The fastest path measured (docs/benchmarks.md).
            path: SkinPath::Palette,
            timing: Timing::Cpu,
            skinning: Skinning::Linear,
            encoding: throng_bake::BakeOptions::default().encoding,
            influences: None,
            lod_bias: 1.0,
            far_tier: true,
            occlusion: true,
            shadows: true,
            ground: true,
            debug: None,
            compare: Compare::Off,
            variety: Variety::default(),
        }
    }
}

/// An orbit camera: yaw and pitch (radians) about a target, at a distance (file units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Orbit {
    pub target: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    pub distance: f32,
    fov_y: f32,
    /// Scene radius, for the near and far planes.
    radius: f32,
}

impl Orbit {
    /// The camera `throng render` frames `scene` with, as an orbit.
    pub fn framing(scene: &Aabb, aspect: f32) -> Orbit {
        let c = Camera::framing(scene, aspect);
        let d = c.eye - c.target;
        let distance = d.length().max(1e-6);
        Orbit {
            target: c.target,
            yaw: d.x.atan2(d.z),
            pitch: (d.y / distance).clamp(-1.0, 1.0).asin(),
            distance,
            fov_y: c.fov_y,
            radius: (scene.diagonal() * 0.5).max(1e-6),
        }
    }

    /// Keeps the near and far planes around `scene` (a crowd that grew or shrank).
    pub fn fit(&mut self, scene: &Aabb) {
        self.radius = (scene.diagonal() * 0.5).max(1e-6);
    }

    pub fn camera(&self) -> Camera {
        let dir = Vec3::new(
            self.pitch.cos() * self.yaw.sin(),
            self.pitch.sin(),
            self.pitch.cos() * self.yaw.cos(),
        );
        let far = self.distance + 4.0 * self.radius;
        Camera {
            eye: self.target + dir * self.distance,
            target: self.target,
            up: Vec3::Y,
            fov_y: self.fov_y,
            near: (self.distance - 4.0 * self.radius).max(far * 1e-4),
            far,
        }
    }

    /// Drag by (dx, dy) pixels: turn about the target.
    pub fn rotate(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.008;
        self.pitch = (self.pitch + dy * 0.008).clamp(-1.5, 1.5);
    }

    /// Scroll: move towards (`steps` > 0) or away from the target.
    pub fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * 0.999f32.powf(steps)).max(self.radius * 1e-3);
    }

    /// Drag with the secondary button by (dx, dy) pixels of a `height`-pixel view: move the
    /// target in the view plane.
    pub fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let c = self.camera();
        let f = (c.target - c.eye).normalize_or_zero();
        let right = f.cross(Vec3::Y).normalize_or_zero();
        let up = right.cross(f);
        let per_px = 2.0 * self.distance * (self.fov_y * 0.5).tan() / height.max(1.0);
        self.target += (-right * dx + up * dy) * per_px;
    }
}

/// One drawn frame: the main image and, when comparing beside or over, the source's.
pub struct Drawn {
    pub main: RgbaImage,
    pub source: Option<RgbaImage>,
    pub stats: Option<FrameStats>,
    /// The heat map's scale and worst error, when it is shown.
    pub heat: Option<heat::Legend>,
}

/// Each file's share of the crowd.
struct Part {
    transforms: Vec<InstanceTransform>,
}

/// The viewer's state: files, settings, the crowd's players, the camera, the clock.
pub struct ViewModel {
    pub entries: Vec<Entry>,
    pub settings: Settings,
    /// The settings the players were built with (a change rebuilds them).
    built: Option<Settings>,
    pub orbit: Option<Orbit>,
    /// Clip time of the crowd, seconds (instance 0's time on the selected clip).
    pub time: f64,
    players: Vec<Runtime>,
    parts: Vec<Part>,
    scene: Aabb,
    /// Event names fired and when (seconds of `clock`), for the flash.
    pub fired: Vec<(String, f64)>,
    pub clock: f64,
    /// Messages for the status line (errors the panels caused, what loaded).
    pub status: String,
    /// Whether `status` is an error (drawn red) rather than news.
    pub status_error: bool,
    skinner: Vec<Option<ModelSkinner>>,
    ramp_png: Vec<u8>,
    /// An animation graph playing every file's crowd instead of the clip panels.
    pub graph: Option<ViewGraph>,
}

/// Reads `path` (a baked asset, or a source glTF baked in memory) with its source: the file
/// itself when it is a source, else `source` when given.
pub fn open(
    path: &Path,
    source: Option<&Path>,
    settings: &Settings,
    args: &SourceOptions,
) -> anyhow::Result<Entry> {
    if throng_asset::is_baked_file(path) {
        // The asset's errors name the file.
        let asset = throng_asset::read(path)?;
        let source = match source {
            Some(s) => Some(load_model(s, args)?),
            None => None,
        };
        return Ok(Entry {
            path: path.to_path_buf(),
            asset,
            source,
            gpu: None,
        });
    }
    let model = load_model(path, args)?;
    let asset = bake(&model, path, settings)?;
    Ok(Entry {
        path: path.to_path_buf(),
        asset,
        source: Some(model),
        gpu: None,
    })
}

/// Bakes `model` (read from `path`) with the viewer's encoding and influences (and a VAT for
/// the VAT path), as `render` bakes a source.
fn bake(model: &Model, path: &Path, s: &Settings) -> anyhow::Result<BakedAsset> {
    let how = InMemoryBake {
        encoding: Some(s.encoding),
        influences: s.influences,
        vat: (s.path == SkinPath::Vat).then_some(VatEncoding::F32),
        source: Default::default(),
        anchors: Vec::new(),
    };
    bake_model(model, path, &how)
}

impl ViewModel {
    pub fn new(entries: Vec<Entry>, settings: Settings) -> anyhow::Result<ViewModel> {
        let skinner = entries
            .iter()
            .map(|e| e.source.as_ref().map(ModelSkinner::new))
            .collect();
        Ok(ViewModel {
            entries,
            settings,
            built: None,
            orbit: None,
            time: 0.0,
            players: Vec::new(),
            parts: Vec::new(),
            scene: Aabb::EMPTY,
            fired: Vec::new(),
            clock: 0.0,
            status: String::new(),
            status_error: false,
            skinner,
            ramp_png: heat::ramp_png()?,
            graph: None,
        })
    }

    /// Plays every file's crowd through the graph at `path` (checked against each file's
    /// clips), its parameters starting at `params` (name, value as text); the comparisons,
    /// which follow the runtime's clips, are turned off.
    pub fn set_graph(
        &mut self,
        path: PathBuf,
        params: &[(String, Option<String>)],
        step_on: throng_graph_gpu::StepOn,
    ) -> anyhow::Result<()> {
        let assets: Vec<&BakedAsset> = self.entries.iter().map(|e| &e.asset).collect();
        let mut graph = ViewGraph::load(path, &assets, step_on)?;
        for (name, value) in params {
            graph.start_with(name, value.as_deref())?;
        }
        self.graph = Some(graph);
        self.settings.compare = Compare::Off;
        self.built = None;
        Ok(())
    }

    /// File `a`'s records as the renderer reads them: its graph crowd's, else its runtime's.
    fn records(&self, a: usize) -> Option<throng_contract::Records<'_>> {
        match &self.graph {
            Some(g) => g.records(a),
            None => self.players.get(a).map(Runtime::records),
        }
    }

    /// Puts `text` on the status line, red when it is an `error`.
    pub fn tell(&mut self, text: String, error: bool) {
        self.status = text;
        self.status_error = error;
    }

    /// Adds a file (dropped on the window).
    pub fn add(&mut self, entry: Entry) {
        self.tell(format!("opened {}", entry.path.display()), false);
        self.skinner
            .push(entry.source.as_ref().map(ModelSkinner::new));
        self.entries.push(entry);
        self.built = None;
        self.orbit = None;
    }

    /// The first file's clips (the clip list and timeline follow it).
    pub fn clips(&self) -> &[ClipInfo] {
        self.entries
            .first()
            .map_or(&[][..], |e| e.asset.clips.as_slice())
    }

    /// Duration of the selected clip, seconds.
    pub fn duration(&self) -> f64 {
        self.clips()
            .get(self.settings.clip)
            .map_or(0.0, |c| c.duration)
    }

    /// Whether the first file has a source to compare with.
    pub fn has_source(&self) -> bool {
        self.entries.first().is_some_and(|e| e.source.is_some())
    }

    /// Starts a crossfade of every instance to `settings.fade_to` (the selected clip becomes it
    /// without a restart).
    pub fn crossfade(&mut self) {
        let (to, s) = (self.settings.fade_to, self.settings.fade_s);
        let wanted = self.clips().get(to).cloned();
        for (e, p) in self.entries.iter().zip(&mut self.players) {
            let Some(c) = clip_in(&e.asset, wanted.as_ref(), to) else {
                continue;
            };
            let fade = PlaybackCommand::Crossfade {
                clip: ClipId::new(c),
                seconds: s,
                options: PlayOptions::default(),
            };
            if let Err(err) = p.command_all(fade) {
                self.status = format!("crossfade: {err:#}");
                self.status_error = true;
            }
        }
        self.settings.clip = to;
        self.settings.blend = None;
        if let Some(b) = self.built.as_mut() {
            // The players already show the new clip: no rebuild.
            b.clip = to;
            b.blend = None;
        }
    }

    /// Advances the clock by `dt` wall seconds (scaled by the speed when playing).
    pub fn step(&mut self, dt: f64) {
        self.clock += dt;
        self.ensure_built();
        if !self.settings.playing {
            return;
        }
        let dt = dt * self.settings.speed as f64;
        self.time += dt;
        if let Some(g) = self.graph.as_mut() {
            if let Err(e) = g.step(dt) {
                self.status = format!("{e:#}");
                self.status_error = true;
            }
            for a in 0..self.entries.len() {
                let Some(c) = g.crowd(a) else { continue };
                // on the GPU, the step before's (docs/graph.md "On the GPU")
                for ev in c.state_events() {
                    if let Some(n) = g.graph.event_name(ev.event) {
                        self.fired.retain(|(m, _)| m != n);
                        self.fired.push((n.to_string(), self.clock));
                    }
                }
            }
            return;
        }
        for (e, p) in self.entries.iter().zip(&mut self.players) {
            p.clear_changes();
            p.update(dt);
            for ev in p.events() {
                let name = e
                    .asset
                    .clips
                    .get(ev.clip.index())
                    .and_then(|c| c.events.get(ev.event as usize))
                    .map(|x| x.name.clone());
                if let Some(n) = name {
                    self.fired.retain(|(m, _)| *m != n);
                    self.fired.push((n, self.clock));
                }
            }
        }
        // The timeline shows the selected clip's time, wrapped or held by its loop mode.
        if let Some(c) = self.clips().get(self.settings.clip) {
            let mode = self.settings.loop_mode.unwrap_or(c.loop_mode);
            self.time = throng_contract::wrap_time(mode, c.duration, self.time).0;
        }
    }

    /// Rebuilds the players when the settings changed. A change that fails (a re-bake that
    /// errs, a VAT the file lacks) is reported in the status line and reverted to the last
    /// settings that worked, so it is not retried every frame.
    fn ensure_built(&mut self) {
        if self.built.as_ref() == Some(&self.settings) {
            return;
        }
        if let Err(e) = self.rebuild() {
            self.tell(format!("{e:#}"), true);
            if let Some(good) = self.built.clone() {
                self.settings = good;
                // The last good settings' players may be gone: build them again.
                if let Err(e) = self.rebuild() {
                    self.tell(format!("{e:#}"), true);
                    self.built = None;
                }
            }
        }
    }

    /// Starts the timeline at `t` seconds of the selected clip, wrapped or held by its loop mode.
    pub fn start_at(&mut self, t: f64) {
        self.time = match self.clips().get(self.settings.clip) {
            Some(c) => {
                let mode = self.settings.loop_mode.unwrap_or(c.loop_mode);
                throng_contract::wrap_time(mode, c.duration, t).0
            }
            None => t,
        };
        self.built = None;
    }

    /// Sets the timeline to `t` seconds (players restart there).
    pub fn scrub(&mut self, t: f64) {
        self.time = t;
        self.built = None;
    }

    /// Re-bakes files with a source when the encoding, influences or VAT need changed; lays the
    /// crowd out and starts every file's player at `time`.
    fn rebuild(&mut self) -> anyhow::Result<()> {
        let s = self.settings.clone();
        let rebake = self
            .built
            .as_ref()
            .is_some_and(|b| b.encoding != s.encoding || b.influences != s.influences);
        for e in &mut self.entries {
            let needs_vat =
                s.path == SkinPath::Vat && e.asset.primitives.iter().any(|p| p.vat.is_none());
            if rebake || needs_vat {
                match &e.source {
                    Some(m) => {
                        e.asset = bake(m, &e.path, &s)?;
                        e.gpu = None;
                        self.status = format!("re-baked {}", e.path.display());
                        self.status_error = false;
                    }
                    None if needs_vat => {
                        self.settings.path = SkinPath::Texture;
                        anyhow::bail!(
                            "{} has no vertex animation textures and no source to bake them from (bake it with --vat, or open the source)",
                            e.path.display()
                        );
                    }
                    None => {}
                }
            }
        }
        let k = self.entries.len();
        let sizes: Vec<Aabb> = self.entries.iter().map(|e| e.asset.pose_bounds()).collect();
        let (places, scene) = throng_scene::split_layout(&sizes, s.instances, s.layout, 1);
        let chosen = self.clips().get(s.clip).cloned();
        let blend_clip = s.blend.and_then(|b| self.clips().get(b).cloned());
        self.parts.clear();
        self.players.clear();
        self.scene = scene;
        for (a, (e, transforms)) in self.entries.iter().zip(places).enumerate() {
            let ids = crowd::ids_of(a, k, s.instances);
            let clip = clip_in(&e.asset, chosen.as_ref(), s.clip);
            let mix = ClipMix {
                clip,
                mix: false,
                stagger: s.stagger,
                random_phase: s.random_phase,
                seed: 1 + a as u64,
            };
            let durations: Vec<f64> = e.asset.clips.iter().map(|c| c.duration).collect();
            let assignments = crowd::assign(&mix, &ids, &durations);
            let mut clips = e.asset.clips.clone();
            if let (Some(mode), Some(c)) = (s.loop_mode, clip) {
                clips[c].loop_mode = mode;
            }
            let blend = match (blend_clip.as_ref(), s.blend) {
                (Some(b), Some(bi)) => clip_in(&e.asset, Some(b), bi).map(|b| (b, s.blend_weight)),
                _ => None,
            };
            // Comparing needs the runtime's clip times (CPU-timed).
            let timing = if s.compare == Compare::Off {
                s.timing
            } else {
                Timing::Cpu
            };
            self.players.push(crowd::new_runtime(
                timing,
                &clips,
                &assignments,
                &transforms,
                self.time,
                blend,
            )?);
            self.parts.push(Part { transforms });
        }
        if let Some(g) = self.graph.as_mut() {
            let assets: Vec<&BakedAsset> = self.entries.iter().map(|e| &e.asset).collect();
            let lens: Vec<usize> = self.parts.iter().map(|p| p.transforms.len()).collect();
            g.restart(&assets, &lens)?;
        }
        self.built = Some(self.settings.clone());
        Ok(())
    }

    fn options(&self, (w, h): (u32, u32)) -> RenderOptions {
        let s = &self.settings;
        let orbit = self
            .orbit
            .unwrap_or_else(|| Orbit::framing(&self.scene, w as f32 / h.max(1) as f32));
        RenderOptions {
            width: w,
            height: h,
            skinning: s.skinning,
            path: s.path,
            camera: Some(orbit.camera()),
            scene: Some(self.scene),
            ground: s.ground,
            shadows: s.shadows,
            lod_bias: s.lod_bias,
            far_tier: s.far_tier,
            occlusion: s.occlusion,
            // The motion view reads the palette path's history; elsewhere it shows nothing.
            debug: s
                .debug
                .filter(|&d| d != DebugView::Motion || s.path == SkinPath::Palette),
            ..Default::default()
        }
    }

    /// Draws the frame at `size` pixels (each image of a side-by-side comparison gets half the
    /// width).
    pub fn draw(&mut self, renderer: &mut Renderer, size: (u32, u32)) -> anyhow::Result<Drawn> {
        self.ensure_built();
        if self.built.is_none() {
            anyhow::bail!("nothing to draw: {}", self.status);
        }
        let size = match self.settings.compare {
            Compare::Beside => ((size.0 / 2).max(16), size.1.max(16)),
            _ => (size.0.max(16), size.1.max(16)),
        };
        match self.orbit.as_mut() {
            Some(o) => o.fit(&self.scene),
            None => self.orbit = Some(Orbit::framing(&self.scene, size.0 as f32 / size.1 as f32)),
        }
        let opts = self.options(size);
        for e in &mut self.entries {
            if e.gpu.is_none() && opts.path != SkinPath::Reference {
                e.gpu = Some(
                    renderer
                        .upload(&e.asset)
                        .with_context(|| format!("uploading {}", e.path.display()))?,
                );
            }
        }
        if let Some(g) = self.graph.as_mut() {
            if let Some(line) = g.place(&renderer.gpu)? {
                eprintln!("{line}");
            }
            let read_back = opts.path == SkinPath::Reference;
            for (a, part) in self.parts.iter().enumerate() {
                g.prepare_draw(a, &part.transforms, read_back)?;
            }
        }
        let (main, stats, heat) = match (self.settings.compare, opts.path) {
            (Compare::Heat, _) => {
                let (img, legend) = self.draw_heat(renderer, &opts)?;
                (img, None, Some(legend))
            }
            (_, SkinPath::Reference) => (self.draw_decoded(renderer, &opts)?, None, None),
            _ => {
                let looks: Vec<Vec<throng_contract::Appearance>> = (self.entries.iter())
                    .zip(self.players.iter().zip(&self.parts))
                    .map(|(_, (p, part))| {
                        self.settings.variety.appearances(self.shown(p, part).len())
                    })
                    .collect();
                let crowds: Vec<Crowd> = (self.entries.iter().enumerate())
                    .zip(&self.players)
                    .zip(&self.parts)
                    .zip(&looks)
                    .filter_map(|((((a, e), p), part), look)| {
                        Some(Crowd {
                            asset: e.gpu.as_ref()?,
                            transforms: self.shown(p, part),
                            playback: match &self.graph {
                                Some(g) => g.playback(a)?,
                                None => self.records(a)?.into(),
                            },
                            props: &[],
                            live: &[],
                            appearance: if self.settings.variety == Variety::default() {
                                throng_render::CrowdAppearance::Default
                            } else {
                                throng_render::CrowdAppearance::Slice(look)
                            },
                        })
                    })
                    .collect();
                let f = renderer.render_scene(&crowds, &opts)?;
                (f.image, Some(f.stats), None)
            }
        };
        let source = match self.settings.compare {
            Compare::Beside | Compare::Over => Some(self.draw_source(renderer, &opts)?),
            _ => None,
        };
        Ok(Drawn {
            main,
            source,
            stats,
            heat,
        })
    }

    /// Where instances are drawn: moved by root motion, unless held in place or compared with
    /// the source.
    fn shown<'a>(&self, player: &'a Runtime, part: &'a Part) -> &'a [InstanceTransform] {
        // A graph crowd keeps no root motion.
        if self.settings.in_place || self.settings.compare != Compare::Off || self.graph.is_some() {
            &part.transforms
        } else {
            player.transforms()
        }
    }

    /// The first file, its CPU-timed records and its share of the crowd.
    fn first_cpu(&self) -> anyhow::Result<(&Entry, &[throng_contract::InstanceRecord], &Part)> {
        let (Some(e), Some(part)) = (self.entries.first(), self.parts.first()) else {
            anyhow::bail!("nothing to draw");
        };
        let Some(records) = self.records(0).and_then(|r| r.cpu()) else {
            anyhow::bail!("the reference path and the heat map are CPU-timed: choose CPU timing");
        };
        Ok((e, records, part))
    }

    /// The first file's bake decoded on the CPU (the reference path of a baked asset).
    fn draw_decoded(
        &self,
        renderer: &mut Renderer,
        opts: &RenderOptions,
    ) -> anyhow::Result<RgbaImage> {
        let (e, records, part) = self.first_cpu()?;
        let shown = match self.players.first() {
            Some(p) => self.shown(p, part),
            None => &part.transforms,
        };
        let decoded = throng_render::DecodedMeshes::new(&e.asset, records, shown, opts.skinning)?;
        Ok(renderer.render_reference(&decoded.meshes(), opts)?)
    }

    /// Each instance of the first file's source posed at its strongest layer's clip and time.
    fn source_parts(&mut self) -> anyhow::Result<Vec<Vec<SkinnedPart>>> {
        let (Some(e), Some(p)) = (self.entries.first(), self.players.first()) else {
            anyhow::bail!("nothing to compare");
        };
        let (Some(model), Some(Some(skinner))) = (e.source.as_ref(), self.skinner.first_mut())
        else {
            anyhow::bail!(
                "{} has no source to compare with (open the source glTF, or pass --source)",
                e.path.display()
            );
        };
        let n = self.parts.first().map_or(0, |x| x.transforms.len());
        let mut all = Vec::with_capacity(n);
        for i in 0..n {
            let layers = p
                .handle_at(i)
                .and_then(|h| p.layer_times(h))
                .unwrap_or_default();
            let strongest = layers
                .iter()
                .copied()
                .fold(None::<(usize, f32, f64)>, |best, l| match best {
                    Some(b) if b.1 >= l.1 => Some(b),
                    _ => Some(l),
                });
            let clip = strongest.and_then(|(c, w, t)| {
                let name = &e.asset.clips.get(c)?.name;
                let sc = model
                    .clips
                    .iter()
                    .position(|x| &x.name == name)
                    .or(Some(c))?;
                (w > 0.0 && sc < model.clips.len()).then_some((sc, t))
            });
            let mut out = Vec::new();
            skinner.skin(
                model,
                clip.map(|(c, _)| c),
                clip.map_or(0.0, |(_, t)| t as f32),
                self.settings.skinning,
                &mut out,
            );
            all.push(out);
        }
        Ok(all)
    }

    /// The first file's source skinned on the CPU at full rate (the reference path).
    fn draw_source(
        &mut self,
        renderer: &mut Renderer,
        opts: &RenderOptions,
    ) -> anyhow::Result<RgbaImage> {
        let parts = self.source_parts()?;
        let (Some(e), Some(part)) = (self.entries.first(), self.parts.first()) else {
            anyhow::bail!("nothing to compare");
        };
        let Some(model) = e.source.as_ref() else {
            anyhow::bail!("no source");
        };
        let meshes = source_meshes(model, &parts, &part.transforms);
        let o = RenderOptions {
            path: SkinPath::Reference,
            ..*opts
        };
        Ok(renderer.render_reference(&meshes, &o)?)
    }

    /// The first file's bake decoded on the CPU, each vertex coloured by its distance to the
    /// source's at the same clip time.
    fn draw_heat(
        &mut self,
        renderer: &mut Renderer,
        opts: &RenderOptions,
    ) -> anyhow::Result<(RgbaImage, heat::Legend)> {
        let parts = self.source_parts()?;
        let (e, records, part) = self.first_cpu()?;
        let field = heat::HeatField::new(&e.asset, records, &parts, opts.skinning)?;
        let meshes = field.meshes(&e.asset, &part.transforms, &self.ramp_png);
        let o = RenderOptions {
            path: SkinPath::Reference,
            ..*opts
        };
        Ok((renderer.render_reference(&meshes, &o)?, field.legend))
    }
}

/// The clip of `asset` matching `wanted` (by name), else index `index` when it exists.
fn clip_in(asset: &BakedAsset, wanted: Option<&ClipInfo>, index: usize) -> Option<usize> {
    wanted
        .and_then(|w| asset.clips.iter().position(|c| c.name == w.name))
        .or((index < asset.clips.len()).then_some(index))
}
