//! The examples' testable parts: the easing gallery's CPU and GPU samples agree within the
//! conformance tolerances (1e-5 for eases, 1e-4·max(1, |strength|) for punch and shake).

use crate::common;

#[allow(dead_code)] // the example's `main` and drawing code
#[path = "../../examples/easing_gallery.rs"]
mod gallery;

use wgpu_tween::MotionWorld;

#[test]
fn gallery_cpu_and_gpu_samples_agree() {
    let kinds = gallery::kinds();
    let cpu = gallery::sample(&mut MotionWorld::new(), &kinds);
    assert_eq!(cpu.len(), kinds.len());
    for (kind, curve) in kinds.iter().zip(&cpu) {
        assert_eq!(curve.len(), gallery::SAMPLES);
        assert!(
            curve.iter().all(|v| v.is_finite()),
            "{}: a CPU sample is not finite",
            kind.name()
        );
    }
    // Every plot is labelled with its own name, which fits in its cell.
    let labels: std::collections::BTreeSet<String> = kinds.iter().map(|k| k.label()).collect();
    assert_eq!(labels.len(), kinds.len(), "labels are distinct: {labels:?}");
    for label in &labels {
        let width = gallery::font::text_width(label);
        assert!(
            width <= gallery::CELL_W as i32 - 8,
            "{label:?} is {width} px wide"
        );
    }
    assert!(labels.contains("IN OUT SINE") && labels.contains("LINEAR"));
    // The drawing code runs on the CPU samples alone (the no-adapter path).
    let image = gallery::draw(&kinds, &cpu, None);
    assert!(image.width() > 0 && image.height() > 0);

    let Some(ctx) = common::gpu() else {
        return;
    };
    let gpu = gallery::sample(&mut gallery::gpu_world(ctx), &kinds);
    let mut failures = Vec::new();
    for (k, kind) in kinds.iter().enumerate() {
        let diff = gallery::max_diff(&cpu[k], &gpu[k]);
        let tolerance = kind.tolerance();
        if diff.is_nan() || diff > tolerance {
            failures.push(format!(
                "{}: max |cpu - gpu| = {diff:e} > {tolerance:e}",
                kind.name()
            ));
        }
    }
    for line in &failures {
        println!("FAIL {line}");
    }
    assert!(failures.is_empty(), "{} curves differ", failures.len());
    gallery::draw(&kinds, &cpu, Some(&gpu));
}
