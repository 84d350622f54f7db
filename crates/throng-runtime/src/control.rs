//! The [`crate::PlaybackControl`] calls that `CpuRuntime` and `GpuRuntime` answer alike, from
//! fields of the same name and meaning in both (`handles`, `clock`, `clips`, `transforms`,
//! `events`, `finished`): written once here, as `crate::handle::instance_lookup!` writes the
//! handle lookups, so that the two impls cannot drift apart.

/// Expands, inside `impl PlaybackControl for` a runtime, to its calls that only read those
/// fields.
macro_rules! answered_alike {
    () => {
        fn index(&self, h: $crate::Handle) -> Option<usize> {
            self.handles.index(h)
        }

        fn handle_at(&self, index: usize) -> Option<$crate::Handle> {
            self.handles.get(index)
        }

        fn len(&self) -> usize {
            self.handles.len()
        }

        fn time(&self) -> f64 {
            self.clock.seconds()
        }

        /// The clip called `name`; an unknown name is an error listing the clips.
        fn clip(&self, name: &str) -> Result<$crate::ClipId, $crate::RuntimeError> {
            $crate::api::find_clip(name, self.clips.iter().map(|c| c.name.as_str()))
        }

        fn transform(
            &self,
            h: $crate::Handle,
        ) -> Result<$crate::InstanceTransform, $crate::RuntimeError> {
            Ok(self.transforms[self.idx(h)?])
        }

        fn transforms(&self) -> &[$crate::InstanceTransform] {
            &self.transforms
        }

        fn events(&self) -> &[$crate::FiredEvent] {
            &self.events
        }

        fn finished(&self) -> &[$crate::Finished] {
            &self.finished
        }
    };
}
pub(crate) use answered_alike;
