//! The Yew components. They map the view model to the page and turn clicks and keys into
//! [`crate::state::Action`]s; they decide nothing about leases or tokens.

pub mod app;
pub mod controls;
pub mod explore;
pub mod panels;
pub mod timeline;

pub use app::App;
