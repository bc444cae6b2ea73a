//! World clocks: one f64 accumulator per time kind.

use crate::error::UpdateError;

/// The deltas of one world update, per [`TimeKind`](crate::TimeKind).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeDeltas {
    /// Delta of scaled (game) time, seconds.
    pub scaled: f64,
    /// Delta of unscaled time, seconds.
    pub unscaled: f64,
    /// Delta of real time, seconds.
    pub realtime: f64,
}

impl TimeDeltas {
    /// The same delta for all three kinds, what [`MotionWorld::update`](crate::MotionWorld::update) uses.
    #[must_use]
    pub const fn uniform(dt: f64) -> Self {
        Self {
            scaled: dt,
            unscaled: dt,
            realtime: dt,
        }
    }

    pub(crate) fn validate(&self) -> Result<(), UpdateError> {
        for (kind, value) in [
            ("scaled", self.scaled),
            ("unscaled", self.unscaled),
            ("realtime", self.realtime),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(UpdateError::InvalidDelta { kind, value });
            }
        }
        Ok(())
    }

    const fn as_array(&self) -> [f64; 3] {
        [self.scaled, self.unscaled, self.realtime]
    }
}

/// World time per kind, now and at the previous update (for transitions).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WorldClocks {
    pub now: [f64; 3],
    pub prev: [f64; 3],
}

impl WorldClocks {
    pub fn advance(&mut self, deltas: TimeDeltas) {
        self.prev = self.now;
        for (w, d) in self.now.iter_mut().zip(deltas.as_array()) {
            *w += d;
        }
    }
}
