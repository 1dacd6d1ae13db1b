//! The Yew components, one per file, named after what it shows. They map the view model to the
//! page and turn clicks and keys into [`crate::state::Action`]s; they decide nothing about leases
//! or tokens.
//!
//! [`app`] lays the page out from the others; every component may use [`callbacks`] (the
//! dispatcher and the handlers made of it) and [`trace_at`]; nothing here is used by a module
//! below it. [`shortcuts`] (the keyboard) and [`explore_runner`] (the Explore panel's jobs) are
//! the two files that are not components.

pub mod app;
pub mod callbacks;
pub mod event_list;
pub mod explore_panel;
pub mod explore_runner;
pub mod help;
pub mod legend;
pub mod messages;
pub mod narration;
pub mod open_run;
pub mod play_bar;
pub mod recorded_card;
pub mod scenario_panel;
pub mod share_panel;
pub mod shortcuts;
pub mod storage_panel;
pub mod timeline;
pub mod tour_card;
pub mod trace_at;
pub mod verdict;
