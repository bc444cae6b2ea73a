//! The motion table: the dense row columns both executors read, kept in runs of one shape,
//! with the change journal the GPU executor replays.

pub(crate) mod host_targets;
pub(crate) mod motions;
pub(crate) mod rows;
pub(crate) mod runs;
pub(crate) mod slots;
pub(crate) mod targets;
