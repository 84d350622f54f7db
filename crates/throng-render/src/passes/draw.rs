//! Skinned mesh draws of crowds (texture, palette and VAT paths), shared by the shadow and main passes:
//! the pipelines per variant, and one crowd's bind groups and draw calls for a frame. Inputs: a
//! crowd, its buffers, its culling run (if culled) and the frame. Output: draw calls recorded
//! into a pass.

use std::collections::HashMap;

use throng_contract::{Encoding, Skinning, Timing};

use super::{draw_params_buffer, groups, mesh_pipeline, DrawLayouts};
use crate::bindings as b;
use crate::crowd::{Crowd, CrowdBuffers};
use crate::error::RenderError;
use crate::formats;
use crate::frame::FrameSetup;
use crate::gpu_asset::GpuPrimitive;
use crate::gpu_types::{DrawIndexedArgs, DRAW_PARAMS_STRIDE};
use crate::layouts;
use crate::options::{RenderOptions, SkinPath};
use crate::passes::cull::CullRun;
use crate::passes::far::{FarInstances, FarKey};
use crate::passes::props::{PropDraw, PropDraws};
use crate::shaders::Program;

/// One skinned-draw pipeline variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct PipelineKey {
    pub encoding: Encoding,
    pub skinning: Skinning,
    pub timing: Timing,
    pub culled: bool,
    pub vat: bool,
    /// The palette path: skin matrices from the palette pass's buffer.
    pub palette: bool,
    /// Texture and palette paths: no vertex of any LOD this pass draws uses more than 4
    /// influences (the 4-influence program and vertex layout).
    pub four_influences: bool,
    /// A debug view colours the vertices (main pass only).
    pub debug: bool,
    /// The colour target's format; None for the shadow pass (depth only).
    pub color: Option<wgpu::TextureFormat>,
    /// The main pass also writes motion vectors (the palette path only). The shadow pass's key
    /// keeps the flag: its pipeline then has the main draw's bind group layout (the two share
    /// one bind group), though its program reads no history.
    pub motion: bool,
    /// The downlevel mode (docs/downlevel.md): instances from a data texture the CPU culled
    /// into, plain instanced draws, no storage buffer.
    pub downlevel: bool,
}

struct SkinnedPipeline {
    bgl: wgpu::BindGroupLayout,
    pipeline: wgpu::RenderPipeline,
}

/// The skinned mesh pipelines, built on first use.
#[derive(Default)]
pub(crate) struct SkinnedDraws {
    pipelines: HashMap<PipelineKey, SkinnedPipeline>,
    /// The pipelines of props on the crowds' anchors, drawn after each crowd.
    pub props: PropDraws,
    /// The far tier's pipelines (docs/design.md §5 "Far tier"), drawn after each crowd's meshes.
    pub far: crate::passes::far::FarDraws,
}

/// How a crowd's instances reach its draws this frame: the full mode's buffers, with the GPU
/// culling pass's lists and the palette pass where they run, or the downlevel mode's CPU lists
/// and data textures — one or the other, never both.
pub(crate) enum Route<'b> {
    Full {
        buffers: &'b CrowdBuffers,
        cull: Option<CullRun>,
        /// The palette path: the crowd's palette pass this frame.
        palette: Option<crate::passes::palette::PaletteRun>,
    },
    Downlevel(crate::passes::downlevel::DownlevelRun),
}

/// What a [`CrowdDraw`] keeps of its [`Route`] (the buffers are the caller's).
enum Routed {
    Full {
        cull: Option<CullRun>,
        palette: Option<crate::passes::palette::PaletteRun>,
    },
    Downlevel(crate::passes::downlevel::DownlevelRun),
}

impl CrowdDraw<'_> {
    /// The GPU culling pass's lists (full mode, culled).
    pub fn cull(&self) -> Option<&CullRun> {
        match &self.routed {
            Routed::Full { cull, .. } => cull.as_ref(),
            Routed::Downlevel(_) => None,
        }
    }

    /// The crowd's palette pass (full mode, palette path).
    pub fn palette(&self) -> Option<&crate::passes::palette::PaletteRun> {
        match &self.routed {
            Routed::Full { palette, .. } => palette.as_ref(),
            Routed::Downlevel(_) => None,
        }
    }

    /// The downlevel mode's lists and data textures.
    pub fn downlevel(&self) -> Option<&crate::passes::downlevel::DownlevelRun> {
        match &self.routed {
            Routed::Full { .. } => None,
            Routed::Downlevel(run) => Some(run),
        }
    }
}

