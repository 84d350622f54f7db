//! Stable generational handles over a dense struct-of-arrays store.
//!
//! Instances live densely in `0..len` (so the record and transform slices handed to the
//! renderer contain live instances only); a handle names a *slot* whose entry points at the
//! current dense index. Despawn swap-removes the dense arrays and repoints the moved
//! instance's slot, so no other handle is invalidated. A slot's generation is bumped on
//! despawn, so stale handles are detected instead of aliasing a new instance.

/// Handle of one instance. Stays valid until that instance is despawned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Handle {
    pub(crate) slot: u32,
    pub(crate) generation: u32,
}

impl Handle {
    /// Slot index (stable for the instance's lifetime; reused after despawn).
    pub fn slot(&self) -> u32 {
        self.slot
    }

    pub fn generation(&self) -> u32 {
        self.generation
    }
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    generation: u32,
    /// Dense index while alive, `u32::MAX` while free.
    dense: u32,
}

/// Slot table: handle → dense index, dense index → slot.
///
/// Until the first despawn, slot k holds dense index k at generation 0 (slots are handed out
/// in order and none is reused), so a lookup needs no table read: in a store of a million
/// instances that read is a cache miss, one of the two lines a scattered GPU-timed change
/// would touch (docs/design.md §4 "GPU-timed records").
#[derive(Debug, Clone)]
pub(crate) struct Handles {
    slots: Vec<Slot>,
    free: Vec<u32>,
    dense_to_slot: Vec<u32>,
    /// No instance has been despawned: every live handle is `(k, 0)` at dense index k.
    identity: bool,
}

impl Default for Handles {
    fn default() -> Self {
        Handles {
            slots: Vec::new(),
            free: Vec::new(),
            dense_to_slot: Vec::new(),
            identity: true,
        }
    }
}

/// What a despawn did to the dense arrays.
pub(crate) struct Removed {
    /// Dense index that was vacated (the caller swap-removes its arrays at this index).
    pub index: usize,
}

impl Handles {
    pub fn len(&self) -> usize {
        self.dense_to_slot.len()
    }

    /// Reserves room for `additional` more handles.
    pub fn reserve(&mut self, additional: usize) {
        let fresh = additional.saturating_sub(self.free.len());
        crate::hugepage::reserve(&mut self.slots, fresh);
        self.dense_to_slot.reserve(additional);
    }

    /// Allocates a handle whose dense index is the current length.
    pub fn spawn(&mut self) -> Handle {
        let dense = self.dense_to_slot.len() as u32;
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize].dense = dense;
                s
            }
            None => {
                // looked up at random by every change: huge pages when large
                crate::hugepage::reserve(&mut self.slots, 1);
                self.slots.push(Slot {
                    generation: 0,
                    dense,
                });
                (self.slots.len() - 1) as u32
            }
        };
        self.dense_to_slot.push(slot);
        Handle {
            slot,
            generation: self.slots[slot as usize].generation,
        }
    }

    /// Dense index of a live handle.
    #[inline]
    pub fn index(&self, h: Handle) -> Option<usize> {
        if self.identity {
            // the same answer as the table's (see the type's docs), without reading it
            return (h.generation == 0 && (h.slot as usize) < self.dense_to_slot.len())
                .then_some(h.slot as usize);
        }
        let s = self.slots.get(h.slot as usize)?;
        (s.generation == h.generation && s.dense != u32::MAX).then_some(s.dense as usize)
    }

    /// Dense index of a live handle, or the runtimes' error for a dead one.
    pub fn live(&self, h: Handle) -> Result<usize, crate::RuntimeError> {
        self.index(h)
            .ok_or(crate::RuntimeError::DeadHandle { handle: h })
    }

    /// Handle of the instance at a dense index, `None` past the end.
    pub fn get(&self, index: usize) -> Option<Handle> {
        (index < self.len()).then(|| self.handle_at(index))
    }

    /// [`Self::despawn`], the runtimes' error for a dead handle: the vacated dense index.
    pub fn remove(&mut self, h: Handle) -> Result<usize, crate::RuntimeError> {
        self.despawn(h)
            .map(|r| r.index)
            .ok_or(crate::RuntimeError::DeadHandle { handle: h })
    }

    /// Prefetches the slot entry of a handle (see `prefetch.rs`).
    pub fn prefetch(&self, h: Handle) {
        if self.identity {
            return; // `index` reads no table
        }
        crate::prefetch::prefetch(self.slots.as_ptr().wrapping_add(h.slot as usize), 8);
    }

    /// Handle of the instance at a dense index.
    pub fn handle_at(&self, index: usize) -> Handle {
        if self.identity && index < self.dense_to_slot.len() {
            return Handle {
                slot: index as u32,
                generation: 0,
            };
        }
        let slot = self.dense_to_slot[index];
        Handle {
            slot,
            generation: self.slots[slot as usize].generation,
        }
    }

    /// Frees a live handle; the caller must `swap_remove(index)` every dense array.
    pub fn despawn(&mut self, h: Handle) -> Option<Removed> {
        let index = self.index(h)?;
        self.identity = false;
        let last = self.dense_to_slot.len() - 1;
        self.dense_to_slot.swap_remove(index);
        if index != last {
            let moved = self.dense_to_slot[index];
            self.slots[moved as usize].dense = index as u32;
        }
        let s = &mut self.slots[h.slot as usize];
        s.generation = s.generation.wrapping_add(1);
        s.dense = u32::MAX;
        self.free.push(h.slot);
        Some(Removed { index })
    }
}

