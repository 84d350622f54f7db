//! Per-instance appearance in the main world (docs/design.md §4 "Appearance"): the
//! [`ThrongAppearance`] component of an instance entity, written into the crowd's runtime,
//! which keeps one [`Appearance`] per instance by handle (`Runtime::set_appearance`) with the
//! list of those changed since the render world last uploaded them. The runtime moves them
//! with every spawn and despawn, whoever makes it. The render world
//! ([`crate::render::appearance`]) uploads only the changed instances (16 B each; every
//! instance when the count changed), then [`clear_appearance_changes`] forgets them at the
//! start of the next frame.
//!
//! Prop masks: props in Bevy are entities ([`crate::ThrongProp`], or anything under a
//! [`crate::ThrongAnchor`] child of an instance entity). One that carries a [`ThrongPropBit`]
//! is shown or hidden by its instance's current `props` mask ([`show_props`]).

use bevy::prelude::*;
pub use throng_contract::Appearance;
use throng_runtime::{Appearances, Handle, RuntimeError};

use crate::crowd::{ThrongAnchor, ThrongCrowd, ThrongHandle, ThrongInstance, ThrongProp};

/// What an instance entity looks like: [`Appearance`]'s fields, with the same names and
/// meanings —
/// - `tint`: RGBA8, `c / 255` multiplied with the material's base colour (factor × texture) in
///   linear colour (`[255; 4]` changes nothing);
/// - `parts`: bit `i` set = the asset's primitive `i` is drawn, in the main pass, shadow maps
///   and prepasses alike (a hidden part leaves no pixel and casts no shadow); primitives from
///   32 on are always drawn;
/// - `variant`: 0 = every primitive's own material; `v ≥ 1` = the asset's material variant
///   `v − 1` (`BakedAsset::variants`); past the asset's last variant the own materials
///   ([`crate::render::materials`]);
/// - `props`: bit `k` set = prop `k` shown: an entity following the instance's anchor with
///   a [`ThrongPropBit`] `k` is hidden while the bit is clear (props from 32 on, and
///   followers without a bit, are left alone).
///
/// An instance entity without the component looks like [`Appearance::DEFAULT`]; removing the
/// component leaves the last appearance it set. Changing the
/// component changes that instance only (16 B uploaded). Batch instances (no entity) are set
/// through [`ThrongCrowd::set_appearance`].
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ThrongAppearance {
    pub tint: [u8; 4],
    pub parts: u32,
    pub variant: u32,
    pub props: u32,
}

impl Default for ThrongAppearance {
    fn default() -> Self {
        Appearance::DEFAULT.into()
    }
}

impl ThrongAppearance {
    /// This appearance with `tint` (RGBA8, linear, multiplied with the base colour).
    pub const fn with_tint(self, tint: [u8; 4]) -> Self {
        ThrongAppearance { tint, ..self }
    }
    /// This appearance with part mask `parts` (bit i = primitive i drawn).
    pub const fn with_parts(self, parts: u32) -> Self {
        ThrongAppearance { parts, ..self }
    }
    /// This appearance with material variant `variant` (0 = own materials).
    pub const fn with_variant(self, variant: u32) -> Self {
        ThrongAppearance { variant, ..self }
    }
    /// This appearance with prop mask `props` (bit k = prop k shown).
    pub const fn with_props(self, props: u32) -> Self {
        ThrongAppearance { props, ..self }
    }
}

impl From<Appearance> for ThrongAppearance {
    fn from(a: Appearance) -> Self {
        ThrongAppearance {
            tint: a.tint,
            parts: a.parts,
            variant: a.variant,
            props: a.props,
        }
    }
}

impl From<ThrongAppearance> for Appearance {
    fn from(a: ThrongAppearance) -> Self {
        Appearance {
            tint: a.tint,
            parts: a.parts,
            variant: a.variant,
            props: a.props,
        }
    }
}

impl ThrongCrowd {
    /// Every instance's appearance in the runtime's dense order (index: `runtime().index(h)`),
    /// with the changes the next extract uploads; empty before the asset has loaded.
    pub fn appearances(&self) -> &Appearances {
        static NONE: std::sync::OnceLock<Appearances> = std::sync::OnceLock::new();
        match self.runtime.as_ref() {
            Some(rt) => rt.appearances(),
            None => NONE.get_or_init(Appearances::default),
        }
    }

    /// Sets instance `h`'s appearance (a batch instance's; an entity's follows its
    /// [`ThrongAppearance`]). It reaches the GPU in the frame's extract (16 B).
    pub fn set_appearance(&mut self, h: Handle, a: Appearance) -> Result<(), RuntimeError> {
        match self.runtime.as_mut() {
            Some(rt) => rt.set_appearance(h, a),
            None => Err(RuntimeError::DeadHandle { handle: h }),
        }
    }
}

