//! # fencepost-web
//!
//! The fencepost visualizer: runs the simulator in the page and draws its trace as a timeline of
//! leases, pauses, messages and fenced writes.
//!
//! * [`model`]: trace + playhead -> what is drawn (pure, tested natively);
//! * [`state`]: the reducer (scenario edits and view state);
//! * [`history`]: the lane clicks Undo takes back, the browser-history entries, addresses;
//! * [`share`]: scenarios in URL fragments;
//! * [`tour`]: the guided tour's chapters;
//! * [`components`]: the Yew components.
#![forbid(unsafe_code)]

pub mod components;
pub mod dom;
pub mod history;
pub mod model;
pub mod share;
pub mod state;
pub mod tour;

/// Starts the app in the page's `<body>`.
pub fn start() {
    dom::mark("__fencepostStart");
    yew::Renderer::<components::App>::new().render();
}
