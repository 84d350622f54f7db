//! Unit tests of `throng render`'s flag checks (the crowd layout and clip mix are
//! throng-runtime's `crowd` tests; the value parsers `shared::parse`'s).

use super::*;
use clap::Parser;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: Args,
}

fn args(extra: &[&str]) -> Args {
    let argv = ["render", "in.glb"].iter().chain(extra);
    match Cli::try_parse_from(argv) {
        Ok(c) => c.args,
        Err(e) => panic!("{e}"),
    }
}

fn usage_of(extra: &[&str]) -> Option<bool> {
    check_usage(&args(extra))
        .err()
        .map(|e| e.is::<shared::UsageError>())
}

#[test]
fn debug_joint_goes_only_with_the_weights_view() {
    assert_eq!(usage_of(&[]), None);
    assert_eq!(usage_of(&["--debug", "palette"]), None);
    assert_eq!(
        usage_of(&["--debug", "weights", "--debug-joint", "3"]),
        None
    );
    assert_eq!(usage_of(&["--debug-joint", "3"]), Some(true));
    assert_eq!(
        usage_of(&["--debug", "lod", "--debug-joint", "3"]),
        Some(true)
    );
}

#[test]
fn motion_view_needs_the_palette_path_and_no_props() {
    assert_eq!(usage_of(&["--debug", "motion", "--path", "palette"]), None);
    // Without --path: the palette path, the default for baked inputs.
    assert_eq!(usage_of(&["--debug", "motion"]), None);
    assert_eq!(
        usage_of(&["--debug", "motion", "--path", "vat"]),
        Some(true)
    );
    // The motion view's own advice, not the generic one for debug views.
    let err = check_usage(&args(&["--debug", "motion", "--path", "reference"]));
    assert!(
        err.is_err_and(|e| e.to_string().contains("use --path palette")),
        "the reference path gets the motion view's advice"
    );
    assert_eq!(
        usage_of(&[
            "--debug",
            "motion",
            "--path",
            "palette",
            "--prop",
            "hand=Box.glb"
        ]),
        Some(true)
    );
}

#[test]
fn enums_parse_by_their_one_name() {
    let a = args(&[
        "--skinning",
        "dq",
        "--path",
        "vat",
        "--timing",
        "gpu",
        "--layout",
        "random",
        "--encoding",
        "mat3x4-f16",
        "--debug",
        "row",
    ]);
    assert_eq!(a.skinning, Skinning::DualQuat);
    assert_eq!(a.path, Some(SkinPath::Vat));
    assert_eq!(a.timing, Timing::Gpu);
    assert_eq!(a.layout, Layout::Random);
    assert_eq!(a.encoding, Some(Encoding::Mat3x4F16));
    assert_eq!(a.debug, Some(DebugView::Row));
    assert_eq!(
        args(&["--lod-influences", "3,1"]).lod_influences,
        Some([3, 1, 1, 1])
    );
    assert_eq!(args(&[]).lod_influences, None);
    let cam = args(&["--camera", "0,2,-5:0,1,0:40"])
        .camera
        .expect("camera");
    assert_eq!(cam.eye, glam::Vec3::new(0.0, 2.0, -5.0));
}

#[test]
fn the_reference_path_takes_one_input_and_cpu_timing() {
    assert_eq!(
        usage_of(&["--path", "reference", "--timing", "gpu"]),
        Some(true)
    );
    assert_eq!(
        usage_of(&["--path", "reference", "--debug", "row"]),
        Some(true)
    );
    assert_eq!(usage_of(&["--path", "reference", "b.glb"]), Some(true));
    assert_eq!(
        usage_of(&["--path", "reference", "--source", "s.glb"]),
        None
    );
}

#[test]
fn variety_flags_parse_into_a_variety() {
    assert!(args(&[]).variety().is_default());
    let v = args(&[
        "--variant",
        "red",
        "--tints",
        "--hide-part",
        "1",
        "--hide-part",
        "3",
    ])
    .variety();
    assert_eq!(v.variant, VariantChoice::Named("red".into()));
    assert!(v.tints);
    assert_eq!(v.hidden_parts, [1, 3]);
    assert_eq!(
        args(&["--all-variants"]).variety().variant,
        VariantChoice::All
    );
    let both = ["render", "in.glb", "--variant", "red", "--all-variants"];
    assert!(Cli::try_parse_from(both).is_err(), "one variant choice");
    assert_eq!(
        usage_of(&["--path", "reference", "--source", "s.gltf", "--tints"]),
        Some(true)
    );
}

/// `--far-fade` defaults to the renderer's crossfade and takes a share in [0, 1].
#[test]
fn the_far_fade_defaults_to_the_renderers_and_takes_a_share() {
    assert_eq!(args(&[]).far_fade as f32, throng_render::DEFAULT_FAR_FADE);
    assert_eq!(args(&["--far-fade", "0"]).far_fade, 0.0);
    for bad in ["1.5", "-0.1", "x"] {
        let cli = ["render", "in.glb", "--far-fade", bad];
        assert!(Cli::try_parse_from(cli).is_err(), "--far-fade {bad}");
    }
}

/// `--far-tier` defaults to on and takes `on` or `off` as its value (not a bare flag).
#[test]
fn the_far_tier_switch_defaults_on_and_takes_a_value() {
    assert!(args(&[]).far_tier);
    assert!(!args(&["--far-tier", "off"]).far_tier);
    assert!(args(&["--far-tier", "on"]).far_tier);
    let bare = ["render", "in.glb", "--far-tier"];
    assert!(Cli::try_parse_from(bare).is_err(), "a bare --far-tier");
}
