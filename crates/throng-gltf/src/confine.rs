//! Resolving a relative URI path inside the asset root without ever touching anything outside
//! it (docs/design.md §6), and reading at most a given number of bytes from what it names.
//!
//! `..` is resolved lexically against the file's folder (RFC 3986 §5.2.4 "remove dot
//! segments"); a path that climbs above the root is refused before any system call. The rest is
//! walked one component at a time from the root with `lstat`: a symbolic link is read with
//! `readlink` and its target is followed only while it stays inside the root, so no `stat`,
//! `open` or `readlink` ever names a path outside the root (an existence oracle or a read of a
//! device would need one). The last component must be a regular file; it is opened with
//! `O_NOFOLLOW | O_NONBLOCK` and checked again with `fstat`, so a file swapped for a link or a
//! FIFO after the walk is refused instead of followed or blocked on.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

use crate::uri::{Segment, UriProblem};

/// Linux's own limit on links followed while resolving one path (`MAXSYMLINKS`).
pub(crate) const MAX_SYMLINKS: usize = 40;

/// Where external URIs of one file may lead: `root` (canonical, no links) and the file's folder
/// as components below it.
pub(crate) struct Confinement {
    root: PathBuf,
    base: Vec<OsString>,
}

/// Why no [`Confinement`] could be made.
#[derive(Debug)]
pub(crate) enum RootError {
    /// The file's folder cannot be resolved (it does not exist, or cannot be searched).
    Folder(String),
    /// The asset root cannot be resolved, or does not contain the file's folder.
    Root(String),
}

/// Why a resolution failed.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// The URI itself is unsafe (nothing outside the root was touched).
    Unsafe(UriProblem),
    /// A path inside the root could not be read (missing, permissions, ...).
    Io(PathBuf, io::Error),
}

impl Confinement {
    /// `base_dir` is the file's folder; `asset_root` (default: `base_dir`) must contain it. Both
    /// are trusted paths given by the caller, so they are canonicalised normally.
    pub fn new(base_dir: &Path, asset_root: Option<&Path>) -> Result<Confinement, RootError> {
        let canon = |p: &Path| {
            // `Path::parent` of a bare file name is the empty path.
            let p = if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            };
            std::fs::canonicalize(p).map_err(|e| format!("{}: {e}", p.display()))
        };
        let base = canon(base_dir).map_err(RootError::Folder)?;
        let root = match asset_root {
            Some(r) => canon(r).map_err(RootError::Root)?,
            None => base.clone(),
        };
        let Ok(below) = base.strip_prefix(&root) else {
            return Err(RootError::Root(format!(
                "the asset root {} does not contain the file's folder {}",
                root.display(),
                base.display()
            )));
        };
        let base = below
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_os_string()),
                _ => None,
            })
            .collect();
        Ok(Confinement { root, base })
    }

    /// The regular file that `segments` (relative to the file's folder) name inside the root.
    pub fn resolve(&self, segments: &[Segment]) -> Result<PathBuf, Refusal> {
        let mut lexical: Vec<OsString> = self.base.clone();
        for s in segments {
            match s {
                Segment::Up => {
                    if lexical.pop().is_none() {
                        return Err(Refusal::Unsafe(UriProblem::Escapes));
                    }
                }
                Segment::Name(n) => lexical.push(OsString::from(n)),
            }
        }
        let mut todo: VecDeque<Step> = lexical.into_iter().map(Step::Name).collect();
        let mut done = self.root.clone();
        let mut depth = 0usize;
        let mut links = 0usize;
        let mut last: Option<std::fs::Metadata> = None;
        while let Some(step) = todo.pop_front() {
            let name = match step {
                Step::Up => {
                    if depth == 0 {
                        return Err(Refusal::Unsafe(UriProblem::SymlinkEscapes));
                    }
                    done.pop();
                    depth -= 1;
                    last = None;
                    continue;
                }
                Step::Name(n) => n,
            };
            let path = done.join(&name);
            let meta =
                std::fs::symlink_metadata(&path).map_err(|e| Refusal::Io(path.clone(), e))?;
            if meta.file_type().is_symlink() {
                links += 1;
                if links > MAX_SYMLINKS {
                    return Err(Refusal::Unsafe(UriProblem::SymlinkLoop(MAX_SYMLINKS)));
                }
                let target = std::fs::read_link(&path).map_err(|e| Refusal::Io(path.clone(), e))?;
                let steps = if target.is_absolute() {
                    // Only a target spelled inside the root is followed; it restarts there.
                    let Ok(inside) = target.strip_prefix(&self.root) else {
                        return Err(Refusal::Unsafe(UriProblem::SymlinkEscapes));
                    };
                    done = self.root.clone();
                    depth = 0;
                    steps_of(inside)?
                } else {
                    steps_of(&target)?
                };
                for s in steps.into_iter().rev() {
                    todo.push_front(s);
                }
                last = None;
                continue;
            }
            if !todo.is_empty() && !meta.is_dir() {
                return Err(Refusal::Io(
                    path,
                    io::Error::new(io::ErrorKind::NotADirectory, "not a folder"),
                ));
            }
            done = path;
            depth += 1;
            last = Some(meta);
        }
        match last {
            Some(m) if m.is_file() => Ok(done),
            Some(m) => Err(Refusal::Unsafe(UriProblem::NotRegularFile(kind_of(&m)))),
            // The path ended at the root itself or after a `..` of a link target: a folder.
            None => Err(Refusal::Unsafe(UriProblem::NotRegularFile("folder"))),
        }
    }
}

