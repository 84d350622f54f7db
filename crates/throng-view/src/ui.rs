//! The panels: files and clips, playback, crowd, drawing, comparison, frame statistics, events;
//! the central view shows the frame (drag: orbit, secondary drag: pan, scroll: zoom).

use egui::{Color32, RichText, Ui};
use throng_asset::{Encoding, LoopMode};
use throng_contract::{Skinning, Timing};
use throng_graph::ParamKind;
use throng_render::{DebugView, FrameStats, SkinPath};
use throng_runtime::crowd::Layout;

use crate::heat::{self, Legend};
use crate::model::{Compare, ViewModel};

/// What the frame gave the panels to show.
pub struct Shown {
    pub main: egui::TextureId,
    /// The source's image (beside or over).
    pub source: Option<egui::TextureId>,
    pub stats: Option<FrameStats>,
    pub heat: Option<Legend>,
    /// CPU time of the last frame's drawing, milliseconds.
    pub draw_ms: f64,
    pub fps: f64,
}

/// Seconds an event's name stays lit after it fires.
const FLASH_S: f64 = 0.4;

/// Lays out the whole window; returns the central view's size in physical pixels.
pub fn draw(ui: &mut Ui, m: &mut ViewModel, shown: &Shown) -> (u32, u32) {
    egui::Panel::left("throng-controls")
        .resizable(true)
        .default_size(300.0)
        .show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| controls(ui, m));
        });
    egui::Panel::bottom("throng-status").show(ui, |ui| {
        ui.horizontal(|ui| {
            ui.label(stats_text(shown));
            if !m.status.is_empty() {
                ui.separator();
                let colour = if m.status_error {
                    Color32::LIGHT_RED
                } else {
                    Color32::LIGHT_GREEN
                };
                ui.label(RichText::new(&m.status).color(colour));
            }
        });
    });
    let mut size = (0, 0);
    egui::CentralPanel::default().show(ui, |ui| {
        let avail = ui.available_size();
        let ppp = ui.ctx().pixels_per_point();
        size = (
            (avail.x * ppp).round().max(16.0) as u32,
            (avail.y * ppp).round().max(16.0) as u32,
        );
        viewport(ui, m, shown, avail);
    });
    size
}

fn stats_text(s: &Shown) -> String {
    let mut t = format!("{:.1} frames/s, CPU {:.1} ms", s.fps, s.draw_ms);
    if let Some(st) = &s.stats {
        if let Some(ns) = st.gpu_ns {
            t += &format!(", GPU {:.2} ms", ns as f64 * 1e-6);
        }
        t += &format!(
            " · {} draws · {} instances drawn ({}; {} newly visible) · {} triangles",
            st.draws,
            st.instances_drawn,
            throng_scene::lod_counts(st),
            st.second_phase_instances,
            st.triangles
        );
    }
    t
}

/// The frame (or the bake and the source side by side, or one over the other), with the
/// camera's mouse controls and the heat map's legend.
fn viewport(ui: &mut Ui, m: &mut ViewModel, shown: &Shown, avail: egui::Vec2) {
    let resp = match (m.settings.compare, shown.source) {
        (Compare::Beside, Some(src)) => {
            let half = egui::vec2(avail.x * 0.5, avail.y);
            ui.horizontal(|ui| {
                ui.spacing_mut().item_spacing.x = 0.0;
                let a = ui.add(
                    egui::Image::new(egui::load::SizedTexture::new(shown.main, half))
                        .sense(egui::Sense::click_and_drag()),
                );
                let b = ui.add(
                    egui::Image::new(egui::load::SizedTexture::new(src, half))
                        .sense(egui::Sense::click_and_drag()),
                );
                a.union(b)
            })
            .inner
        }
        _ => {
            let r = ui.add(
                egui::Image::new(egui::load::SizedTexture::new(shown.main, avail))
                    .sense(egui::Sense::click_and_drag()),
            );
            if let (Compare::Over, Some(src)) = (m.settings.compare, shown.source) {
                let tint = Color32::from_white_alpha(128);
                egui::Image::new(egui::load::SizedTexture::new(src, avail))
                    .tint(tint)
                    .paint_at(ui, r.rect);
            }
            r
        }
    };
    if let Some(o) = m.orbit.as_mut() {
        let d = resp.drag_delta();
        if resp.dragged_by(egui::PointerButton::Primary) {
            o.rotate(d.x, d.y);
        } else if resp.dragged_by(egui::PointerButton::Secondary)
            || resp.dragged_by(egui::PointerButton::Middle)
        {
            o.pan(d.x, d.y, avail.y);
        }
        if resp.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0 {
                o.zoom(scroll);
            }
        }
    }
    if let Some(l) = shown.heat {
        legend(ui, resp.rect, l);
    }
    for (i, (what, x)) in [("bake", 0.25f32), ("source (CPU skinning)", 0.75)]
        .iter()
        .enumerate()
    {
        if m.settings.compare == Compare::Beside && shown.source.is_some() {
            let at = egui::pos2(
                resp.rect.left() + resp.rect.width() * x,
                resp.rect.top() + 14.0,
            );
            ui.painter().text(
                at,
                egui::Align2::CENTER_CENTER,
                *what,
                egui::FontId::proportional(14.0),
                if i == 0 {
                    Color32::BLACK
                } else {
                    Color32::DARK_BLUE
                },
            );
        }
    }
}

