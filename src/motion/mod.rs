//! What users build motions with: the [`Motion`](crate::Motion) builder, sequences and text
//! reveals. The top layer: it validates input and hands the world a built motion.

pub(crate) mod batch;
pub(crate) mod builder;
pub(crate) mod data;
pub(crate) mod sequence;
pub(crate) mod text;
