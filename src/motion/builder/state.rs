//! A bind with a state argument (LitMotion's `Bind(state, action)`).

use super::Motion;
use crate::core::handle::MotionHandle;
use crate::core::value::Animatable;
use crate::error::BuildError;
use crate::world::MotionWorld;

impl<T: Animatable> Motion<T> {
    /// Like [`bind`](Self::bind), with the state the bind writes to moved into the motion
    /// and the action a plain `fn`, which cannot capture: nothing is written to a captured
    /// copy by mistake. The state is whatever the action writes through, for example a
    /// channel's sender or an atomic the UI reads.
    ///
    /// UI state that lives on the thread that updates the world needs no bind (and no
    /// `Arc<Mutex<_>>`): write into a host target ([`target`](Self::target)) and read
    /// [`MotionWorld::host_target`] after each update, or read
    /// [`MotionWorld::value`] by handle. docs/semantics.md §6 compares the ways.
    ///
    /// ```
    /// use std::sync::mpsc;
    /// use wgpu_tween::{Motion, MotionWorld};
    ///
    /// let mut world = MotionWorld::new();
    /// let (tx, rx) = mpsc::channel();
    /// Motion::new(0.0f32, 10.0, 1.0).bind_with(&mut world, tx, |tx, v| {
    ///     let _ = tx.send(v); // the receiver may be gone
    /// })?;
    /// world.update(0.5)?;
    /// assert_eq!(rx.try_iter().collect::<Vec<_>>(), [0.0, 5.0]); // immediate bind, then 0.5 s
    ///
    /// // One thread: a host target, read after the update.
    /// let opacity = world.add_host_target(1)?;
    /// Motion::new(0.0f32, 1.0, 1.0).target(opacity.at(0, 1, 0)).run(&mut world)?;
    /// world.update(0.25)?;
    /// assert_eq!(world.host_target(opacity).unwrap()[0], 0.25);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn bind_with<S: Send + 'static>(
        self,
        world: &mut MotionWorld,
        mut state: S,
        action: fn(&mut S, T),
    ) -> Result<MotionHandle, BuildError> {
        self.bind(world, move |value| action(&mut state, value))
    }
}
