//! A terminal walk-through of binds, callbacks, commands, `await` and the debug view.
//!
//! ```sh
//! cargo run --release --example callbacks
//! ```
//!
//! Every step prints what happens.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use wgpu_tween::{Ease, LoopType, Motion, MotionWorld, Sequence};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut world = MotionWorld::new();

    // 1. A bind receives the value in every update that produces one (and, by default, the
    //    start value at once).
    println!("1. bind: x goes 0 -> 10 over 1 s, OutQuad, four updates of 0.25 s");
    let x = Motion::new(0.0f32, 10.0, 1.0)
        .ease(Ease::OutQuad)
        .bind(&mut world, |x| println!("   x = {x:.3}"))?;
    for _ in 0..4 {
        world.update(0.25)?;
    }
    println!("   still active after 1 s? {}", world.is_active(x));

    // 2. Event callbacks: a loop counter, completion, cancellation.
    println!("\n2. on_loop_complete / on_complete / on_cancel");
    Motion::new(0.0f32, 1.0, 0.5)
        .loops(3, LoopType::Yoyo)
        .on_loop_complete(|n| println!("   on_loop_complete: {n} loop(s) done"))
        .on_complete(|| println!("   on_complete: all three loops done"))
        .run(&mut world)?;
    let doomed = Motion::new(0.0f32, 1.0, 10.0)
        .on_cancel(|| println!("   on_cancel: the 10 s motion was cancelled"))
        .run(&mut world)?;
    world.update(0.6)?; // one loop
    world.update(1.0)?; // two more loops: one call with the new count (3), then completion
    world.cancel(doomed)?;

    // 3. A panic in a bind is caught; with `cancel_on_error` it also cancels the motion.
    //    (The panic hook is silenced meanwhile so the report below is the only output.)
    println!("\n3. a panicking bind with cancel_on_error");
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let fragile = Motion::new(0.0f32, 1.0, 1.0)
        .debug_name("fragile")
        .cancel_on_error(true)
        .on_cancel(|| println!("   on_cancel: the panic cancelled it"))
        .bind(&mut world, |v| {
            assert!(v <= 0.5, "value {v} is above 0.5");
            println!("   fragile = {v:.2}");
        })?;
    world.update(0.3)?;
    world.update(0.3)?; // 0.6: the bind panics
    std::panic::set_hook(hook);
    for error in world.take_callback_errors() {
        println!("   take_callback_errors: {error}");
    }
    println!("   fragile still active? {}", world.is_active(fragile));

    // 4. Callbacks cannot borrow the world; they capture `MotionCommands`, which are applied
    //    right after the callback loop. Here the first motion's completion chains a second
    //    one and cancels an endless spinner.
    println!("\n4. MotionCommands from a callback: chain on completion, cancel another");
    let commands = world.commands();
    let spinner = Motion::new(0.0f32, 360.0, 1.0)
        .loops(-1, LoopType::Restart)
        .on_cancel(|| println!("   spinner: cancelled by a command"))
        .run(&mut world)?;
    Motion::new(0.0f32, 1.0, 0.5)
        .on_complete(move || {
            println!("   first: done; queueing a second motion and cancelling the spinner");
            Motion::new(1.0f32, 0.0, 0.5)
                .immediate_bind(false)
                .on_complete(|| println!("   second: done"))
                .bind_deferred(&commands, |v| println!("   second = {v:.2}"))
                .expect("a valid motion");
            commands.cancel(spinner);
        })
        .run(&mut world)?;
    println!("   motions before: {}", world.len());
    world.update(0.6)?;
    println!("   motions after the first completes: {}", world.len());
    world.update(0.25)?;
    world.update(0.25)?;
    println!("   motions at the end: {}", world.len());

    // 5. Jumping: `set_time` moves a motion's clock (and binds the value there at once);
    //    `complete` ends it, binding its end value and running `on_complete`.
    println!("\n5. set_time and complete");
    let jump = Motion::new(0.0f32, 100.0, 2.0)
        .immediate_bind(false)
        .on_complete(|| println!("   on_complete (from complete())"))
        .bind(&mut world, |v| println!("   jump = {v:.1}"))?;
    world.set_time(jump, 1.5)?;
    println!(
        "   after set_time(1.5): value = {}",
        world.value::<f32>(jump)?
    );
    world.complete(jump)?;
    println!("   active after complete? {}", world.is_active(jump));

    // 6. A sequence places motions on one timeline and plays them as one motion, here
    //    twice, the second time backwards (Yoyo). Its children keep their own binds and
    //    callbacks; the sequence owns their clocks.
    println!("\n6. a sequence: fade in, move (with a pulse joined to it), fade out; Yoyo x2");
    let fade_in = Motion::new(0.0f32, 1.0, 0.5)
        .immediate_bind(false)
        .on_complete(|| println!("   fade_in: complete"))
        .bind(&mut world, |v| println!("   alpha = {v:.2}"))?;
    let travel = Motion::new(0.0f32, 100.0, 1.0)
        .ease(Ease::InOutCubic)
        .immediate_bind(false)
        .bind(&mut world, |v| println!("   x = {v:.1}"))?;
    let pulse = Motion::new(1.0f32, 1.5, 0.5)
        .loops(2, LoopType::Yoyo)
        .immediate_bind(false)
        .bind(&mut world, |v| println!("   scale = {v:.2}"))?;
    let fade_out = Motion::new(1.0f32, 0.0, 0.5)
        .immediate_bind(false)
        .bind(&mut world, |v| println!("   alpha = {v:.2}"))?;
    let show = Sequence::new()
        .append(fade_in)
        .append(travel)
        .join(pulse)
        .append_interval(0.25)
        .append(fade_out)
        .run_with(&mut world, |m| {
            m.loops(2, LoopType::Yoyo)
                .on_loop_complete(|n| println!("   sequence: loop {n} done"))
                .on_complete(|| println!("   sequence: complete"))
        })?;
    // Running it bound every child's start-of-sequence value, the not yet started ones
    // first, so the first child's start value (alpha = 0) is the one that stays.
    println!("   one loop lasts {} s", world.duration(show)?);
    println!(
        "   children refuse direct control: {}",
        world.cancel(travel).unwrap_err()
    );
    for step in 1..=6 {
        println!("   -- t = {:.2} s", f64::from(step) * 0.75);
        world.update(0.75)?;
    }

    // 7. `await`: `completion(h)` is a future; any executor can poll it while another
    //    thread updates the world.
    println!("\n7. await a completion while another thread updates the world");
    let world = Arc::new(Mutex::new(world));
    let (done, cancelled) = {
        let mut w = world.lock().unwrap();
        let h = Motion::new(0.0f32, 1.0, 0.5).run(&mut w)?;
        let other = Motion::new(0.0f32, 1.0, 5.0).run(&mut w)?;
        let cancelled = w.completion(other);
        w.cancel(other)?;
        (w.completion(h), cancelled)
    };
    let updater = {
        let world = Arc::clone(&world);
        std::thread::spawn(move || {
            for frame in 1..=60 {
                world.lock().unwrap().update(1.0 / 60.0).unwrap();
                if frame % 15 == 0 {
                    println!("   updater thread: frame {frame}");
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    println!(
        "   cancelled motion's completion: {:?}",
        pollster::block_on(cancelled)
    );
    println!("   block_on(completion) = {:?}", pollster::block_on(done));
    updater.join().expect("updater thread");
    let mut world = Arc::into_inner(world).unwrap().into_inner().unwrap();

    // 8. The debug view: every live motion, in creation order, as a table.
    println!("\n8. debug_snapshot");
    Motion::new(0.0f32, 1.0, 2.0)
        .debug_name("fade")
        .ease(Ease::InOutSine)
        .run(&mut world)?;
    Motion::new(0.0f32, 1.0, 0.5)
        .debug_name("pulse")
        .loops(-1, LoopType::Yoyo)
        .run(&mut world)?;
    Motion::new(0.0f32, 1.0, 1.0)
        .debug_name("late")
        .delay(3.0)
        .run(&mut world)?;
    let slow = Motion::new(0.0f32, 1.0, 1.0)
        .debug_name("slow")
        .run(&mut world)?;
    world.set_playback_speed(slow, 0.25)?;
    world.update(1.2)?;
    println!("{}", world.debug_snapshot());
    Ok(())
}
