//! Which chunks the segment cache serves, and how: a chunk's runs of one ease and loop type
//! ([`Groups`]) and [`Head::classify`], which decides from the rows (and the parameters of
//! parametric eases) whether the chunk takes the cache or the batch path. A child of
//! [`super`], so it shares the cache's private state.

use super::{batch, AdapterMasks, Head, State, CHUNK, MAX_GAP};
use crate::core::curve::ID_CURVE;
use crate::core::ease::{Ease, ID_BACK, ID_BEZIER, ID_ELASTIC, ID_STEPS, PARAMETRIC_BASE};
use crate::core::row::{
    MotionRow, FLAG_ADAPTER_SHIFT, FLAG_CHILD, FLAG_CLOCK_SHIFT, FLAG_EVERY_LOOP_DELAY,
    FLAG_LANES_SHIFT,
};

/// Runs of one ease and loop type a chunk served by the cache may have.
pub(super) const GROUPS: usize = 4;

/// The runs of rows of one ease and loop type of a chunk: run `g` holds rows
/// `start[g]..start[g + 1]` (the last to the chunk's end).
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Groups {
    pub len: u8,
    pub start: [u8; GROUPS],
    pub ease: [u8; GROUPS],
    pub loop_type: [u8; GROUPS],
}

impl Groups {
    /// The rows of run `g`.
    pub fn range(&self, g: usize) -> std::ops::Range<usize> {
        let end = if g + 1 < usize::from(self.len) {
            usize::from(self.start[g + 1])
        } else {
            CHUNK
        };
        usize::from(self.start[g])..end
    }

    /// Whether some run has loop type `lt`.
    pub fn any_loop(&self, lt: u8) -> bool {
        self.loop_type[..usize::from(self.len)].contains(&lt)
    }
}

impl Head {
    /// Decides Fast or Slow from the rows and their parameter lanes `params` (lanes 4 and
    /// 5 of the chunk).
    pub(super) fn classify(&mut self, rows: &[MotionRow], params: [&[[f32; 2]]; 2]) {
        let first = rows[0].flags;
        let (mut differ, mut lanes, mut adapters, mut excluded) = (0u32, 0u32, 0u32, false);
        let (mut gapless, mut every) = (true, false);
        let mut groups = Groups::default();
        let mut key = u32::MAX;
        for (i, r) in rows.iter().enumerate() {
            differ |= (r.flags ^ first) & (0xff << FLAG_CLOCK_SHIFT);
            lanes |= r.flags & (3 << FLAG_LANES_SHIFT);
            adapters |= r.flags & (0xf << FLAG_ADAPTER_SHIFT);
            excluded |= r.flags & FLAG_CHILD != 0;
            // A forward clock (a first-loop delay is over by the first moving segment; an
            // every-loop one is folded into each period, up to `MAX_GAP`); finite loops end
            // their folded segments (`segment::fold_end`).
            let gap = r.flags & FLAG_EVERY_LOOP_DELAY != 0 && r.delay > 0.0;
            every |= gap;
            gapless &= r.speed > 0.0
                && r.speed.is_finite()
                && r.duration > 0.0
                && (!gap || r.delay <= MAX_GAP * r.duration);
            // A parametric ease's steepness comes from its row's parameters.
            let ease = r.flags & 0xff;
            if ease >= PARAMETRIC_BASE {
                let ([a, b], [c, d]) = (params[0][i], params[1][i]);
                let steep = steepness(ease, [a, b, c, d]);
                excluded |= steep.is_nan() || steep > MAX_STEEPNESS;
            }
            // Ease and loop type: a new run where they change.
            if r.flags & 0x3ff != key {
                key = r.flags & 0x3ff;
                let ease = key & 0xff;
                // Circ eases have an infinite slope at their ends, where the segment's
                // rounding (≈1e-6 in x) would show; so may a Bézier's; Steps jump (and
                // curves do), where the rounding would pick the other step.
                let circ = [Ease::InCirc, Ease::OutCirc, Ease::InOutCirc]
                    .iter()
                    .any(|&e| e as u32 == ease);
                let g = usize::from(groups.len);
                excluded |= circ || ease == ID_STEPS || ease >= ID_CURVE || g == GROUPS;
                if g < GROUPS {
                    groups.start[g] = i as u8;
                    groups.ease[g] = ease as u8;
                    groups.loop_type[g] = (key >> 8) as u8;
                    groups.len += 1;
                }
            }
        }
        let fast = differ == 0 && !excluded;
        let kind = (first >> FLAG_CLOCK_SHIFT) as u8;
        // (A folded segment means another thing than a per-loop one: either change drops them.)
        let every = every && gapless;
        let same = self.state == State::Fast
            && (kind, groups) == (self.kind, self.groups)
            && (gapless, every) == (self.derive, self.every);
        if !same {
            // Segments made for other rows (or none): refresh every row on first use.
            self.rebase_at = -1.0;
        }
        (self.kind, self.groups) = (kind, groups);
        self.lanes = batch::lane_count(lanes) as u8;
        self.adapters = if adapters != 0 {
            AdapterMasks::of(rows)
        } else {
            AdapterMasks::default()
        };
        self.parametric = groups.ease[..usize::from(groups.len)]
            .iter()
            .any(|&e| u32::from(e) >= PARAMETRIC_BASE);
        self.derive = gapless;
        self.every = every;
        self.state = if fast { State::Fast } else { State::Slow };
        self.dirty = false;
    }
}