/// Everything one crowd's draws need this frame.
pub(crate) struct CrowdDraw<'a> {
    pub crowd: Crowd<'a>,
    routed: Routed,
    key: PipelineKey,
    shadow_key: Option<PipelineKey>,
    skin_group: wgpu::BindGroup,
    draw_main: wgpu::BindGroup,
    draw_shadow: wgpu::BindGroup,
    materials: Vec<wgpu::BindGroup>,
    vat_groups: Vec<Option<wgpu::BindGroup>>,
    props: Vec<PropDraw<'a>>,
    /// Its cards, when its asset has a far tier and culling lists them.
    far: Option<crate::passes::far::FarDraw>,
    /// LOD levels of the lists and arguments (the far tier's included) and of the meshes.
    pub lods: u32,
    pub mesh_lods: u32,
}

impl CrowdDraw<'_> {
    pub fn casts_shadows(&self) -> bool {
        self.shadow_key.is_some()
    }

    /// Binds primitive `i` (`p`)'s material, VAT textures and buffers for its draws.
    fn set_primitive(&self, pass: &mut wgpu::RenderPass<'_>, i: usize, p: &GpuPrimitive) {
        if let Some(m) = self.materials.get(i) {
            pass.set_bind_group(b::group::MATERIAL, m, &[]);
        }
        if let Some(Some(g)) = self.vat_groups.get(i) {
            pass.set_bind_group(b::group::VAT, g, &[]);
        }
        pass.set_vertex_buffer(0, p.vertices.slice(..));
        pass.set_index_buffer(p.indices.slice(..), wgpu::IndexFormat::Uint32);
    }
}

/// Sets the per-draw uniform's `entry` (pass × LODs + LOD) of `group` for the draws after.
fn set_draw_entry(pass: &mut wgpu::RenderPass<'_>, group: &wgpu::BindGroup, entry: u32) {
    let offset = (entry as u64 * DRAW_PARAMS_STRIDE) as u32;
    pass.set_bind_group(b::group::DRAW, group, &[offset]);
}

/// The texture and palette draws' fragment stage: `fs_main`, or with motion vectors `fs_motion`.
fn fragment_entry(key: PipelineKey) -> &'static str {
    if key.motion {
        "fs_motion"
    } else {
        "fs_main"
    }
}

/// The texture and palette draws' vertex stage: `vs_main`, or in the shadow pass (no colour
/// target) the position-only `vs_shadow`.
fn vertex_entry(key: PipelineKey) -> &'static str {
    match key.color {
        Some(_) => "vs_main",
        None => "vs_shadow",
    }
}

/// The vertex buffer layout of [`vertex_entry`].
fn vertex_layout(key: PipelineKey) -> wgpu::VertexBufferLayout<'static> {
    match key.color {
        Some(_) => formats::vertex_layout(key.four_influences),
        None => formats::shadow_vertex_layout(key.four_influences),
    }
}

/// Whether a pass skins at most 4 influences per vertex at every LOD it can draw: the asset's
/// primitives have at most 4, or the pass's LOD settings (`at`) cut every LOD to 4.
fn at_most_four(asset_influences: u32, lods: u32, at: impl Fn(u32) -> u32) -> bool {
    let most = (0..lods.max(1)).map(at).max().unwrap_or(8);
    asset_influences.min(most) <= 4
}

/// The key of a crowd's palette pass (the palette path only), from its main draw's key.
pub(crate) fn palette_key(key: &PipelineKey) -> Option<crate::passes::palette::PaletteKey> {
    key.palette.then_some(crate::passes::palette::PaletteKey {
        encoding: key.encoding,
        skinning: key.skinning,
        timing: key.timing,
        culled: key.culled,
    })
}

