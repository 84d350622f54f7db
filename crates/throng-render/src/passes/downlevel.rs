//! One crowd's frame in the downlevel mode (docs/downlevel.md): its layers as the shaders see
//! them (GPU-timed records derived at the clock on the CPU), CPU culling and LOD selection
//! ([`super::cpu_cull`]), and the instances of every (pass, LOD) list, in list order, in one
//! data texture that the draws index from their list's first slot. Input: a crowd and the
//! frame. Output: a [`DownlevelRun`] the shadow and main passes draw with plain instanced draws.

use std::borrow::Cow;

use throng_contract::{InstanceRecord, Records, Timing};

use crate::crowd::{Crowd, Playback};
use crate::data_texture::DataTextures;
use crate::downlevel::{instance_texels, INSTANCE_TEXELS};
use crate::error::RenderError;
use crate::frame::{FrameSetup, FrameStats};
use crate::options::RenderOptions;
use crate::passes::cpu_cull::{cull, CpuCullInput};
use crate::passes::cull::{frustum_params, CullLists};

/// One crowd's downlevel frame.
pub(crate) struct DownlevelRun {
    /// The instances of every list, [`INSTANCE_TEXELS`] texels each.
    pub view: wgpu::TextureView,
    /// Per (pass, LOD) — pass 0 main, 1 shadow — at `pass · lods + LOD`: the list's first slot
    /// in the texture and its length.
    pub lists: Vec<(u32, u32)>,
    pub lods: u32,
    /// The listed instances' appearances in slot order (None: every instance the default).
    pub appearance: Option<wgpu::TextureView>,
}

/// Every instance's layers as `instance_layers` reads them: CPU-timed records as they are,
/// GPU-timed ones derived at the clock (the CPU twin of `gpu_layers`).
fn crowd_layers<'a>(crowd: &Crowd<'a>) -> Result<Cow<'a, [InstanceRecord]>, RenderError> {
    match crowd.playback {
        Playback::Records(Records::Cpu(records)) => Ok(Cow::Borrowed(records)),
        Playback::Records(Records::Gpu { records, clock }) => Ok(Cow::Owned(
            records
                .iter()
                .map(|r| throng_contract::gpu_layers(r, &crowd.asset.downlevel.clip_table, clock))
                .collect(),
        )),
        Playback::Uploaded(_) => Err(RenderError::NeedsCapability {
            what: "a crowd kept on the GPU (CrowdUpload)",
            missing: "compute shaders (the record scatter) and storage buffers",
            reason: String::new(),
            instead: "draw it from its records (Playback::Records)",
        }),
    }
}

/// The lists of a crowd drawn without culling: every instance at LOD 0 in the main pass and
/// (with shadows) the shadow pass.
fn every_instance(n: u32, lods: u32, shadows: bool) -> CullLists {
    let all: Vec<u32> = (0..n).collect();
    let mut main = vec![Vec::new(); lods as usize];
    main[0] = all;
    CullLists {
        shadow: if shadows { main.clone() } else { Vec::new() },
        main,
        dots: Vec::new(),
    }
}

/// A crowd's lists: the layers as drawn, the lists, their LOD count and whether they were
/// culled.
pub(crate) type Lists<'a> = (Cow<'a, [InstanceRecord]>, CullLists, u32, bool);

/// One crowd's lists: with `opts.cull`, culled on the CPU; else every instance at LOD 0.
pub(crate) fn lists<'a>(
    crowd: &Crowd<'a>,
    setup: &FrameSetup,
    opts: &RenderOptions,
) -> Result<Lists<'a>, RenderError> {
    let layers = crowd_layers(crowd)?;
    let asset = crowd.asset;
    let n = crowd.len() as u32;
    let culled = opts.cull && n > 0;
    let lods = if culled { asset.lod_count() } else { 1 };
    let ids = if culled {
        let params = frustum_params(asset, n, setup, opts);
        cull(&CpuCullInput {
            params: &params,
            clips: &asset.downlevel.clip_table,
            rows: asset.params.rows,
            row_bounds: &asset.downlevel.row_bounds,
            transforms: crowd.transforms,
            layers: &layers,
        })
    } else {
        every_instance(n, lods, opts.shadows)
    };
    Ok((layers, ids, lods, culled))
}

