//! [`Instance`]: the playback calls of one instance, each written once as the
//! [`PlaybackCommand`] it sends (docs/design.md §4). Chained, each call returns the instance
//! again or the first error: `rt.instance(h).crossfade(run, 0.3)?.speed(1.2)?`.

use crate::{ClipId, Handle, PlayOptions, PlaybackCommand, PlaybackControl, RuntimeError};

/// The playback calls of instance `h` of a runtime (`rt.instance(h)` of each runtime, or
/// [`Instance::of`] in code generic over runtimes). Where the GPU-timed mode differs (two layers; no root motion)
/// the call says so.
pub struct Instance<'a, R: PlaybackControl + ?Sized> {
    pub(crate) rt: &'a mut R,
    pub(crate) h: Handle,
}

impl<'a, R: PlaybackControl + ?Sized> Instance<'a, R> {
    /// Instance `h` of `rt` (each runtime's own `instance(h)` says the same).
    pub fn of(rt: &'a mut R, h: Handle) -> Instance<'a, R> {
        Instance { rt, h }
    }

    /// The instance's handle.
    pub fn handle(&self) -> Handle {
        self.h
    }

    /// Sends one playback change (what every call below does with its command).
    pub fn apply(self, command: PlaybackCommand) -> Result<Self, RuntimeError> {
        self.rt.command(self.h, command)?;
        Ok(self)
    }

    /// Plays `clip` from `opts.start_time`, replacing all layers (no fade).
    pub fn play(self, clip: ClipId, opts: PlayOptions) -> Result<Self, RuntimeError> {
        self.apply(PlaybackCommand::Play {
            clip,
            options: opts,
        })
    }

    /// Crossfades to `clip` over `seconds` of clock time (linear weights), the outgoing layers
    /// playing on while they fade. See [`Self::crossfade_with`].
    pub fn crossfade(self, clip: ClipId, seconds: f32) -> Result<Self, RuntimeError> {
        self.crossfade_with(clip, seconds, PlayOptions::default())
    }

    /// Crossfade with play options. The weights shown now become the outgoing layers' start
    /// weights and fade linearly to 0 while the new layer rises to 1. CPU-timed: a 5th layer is
    /// never needed — with 4 in use the faintest outgoing layer is dropped and the others
    /// renormalised. GPU-timed (two layers): crossfading during a crossfade or blend keeps the
    /// stronger layer as the outgoing one; fades last at most [`crate::gpu::MAX_FADE_S`].
    pub fn crossfade_with(
        self,
        clip: ClipId,
        seconds: f32,
        opts: PlayOptions,
    ) -> Result<Self, RuntimeError> {
        self.apply(PlaybackCommand::Crossfade {
            clip,
            seconds,
            options: opts,
        })
    }

    /// Two-clip blend in normalised time (e.g. walk/run): weight `w` of `b`, `1 − w` of `a`.
    /// Both layers complete a cycle together in `lerp(d_a, d_b, w)` seconds. Calling it again
    /// with the same clips changes the weight and keeps the phase. Each layer's sync factor
    /// `d_x / lerp(d_a, d_b, w)` is stored as an f32, so the two phases may drift apart by
    /// ~1e-7 of the cycles played (0.15 frames after a day of a 1 s cycle at 30 fps).
    pub fn blend(self, a: ClipId, b: ClipId, w: f32) -> Result<Self, RuntimeError> {
        self.apply(PlaybackCommand::Blend { a, b, weight: w })
    }

    /// Plays `clip` as an *overlay* layer (docs/design.md §4 "Layer masks and additive
    /// layers") over the instance's base layers, at `weight` ∈ [0, 1], under mask number
    /// `mask` (1 ..= [`throng_contract::MAX_MASKS`]: the asset's mask `mask − 1`, see
    /// `BakedAsset::find_mask`; 0 = none, allowed for an additive clip). The base layers keep
    /// their weights. Calling it again with the same clip and mask changes the weight and keeps
    /// the phase; otherwise the layer is added (at most 4 layers in all). `play`, `blend` and
    /// a finished crossfade replace overlays (changing a blend's weight keeps them); a running
    /// crossfade fades them out with the outgoing clips. GPU-timed: the overlay is layer 1 and
    /// the base (of a crossfade, the clip that weighs more) keeps its full weight; it replaces
    /// a blend's second clip or a running crossfade. Masks and additive layers are drawn by
    /// the palette path (LBS and DQ).
    pub fn layer(
        self,
        clip: ClipId,
        mask: u32,
        weight: f32,
        opts: PlayOptions,
    ) -> Result<Self, RuntimeError> {
        self.apply(PlaybackCommand::Layer {
            clip,
            mask,
            weight,
            options: opts,
        })
    }

    /// Instance speed multiplier (0 to [`crate::MAX_SPEED`]), applied to every layer.
    pub fn speed(self, speed: f32) -> Result<Self, RuntimeError> {
        self.apply(PlaybackCommand::Speed(speed))
    }

    /// Freezes clip time (the record keeps showing the pose). CPU-timed: crossfades and root
    /// motion stop too; GPU-timed: crossfades keep running on the clock.
    pub fn pause(self) -> Result<Self, RuntimeError> {
        self.apply(PlaybackCommand::Pause)
    }

    pub fn resume(self) -> Result<Self, RuntimeError> {
        self.apply(PlaybackCommand::Resume)
    }

    /// Jumps the newest layer to clip time `seconds` (a blend: both layers to normalised time
    /// `seconds / lerp(d_a, d_b, w)`). Events between are not fired; an event at exactly
    /// `seconds` fires on the next update. A finished one-shot restarts at clip speed 1 (its
    /// speed is not kept once it ends; `play` it to choose another).
    pub fn seek(self, seconds: f32) -> Result<Self, RuntimeError> {
        self.apply(PlaybackCommand::Seek(seconds))
    }

    /// Disabled instances show the rest row (all weights 0). CPU-timed they do not advance
    /// (clip time, fades and root motion stand still); GPU-timed time keeps running.
    pub fn enabled(self, enabled: bool) -> Result<Self, RuntimeError> {
        self.apply(PlaybackCommand::Enable(enabled))
    }

    /// Whether the newest layer is a one-shot that has reached its end.
    pub fn is_finished(&self) -> Result<bool, RuntimeError> {
        self.rt.is_finished(self.h)
    }
}

impl<R: PlaybackControl + ?Sized> std::fmt::Debug for Instance<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instance").field("handle", &self.h).finish()
    }
}

impl<'r> dyn PlaybackControl + 'r {
    /// The playback calls of instance `h` of a runtime behind a trait object.
    pub fn instance(&mut self, h: Handle) -> Instance<'_, dyn PlaybackControl + 'r> {
        Instance { rt: self, h }
    }
}
