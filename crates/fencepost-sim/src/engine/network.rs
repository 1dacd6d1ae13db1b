//! The network: each message is delayed by a latency drawn from the scenario's range, and
//! partitions and held writes delay it further.

use super::queue::Action;
use super::sim::{InFlight, Sim};
use crate::scenario::Fault;
use crate::trace::{Actor, Detail, Msg};

impl Sim<'_> {
    pub(super) fn send(
        &mut self,
        from: Actor,
        to: Actor,
        inc: u16,
        what: Msg,
        token: Option<u64>,
        ordinal: u32,
    ) {
        let lat = self
            .rng
            .range(self.sc.latency_ms.min, self.sc.latency_ms.max);
        let mut deliver_at = self.now.saturating_add(lat);
        let worker = match (from, to) {
            (Actor::Worker(w), _) | (_, Actor::Worker(w)) => Some(w),
            _ => None,
        };
        if let Some(w) = worker {
            for f in &self.sc.faults {
                match f {
                    Fault::Partition {
                        worker,
                        from: p_from,
                        to: p_to,
                    } if self.names[usize::from(w)] == *worker
                        && (*p_from..*p_to).contains(&self.now) =>
                    {
                        deliver_at = deliver_at.max(p_to.saturating_add(lat));
                    }
                    Fault::Hold {
                        worker,
                        nth_write,
                        for_ms,
                    } if matches!(what, Msg::Write { .. })
                        && matches!(from, Actor::Worker(_))
                        && self.names[usize::from(w)] == *worker
                        && self.workers[usize::from(w)].writes_sent == *nth_write =>
                    {
                        deliver_at = deliver_at.saturating_add(*for_ms);
                    }
                    _ => {}
                }
            }
        }
        let id = self.msgs.len() as u32;
        self.msgs.push(InFlight {
            from,
            to,
            inc,
            what,
            token,
            ordinal,
            sent_at: self.now,
        });
        // A renew carries the safe-until it may extend, while there is one: once the keeper has
        // said the lease is lost, a renew the job still sends extends nothing.
        let believed_until = match (from, what) {
            (Actor::Worker(w), Msg::Renew { .. }) => {
                let ws = &self.workers[usize::from(w)];
                if ws.belief.lost() { None } else { ws.believed }
            }
            _ => None,
        };
        self.emit(
            from,
            token,
            Detail::Send {
                msg: id,
                to,
                what,
                deliver_at,
                believed_until,
            },
        );
        self.schedule(deliver_at, Action::Deliver { msg: id });
    }

    pub(super) fn deliver(&mut self, id: u32) {
        let m = self.msgs[id as usize];
        match m.to {
            Actor::Lock => {
                self.emit(Actor::Lock, m.token, self.deliver_detail(id, &m, None));
                self.lock_handles(m);
            }
            Actor::Storage => {
                self.emit(Actor::Storage, m.token, self.deliver_detail(id, &m, None));
                self.storage_handles(m);
            }
            Actor::Worker(w) => {
                let ws = &self.workers[usize::from(w)];
                if !ws.alive || ws.inc != m.inc {
                    // The process it was meant for is gone; nobody reads it.
                    return;
                }
                self.worker_handles(w, id, m);
            }
        }
    }

    pub(super) fn deliver_detail(
        &self,
        id: u32,
        m: &InFlight,
        believed_until: Option<u64>,
    ) -> Detail {
        Detail::Deliver {
            msg: id,
            from: m.from,
            what: m.what,
            sent_at: m.sent_at,
            believed_until,
        }
    }
}