/// The steepest parametric ease the cache takes: the bound on `|dE/dx|` of
/// [`steepness`]. The segment's rounding in `x` (≈1e-6, see `PRECISION_SPAN`) times this stays
/// within the conformance tolerance (1e-4 of the span), as for the steepest standard ease
/// (Elastic, slope ≈ 30); steeper rows keep the batch path. Back's default overshoot has
/// 8.5 (17 InOut), Elastic's default period 28 (42 InOut).
pub(super) const MAX_STEEPNESS: f32 = 64.0;

/// An upper bound of `|dE/dx|` over `[0, 1]` for parametric ease `id` with parameter lanes
/// `p` (as [`ParametricEase::encode`](crate::ParametricEase) writes them); infinite (or NaN)
/// where none is known. InOut modes run the In curve at `u = 2x`: twice the In curve's.
pub(super) fn steepness(id: u32, p: [f32; 4]) -> f32 {
    let in_out = |base: u32| if id == base + 2 { 2.0 } else { 1.0 };
    if (ID_BACK..ID_ELASTIC).contains(&id) {
        // u²((c+1)u − c): |3(c+1)u² − 2cu| ≤ 3|c+1| + 2|c|.
        let c = p[0];
        return (3.0 * (c + 1.0).abs() + 2.0 * c.abs()) * in_out(ID_BACK);
    }
    if (ID_ELASTIC..ID_STEPS).contains(&id) {
        // −a·2^(10u−10)·sin((u−1−s)k), with 2^(10u−10) ≤ 1: ≤ a·(10 ln 2 + |k|).
        let (a, k) = (p[0], p[1]);
        return a.abs() * (10.0 * std::f32::consts::LN_2 + k.abs()) * in_out(ID_ELASTIC);
    }
    if id == ID_BEZIER {
        return bezier_steepness(p);
    }
    f32::INFINITY
}

