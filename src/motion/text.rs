//! Text motions (CPU side): a string revealed character by character from `from` to `to`.
//!
//! The motion itself is an ordinary `f32` motion from 0 to 1, evaluated by whichever
//! executor runs the world; only the string is built on the CPU, in the bind, into one
//! reused buffer (no allocation per update once it has grown to the longest text).
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use wgpu_tween::{Motion, MotionWorld, ScrambleMode, TextReveal};
//!
//! let mut world = MotionWorld::new();
//! let shown = Arc::new(Mutex::new(String::new()));
//! let sink = shown.clone();
//! Motion::new(0.0f32, 1.0, 1.0).bind_text(
//!     &mut world,
//!     TextReveal::new("", "Hello!").scramble(ScrambleMode::Lowercase).seed(7),
//!     move |s| *sink.lock().unwrap() = s.to_owned(),
//! )?;
//! world.update(0.5)?; // half of the six characters revealed, the rest scrambled
//! let s = shown.lock().unwrap().clone();
//! assert!(s.starts_with("Hel") && s.chars().count() == 6);
//! assert!(s.chars().skip(3).all(|c| c.is_ascii_lowercase()));
//! world.update(0.5)?;
//! assert_eq!(*shown.lock().unwrap(), "Hello!");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use crate::core::handle::MotionHandle;
use crate::error::BuildError;
use crate::eval::adapters::pcg;
use crate::motion::builder::Motion;
use crate::world::MotionWorld;

/// What fills the characters not yet revealed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ScrambleMode {
    /// Nothing: the unrevealed part shows the rest of `from`.
    #[default]
    None,
    /// Random `A`–`Z`.
    Uppercase,
    /// Random `a`–`z`.
    Lowercase,
    /// Random `0`–`9`.
    Numerals,
    /// Random letters of both cases and digits.
    All,
    /// Random characters of this set (an empty set acts as [`ScrambleMode::None`]).
    Custom(Arc<[char]>),
}

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER: &str = "abcdefghijklmnopqrstuvwxyz";
const DIGITS: &str = "0123456789";
const ALL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// Seeds of text motions built without one: distinct per motion.
static NEXT_SEED: AtomicU32 = AtomicU32::new(1);

/// A text reveal: at progress `p` (clamped to `[0, 1]`) the first `floor(p · n)` characters
/// of `to` (`n` its length in characters), then the unrevealed positions up to
/// `max(len(from), n)`: with [`ScrambleMode::None`] the characters of `from` there (so
/// `p = 0` shows `from`), otherwise random characters of the scramble set for positions
/// below `n`, drawn from a hash of (seed, progress, position): they change as the motion
/// plays and are the same for the same seed and progress. `p = 1` shows exactly `to`.
#[derive(Clone, Debug)]
pub struct TextReveal {
    from: Vec<char>,
    to: Vec<char>,
    scramble: ScrambleMode,
    seed: Option<u32>,
}

impl TextReveal {
    /// Reveals `to` over `from`, without scrambling.
    #[must_use]
    pub fn new(from: &str, to: &str) -> Self {
        Self {
            from: from.chars().collect(),
            to: to.chars().collect(),
            scramble: ScrambleMode::None,
            seed: None,
        }
    }

    /// What the unrevealed characters show (default [`ScrambleMode::None`]).
    #[must_use]
    pub fn scramble(mut self, mode: ScrambleMode) -> Self {
        self.scramble = mode;
        self
    }

    /// The scramble seed (default: one unique to each text motion).
    #[must_use]
    pub fn seed(mut self, seed: u32) -> Self {
        self.seed = Some(seed);
        self
    }

