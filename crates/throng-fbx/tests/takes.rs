//! Takes as clips: an empty take (no keys, 0 s), which exporters write beside the real ones, is
//! dropped with a warning instead of becoming a rest-pose clip 0 that viewers start on; takes
//! that share a name get names of their own. The files are the shared 3ds Max ASCII FBX with
//! takes added to its text (objects and connections as the FBX SDK writes them).

mod common;

use throng_fbx::import_slice;

const FILE: &str = "ufbx/max_transformed_skin_7500_ascii.fbx";

/// The file's text with `objects` added at the end of its Objects section and `connections` at
/// the start of its Connections section.
fn with_takes(text: &str, objects: &str, connections: &str) -> String {
    let objects_end = text
        .find("\n}\n\n; Object connections")
        .expect("Objects section");
    let mut out = String::with_capacity(text.len() + objects.len() + connections.len());
    out.push_str(&text[..objects_end]);
    out.push_str(objects);
    let rest = &text[objects_end..];
    let conn = rest.find("Connections:  {").expect("Connections section") + "Connections:  {".len();
    out.push_str(&rest[..conn]);
    out.push_str(connections);
    out.push_str(&rest[conn..]);
    out
}

/// An anim stack named `name` with one layer; `layer_children` are object ids to connect to
/// the layer (its curve nodes), none for an empty take.
fn take(id: u64, name: &str, layer_children: &[u64]) -> (String, String) {
    let objects = format!(
        "\n\tAnimationStack: {id}, \"AnimStack::{name}\", \"\" {{\n\t}}\n\tAnimationLayer: {}, \"AnimLayer::BaseLayer\", \"\" {{\n\t}}",
        id + 1
    );
    let mut connections = format!("\n\tC: \"OO\",{},{id}", id + 1);
    for child in layer_children {
        connections.push_str(&format!("\n\tC: \"OO\",{child},{}", id + 1));
    }
    (objects, connections)
}

#[test]
fn an_empty_take_is_dropped_with_a_warning() {
    let Some(path) = common::fbx_asset(FILE) else {
        return;
    };
    let text = std::fs::read_to_string(path).expect("read");
    let (objects, connections) = take(9_000_000_001, "Empty", &[]);
    let edited = with_takes(&text, &objects, &connections);
    let model = import_slice(edited.as_bytes(), None, "empty_take.fbx").expect("import");
    let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Take 001"], "{:#?}", model.warnings);
    assert!(
        model
            .warnings
            .iter()
            .any(|w| w.contains("\"Empty\"") && w.contains("dropped")),
        "{:#?}",
        model.warnings
    );
}

#[test]
fn takes_that_share_a_name_are_renamed() {
    let Some(path) = common::fbx_asset(FILE) else {
        return;
    };
    let text = std::fs::read_to_string(path).expect("read");
    // a second take named as the first, animating the same curve node (the Take 001 layer's)
    let curve_node = text
        .split("\n\t;AnimCurveNode::T, AnimLayer::BaseLayer\n\tC: \"OO\",")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .and_then(|id| id.parse::<u64>().ok())
        .expect("a curve node of the base layer");
    let (objects, connections) = take(9_000_000_001, "Take 001", &[curve_node]);
    let edited = with_takes(&text, &objects, &connections);
    let model = import_slice(edited.as_bytes(), None, "two_takes.fbx").expect("import");
    let names: Vec<&str> = model.clips.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Take 001", "Take 001 (2)"], "{:#?}", model.warnings);
    assert!(
        model
            .warnings
            .iter()
            .any(|w| w.contains("renamed \"Take 001 (2)\"")),
        "{:#?}",
        model.warnings
    );
}