/// The heat map's colour bar: 0 to the budget (1e-3 of the diagonal), in file units and as a
/// fraction of the diagonal, and the worst vertex now.
fn legend(ui: &mut Ui, view: egui::Rect, l: Legend) {
    let bar = egui::Rect::from_min_size(
        egui::pos2(view.left() + 50.0, view.bottom() - 60.0),
        egui::vec2(240.0, 14.0),
    );
    let p = ui.painter();
    let back = egui::Rect::from_min_max(
        bar.left_top() - egui::vec2(12.0, 24.0),
        bar.right_bottom() + egui::vec2(130.0, 24.0),
    );
    p.rect_filled(back, 4.0, Color32::from_black_alpha(160));
    let n = 32;
    for k in 0..n {
        let [r, g, b] = heat::ramp((k as f32 + 0.5) / n as f32);
        let w = bar.width() / n as f32;
        p.rect_filled(
            egui::Rect::from_min_size(
                egui::pos2(bar.left() + k as f32 * w, bar.top()),
                egui::vec2(w + 0.5, bar.height()),
            ),
            0.0,
            Color32::from_rgb(r, g, b),
        );
    }
    let font = egui::FontId::proportional(12.0);
    p.text(
        bar.left_bottom() + egui::vec2(0.0, 3.0),
        egui::Align2::LEFT_TOP,
        "0",
        font.clone(),
        Color32::WHITE,
    );
    p.text(
        bar.right_bottom() + egui::vec2(0.0, 3.0),
        egui::Align2::RIGHT_TOP,
        format!("≥ {:.3e} u (1e-3 of diagonal)", l.scale),
        font.clone(),
        Color32::WHITE,
    );
    p.text(
        bar.left_top() - egui::vec2(0.0, 3.0),
        egui::Align2::LEFT_BOTTOM,
        format!(
            "bake vs source: worst {:.3e} u = {:.2e} of diagonal",
            l.worst,
            l.worst / l.diagonal
        ),
        font,
        Color32::WHITE,
    );
}

/// A panel section, open at start.
/// The animation graph: its parameters for every instance (floats and ints as sliders, bools
/// as toggles, triggers as buttons), and one instance's states with the current one lit and
/// the transition under way.
fn graph_panel(ui: &mut Ui, m: &mut ViewModel) {
    let Some(g) = m.graph.as_mut() else {
        return;
    };
    ui.label(g.path.display().to_string());
    let mut error = None;
    for p in 0..g.graph.parameters().len() {
        let (name, kind) = (
            g.graph.parameters()[p].name().to_string(),
            g.graph.parameters()[p].kind(),
        );
        let mut v = g.values[p];
        let changed = match kind {
            ParamKind::Float => ui
                .add(
                    egui::Slider::new(&mut v, -1.0..=10.0)
                        .clamping(egui::SliderClamping::Never)
                        .text(&name),
                )
                .changed(),
            ParamKind::Int => {
                let mut i = v as i32;
                let c = ui
                    .add(egui::Slider::new(&mut i, -10..=100).text(&name))
                    .changed();
                v = i as f32;
                c
            }
            ParamKind::Bool => {
                let mut b = v != 0.0;
                let c = ui.checkbox(&mut b, &name).changed();
                v = b as u8 as f32;
                c
            }
            ParamKind::Trigger => {
                v = 1.0;
                ui.button(format!("fire {name}")).clicked()
            }
        };
        if changed {
            if let Err(e) = g.set(p, v) {
                error = Some(format!("{e:#}"));
            }
        }
    }
    let n = g.crowd(0).map_or(0, |c| c.len());
    if n > 1 {
        ui.add(egui::Slider::new(&mut g.selected, 0..=n - 1).text("instance"));
    }
    if let Some(now) = g.standing() {
        for (i, st) in g.graph.states().iter().enumerate() {
            let _ = ui.selectable_label(now.state.index() == i, st.name());
        }
        if let Some((t, f)) = now.transition {
            let name = |s: Option<throng_graph::StateId>| {
                s.and_then(|s| g.graph.state(s)).map_or("any", |s| s.name())
            };
            if let Some(t) = g.graph.transitions().get(t) {
                ui.weak(format!(
                    "transition {} → {}: {:.0} %",
                    name(t.from()),
                    name(Some(t.to())),
                    f * 100.0
                ));
            }
        }
    }
    if let Some(e) = error {
        m.tell(e, true);
    }
}

