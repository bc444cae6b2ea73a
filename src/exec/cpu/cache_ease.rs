//! The segment cache's easing: each run's ease as a function of a row and `x` (the standard
//! eases of [`fast_ease`], and parametric ones with their rows' parameters, [`Params`]),
//! and the hot loop of chunks that do not fold loops ([`eased`]; those that do are
//! [`super::fold`]'s). A child of [`super`], so it shares the cache's private state.

use super::fold::FoldedColumns;
use super::{Chunk, CHUNK};
use crate::core::ease::{with_every_ease, Ease};
use crate::exec::cpu::fast_ease;

/// Runs `$body` (a closure-like `|f| ...`) with `f`, the ease `(row, x) → E(x)` of parametric
/// ease `$id` with the rows' `$params` ([`fast_ease::parametric`], one monomorphic `f` per
/// family and mode); the identity for an id the cache does not serve (never classified so).
macro_rules! with_parametric {
    ($id:expr, $params:expr, |$f:ident| $body:expr) => {{
        use crate::core::ease::{ID_BACK, ID_BEZIER, ID_ELASTIC};
        let Params([a, b, c, d]) = $params;
        macro_rules! run {
            ($which:expr) => {{
                let $f = |i: usize, x: f32| {
                    crate::exec::cpu::fast_ease::parametric($which, [a[i], b[i], c[i], d[i]], x)
                };
                $body
            }};
        }
        match u32::from($id) {
            id if id == ID_BACK => run!(ID_BACK),
            id if id == ID_BACK + 1 => run!(ID_BACK + 1),
            id if id == ID_BACK + 2 => run!(ID_BACK + 2),
            id if id == ID_ELASTIC => run!(ID_ELASTIC),
            id if id == ID_ELASTIC + 1 => run!(ID_ELASTIC + 1),
            id if id == ID_ELASTIC + 2 => run!(ID_ELASTIC + 2),
            id if id == ID_BEZIER => run!(ID_BEZIER),
            _ => {
                let $f = |_: usize, x: f32| x;
                $body
            }
        }
    }};
}

/// The eased progress of every row from its segment (garbage for rows past theirs, which
/// [`super::refresh()`] overwrites, and past a short chunk's end). One monomorphic loop per (ease, loop
/// type), over the whole chunk: a fixed count compiles to vector code without a scalar tail.
#[inline(always)]
pub(super) fn eased(
    chunk: &Chunk<'_>,
    ease: u8,
    loop_type: u8,
    params: &Params,
    w: f32,
    p: &mut [f32; CHUNK],
) {
    macro_rules! dispatch {
        ($($ease:ident),*) => {
            match Ease::from_bits(u32::from(ease)) {
                $(Some(Ease::$ease) => by_loop(|_, x| fast_ease::evaluate(Ease::$ease, x), chunk, loop_type, w, p),)*
                None => with_parametric!(ease, params, |f| by_loop(f, chunk, loop_type, w, p)),
            }
        };
    }
    with_every_ease!(dispatch);
}

/// Every row's eased progress `a + s·E(x)` from a folding chunk's maps
/// ([`super::fold::fold`]), or `E(x)` where the maps are `plain` (identities, not kept).
/// One monomorphic loop per ease and kind of map, over the whole chunk.
#[inline(always)]
pub(super) fn mapped(
    ease: u8,
    params: &Params,
    m: &FoldedColumns,
    plain: bool,
    p: &mut [f32; CHUNK],
) {
    macro_rules! dispatch {
        ($($ease:ident),*) => {
            match Ease::from_bits(u32::from(ease)) {
                $(Some(Ease::$ease) => map_with(|_, x| fast_ease::evaluate(Ease::$ease, x), m, plain, p),)*
                None => with_parametric!(ease, params, |f| map_with(f, m, plain, p)),
            }
        };
    }
    with_every_ease!(dispatch);
}

