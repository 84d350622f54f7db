//! A few "hero" characters posed by the application among a baked crowd (docs/design.md §4
//! "Live poses"), on the palette path with update-rate LOD (§5).
//!
//! ```text
//! cargo run --release -p throng-render --example hero_crowd -- [--asset SOURCE.glb] [--out FILE.png]
//!     [--instances N] [--heroes N] [--frames N] [--close-up]
//! ```
//!
//! The crowd plays baked clips in the CPU-timed runtime; the palette pass blends their skin
//! matrices on the GPU. The heroes' skin matrices come from the application every frame:
//! throng-anim samples the *source* clip on the CPU at the hero's time, the head joint gets a
//! procedural turn (a look around, a different angle per hero), and `S_j = W_j · IBM_j` is
//! handed to the renderer as a [`LivePose`] per hero — drawn in the same draws, culled and
//! shadowed like the rest. Far instances refresh their palettes every 2nd (LOD 2) or 4th
//! (LOD 3+) frame; each frame prints how many palettes the GPU computed and how many were
//! given live.
//!
//! Without `--asset`: `$THRONG_ASSETS/Fox.glb` if there is one, else the built-in fox. Units:
//! file units, seconds, radians.

use std::error::Error;
use std::path::PathBuf;

use glam::{Mat4, Vec3};
use throng_anim::{Model, Poser};
use throng_asset::{BakedAsset, LoopMode};
use throng_render::{Crowd, LivePose, RenderOptions, Renderer, SkinMatrix, SkinPath};
use throng_runtime::{ClipId, InstanceTransform, PlayOptions, Runtime, Timing};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Simulated seconds per frame.
const DT: f64 = 1.0 / 30.0;

/// Largest head turn either way, radians (60°).
const TURN: f32 = 1.05;

struct Args {
    asset: Option<PathBuf>,
    out: PathBuf,
    instances: u32,
    heroes: u32,
    frames: u32,
    /// Frame the first hero from the front instead of the whole crowd.
    close_up: bool,
}

