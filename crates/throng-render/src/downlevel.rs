//! The downlevel mode (docs/downlevel.md): for devices without compute shaders, storage
//! buffers in the vertex stage or indirect draws (WebGL2, OpenGL ES 3.0, GL 3.3). The CPU culls
//! and picks LODs ([`crate::passes::cpu_cull`], the twin of `shaders/cull.wgsl`); the instances
//! each draw shows, and the clip table, lie in Rgba32Uint *data textures* of fixed-size records
//! that the vertex shader fetches (the `DOWNLEVEL` def of `throng::instances` and
//! `throng::bone`); every (pass, LOD, primitive) is one plain instanced draw, and a far tier's
//! cards one per pass (their tables are data textures too: `gpu_asset::FarTables`).
//!
//! Which mode a device needs is decided here from its downlevel capabilities and limits
//! ([`full_path_missing`]); [`device_request`] asks only for what that mode needs. This module
//! is the mode's definitions only (limits, record layouts, their WGSL defs); the textures
//! themselves are made in `data_texture.rs`.

use throng_contract::{GpuClip, InstanceRecord, InstanceTransform};

/// Texels of one instance in the instance data texture: the transform's 3 rows, then the 4
/// layers of its record (WGSL twin: `DL_INSTANCE_TEXELS` in `throng::instances`).
pub const INSTANCE_TEXELS: u32 = 7;
/// Texels of one clip in the clip data texture (`DL_CLIP_TEXELS` in `throng::bone`).
pub const CLIP_TEXELS: u32 = 3;

/// The shader defs of the record sizes above (one source of truth for both sides).
pub(crate) const DEFS: &[(&str, u32)] = &[
    ("DL_INSTANCE_TEXELS", INSTANCE_TEXELS),
    ("DL_CLIP_TEXELS", CLIP_TEXELS),
];

/// Largest side of the textures the downlevel mode asks a device for: WebGL2's guaranteed
/// 2048, so that what draws natively in this mode draws in any WebGL2 browser.
pub const MAX_TEXTURE_SIDE: u32 = 2048;

/// Storage buffers per shader stage the full mode binds at most (the culling pass: 8).
const FULL_STORAGE_BUFFERS: u32 = 8;

/// What a device lacks for the full mode, by name (None: it runs the full mode). The full
/// mode culls, picks LODs and computes palettes in compute shaders, reads per-instance data
/// from storage buffers in the vertex stage and draws with indirect arguments.
pub fn full_path_missing(
    caps: &wgpu::DownlevelCapabilities,
    limits: &wgpu::Limits,
) -> Option<&'static str> {
    use wgpu::DownlevelFlags as F;
    if !caps.flags.contains(F::COMPUTE_SHADERS) || limits.max_compute_workgroups_per_dimension == 0
    {
        return Some("compute shaders");
    }
    if !caps.flags.contains(F::VERTEX_STORAGE) {
        return Some("storage buffers in the vertex stage");
    }
    if limits.max_storage_buffers_per_shader_stage < FULL_STORAGE_BUFFERS {
        return Some("8 storage buffers per shader stage");
    }
    if !caps.flags.contains(F::INDIRECT_EXECUTION) {
        return Some("indirect draws");
    }
    None
}

/// The limits and features to ask `adapter` for, and what it lacks for the full mode (None:
/// full). Full: wgpu's defaults raised to the adapter's texture size, array layers and storage
/// buffer sizes (the bone texture and per-instance data may exceed the defaults), first
/// instances and timestamps where offered. Downlevel: WebGL2's limits (2048 texels per side,
/// no compute, no storage buffers) within what the adapter offers, timestamps where offered.
pub fn device_request(
    adapter: &wgpu::Adapter,
) -> (wgpu::Limits, wgpu::Features, Option<&'static str>) {
    let offered = adapter.limits();
    let features = adapter.features();
    let missing = full_path_missing(&adapter.get_downlevel_capabilities(), &offered);
    if missing.is_some() {
        let limits = wgpu::Limits {
            max_texture_dimension_2d: MAX_TEXTURE_SIDE,
            ..wgpu::Limits::downlevel_webgl2_defaults()
        }
        .or_worse_values_from(&offered);
        return (limits, features & wgpu::Features::TIMESTAMP_QUERY, missing);
    }
    let limits = wgpu::Limits {
        max_texture_dimension_2d: offered.max_texture_dimension_2d,
        max_texture_array_layers: offered.max_texture_array_layers,
        max_storage_buffer_binding_size: offered.max_storage_buffer_binding_size,
        max_buffer_size: offered.max_buffer_size,
        ..wgpu::Limits::default()
    };
    // Optional: first instances let the renderer draw a primitive's LODs with one
    // multi-draw; timestamp queries give the frame statistics the GPU's own time.
    let wanted = wgpu::Features::INDIRECT_FIRST_INSTANCE | wgpu::Features::TIMESTAMP_QUERY;
    (limits, features & wanted, None)
}