    /// Writes the text at progress `p` into `out` (cleared first).
    pub fn text_at(&self, p: f32, out: &mut String) {
        let seed = self.seed.unwrap_or(0);
        let p = if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) };
        out.clear();
        let n = self.to.len();
        let revealed = if p >= 1.0 {
            n
        } else {
            ((p * n as f32) as usize).min(n)
        };
        out.extend(&self.to[..revealed]);
        if p >= 1.0 {
            return;
        }
        let set: &[char] = match &self.scramble {
            ScrambleMode::Custom(chars) => chars,
            _ => &[],
        };
        let named = match self.scramble {
            ScrambleMode::Uppercase => UPPER,
            ScrambleMode::Lowercase => LOWER,
            ScrambleMode::Numerals => DIGITS,
            ScrambleMode::All => ALL,
            _ => "",
        };
        let scrambled = !named.is_empty() || !set.is_empty();
        let end = if scrambled {
            n
        } else {
            self.from.len().max(revealed)
        };
        for i in revealed..end {
            if scrambled {
                let h = pcg(pcg(seed ^ pcg(p.to_bits())) ^ i as u32);
                let c = if set.is_empty() {
                    let bytes = named.as_bytes();
                    char::from(bytes[h as usize % bytes.len()])
                } else {
                    set[h as usize % set.len()]
                };
                out.push(c);
            } else if let Some(&c) = self.from.get(i) {
                out.push(c);
            }
        }
    }
}

impl Motion<f32> {
    /// Adds a text motion: this motion (build it from 0 to 1; its ease, delay, loops and
    /// callbacks apply) drives `text`, and `bind` receives the string at each value, built
    /// on the CPU into a reused buffer. A text without an explicit seed gets one of its own.
    pub fn bind_text(
        self,
        world: &mut MotionWorld,
        text: TextReveal,
        mut bind: impl FnMut(&str) + Send + 'static,
    ) -> Result<MotionHandle, BuildError> {
        let mut text = text;
        if text.seed.is_none() {
            text.seed = Some(pcg(NEXT_SEED.fetch_add(1, Ordering::Relaxed)));
        }
        let mut buffer = String::with_capacity(
            4 * text.to.len().max(text.from.len()), // chars are at most 4 bytes
        );
        self.bind(world, move |p: f32| {
            text.text_at(p, &mut buffer);
            bind(&buffer);
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: &TextReveal, p: f32) -> String {
        let mut s = String::new();
        t.text_at(p, &mut s);
        s
    }

    #[test]
    fn reveals_over_from_without_scramble() {
        let t = TextReveal::new("abcdefgh", "WXYZ");
        assert_eq!(at(&t, 0.0), "abcdefgh");
        assert_eq!(at(&t, 0.5), "WXcdefgh");
        assert_eq!(at(&t, 0.99), "WXYdefgh");
        assert_eq!(at(&t, 1.0), "WXYZ");
        assert_eq!(at(&t, 7.0), "WXYZ");
        let grow = TextReveal::new("", "héllo");
        assert_eq!(at(&grow, 0.0), "");
        assert_eq!(at(&grow, 0.4), "hé");
    }

    #[test]
    fn scrambles_from_the_set_and_repeats_per_seed() {
        for (mode, ok) in [
            (
                ScrambleMode::Uppercase,
                (|c: char| c.is_ascii_uppercase()) as fn(char) -> bool,
            ),
            (ScrambleMode::Lowercase, |c: char| c.is_ascii_lowercase()),
            (ScrambleMode::Numerals, |c: char| c.is_ascii_digit()),
            (ScrambleMode::All, |c: char| c.is_ascii_alphanumeric()),
            (ScrambleMode::Custom(Arc::from(['#', '*'])), |c: char| {
                c == '#' || c == '*'
            }),
        ] {
            let t = TextReveal::new("", "0123456789")
                .scramble(mode.clone())
                .seed(3);
            let s = at(&t, 0.3);
            assert!(s.starts_with("012"), "{mode:?}: {s}");
            assert_eq!(s.chars().count(), 10);
            assert!(s.chars().skip(3).all(ok), "{mode:?}: {s}");
            assert_eq!(s, at(&t, 0.3), "same seed, same progress");
            assert_eq!(at(&t, 1.0), "0123456789");
        }
        let a = TextReveal::new("", "abcdefghijklmnop").scramble(ScrambleMode::All);
        assert_ne!(at(&a.clone().seed(1), 0.1), at(&a.seed(2), 0.1));
    }
}
