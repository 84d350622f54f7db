//! Graphviz text of a graph file, so a person can look at it (`dot -Tsvg`).

use std::fmt::Write;

use crate::file::{DurationUnit, GraphFile, MotionFile};

/// The graph as a Graphviz digraph: one box per state (its motion below its name), the entry
/// state bold, one edge per transition labelled with its order, conditions, exit time and
/// duration; any-state transitions leave a point node `*`. Same input → same text.
pub fn to_dot(file: &GraphFile) -> String {
    let mut s =
        String::from("digraph animation {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n");
    let entry = file
        .entry
        .clone()
        .or_else(|| file.states.first().map(|s| s.name.clone()));
    if file.transitions.iter().any(|t| t.from == "*") {
        s.push_str("  \"*\" [shape=circle, label=\"any\"];\n");
    }
    for st in &file.states {
        let motion = match &st.motion {
            MotionFile::Clip(c) => format!("clip {}", c.name),
            MotionFile::Blend1d(b) => format!(
                "blend1d({}): {}",
                b.parameter,
                b.points
                    .iter()
                    .map(|p| format!("{}@{}", p.clip, p.at))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            MotionFile::Blend2d(b) => {
                format!("blend2d({}, {}): {} clips", b.x, b.y, b.points.len())
            }
        };
        let bold = if entry.as_deref() == Some(st.name.as_str()) {
            ", penwidth=2"
        } else {
            ""
        };
        let _ = writeln!(
            s,
            "  {} [label=\"{}\\n{}\"{bold}];",
            quote(&st.name),
            escape(&st.name),
            escape(&motion)
        );
    }
    for (i, t) in file.transitions.iter().enumerate() {
        let mut label = vec![format!("#{i}")];
        for c in &t.conditions {
            let mut text = c.parameter.clone();
            if let Some(op) = &c.op {
                text.push(' ');
                text.push_str(op);
            }
            if let Some(v) = &c.value {
                text.push(' ');
                text.push_str(&v.to_string());
            }
            label.push(text);
        }
        if let Some(e) = t.exit_time {
            label.push(format!("exit {e}"));
        }
        if t.duration > 0.0 {
            let unit = match t.duration_unit {
                DurationUnit::Seconds => "s",
                DurationUnit::Normalized => " cycles",
            };
            label.push(format!("fade {}{unit}", t.duration));
        }
        let _ = writeln!(
            s,
            "  {} -> {} [label=\"{}\"];",
            quote(&t.from),
            quote(&t.to),
            escape(&label.join("\\n"))
        );
    }
    s.push_str("}\n");
    s
}

fn escape(text: &str) -> String {
    // keep the \n separators written above; escape quotes and other backslashes
    text.replace('"', "\\\"")
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
}
