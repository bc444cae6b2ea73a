//! Values as lanes: every animated type maps itself to at most four `f32` lanes plus an
//! interpolation, so one row format (and one GPU dispatch) serves every type.

use glam::{Quat, Vec2, Vec3, Vec4};

/// Up to four `f32` lanes of a value. Unused lanes are 0.
pub(crate) type Lanes = [f32; 4];

/// How a row turns eased progress into lane values. Stored in the row's flags (4 bits):
/// never reorder. Each executor has one arm per kind (`adapt` on the CPU, `evaluate.wgsl` on
/// the GPU).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Interpolation {
    /// `from + (to − from) · p` per lane, unclamped (docs/semantics.md §2).
    #[default]
    Lerp = 0,
    /// Spherical linear interpolation of a unit quaternion (lanes x, y, z, w) along the
    /// shortest arc, at constant angular velocity; the result is renormalized. The builder
    /// puts `to` on the shortest arc and stores the angle in the row's `params` field.
    Slerp = 1,
    /// Normalized lerp of a quaternion along the shortest arc (LitMotion's
    /// `Quaternion.LerpUnclamped`): cheaper than slerp, not constant angular velocity.
    Nlerp = 2,
    /// Punch (docs/semantics.md §5): `from + vib(strength, p)` per lane, where
    /// `vib(A, p) = A·e^(−k·p)·sin(π·f·p)` (0 at p = 0 and 1). Lane pairs hold
    /// `(from, strength)`; lane 3 holds `(f, k)`.
    Punch = 3,
    /// Shake: `from + vib(strength, p)·n`, with `n ∈ [−1, 1)` a hash of the seed (the row's
    /// `params` field), the motion clock and the lane, bit-identical on every executor.
    Shake = 4,
}

impl Interpolation {
    /// The kind stored in `flags` bits (unknown kinds read as lerp).
    #[inline]
    #[must_use]
    pub(crate) fn from_bits(bits: u32) -> Self {
        match bits {
            1 => Interpolation::Slerp,
            2 => Interpolation::Nlerp,
            3 => Interpolation::Punch,
            4 => Interpolation::Shake,
            _ => Interpolation::Lerp,
        }
    }
}

/// How an integer motion rounds its interpolated value (the lanes are interpolated as
/// floats; the rounding happens when the value is converted back to the integer, for binds
/// and [`MotionWorld::value`](crate::MotionWorld::value)). Set it with
/// [`Motion::rounding`](crate::Motion::rounding).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RoundingMode {
    /// Round half to even (banker's rounding): 0.5 → 0, 1.5 → 2, −2.5 → −2. The default.
    #[default]
    ToEven = 0,
    /// Round half away from zero: 0.5 → 1, −0.5 → −1, −2.5 → −3.
    AwayFromZero = 1,
    /// Truncate: 1.9 → 1, −1.9 → −1.
    ToZero = 2,
    /// Ceiling: 1.1 → 2, −1.9 → −1.
    ToPositiveInfinity = 3,
    /// Floor: 1.9 → 1, −1.1 → −2.
    ToNegativeInfinity = 4,
}

impl RoundingMode {
    /// The mode stored in `flags` bits (unknown values read as the default).
    #[inline]
    #[must_use]
    pub(crate) fn from_bits(bits: u32) -> Self {
        match bits {
            1 => RoundingMode::AwayFromZero,
            2 => RoundingMode::ToZero,
            3 => RoundingMode::ToPositiveInfinity,
            4 => RoundingMode::ToNegativeInfinity,
            _ => RoundingMode::ToEven,
        }
    }

    /// Rounds `x` to an integral value by this mode.
    #[inline]
    #[must_use]
    pub fn round(self, x: f64) -> f64 {
        match self {
            RoundingMode::ToEven => x.round_ties_even(),
            RoundingMode::AwayFromZero => x.round(),
            RoundingMode::ToZero => x.trunc(),
            RoundingMode::ToPositiveInfinity => x.ceil(),
            RoundingMode::ToNegativeInfinity => x.floor(),
        }
    }
}

/// A linear-space RGBA color: four lanes, lerped per channel (no gamma handling: convert
/// sRGB colors to linear before animating them if you want perceptually even blends).
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct Color {
    /// Red, linear.
    pub r: f32,
    /// Green, linear.
    pub g: f32,
    /// Blue, linear.
    pub b: f32,
    /// Alpha.
    pub a: f32,
}

