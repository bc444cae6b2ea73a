//! Motions and sequences as plain data (with the `serde` feature, what a data file holds):
//! values and [`MotionSettings`], and sequence steps of one value type.

use std::sync::{Arc, Mutex};

use crate::core::value::Animatable;
use crate::motion::builder::{Motion, MotionSettings};
use crate::motion::sequence::{Sequence, SequenceChild};

/// A motion as data: its values and settings (LitMotion's `SerializableMotionSettings`).
/// [`motion`](Self::motion) makes the [`Motion`], which validates it when run.
///
/// ```
/// use wgpu_tween::{Ease, MotionData, MotionSettings, MotionWorld};
///
/// let data = MotionData {
///     from: 0.0f32,
///     to: 2.0,
///     settings: MotionSettings { ease: Ease::OutQuad, ..MotionSettings::default() },
/// };
/// let mut world = MotionWorld::new();
/// let h = data.motion().run(&mut world)?;
/// world.update(0.5)?;
/// assert_eq!(world.value::<f32>(h)?, 1.5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct MotionData<T> {
    /// The start value.
    pub from: T,
    /// The end value.
    pub to: T,
    /// Everything else ([`MotionSettings::default`] where a data file leaves it out).
    #[cfg_attr(feature = "serde", serde(default))]
    pub settings: MotionSettings,
}

impl<T: Animatable> MotionData<T> {
    /// The motion these values and settings describe.
    pub fn motion(&self) -> Motion<T> {
        Motion::new(self.from, self.to, self.settings.duration).with_settings(&self.settings)
    }
}

/// One step of a [`SequenceData`]: a placement of [`Sequence`] with its motion.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum SequenceStep<T> {
    /// [`Sequence::append`].
    Append(MotionData<T>),
    /// [`Sequence::join`].
    Join(MotionData<T>),
    /// [`Sequence::insert`] at `at` seconds.
    Insert {
        /// The position, seconds.
        at: f32,
        /// The motion.
        motion: MotionData<T>,
    },
    /// [`Sequence::append_interval`].
    Interval(f32),
}

/// A sequence of motions of one value type as data, for example the keyframes of one
/// property. [`sequence`](Self::sequence) makes a [`Sequence`] template whose children all
/// call one bind; configure the sequence itself (ease, loops) with
/// [`Sequence::run_with`].
///
/// ```
/// use std::sync::mpsc;
/// use wgpu_tween::{MotionData, MotionSettings, MotionWorld, SequenceData, SequenceStep};
///
/// let step = |from, to| MotionData { from, to, settings: MotionSettings::default() };
/// let data = SequenceData {
///     steps: vec![
///         SequenceStep::Append(step(0.0f32, 1.0)),
///         SequenceStep::Interval(0.5),
///         SequenceStep::Append(step(1.0, 0.0)),
///     ],
/// };
/// let (tx, rx) = mpsc::channel();
/// let mut world = MotionWorld::new();
/// let seq = data.sequence(move |v| { let _ = tx.send(v); }).run(&mut world)?;
/// assert_eq!(world.total_duration(seq)?, 2.5);
/// world.update(2.0)?; // 0.5 s into the second step
/// assert_eq!(rx.try_iter().last(), Some(0.5));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct SequenceData<T> {
    /// The steps, in placement order.
    pub steps: Vec<SequenceStep<T>>,
}

impl<T: Animatable> SequenceData<T> {
    /// A sequence template of these steps, every child calling `bind` (shared by the
    /// children and by every run).
    pub fn sequence(&self, bind: impl FnMut(T) + Send + 'static) -> Sequence {
        let bind: Box<dyn FnMut(T) + Send> = Box::new(bind);
        let bind = Arc::new(Mutex::new(bind));
        let child = |m: &MotionData<T>| SequenceChild::shared(m.motion(), Arc::clone(&bind));
        self.steps
            .iter()
            .fold(Sequence::new(), |seq, step| match step {
                SequenceStep::Append(m) => seq.append(child(m)),
                SequenceStep::Join(m) => seq.join(child(m)),
                SequenceStep::Insert { at, motion } => seq.insert(*at, child(motion)),
                SequenceStep::Interval(s) => seq.append_interval(*s),
            })
    }
}
