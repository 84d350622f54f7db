// throng_render::debug — debug-view colours every skinned path can give (FrameUniform.debug):
// frame row of the first active layer (3) and LOD (4); alpha 0 otherwise.
#define_import_path throng_render::debug

#import throng::playback::Layer
#import throng::bone::bone_params
#import throng_render::frame::{frame, heat, index_color}

fn debug_common(layers: ptr<function, array<Layer, 4>>, lod: u32) -> vec4<f32> {
    let mode = frame.debug.x;
    if (mode == 4u) {
        return vec4<f32>(index_color(lod + 7u), 1.0);
    }
    if (mode == 3u) {
        for (var i = 0u; i < 4u; i++) {
            let l = (*layers)[i];
            if (l.weight > 0.0) {
                return vec4<f32>(heat(l.row / f32(max(bone_params.rows, 2u) - 1u)), 1.0);
            }
        }
        return vec4<f32>(heat(0.0), 1.0);
    }
    return vec4<f32>(0.0);
}
