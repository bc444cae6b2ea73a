//! The world's animation-curve key table, seen from outside (for tests and diagnostics).

use super::MotionWorld;

impl MotionWorld {
    /// Keys the world's curve key table has memory for (CPU side). It grows as curve
    /// motions are added and shrinks with hysteresis as they end; 0 for a world that never
    /// held a curve or whose curves have all ended (after the next update or settle).
    #[must_use]
    pub fn curve_key_capacity(&self) -> usize {
        self.table.rows.curves.capacity()
    }

    /// Keys of live curve motions in the world's key table. A motion's keys are freed when
    /// it completes (unless preserved), is cancelled, or the world is cleared.
    #[must_use]
    pub fn curve_keys_in_use(&self) -> usize {
        self.table.rows.curves.in_use()
    }
}