/// A bound of `dy/dx` of the CSS cubic-bezier `(x1, y1, x2, y2)`: `x'(t)` and `y'(t)` are
/// quadratics with Bernstein coefficients `3·(x1, x2 − x1, 1 − x2)` and the same of `y`. The
/// smaller of two sufficient bounds: `max|y'| / min x'` (the quadratic's exact minimum), and
/// the largest coefficient ratio `|y'ₖ| / x'ₖ` (finite where `x'` vanishes only with `y'`,
/// as at the ends of `ease-in` and `ease-out`).
fn bezier_steepness([x1, y1, x2, y2]: [f32; 4]) -> f32 {
    let xs = [3.0 * x1, 3.0 * (x2 - x1), 3.0 * (1.0 - x2)];
    let ys = [3.0 * y1, 3.0 * (y2 - y1), 3.0 * (1.0 - y2)];
    let [a, b, c] = xs;
    let d = a - 2.0 * b + c;
    let interior = if d > 0.0 && (0.0..=1.0).contains(&((a - b) / d)) {
        (a * c - b * b) / d
    } else {
        f32::INFINITY
    };
    let min_x = a.min(c).min(interior);
    let max_y = ys.iter().fold(0.0f32, |m, y| m.max(y.abs()));
    let by_min = if min_x > 0.0 {
        max_y / min_x
    } else {
        f32::INFINITY
    };
    let by_ratio = xs.iter().zip(&ys).fold(0.0f32, |m, (&x, &y)| {
        let ratio = if y == 0.0 {
            0.0
        } else if x > 0.0 {
            y.abs() / x
        } else {
            f32::INFINITY
        };
        m.max(ratio)
    });
    by_min.min(by_ratio)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ease::{EaseMode, ParametricEase};
    use crate::eval::easing::parametric;

    /// [`steepness`] bounds the slope the reference's eases show (finite differences over a
    /// fine grid, in f64 steps of the f32 function), and is finite for the defaults and the
    /// CSS keywords.
    #[test]
    fn steepness_bounds_the_slope() {
        let modes = [EaseMode::In, EaseMode::Out, EaseMode::InOut];
        let mut eases = Vec::new();
        for mode in modes {
            for overshoot in [1.70158f32, 0.0, 3.0, -1.0, 10.0] {
                eases.push(ParametricEase::Back { mode, overshoot });
            }
            for (amplitude, period) in [(1.0f32, 0.3f32), (2.0, 0.45), (1.0, 1.0), (1.3, 0.15)] {
                eases.push(ParametricEase::Elastic {
                    mode,
                    amplitude,
                    period,
                });
            }
        }
        let keywords = [
            (0.25, 0.1, 0.25, 1.0),
            (0.42, 0.0, 1.0, 1.0),
            (0.0, 0.0, 0.58, 1.0),
            (0.42, 0.0, 0.58, 1.0),
        ];
        for (x1, y1, x2, y2) in keywords.into_iter().chain([
            (0.3, 1.5, 0.7, -0.5),
            (0.1, 0.9, 0.9, 0.1),
            (0.5, 0.0, 0.5, 1.0),
        ]) {
            eases.push(ParametricEase::CubicBezier(x1, y1, x2, y2));
        }
        for ease in eases {
            let (id, p) = ease.encode().expect("valid parameters");
            let bound = steepness(id, p);
            assert!(bound.is_finite(), "{ease:?}");
            let h = 1e-3f32;
            let mut x = h;
            while x < 1.0 - h {
                let slope = (parametric(id, p, x + h) - parametric(id, p, x - h)) / (2.0 * h);
                // (The difference quotient is the slope somewhere within h.)
                assert!(
                    slope.abs() <= bound * 1.001 + 1e-3,
                    "{ease:?} at {x}: {slope} > {bound}"
                );
                x += h;
            }
        }
        // The defaults and keywords are well within the cache's limit.
        let (id, p) = ParametricEase::Back {
            mode: EaseMode::InOut,
            overshoot: 1.70158,
        }
        .encode()
        .expect("valid parameters");
        assert!(steepness(id, p) <= MAX_STEEPNESS);
        // An infinite slope at an end: no bound.
        assert!(bezier_steepness([0.0, 1.0, 1.0, 0.0]).is_infinite());
    }
}
