//! The contract's WGSL modules, for any WGSL composer that understands naga_oil's
//! `#define_import_path` / `#import` (throng-render's, Bevy's).
//!
//! - `throng::constants` is generated from the Rust constants ([`constants_module`]), so no
//!   number of the contract is typed twice;
//! - `throng::playback` (`shaders/playback.wgsl`): the record, transform and clip structs, the
//!   time rules' GPU twin and the GPU-timed record's arithmetic. Pure functions, no bindings;
//! - `throng::live` (`shaders/live.wgsl`): the palette state constants and the refresh rule
//!   of update-rate LOD ([`crate::live`]);
//! - `throng::appearance` (`shaders/appearance.wgsl`): the per-instance appearance;
//! - `throng::graph_time` (`shaders/graph_time.wgsl`): animation graphs' integer time, the twin
//!   of [`crate::graph_time`];
//! - `throng::graph_layout`: the shape of a graph's GPU tables ([`crate::graph_layout`]),
//!   generated.

use crate::gpu_timed::*;

/// A WGSL module: its import path and source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    pub import_path: &'static str,
    /// Where the source comes from (for error messages).
    pub file: &'static str,
    pub source: String,
}

/// `throng::constants`: the contract's numbers as WGSL constants.
pub fn constants_module() -> Module {
    let mut s = String::from(
        "// throng::constants — generated from throng_contract's Rust constants; do not edit.\n\
         #define_import_path throng::constants\n\n",
    );
    let u32s: [(&str, u32); 20] = [
        ("MODE_LOOP", MODE_LOOP),
        ("MODE_ONCE", MODE_ONCE),
        ("MODE_CLAMP", MODE_CLAMP),
        ("MODE_PINGPONG", MODE_PINGPONG),
        ("CLIP_MASK", CLIP_MASK),
        ("MAX_CLIPS", crate::MAX_CLIPS),
        ("MODE_SHIFT", MODE_SHIFT),
        ("GPU_HELD", GPU_HELD),
        ("GPU_ENABLED", GPU_ENABLED),
        ("GPU_TWO_LAYERS", GPU_TWO_LAYERS),
        ("MAX_INFLUENCES", crate::MAX_INFLUENCES),
        ("UNIFORM_FRAMES", crate::UNIFORM_FRAMES),
        ("LAYER_MASK_SHIFT", LAYER_MASK_SHIFT),
        ("MAX_MASKS", crate::MAX_MASKS),
        ("CLIP_ADDITIVE", crate::CLIP_ADDITIVE),
        ("CLIP_CUBIC", crate::CLIP_CUBIC),
        ("CLIP_PERIODIC", crate::CLIP_PERIODIC),
        ("CLIP_DEGREE_SHIFT", crate::CLIP_DEGREE_SHIFT),
        ("MAX_PARTS", crate::MAX_PARTS),
        ("MAX_PROP_BITS", crate::MAX_PROP_BITS),
    ];
    put_u32s(&mut s, &u32s);
    s.push_str(&format!(
        "const MAX_LAYERS: u32 = {}u;\n",
        crate::MAX_LAYERS
    ));
    // {:?} prints the shortest decimal that reads back as the same f32
    s.push_str(&format!("const TWO_NEG_32: f32 = {:?};\n", TWO_NEG_32));
    Module {
        import_path: "throng::constants",
        file: "throng_contract::wgsl::constants_module",
        source: s,
    }
}

/// `throng::playback`.
pub fn playback_module() -> Module {
    Module {
        import_path: "throng::playback",
        file: "crates/throng-contract/shaders/playback.wgsl",
        source: include_str!("../shaders/playback.wgsl").to_string(),
    }
}

/// `throng::live` (`shaders/live.wgsl`), its constants written from [`crate::live`]'s.
pub fn live_module() -> Module {
    let header = format!(
        "#define_import_path throng::live\n\n\
         const PALETTE_LIVE: u32 = {}u;\n\
         const PALETTE_UNWRITTEN: u32 = {}u;\n\n",
        crate::live::PALETTE_LIVE,
        crate::live::PALETTE_UNWRITTEN
    );
    Module {
        import_path: "throng::live",
        file: "crates/throng-contract/shaders/live.wgsl",
        source: header + include_str!("../shaders/live.wgsl"),
    }
}

/// `throng::appearance` (`shaders/appearance.wgsl`): the per-instance appearance
/// ([`crate::Appearance`]) and its tests, no bindings.
pub fn appearance_module() -> Module {
    Module {
        import_path: "throng::appearance",
        file: "crates/throng-contract/shaders/appearance.wgsl",
        source: include_str!("../shaders/appearance.wgsl").to_string(),
    }
}