impl Color {
    /// Opaque white.
    pub const WHITE: Color = Color::new(1.0, 1.0, 1.0, 1.0);
    /// Opaque black.
    pub const BLACK: Color = Color::new(0.0, 0.0, 0.0, 1.0);
    /// Fully transparent black.
    pub const TRANSPARENT: Color = Color::new(0.0, 0.0, 0.0, 0.0);

    /// A color from linear channels.
    #[must_use]
    pub const fn new(r: f32, g: f32, b: f32, a: f32) -> Self {
        Self { r, g, b, a }
    }
}

/// A type a motion can animate: it maps itself to at most four `f32` lanes.
///
/// Implement it for your own plain-data types:
///
/// ```
/// use wgpu_tween::{Animatable, Interpolation};
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Size { w: f32, h: f32 }
///
/// impl Animatable for Size {
///     const LANES: usize = 2;
///     const INTERPOLATION: Interpolation = Interpolation::Lerp;
///     fn to_lanes(self) -> [f32; 4] { [self.w, self.h, 0.0, 0.0] }
///     fn from_lanes(l: [f32; 4]) -> Self { Size { w: l[0], h: l[1] } }
/// }
/// ```
pub trait Animatable: Copy + Send + 'static {
    /// Lanes in use, 1..=4.
    const LANES: usize;
    /// How the lanes are interpolated.
    const INTERPOLATION: Interpolation;
    /// The value as lanes (unused lanes 0).
    fn to_lanes(self) -> [f32; 4];
    /// The value from lanes.
    fn from_lanes(lanes: [f32; 4]) -> Self;
    /// The value from lanes for a motion built with rounding mode `mode` (see
    /// [`Motion::rounding`](crate::Motion::rounding)). Only integer types round; the
    /// default ignores the mode.
    #[inline]
    fn from_lanes_rounded(lanes: [f32; 4], mode: RoundingMode) -> Self {
        let _ = mode;
        Self::from_lanes(lanes)
    }
}

/// A type that can punch and shake ([`Motion::punch`](crate::Motion::punch),
/// [`Motion::shake`](crate::Motion::shake)): at most three lanes (the fourth holds the
/// vibration's settings).
pub trait Vibrate: Animatable {}
impl Vibrate for f32 {}
impl Vibrate for Vec2 {}
impl Vibrate for Vec3 {}

/// An integer type a motion can animate with a [`RoundingMode`]. Integers (and `f64`) use
/// two lanes: the value split into an `f32` high part and an `f32` residual, each
/// interpolated separately (on either executor), then summed in `f64`; so the end points
/// are exact for `|x| < 2^48` and intermediate values carry about `|to − from| · 2^-24` of
/// error before rounding. The rounding happens when the lanes are converted back (bind,
/// [`MotionWorld::value`](crate::MotionWorld::value)); a GPU target receives the two
/// unrounded lanes.
pub trait Integer: Animatable {}

/// Splits `x` into `hi + lo` with `hi = x as f32` and `lo` the residual as f32.
#[inline]
fn split(x: f64) -> [f32; 2] {
    let hi = x as f32;
    [hi, (x - f64::from(hi)) as f32]
}

/// `hi + lo` in f64.
#[inline]
fn join(lanes: Lanes) -> f64 {
    f64::from(lanes[0]) + f64::from(lanes[1])
}

/// `f64` lerps as two `f32` lanes, a high part and a residual, interpolated separately on
/// either executor and summed in `f64`. End points are exact to about 48 significant bits
/// (not the full 53), and intermediate values carry an error of about `|to − from| · 2^-24`:
/// precise for large offsets with small spans (`1e9 → 1e9 + 10`), not f64-exact in general.
/// A GPU target receives the two lanes (high part, residual), not one number.
impl Animatable for f64 {
    const LANES: usize = 2;
    const INTERPOLATION: Interpolation = Interpolation::Lerp;
    #[inline]
    fn to_lanes(self) -> Lanes {
        let [hi, lo] = split(self);
        [hi, lo, 0.0, 0.0]
    }
    #[inline]
    fn from_lanes(lanes: Lanes) -> Self {
        join(lanes)
    }
}

