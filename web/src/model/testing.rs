//! What the view model's tests share: the paused-worker story, and how its workers and tokens
//! are named.

use fencepost_sim::{RunOptions, Trace, preset, run_with};

use super::tokens::TokenStyle;

/// The paused-worker story, fencing on or off.
pub fn paused(fencing: bool) -> Trace {
    run_with(
        &preset("paused-worker").unwrap().scenario(),
        RunOptions {
            fencing: Some(fencing),
            ..RunOptions::default()
        },
    )
}

/// Worker A.
pub const A: u16 = 0;
/// Worker B.
pub const B: u16 = 1;
/// How the page writes the tokens of these stories: as numbers.
pub const N: TokenStyle = TokenStyle::Number;