/// `throng::graph_time` (`shaders/graph_time.wgsl`): animation graphs' integer time, the twin
/// of [`crate::graph_time`], its constants (`GT_*`) written from the Rust ones. Pure
/// functions, no bindings.
pub fn graph_time_module() -> Module {
    use crate::graph_time as gt;
    let words = |v: u128| {
        format!(
            "vec4<u32>({}u, {}u, {}u, {}u)",
            v as u32,
            (v >> 32) as u32,
            (v >> 64) as u32,
            (v >> 96) as u32
        )
    };
    let max_advance = (gt::EVENT_MAX_CYCLES as u128) << 64;
    let bias = (gt::EVENT_BIAS_CYCLES as u128) << 64;
    let u32s: [(&str, u32); 11] = [
        ("GT_SPAN_BITS", gt::SPAN_BITS),
        ("GT_WEIGHT_BITS", gt::WEIGHT_BITS),
        ("GT_FOLD_AT", gt::FOLD_AT as u32),
        ("GT_FOLD", gt::FOLD as u32),
        ("GT_EVENT_LAPS", gt::EVENT_LAPS),
        ("GT_STEP_FRACTION_BITS", gt::STEP_FRACTION_BITS),
        ("GT_BIAS_WHOLE", gt::EVENT_BIAS_CYCLES),
        ("GT_CYCLE_LOOP", gt::EventCycle::Loop as u32),
        ("GT_CYCLE_PINGPONG", gt::EventCycle::PingPong as u32),
        ("GT_CYCLE_ONCE", gt::EventCycle::Once as u32),
        ("GT_CYCLE_STATIC", gt::EventCycle::Static as u32),
    ];
    let mut head = String::from("#define_import_path throng::graph_time\n\n");
    put_u32s(&mut head, &u32s);
    // the limits of event_series: the advance, and the biased phase it ends at
    head.push_str(&format!(
        "const GT_MAX_ADVANCE: vec4<u32> = {};\nconst GT_MAX_END: vec4<u32> = {};\n\n",
        words(max_advance),
        words(bias + max_advance)
    ));
    let body = include_str!("../shaders/graph_time.wgsl")
        .replace("#define_import_path throng::graph_time\n", "");
    Module {
        import_path: "throng::graph_time",
        file: "crates/throng-contract/shaders/graph_time.wgsl",
        source: head + &body,
    }
}

/// `throng::graph_layout`: the shape of an animation graph's GPU tables
/// ([`crate::graph_layout`]) as WGSL constants, generated.
pub fn graph_layout_module() -> Module {
    use crate::graph_layout as l;
    let mut s = String::from(
        "// throng::graph_layout — generated from throng_contract::graph_layout; do not edit.\n\
         #define_import_path throng::graph_layout\n\n",
    );
    let u32s: [(&str, u32); 20] = [
        ("NONE", l::NONE),
        ("STATE_WORDS", l::STATE_WORDS as u32),
        ("CLIP_WORDS", l::CLIP_WORDS as u32),
        ("TRANSITION_WORDS", l::TRANSITION_WORDS as u32),
        ("CONDITION_WORDS", l::CONDITION_WORDS as u32),
        ("CLIP_EVENTS_WORDS", l::CLIP_EVENTS_WORDS as u32),
        ("EVENT_WORDS", l::EVENT_WORDS as u32),
        ("MAX_CLIP_EVENTS", l::MAX_CLIP_EVENTS),
        ("MACHINE_WORDS", l::MACHINE_WORDS as u32),
        ("FRESH_CURRENT", l::FRESH_CURRENT),
        ("MOTION_CLIP", l::MOTION_CLIP),
        ("MOTION_BLEND_1D", l::MOTION_BLEND_1D),
        ("MOTION_BLEND_2D", l::MOTION_BLEND_2D),
        ("INTERRUPT_NONE", l::INTERRUPT_NONE),
        ("INTERRUPT_SOURCE", l::INTERRUPT_SOURCE),
        ("INTERRUPT_TARGET", l::INTERRUPT_TARGET),
        ("EVENT_ENTER", l::EVENT_ENTER),
        ("EVENT_EXIT", l::EVENT_EXIT),
        ("EVENT_CLIP", l::EVENT_CLIP),
        ("MACHINE_WHOLE", l::MACHINE_WHOLE as u32),
    ];
    put_u32s(&mut s, &u32s);
    Module {
        import_path: "throng::graph_layout",
        file: "throng_contract::wgsl::graph_layout_module",
        source: s,
    }
}

/// Appends a WGSL `const NAME: u32 = Vu;` line for each named value.
fn put_u32s(s: &mut String, values: &[(&str, u32)]) {
    for (name, v) in values {
        s.push_str(&format!("const {name}: u32 = {v}u;\n"));
    }
}

/// The animation-graph step's program (`shaders/graph_step.wgsl`: entry point
/// `cs_graph_step`, docs/graph.md "On the GPU"), as every embedding composes it with the
/// modules of [`modules`]: its file (for messages) and text. Its tables and machines are
/// `throng_graph::GraphLayout`'s words; its bindings are group 0, 0–7 (throng-render
/// `graph_pass`).
pub const GRAPH_STEP_PASS: (&str, &str) = (
    "crates/throng-contract/shaders/graph_step.wgsl",
    include_str!("../shaders/graph_step.wgsl"),
);

/// Every module of the contract, dependencies first.
pub fn modules() -> Vec<Module> {
    vec![
        constants_module(),
        playback_module(),
        live_module(),
        appearance_module(),
        graph_time_module(),
        graph_layout_module(),
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn constants_are_written_from_the_rust_values() {
        let s = super::constants_module().source;
        assert!(s.contains("const GPU_HELD: u32 = 67108864u;"), "{s}");
        assert!(s.contains("const CLIP_MASK: u32 = 16777215u;"));
        let two_neg_32 = s
            .lines()
            .find_map(|l| l.strip_prefix("const TWO_NEG_32: f32 = "))
            .and_then(|v| v.trim_end_matches(';').parse::<f32>().ok());
        assert_eq!(two_neg_32, Some(crate::gpu_timed::TWO_NEG_32));
    }
}