impl SkinnedDraws {
    /// The pipeline keys of a crowd's main and (with shadows) shadow draws; checks the crowd.
    /// `downlevel`: the downlevel mode draws the crowd, for `Some(reason)` (empty when it was
    /// asked for, else what the device lacks).
    pub fn keys(
        crowd: &Crowd,
        opts: &RenderOptions,
        format: wgpu::TextureFormat,
        downlevel: Option<&str>,
    ) -> Result<(PipelineKey, Option<PipelineKey>), RenderError> {
        let asset = crowd.asset;
        if opts.path == SkinPath::Reference {
            return Err(RenderError::ReferenceIsNotACrowdPath);
        }
        if let Some(reason) = downlevel {
            check_downlevel(crowd, opts, reason)?;
        }
        let vat = opts.path == SkinPath::Vat;
        if vat && asset.primitives.iter().any(|p| p.vat.is_none()) {
            return Err(RenderError::BadAsset {
                asset: asset.name.clone(),
                what: "the VAT path needs a vertex animation texture for every primitive; bake one with the asset".into(),
            });
        }
        let motion = opts.motion();
        if motion && opts.path != SkinPath::Palette {
            return Err(RenderError::MotionVectorsNeedPalette {
                asset: asset.name.clone(),
            });
        }
        if motion && !crowd.props.is_empty() {
            return Err(RenderError::MotionVectorsWithProps {
                asset: asset.name.clone(),
            });
        }
        let key = PipelineKey {
            encoding: asset.encoding,
            // The VAT path stores skinned vertices: it has no skinning of its own.
            skinning: if vat { Skinning::Linear } else { opts.skinning },
            timing: match downlevel {
                Some(_) => crate::passes::downlevel::DRAW_TIMING,
                None => crowd.playback.timing(),
            },
            culled: downlevel.is_none() && opts.cull && !crowd.is_empty(),
            vat,
            palette: opts.path == SkinPath::Palette,
            four_influences: false,
            // The motion view colours fragments, from the motion program; the normals view
            // in the fragment stage, from the normal every program hands it.
            debug: opts.debug.is_some_and(|d| {
                !matches!(d, crate::DebugView::Motion | crate::DebugView::Normals)
            }),
            color: Some(format),
            motion,
            downlevel: downlevel.is_some(),
        };
        // Without culling every instance is drawn at LOD 0.
        let culls = key.culled || (key.downlevel && opts.cull && !crowd.is_empty());
        let lods = if culls { asset.lod_count() } else { 1 };
        let key = PipelineKey {
            four_influences: !vat
                && at_most_four(asset.influences, lods, |l| opts.influences_at(l)),
            ..key
        };
        let shadow = opts.shadows.then_some(PipelineKey {
            color: None,
            debug: false,
            four_influences: !vat
                && at_most_four(asset.influences, lods, |l| opts.shadow_influences_at(l)),
            ..key
        });
        Ok((key, shadow))
    }

    /// Builds the pipeline of `key` if it does not exist yet.
    pub fn prepare(
        &mut self,
        device: &wgpu::Device,
        layouts: &DrawLayouts,
        key: PipelineKey,
    ) -> Result<(), RenderError> {
        if self.pipelines.contains_key(&key) {
            return Ok(());
        }
        let (program, bgl, path) = draw_program(device, key);
        let module = crate::pipelines::shader_module(device, program)?;
        let mode = if key.downlevel { " (downlevel)" } else { "" };
        let pass = if key.color.is_some() { "" } else { " (shadow)" };
        let (vertex, entries, vat) = if key.vat {
            // Only UV0 of the interleaved vertex is read; the vertex index addresses the VAT.
            let vertex = formats::vat_vertex_layout();
            (vertex, ("vs_main", "fs_main"), Some(&layouts.vat))
        } else {
            (
                vertex_layout(key),
                (vertex_entry(key), fragment_entry(key)),
                None,
            )
        };
        let pipeline = mesh_pipeline(
            device,
            &format!("throng {path} draw{mode}{pass}"),
            &module,
            groups(
                &bgl,
                Some(&layouts.materials.bgl),
                vat,
                layouts.draw(key.color),
            ),
            &[Some(vertex)],
            entries,
            (key.color, key.motion),
        );
        self.pipelines
            .insert(key, SkinnedPipeline { bgl, pipeline });
        Ok(())
    }

