//! One frame's setup and accounting: the camera, light and shadow camera of a frame (the frame
//! uniform every pass reads), and what the frame cost ([`FrameStats`], counted by the GPU from
//! the indirect draw arguments).

use glam::{Mat4, Vec3};
use throng_asset::Aabb;
use wgpu::util::DeviceExt;

use crate::camera::{crowd_bounds, frame_uniform, Camera};
use crate::crowd::Crowd;
use crate::gpu_types::{DrawIndexedArgs, FrameUniform};
use crate::light::{shadow_view_proj, ShadowCamera};
use crate::options::{DebugView, RenderOptions};
use crate::target::MotionImage;

/// What a frame cost: draw calls recorded and, after [`crate::Renderer::render_scene`] (which
/// reads the indirect arguments back), what the GPU drew.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Draw calls recorded in all passes (ground included); independent of instance counts.
    pub draws: u32,
    /// Of which in the shadow pass.
    pub shadow_draws: u32,
    /// Compute dispatches (culling, occlusion culling, the palette pass).
    pub dispatches: u32,
    /// Instances drawn in the main pass, by LOD level (summed over crowds).
    pub instances_per_lod: Vec<u64>,
    /// Instances drawn in the main pass and in the shadow pass.
    pub instances_drawn: u64,
    /// Of the main pass's, those occlusion culling's second phase drew (not visible last
    /// frame); the rest were drawn first.
    pub second_phase_instances: u64,
    pub shadow_instances: u64,
    /// Triangles drawn in the main pass (ground excluded) and in the shadow pass.
    pub triangles: u64,
    pub shadow_triangles: u64,
    /// GPU time of the frame's passes (culling through the main pass), nanoseconds, from
    /// timestamp queries; `None` where the device has none (or the frame was only recorded).
    pub gpu_ns: Option<u64>,
    /// The palette path: palettes computed this frame — instances whose skin matrices the
    /// palette pass wrote (after [`crate::Renderer::render_scene`]; every instance of a crowd
    /// drawn without culling). Update-rate LOD and live poses make it fewer than those drawn.
    pub palette_instances: u64,
    /// The palette path: instances drawn with live poses the application gave
    /// ([`crate::LivePose`]), copied instead of computed.
    pub palette_live: u64,
    /// The palette path: GPU time of the palette pass (every crowd's dispatches), nanoseconds,
    /// from timestamp queries; `None` where the device has none or no palette pass ran.
    pub palette_ns: Option<u64>,
}

/// A frame read back from the GPU.
pub struct RenderedFrame {
    /// sRGB RGBA8 pixels.
    pub image: image::RgbaImage,
    pub stats: FrameStats,
    /// With motion vectors on ([`RenderOptions::motion_vectors`] or
    /// [`crate::DebugView::Motion`]): the motion vector target.
    pub motion: Option<MotionImage>,
}

/// Camera, light and shadow camera of a frame, and the frame uniform buffer.
pub(crate) struct FrameSetup {
    pub frame: wgpu::Buffer,
    pub view_proj: Mat4,
    pub camera: Camera,
    pub shadow: Option<ShadowCamera>,
    /// (image height / 2) / tan(fov_y / 2).
    pub pixels_per_unit: f32,
    /// The target's size in pixels (width, height).
    pub size: glam::Vec2,
    /// Light direction and, in w, how far shadows reach along it (file units).
    pub light_reach: glam::Vec4,
}

/// The ground as a box (receives shadows).
fn ground_box(f: &FrameUniform) -> Aabb {
    let [x, y, z, h] = f.ground;
    Aabb {
        min: Vec3::new(x - h, y, z - h),
        max: Vec3::new(x + h, y, z + h),
    }
}

/// Bounds of the crowds (receivers and casters of the frame).
pub(crate) fn scene_bounds(crowds: &[Crowd]) -> Aabb {
    crowds.iter().fold(Aabb::EMPTY, |a, c| {
        a.union(&crowd_bounds(&c.asset.bounds, c.transforms))
    })
}

impl FrameSetup {
    /// The frame of one crowd alone, framed by `opts.scene` or the crowd's bounds (the tools'
    /// runs of one crowd's passes: culling lists, palettes).
    pub fn of_crowd(device: &wgpu::Device, crowd: &Crowd, opts: &RenderOptions) -> FrameSetup {
        let scene = opts
            .scene
            .unwrap_or_else(|| scene_bounds(std::slice::from_ref(crowd)));
        FrameSetup::new(device, opts, (&scene, &scene), None)
    }

