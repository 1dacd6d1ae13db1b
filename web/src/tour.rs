//! The guided tour: the paused-worker story in seven chapters, for someone who has never heard of
//! fencing, then two on why renewing a lease is not enough, and [`Tour`], where the learner is in
//! it. Each chapter names its story (a preset), places the playhead on a moment of its trace
//! (found by what happened, not by hard-coded times) and names the actors it talks about.

use fencepost_sim::{Actor, Detail, Kind, Msg, Trace};

use crate::model::{Playhead, end_time};

/// The preset the tour starts with (and the page shows a first-time visitor).
pub const TOUR_PRESET: &str = "paused-worker";

/// The preset of the chapter on renewal that works.
const SLOW_NETWORK: &str = "renewal-slow-network";
/// The preset of the chapter on renewal that cannot help.
const LONG_PAUSE: &str = "renewal-long-pause";

/// Where the learner is in the tour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tour {
    /// The chapter open, while the tour is.
    pub chapter: Option<usize>,
}

impl Tour {
    /// Whether the tour is open.
    pub fn is_open(self) -> bool {
        self.chapter.is_some()
    }

    /// The actors the open chapter talks about (highlighted on the timeline).
    pub fn actors(self) -> Vec<Actor> {
        self.chapter
            .and_then(|i| CHAPTERS.get(i))
            .map(|c| c.actors.to_vec())
            .unwrap_or_default()
    }
}

/// One chapter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chapter {
    /// Short title.
    pub title: &'static str,
    /// What to read.
    pub text: &'static str,
    /// The actors it talks about (highlighted on the timeline).
    pub actors: &'static [Actor],
    /// The preset it tells.
    pub preset: &'static str,
    /// Whether the storage checks tokens in this chapter.
    pub fencing: bool,
    /// The moment it shows.
    moment: Moment,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Moment {
    /// A learns it holds the lock.
    FirstGrantLearned,
    /// Someone is told to wait while a worker is frozen (else: the freeze itself).
    WhilePaused,
    /// A lease runs out.
    Expiry,
    /// The storage applies the first write.
    FirstWriteApplied,
    /// A worker sends a write after resuming.
    WriteAfterPause,
    /// The storage refuses a write.
    Refusal,
    /// The first renewal answer a worker takes after the deadline its grant alone gave it.
    RenewedPastTheGrant,
    /// The end of the run.
    End,
}

const A: Actor = Actor::Worker(0);
const B: Actor = Actor::Worker(1);

/// Every chapter, in order.
pub const CHAPTERS: &[Chapter] = &[
    Chapter {
        title: "The lease",
        text: "Two workers, A and B, take turns updating one shared file in the storage. So that \
               they never write at the same time, each first asks a lock service for permission. \
               A asks first and gets a lease: the lock is A's for the next 30 seconds. The lease \
               comes with a number, 33, called a fencing token. Keep an eye on that number.",
        actors: &[Actor::Lock, A],
        preset: TOUR_PRESET,
        fencing: true,
        moment: Moment::FirstGrantLearned,
    },
    Chapter {
        title: "The pause",
        text: "One second in, A freezes. A long garbage-collection pause, a virtual machine \
               being suspended, a laptop lid closing: the program simply stops, and it cannot \
               notice that it stopped. The hatched band on A's lane grows for as long as A is \
               frozen. Everyone else carries on: B asks for the lock and is told to wait until \
               A's lease ends.",
        actors: &[A, B],
        preset: TOUR_PRESET,
        fencing: true,
        moment: Moment::WhilePaused,
    },
    Chapter {
        title: "The expiry",
        text: "Thirty seconds after the grant, A's lease runs out. From the outside, a frozen \
               worker looks exactly like a dead one, so the lock service frees the lock: that is \
               what leases are for. But A, still frozen, believes it holds the lock. From now on \
               a striped band on A's lane marks that gap between belief and reality, and A's \
               label says it too: a zombie lease.",
        actors: &[Actor::Lock, A],
        preset: TOUR_PRESET,
        fencing: true,
        moment: Moment::Expiry,
    },
    Chapter {
        title: "The takeover",
        text: "B has been waiting. Now it gets the lock, with the next token: 34. B does its work \
               and writes to the storage. The storage applies the write and remembers the \
               highest token it has accepted so far: 34.",
        actors: &[Actor::Lock, B, Actor::Storage],
        preset: TOUR_PRESET,
        fencing: true,
        moment: Moment::FirstWriteApplied,
    },
    Chapter {
        title: "The stale write",
        text: "At 46 seconds A wakes up exactly where it stopped. Nothing told it that time \
               passed, so as far as A knows it still holds the lock. It sends its write, carrying \
               its token: 33. Checking the lease first would not help: A could freeze again right \
               after the check.",
        actors: &[A, Actor::Storage],
        preset: TOUR_PRESET,
        fencing: true,
        moment: Moment::WriteAfterPause,
    },
    Chapter {
        title: "What fencing does",
        text: "The storage compares tokens. It has already accepted 34, and 33 is lower, so the \
               write comes from an owner that has been replaced: it refuses it (✗ 33 < 34). B's \
               data is safe, and A learns it lost the lock. That check, made by the resource \
               itself at the moment of the write, is fencing.",
        actors: &[Actor::Storage, A],
        preset: TOUR_PRESET,
        fencing: true,
        moment: Moment::Refusal,
    },
    Chapter {
        title: "Without fencing",
        text: "Here is the same story with the check turned off: the storage keeps whatever \
               arrives last. A's stale write lands on top of B's newer one, and no one is told. \
               The banner says what broke. Next: would renewing the lease have saved A?",
        actors: &[Actor::Storage, A, B],
        preset: TOUR_PRESET,
        fencing: false,
        moment: Moment::End,
    },
    Chapter {
        title: "Auto-renew",
        text: "A careful worker renews its lease while it works. Here A has a 20 second lease for \
               a 30 second job, and renews every 5 seconds through a slow network: each answer \
               takes seconds. The green band on A's lane is how long A may still act, as its \
               lease keeper counts it: from when each renewal was sent, never from when its answer \
               came. Every answer arrives before the band runs out, so it moves the band on, and \
               A keeps the lease well past the 20 seconds the grant alone gave it.",
        actors: &[A, Actor::Lock],
        preset: SLOW_NETWORK,
        fencing: true,
        moment: Moment::RenewedPastTheGrant,
    },
    Chapter {
        title: "Why auto-renew is not enough",
        text: "Now A renews its 10 second lease every 3 seconds, and then freezes for 15 seconds, \
               just before a write. A frozen worker sends no renewals: A's band stops at 16.1 \
               seconds, the lease expires, and B gets 34 and writes. When A wakes, the write it was \
               about to send leaves first; only then does its keeper tell it the lease is lost. \
               No renewal schedule can cover a pause longer than the time left on the lease: only \
               the storage's fence refuses 33. Leave the tour to explore: change the pause or the \
               lease, turn fencing off to see 33 land on 34, or click a lane to freeze a worker.",
        actors: &[A, B, Actor::Storage],
        preset: LONG_PAUSE,
        fencing: true,
        moment: Moment::Refusal,
    },
];

