//! Typed ids of a graph's parameters, states and state events: found by name once (or handed
//! out by [`crate::GraphBuilder`]), then used by index. A parameter id carries its kind in its
//! type, so a float is set with an `f32`, a trigger fired, and a setter of the wrong kind does
//! not compile. Ids index one graph: one of another graph is refused where the index or the
//! kind does not match (never a panic).

use std::fmt;
use std::marker::PhantomData;

use crate::file::ParamKind;

/// The kinds of parameter as types, for [`ParamId`].
pub mod kind {
    /// A float parameter (finite values).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Float;
    /// An int parameter (magnitude at most [`crate::MAX_INT`]).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Int;
    /// A bool parameter.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Bool;
    /// A trigger: a bool the transition it fires sets back to false.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct Trigger;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::kind::Float {}
    impl Sealed for super::kind::Int {}
    impl Sealed for super::kind::Bool {}
    impl Sealed for super::kind::Trigger {}
}

/// One of the four [`kind`]s; the value a parameter of it holds is `Value`, kept as an f32
/// (ints exact to 2^24, bools and triggers 0 or 1).
pub trait Kind: sealed::Sealed + Copy + 'static {
    const KIND: ParamKind;
    type Value: Copy + fmt::Debug;
    /// The value of a kept f32.
    fn decode(kept: f32) -> Self::Value;
}

/// A kind whose parameters place blend spaces and compare with numbers (float, int).
pub trait Numeric: Kind {}
impl Numeric for kind::Float {}
impl Numeric for kind::Int {}

impl Kind for kind::Float {
    const KIND: ParamKind = ParamKind::Float;
    type Value = f32;
    fn decode(kept: f32) -> f32 {
        kept
    }
}

impl Kind for kind::Int {
    const KIND: ParamKind = ParamKind::Int;
    type Value = i32;
    fn decode(kept: f32) -> i32 {
        kept as i32
    }
}

impl Kind for kind::Bool {
    const KIND: ParamKind = ParamKind::Bool;
    type Value = bool;
    fn decode(kept: f32) -> bool {
        kept != 0.0
    }
}

impl Kind for kind::Trigger {
    const KIND: ParamKind = ParamKind::Trigger;
    type Value = bool;
    fn decode(kept: f32) -> bool {
        kept != 0.0
    }
}

/// A parameter of kind `K` (its index in [`crate::Graph::parameters`]).
pub struct ParamId<K> {
    index: u32,
    kind: PhantomData<fn() -> K>,
}

// derives would ask `K` for the same traits
impl<K> Clone for ParamId<K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<K> Copy for ParamId<K> {}
impl<K> PartialEq for ParamId<K> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<K> Eq for ParamId<K> {}
impl<K> std::hash::Hash for ParamId<K> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state)
    }
}
impl<K: Kind> fmt::Debug for ParamId<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ParamId<{}>({})", K::KIND.name(), self.index)
    }
}

impl<K: Kind> ParamId<K> {
    pub(crate) fn new(index: usize) -> ParamId<K> {
        ParamId {
            index: index as u32,
            kind: PhantomData,
        }
    }

    /// Index in [`crate::Graph::parameters`].
    pub fn index(self) -> usize {
        self.index as usize
    }

    /// The same parameter with its kind known only at run time.
    pub fn erase(self) -> Param {
        Param {
            index: self.index,
            kind: K::KIND,
        }
    }
}

impl<K: Kind> From<ParamId<K>> for Param {
    fn from(p: ParamId<K>) -> Param {
        p.erase()
    }
}

/// A parameter whose kind is known only at run time (a tool listing a graph's parameters);
/// [`Param::typed`] gives the [`ParamId`] the setters take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Param {
    index: u32,
    kind: ParamKind,
}

impl Param {
    pub(crate) fn new(index: usize, kind: ParamKind) -> Param {
        Param {
            index: index as u32,
            kind,
        }
    }

    /// Index in [`crate::Graph::parameters`].
    pub fn index(self) -> usize {
        self.index as usize
    }

    pub fn kind(self) -> ParamKind {
        self.kind
    }

    /// The typed id, if the parameter is of kind `K`.
    pub fn typed<K: Kind>(self) -> Option<ParamId<K>> {
        (self.kind == K::KIND).then(|| ParamId::new(self.index as usize))
    }
}

/// A state of a graph (its index in [`crate::Graph::states`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateId(pub(crate) u16);

impl StateId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A state event name of a graph (its index in [`crate::Graph::events`]); a front end makes
/// its own table of them once ([`crate::Graph::event_name`]) instead of a string per event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId(pub(crate) u32);

impl EventId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
