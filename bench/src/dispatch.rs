//! The large-dispatch check: `count` distinct bound motions, whose bound values after an
//! update must equal the CPU's evaluation from each motion's anchor. Shared by
//! `tests/gpu/dispatch.rs` (which includes this file) and the real-GPU check.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use wgpu_tween::{BuildError, Ease, LoopType, Motion, MotionError, MotionHandle, MotionWorld};

/// Adds `count` motions that differ per row (start, span, duration and ease all vary with
/// the index), each binding into its own cell of the returned cells.
pub fn bound_motions(
    world: &mut MotionWorld,
    count: usize,
) -> Result<(Vec<MotionHandle>, Arc<Vec<AtomicU32>>), BuildError> {
    world.reserve(count);
    let cells: Arc<Vec<AtomicU32>> = Arc::new((0..count).map(|_| AtomicU32::new(0)).collect());
    let mut handles = Vec::with_capacity(count);
    for i in 0..count {
        let cells = Arc::clone(&cells);
        let h = Motion::new(i as f32, i as f32 + 1000.0, 1.0 + (i % 7) as f32 * 0.25)
            .ease(Ease::ALL[i % Ease::ALL.len()])
            .loops(-1, LoopType::Yoyo)
            .immediate_bind(false)
            .bind(world, move |v: f32| {
                cells[i].store(v.to_bits(), Ordering::Relaxed)
            })?;
        handles.push(h);
    }
    Ok((handles, cells))
}

/// What [`check_bound`] found: live motions checked, and the first whose bound value is off.
#[derive(Debug, Default)]
pub struct Checked {
    /// Live motions whose bound value was compared.
    pub live: usize,
    /// Motions whose bound value is off.
    pub wrong: usize,
    /// The first of them, described.
    pub first: Option<String>,
}

/// Compares every live motion's bound value with `world.value` (the CPU's evaluation from the
/// motion's anchor), within 1e-4 of the 1000-unit span plus a few ulps.
pub fn check_bound(
    world: &MotionWorld,
    handles: &[MotionHandle],
    cells: &[AtomicU32],
) -> Result<Checked, MotionError> {
    let mut checked = Checked::default();
    for (i, &h) in handles.iter().enumerate() {
        if !world.is_active(h) {
            continue;
        }
        let got = f32::from_bits(cells[i].load(Ordering::Relaxed));
        let want = world.value::<f32>(h)?;
        checked.live += 1;
        if (got - want).abs() > 1e-4 * 1000.0 + 4.0 * f32::EPSILON * want.abs() {
            checked.wrong += 1;
            checked.first.get_or_insert_with(|| {
                format!("motion {i} of {}: GPU {got}, CPU {want}", handles.len())
            });
        }
    }
    Ok(checked)
}
