//! The storage as an actor of the run: it takes each write as its rule says (see
//! [`super::store`]), records what it applied, and answers the writer.

use super::sim::{InFlight, Sim};
use super::store::Fate;
use crate::invariants::Owner;
use crate::trace::{Actor, AppliedWrite, Detail, Msg};

impl Sim<'_> {
    pub(super) fn storage_handles(&mut self, m: InFlight) {
        let Actor::Worker(w) = m.from else { return };
        let Msg::Write { op, .. } = m.what else {
            return;
        };
        let token = m.token.unwrap_or(0);
        let op_id = (u64::from(w) << 48) | (u64::from(m.inc) << 32) | u64::from(op);
        let accepted = match self.store.take(token, op_id, m.ordinal) {
            Fate::Apply(previous) => {
                self.apply_write(w, op, &m, previous);
                true
            }
            Fate::Reject(reason, highest) => {
                self.emit(
                    Actor::Storage,
                    m.token,
                    Detail::WriteRejected {
                        writer: w,
                        op,
                        reason,
                        highest,
                    },
                );
                false
            }
            Fate::Dedup => {
                self.emit(
                    Actor::Storage,
                    m.token,
                    Detail::WriteDeduplicated { writer: w, op },
                );
                true
            }
        };
        self.send(
            Actor::Storage,
            Actor::Worker(w),
            m.inc,
            Msg::Ack { op, accepted },
            m.token,
            m.ordinal,
        );
    }

    /// Worker `w`'s write `op` (message `m`) lands in the document; `previous` is the highest
    /// token the storage had accepted, if it keeps one.
    fn apply_write(&mut self, w: u16, op: u32, m: &InFlight, previous: Option<u64>) {
        let token = m.token.unwrap_or(0);
        // Without fencing the storage keeps no high-water mark; record the one that would
        // have been there so the trace can say the stale write landed.
        let previous = previous.or_else(|| self.document.iter().map(|d| d.token).max());
        let seq = self.emit(
            Actor::Storage,
            m.token,
            Detail::WriteAccepted {
                writer: w,
                op,
                previous,
            },
        );
        self.document.push(AppliedWrite {
            writer: w,
            token,
            op,
            t_ms: self.now,
            seq,
        });
        self.checker.on_write_accepted(
            seq,
            self.now,
            Owner {
                ordinal: m.ordinal,
                worker: w,
                inc: m.inc,
                token,
            },
            op,
            &self.names,
        );
    }
}