fn section(ui: &mut Ui, title: &str, body: impl FnOnce(&mut Ui)) {
    egui::CollapsingHeader::new(title)
        .default_open(true)
        .show(ui, body);
}

fn controls(ui: &mut Ui, m: &mut ViewModel) {
    ui.heading("throng view");
    section(ui, "Files", |ui| {
        for e in &m.entries {
            let src = if e.source.is_some() { " + source" } else { "" };
            ui.label(format!(
                "{}{src}: {}, {} palette entries",
                e.path.file_name().map_or_else(
                    || e.path.display().to_string(),
                    |n| n.to_string_lossy().into_owned()
                ),
                e.asset.bone_texture.encoding,
                e.asset.palette.len()
            ));
        }
        ui.weak("Drop a .gltf/.glb/.fbx here to add it.");
    });
    section(ui, "Clips", |ui| {
        if m.graph.is_some() {
            ui.weak("The graph chooses each instance's clips (Graph panel below).");
        }
        let clips: Vec<(String, f64, LoopMode, usize)> = m
            .clips()
            .iter()
            .map(|c| (c.name.clone(), c.duration, c.loop_mode, c.events.len()))
            .collect();
        for (i, (name, d, mode, events)) in clips.iter().enumerate() {
            let text = format!("{name}  {d:.2} s  {}  {events} events", mode.as_str());
            let lit = m.settings.clip == i && m.graph.is_none();
            if ui.selectable_label(lit, text).clicked() {
                m.settings.clip = i;
                m.settings.fade_to = i;
            }
        }
    });
    section(ui, "Playback", |ui| playback(ui, m));
    if m.graph.is_some() {
        section(ui, "Graph", |ui| graph_panel(ui, m));
    }
    section(ui, "Crowd", |ui| {
        let s = &mut m.settings;
        ui.add(
            egui::Slider::new(&mut s.instances, 1..=100_000)
                .logarithmic(true)
                .text("instances"),
        );
        egui::ComboBox::from_label("layout")
            .selected_text(format!("{:?}", s.layout))
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut s.layout, Layout::Grid, "grid");
                ui.selectable_value(&mut s.layout, Layout::Random, "random");
            });
        ui.add(egui::Slider::new(&mut s.stagger, 0.0..=1.0).text("phase spread (s)"));
        ui.checkbox(&mut s.random_phase, "random phase");
        ui.checkbox(&mut s.in_place, "hold in place (no root motion)");
    });
    section(ui, "Drawing", |ui| drawing(ui, m));
    section(ui, "Compare with the source", |ui| {
        let has = m.has_source() && m.graph.is_none();
        ui.add_enabled_ui(has, |ui| {
            let s = &mut m.settings;
            ui.horizontal_wrapped(|ui| {
                ui.radio_value(&mut s.compare, Compare::Off, "off");
                ui.radio_value(&mut s.compare, Compare::Beside, "beside");
                ui.radio_value(&mut s.compare, Compare::Over, "over");
                ui.radio_value(&mut s.compare, Compare::Heat, "error heat map");
            });
        });
        if m.graph.is_some() {
            ui.weak("A graph plays the crowd; the comparisons follow clips.");
        } else if !has {
            ui.weak("Open the source glTF, or a bake with --source SRC.");
        }
    });
    section(ui, "Events", |ui| {
        let names: Vec<String> = m
            .clips()
            .get(m.settings.clip)
            .map(|c| {
                c.events
                    .iter()
                    .map(|e| format!("{} @ {:.2} s", e.name, e.time))
                    .collect()
            })
            .unwrap_or_default();
        if names.is_empty() {
            ui.weak("The clip has no events.");
        }
        for n in names {
            let base = n.split(" @ ").next().unwrap_or("").to_string();
            let lit = m
                .fired
                .iter()
                .any(|(f, at)| *f == base && m.clock - at < FLASH_S);
            let text = RichText::new(n);
            ui.label(if lit {
                text.color(Color32::BLACK).background_color(Color32::YELLOW)
            } else {
                text
            });
        }
    });
    // Last and closed at start, so the panels above keep their places.
    egui::CollapsingHeader::new("Variety")
        .default_open(false)
        .show(ui, |ui| variety(ui, m));
}

