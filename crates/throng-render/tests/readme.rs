//! The README's Rust snippets cannot rot: each one is the marked region of an example that the
//! test run compiles (`cargo test` builds every example), and this test checks that the README
//! shows exactly those lines (the region's common indentation removed). A new snippet without
//! its example fails here.

use std::path::Path;

/// The examples whose marked regions the README shows, from the workspace root.
const EXAMPLES: [&str; 2] = [
    "crates/throng-render/examples/readme_embedding.rs",
    "crates/throng-bevy/examples/readme_bevy.rs",
];

fn read(rel: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    match std::fs::read_to_string(&path) {
        Ok(s) => s,
        Err(e) => panic!("reading {}: {e}", path.display()),
    }
}

/// The lines between `// README begin` and `// README end`, less their common indentation.
fn region(source: &str, name: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let at = |marker: &str| {
        lines
            .iter()
            .position(|l| l.trim() == marker)
            .unwrap_or_else(|| panic!("{name}: no `{marker}` line"))
    };
    let body = &lines[at("// README begin") + 1..at("// README end")];
    let indent = (body.iter().filter(|l| !l.trim().is_empty()))
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    body.iter()
        .map(|l| l.get(indent..).unwrap_or("").trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The README's ```rust blocks, in order.
fn rust_blocks(readme: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<Vec<&str>> = None;
    for line in readme.lines() {
        match (&mut open, line.trim_start()) {
            (None, l) if l.starts_with("```rust") => open = Some(Vec::new()),
            (Some(b), "```") => {
                blocks.push(b.join("\n"));
                open = None;
            }
            (Some(b), _) => b.push(line.trim_end()),
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn every_rust_snippet_in_the_readme_is_a_compiled_example() {
    let blocks = rust_blocks(&read("README.md"));
    assert_eq!(
        blocks.len(),
        EXAMPLES.len(),
        "the README has {} Rust snippets; each needs an example in EXAMPLES",
        blocks.len()
    );
    for (block, example) in blocks.iter().zip(EXAMPLES) {
        let want = region(&read(example), example);
        assert!(
            *block == want,
            "the README's snippet differs from {example}'s marked lines; copy them:\n{want}"
        );
    }
}