/// The handle lookups both runtimes offer, over their `handles: Handles` field: written once
/// here so that `CpuRuntime` and `GpuRuntime` answer them the same way.
macro_rules! instance_lookup {
    ($runtime:ty) => {
        impl $runtime {
            /// Whether `h` names a live instance (not despawned, not a stale generation).
            pub fn contains(&self, h: Handle) -> bool {
                self.handles.index(h).is_some()
            }

            /// Dense index of an instance in the records and `transforms()` (changes when another
            /// instance is despawned).
            pub fn index(&self, h: Handle) -> Option<usize> {
                self.handles.index(h)
            }

            /// Handle of the instance at a dense index (`None` past the end).
            pub fn handle_at(&self, index: usize) -> Option<Handle> {
                self.handles.get(index)
            }

            fn idx(&self, h: Handle) -> Result<usize, RuntimeError> {
                self.handles.live(h)
            }
        }
    };
}
pub(crate) use instance_lookup;

#[cfg(test)]
mod tests {
    use super::*;

    /// The table-free lookup before the first despawn answers as the table does after it.
    #[test]
    fn identity_lookup_matches_the_table() {
        let mut h = Handles::default();
        let hs: Vec<Handle> = (0..5).map(|_| h.spawn()).collect();
        let probes = [
            Handle {
                slot: 2,
                generation: 0,
            },
            Handle {
                slot: 2,
                generation: 1,
            },
            Handle {
                slot: 5,
                generation: 0,
            },
            Handle {
                slot: u32::MAX,
                generation: 0,
            },
        ];
        assert_eq!(probes.map(|p| h.index(p)), [Some(2), None, None, None]);
        assert!(hs.iter().enumerate().all(|(k, &x)| h.index(x) == Some(k)));
        assert_eq!(h.despawn(hs[1]).map(|r| r.index), Some(1));
        assert!(!h.identity);
        assert_eq!(h.index(hs[1]), None, "despawned");
        assert_eq!(h.index(hs[4]), Some(1), "moved into the vacated index");
        assert_eq!(h.index(hs[2]), Some(2));
        let again = h.spawn();
        assert_eq!(
            (again.slot, again.generation),
            (1, 1),
            "slot reused, new generation"
        );
        assert_eq!(h.index(again), Some(4));
        assert_eq!(
            h.index(Handle {
                slot: 1,
                generation: 0
            }),
            None,
            "stale"
        );
    }
}
