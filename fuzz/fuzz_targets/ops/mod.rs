//! The byte decoder the embedding-API targets share: an input is read as a sequence of calls,
//! each argument a byte or a value drawn from the edges (0, ±∞, NaN, 1e30, f32::MAX, tiny and
//! negative numbers) or from the input's raw bits, so sequences reach every branch of the
//! argument checks as well as the arithmetic past them.
#![allow(dead_code)]

use throng_asset::{ClipEvent, ClipInfo, LoopMode};
use throng_runtime::{ClipId, PlayOptions, PlaybackCommand};

pub struct Bytes<'a> {
    data: &'a [u8],
}

const EDGES: [f32; 16] = [
    0.0,
    1.0,
    0.5,
    -1.0,
    2.0,
    1e30,
    -1e30,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    f32::MAX,
    1e-30,
    1e6,
    1e12,
    0.25,
    4.0,
];

impl<'a> Bytes<'a> {
    pub fn new(data: &'a [u8]) -> Bytes<'a> {
        Bytes { data }
    }

    pub fn u8(&mut self) -> Option<u8> {
        let (&b, rest) = self.data.split_first()?;
        self.data = rest;
        Some(b)
    }

    /// A byte, 0 past the end (arguments never stop a call half-decoded).
    pub fn arg(&mut self) -> u8 {
        self.u8().unwrap_or(0)
    }

    /// An index below `n` (0 when `n` is 0).
    pub fn pick(&mut self, n: usize) -> usize {
        let b = self.arg() as usize;
        if n == 0 {
            0
        } else {
            b % n
        }
    }

    /// An edge value, or (one time in four) the next four bytes as an f32.
    pub fn value(&mut self) -> f32 {
        let b = self.arg();
        if b & 3 == 3 {
            f32::from_le_bytes([self.arg(), self.arg(), self.arg(), self.arg()])
        } else {
            EDGES[(b >> 2) as usize % EDGES.len()]
        }
    }

    /// A step length: mostly frame-sized, sometimes an edge value.
    pub fn dt(&mut self) -> f64 {
        match self.arg() % 8 {
            0 => 0.0,
            1..=4 => 1.0 / 60.0,
            5 => 0.5,
            _ => self.value() as f64,
        }
    }

    pub fn options(&mut self) -> PlayOptions {
        let modes = [
            None,
            Some(LoopMode::Loop),
            Some(LoopMode::Once),
            Some(LoopMode::Clamp),
            Some(LoopMode::PingPong),
        ];
        PlayOptions {
            speed: self.value(),
            loop_mode: modes[self.pick(modes.len())],
            start_time: self.value(),
        }
    }

    /// A playback command on clips `0..clips + 1` (one past the table: an error to report).
    pub fn command(&mut self, clips: usize) -> PlaybackCommand {
        let clip = self.pick(clips + 1);
        match self.arg() % 9 {
            0 => PlaybackCommand::Play {
                clip: ClipId::new(clip),
                options: self.options(),
            },
            1 => PlaybackCommand::Crossfade {
                clip: ClipId::new(clip),
                seconds: self.value(),
                options: self.options(),
            },
            2 => PlaybackCommand::Blend {
                a: ClipId::new(clip),
                b: ClipId::new(self.pick(clips + 1)),
                weight: self.value(),
            },
            3 => PlaybackCommand::Layer {
                clip: ClipId::new(clip),
                mask: self.arg() as u32 % 3,
                weight: self.value(),
                options: self.options(),
            },
            4 => PlaybackCommand::Speed(self.value()),
            5 => PlaybackCommand::Pause,
            6 => PlaybackCommand::Resume,
            7 => PlaybackCommand::Seek(self.value()),
            _ => PlaybackCommand::Enable(self.arg() & 1 == 1),
        }
    }
}

/// A clip table of every loop mode, a zero-length clip and events at the start, inside and at
/// the end of each clip (so crossings fire on every path).
pub fn clips() -> Vec<ClipInfo> {
    table(
        &[
            ("idle", 2.0, LoopMode::Loop),
            ("jump", 0.75, LoopMode::Once),
            ("land", 0.5, LoopMode::Clamp),
            ("sway", 1.25, LoopMode::PingPong),
            ("pose", 0.0, LoopMode::Loop),
        ],
        &[0.0, 0.4, 1.0],
    )
}

/// Clips of (name, seconds, loop mode) at 30 fps, one after the other in the frame table, each
/// with an event (named as the clip) at each of `at` × its length.
pub fn table(specs: &[(&str, f64, LoopMode)], at: &[f64]) -> Vec<ClipInfo> {
    let mut row = 1;
    specs
        .iter()
        .map(|&(n, d, mode)| {
            let mut c = ClipInfo::uniform(n, row, d, 30.0, mode);
            c.events = (at.iter())
                .map(|&f| ClipEvent {
                    time: (d * f) as f32,
                    name: n.to_string(),
                })
                .collect();
            row += c.frames;
            c
        })
        .collect()
}
