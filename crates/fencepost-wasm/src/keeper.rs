//! The holder's side of a lease, [`fencepost::Keeper`], for the package's lease client: the
//! client does the I/O and the timers, and asks the keeper everything else (the state, the
//! deadline, when to send).
//!
//! A [`Ticket`] cannot cross to JavaScript (only the keeper that issued it may make one), so each
//! keeper object keeps its outstanding tickets under small numbers, and JavaScript hands a number
//! back with the answer.

use alloc::boxed::Box;
use alloc::vec::Vec;

use fencepost::{
    Answer, Failure, Keeper, KeeperConfig, KeeperConfigError, KeeperError, LeaseState, Loss,
    Ticket, Token,
};
use wasm_bindgen::prelude::wasm_bindgen;

use crate::abi::{Out, js_ms, ms};
use crate::errors::{code, fail};
use crate::kinds::Held;
use crate::objects::{NONE, Object};
use crate::out::answers::{self, Lost, OtherToken};
use crate::state::with;

/// Requests of one lease whose answers are still awaited, at most. Past that the oldest one is
/// forgotten: its answer, if it ever comes, is refused as an unknown ticket, which only loses
/// news of an old request (a newer one is out).
pub const MAX_TICKETS: usize = 64;

/// What [`keeper_call`] does.
pub mod op {
    crate::numbered! {
        /// A request is being sent at `now`: returns its ticket number.
        SEND = 0;
        /// Ticket `ticket` was answered at `now` with a grant of `token` for `ttl` ms.
        GRANTED = 1;
        /// Ticket `ticket` failed at `now` with no word on the lease (network, server error).
        TRANSIENT = 2;
        /// Ticket `ticket` was refused at `now`: the lease is not (or no longer) this holder's.
        REFUSED = 3;
        /// The holder lets go at `now`.
        RELEASED = 4;
        /// Only reads the state at `now`.
        STATE = 5;
    }
}

/// The states [`keeper_call`] answers, each with the keeper's [`answers::Keeper`], and for
/// [`state::LOST`] why (see [`answers::Lost`] and [`loss`]).
pub mod state {
    crate::numbered! {
        #[allow(missing_docs)]
        ACQUIRING = 0;
        #[allow(missing_docs)]
        HELD = 1;
        /// Held, but renewals are failing.
        UNCERTAIN = 2;
        #[allow(missing_docs)]
        LOST = 3;
        /// The answer was refused (see `error` in [`Out`](crate::abi::Out)); the state is
        /// unchanged.
        ERROR = 4;
    }
}

/// Why a lease was lost (see [`answers::Lost`]).
pub mod loss {
    crate::numbered! {
        #[allow(missing_docs)]
        EXPIRED = 0;
        #[allow(missing_docs)]
        REFUSED = 1;
        #[allow(missing_docs)]
        RELEASED = 2;
    }
}

/// A negative (or NaN) option means the core's default.
fn or_default(v: f64, default: u64) -> u64 {
    if v >= 0.0 { ms(v) } else { default }
}

fn config_error(e: KeeperConfigError) -> u32 {
    match e {
        KeeperConfigError::DriftOutOfRange => fail(code::KEEPER_DRIFT, 0),
        KeeperConfigError::RenewOutOfRange => fail(code::KEEPER_RENEW, 0),
        KeeperConfigError::ZeroRetry => fail(code::KEEPER_RETRY, 0),
        KeeperConfigError::ZeroTtl => fail(code::ZERO_TTL, 0),
        _ => fail(code::UNKNOWN, 0),
    }
}

/// A new keeper for a lease of `ttl` ms about to be acquired at `now`, judged with a drift bound
/// of `drift` ppm and a margin of `margin` ms, renewing `renew` ppm of the TTL in and retrying
/// every `retry` ms (each negative for the core's default): its index, or [`NONE`] (see `error`
/// in [`Out`]) for a config the core refuses.
#[wasm_bindgen]
#[inline(never)]
pub fn keeper_new(ttl: f64, now: f64, drift: f64, margin: f64, renew: f64, retry: f64) -> u32 {
    let d = KeeperConfig::new();
    // Saturating casts: a ppm past u32::MAX stays out of range and is refused as such.
    let ppm =
        |v: f64, default: u32| u32::try_from(or_default(v, default.into())).unwrap_or(u32::MAX);
    let cfg = KeeperConfig {
        drift_ppm: ppm(drift, d.drift_ppm),
        margin_ms: or_default(margin, d.margin_ms),
        renew_ppm: ppm(renew, d.renew_ppm),
        retry_ms: or_default(retry, d.retry_ms),
    };
    match Keeper::new(cfg, ms(ttl), ms(now)) {
        Ok(inner) => with(NONE, |st| {
            // Its tickets get their whole room now, so a send never allocates.
            let tickets = MAX_TICKETS * size_of::<(u32, Ticket)>();
            if !st.objects.room_to_add(&[size_of::<Held>(), tickets]) {
                return NONE;
            }
            st.objects.add(Object::Keeper(Box::new(Held {
                inner,
                tickets: Vec::with_capacity(MAX_TICKETS),
                next_id: 0,
            })))
        }),
        Err(e) => {
            config_error(e);
            NONE
        }
    }
}

