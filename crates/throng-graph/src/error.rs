//! Typed errors. Every problem names the element (state, transition, parameter) it is about;
//! [`GraphError`] adds the file.

use thiserror::Error;

/// One thing wrong with (or suspicious in) a graph. [`Problem::is_error`] tells which stop the
/// graph from loading; the others are warnings that `throng graph check` reports.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Problem {
    #[error("format version {found} is not supported (this reader reads version {supported})")]
    Version { found: u32, supported: u32 },
    #[error("the graph has no states; add at least one")]
    NoStates,
    #[error("{what} \"{name}\" is defined twice; names must be unique")]
    Duplicate { what: &'static str, name: String },
    #[error(
        "{element}: clip \"{clip}\" is not in the asset's clip table{} (clips: {known})",
        throng_contract::clip_name_hint(clip, known.split(", "))
    )]
    UnknownClip {
        element: String,
        clip: String,
        known: String,
    },
    #[error("{element}: parameter \"{name}\" is not declared in \"parameters\"")]
    UnknownParameter { element: String, name: String },
    #[error("{element}: state \"{name}\" does not exist")]
    UnknownState { element: String, name: String },
    #[error("{element}: parameter \"{name}\" is a {found}, but {expected} is needed here")]
    TypeMismatch {
        element: String,
        name: String,
        found: &'static str,
        expected: &'static str,
    },
    #[error("{element}: {what} is {value}; it must be {rule}")]
    BadNumber {
        element: String,
        what: &'static str,
        value: String,
        rule: &'static str,
    },
    #[error("{element}: {what}")]
    BadShape { element: String, what: String },
    #[error("{element}: operator \"{op}\" is not one of {allowed}")]
    BadOperator {
        element: String,
        op: String,
        allowed: &'static str,
    },
    #[error("{element}: has no condition and no exit time, so it would fire on every frame; give it one of them")]
    AlwaysFires { element: String },
    #[error("the graph has {count} states; at most {max} are supported")]
    TooMany { count: usize, max: usize },
    // Warnings below.
    #[error("state \"{state}\" is unreachable from the entry state \"{entry}\"")]
    Unreachable { state: String, entry: String },
    #[error("zero-duration transitions form a cycle ({path}); when all their conditions hold the instance changes state on every frame")]
    ZeroCycle { path: String },
    #[error("{element}: up to {layers} clip layers may be needed during it, more than the record's {max}; the weakest are dropped (docs/graph.md \"Layer limit\")")]
    TooManyLayers {
        element: String,
        layers: usize,
        max: usize,
    },
}

impl Problem {
    /// Whether the problem stops the graph from loading (the others are warnings).
    pub fn is_error(&self) -> bool {
        !matches!(
            self,
            Problem::Unreachable { .. } | Problem::ZeroCycle { .. } | Problem::TooManyLayers { .. }
        )
    }
}

fn json_hint(non_finite: bool) -> &'static str {
    if non_finite {
        " (JSON has no NaN or Infinity: write a finite number)"
    } else {
        ""
    }
}

impl GraphError {
    /// The error of a graph file `text` that is not valid JSON (or not a graph's shape).
    pub fn json(file: impl Into<String>, text: &str, source: serde_json::Error) -> GraphError {
        // serde_json counts lines and columns from 1; the column points at or just past the
        // start of the bad token, so look at a few characters around it
        let line = text
            .lines()
            .nth(source.line().saturating_sub(1))
            .unwrap_or("");
        let near: String = line
            .chars()
            .skip(source.column().saturating_sub(3))
            .take(12)
            .collect();
        let non_finite = near.contains("NaN") || near.contains("Infinity");
        GraphError::Json {
            file: file.into(),
            source,
            non_finite,
        }
    }
}

/// An error loading or using a graph.
#[derive(Debug, Error)]
pub enum GraphError {
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: not a valid graph file: {source}{}", json_hint(*.non_finite))]
    Json {
        file: String,
        #[source]
        source: serde_json::Error,
        /// The text at the error is `NaN` or `Infinity`, which JSON cannot hold.
        non_finite: bool,
    },
    #[error("{file}: {first}{}", more_suffix(*.more))]
    Invalid {
        file: String,
        /// The first error found.
        first: Problem,
        /// How many more errors there are (all are in [`crate::check`]'s report).
        more: usize,
    },
    #[error("parameter \"{name}\" is not in the graph (parameters: {known})")]
    UnknownParameter { name: String, known: String },
    #[error("parameter \"{name}\" is a {found}; use the setter for a {found}")]
    WrongKind { name: String, found: &'static str },
    #[error("value {value} for parameter \"{name}\" is not {rule}")]
    BadValue {
        name: String,
        value: String,
        rule: &'static str,
    },
    #[error("state \"{state}\" plays clip {clip}, which the clip table given (of {clips} clips) does not have with the duration the graph was checked against; give the crowd the table the graph was built with")]
    OtherClipTable {
        state: String,
        clip: usize,
        clips: usize,
    },
    #[error("instance {index} does not exist (the crowd has {len})")]
    NoSuchInstance { index: usize, len: usize },
}

fn more_suffix(more: usize) -> String {
    match more {
        0 => String::new(),
        n => format!(" (and {n} more problem{})", if n == 1 { "" } else { "s" }),
    }
}
