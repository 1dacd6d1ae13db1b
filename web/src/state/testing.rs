//! What the reducer's tests share: the story they start from, and a way to apply several
//! actions at once.

use fencepost_sim::preset;

use super::Action;
use super::edit::Edit;
use super::page::State;

/// The page on the paused-worker story.
pub fn paused() -> State {
    State::new(preset("paused-worker").unwrap().scenario())
}

/// `s` after `actions`, in order.
pub fn apply(mut s: State, actions: impl IntoIterator<Item = Action>) -> State {
    for a in actions {
        s.apply(a);
    }
    s
}

/// A click on worker `worker`'s lane at `at`.
pub fn click(worker: usize, at: u64) -> Action {
    Action::Edit(Edit::LaneClick { worker, at })
}