enum Step {
    Up,
    Name(OsString),
}

/// The steps of a link target (relative to the link's folder, or to the root once stripped).
fn steps_of(p: &Path) -> Result<Vec<Step>, Refusal> {
    let mut out = Vec::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => out.push(Step::Up),
            Component::Normal(n) => out.push(Step::Name(n.to_os_string())),
            // A drive or root inside a relative target (Windows): refuse rather than guess.
            Component::RootDir | Component::Prefix(_) => {
                return Err(Refusal::Unsafe(UriProblem::SymlinkEscapes))
            }
        }
    }
    Ok(out)
}

fn kind_of(m: &std::fs::Metadata) -> &'static str {
    let t = m.file_type();
    if t.is_dir() {
        return "folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO (named pipe)";
        }
        if t.is_char_device() || t.is_block_device() {
            return "device";
        }
        if t.is_socket() {
            return "socket";
        }
    }
    "special file"
}

/// What [`read_bounded`] found.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// Not a regular file when opened (it changed after the walk).
    NotRegular(&'static str),
    Io(io::Error),
}

/// Reads at most `limit` bytes of the regular file at `path` (from [`Confinement::resolve`]).
/// The buffer never grows beyond the file's size, whatever `limit` a file declares.
pub(crate) fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = open_no_follow(path).map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_of(&meta)));
    }
    let cap = meta.len().min(limit);
    let mut out = Vec::with_capacity(usize::try_from(cap).unwrap_or(0));
    file.take(limit)
        .read_to_end(&mut out)
        .map_err(ReadError::Io)?;
    Ok(out)
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> io::Result<File> {
    File::open(path)
}

#[cfg(test)]
mod tests {
    use super::read_bounded;

    #[test]
    fn reads_stop_at_the_limit_and_never_allocate_past_the_file() {
        let dir = tempfile::tempdir().unwrap();
        // 1 GiB, sparse: nothing is written to disk.
        let big = dir.path().join("big.bin");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(1 << 30)
            .unwrap();
        let v = read_bounded(&big, 10).unwrap();
        assert_eq!(v.len(), 10);
        assert!(v.capacity() < 4096, "{}", v.capacity());
        // A declared length far beyond the file: the buffer is the file's size.
        let small = dir.path().join("small.bin");
        std::fs::write(&small, b"12345").unwrap();
        let v = read_bounded(&small, u64::MAX).unwrap();
        assert_eq!(v, b"12345");
        assert!(v.capacity() < 4096, "{}", v.capacity());
    }
}
