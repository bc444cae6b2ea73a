//! The motion table: the dense row columns both executors read, kept in runs of one shape,
//! with the change journal the GPU executor replays.

pub(crate) mod holes;
pub(crate) mod host_targets;
pub(crate) mod motions;
pub(crate) mod rows;
pub(crate) mod runs;
pub(crate) mod shapes;
pub(crate) mod slots;
pub(crate) mod targets;

/// Writes `value` at `index` of a slot-indexed column, growing it first where it is shorter
/// (the entries in between are `vacant`).
#[inline]
fn put_at<T: Clone>(column: &mut Vec<T>, index: usize, value: T, vacant: T) {
    match column.get_mut(index) {
        Some(entry) => *entry = value,
        None => {
            column.resize(index, vacant);
            column.push(value);
        }
    }
}
