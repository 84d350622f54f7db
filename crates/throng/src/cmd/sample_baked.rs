//! `throng sample` of a baked asset.

use super::sample::{Args, SampledPrimitive};

pub fn sample(args: &Args) -> anyhow::Result<Vec<SampledPrimitive>> {
    anyhow::bail!(
        "{}: sampling baked assets is not available yet",
        args.input.display()
    )
}