macro_rules! impl_integer {
    ($($t:ty),*) => {$(
        /// Two lanes (see [`Integer`]); rounded by the motion's [`RoundingMode`]
        /// ([`RoundingMode::ToEven`] unless set), saturating at the type's range.
        impl Animatable for $t {
            const LANES: usize = 2;
            const INTERPOLATION: Interpolation = Interpolation::Lerp;
            #[inline]
            fn to_lanes(self) -> Lanes {
                let [hi, lo] = split(self as f64);
                [hi, lo, 0.0, 0.0]
            }
            #[inline]
            fn from_lanes(lanes: Lanes) -> Self {
                Self::from_lanes_rounded(lanes, RoundingMode::ToEven)
            }
            #[inline]
            fn from_lanes_rounded(lanes: Lanes, mode: RoundingMode) -> Self {
                // `as` saturates (and maps NaN to 0).
                mode.round(join(lanes)) as $t
            }
        }
        impl Integer for $t {}
    )*};
}
impl_integer!(i32, i64);

/// Unit quaternions, slerped along the shortest arc by default
/// ([`Motion::nlerp`](crate::Motion::nlerp) for a normalized lerp). The builder normalizes
/// the end points; a zero quaternion is a build error.
impl Animatable for Quat {
    const LANES: usize = 4;
    const INTERPOLATION: Interpolation = Interpolation::Slerp;
    #[inline]
    fn to_lanes(self) -> Lanes {
        self.to_array()
    }
    #[inline]
    fn from_lanes(lanes: Lanes) -> Self {
        Quat::from_array(lanes)
    }
}

impl Animatable for Color {
    const LANES: usize = 4;
    const INTERPOLATION: Interpolation = Interpolation::Lerp;
    #[inline]
    fn to_lanes(self) -> Lanes {
        [self.r, self.g, self.b, self.a]
    }
    #[inline]
    fn from_lanes(lanes: Lanes) -> Self {
        Color::new(lanes[0], lanes[1], lanes[2], lanes[3])
    }
}

impl Animatable for f32 {
    const LANES: usize = 1;
    const INTERPOLATION: Interpolation = Interpolation::Lerp;
    #[inline]
    fn to_lanes(self) -> Lanes {
        [self, 0.0, 0.0, 0.0]
    }
    #[inline]
    fn from_lanes(lanes: Lanes) -> Self {
        lanes[0]
    }
}

impl Animatable for Vec2 {
    const LANES: usize = 2;
    const INTERPOLATION: Interpolation = Interpolation::Lerp;
    #[inline]
    fn to_lanes(self) -> Lanes {
        [self.x, self.y, 0.0, 0.0]
    }
    #[inline]
    fn from_lanes(lanes: Lanes) -> Self {
        Vec2::new(lanes[0], lanes[1])
    }
}

impl Animatable for Vec3 {
    const LANES: usize = 3;
    const INTERPOLATION: Interpolation = Interpolation::Lerp;
    #[inline]
    fn to_lanes(self) -> Lanes {
        [self.x, self.y, self.z, 0.0]
    }
    #[inline]
    fn from_lanes(lanes: Lanes) -> Self {
        Vec3::new(lanes[0], lanes[1], lanes[2])
    }
}

impl Animatable for Vec4 {
    const LANES: usize = 4;
    const INTERPOLATION: Interpolation = Interpolation::Lerp;
    #[inline]
    fn to_lanes(self) -> Lanes {
        self.to_array()
    }
    #[inline]
    fn from_lanes(lanes: Lanes) -> Self {
        Vec4::from_array(lanes)
    }
}

macro_rules! impl_array {
    ($($n:literal),*) => {$(
        impl Animatable for [f32; $n] {
            const LANES: usize = $n;
            const INTERPOLATION: Interpolation = Interpolation::Lerp;
            #[inline]
            fn to_lanes(self) -> Lanes {
                let mut lanes = [0.0; 4];
                lanes[..$n].copy_from_slice(&self);
                lanes
            }
            #[inline]
            fn from_lanes(lanes: Lanes) -> Self {
                let mut out = [0.0; $n];
                out.copy_from_slice(&lanes[..$n]);
                out
            }
        }
    )*};
}
impl_array!(1, 2, 3, 4);

/// Lerps `lanes` lanes of `(from, to)` pairs at progress `p` (the CPU mirror of the
/// evaluate pass's lerp adapter).
#[inline]
#[must_use]
pub(crate) fn lerp_lanes(pairs: [[f32; 2]; 4], lanes: usize, p: f32) -> Lanes {
    let mut out = [0.0; 4];
    for (o, [from, to]) in out.iter_mut().zip(pairs).take(lanes) {
        *o = lerp(from, to, p);
    }
    out
}

