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
///
/// A type with more than four lanes does not compile once a motion animates it:
///
/// ```compile_fail
/// use wgpu_tween::{Animatable, Interpolation, Motion};
///
/// #[derive(Clone, Copy)]
/// struct Five([f32; 5]);
///
/// impl Animatable for Five {
///     const LANES: usize = 5;
///     const INTERPOLATION: Interpolation = Interpolation::Lerp;
///     fn to_lanes(self) -> [f32; 4] { [self.0[0], self.0[1], self.0[2], self.0[3]] }
///     fn from_lanes(l: [f32; 4]) -> Self { Five([l[0], l[1], l[2], l[3], 0.0]) }
/// }
///
/// let _ = Motion::new(Five([0.0; 5]), Five([1.0; 5]), 1.0); // error: LANES must be 1..=4
/// ```
///
/// `#[derive(Animatable)]` (feature `derive`) refuses such a struct where it is defined,
/// naming it and its lane count (here: "`Particle`: its fields have 7 lanes in all"):
///
/// ```compile_fail
/// #[derive(Clone, Copy, wgpu_tween_derive::Animatable)]
/// struct Particle {
///     position: glam::Vec3,
///     color: wgpu_tween::Color,
/// }
/// ```
///
/// # More than four lanes
///
/// A row holds four lanes on both executors, so a value of more (a transform, a particle's
/// position and color) is animated as one motion per field, each writing its part of one
/// element of a target ([`TargetId::at`](crate::TargetId::at) with the element's stride and
/// the field's offset). The motions of one particle can share everything else (ease,
/// delay, group), and a batch adds a field's motions for many particles in one call:
///
/// ```
/// use glam::Vec3;
/// use wgpu_tween::{BatchItem, Color, Motion, MotionWorld};
///
/// // A particle instance of 7 f32s: position at 0..3, color at 3..7.
/// const STRIDE: u32 = 7;
/// let mut world = MotionWorld::new();
/// let particles = world.add_host_target(100 * STRIDE as usize)?;
/// let (white, clear) = (Color::WHITE, Color::TRANSPARENT);
/// Motion::new(Vec3::ZERO, Vec3::ZERO, 1.0).run_batch_detached(&mut world, 100, |i| {
///     BatchItem::new(Vec3::ZERO, Vec3::splat(i as f32)).target(particles.at(i as u32, STRIDE, 0))
/// })?;
/// Motion::new(white, clear, 1.0).run_batch_detached(&mut world, 100, |i| {
///     BatchItem::new(white, clear).target(particles.at(i as u32, STRIDE, 3))
/// })?;
/// world.update(0.5)?;
/// let floats = world.host_target(particles).expect("registered");
/// // Particle 10: half-way to (10, 10, 10), half-way to transparent.
/// assert_eq!(&floats[70..77], &[5.0, 5.0, 5.0, 0.5, 0.5, 0.5, 0.5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
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
    /// The end the lanes are interpolated toward, given the start: `to` itself for every
    /// built-in type but [`Angle`](crate::Angle), which takes the turn of `to` nearest
    /// `from` (the shorter arc). [`Motion::new`](crate::Motion::new) calls it.
    #[inline]
    #[must_use]
    fn path_end(from: Self, to: Self) -> Self {
        let _ = from;
        to
    }
    /// The value from lanes for a motion built with rounding mode `mode` (see
    /// [`Motion::rounding`](crate::Motion::rounding)). Only integer types round; the
    /// default ignores the mode.
    #[inline]
    fn from_lanes_rounded(lanes: [f32; 4], mode: RoundingMode) -> Self {
        let _ = mode;
        Self::from_lanes(lanes)
    }
}

/// `T::LANES`, checked when a motion of `T` is built: a type with no lanes or more than four
/// is a compile-time error (it would not fit a row), not a silently truncated motion.
pub(crate) struct CheckedLanes<T>(std::marker::PhantomData<T>);

impl<T: Animatable> CheckedLanes<T> {
    pub(crate) const LANES: usize = {
        assert!(
            T::LANES >= 1 && T::LANES <= 4,
            "Animatable::LANES must be 1, 2, 3 or 4"
        );
        T::LANES
    };
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
