//! Progress reports of a bake, for front ends that show them: the two stages that take long on
//! large sources ([`crate::timing`] placing frames, [`crate::sample`] posing rows) call them, from
//! worker threads.

/// What a bake is busy with, for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Choosing frame times under an error budget; progress counts milliseconds of clip time.
    Placing,
    /// Sampling the skin matrices of every frame-table row; progress counts rows.
    Sampling,
}

/// Progress callback: `(stage, done, total)`. Called from worker threads.
pub type Progress<'a> = &'a (dyn Fn(Stage, u64, u64) + Sync);