/// Tells keeper `i` what happened at `now` (see [`op`]) and answers its state (see [`state`]);
/// [`op::SEND`] answers the ticket's number instead. An index that is not a keeper answers
/// [`state::ERROR`] ([`NONE`] for a send).
#[wasm_bindgen]
#[inline(never)]
pub fn keeper_call(op: u32, i: u32, ticket: u32, token: u64, ttl: f64, now: f64) -> u32 {
    let none = if op == op::SEND { NONE } else { state::ERROR };
    with(none, |st| {
        let Some(Object::Keeper(k)) = st.objects.0.get(i) else {
            return none;
        };
        let now = ms(now);
        let answered = match op {
            op::SEND => return k.send(now),
            op::GRANTED | op::TRANSIENT | op::REFUSED => {
                let Some(t) = k.find(ticket) else {
                    fail(code::UNKNOWN_TICKET, 0);
                    return state::ERROR;
                };
                let answered = match (op, Token::new(token)) {
                    (op::GRANTED, Some(token)) => {
                        let answer = Answer {
                            token,
                            ttl_ms: ms(ttl),
                        };
                        k.inner.granted(t, answer, now)
                    }
                    (op::GRANTED, None) => {
                        fail(code::ZERO, 0);
                        return state::ERROR;
                    }
                    (op::TRANSIENT, _) => k.inner.failed(t, Failure::Transient, now),
                    _ => k.inner.failed(t, Failure::Refused, now),
                };
                // Each ticket answers once; one whose answer was refused stays for a right one.
                if answered.is_ok() {
                    k.forget(ticket);
                }
                answered
            }
            op::RELEASED => Ok(k.inner.released(now)),
            _ => Ok(k.inner.state(now)),
        };
        match answered {
            Ok(s) => st.out.keeper(&k.inner, s),
            Err(KeeperError::OtherToken { held, .. }) => {
                let held = held.get();
                OtherToken { held }.write(&mut st.out);
                fail(code::OTHER_TOKEN, 0);
                state::ERROR
            }
            Err(_) => {
                fail(code::UNKNOWN_TICKET, 0);
                state::ERROR
            }
        }
    })
}

impl Held {
    fn send(&mut self, now: u64) -> u32 {
        if self.tickets.len() == MAX_TICKETS {
            self.tickets.remove(0);
        }
        let id = self.next_id;
        // Numbers wrap after 2^32 requests; the table holds far fewer, so none is ambiguous.
        self.next_id = id.wrapping_add(1) % NONE;
        self.tickets.push((id, self.inner.send(now)));
        id
    }

    /// The ticket numbered `id`, if it is still awaited.
    fn find(&self, id: u32) -> Option<Ticket> {
        self.tickets
            .iter()
            .find(|&&(n, _)| n == id)
            .map(|&(_, t)| t)
    }

    /// Forgets ticket `id`: it has been answered.
    fn forget(&mut self, id: u32) {
        self.tickets.retain(|&(n, _)| n != id);
    }
}

