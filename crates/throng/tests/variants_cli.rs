//! Material variants through the command line (issue 37 item 2): `bake --variant
//! NAME=TEXTURE.png` on the skinned test file with two KHR_materials_variants variants and on
//! Fox, `inspect` of the source and of the bake (variants and parts), and the exit codes of bad
//! input (1 with a hint naming the flag for a bad file, 2 for bad syntax).

mod common;

use common::{ok, ok_json, out_dir, run, s};
use std::path::PathBuf;
use std::process::Output;
use throng_render::image::{self, Rgba, RgbaImage};

fn png(name: &str, w: u32, h: u32, rgba: [u8; 4]) -> PathBuf {
    let p = out_dir("variants").join(name);
    RgbaImage::from_pixel(w, h, Rgba(rgba))
        .save_with_format(&p, image::ImageFormat::Png)
        .unwrap();
    p
}

/// Runs `throng bake` of `src` into `out` with one `--variant` (10 fps, no fidelity check),
/// whatever the outcome.
fn bake_variant(src: &str, out: &str, variant: &str) -> Output {
    run(&[
        "bake",
        src,
        "-o",
        out,
        "--fps",
        "10",
        "--no-verify",
        "--variant",
        variant,
    ])
}

fn test_file() -> PathBuf {
    let p = out_dir("variants").join("skinned_variants.glb");
    std::fs::write(&p, throng_testdata::variants::glb()).unwrap();
    p
}

#[test]
fn bake_and_inspect_list_variants_and_parts() {
    let src = test_file();
    let gold = png("gold.png", 8, 8, [255, 200, 0, 255]);
    let out = out_dir("variants").join("skinned_variants.baked.glb");
    let variant = format!("gold={}", s(&gold));
    let (src_arg, out_arg) = (s(&src), s(&out));
    let bake = bake_variant(&src_arg, &out_arg, &variant);
    let stderr = String::from_utf8_lossy(&bake.stderr);
    assert!(bake.status.success(), "{stderr}");
    assert!(stderr.contains("resized to 4×4"), "{stderr}");
    assert!(
        String::from_utf8_lossy(&bake.stdout).contains("3 material variant(s): red, striped, gold")
    );

    let j = ok_json(&["inspect", &out_arg, "--json"]);
    let v = j["variants"].as_array().unwrap();
    let names: Vec<&str> = v.iter().map(|x| x["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["red", "striped", "gold"]);
    assert_eq!(v[0]["materials"], serde_json::json!([2, 3]));
    assert_eq!(v[1]["materials"], serde_json::json!([4, null]));
    assert_eq!(v[1]["shown"], serde_json::json!([4, 1]));
    assert_eq!(v[2]["materials"], serde_json::json!([5, null]));
    assert_eq!(j["materials"][5]["name"], "body (gold)");
    assert_eq!(j["primitives"][1]["part"], 1);
    assert_eq!(j["primitives"][1]["material"], 1);
    assert_eq!(j["primitives"][1]["triangles"], 2);

    let table = ok(&["inspect", &out_arg]);
    assert!(table.contains("parts (primitives): 2"), "{table}");
    assert!(
        table.contains("1 red: part 0 → material 2 \"body red\" (texture image 0), part 1 → material 3 \"hat blue\""),
        "{table}"
    );
    assert!(table.contains("2 striped: part 0 → material 4 \"body striped\" (texture image 1), part 1 keeps its own"), "{table}");

    // The source: variant names, and per primitive its mesh, material and variant materials.
    let table = ok(&["inspect", &src_arg]);
    assert!(
        table.contains("material variants: 2 (red, striped"),
        "{table}"
    );
    assert!(
        table.contains("mesh 0 \"figure\" prim 1: 4 vertices, 2 triangles, material 1 \"hat\"; red → 3 \"hat blue\""),
        "{table}"
    );
}

#[test]
fn a_fox_texture_variant_of_its_size_bakes() {
    let Some(fox) = common::asset_arg("Fox.glb") else {
        return;
    };
    let blue = png("blue.png", 1024, 1024, [40, 40, 200, 255]);
    let out = out_dir("variants").join("fox_blue.glb");
    let (variant, out_arg) = (format!("blue={}", s(&blue)), s(&out));
    let bake = bake_variant(&fox, &out_arg, &variant);
    let stderr = String::from_utf8_lossy(&bake.stderr);
    assert!(bake.status.success(), "{stderr}");
    assert!(!stderr.contains("resized"), "{stderr}");
    let j = ok_json(&["inspect", &out_arg, "--json"]);
    assert_eq!(j["variants"][0]["name"], "blue");
    assert_eq!(j["variants"][0]["materials"], serde_json::json!([1]));
    assert_eq!(j["materials"][1]["base_color_texture"], 1);
}

#[test]
fn bad_variants_exit_1_with_a_hint_and_bad_syntax_exits_2() {
    let src = s(&test_file());
    let out = s(&out_dir("variants").join("never.glb"));
    let bake = |variant: &str| bake_variant(&src, &out, variant);
    for syntax in ["gold", "=gold.png", "gold="] {
        let o = bake(syntax);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{syntax}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let missing = s(&out_dir("variants").join("missing.png"));
    let text = out_dir("variants").join("text.png");
    std::fs::write(&text, "not a picture").unwrap();
    let gold = png("gold4.png", 4, 4, [255, 200, 0, 255]);
    for (variant, says) in [
        (
            format!("gold={missing}"),
            "hint: check the file given with --variant",
        ),
        (format!("gold={}", s(&text)), "is not a PNG or JPEG image"),
        (
            format!("red={}", s(&gold)),
            "hint: give each --variant a NAME of its own",
        ),
    ] {
        let o = bake(&variant);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{variant}: {stderr}");
        assert!(stderr.contains(says), "{variant}: {stderr}");
    }
    assert!(
        !std::path::Path::new(&out).exists(),
        "no output after a failed bake"
    );
}
