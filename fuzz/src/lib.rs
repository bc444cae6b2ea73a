//! Fuzzing support for wgpu-tween: the byte interpreters the targets run (also replayed over
//! `fuzz/seeds/` by the main crate's `tests/model/fuzz_corpus.rs`).

pub mod interp;

use std::sync::Once;

/// Lets the callbacks' deliberate panics unwind into the world (which catches them) instead
/// of hitting libFuzzer's abort-on-panic hook; every other panic still aborts.
pub fn allow_intentional_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let fuzzer_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("");
            if !message.contains(interp::INTENTIONAL) {
                fuzzer_hook(info);
            }
        }));
    });
}