    /// Camera (given, or framing `scene` — the same rule for every path, so that images of two
    /// paths can be compared pixel by pixel), frame uniform and shadow camera; `prev_view_proj`:
    /// the previous frame's camera, for motion vectors (None: this frame's).
    pub fn new(
        device: &wgpu::Device,
        opts: &RenderOptions,
        (scene, casters): (&Aabb, &Aabb),
        prev_view_proj: Option<Mat4>,
    ) -> Self {
        let aspect = opts.width as f32 / opts.height.max(1) as f32;
        let camera = opts
            .camera
            .unwrap_or_else(|| Camera::framing(scene, aspect));
        let mut u = frame_uniform(&camera, aspect, scene);
        let view_proj = camera.view_proj(aspect);
        let shadow = opts.shadows.then(|| {
            let mut receivers = casters.union(scene);
            if opts.ground {
                receivers = receivers.union(&ground_box(&u));
            }
            shadow_view_proj(
                Vec3::from_slice(&u.light_dir[..3]),
                &receivers,
                casters,
                &view_proj,
                opts.shadow_map_size,
            )
        });
        if let Some(s) = &shadow {
            u.light_view_proj = s.view_proj.to_cols_array_2d();
            u.shadow = [
                1.0,
                1.0 / opts.shadow_map_size.max(1) as f32,
                s.depth_bias,
                0.0,
            ];
        }
        u.debug = DebugView::words(opts.debug, opts.debug_joint);
        if let Some(p) = prev_view_proj {
            u.prev_view_proj = p.to_cols_array_2d();
        }
        let pixels_per_unit = opts.height as f32 * 0.5 / (camera.fov_y * 0.5).tan().max(1e-6);
        u.eye = camera.eye.extend(pixels_per_unit).into();
        u.motion = [
            opts.width as f32,
            opts.height as f32,
            crate::options::MOTION_VIEW_PIXELS,
            0.0,
        ];
        // From the top of the scene down to the ground (or the scene's bottom), along the light.
        let light_dir = Vec3::from_slice(&u.light_dir[..3]);
        let floor = if opts.ground {
            u.ground[1]
        } else {
            scene.min.y
        };
        let drop = if scene.is_empty() {
            0.0
        } else {
            (scene.max.y - floor).max(0.0)
        };
        let reach = drop / (-light_dir.y).max(0.1);
        let frame = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("throng frame"),
            contents: bytemuck::bytes_of(&u),
            usage: wgpu::BufferUsages::UNIFORM,
        });
        FrameSetup {
            frame,
            view_proj,
            camera,
            shadow,
            pixels_per_unit,
            size: glam::Vec2::new(opts.width as f32, opts.height as f32),
            light_reach: light_dir.extend(reach),
        }
    }
}

/// Timestamp queries around a frame's passes: an empty compute pass writes the first before
/// them, another the second after them (no optional feature beyond `TIMESTAMP_QUERY`); the
/// palette pass writes the third and fourth at its beginning and end.
pub(crate) struct FrameTimer {
    queries: wgpu::QuerySet,
    resolved: wgpu::Buffer,
    read: wgpu::Buffer,
}

impl FrameTimer {
    /// A timer when the device has timestamp queries.
    pub fn new(device: &wgpu::Device) -> Option<FrameTimer> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("throng frame timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 4,
        });
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 32,
                usage,
                mapped_at_creation: false,
            })
        };
        Some(FrameTimer {
            queries,
            resolved: buffer(
                "throng timestamps",
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            ),
            read: buffer(
                "throng timestamps readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
        })
    }

    /// An empty compute pass writing timestamp `index` (0: before the frame, 1: after it).
    pub fn mark(&self, enc: &mut wgpu::CommandEncoder, index: u32) {
        enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("throng frame timestamp"),
            timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                query_set: &self.queries,
                beginning_of_pass_write_index: Some(index),
                end_of_pass_write_index: None,
            }),
        });
    }

    /// The palette pass's timestamp writes (queries 2 and 3).
    pub fn palette_writes(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(2),
            end_of_pass_write_index: Some(3),
        }
    }

    /// Records the copy of the timestamps into the readback buffer (after [`Self::mark`] 1;
    /// `palette`: the palette pass wrote its two).
    pub fn resolve(&self, enc: &mut wgpu::CommandEncoder, palette: bool) {
        let n = if palette { 4 } else { 2 };
        enc.resolve_query_set(&self.queries, 0..n, &self.resolved, 0);
        enc.copy_buffer_to_buffer(&self.resolved, 0, &self.read, 0, 8 * n as u64);
    }

    /// After submission: the frame's GPU time and (when it ran) the palette pass's,
    /// nanoseconds.
    pub fn read(&self, gpu: &crate::device::Gpu, palette: bool) -> (Option<u64>, Option<u64>) {
        let Ok(bytes) = crate::readback::map_read(gpu, &self.read) else {
            return (None, None);
        };
        let t: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes);
        let period = gpu.queue.get_timestamp_period() as f64;
        let span = |a: usize, b: usize| {
            let ticks = t.get(b)?.checked_sub(*t.get(a)?)?;
            Some((ticks as f64 * period).round() as u64)
        };
        (span(0, 1), span(2, 3).filter(|_| palette))
    }
}

