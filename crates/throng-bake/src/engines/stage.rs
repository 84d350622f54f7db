//! An export folder written whole or not at all: files go to a hidden staging folder beside the
//! destination, which replaces the destination by renames only when every file is written. A
//! destination that exists must be a folder an earlier export wrote (it holds
//! [`MARKER`]), so an export never deletes a user's other files.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::EngineExportError;

/// The file every export folder holds: what wrote it, with which settings, and its files.
pub const MARKER: &str = "throng-export.json";

/// A staging folder; dropped without [`Stage::commit`] it is removed.
pub struct Stage {
    dest: PathBuf,
    tmp: PathBuf,
    committed: bool,
    /// Files written so far (relative path, bytes).
    pub files: Vec<(String, u64)>,
}

fn io(path: &Path, source: std::io::Error) -> EngineExportError {
    EngineExportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl Stage {
    /// Checks `dest` and makes the staging folder beside it, before any work is done.
    pub fn new(dest: &Path) -> Result<Stage, EngineExportError> {
        if dest.exists() {
            if !dest.is_dir() {
                return Err(EngineExportError::Destination {
                    path: dest.to_path_buf(),
                    why: "it is a file; give a folder name".into(),
                });
            }
            let empty = std::fs::read_dir(dest)
                .map_err(|e| io(dest, e))?
                .next()
                .is_none();
            if !empty && !dest.join(MARKER).is_file() {
                return Err(EngineExportError::Destination {
                    path: dest.to_path_buf(),
                    why: format!(
                        "it holds files that no throng export wrote (no {MARKER}); give a new or empty folder"
                    ),
                });
            }
        }
        let parent = match dest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !parent.is_dir() {
            return Err(EngineExportError::Destination {
                path: dest.to_path_buf(),
                why: format!("the folder {} does not exist", parent.display()),
            });
        }
        let name = dest
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| EngineExportError::Destination {
                path: dest.to_path_buf(),
                why: "the path names no folder".into(),
            })?;
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let tmp = parent.join(format!(
            ".{name}.{}.{}.export-tmp",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&tmp).map_err(|e| io(&tmp, e))?;
        Ok(Stage {
            dest: dest.to_path_buf(),
            tmp,
            committed: false,
            files: Vec::new(),
        })
    }

    /// Writes one file (a relative path; its folders are made).
    pub fn write(&mut self, rel: &str, bytes: &[u8]) -> Result<(), EngineExportError> {
        let path = self.tmp.join(rel);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).map_err(|e| io(p, e))?;
        }
        std::fs::write(&path, bytes).map_err(|e| io(&self.dest.join(rel), e))?;
        self.files.push((rel.to_string(), bytes.len() as u64));
        Ok(())
    }

    /// Moves the staged folder to the destination (an earlier export there is replaced).
    pub fn commit(mut self) -> Result<PathBuf, EngineExportError> {
        let old = self.tmp.with_extension("old");
        let had = self.dest.exists();
        if had {
            std::fs::rename(&self.dest, &old).map_err(|e| io(&self.dest, e))?;
        }
        if let Err(e) = std::fs::rename(&self.tmp, &self.dest) {
            if had {
                let _ = std::fs::rename(&old, &self.dest);
            }
            return Err(io(&self.dest, e));
        }
        self.committed = true;
        if had {
            let _ = std::fs::remove_dir_all(&old);
        }
        Ok(self.dest.clone())
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}