/// Where texel `j` of record `i` lies in a data texture `width` texels wide holding records of
/// `n` texels: `floor(width / n)` records per row, left to right, then down. WGSL twin:
/// `record_texel` in `throng::bone`.
pub fn record_texel(i: u32, n: u32, j: u32, width: u32) -> (u32, u32) {
    let per_row = (width / n).max(1);
    ((i % per_row) * n + j, i / per_row)
}

/// The 7 texels of one instance: its transform and the layers of its record (f32 bits).
pub fn instance_texels(t: &InstanceTransform, r: &InstanceRecord) -> [[u32; 4]; 7] {
    let row = |k: usize| t.rows[k].map(f32::to_bits);
    let layer = |k: usize| {
        let l = &r.layers[k];
        [
            l.weight.to_bits(),
            l.frac.to_bits(),
            l.row.to_bits(),
            l.clip,
        ]
    };
    [
        row(0),
        row(1),
        row(2),
        layer(0),
        layer(1),
        layer(2),
        layer(3),
    ]
}

/// The 3 texels of one clip: (first row, frames, times offset, flags), its bounds' min and
/// max (f32 bits).
pub fn clip_texels(c: &GpuClip) -> [[u32; 4]; 3] {
    [
        [c.first_row, c.frames, c.times_offset, c.flags],
        c.bounds_min.map(f32::to_bits),
        c.bounds_max.map(f32::to_bits),
    ]
}

/// The size of a data texture for `records` records of `n` texels on a device whose textures
/// have at most `max_side` texels per side: (width, height), never empty. `None` when they do
/// not fit.
pub fn data_texture_size(records: u32, n: u32, max_side: u32) -> Option<(u32, u32)> {
    let per_row = (max_side / n).max(1).min(records.max(1));
    let rows = records.max(1).div_ceil(per_row);
    (rows <= max_side && n <= max_side).then_some((per_row * n, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_fill_rows_and_wrap_within_the_side() {
        // 2048 / 7 = 292 records per row.
        assert_eq!(data_texture_size(1, 7, 2048), Some((7, 1)));
        assert_eq!(data_texture_size(292, 7, 2048), Some((2044, 1)));
        assert_eq!(data_texture_size(293, 7, 2048), Some((2044, 2)));
        assert_eq!(data_texture_size(100_000, 7, 2048), Some((2044, 343)));
        assert_eq!(data_texture_size(0, 3, 2048), Some((3, 1)));
        assert_eq!(data_texture_size(292 * 2048 + 1, 7, 2048), None);
        assert_eq!(record_texel(0, 7, 6, 2044), (6, 0));
        assert_eq!(record_texel(292, 7, 0, 2044), (0, 1));
        assert_eq!(record_texel(293, 7, 2, 2044), (9, 1));
    }

    #[test]
    fn a_device_without_compute_names_it() {
        let caps = wgpu::DownlevelCapabilities {
            flags: wgpu::DownlevelFlags::empty(),
            ..Default::default()
        };
        let limits = wgpu::Limits::downlevel_webgl2_defaults();
        assert_eq!(full_path_missing(&caps, &limits), Some("compute shaders"));
        let full = wgpu::DownlevelCapabilities::default();
        assert_eq!(full_path_missing(&full, &wgpu::Limits::default()), None);
        let no_vertex_storage = wgpu::DownlevelCapabilities {
            flags: wgpu::DownlevelFlags::all() - wgpu::DownlevelFlags::VERTEX_STORAGE,
            ..full
        };
        assert_eq!(
            full_path_missing(&no_vertex_storage, &wgpu::Limits::default()),
            Some("storage buffers in the vertex stage")
        );
    }
}