/// Where one crowd's indirect arguments sit in a readback buffer.
pub(crate) struct ArgsLayout {
    pub offset: u64,
    pub culled: bool,
    /// Lists per LOD: 2 (main, shadow) or 3 (with occlusion culling's second phase).
    pub passes: u32,
    pub lods: u32,
    pub prims: u32,
    pub instances: u64,
    pub index_counts: Vec<u64>,
    pub shadows: bool,
    /// The palette path: the argument entry counting the palette list (culled), or the
    /// instances written (not culled: every instance).
    pub palette: Option<PaletteCount>,
    /// With a far tier: the entry counting pass 0's one-pixel cards (pass p's: this + p).
    pub dots: Option<u32>,
}

/// How many instances the palette pass wrote for one crowd.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PaletteCount {
    /// Argument entry whose `instance_count` holds the palette list's length.
    Listed(u32),
    All,
}

/// Adds what the GPU drew (from the indirect arguments read back) to `stats`.
pub(crate) fn add_gpu_counts(stats: &mut FrameStats, bytes: &[u8], layouts: &[ArgsLayout]) {
    let arg_size = std::mem::size_of::<DrawIndexedArgs>();
    for l in layouts {
        // Argument entry `k` of this crowd.
        let entry = |k: usize| -> Option<DrawIndexedArgs> {
            let at = l.offset as usize + k * arg_size;
            Some(bytemuck::pod_read_unaligned(bytes.get(at..at + arg_size)?))
        };
        match l.palette {
            Some(PaletteCount::All) => stats.palette_instances += l.instances,
            Some(PaletteCount::Listed(k)) => {
                if let Some(a) = entry(k as usize) {
                    stats.palette_instances += a.instance_count as u64;
                }
            }
            None => {}
        }
        if !l.culled {
            // Every instance at LOD 0 in each pass.
            let tris: u64 = l.index_counts.iter().sum::<u64>() / 3;
            stats.add_main(0, l.instances, false);
            stats.triangles += tris * l.instances;
            if l.shadows {
                stats.shadow_instances += l.instances;
                stats.shadow_triangles += tris * l.instances;
            }
            continue;
        }
        for pass_index in 0..l.passes {
            for lod in 0..l.lods {
                for p in 0..l.prims {
                    let k = ((pass_index * l.prims + p) * l.lods + lod) as usize;
                    let Some(a) = entry(k) else {
                        continue;
                    };
                    let tris = a.index_count as u64 / 3 * a.instance_count as u64;
                    if pass_index != 1 {
                        stats.triangles += tris;
                        if p == 0 {
                            stats.add_main(lod, a.instance_count as u64, pass_index == 2);
                        }
                    } else {
                        stats.shadow_triangles += tris;
                        if p == 0 {
                            stats.shadow_instances += a.instance_count as u64;
                        }
                    }
                }
            }
            // One-pixel cards count as the far level's (the last), drawn in the main view.
            let dots = l.dots.filter(|_| pass_index != 1);
            if let Some(a) = dots.and_then(|first| entry((first + pass_index) as usize)) {
                let far = l.lods.max(1) - 1;
                stats.add_main(far, a.instance_count as u64, pass_index == 2);
            }
        }
    }
}

impl FrameStats {
    /// Counts `n` instances drawn in the main view at LOD level `lod` (by occlusion culling's
    /// second phase when `second_phase`).
    pub(crate) fn add_main(&mut self, lod: u32, n: u64, second_phase: bool) {
        let lod = lod as usize;
        if self.instances_per_lod.len() <= lod {
            self.instances_per_lod.resize(lod + 1, 0);
        }
        self.instances_per_lod[lod] += n;
        self.instances_drawn += n;
        if second_phase {
            self.second_phase_instances += n;
        }
    }
}
