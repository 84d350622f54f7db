// Compute twin of the far tier (docs/design.md §3 "Far tier"): `cs_far` evaluates throng::far's
// `far_shown` for each probe and writes what a card would show there, for the tests against
// throng_asset::FarTier::shown_at (crate::compute::far_on_gpu). Group 0: the tier's two
// atlases, its parameters and clips, the probes, the output and the variants' colour maps.

#import throng::far::{FarParams, FarClip, far_shown}
#import throng::appearance::appearance_of

// One probe: (direction towards the viewer, model space; frame coordinate), (uv; clip; 0), and
// the appearance it is seen in (its four words).
struct FarProbe {
    toward_x: vec4<f32>,
    uv_clip: vec4<f32>,
    look: vec4<u32>,
}

@group(0) @binding(0) var far_colour: texture_2d<f32>;
@group(0) @binding(1) var far_surface: texture_2d<f32>;
@group(0) @binding(2) var<uniform> far_params: FarParams;
@group(0) @binding(3) var<storage, read> far_clips: array<FarClip>;
@group(0) @binding(4) var<storage, read> probes: array<FarProbe>;
// Two per probe: (albedo, coverage), (normal, 0).
@group(0) @binding(5) var<storage, read_write> far_out: array<vec4<f32>>;
@group(0) @binding(6) var far_variants: texture_2d<f32>;

@compute @workgroup_size(64)
fn cs_far(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    if (i >= arrayLength(&probes)) {
        return;
    }
    let p = probes[i];
    let c = far_clips[min(u32(p.uv_clip.z), arrayLength(&far_clips) - 1u)];
    let s = far_shown(far_colour, far_surface, far_variants, far_params, c, p.toward_x.w, p.toward_x.xyz, p.uv_clip.xy, appearance_of(p.look));
    far_out[2u * i] = vec4<f32>(s.albedo, s.coverage);
    far_out[2u * i + 1u] = vec4<f32>(s.normal, 0.0);
}
