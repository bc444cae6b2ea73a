//! A table of many pages needs no buffer that grows with its rows beyond the pages
//! themselves: on a device whose storage bindings are 64 KiB (pages of 2 048 rows), 20 000
//! motions without sequences stay on the GPU and evaluate right (a per-row buffer of 4 bytes
//! would need 128 KiB, over the binding limit, and move the world to the CPU).

use crate::common;

use std::sync::{Arc, Mutex};

use wgpu_tween::{Ease, Motion};

#[test]
fn twenty_thousand_motions_on_a_64_kib_binding_device_stay_on_the_gpu() {
    let Some(ctx) = common::own_device(
        "64 KiB bindings",
        |_| wgpu::Limits {
            max_storage_buffer_binding_size: 64 * 1024,
            ..wgpu::Limits::default()
        },
        |_| wgpu::Features::empty(),
    ) else {
        return;
    };
    let mut world = common::Exec::Gpu(Box::new(ctx)).world();
    let n = 20_000;
    let mut probes = Vec::new();
    for i in 0..n {
        // Motion i runs from i to i + 2 over 2 s, linearly.
        let builder = Motion::new(i as f32, i as f32 + 2.0, 2.0).ease(Ease::Linear);
        if i % 97 == 0 {
            let seen = Arc::new(Mutex::new(f32::NAN));
            let sink = Arc::clone(&seen);
            builder
                .immediate_bind(false)
                .bind(&mut world, move |v: f32| *sink.lock().unwrap() = v)
                .expect("motion");
            probes.push((i, seen));
        } else {
            builder.run(&mut world).expect("motion");
        }
    }
    for step in 1..=3 {
        common::update_on_gpu(&mut world, 0.5, "20k motions");
        // After t seconds of a 2 s motion over a range of 2: from + t.
        let t = 0.5 * step as f32;
        for (i, seen) in &probes {
            let want = *i as f32 + t;
            let got = *seen.lock().unwrap();
            assert!(
                (got - want).abs() <= 1e-3 * want.abs().max(1.0),
                "motion {i} at {t} s: {got} vs {want}"
            );
        }
    }
    assert_eq!(world.len(), n);
}