/// Evaluates the adapter of `row` for its lane pairs `pairs` at eased progress `p`, with
/// `w` the world time of the row's time kind (shake noise): the CPU mirror of the evaluate
/// pass's adapters, operation for operation.
#[inline]
#[must_use]
pub(crate) fn row_value(
    row: &crate::core::row::MotionRow,
    pairs: [[f32; 2]; 4],
    p: f32,
    w: f64,
) -> Lanes {
    let lanes = row.lane_count();
    match Interpolation::from_bits(row.adapter_bits()) {
        Interpolation::Lerp => lerp_lanes(pairs, lanes, p),
        Interpolation::Slerp => quat_interpolate(pairs, p, true, f32::from_bits(row.params)),
        Interpolation::Nlerp => quat_interpolate(pairs, p, false, 0.0),
        Interpolation::Punch => vibrate(pairs, lanes, p, None),
        Interpolation::Shake => vibrate(pairs, lanes, p, Some((row.params, noise_clock(row, w)))),
    }
}

/// The clock bits that key the shake noise: the motion clock formed in f32 as
/// `(W_hi − base_hi) · speed` (`base_hi` at speed 0), where `W_hi` is the world time rounded
/// to f32, exactly the high part the GPU receives. Two correctly rounded f32 operations, so
/// both executors get the same bits (a coarser clock than the f64 one, ample for noise).
#[inline]
#[must_use]
pub(crate) fn noise_clock(row: &crate::core::row::MotionRow, w: f64) -> u32 {
    let t = if row.speed == 0.0 {
        row.base_hi
    } else {
        (w as f32 - row.base_hi) * row.speed
    };
    t.to_bits()
}

/// PCG's output permutation of one LCG step: a bijection on u32 with good avalanche.
#[inline]
#[must_use]
pub(crate) fn pcg(v: u32) -> u32 {
    let state = v.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
    let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277_803_737);
    (word >> 22) ^ word
}

/// The shake noise of `lane` for `seed` at clock bits `clock`: `n ∈ [−1, 1)` from 24 hash
/// bits. Only u32 operations and exact float conversions, so the GPU computes the same bits.
#[inline]
#[must_use]
pub fn shake_noise(seed: u32, clock: u32, lane: u32) -> f32 {
    let h = pcg(pcg(seed ^ pcg(clock)) ^ lane);
    (h >> 8) as f32 * (1.0 / 8_388_608.0) - 1.0
}

/// Punch (`noise` None) or shake (`noise` = (seed, clock bits)) of `lanes` lanes of
/// `(from, strength)` pairs, with `(f, k)` in pair 3. Mirrors `vibrate` in evaluate.wgsl.
#[inline]
#[must_use]
fn vibrate(pairs: [[f32; 2]; 4], lanes: usize, p: f32, noise: Option<(u32, u32)>) -> Lanes {
    let [f, k] = pairs[3];
    let scale = if p == 0.0 || p == 1.0 {
        0.0
    } else {
        (-k * p).exp() * (std::f32::consts::PI * f * p).sin()
    };
    let mut out = [0.0; 4];
    for (lane, (o, [from, strength])) in out.iter_mut().zip(pairs).take(lanes).enumerate() {
        let mut v = strength * scale;
        if let Some((seed, clock)) = noise {
            v *= shake_noise(seed, clock, lane as u32);
        }
        *o = from + v;
    }
    out
}

