//! The messages a crowd sends each frame: clip events, one-shot completions and graph state
//! events of its instances (each naming the crowd, the instance entity when it has one, and
//! the runtime handle). Names are shared strings from tables made once per crowd (when its
//! asset loads, when its graph is parsed): sending an event allocates nothing.

use std::sync::Arc;

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
    pub clip: throng_runtime::ClipId,
    /// The event's index in the clip's events.
    pub event: u32,
    /// The event's name as baked.
    pub name: Arc<str>,
    /// Runtime time of the crossing, seconds since the crowd's runtime started.
    pub time: f64,
}

/// A one-shot (once/clamp) clip of an instance reached its end.
#[derive(Message, Debug, Clone, PartialEq)]
pub struct ThrongFinished {
    pub crowd: Entity,
    pub entity: Option<Entity>,
    pub handle: throng_runtime::Handle,
    pub clip: throng_runtime::ClipId,
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
    /// The state, and its name.
    pub state: throng_graph::StateId,
    pub state_name: Arc<str>,
    /// The event (`Graph::event_name`), and its name.
    pub event: throng_graph::EventId,
    pub event_name: Arc<str>,
    /// Entered (else left).
    pub enter: bool,
}

/// Every clip event name of an asset, made once when the asset loads.
#[derive(Debug, Default)]
pub(crate) struct ClipEventNames(Vec<Vec<Arc<str>>>);

impl ClipEventNames {
    pub(crate) fn of(baked: &BakedAsset) -> ClipEventNames {
        ClipEventNames(
            (baked.clips.iter())
                .map(|c| {
                    c.events
                        .iter()
                        .map(|e| Arc::from(e.name.as_str()))
                        .collect()
                })
                .collect(),
        )
    }

    /// The name of event `event` of clip `clip` (empty past the table).
    pub(crate) fn get(&self, clip: throng_runtime::ClipId, event: u32) -> Arc<str> {
        (self.0.get(clip.index()))
            .and_then(|c| c.get(event as usize))
            .cloned()
            .unwrap_or_else(|| Arc::from(""))
    }
}
