// throng_render::depth_pyramid — the hierarchical depth of the main pass (docs/design.md §5
// "Occlusion culling"): level 0 has one texel per 2×2 pixels of the depth target, each level
// one per 2×2 texels of the level below (sizes rounded up, down to 1×1); a texel holds the
// farthest depth (wgpu clip space: 0 near, 1 far) of the pixels it covers, so a box whose
// nearest depth lies beyond it is hidden there. One f32 buffer holds every level, row by row.
// Twin: crate::gpu_types::DepthPyramid.
#define_import_path throng_render::depth_pyramid

struct DepthPyramid {
    // The main camera's view-projection (world → clip) the depth was drawn with.
    view_proj: mat4x4<f32>,
    // x, y: depth target width and height (pixels); z: number of levels; w unused.
    size: vec4<u32>,
    // Per level: x = first texel in the buffer, y = width, z = height, w unused.
    levels: array<vec4<u32>, 16>,
}
