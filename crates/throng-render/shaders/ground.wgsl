// The ground: a checkered plane (two triangles from the vertex index) under the crowd; it
// receives shadows and casts none. Def MOTION (crate::shaders::Program::Ground): also its
// motion vectors (`fs_ground_motion`).

#import throng_render::frame::{VsOut, frame, clip_position, shade}
#ifdef MOTION
#import throng_render::frame::{MotionOut, with_motion}
#endif

@vertex
fn vs_ground(@builtin(vertex_index) vi: u32) -> VsOut {
    let corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let c = corners[vi % 6u] * frame.ground.w;
    let world = vec3<f32>(frame.ground.x + c.x, frame.ground.y, frame.ground.z + c.y);
    var out: VsOut;
    out.clip = clip_position(world);
    out.normal = vec3<f32>(0.0, 1.0, 0.0);
    out.world = world;
    out.uv = vec2<f32>(0.0);
    out.debug = vec4<f32>(0.0);
#ifdef MOTION
    // The ground stands still: only the camera moves it on screen.
    out.now_clip = out.clip;
    out.prev_clip = frame.prev_view_proj * vec4<f32>(world, 1.0);
#endif
    return out;
}

@fragment
fn fs_ground(in: VsOut) -> @location(0) vec4<f32> {
    return ground_color(in);
}

#ifdef MOTION
@fragment
fn fs_ground_motion(in: VsOut) -> MotionOut {
    return with_motion(ground_color(in), in);
}
#endif

fn ground_color(in: VsOut) -> vec4<f32> {
    let cell = floor(in.world.xz / max(frame.ground_cell.x, 1e-6));
    let odd = (i32(cell.x) + i32(cell.y)) & 1;
    let base = select(vec3<f32>(0.42), vec3<f32>(0.36), odd == 1);
    return vec4<f32>(shade(base, vec3<f32>(0.0, 1.0, 0.0), in.world), 1.0);
}