    /// Buffers and bind groups of one crowd for this frame, drawn by `route`.
    #[allow(clippy::too_many_arguments)]
    pub fn crowd<'a>(
        &self,
        gpu: &crate::Gpu,
        layouts: &DrawLayouts,
        crowd: Crowd<'a>,
        route: Route<'_>,
        keys: (PipelineKey, Option<PipelineKey>),
        setup: &FrameSetup,
        shadow_map: &wgpu::TextureView,
        opts: &RenderOptions,
        multi_draw: bool,
    ) -> Result<CrowdDraw<'a>, RenderError> {
        let (key, shadow_key) = keys;
        let device = &gpu.device;
        let asset = crowd.asset;
        let tp = self.pipelines.get(&key).ok_or(RenderError::Internal(
            "draw pipeline not built before the frame",
        ))?;
        let (buffers, routed) = match route {
            Route::Full {
                buffers,
                cull,
                palette,
            } => (Some(buffers), Routed::Full { cull, palette }),
            Route::Downlevel(run) => (None, Routed::Downlevel(run)),
        };
        let (cull, palette, downlevel) = match &routed {
            Routed::Full { cull, palette } => (cull.as_ref(), palette.as_ref(), None),
            Routed::Downlevel(run) => (None, None, Some(run)),
        };
        let mut entries = match (downlevel, buffers) {
            (Some(run), _) => downlevel_entries(asset, run, !key.vat),
            (None, Some(buffers)) => buffers.skin_entries(asset, !key.vat && !key.palette),
            (None, None) => {
                return Err(RenderError::Internal(
                    "a full-mode crowd drawn without its buffers",
                ))
            }
        };
        entries.push(wgpu::BindGroupEntry {
            binding: b::FRAME,
            resource: setup.frame.as_entire_binding(),
        });
        if let Some(run) = cull {
            entries.push(wgpu::BindGroupEntry {
                binding: b::VISIBLE_IDS,
                resource: run.visible.as_entire_binding(),
            });
        }
        if key.palette {
            let run = palette.ok_or(RenderError::Internal(
                "palette path drawn without its palette pass",
            ))?;
            entries.push(b::buffer_entry(b::PALETTE, &run.palette));
            if key.motion {
                let h = run.history().ok_or(RenderError::Internal(
                    "motion vectors drawn without the palette's history",
                ))?;
                entries.push(b::buffer_entry(b::PREV_PALETTE, &h.palette));
                entries.push(b::buffer_entry(b::PREV_TRANSFORMS, &h.transforms));
            }
        }
        let skin_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("throng skinned draw"),
            layout: &tp.bgl,
            entries: &entries,
        });
        let cards = match (buffers, cull, downlevel) {
            (Some(buffers), Some(run), _) => Some(FarInstances::Culled(buffers, run)),
            (_, _, Some(run)) if run.draws_cards(asset, opts) => Some(FarInstances::Downlevel(run)),
            _ => None,
        };
        let far = match cards {
            Some(cards) => self
                .far
                .crowd(device, asset, cards, &setup.frame, key.timing)?,
            None => None,
        };
        let lods = asset.lod_count();
        let params = match downlevel {
            // Meshes crossfade with cards only where cards are drawn.
            Some(run) => crate::passes::draw_params_at(
                device,
                run.lods,
                opts,
                match far {
                    Some(_) => crate::passes::far::fade_words(asset, opts),
                    None => crate::passes::NO_FADE,
                },
                |pass, lod| run.list(pass, lod).0,
            ),
            None => draw_params_buffer(
                device,
                (lods, cull.map_or(0, |c| c.segment)),
                opts,
                cull.is_some() && multi_draw,
                crate::passes::far::fade_words(asset, opts),
            ),
        };
        let looks = crate::appearance::crowd_view(gpu, &crowd, downlevel);
        let (draw_main, draw_shadow) =
            layouts.draw_groups(device, &params, shadow_map, looks.as_ref());
        let materials = asset
            .primitives
            .iter()
            .map(|p| {
                layouts
                    .materials
                    .group(device, &p.material_set, p.base_texture.as_ref())
            })
            .collect();
        let vat_groups = asset
            .primitives
            .iter()
            .map(|p| {
                let v = p.vat.as_ref().filter(|_| key.vat)?;
                Some(crate::vat::bind_group(
                    device,
                    &layouts.vat,
                    &layouts.vat_dummies,
                    v,
                ))
            })
            .collect();
        let props = match buffers {
            Some(buffers) => self
                .props
                .crowd(device, layouts, &crowd, buffers, &setup.frame)?,
            None => Vec::new(),
        };
        // (The downlevel mode lists no instance at the far level unless it draws cards.)
        let mesh_lods = asset.mesh_lod_count();
        let lods = downlevel.map_or(lods, |r| r.lods);
        Ok(CrowdDraw {
            props,
            far,
            mesh_lods,
            crowd,
            routed,
            lods,
            key,
            shadow_key,
            skin_group,
            draw_main,
            draw_shadow,
            materials,
            vat_groups,
        })
    }

    /// Records one crowd's draws of a pass — `pass_index` 0 main, 1 shadow, 2 the main pass's
    /// second phase of occlusion culling (only for a run with occlusion culling); returns the
    /// draw calls recorded.
    pub fn record(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        cd: &CrowdDraw,
        pass_index: u32,
        multi_draw: bool,
    ) -> u32 {
        let shadow = pass_index == 1;
        if pass_index == 2 && !cd.cull().is_some_and(|c| c.occlusion) {
            return 0;
        }
        let key = if shadow { cd.shadow_key } else { Some(cd.key) };
        let Some(tp) = key.and_then(|k| self.pipelines.get(&k)) else {
            return 0;
        };
        let n = cd.crowd.len() as u32;
        if n == 0 {
            return 0;
        }
        let asset = cd.crowd.asset;
        let prims = asset.primitives.len().max(1) as u32;
        let group = if shadow {
            &cd.draw_shadow
        } else {
            &cd.draw_main
        };
        pass.set_pipeline(&tp.pipeline);
        pass.set_bind_group(b::group::SKIN, &cd.skin_group, &[]);
        if let Some(run) = cd.downlevel() {
            let mut draws = record_downlevel(pass, cd, run, group, pass_index);
            if let (Some(far), Some(k), true) = (&cd.far, key, pass_index < 2) {
                draws +=
                    self.far
                        .record_downlevel(pass, (far, FarKey::of(&k)), run, pass_index, group);
            }
            return draws;
        }
        let arg_size = std::mem::size_of::<DrawIndexedArgs>() as u64;
        // One draw per (primitive, LOD), or per primitive with a multi-draw over its LODs.
        let multi = cd.cull().is_some() && multi_draw;
        let lods = if cd.cull().is_some() && !multi {
            cd.mesh_lods
        } else {
            1
        };
        let mut draws = 0;
        for lod in 0..lods {
            set_draw_entry(pass, group, pass_index * cd.lods + lod);
            for (i, p) in asset.primitives.iter().enumerate() {
                cd.set_primitive(pass, i, p);
                let first_lod = (pass_index * prims + i as u32) * cd.lods;
                match cd.cull() {
                    Some(run) if multi => pass.multi_draw_indexed_indirect(
                        &run.args,
                        first_lod as u64 * arg_size,
                        cd.mesh_lods,
                    ),
                    Some(run) => {
                        pass.draw_indexed_indirect(&run.args, (first_lod + lod) as u64 * arg_size)
                    }
                    None => {
                        let (first, count) = p.lod(0);
                        pass.draw_indexed(first..first + count, 0, 0..n);
                    }
                }
                draws += 1;
            }
        }
        if let (Some(far), Some(run), Some(k)) = (&cd.far, cd.cull(), key) {
            draws += self.far.record(
                pass,
                (far, FarKey::of(&k)),
                run,
                (pass_index, cd.lods, prims),
                group,
            );
        }
        // The crowd's props, at this pass's LOD 0 entry of the per-draw uniform (they read
        // only its pass index). Not culled, so drawn once in the main pass: in its first phase
        // with occlusion culling (occluders there), not again in the second.
        if pass_index == 2 {
            return draws;
        }
        draws += self.props.record(
            pass,
            &cd.props,
            cd.key.timing,
            key.and_then(|k| k.color),
            group,
            (pass_index as u64 * cd.lods as u64 * DRAW_PARAMS_STRIDE) as u32,
            n,
        );
        draws
    }
}

