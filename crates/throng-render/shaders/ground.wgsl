// The ground: a checkered plane (two triangles from the vertex index) under the crowd; it
// receives shadows and casts none.

#import throng_render::frame::{VsOut, frame, clip_position, shade}

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
    return out;
}

@fragment
fn fs_ground(in: VsOut) -> @location(0) vec4<f32> {
    let cell = floor(in.world.xz / max(frame.ground_cell.x, 1e-6));
    let odd = (i32(cell.x) + i32(cell.y)) & 1;
    let base = select(vec3<f32>(0.42), vec3<f32>(0.36), odd == 1);
    return vec4<f32>(shade(base, vec3<f32>(0.0, 1.0, 0.0), in.world), 1.0);
}
