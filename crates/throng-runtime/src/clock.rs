//! The runtime clock: integer ticks of a fixed rate plus a sub-tick carry.
//!
//! Why ticks: an `f32` seconds accumulator (`t += dt`) stops advancing correctly within hours
//! (at t = 86 400 s an f32 step is 7.8 ms, half a 60 Hz frame), and even an `f64` accumulator
//! drifts by rounding each step. [`Clock`] instead keeps a `u64` count of ticks of
//! [`TICKS_PER_SECOND`] = 2^20 (≈ 0.95 µs) and carries the sub-tick remainder of each step in an
//! `f64` in [0, 1). Every step then rounds only a value below ~2^20 ticks, so after 24 h at
//! 60 Hz (5 184 000 steps) the clock differs from `steps · dt` computed directly by far less
//! than a microsecond (tested in `tests/precision.rs`). A power-of-two rate makes tick ↔ second
//! conversion exact in binary floating point.

/// The clock unit is part of the GPU-timed contract (the GPU reads the low 32 bits of ticks).
pub use throng_contract::{SECONDS_PER_TICK, TICKS_PER_SECOND};

/// The longest one step advances the clock, seconds (11.6 days): a longer `dt` (a clock jump,
/// a caller's bug, `1e30`) counts as this, so the tick count cannot overflow (at 2^20 ticks a
/// second a `u64` lasts 557,000 years of such steps) and no step's work grows with its length.
pub const MAX_STEP_SECONDS: f64 = 1e6;

/// Monotonic clock in ticks. See the module docs for why it is not a float of seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Clock {
    ticks: u64,
    /// Sub-tick remainder in [0, 1) ticks.
    carry: f64,
}

impl Clock {
    pub fn new() -> Clock {
        Clock::default()
    }

    /// Whole ticks elapsed.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// The sub-tick remainder, in [0, 1) ticks.
    pub fn carry(&self) -> f64 {
        self.carry
    }

    /// Elapsed time in seconds including the sub-tick remainder.
    pub fn seconds(&self) -> f64 {
        (self.ticks as f64 + self.carry) * SECONDS_PER_TICK
    }

    /// Advances by `dt` seconds (negative or non-finite values count as 0, longer steps as
    /// [`MAX_STEP_SECONDS`]) and returns the number of whole ticks added.
    pub fn advance(&mut self, dt: f64) -> u64 {
        if !dt.is_finite() || dt <= 0.0 {
            return 0;
        }
        let x = dt.min(MAX_STEP_SECONDS) * TICKS_PER_SECOND as f64 + self.carry;
        let whole = x.floor();
        self.carry = x - whole;
        let whole = whole as u64;
        self.ticks += whole;
        whole
    }
}