impl Chapter {
    /// Where the playhead goes for this chapter in `trace`. If the moment cannot be found (the
    /// scenario was changed), the start or the end of the trace.
    pub fn playhead(&self, trace: &Trace) -> Playhead {
        let find =
            |pred: &dyn Fn(&fencepost_sim::Event) -> bool| trace.events.iter().position(pred);
        let index = match self.moment {
            Moment::FirstGrantLearned => find(&|e| {
                matches!(
                    e.detail,
                    Detail::Deliver {
                        what: Msg::Granted { .. },
                        ..
                    }
                )
            }),
            Moment::WhilePaused => {
                let paused = find(&|e| e.kind() == Kind::PauseStart);
                paused.map(|p| {
                    trace.events[p..]
                        .iter()
                        .position(|e| {
                            matches!(
                                e.detail,
                                Detail::Deliver {
                                    what: Msg::Denied { .. },
                                    ..
                                }
                            )
                        })
                        .map_or(p, |i| i + p)
                })
            }
            Moment::Expiry => find(&|e| e.kind() == Kind::Expire),
            Moment::FirstWriteApplied => find(&|e| e.kind() == Kind::WriteAccepted),
            Moment::WriteAfterPause => {
                let resumed = find(&|e| e.kind() == Kind::PauseEnd);
                resumed.and_then(|r| {
                    trace.events[r..]
                        .iter()
                        .position(|e| {
                            matches!(
                                e.detail,
                                Detail::Send {
                                    what: Msg::Write { .. },
                                    ..
                                }
                            )
                        })
                        .map(|i| i + r)
                })
            }
            Moment::Refusal => find(&|e| e.kind() == Kind::WriteRejected),
            Moment::RenewedPastTheGrant => renewed_past_the_grant(trace),
            Moment::End => return Playhead::at_time(trace, end_time(trace)),
        };
        match index {
            Some(i) => Playhead::at_event(trace, i),
            None if self.moment == Moment::FirstGrantLearned => Playhead::default(),
            None => Playhead::at_time(trace, end_time(trace)),
        }
    }
}

