//! Core types: the row format, motion settings, eases, animation curves, handles and the
//! public value types. Nothing here knows about a world or an executor.

pub(crate) mod angle;
pub(crate) mod curve;
pub(crate) mod ease;
pub(crate) mod handle;
pub(crate) mod row;
pub(crate) mod settings;
pub(crate) mod value;
