//! The Explore panel's jobs (a seed sweep, the exhaustive search), run a slice at a time: each
//! slice runs for a few milliseconds, then yields to the browser with a zero-delay timeout, so
//! the page keeps responding. Dropping the pending timeout cancels the job. Not a component: the
//! panel ([`super::explore_panel`]) owns a [`Runner`] and shows its [`View`].

use std::cell::RefCell;
use std::rc::Rc;

use fencepost_sim::explore::{Search, SearchReport};
use fencepost_sim::sweep::{Progress, Sweep, SweepReport};
use fencepost_sim::template::Source;
use gloo_timers::callback::Timeout;
use yew::prelude::*;

use crate::dom;

/// Time one slice may take before yielding to the browser.
const SLICE_MS: f64 = 12.0;

/// The work the panel runs.
pub enum Job {
    /// A seed sweep.
    Sweep(Box<Sweep>),
    /// The exhaustive search.
    Search(Box<Search>),
}

/// What the panel shows: the last sweep and the last search, and which one is running.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct View {
    /// A job is running.
    pub running: bool,
    /// The running job is the search.
    pub searching: bool,
    /// The last sweep was cancelled.
    pub sweep_cancelled: bool,
    /// The last search was cancelled.
    pub search_cancelled: bool,
    /// How far the last sweep got.
    pub progress: Option<Progress>,
    /// What the last sweep found.
    pub sweep: Option<SweepReport>,
    /// What the last sweep ran: its seeds load from this, whatever the source picker and the
    /// scenario on screen say now.
    pub swept: Option<Rc<Source>>,
    /// What the last search found.
    pub search: Option<SearchReport>,
    /// The last sweep's speed.
    pub runs_per_sec: Option<f64>,
    /// Why the last job could not run, or failed.
    pub error: Option<String>,
}

/// The job being run, and the timeout that runs its next slice.
#[derive(Default)]
pub struct Runner {
    job: Option<Job>,
    pending: Option<Timeout>,
    busy_ms: f64,
}

impl Runner {
    /// Starts `job`, the panel showing `fresh` (in place of any job running).
    pub fn start(runner: &Rc<RefCell<Runner>>, view: &UseStateHandle<View>, job: Job, fresh: View) {
        let mut r = runner.borrow_mut();
        r.pending = None;
        r.job = Some(job);
        r.busy_ms = 0.0;
        let (runner2, view2) = (runner.clone(), view.clone());
        r.pending = Some(Timeout::new(0, move || pump(runner2, view2)));
        drop(r);
        view.set(fresh);
    }

    /// Stops the job; returns it.
    pub fn stop(&mut self) -> Option<Job> {
        self.pending = None;
        self.job.take()
    }
}

/// Runs one slice of the job, publishes what it found, and schedules the next slice.
fn pump(runner: Rc<RefCell<Runner>>, view: UseStateHandle<View>) {
    let mut r = runner.borrow_mut();
    let start = dom::now();
    let mut next = (*view).clone();
    match r.job.as_mut() {
        Some(Job::Sweep(sweep)) => {
            let mut p = sweep.progress();
            // Step in small batches until the slice is used up.
            while !p.finished() && dom::now() - start < SLICE_MS {
                p = sweep.step(4);
            }
            next.progress = Some(p);
            next.sweep = Some(sweep.report().clone());
            if p.finished() {
                next.running = false;
            }
        }
        Some(Job::Search(search)) => {
            let mut done = search.finished();
            let mut failed = None;
            while !done && dom::now() - start < SLICE_MS {
                match search.step(256) {
                    Ok(d) => done = d,
                    Err(e) => {
                        failed = Some(e.to_string());
                        done = true;
                    }
                }
            }
            next.search = Some(search.report().clone());
            next.error = failed;
            if done {
                next.running = false;
                next.searching = false;
            }
        }
        None => {
            next.running = false;
            next.searching = false;
        }
    }
    r.busy_ms += dom::now() - start;
    // The rate is the sweep's: a search running later must not divide its time into those runs.
    if let (Some(Job::Sweep(_)), Some(rep)) = (&r.job, &next.sweep) {
        next.runs_per_sec = Some(rep.runs_per_sec(r.busy_ms / 1000.0));
    }
    if next.running {
        let (runner2, view2) = (runner.clone(), view.clone());
        r.pending = Some(Timeout::new(0, move || pump(runner2, view2)));
    } else {
        r.pending = None;
        r.job = None;
    }
    drop(r);
    view.set(next);
}