/// What the downlevel mode cannot draw, as an error naming the missing capability; `reason`:
/// what the device lacks (empty when the mode was asked for).
fn check_downlevel(crowd: &Crowd, opts: &RenderOptions, reason: &str) -> Result<(), RenderError> {
    let reason = if reason.is_empty() {
        String::new()
    } else {
        format!(", and this device lacks {reason}")
    };
    let err = |what, missing, instead| RenderError::NeedsCapability {
        what,
        missing,
        reason: reason.clone(),
        instead,
    };
    if opts.path == SkinPath::Palette {
        return Err(err(
            "the palette path",
            "compute shaders",
            "draw the crowd on the texture path (SkinPath::Texture)",
        ));
    }
    if opts.motion() {
        return Err(err(
            "drawing motion vectors",
            "the palette path's compute shaders",
            "turn motion vectors off",
        ));
    }
    if !crowd.props.is_empty() {
        return Err(err(
            "drawing props on anchors",
            "storage buffers in the vertex stage",
            "draw the crowd without props",
        ));
    }
    if !crowd.live.is_empty() {
        return Err(err(
            "drawing live poses",
            "the palette path's compute shaders",
            "draw the crowd without live poses",
        ));
    }
    Ok(())
}

/// The program of `key`, its group 0 layout and the name of its path (for labels). The
/// palette and texture draws differ only in these; the VAT draws also in their vertex stream.
fn draw_program(
    device: &wgpu::Device,
    key: PipelineKey,
) -> (Program, wgpu::BindGroupLayout, &'static str) {
    let (timing, culled, debug) = (key.timing, key.culled, key.debug);
    if key.downlevel {
        return if key.vat {
            let bgl = layouts::downlevel_draw(device, None);
            (Program::VatDrawDownlevel { debug }, bgl, "vat")
        } else {
            let program = Program::TextureDrawDownlevel {
                encoding: key.encoding,
                skinning: key.skinning,
                four_influences: key.four_influences,
                debug,
            };
            let bgl = layouts::downlevel_draw(device, Some(key.encoding));
            (program, bgl, "texture")
        };
    }
    if key.vat {
        let program = Program::VatDraw {
            timing,
            culled,
            debug,
        };
        (program, layouts::vat_draw(device, timing, culled), "vat")
    } else if key.palette {
        let program = Program::PaletteDraw {
            skinning: key.skinning,
            timing,
            culled,
            four_influences: key.four_influences,
            debug,
            motion: key.motion && key.color.is_some(),
        };
        let bgl = layouts::palette_draw(device, timing, culled, key.motion);
        (program, bgl, "palette")
    } else {
        let program = Program::TextureDraw {
            encoding: key.encoding,
            skinning: key.skinning,
            timing,
            culled,
            four_influences: key.four_influences,
            debug,
        };
        let bgl = layouts::texture_draw(device, key.encoding, timing, culled);
        (program, bgl, "texture")
    }
}