#[inline(always)]
fn map_with(f: impl Fn(usize, f32) -> f32, m: &FoldedColumns, plain: bool, p: &mut [f32; CHUNK]) {
    if plain {
        for (i, p) in p.iter_mut().enumerate() {
            *p = f(i, m.x[i]);
        }
    } else {
        for (i, p) in p.iter_mut().enumerate() {
            *p = m.a[i] + m.s[i] * f(i, m.x[i]);
        }
    }
}

/// `E(1)` of ease `ease` as [`mapped`] evaluates it, with the first row's parameters for a
/// parametric one (Incremental's step per loop).
pub(super) fn at_one(ease: u8, params: &Params) -> f32 {
    match Ease::from_bits(u32::from(ease)) {
        Some(e) => fast_ease::evaluate(e, 1.0),
        None => with_parametric!(ease, params, |f| f(0, 1.0)),
    }
}

/// The parameter lanes of a chunk's rows, a column each (`Columns::lanes` 4 and 5 hold them as
/// pairs): read by parametric eases' loops, which then load four columns as they load `c`.
pub(super) struct Params(pub [[f32; CHUNK]; 4]);

impl Default for Params {
    fn default() -> Self {
        Self([[0.0; CHUNK]; 4])
    }
}

impl Params {
    /// The parameters of the rows whose lane pairs are `l4` and `l5` (zeros past their
    /// end: a short chunk's lanes past it are evaluated too, and must not be NaN).
    #[inline(always)]
    pub(super) fn fill(&mut self, l4: &[[f32; 2]], l5: &[[f32; 2]]) {
        let [a, b, c, d] = &mut self.0;
        for (i, (&[p0, p1], &[p2, p3])) in l4.iter().zip(l5).enumerate() {
            (a[i], b[i], c[i], d[i]) = (p0, p1, p2, p3);
        }
        for column in [a, b, c, d] {
            column
                .get_mut(l4.len().min(l5.len())..)
                .unwrap_or_default()
                .fill(0.0);
        }
    }

    /// Row `i`'s parameters.
    #[inline(always)]
    pub fn row(&self, i: usize) -> [f32; 4] {
        self.0.map(|column| column[i])
    }
}

#[inline(always)]
fn by_loop(
    f: impl Fn(usize, f32) -> f32,
    chunk: &Chunk<'_>,
    loop_type: u8,
    w: f32,
    p: &mut [f32; CHUNK],
) {
    let (c, off) = (&*chunk.c, &*chunk.off);
    if chunk.head.same_r {
        // One `w·r` for the chunk (the same product as per row): only `c` is read.
        let wr = w * chunk.r[0];
        by_loop_with(&f, loop_type, p, c, off, |_| wr);
    } else {
        let r = &*chunk.r;
        by_loop_with(&f, loop_type, p, c, off, |i| w * r[i]);
    }
}

#[inline(always)]
fn by_loop_with(
    f: impl Fn(usize, f32) -> f32,
    loop_type: u8,
    p: &mut [f32; CHUNK],
    c: &[f32; CHUNK],
    off: &[f32; CHUNK],
    wr: impl Fn(usize) -> f32,
) {
    let x = |i: usize| (wr(i) + c[i]).clamp(0.0, 1.0);
    match loop_type {
        // Flip: a mirrored loop is 1 − E.
        1 => {
            for (i, p) in p.iter_mut().enumerate() {
                let e = f(i, x(i));
                *p = if off[i] != 0.0 { 1.0 - e } else { e };
            }
        }
        // Incremental: E(1)·k + E.
        2 => {
            for (i, p) in p.iter_mut().enumerate() {
                *p = off[i] + f(i, x(i));
            }
        }
        // Restart, and Yoyo (whose backward loops are folded into r and c).
        _ => {
            for (i, p) in p.iter_mut().enumerate() {
                *p = f(i, x(i));
            }
        }
    }
}
