//! Per-instance appearance beside the playback state (docs/design.md §4 "Appearance"): a
//! [`throng_contract::Appearance`] (tint, material variant, part and prop masks) per instance
//! in the runtime's dense order, and the list of instances changed since the last upload, so a
//! renderer sends bytes in proportion to the changes (16 B per changed instance).
//!
//! A [`crate::Runtime`] keeps one ([`crate::Runtime::appearances`]) and moves it with its
//! instances (docs/design.md §4 "One instance store"); neither timing's update loop touches it.
//! Used on its own (a scene's fixed looks), its owner follows the dense order:
//! [`Appearances::push`] after `spawn`, [`Appearances::swap_remove`] with the index `despawn`
//! freed.

use throng_contract::{Appearance, AppearanceChanges};

use crate::RuntimeError;

/// Appearances of a crowd's instances, dense, with a change list.
#[derive(Debug, Clone, Default)]
pub struct Appearances {
    values: Vec<Appearance>,
    /// Indices changed since [`Self::clear_changes`], each once.
    changed: Vec<u32>,
    /// Bit i: index i is in `changed` (so a second change of it costs nothing).
    marked: Vec<u64>,
    /// The count changed since the last clear: the next upload sends every value.
    all: bool,
}

impl Appearances {
    /// `len` instances of [`Appearance::DEFAULT`] (all to be uploaded).
    pub fn new(len: usize) -> Appearances {
        Appearances::from_values(vec![Appearance::DEFAULT; len])
    }

    /// One appearance per instance, in dense order (all to be uploaded).
    pub fn from_values(values: Vec<Appearance>) -> Appearances {
        Appearances {
            marked: vec![0; values.len().div_ceil(64)],
            values,
            changed: Vec::new(),
            all: true,
        }
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Every appearance in dense order, as uploaded (16 B each).
    pub fn values(&self) -> &[Appearance] {
        &self.values
    }

    /// The appearance of dense index `i`.
    pub fn get(&self, i: usize) -> Option<Appearance> {
        self.values.get(i).copied()
    }

    /// Sets the appearance of dense index `i`; an equal value records no change.
    pub fn set(&mut self, i: usize, a: Appearance) -> Result<(), RuntimeError> {
        let slot = self.values.get_mut(i).ok_or(RuntimeError::BadValue {
            what: "appearance index (past the crowd)",
            value: i as f64,
        })?;
        if *slot != a {
            *slot = a;
            self.mark(i);
        }
        Ok(())
    }

    /// Sets the tint (RGBA8, linear, multiplied with the base colour) of dense index `i`.
    pub fn set_tint(&mut self, i: usize, tint: [u8; 4]) -> Result<(), RuntimeError> {
        self.update(i, |a| a.with_tint(tint))
    }

    /// Sets the part mask (bit p = primitive p drawn) of dense index `i`.
    pub fn set_parts(&mut self, i: usize, parts: u32) -> Result<(), RuntimeError> {
        self.update(i, |a| a.with_parts(parts))
    }

    /// Sets the material variant (0 = own materials, v = the asset's variant v − 1).
    pub fn set_variant(&mut self, i: usize, variant: u32) -> Result<(), RuntimeError> {
        self.update(i, |a| a.with_variant(variant))
    }

    /// Sets the prop mask (bit k = the crowd's prop k drawn) of dense index `i`.
    pub fn set_props(&mut self, i: usize, props: u32) -> Result<(), RuntimeError> {
        self.update(i, |a| a.with_props(props))
    }

    fn update(
        &mut self,
        i: usize,
        f: impl FnOnce(Appearance) -> Appearance,
    ) -> Result<(), RuntimeError> {
        let a = self.get(i).ok_or(RuntimeError::BadValue {
            what: "appearance index (past the crowd)",
            value: i as f64,
        })?;
        self.set(i, f(a))
    }

    /// Appends an instance's appearance (after the runtime's `spawn`, which appends too).
    pub fn push(&mut self, a: Appearance) {
        self.values.push(a);
        self.marked.resize(self.values.len().div_ceil(64), 0);
        self.all = true;
    }

    /// Removes dense index `i`, moving the last instance into it — what the runtime's
    /// `despawn` does to its instances. Returns the removed appearance.
    pub fn swap_remove(&mut self, i: usize) -> Option<Appearance> {
        if i >= self.values.len() {
            return None;
        }
        self.all = true;
        Some(self.values.swap_remove(i))
    }

    /// What changed since [`Self::clear_changes`], for the renderer's upload.
    pub fn changes(&self) -> AppearanceChanges<'_> {
        AppearanceChanges {
            values: &self.values,
            changed: (!self.all).then_some(self.changed.as_slice()),
        }
    }

    /// Forgets the changes (after they were uploaded); O(changes).
    pub fn clear_changes(&mut self) {
        for &i in &self.changed {
            if let Some(w) = self.marked.get_mut(i as usize / 64) {
                *w &= !(1 << (i % 64));
            }
        }
        self.changed.clear();
        self.all = false;
    }

    fn mark(&mut self, i: usize) {
        if self.all {
            return;
        }
        let (w, bit) = (i / 64, 1u64 << (i % 64));
        if let Some(word) = self.marked.get_mut(w) {
            if *word & bit == 0 {
                *word |= bit;
                self.changed.push(i as u32);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_list_each_changed_instance_once() {
        let mut a = Appearances::new(100);
        assert!(a.changes().changed.is_none(), "first upload sends all");
        a.clear_changes();
        assert_eq!(a.changes().changed, Some(&[][..]));
        a.set_tint(70, [255, 0, 0, 255]).unwrap();
        a.set_parts(70, 0b10).unwrap();
        a.set_variant(3, 1).unwrap();
        a.set_variant(5, 0).unwrap(); // unchanged: no entry
        assert_eq!(a.changes().changed, Some(&[70, 3][..]));
        assert_eq!(
            a.get(70),
            Some(
                Appearance::DEFAULT
                    .with_tint([255, 0, 0, 255])
                    .with_parts(2)
            )
        );
        a.clear_changes();
        a.set_tint(70, [0, 0, 0, 255]).unwrap();
        assert_eq!(a.changes().changed, Some(&[70][..]));
        assert!(a.set_tint(100, [0; 4]).is_err());
    }

    #[test]
    fn despawn_moves_the_last_like_the_runtime() {
        let mut a = Appearances::from_values(
            (0..4)
                .map(|v| Appearance::DEFAULT.with_variant(v))
                .collect(),
        );
        a.clear_changes();
        assert_eq!(a.swap_remove(1).map(|x| x.variant), Some(1));
        assert_eq!(
            a.values().iter().map(|x| x.variant).collect::<Vec<_>>(),
            [0, 3, 2]
        );
        assert!(a.changes().changed.is_none(), "the count changed: all");
        a.push(Appearance::DEFAULT);
        a.clear_changes();
        a.set_variant(3, 9).unwrap();
        assert_eq!(a.changes().changed, Some(&[3][..]));
    }
}