/// Group 0 entries of a downlevel draw but the frame uniform: (texture path) the bone
/// texture, the bone params, the clip table's and the instances' data textures.
pub(crate) fn downlevel_entries<'a>(
    asset: &'a crate::GpuAsset,
    run: &'a crate::passes::downlevel::DownlevelRun,
    bones: bool,
) -> Vec<wgpu::BindGroupEntry<'a>> {
    let mut v = crate::crowd::bone_entries(asset, bones);
    v.extend([
        wgpu::BindGroupEntry {
            binding: b::CLIPS,
            resource: wgpu::BindingResource::TextureView(&asset.downlevel.clip_view),
        },
        wgpu::BindGroupEntry {
            binding: b::INSTANCE_TRANSFORMS,
            resource: wgpu::BindingResource::TextureView(&run.view),
        },
    ]);
    v
}

/// One crowd's downlevel mesh draws of a pass (0 main, 1 shadow): per mesh LOD with instances,
/// one plain instanced draw per primitive of the list's length, the list's first slot in the
/// per-draw uniform. Returns the draw calls recorded.
fn record_downlevel(
    pass: &mut wgpu::RenderPass<'_>,
    cd: &CrowdDraw,
    run: &crate::passes::downlevel::DownlevelRun,
    group: &wgpu::BindGroup,
    pass_index: u32,
) -> u32 {
    if pass_index > 1 {
        return 0;
    }
    let mut draws = 0;
    for lod in 0..cd.mesh_lods.min(run.lods) {
        let (_, count) = run.list(pass_index, lod);
        if count == 0 {
            continue;
        }
        set_draw_entry(pass, group, pass_index * run.lods + lod);
        for (i, p) in cd.crowd.asset.primitives.iter().enumerate() {
            cd.set_primitive(pass, i, p);
            let (first, n) = p.lod(lod);
            pass.draw_indexed(first..first + n, 0, 0..count);
            draws += 1;
        }
    }
    draws
}
