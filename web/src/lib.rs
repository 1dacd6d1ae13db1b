//! # fencepost-web
//!
//! The fencepost visualizer: runs the simulator in the page and draws its trace as a timeline of
//! leases, pauses, messages and fenced writes.
//!
//! * [`model`]: trace + playhead -> what is drawn (pure, tested natively);
//! * [`state`]: the reducer: the story being edited, playback, the tour, messages;
//! * [`address`]: the address bar: the page a link lands on, the history entry each change gets;
//! * [`share`]: scenarios in URL fragments;
//! * [`tour`]: the guided tour's chapters, and where the learner is in them;
//! * [`undo`]: the undo stack the reducer keeps lane clicks in;
//! * [`text`]: text helpers (sentence case, fixed decimals, markup escaping);
//! * [`dom`]: thin wrappers over the browser;
//! * [`components`]: the Yew components.
//!
//! Imports point one way, from the page down to plain data, never back:
//!
//! ```text
//! components -> address -> state -> tour -> model
//!                  |          '-> undo
//!                  '-> share -> tour
//! ```
//!
//! The components use any module below them; `address` also uses `text`. `model`, `undo`,
//! `text` and `dom` import nothing of this crate. Inside `state`, `model` and `components` the
//! files keep the same rule (their module docs say which way their arrows point): no module
//! imports one that imports it back. `web/tests/no_import_circle.rs` reads the imports from the
//! source and fails on a circle.
#![forbid(unsafe_code)]

pub mod address;
pub mod components;
pub mod dom;
pub mod model;
pub mod share;
pub mod state;
pub mod text;
pub mod tour;
pub mod undo;

/// Starts the app in the page's `<body>`.
pub fn start() {
    dom::mark("__fencepostStart");
    yew::Renderer::<components::app::App>::new().render();
}
