//! The messages a crowd sends each frame: clip events, one-shot completions and graph state
//! events of its instances (each naming the crowd, the instance entity when it has one, and
//! the runtime handle).

use bevy::ecs::message::Message;
use bevy::prelude::*;
use throng_asset::BakedAsset;

/// A clip event crossed by an instance during the last update (fired once per crossing).
#[derive(Message, Debug, Clone, PartialEq)]
pub struct ThrongEvent {
    pub crowd: Entity,
    /// The instance entity; `None` for a batch instance (see `handle`).
    pub entity: Option<Entity>,
    pub handle: throng_runtime::Handle,
    pub clip: usize,
    /// The event's name as baked.
    pub name: String,
    /// Runtime time of the crossing, seconds since the crowd's runtime started.
    pub time: f64,
}

/// A one-shot (once/clamp) clip of an instance reached its end.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct ThrongFinished {
    pub crowd: Entity,
    pub entity: Option<Entity>,
    pub handle: throng_runtime::Handle,
    pub clip: usize,
    pub time: f64,
}

/// A graph state was entered or left by an instance during the last update (the graph's
/// `on_enter` / `on_exit` names).
#[derive(Message, Debug, Clone, PartialEq)]
pub struct ThrongStateEvent {
    pub crowd: Entity,
    /// The instance entity; `None` for a batch instance (see `handle`).
    pub entity: Option<Entity>,
    pub handle: throng_runtime::Handle,
    /// The state's name.
    pub state: String,
    /// The event's name.
    pub event: String,
    /// Entered (else left).
    pub enter: bool,
}

/// The name of event `event` of clip `clip` as baked (empty past the table).
pub(crate) fn clip_event_name(baked: &BakedAsset, clip: u32, event: u32) -> String {
    baked
        .clips
        .get(clip as usize)
        .and_then(|c| c.events.get(event as usize))
        .map(|e| e.name.clone())
        .unwrap_or_default()
}
