//! Inputs at the edges of the bake (issue 36): a scene that is one chain of 200,000 plain nodes
//! bakes — with anchors, a layer mask and root motion, which walk the hierarchy — without a panic
//! or a stack overflow (tests run on 2 MiB thread stacks), and a mesh with no vertices is left
//! out with a warning, or refused when it is all there is. How long the chain takes is in
//! `benches/bake.rs` ("deep hierarchy"), not here.

mod common;

use throng_bake::{bake, AnchorSelection, BakeError, BakeOptions, RootMotion, Sampling};

const CHAIN: usize = 200_000;

#[test]
fn a_chain_of_200000_nodes_bakes_with_every_hierarchy_walk() {
    let bytes = common::chain_glb(CHAIN);
    let model = throng_gltf::import_slice(&bytes, None, "chain.glb").expect("the chain imports");
    assert_eq!(model.nodes.len(), CHAIN);
    let deepest = CHAIN - 1;
    let options = BakeOptions {
        source_name: "chain.glb".into(),
        // A few rows: the walks, not the sampling, are what this test is about.
        sampling: Sampling::Fixed(4.0),
        anchors: AnchorSelection::Auto,
        masks: vec![throng_bake::masks::MaskSetting {
            name: "deep".into(),
            roots: vec![format!("node{}", CHAIN / 2)],
        }],
        root_motion: RootMotion::Extract { motion_root: None },
        ..Default::default()
    };
    let (asset, report) = bake(&model, &options).expect("the chain bakes");
    // The triangle on the deepest node is the one rigid part, turned by the root's clip.
    assert_eq!(asset.palette.len(), 1);
    assert_eq!(asset.palette[0].node, deepest);
    assert!(asset.palette[0].rigid);
    assert_eq!(report.rows, 1 + 5, "rest row and 1 s at 4 fps");
    // No joint anywhere: nothing hangs under one, so no anchor.
    assert!(asset.anchors.is_none());
    // The deepest node is below the middle of the chain.
    assert_eq!(asset.masks.len(), 1);
    assert_eq!(asset.masks[0].weights, vec![1.0]);
    // The motion root is the only palette node; the clip turns about Y (0 → 90°) at the
    // origin: no travel, a quarter turn of yaw by the end.
    let rm = asset.clips[0].root_motion.as_ref().expect("root motion");
    let last = rm.last().copied().unwrap_or_default();
    assert!(last[0].abs() < 1e-5 && last[1].abs() < 1e-5, "{last:?}");
    assert!(
        (last[2].abs() - std::f32::consts::FRAC_PI_2).abs() < 1e-4,
        "{last:?}"
    );
}

#[test]
fn the_budgeted_bake_of_a_deep_chain_is_refused_or_baked_never_a_panic() {
    // The default budget on a shorter chain (the long one is the bench's): the budget's own
    // walks (placement, probe, measure) see every node of every pose.
    let bytes = common::chain_glb(20_000);
    let model = throng_gltf::import_slice(&bytes, None, "chain.glb").expect("the chain imports");
    let options = BakeOptions {
        source_name: "chain.glb".into(),
        anchors: AnchorSelection::Auto,
        ..Default::default()
    };
    let (asset, report) = bake(&model, &options).expect("the chain bakes under the budget");
    let e = report.clips[0].error.as_ref().expect("budgeted");
    assert!(e.between + e.at_samples <= 1e-3, "{e:?}");
    assert!(asset.clips[0].frames >= 2);
}

/// The two-joint rig with a second, empty primitive beside its strip (or instead of it).
fn with_empty_primitive(keep_strip: bool) -> throng_anim::Model {
    let mut model = common::two_joint_rig(1.0, None);
    let strip = model.meshes[0].primitives[0].clone();
    let empty = throng_anim::Primitive {
        joint_sets: vec![Vec::new()],
        weight_sets: vec![Vec::new()],
        ..Default::default()
    };
    model.meshes[0].primitives = if keep_strip {
        vec![strip, empty]
    } else {
        vec![empty]
    };
    model
}

#[test]
fn a_primitive_without_vertices_is_left_out_with_a_warning_or_refused_alone() {
    let options = BakeOptions {
        source_name: "rig.glb".into(),
        sampling: Sampling::Fixed(10.0),
        ..Default::default()
    };
    let (asset, report) = bake(&with_empty_primitive(true), &options).expect("bakes");
    assert_eq!(asset.primitives.len(), 1, "only the strip");
    assert_eq!(asset.primitives[0].primitive, 0);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.contains("no vertices") && w.contains("mesh 0 primitive 1")),
        "{:?}",
        report.warnings
    );
    match bake(&with_empty_primitive(false), &options) {
        Err(BakeError::NothingToAnimate { why, .. }) => {
            assert!(why.contains("no vertices"), "{why}")
        }
        other => panic!(
            "expected NothingToAnimate, got {:?}",
            other.map(|r| r.1.warnings)
        ),
    }
}

/// The Fox with `chain` plain nodes appended beside it (a second scene root; nothing animates
/// or skins them), as a GLB.
fn fox_beside_a_chain(fox: &[u8], chain: usize) -> Vec<u8> {
    let word = |at: usize| u32::from_le_bytes(fox[at..at + 4].try_into().unwrap()) as usize;
    let json_len = word(12);
    let mut json: serde_json::Value =
        serde_json::from_slice(&fox[20..20 + json_len]).expect("Fox's JSON");
    let bin = &fox[20 + json_len + 8..20 + json_len + 8 + word(20 + json_len)];
    let nodes = json["nodes"].as_array_mut().expect("nodes");
    let first = nodes.len();
    for i in 0..chain {
        let mut node = serde_json::json!({ "name": format!("chain{i}") });
        if i + 1 < chain {
            node["children"] = serde_json::json!([first + i + 1]);
        }
        nodes.push(node);
    }
    json["scenes"][0]["nodes"]
        .as_array_mut()
        .expect("scene nodes")
        .push(first.into());
    throng_testdata::glb::pack(&serde_json::to_vec(&json).expect("JSON"), Some(bin))
}

/// The error-budgeted bake poses only the nodes skinning reads (issue 52 item 8): a 200,000-node
/// chain beside the Fox changes nothing in its bake — same palette, frame times and bone
/// texture, bit for bit — and the chain's nodes are not posed at each candidate time (how long
/// it takes against the fixed-rate bake is in the note of issue 52 and docs/benchmarks.md).
#[test]
fn a_long_chain_beside_a_skin_leaves_the_budgeted_bake_unchanged() {
    let Some(path) = throng_testdata::asset("Fox.glb") else {
        return;
    };
    let fox = std::fs::read(path).expect("read Fox.glb");
    let options = BakeOptions {
        source_name: "Fox.glb".into(),
        ..Default::default()
    };
    let alone = throng_gltf::import_slice(&fox, None, "Fox.glb").expect("Fox");
    let beside = fox_beside_a_chain(&fox, CHAIN);
    let with_chain = throng_gltf::import_slice(&beside, None, "Fox.glb").expect("Fox + chain");
    assert_eq!(with_chain.nodes.len(), alone.nodes.len() + CHAIN);
    let (a, _) = bake(&alone, &options).expect("Fox");
    let (b, _) = bake(&with_chain, &options).expect("Fox + chain");
    assert_eq!(a.palette, b.palette);
    assert_eq!(a.clips, b.clips);
    assert!(a.bone_texture == b.bone_texture, "the bone textures differ");
    assert_eq!(a.row_bounds, b.row_bounds);
}
