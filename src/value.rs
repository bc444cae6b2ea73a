//! Values as lanes: every animated type maps itself to at most four `f32` lanes plus an
//! adapter kind, so one row format (and one GPU dispatch) serves every type.

use glam::{Vec2, Vec3, Vec4};

/// Up to four `f32` lanes of a value. Unused lanes are 0.
pub type Lanes = [f32; 4];

/// How a row turns eased progress into lane values. Stored in the row's flags: never reorder.
///
/// The value-types work adds slerp/nlerp, punch, shake, rounding and curves here; each
/// executor then gains one arm per kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum AdapterKind {
    /// `from + (to − from) · p` per lane, unclamped (SEMANTICS.md §2).
    #[default]
    Lerp = 0,
}

/// A type a motion can animate: it maps itself to at most four `f32` lanes.
///
/// Implement it for your own plain-data types:
///
/// ```
/// use wgpu_tween::{Animatable, AdapterKind, Lanes};
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// struct Size { w: f32, h: f32 }
///
/// impl Animatable for Size {
///     const LANES: usize = 2;
///     const ADAPTER: AdapterKind = AdapterKind::Lerp;
///     fn to_lanes(self) -> Lanes { [self.w, self.h, 0.0, 0.0] }
///     fn from_lanes(l: Lanes) -> Self { Size { w: l[0], h: l[1] } }
/// }
/// ```
pub trait Animatable: Copy + Send + 'static {
    /// Lanes in use, 1..=4.
    const LANES: usize;
    /// How the lanes are interpolated.
    const ADAPTER: AdapterKind;
    /// The value as lanes (unused lanes 0).
    fn to_lanes(self) -> Lanes;
    /// The value from lanes.
    fn from_lanes(lanes: Lanes) -> Self;
}

impl Animatable for f32 {
    const LANES: usize = 1;
    const ADAPTER: AdapterKind = AdapterKind::Lerp;
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
    const ADAPTER: AdapterKind = AdapterKind::Lerp;
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
    const ADAPTER: AdapterKind = AdapterKind::Lerp;
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
    const ADAPTER: AdapterKind = AdapterKind::Lerp;
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
            const ADAPTER: AdapterKind = AdapterKind::Lerp;
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

/// `from + (to − from) · p`, unclamped.
#[inline(always)]
#[must_use]
pub(crate) fn lerp(from: f32, to: f32, p: f32) -> f32 {
    from + (to - from) * p
}
