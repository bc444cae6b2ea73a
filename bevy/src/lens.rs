//! Lenses: which value of which component a tween animates.
//!
//! A lens is a zero-sized type naming one field (or a few, as one [`Animatable`] value) of one
//! component. The plugin runs one copy system per registered lens, over the entities that
//! have a tween on it, so values reach components without a closure per entity.

use bevy::color::{Color, LinearRgba};
use bevy::ecs::component::{Component, Mutable};
use bevy::math::{Quat, Vec3};
use bevy::transform::components::Transform;
use wgpu_tween::{Animatable, Interpolation};

/// One value of one component that tweens animate: `get` reads it (a tween's start, for
/// [`Motion::to`](wgpu_tween::Motion::to) and [`Motion::by`](wgpu_tween::Motion::by)),
/// `set` writes each frame's value.
///
/// Built-in lenses are registered by the plugin; register your own with
/// [`TweenAppExt::register_lens`](crate::TweenAppExt::register_lens).
///
/// ```
/// use bevy::prelude::*;
/// use bevy_wgpu_tween::Lens;
///
/// #[derive(Component)]
/// struct Health(f32);
///
/// /// The health bar's value.
/// struct HealthLens;
///
/// impl Lens for HealthLens {
///     type Component = Health;
///     type Value = f32;
///     fn get(health: &Health) -> f32 {
///         health.0
///     }
///     fn set(health: &mut Health, value: f32) {
///         health.0 = value;
///     }
/// }
/// ```
pub trait Lens: Send + Sync + 'static {
    /// The component animated.
    type Component: Component<Mutability = Mutable>;
    /// The value animated (one to four lanes).
    type Value: Animatable;
    /// The component's current value.
    fn get(component: &Self::Component) -> Self::Value;
    /// Writes a value into the component.
    fn set(component: &mut Self::Component, value: Self::Value);
}

/// `Transform::translation`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Translation;

impl Lens for Translation {
    type Component = Transform;
    type Value = Vec3;
    #[inline]
    fn get(t: &Transform) -> Vec3 {
        t.translation
    }
    #[inline]
    fn set(t: &mut Transform, v: Vec3) {
        t.translation = v;
    }
}

/// `Transform::rotation` (slerp along the shorter arc).
#[derive(Clone, Copy, Debug, Default)]
pub struct Rotation;

impl Lens for Rotation {
    type Component = Transform;
    type Value = Quat;
    #[inline]
    fn get(t: &Transform) -> Quat {
        t.rotation
    }
    #[inline]
    fn set(t: &mut Transform, v: Quat) {
        t.rotation = v;
    }
}

/// `Transform::scale`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Scale;

impl Lens for Scale {
    type Component = Transform;
    type Value = Vec3;
    #[inline]
    fn get(t: &Transform) -> Vec3 {
        t.scale
    }
    #[inline]
    fn set(t: &mut Transform, v: Vec3) {
        t.scale = v;
    }
}

/// A color interpolated in linear RGBA (Bevy's [`LinearRgba`]), the value of the color
/// lenses. Convert with `.into()` from any Bevy [`Color`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinearColor(pub LinearRgba);

impl From<Color> for LinearColor {
    fn from(c: Color) -> Self {
        Self(c.to_linear())
    }
}

impl From<LinearRgba> for LinearColor {
    fn from(c: LinearRgba) -> Self {
        Self(c)
    }
}

impl From<LinearColor> for Color {
    fn from(c: LinearColor) -> Self {
        Color::LinearRgba(c.0)
    }
}

impl Animatable for LinearColor {
    const LANES: usize = 4;
    const INTERPOLATION: Interpolation = Interpolation::Lerp;
    #[inline]
    fn to_lanes(self) -> [f32; 4] {
        let LinearRgba {
            red,
            green,
            blue,
            alpha,
        } = self.0;
        [red, green, blue, alpha]
    }
    #[inline]
    fn from_lanes([red, green, blue, alpha]: [f32; 4]) -> Self {
        Self(LinearRgba {
            red,
            green,
            blue,
            alpha,
        })
    }
}

/// `Sprite::color` (feature `sprite`).
#[cfg(feature = "sprite")]
#[derive(Clone, Copy, Debug, Default)]
pub struct SpriteColor;

#[cfg(feature = "sprite")]
impl Lens for SpriteColor {
    type Component = bevy::sprite::Sprite;
    type Value = LinearColor;
    #[inline]
    fn get(s: &bevy::sprite::Sprite) -> LinearColor {
        s.color.into()
    }
    #[inline]
    fn set(s: &mut bevy::sprite::Sprite, v: LinearColor) {
        s.color = v.into();
    }
}

#[cfg(feature = "ui")]
pub use ui::*;

#[cfg(feature = "ui")]
mod ui {
    use super::{Lens, LinearColor};
    use bevy::ui::{BackgroundColor, Node, Val};

    /// `BackgroundColor` of a UI node (feature `ui`).
    #[derive(Clone, Copy, Debug, Default)]
    pub struct BackgroundColorLens;

    impl Lens for BackgroundColorLens {
        type Component = BackgroundColor;
        type Value = LinearColor;
        #[inline]
        fn get(c: &BackgroundColor) -> LinearColor {
            c.0.into()
        }
        #[inline]
        fn set(c: &mut BackgroundColor, v: LinearColor) {
            c.0 = v.into();
        }
    }

    /// Pixels of a `Val`: what a tween starts from (a value in other units starts at 0).
    fn px(v: Val) -> f32 {
        match v {
            Val::Px(x) => x,
            _ => 0.0,
        }
    }

    macro_rules! node_lens {
        ($(#[$doc:meta])* $name:ident, $field:ident) => {
            $(#[$doc])*
            #[derive(Clone, Copy, Debug, Default)]
            pub struct $name;

            impl Lens for $name {
                type Component = Node;
                type Value = f32;
                #[inline]
                fn get(n: &Node) -> f32 {
                    px(n.$field)
                }
                #[inline]
                fn set(n: &mut Node, v: f32) {
                    n.$field = Val::Px(v);
                }
            }
        };
    }

    node_lens!(
        /// `Node::left`, in pixels (feature `ui`).
        NodeLeft,
        left
    );
    node_lens!(
        /// `Node::top`, in pixels (feature `ui`).
        NodeTop,
        top
    );
    node_lens!(
        /// `Node::width`, in pixels (feature `ui`).
        NodeWidth,
        width
    );
    node_lens!(
        /// `Node::height`, in pixels (feature `ui`).
        NodeHeight,
        height
    );
}