fn parse_args() -> Result<Args> {
    let mut a = Args {
        asset: None,
        out: PathBuf::from("hero_crowd.png"),
        instances: 25,
        heroes: 3,
        frames: 6,
        close_up: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--asset" => a.asset = Some(value()?.into()),
            "--out" => a.out = value()?.into(),
            "--instances" => a.instances = value()?.parse()?,
            "--heroes" => a.heroes = value()?.parse()?,
            "--frames" => a.frames = value()?.parse()?,
            "--close-up" => a.close_up = true,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    a.heroes = a.heroes.min(a.instances);
    a.frames = a.frames.max(1);
    Ok(a)
}

/// The source model: the file given, Fox.glb from the assets folder, or the built-in fox.
fn load_model(path: Option<&PathBuf>) -> Result<(Model, String)> {
    let fox = std::env::var_os("THRONG_ASSETS").map(|d| PathBuf::from(d).join("Fox.glb"));
    match path.cloned().or(fox.filter(|p| p.exists())) {
        Some(p) => Ok((throng_gltf::import(&p)?, p.display().to_string())),
        None => {
            let glb = throng_demo::demo_glb();
            let model = throng_gltf::import_slice(&glb, None, "throng-demo-fox.glb")?;
            Ok((model, "throng-demo-fox.glb".into()))
        }
    }
}

/// The head: the first node named like one that the baked palette uses, else its last entry's.
fn head_node(model: &Model, asset: &BakedAsset) -> Option<usize> {
    let used = |n: &usize| asset.palette.iter().any(|e| e.node == *n);
    (0..model.nodes.len())
        .filter(used)
        .find(|&n| {
            model.nodes[n]
                .name
                .as_deref()
                .is_some_and(|s| s.to_ascii_lowercase().contains("head"))
        })
        .or_else(|| asset.palette.last().map(|e| e.node))
}

/// Poses the source model on the CPU with throng-anim's [`Poser`]: `clip` at `time`, the head
/// turned by `turn` about the model's up axis, then one skin matrix per baked palette entry
/// (`W_j · IBM_j`).
fn pose_hero(
    poser: &mut Poser,
    (model, asset): (&Model, &BakedAsset),
    clip: Option<usize>,
    time: f32,
    (head, turn): (Option<usize>, f32),
    out: &mut Vec<SkinMatrix>,
) {
    let mut world = poser.pose(model, clip, time);
    if let Some(h) = head.filter(|&h| h < world.len()) {
        // The model's up axis in the head's own frame: turning about it looks around.
        let axis = world[h]
            .inverse()
            .transform_vector3(Vec3::Y)
            .normalize_or(Vec3::Y);
        world = poser.turn_local(model, h, Mat4::from_axis_angle(axis, turn));
    }
    out.clear();
    out.extend(asset.palette.iter().map(|e| {
        let w = world.get(e.node).copied().unwrap_or(Mat4::IDENTITY);
        SkinMatrix::from_mat4(&(w * e.inverse_bind_matrix))
    }));
}

fn main() -> Result<()> {
    let args = parse_args()?;
    let (model, name) = load_model(args.asset.as_ref())?;
    // The offline side, in memory: a bake with three LODs (so update-rate LOD has far LODs).
    let options = throng_bake::BakeOptions {
        source_name: name.clone(),
        lods: vec![0.5, 0.25, 0.1],
        ..Default::default()
    };
    let asset = throng_bake::bake(&model, &options)?.0;
    let looping: Vec<usize> = (0..asset.clips.len())
        .filter(|&c| asset.clips[c].loop_mode == LoopMode::Loop)
        .collect();
    // The same clip in the source model, by name.
    let source_clip = |c: usize| {
        model
            .clips
            .iter()
            .position(|s| s.name == asset.clips[c].name)
    };
    let head = head_node(&model, &asset);
    eprintln!(
        "{name}: {} palette entries, head node {:?}",
        asset.palette.len(),
        head.and_then(|h| model.nodes[h].name.clone())
    );

    // The crowd: a grid, heroes in the middle of the front row, everyone on a looping clip.
    let bounds = asset.pose_bounds();
    let e = bounds.max - bounds.min;
    let spacing = (e.x.max(e.z) * 1.3).max(1e-3);
    let side = (args.instances as f32).sqrt().ceil() as u32;
    let mut runtime = Runtime::new(Timing::Cpu, &asset.clips);
    let mut plays = vec![];
    for i in 0..args.instances {
        let (col, row) = ((i % side) as f32, (i / side) as f32);
        let centre = (side - 1) as f32 * 0.5;
        let at = Vec3::new(col - centre, 0.0, centre - row) * spacing;
        let h = runtime.spawn(InstanceTransform::from_mat4(&Mat4::from_translation(at)));
        let clip = looping.get(i as usize % looping.len().max(1)).copied();
        let (start, speed) = (i as f32 * 0.37, 0.8 + 0.1 * (i % 5) as f32);
        if let Some(c) = clip {
            runtime
                .instance(h)
                .play(ClipId::new(c), PlayOptions::at(start).with_speed(speed))?;
        }
        plays.push((clip, start, speed));
    }
    let heroes: Vec<u32> = (0..args.heroes)
        .map(|k| (side / 2 + k).min(args.instances - 1))
        .collect();

    let mut renderer = Renderer::new()?;
    eprintln!("adapter: {}", renderer.adapter());
    let gpu_asset = renderer.upload(&asset)?;
    // the close-up: the first hero seen from the front row's side, a little above its head
    let camera = match heroes.first() {
        Some(&i) if args.close_up => {
            let at = runtime.transform(runtime.handle_at(i as usize).ok_or("no hero")?)?;
            let centre = at
                .to_mat4()
                .transform_point3(0.5 * (bounds.min + bounds.max));
            let h = e.y.max(e.x).max(e.z);
            Some(throng_render::Camera::looking_at(
                centre + Vec3::new(0.6 * h, 0.5 * h, 2.2 * h),
                centre,
                35f32.to_radians(),
            ))
        }
        _ => None,
    };
    let opts = RenderOptions {
        width: 960,
        height: 540,
        path: SkinPath::Palette,
        palette_refresh: [1, 1, 2, 4],
        camera,
        ..Default::default()
    };
    let mut poser = Poser::new(&model);
    let mut matrices: Vec<Vec<SkinMatrix>> = vec![vec![]; heroes.len()];
    let mut image = None;
    for f in 0..args.frames {
        if f > 0 {
            runtime.update(DT);
        }
        let now = f as f64 * DT;
        for (k, &i) in heroes.iter().enumerate() {
            let (clip, start, speed) = plays[i as usize];
            // The hero's clip time, as the runtime plays it (looping), on the source clip.
            let duration = clip.map_or(0.0, |c| asset.clips[c].duration as f64);
            let t = start as f64 + now * speed as f64;
            let t = if duration > 0.0 { t % duration } else { 0.0 };
            // A look around: each hero turns its head on its own phase.
            let turn = TURN * (now as f32 * 1.7 + k as f32 * 2.1).sin();
            pose_hero(
                &mut poser,
                (&model, &asset),
                clip.and_then(source_clip),
                t as f32,
                (head, turn),
                &mut matrices[k],
            );
        }
        let live: Vec<LivePose> = heroes
            .iter()
            .zip(&matrices)
            .map(|(&instance, m)| LivePose {
                instance,
                matrices: m,
            })
            .collect();
        let crowd = Crowd {
            asset: &gpu_asset,
            transforms: runtime.transforms(),
            playback: runtime.records().into(),
            props: &[],
            live: &live,
            appearance: throng_render::CrowdAppearance::Default,
        };
        let frame = renderer.render_scene(&[crowd], &opts)?;
        let s = &frame.stats;
        eprintln!(
            "frame {f}: {} drawn (per LOD {:?}), palettes computed {}, live {}",
            s.instances_drawn, s.instances_per_lod, s.palette_instances, s.palette_live
        );
        image = Some(frame.image);
    }
    if let Some(img) = image {
        img.save(&args.out)?;
        eprintln!("wrote {}", args.out.display());
    }
    Ok(())
}