impl Out {
    /// Writes keeper `k`'s answer for its state `s` (see [`state`]); answers the state's code.
    pub(crate) fn keeper(&mut self, k: &Keeper, s: LeaseState) -> u32 {
        let token = k.token().map_or(0, Token::get);
        let safe_until = k.safe_until().map_or(-1.0, js_ms);
        let next_send = k.next_send().map_or(-1.0, js_ms);
        answers::Keeper {
            token,
            safe_until,
            next_send,
        }
        .write(self);
        match s {
            LeaseState::Acquiring => state::ACQUIRING,
            LeaseState::Held { .. } => state::HELD,
            LeaseState::Uncertain { .. } => state::UNCERTAIN,
            LeaseState::Lost { why, .. } => {
                let why = match why {
                    Loss::Expired => loss::EXPIRED,
                    Loss::Refused => loss::REFUSED,
                    Loss::Released => loss::RELEASED,
                };
                Lost { why }.write(self);
                state::LOST
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abi::free;
    use crate::objects::kind;
    use crate::tests::{last_error, serial};

    /// (token, safe-until, next send, why) of the last answer.
    fn out() -> (u64, f64, f64, u32) {
        with((0, 0.0, 0.0, 0), |st| {
            (st.out.token, st.out.time, st.out.time2, st.out.depth)
        })
    }

    /// A 30 s lease with the core's defaults (0.1% drift, 100 ms margin, renew a third in).
    fn defaults(now: f64) -> u32 {
        keeper_new(30_000.0, now, -1.0, -1.0, -1.0, -1.0)
    }

    #[test]
    fn the_story_through_the_bindings() {
        let _turn = serial();
        let k = defaults(0.0);
        assert_ne!(k, NONE);
        assert_eq!(keeper_call(op::STATE, k, 0, 0, 0.0, 0.0), state::ACQUIRING);
        assert_eq!(out(), (0, -1.0, -1.0, out().3));
        let sent = keeper_call(op::SEND, k, 0, 0, 0.0, 0.0);
        assert_eq!(
            keeper_call(op::GRANTED, k, sent, 33, 30_000.0, 400.0),
            state::HELD
        );
        // Counted from the send: 30 s less 0.1% and the margin; renew a third of the way in.
        assert_eq!(out(), (33, 29_870.0, 9_999.0, out().3));
        // A renewal sent on time and answered keeps it held, from its own send time.
        let renew = keeper_call(op::SEND, k, 0, 0, 0.0, 9_999.0);
        assert_eq!(
            keeper_call(op::GRANTED, k, renew, 33, 30_000.0, 10_100.0),
            state::HELD
        );
        assert_eq!(out(), (33, 39_869.0, 19_998.0, out().3));
        // The holder freezes past safe-until: lost, and nothing more to send.
        assert_eq!(keeper_call(op::STATE, k, 0, 0, 0.0, 45_000.0), state::LOST);
        assert_eq!(out(), (33, 39_869.0, -1.0, loss::EXPIRED));
        free(kind::KEEPER, k);
        assert_eq!(keeper_call(op::STATE, k, 0, 0, 0.0, 0.0), state::ERROR);
        assert_eq!(keeper_call(op::SEND, k, 0, 0, 0.0, 0.0), NONE);
    }

    #[test]
    fn a_grant_answered_after_its_safe_until_answers_lost_with_its_token() {
        let _turn = serial();
        let k = defaults(0.0);
        let sent = keeper_call(op::SEND, k, 0, 0, 0.0, 0.0);
        // Safe until 29_870 counted from the send; the answer comes at 30_000.
        assert_eq!(
            keeper_call(op::GRANTED, k, sent, 33, 30_000.0, 30_000.0),
            state::LOST
        );
        assert_eq!(out(), (33, 29_870.0, -1.0, loss::EXPIRED));
        free(kind::KEEPER, k);
    }

    #[test]
    fn failures_make_it_uncertain_and_a_refusal_loses_it() {
        let _turn = serial();
        let k = keeper_new(3_000.0, 0.0, 0.0, 0.0, -1.0, 100.0);
        let a = keeper_call(op::SEND, k, 0, 0, 0.0, 0.0);
        // Refused while acquiring: the lock is someone else's, keep acquiring.
        assert_eq!(
            keeper_call(op::REFUSED, k, a, 0, 0.0, 10.0),
            state::ACQUIRING
        );
        let a = keeper_call(op::SEND, k, 0, 0, 0.0, 20.0);
        assert_eq!(
            keeper_call(op::GRANTED, k, a, 7, 3_000.0, 30.0),
            state::HELD
        );
        assert_eq!(out(), (7, 3_020.0, 1_019.0, out().3));
        let r = keeper_call(op::SEND, k, 0, 0, 0.0, 1_019.0);
        assert_eq!(
            keeper_call(op::TRANSIENT, k, r, 0, 0.0, 1_050.0),
            state::UNCERTAIN
        );
        // Retry after the retry interval, still before safe-until.
        assert_eq!(out(), (7, 3_020.0, 1_150.0, out().3));
        let r = keeper_call(op::SEND, k, 0, 0, 0.0, 1_150.0);
        assert_eq!(keeper_call(op::REFUSED, k, r, 0, 0.0, 1_160.0), state::LOST);
        assert_eq!(out(), (7, 3_020.0, -1.0, loss::REFUSED));
        free(kind::KEEPER, k);
    }

    #[test]
    fn answers_it_cannot_take_are_errors_and_change_nothing() {
        let _turn = serial();
        let k = keeper_new(3_000.0, 0.0, 0.0, 0.0, -1.0, -1.0);
        assert_eq!(
            keeper_call(op::GRANTED, k, 5, 7, 3_000.0, 0.0),
            state::ERROR
        );
        assert_eq!(last_error(), code::UNKNOWN_TICKET);
        let a = keeper_call(op::SEND, k, 0, 0, 0.0, 0.0);
        assert_eq!(
            keeper_call(op::GRANTED, k, a, 0, 3_000.0, 1.0),
            state::ERROR
        );
        assert_eq!(last_error(), code::ZERO);
        // The refused answer did not use the ticket up: the right answer is still taken.
        assert_eq!(keeper_call(op::GRANTED, k, a, 7, 3_000.0, 1.0), state::HELD);
        // Each ticket answers once.
        assert_eq!(
            keeper_call(op::GRANTED, k, a, 7, 3_000.0, 2.0),
            state::ERROR
        );
        assert_eq!(last_error(), code::UNKNOWN_TICKET);
        let r = keeper_call(op::SEND, k, 0, 0, 0.0, 10.0);
        assert_eq!(
            keeper_call(op::GRANTED, k, r, 8, 3_000.0, 20.0),
            state::ERROR
        );
        assert_eq!(last_error(), code::OTHER_TOKEN);
        assert_eq!(out().0, 7);
        // The refused answer changed nothing: the renewal counts as unanswered, overdue after the
        // retry interval (250 ms by default).
        assert_eq!(keeper_call(op::STATE, k, 0, 0, 0.0, 30.0), state::HELD);
        assert_eq!(
            keeper_call(op::STATE, k, 0, 0, 0.0, 260.0),
            state::UNCERTAIN
        );
        // Its right answer still counts, from the renewal's send time.
        assert_eq!(
            keeper_call(op::GRANTED, k, r, 7, 3_000.0, 265.0),
            state::HELD
        );
        assert_eq!(out().1, 3_010.0);
        assert_eq!(keeper_call(op::RELEASED, k, 0, 0, 0.0, 270.0), state::LOST);
        assert_eq!(out(), (7, 3_010.0, -1.0, loss::RELEASED));
        free(kind::KEEPER, k);
    }

    #[test]
    fn only_the_newest_tickets_are_kept() {
        let _turn = serial();
        let k = keeper_new(3_000.0, 0.0, 0.0, 0.0, -1.0, -1.0);
        let first = keeper_call(op::SEND, k, 0, 0, 0.0, 0.0);
        let mut last = first;
        for _ in 0..MAX_TICKETS {
            last = keeper_call(op::SEND, k, 0, 0, 0.0, 0.0);
        }
        assert_eq!(
            keeper_call(op::TRANSIENT, k, first, 0, 0.0, 1.0),
            state::ERROR
        );
        assert_eq!(last_error(), code::UNKNOWN_TICKET);
        assert_eq!(
            keeper_call(op::GRANTED, k, last, 9, 3_000.0, 1.0),
            state::HELD
        );
        free(kind::KEEPER, k);
    }

    #[test]
    fn configs_the_core_refuses_are_codes() {
        let _turn = serial();
        for (args, want) in [
            ((0.0, -1.0, -1.0, -1.0), code::ZERO_TTL),
            ((3_000.0, 1_000_001.0, -1.0, -1.0), code::KEEPER_DRIFT),
            ((3_000.0, 1e300, -1.0, -1.0), code::KEEPER_DRIFT),
            ((3_000.0, -1.0, 0.0, -1.0), code::KEEPER_RENEW),
            ((3_000.0, -1.0, 2e6, -1.0), code::KEEPER_RENEW),
            ((3_000.0, -1.0, -1.0, 0.0), code::KEEPER_RETRY),
        ] {
            let (ttl, drift, renew, retry) = args;
            assert_eq!(keeper_new(ttl, 0.0, drift, 100.0, renew, retry), NONE);
            assert_eq!(last_error(), want, "{args:?}");
        }
    }
}