/// Crowd variety (docs/design.md §4 "Appearance"): tints, parts, material variant.
fn variety(ui: &mut Ui, m: &mut ViewModel) {
    let (parts, variants) = m.entries.first().map_or((0, Vec::new()), |e| {
        let names = e.asset.variants.iter().map(|v| v.name.clone()).collect();
        (e.asset.primitives.len(), names)
    });
    let v = &mut m.settings.variety;
    ui.checkbox(&mut v.tints, "tints (the demo's palette)");
    let shown = parts.min(throng_contract::MAX_PARTS as usize);
    if shown > 1 {
        ui.label("parts: shown on all / hidden on every other");
        for p in 0..shown {
            ui.horizontal(|ui| {
                let mut on = v.parts & (1 << p) != 0;
                if ui.checkbox(&mut on, format!("primitive {p}")).changed() {
                    v.parts ^= 1 << p;
                }
                let mut alt = v.alternate & (1 << p) != 0;
                if ui.checkbox(&mut alt, "every other").changed() {
                    v.alternate ^= 1 << p;
                }
            });
        }
    } else {
        ui.weak("One primitive: no parts to switch.");
    }
    if variants.is_empty() {
        ui.weak("The asset has no material variants.");
    } else {
        ui.radio_value(&mut v.variant, 0, "own materials");
        for (i, name) in variants.iter().enumerate() {
            ui.radio_value(&mut v.variant, i as u32 + 1, name);
        }
    }
    if ui.button("reset").clicked() {
        *v = crate::model::Variety::default();
    }
}

fn playback(ui: &mut Ui, m: &mut ViewModel) {
    let d = m.duration();
    ui.horizontal(|ui| {
        let label = if m.settings.playing { "Pause" } else { "Play" };
        if ui.button(label).clicked() {
            m.settings.playing = !m.settings.playing;
        }
        ui.add(egui::Slider::new(&mut m.settings.speed, 0.0..=4.0).text("speed"));
    });
    if let Some(g) = &m.graph {
        // clips, times, loops and crossfades are the graph's (the Graph panel)
        let t = g.crowd(0).map_or(0.0, |c| c.time());
        ui.label(format!("graph time {t:.2} s"));
        return;
    }
    let mut t = m.time;
    if ui
        .add(egui::Slider::new(&mut t, 0.0..=d.max(1e-3)).text("time (s)"))
        .changed()
    {
        m.scrub(t);
    }
    let clip_mode = m.clips().get(m.settings.clip).map(|c| c.loop_mode);
    egui::ComboBox::from_label("loop mode")
        .selected_text(match m.settings.loop_mode {
            Some(l) => l.as_str().to_string(),
            None => format!("as baked ({})", clip_mode.map_or("-", |l| l.as_str())),
        })
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut m.settings.loop_mode, None, "as baked");
            for l in [
                LoopMode::Loop,
                LoopMode::Once,
                LoopMode::Clamp,
                LoopMode::PingPong,
            ] {
                ui.selectable_value(&mut m.settings.loop_mode, Some(l), l.as_str());
            }
        });
    let names: Vec<String> = m.clips().iter().map(|c| c.name.clone()).collect();
    ui.horizontal(|ui| {
        egui::ComboBox::from_id_salt("fade-to")
            .selected_text(names.get(m.settings.fade_to).cloned().unwrap_or_default())
            .show_ui(ui, |ui| {
                for (i, n) in names.iter().enumerate() {
                    ui.selectable_value(&mut m.settings.fade_to, i, n);
                }
            });
        ui.add(
            egui::DragValue::new(&mut m.settings.fade_s)
                .range(0.0..=10.0)
                .speed(0.05)
                .suffix(" s"),
        );
        if ui.button("crossfade").clicked() {
            m.crossfade();
        }
    });
    ui.horizontal(|ui| {
        egui::ComboBox::from_label("blend")
            .selected_text(
                m.settings
                    .blend
                    .and_then(|b| names.get(b).cloned())
                    .unwrap_or_else(|| "none".into()),
            )
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut m.settings.blend, None, "none");
                for (i, n) in names.iter().enumerate() {
                    ui.selectable_value(&mut m.settings.blend, Some(i), n);
                }
            });
    });
    if m.settings.blend.is_some() {
        ui.add(egui::Slider::new(&mut m.settings.blend_weight, 0.0..=1.0).text("blend weight"));
    }
}

