//! fencepost visualizer.
pub mod model;