/// Instances whose appearance is to be written: changed ones, or ones just spawned into the
/// runtime (the component given before the asset loaded).
type AppearanceToApply = Or<(Changed<ThrongAppearance>, Added<ThrongHandle>)>;

/// Keeps every crowd's appearances one per instance, and writes each changed
/// [`ThrongAppearance`] at its instance's dense index.
pub(crate) fn apply_appearances(
    instances: Query<(&ThrongInstance, &ThrongHandle, &ThrongAppearance), AppearanceToApply>,
    mut crowds: Query<&mut ThrongCrowd>,
) {
    for (inst, h, a) in &instances {
        let Ok(mut crowd) = crowds.get_mut(inst.crowd) else {
            continue;
        };
        let Some(rt) = crowd.runtime.as_mut() else {
            continue;
        };
        if let Err(err) = rt.set_appearance(h.0, (*a).into()) {
            warn!("throng: appearance of instance {:?}: {err}", h.0);
        }
    }
}

/// Forgets the appearance changes the render world's extract has uploaded (in `First`, so the
/// changes of a whole frame — `Update` systems and the plugin's `PostUpdate` ones — reach one
/// extract).
pub(crate) fn clear_appearance_changes(mut crowds: Query<&mut ThrongCrowd>) {
    for mut crowd in &mut crowds {
        // read first: a mutable borrow of a crowd marks it changed for Bevy
        let pending = crowd.runtime.as_ref().is_some_and(|rt| {
            !rt.appearances()
                .changes()
                .changed
                .is_some_and(<[u32]>::is_empty)
        });
        if let (true, Some(rt)) = (pending, crowd.runtime.as_mut()) {
            rt.clear_appearance_changes();
        }
    }
}

/// The prop-mask bit of a prop entity: put it beside a [`ThrongProp`] (the instance it
/// follows) or on a [`ThrongAnchor`] child of an instance entity (the instance is its parent).
/// Each frame, after the appearances are applied, the plugin sets the entity's `Visibility` to
/// `Hidden` while the instance's `props` bit `k` is clear and to `Inherited` while it is set —
/// written only when the value differs, so Bevy's change detection sees real changes only. The
/// mask owns the visibility of an entity with a bit (another value is set back the next frame);
/// without the component the entity's visibility is the application's. Bits from 32 on (`throng_contract::MAX_PROP_BITS`) are always shown,
/// as on throng-render's props; an instance not yet in its crowd (asset still loading) shows
/// every prop. Children of the entity follow its visibility (Bevy's `Inherited`).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[require(Visibility)]
pub struct ThrongPropBit(pub u32);

/// The appearance of `instance` in `crowd` (the default when it is not there yet).
fn current_appearance(crowd: &ThrongCrowd, instance: throng_runtime::Handle) -> Appearance {
    (crowd.runtime.as_ref())
        .and_then(|rt| rt.appearance(instance).ok())
        .unwrap_or(Appearance::DEFAULT)
}

/// Visibility of a prop of bit `bit` under appearance `a`.
fn prop_visibility(a: Appearance, bit: u32) -> Visibility {
    if a.shows_prop(bit as usize) {
        Visibility::Inherited
    } else {
        Visibility::Hidden
    }
}

/// A prop entity with its bit: the instance it follows is a [`ThrongProp`]'s, or the parent
/// of a [`ThrongAnchor`].
type PropEntity = (
    &'static ThrongPropBit,
    Option<&'static ThrongProp>,
    Option<(&'static ThrongAnchor, &'static ChildOf)>,
    &'static mut Visibility,
);

/// Shows or hides every entity with a [`ThrongPropBit`] by its instance's prop mask.
pub(crate) fn show_props(
    mut props: Query<PropEntity>,
    instances: Query<(&ThrongInstance, &ThrongHandle)>,
    crowds: Query<&ThrongCrowd>,
) {
    for (bit, prop, anchor, mut visibility) in &mut props {
        let followed = match (prop, anchor) {
            (Some(p), _) => Some((p.crowd, p.instance)),
            (None, Some((_, child_of))) => instances
                .get(child_of.parent())
                .ok()
                .map(|(inst, h)| (inst.crowd, h.0)),
            (None, None) => None,
        };
        let Some((crowd, instance)) = followed else {
            continue;
        };
        let Ok(crowd) = crowds.get(crowd) else {
            continue;
        };
        let want = prop_visibility(current_appearance(crowd, instance), bit.0);
        visibility.set_if_neq(want);
    }
}
