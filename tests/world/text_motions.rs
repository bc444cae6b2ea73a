//! Text motions: the progress comes from whichever executor runs the world, the string is
//! built in the bind (CPU), so both executors show the same text.

use crate::common;

use std::sync::{Arc, Mutex};

use wgpu_tween::{Ease, Motion, MotionWorld, ScrambleMode, TextReveal};

fn text(world: &mut MotionWorld, reveal: TextReveal, ease: Ease) -> Arc<Mutex<String>> {
    let cell = Arc::new(Mutex::new(String::new()));
    let sink = cell.clone();
    Motion::new(0.0f32, 1.0, 2.0)
        .ease(ease)
        .immediate_bind(false)
        .bind_text(world, reveal, move |s| *sink.lock().unwrap() = s.to_owned())
        .unwrap();
    cell
}

#[test]
fn text_reveals_on_every_executor() {
    let mut seen = Vec::new();
    for exec in common::executors() {
        let mut world = exec.world();
        let plain = text(
            &mut world,
            TextReveal::new("........", "LitMotion"),
            Ease::Linear,
        );
        let scrambled = text(
            &mut world,
            TextReveal::new("", "wgpu-tween")
                .scramble(ScrambleMode::Numerals)
                .seed(42),
            Ease::InQuad,
        );
        let a = text(
            &mut world,
            TextReveal::new("", "abcdefghijkl").scramble(ScrambleMode::Uppercase),
            Ease::Linear,
        );
        let b = text(
            &mut world,
            TextReveal::new("", "abcdefghijkl").scramble(ScrambleMode::Uppercase),
            Ease::Linear,
        );
        world.update(1.0).unwrap();
        let name = exec.name();
        assert_eq!(*plain.lock().unwrap(), "LitM....", "{name}");
        let s = scrambled.lock().unwrap().clone();
        // InQuad(0.5) = 0.25: two of ten characters revealed, eight digits.
        assert!(s.starts_with("wg"), "{name}: {s}");
        assert!(s.chars().skip(2).all(|c| c.is_ascii_digit()), "{name}: {s}");
        assert_ne!(
            *a.lock().unwrap(),
            *b.lock().unwrap(),
            "{name}: default seeds differ"
        );
        seen.push(s);
        world.update(1.0).unwrap();
        assert_eq!(*plain.lock().unwrap(), "LitMotion", "{name}");
        assert_eq!(*scrambled.lock().unwrap(), "wgpu-tween", "{name}");
    }
    // The same seed and progress on every executor: the same string.
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
}