/// Culls one crowd on the CPU (with `opts.cull`) and writes its lists' instances (and their
/// appearances) into the textures of `slot`, the crowd's place in the frame (kept across
/// frames: [`DataTextures`]).
pub(crate) fn run(
    (device, queue): (&wgpu::Device, &wgpu::Queue),
    textures: &mut DataTextures,
    slot: usize,
    crowd: &Crowd,
    (setup, opts): (&FrameSetup, &RenderOptions),
) -> Result<DownlevelRun, RenderError> {
    // Every card is drawn as a quad: no one-pixel list.
    let quads = RenderOptions {
        far_dots: false,
        ..*opts
    };
    let (layers, ids, lods, culled) = lists(crowd, setup, &quads)?;
    // Without culling both passes draw every instance: one copy serves both.
    let shared = !culled;
    let mut lists = Vec::with_capacity(2 * lods as usize);
    let mut texels = Vec::new();
    let with_looks = !matches!(crowd.appearance, crate::CrowdAppearance::Default);
    let mut looks = Vec::new();
    let mut slots = 0u32;
    for (pass, per_lod) in [&ids.main, &ids.shadow].into_iter().enumerate() {
        for lod in 0..lods as usize {
            let list = per_lod.get(lod).map_or(&[][..], |l| l.as_slice());
            if pass == 1 && shared {
                lists.push((
                    lists.get(lod).map_or(0, |l: &(u32, u32)| l.0),
                    list.len() as u32,
                ));
                continue;
            }
            lists.push((slots, list.len() as u32));
            for &i in list {
                let i = i as usize;
                texels.extend(instance_texels(&crowd.transforms[i], &layers[i]));
                if with_looks {
                    looks.push(crowd.appearance.get(i));
                }
            }
            slots += list.len() as u32;
        }
    }
    let view = textures.write(
        2 * slot,
        device,
        queue,
        ("instance texture", INSTANCE_TEXELS),
        &texels,
    )?;
    // appearances: one texel an instance, read at (i mod width, i div width) as the full
    // mode's appearance texture is
    let appearance = match with_looks {
        true => Some(textures.write(
            2 * slot + 1,
            device,
            queue,
            ("appearance texture", 1),
            bytemuck::cast_slice(&looks),
        )?),
        false => None,
    };
    Ok(DownlevelRun {
        view,
        lists,
        lods,
        appearance,
    })
}

impl DownlevelRun {
    /// Whether the far level of this run's crowd of `asset` is drawn as cards: it
    /// [`may_draw_cards`] and its lists were culled (else every instance is at LOD 0).
    pub fn draws_cards(&self, asset: &crate::GpuAsset, opts: &RenderOptions) -> bool {
        may_draw_cards(asset, opts) && asset.far.as_ref().is_some_and(|f| f.level < self.lods)
    }

    /// The (first slot, count) of list (pass, LOD); (0, 0) for a list the run has none of.
    pub fn list(&self, pass_index: u32, lod: u32) -> (u32, u32) {
        let at = (pass_index * self.lods + lod) as usize;
        self.lists.get(at).copied().unwrap_or((0, 0))
    }

    /// Adds what this crowd's draws drew to `stats` (the GPU paths read it from the indirect
    /// arguments; here the CPU knows it). `lod_indices`: per LOD, the index count of every
    /// primitive summed.
    pub fn add_counts(&self, stats: &mut FrameStats, lod_indices: &[u64]) {
        for lod in 0..self.lods {
            let tris = lod_indices.get(lod as usize).copied().unwrap_or(0) / 3;
            let (_, main) = self.list(0, lod);
            let (_, shadow) = self.list(1, lod);
            stats.add_main(lod, main as u64, false);
            stats.triangles += tris * main as u64;
            stats.shadow_instances += shadow as u64;
            stats.shadow_triangles += tris * shadow as u64;
        }
    }
}

/// Whether a downlevel frame of a non-empty crowd of `asset` draws cards
/// ([`DownlevelRun::draws_cards`]): the asset has a far tier, drawn (`opts.far_tier`; else no
/// instance is listed under it), and the crowd is culled (`opts.cull`). The renderer builds the
/// far pipelines where this holds.
pub(crate) fn may_draw_cards(asset: &crate::GpuAsset, opts: &RenderOptions) -> bool {
    opts.cull && opts.far_tier && asset.far.is_some()
}

/// The timing a downlevel draw's program reads: CPU-timed always (the CPU derives GPU-timed
/// layers before the upload).
pub(crate) const DRAW_TIMING: Timing = Timing::Cpu;