/// Slerp (or nlerp) of the unit quaternions in `pairs` (the builder has already turned
/// `to` onto the shortest arc, so their dot is ≥ 0, and stored the angle `theta` between
/// them), normalized. Slerp takes the weights `sin((1 − p)·θ)·s` and `sin(p·θ)·s` with
/// `s = 1/sin θ` ([`quat_inv_sin`], which the CPU executor keeps per row), or the lerp
/// weights for angles up to [`QUAT_MIN_ANGLE`] (the two rotations are then equal to f32
/// precision); its result is then of unit length up to rounding (|r|² = 1 + ε, ε of a few
/// ulps), so one Newton step from 1, `1.5 − ½·|r|²`, normalizes it to within about ε²
/// instead of a square root and a division. Nlerp (LitMotion's `LerpUnclamped`, |r| down
/// to cos(θ/2)) is normalized in full.
///
/// Kept operation for operation equal to `quat_interpolate` in `shaders/evaluate.wgsl`, but
/// for `sin` (see [`sin_fast`]) and slerp's normalization, which the GPU does in full (its
/// `sin` may be less precise). The CPU executor evaluates quaternion rows eight at a time with
/// the same operations (`quat_block` and `QuatGroup` in `cpu/lanes.rs`, `cpu/lanes_avx2.rs`):
/// keep in sync.
#[must_use]
pub(crate) fn quat_interpolate(pairs: [[f32; 2]; 4], p: f32, slerp: bool, theta: f32) -> Lanes {
    let a = [pairs[0][0], pairs[1][0], pairs[2][0], pairs[3][0]];
    let b = [pairs[0][1], pairs[1][1], pairs[2][1], pairs[3][1]];
    let (mut wa, mut wb) = (1.0 - p, p);
    if slerp && theta > QUAT_MIN_ANGLE {
        let s = quat_inv_sin(theta);
        (wa, wb) = (sin_fast((1.0 - p) * theta) * s, sin_fast(p * theta) * s);
    }
    let mut r = [0.0f32; 4];
    for k in 0..4 {
        r[k] = a[k] * wa + b[k] * wb;
    }
    let len2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3];
    let inv = if slerp {
        1.5 - 0.5 * len2
    } else if len2 > 0.0 {
        1.0 / len2.sqrt()
    } else {
        0.0
    };
    r.map(|x| x * inv)
}

/// `1/sin θ` for a slerp angle `θ` (in `(QUAT_MIN_ANGLE, π/2]`), as [`quat_interpolate`]
/// forms it.
#[inline]
#[must_use]
pub(crate) fn quat_inv_sin(theta: f32) -> f32 {
    1.0 / sin_fast(theta)
}

/// The largest slerp angle for which [`quat_interpolate`] takes the lerp weights (the two
/// rotations are then equal to f32 precision, and `1/sin θ` would overflow at `θ = 0`).
pub(crate) const QUAT_MIN_ANGLE: f32 = 1e-6;

/// The largest `|x|` for which [`sin_fast`] uses its polynomial ([`sin_poly`]).
pub(crate) const SIN_POLY_MAX: f32 = std::f32::consts::FRAC_PI_2;

/// `sin(x)`: a degree-11 Taylor polynomial on `[−π/2, π/2]` (error below 6e-8, about an
/// f32 ulp; every slerp angle of `p ∈ [0, 1]` lies there), `f32::sin` elsewhere. A few times
/// faster than libm's `sinf` on the CPU executor's slerp path; the GPU uses its `sin`.
#[inline]
#[must_use]
pub(crate) fn sin_fast(x: f32) -> f32 {
    if x.abs() <= SIN_POLY_MAX {
        sin_poly(x)
    } else {
        x.sin()
    }
}

/// [`sin_poly`]'s coefficients of `x³`, `x⁵`, …, `x¹¹` (Taylor's, rounded to f32).
pub(crate) const SIN_POLY: [f32; 5] = [
    -1.0 / 6.0,
    1.0 / 120.0,
    -1.0 / 5040.0,
    1.0 / 362_880.0,
    -1.0 / 39_916_800.0,
];

/// [`sin_fast`]'s polynomial alone (only meant for `|x| ≤ SIN_POLY_MAX`): branch-free, so
/// the batched slerp (`cpu::lanes`) runs it in SIMD with the same operations (Horner's
/// scheme, innermost first: keep in sync with `cpu/lanes_avx2.rs`).
#[inline(always)]
#[must_use]
pub(crate) fn sin_poly(x: f32) -> f32 {
    let [c3, c5, c7, c9, c11] = SIN_POLY;
    let x2 = x * x;
    x * (1.0 + x2 * (c3 + x2 * (c5 + x2 * (c7 + x2 * (c9 + x2 * c11)))))
}

/// The angle `theta` between unit quaternions `a` and `b` (dot ≥ 0), as a slerp row stores
/// it: `2·atan2(|a − b|, |a + b|)`, accurate for small and large angles alike.
#[must_use]
pub(crate) fn quat_angle(a: Lanes, b: Lanes) -> f32 {
    let (mut diff, mut sum) = (0.0f64, 0.0f64);
    for k in 0..4 {
        let (x, y) = (f64::from(a[k]), f64::from(b[k]));
        diff += (x - y) * (x - y);
        sum += (x + y) * (x + y);
    }
    (2.0 * diff.sqrt().atan2(sum.sqrt())) as f32
}

/// `from + (to − from) · p`, unclamped.
#[inline(always)]
#[must_use]
pub(crate) fn lerp(from: f32, to: f32, p: f32) -> f32 {
    from + (to - from) * p
}
