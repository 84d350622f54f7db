//! Typed import errors. Every error names the file (first, in `Display`), the FBX element where
//! there is one (e.g. `mesh "Body"`, `skin deformer 0 of mesh "Body"`) and says what to do.

/// An import failure: which file, and what went wrong where ([`ImportErrorKind`]). `Display`
/// is `FILE: what went wrong`.
pub type ImportError = throng_anim::FileError<ImportErrorKind>;

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum ImportErrorKind {
    #[error("cannot read the file: {source}; check the path and permissions")]
    Io {
        #[from]
        source: std::io::Error,
    },

    #[error(
        "not an FBX file (no \"Kaydara FBX Binary\" header and no ASCII FBX header); pass a binary or ASCII FBX 7.x file"
    )]
    NotFbx,

    #[error("the file is cut short ({detail}); copy or download it again, or re-export it")]
    Truncated { detail: String },

    #[error(
        "reading it needs more than {limit_mib} MiB of memory, the import's limit ({detail}); the file is damaged or far larger than a crowd character, re-export it or raise the limit in the import options"
    )]
    MemoryLimit { limit_mib: usize, detail: String },

    #[error(
        "the FBX reader (ufbx) refused it: {detail}; the file is damaged or uses a feature throng cannot read, re-export it as binary FBX 7.x"
    )]
    Malformed { detail: String },

    #[error("{element}: {reason}; re-export the file")]
    InvalidData { element: String, reason: String },

    #[error(
        "{element} holds a non-finite value (NaN or infinity) at {at}; fix the source scene and re-export"
    )]
    NonFinite { element: String, at: String },

    #[error(
        "{element} has {count} {what}, more than throng's limit of {limit}; split it in the authoring tool and re-export"
    )]
    TooMany {
        element: String,
        what: String,
        count: usize,
        limit: usize,
    },

    #[error("{element}: cannot decode the image ({reason}); convert it to PNG or JPEG")]
    ImageDecode { element: String, reason: String },
}
