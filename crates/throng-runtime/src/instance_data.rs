//! Per-instance data a [`crate::Runtime`] keeps in its own dense order (docs/design.md §4
//! "One instance store"): what a front end attaches (an animation graph's state and
//! parameters, its own per-instance values) follows every `spawn` and `despawn` the runtime
//! makes, whoever calls them, so no front end keeps arrays in step with the runtime by hand.
//!
//! A type opts in by implementing [`InstanceData`]: an entry appended per spawn, a swap-remove
//! per despawn (the runtime moves its last instance into the freed index, and so must the
//! data). [`PerInstance`] is a ready one for plain values.

use std::any::Any;

/// Data with one entry per instance of a runtime, in the runtime's dense order.
pub trait InstanceData: Send + Sync + 'static {
    /// An instance was spawned: append its entry (its dense index is the old count).
    fn push_instance(&mut self);

    /// The instance at dense index `index` was despawned: remove its entry, moving the last
    /// entry into `index`.
    fn swap_remove_instance(&mut self, index: usize);

    /// Entries held (the runtime's instance count while attached).
    fn instance_count(&self) -> usize;
}

/// A plain value per instance (`T::default()` for a new one): a front end's own per-instance
/// data, e.g. which game object an instance stands for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PerInstance<T> {
    values: Vec<T>,
}

impl<T: Default + Clone + Send + Sync + 'static> PerInstance<T> {
    /// `len` default values (attach it to a runtime of `len` instances).
    pub fn new(len: usize) -> PerInstance<T> {
        PerInstance {
            values: vec![T::default(); len],
        }
    }

    /// Every value in dense order.
    pub fn values(&self) -> &[T] {
        &self.values
    }

    pub fn get(&self, index: usize) -> Option<&T> {
        self.values.get(index)
    }

    pub fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        self.values.get_mut(index)
    }
}

impl<T: Default + Clone + Send + Sync + 'static> InstanceData for PerInstance<T> {
    fn push_instance(&mut self) {
        self.values.push(T::default());
    }

    fn swap_remove_instance(&mut self, index: usize) {
        if index < self.values.len() {
            self.values.swap_remove(index);
        }
    }

    fn instance_count(&self) -> usize {
        self.values.len()
    }
}

/// [`InstanceData`] that can be found again by its type.
pub(crate) trait Attached: InstanceData {
    fn any(&self) -> &dyn Any;
    fn any_mut(&mut self) -> &mut dyn Any;
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

// by hand: upcasting `dyn Attached` to `dyn Any` needs Rust 1.86, the crate's minimum is 1.85
impl<T: InstanceData> Attached for T {
    fn any(&self) -> &dyn Any {
        self
    }
    fn any_mut(&mut self) -> &mut dyn Any {
        self
    }
    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// A change to the dense order while an attachment is lent out ([`crate::Runtime::with_data`]),
/// replayed into it when it comes back.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Moved {
    Spawned,
    Despawned(usize),
}

/// The attachments of one runtime.
#[derive(Default)]
pub(crate) struct AttachedData {
    items: Vec<Box<dyn Attached>>,
    /// Spawns and despawns since the first attachment still lent out was lent (empty when none
    /// is lent).
    journal: Vec<Moved>,
    lent: usize,
}

impl AttachedData {
    pub fn spawned(&mut self) {
        for d in &mut self.items {
            d.push_instance();
        }
        if self.lent > 0 {
            self.journal.push(Moved::Spawned);
        }
    }

    pub fn despawned(&mut self, index: usize) {
        for d in &mut self.items {
            d.swap_remove_instance(index);
        }
        if self.lent > 0 {
            self.journal.push(Moved::Despawned(index));
        }
    }

    fn position<T: InstanceData>(&self) -> Option<usize> {
        self.items.iter().position(|d| d.any().is::<T>())
    }

    /// Attaches `data` (replacing one of the same type); `false` when its count is not `len`.
    pub fn attach<T: InstanceData>(&mut self, data: T, len: usize) -> bool {
        if data.instance_count() != len {
            return false;
        }
        self.detach::<T>();
        self.items.push(Box::new(data));
        true
    }

    pub fn detach<T: InstanceData>(&mut self) -> Option<T> {
        let k = self.position::<T>()?;
        let any = self.items.swap_remove(k).into_any();
        any.downcast::<T>().ok().map(|b| *b)
    }

    pub fn get<T: InstanceData>(&self) -> Option<&T> {
        self.items.iter().find_map(|d| d.any().downcast_ref::<T>())
    }

    pub fn get_mut<T: InstanceData>(&mut self) -> Option<&mut T> {
        (self.items.iter_mut()).find_map(|d| d.any_mut().downcast_mut::<T>())
    }

    /// Takes the `T` out to lend it; the journal records the dense order's changes until it
    /// comes back ([`Self::give_back`]).
    pub fn lend<T: InstanceData>(&mut self) -> Option<(Box<dyn Attached>, usize)> {
        let k = self.position::<T>()?;
        self.lent += 1;
        Some((self.items.swap_remove(k), self.journal.len()))
    }

    /// Replays what changed since `mark` into a lent attachment and keeps it again, unless
    /// data of its type was attached while it was lent (`replaced`: the newer one stays).
    pub fn give_back(&mut self, mut item: Box<dyn Attached>, mark: usize, replaced: bool) {
        if !replaced {
            for m in &self.journal[mark.min(self.journal.len())..] {
                match *m {
                    Moved::Spawned => item.push_instance(),
                    Moved::Despawned(i) => item.swap_remove_instance(i),
                }
            }
            self.items.push(item);
        }
        self.lent = self.lent.saturating_sub(1);
        if self.lent == 0 {
            self.journal.clear();
        }
    }
}
