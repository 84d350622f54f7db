// throng::appearance — the per-instance appearance on the GPU (docs/design.md §4 "Appearance").
// Rust twin: throng_contract::Appearance (16 B; one Rgba32Uint texel; layout checked by naga in
// throng-render's tests). Pure functions, no bindings: the embedding decides where the
// appearances live (throng-render: a data texture beside the draw's uniform).
#define_import_path throng::appearance

#import throng::constants::{MAX_PARTS, MAX_PROP_BITS}

struct Appearance {
    // RGBA8, red in the low byte; c / 255, multiplied with the base colour (linear).
    tint: u32,
    // Bit i: primitive i is drawn (primitives from MAX_PARTS on always are).
    parts: u32,
    // 0: own materials; v >= 1: material variant v - 1.
    variant: u32,
    // Bit k: prop k is drawn (props from MAX_PROP_BITS on always are).
    props: u32,
}

// The appearance of one texel (the Rust struct's four words).
fn appearance_of(t: vec4<u32>) -> Appearance {
    return Appearance(t.x, t.y, t.z, t.w);
}

fn appearance_tint(a: Appearance) -> vec4<f32> {
    return unpack4x8unorm(a.tint);
}

// Whether primitive `part` is drawn (0xffffffff: not a switchable part).
fn shows_part(a: Appearance, part: u32) -> bool {
    return part >= MAX_PARTS || ((a.parts >> part) & 1u) != 0u;
}

// Whether prop `prop` is drawn (0xffffffff: not a switchable prop).
fn shows_prop(a: Appearance, prop: u32) -> bool {
    return prop >= MAX_PROP_BITS || ((a.props >> prop) & 1u) != 0u;
}
