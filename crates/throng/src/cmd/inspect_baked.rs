//! `throng inspect` of a baked asset.

use std::path::Path;

pub fn run(path: &Path, _json: bool) -> anyhow::Result<()> {
    anyhow::bail!(
        "{}: inspecting baked assets is not available yet",
        path.display()
    )
}