/// The first renewal answer a worker takes after the safe-until its grant alone gave it.
fn renewed_past_the_grant(trace: &Trace) -> Option<usize> {
    let granted_until = trace.events.iter().find_map(|e| match e.detail {
        Detail::Deliver {
            what: Msg::Granted { .. },
            believed_until: Some(u),
            ..
        } => Some(u),
        _ => None,
    })?;
    trace.events.iter().position(|e| {
        e.t_ms > granted_until
            && matches!(
                e.detail,
                Detail::Deliver {
                    what: Msg::Renewed { .. },
                    believed_until: Some(_),
                    ..
                }
            )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fencepost_sim::{RunOptions, preset, run_with};

    fn story(fencing: bool) -> Trace {
        run_with(
            &preset(TOUR_PRESET).unwrap().scenario(),
            RunOptions {
                fencing: Some(fencing),
                ..RunOptions::default()
            },
        )
    }

    /// The trace a chapter shows: its preset, fencing as the chapter has it.
    fn shown(c: &Chapter) -> Trace {
        run_with(
            &preset(c.preset).unwrap().scenario(),
            RunOptions {
                fencing: Some(c.fencing),
                ..RunOptions::default()
            },
        )
    }

    #[test]
    fn nine_chapters_walk_forward_through_the_stories() {
        assert_eq!(CHAPTERS.len(), 9);
        let titles: Vec<&str> = CHAPTERS.iter().map(|c| c.title).collect();
        assert_eq!(
            titles,
            [
                "The lease",
                "The pause",
                "The expiry",
                "The takeover",
                "The stale write",
                "What fencing does",
                "Without fencing",
                "Auto-renew",
                "Why auto-renew is not enough"
            ]
        );
        let presets: Vec<&str> = CHAPTERS.iter().map(|c| c.preset).collect();
        assert_eq!(presets[..7], [TOUR_PRESET; 7]);
        assert_eq!(presets[7..], ["renewal-slow-network", "renewal-long-pause"]);
        let off = story(false);
        let moments: Vec<(u64, usize)> = CHAPTERS
            .iter()
            .map(|c| {
                let p = c.playhead(&shown(c));
                (p.t, p.upto)
            })
            .collect();
        assert_eq!(
            moments,
            [
                (100, 5),
                (10_100, 11),
                (30_050, 12),
                (31_200, 20),
                (46_000, 28),
                // The refusal is event 30: A's keeper tells it at 46 s (event 28) that its lease
                // is lost, after its write has left (event 27).
                (46_050, 31),
                (46_150, off.events.len()),
                (21_397, 34),
                (22_150, 47),
            ]
        );
        // The chapter without fencing ends on the violation; every other one has fencing on.
        assert!(!off.verdict.ok);
        assert!(
            CHAPTERS
                .iter()
                .enumerate()
                .all(|(i, c)| c.fencing == (i != 6))
        );
    }

    #[test]
    fn chapters_name_what_they_show() {
        let on = story(true);
        let refusal = CHAPTERS[5].playhead(&on);
        let e = refusal.current(&on).unwrap();
        assert_eq!(
            on.explain(e),
            "the storage refuses A's write with token 33: it has already accepted 34 from B"
        );
        assert!(CHAPTERS[5].text.contains("33 < 34"));
        assert!(CHAPTERS[5].actors.contains(&Actor::Storage));
    }

    #[test]
    fn the_renewal_chapters_show_the_band_moving_and_then_stopping() {
        // Auto-renew: at its moment A's latest renewal answer counts from the renew sent at
        // 18.538 s, far past the 20 s its grant gave.
        let slow = shown(&CHAPTERS[7]);
        let at = CHAPTERS[7].playhead(&slow);
        let e = at.current(&slow).unwrap();
        assert_eq!(
            slow.explain(e),
            "A learns its lease was renewed and believes it holds the lock until 38.538 s"
        );
        // Why auto-renew is not enough: the refusal of 33, after A's keeper said it was lost.
        let pause = shown(&CHAPTERS[8]);
        let at = CHAPTERS[8].playhead(&pause);
        assert_eq!(
            pause.explain(at.current(&pause).unwrap()),
            "the storage refuses A's write with token 33: it has already accepted 34 from B"
        );
        // A's keeper says the lease is lost at 22.1 s, counted safe until 16.1 s: what the
        // chapter's text tells the reader.
        let lost = pause.events[..at.upto]
            .iter()
            .find(|e| e.kind() == Kind::LeaseLost)
            .unwrap();
        assert_eq!(
            (lost.t_ms, &lost.detail),
            (
                22_100,
                &fencepost_sim::Detail::LeaseLost {
                    why: fencepost_sim::LossWhy::Expired,
                    believed_until: Some(16_100)
                }
            )
        );
        assert!(CHAPTERS[8].text.contains("A's band stops at 16.1 seconds"));
    }

    #[test]
    fn a_changed_scenario_still_places_every_chapter() {
        let mut s = preset(TOUR_PRESET).unwrap().scenario();
        s.faults.clear();
        let t = fencepost_sim::run(&s);
        for c in CHAPTERS {
            let p = c.playhead(&t);
            assert!(p.upto <= t.events.len());
        }
        assert_eq!(CHAPTERS[1].playhead(&t).upto, t.events.len());
    }
}