fn drawing(ui: &mut Ui, m: &mut ViewModel) {
    let comparing = m.settings.compare != Compare::Off;
    // a graph crowd is CPU-timed: its records are the graph's
    let graph = m.graph.is_some();
    let can_rebake = m.entries.iter().any(|e| e.source.is_some());
    let s = &mut m.settings;
    // Wrapped: four choices must not widen the panel over the view.
    ui.horizontal_wrapped(|ui| {
        ui.label("path");
        ui.radio_value(&mut s.path, SkinPath::Palette, "palette");
        ui.radio_value(&mut s.path, SkinPath::Texture, "texture");
        ui.radio_value(&mut s.path, SkinPath::Vat, "VAT");
        ui.radio_value(&mut s.path, SkinPath::Reference, "reference");
    });
    ui.add_enabled_ui(
        !comparing && !graph && s.path != SkinPath::Reference,
        |ui| {
            ui.horizontal(|ui| {
                ui.label("timing");
                ui.radio_value(&mut s.timing, Timing::Cpu, "CPU");
                ui.radio_value(&mut s.timing, Timing::Gpu, "GPU");
            });
        },
    );
    ui.horizontal(|ui| {
        ui.label("skinning");
        ui.radio_value(&mut s.skinning, Skinning::Linear, "LBS");
        ui.radio_value(&mut s.skinning, Skinning::DualQuat, "DQ");
    });
    ui.add_enabled_ui(can_rebake, |ui| {
        egui::ComboBox::from_label("encoding (re-bake)")
            .selected_text(s.encoding.as_str())
            .show_ui(ui, |ui| {
                for e in Encoding::ALL {
                    ui.selectable_value(&mut s.encoding, e, e.as_str());
                }
            });
        ui.horizontal(|ui| {
            ui.label("influences");
            ui.radio_value(&mut s.influences, None, "auto");
            ui.radio_value(&mut s.influences, Some(4), "4");
            ui.radio_value(&mut s.influences, Some(8), "8");
        });
    });
    ui.add(egui::Slider::new(&mut s.lod_bias, 0.0..=16.0).text("LOD bias (px)"));
    // On a line of its own: the row below already sets the panel's width.
    ui.checkbox(&mut s.far_tier, "far tier");
    ui.horizontal(|ui| {
        ui.checkbox(&mut s.shadows, "shadows");
        ui.checkbox(&mut s.ground, "ground");
        ui.checkbox(&mut s.occlusion, "occlusion culling");
    });
    egui::ComboBox::from_label("debug view")
        .selected_text(
            s.debug
                .map_or("none".to_string(), |d| format!("{d:?}").to_lowercase()),
        )
        .show_ui(ui, |ui| {
            ui.selectable_value(&mut s.debug, None, "none");
            for d in [
                DebugView::Weights,
                DebugView::Palette,
                DebugView::Row,
                DebugView::Lod,
                DebugView::Normals,
            ] {
                ui.selectable_value(&mut s.debug, Some(d), format!("{d:?}").to_lowercase());
            }
            // Motion vectors come from the palette path's previous frame.
            if s.path == SkinPath::Palette {
                ui.selectable_value(&mut s.debug, Some(DebugView::Motion), "motion");
            }
        });
}
