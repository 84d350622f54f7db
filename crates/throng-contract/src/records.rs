//! A crowd's playback records as the GPU reads them, whichever timing wrote them
//! (docs/design.md §4): the one hand-over from a runtime to a renderer, so that neither a
//! front end nor an embedding has to tell the two timings apart to draw or upload a crowd.

use crate::{GpuInstanceRecord, GpuRecordWrite, InstanceRecord, Timing};

/// Every instance's current record, in dense instance order.
#[derive(Debug, Clone, Copy)]
pub enum Records<'a> {
    /// CPU-timed: 4 layers of (weight, frac, row, clip) per instance, rewritten every frame.
    Cpu(&'a [InstanceRecord]),
    /// GPU-timed: the compact record per instance and the clock the GPU derives rows from
    /// (low 32 bits of the runtime's ticks, [`crate::TICKS_PER_SECOND`] a second).
    Gpu {
        records: &'a [GpuInstanceRecord],
        clock: u32,
    },
}

impl<'a> Records<'a> {
    pub fn len(&self) -> usize {
        match self {
            Records::Cpu(r) => r.len(),
            Records::Gpu { records, .. } => records.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn timing(&self) -> Timing {
        match self {
            Records::Cpu(_) => Timing::Cpu,
            Records::Gpu { .. } => Timing::Gpu,
        }
    }

    /// The clock GPU-timed records are read at; 0 for CPU-timed records, which need none (a
    /// uniform that carries it can be written alike for both).
    pub fn clock(&self) -> u32 {
        match *self {
            Records::Cpu(_) => 0,
            Records::Gpu { clock, .. } => clock,
        }
    }

    /// The CPU-timed records, for a consumer that reads only those (the reference path's CPU
    /// skinning); `None` GPU-timed.
    pub fn cpu(&self) -> Option<&'a [InstanceRecord]> {
        match *self {
            Records::Cpu(r) => Some(r),
            Records::Gpu { .. } => None,
        }
    }

    /// The records' bytes as they are uploaded (64 B or 56 B per instance).
    pub fn bytes(&self) -> &'a [u8] {
        match *self {
            Records::Cpu(r) => bytemuck::cast_slice(r),
            Records::Gpu { records, .. } => bytemuck::cast_slice(records),
        }
    }
}

/// What an upload kept across frames needs from a runtime: every record, and — GPU-timed —
/// the records rewritten since the runtime's changes were last cleared (each changed instance
/// once, with its latest record), which alone need sending once the upload holds the rest.
#[derive(Debug, Clone, Copy)]
pub struct RecordChanges<'a> {
    pub records: Records<'a>,
    /// `None` when every record changes every frame (CPU-timed).
    pub writes: Option<&'a [GpuRecordWrite]>,
}

impl Timing {
    /// Bytes of one instance's record in this timing (the stride of the record buffer).
    pub const fn record_bytes(self) -> usize {
        match self {
            Timing::Cpu => std::mem::size_of::<InstanceRecord>(),
            Timing::Gpu => std::mem::size_of::<GpuInstanceRecord>(),
        }
    }
}
