//! The store's own write log (lines without `kind`): token regressions and stale owners.

use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::finding::{About, Finding, FindingKind};
use super::parse::Line;
use super::{ENTRY_BYTES, OWNERS_PER_TOKEN, name_bytes};

#[derive(Clone, Debug)]
pub(crate) struct ResourceState {
    highest: u64,
    /// Writer and line of the first acceptance of `highest`.
    highest_writer: String,
    highest_line: u64,
    /// The newest owner: writer, token, line of its first accepted write.
    newest_writer: String,
    newest_hash: u64,
    newest_token: u64,
    newest_line: u64,
    /// Hashes of writers that wrote with `highest`, oldest first.
    owners: [u64; OWNERS_PER_TOKEN],
    owner_count: u8,
}

impl ResourceState {
    fn knows(&self, hash: u64) -> bool {
        self.owners[..usize::from(self.owner_count)].contains(&hash)
    }

    fn remember(&mut self, hash: u64) {
        let n = usize::from(self.owner_count);
        if n < OWNERS_PER_TOKEN {
            self.owners[n] = hash;
            self.owner_count += 1;
        } else {
            self.owners.copy_within(1.., 0);
            self.owners[OWNERS_PER_TOKEN - 1] = hash;
        }
    }

    /// The highest token accepted.
    pub(crate) const fn highest(&self) -> u64 {
        self.highest
    }
}

/// FNV-1a, 64 bits: a stable identity for a writer name.
fn name_hash(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The resources the store accepted writes for.
#[derive(Clone, Debug, Default)]
pub(crate) struct Store {
    pub(crate) resources: BTreeMap<String, ResourceState>,
}

impl Store {
    /// Checks an accepted write (line `no`), adding findings to `out`; returns the change in
    /// bytes held and whether the resource was new.
    pub(crate) fn accept(
        &mut self,
        no: u64,
        line: Line<'_>,
        out: &mut Vec<Finding>,
    ) -> (i64, bool) {
        let hash = name_hash(&line.writer);
        let Some(st) = self.resources.get_mut(line.resource.as_ref()) else {
            let held =
                ENTRY_BYTES + name_bytes(line.resource.len()) + 2 * name_bytes(line.writer.len());
            let mut owners = [0; OWNERS_PER_TOKEN];
            owners[0] = hash;
            self.resources.insert(
                line.resource.into_owned(),
                ResourceState {
                    highest: line.token,
                    highest_writer: line.writer.to_string(),
                    highest_line: no,
                    newest_writer: line.writer.into_owned(),
                    newest_hash: hash,
                    newest_token: line.token,
                    newest_line: no,
                    owners,
                    owner_count: 1,
                },
            );
            return (held as i64, true);
        };
        let finding = |kind, writer: &str, token: u64, line_no: u64| Finding {
            line: no,
            kind,
            t: line.t,
            nemeses: super::Nemeses::NONE,
            about: About::Write {
                resource: line.resource.to_string(),
                writer: line.writer.to_string(),
                token: line.token,
                newer_writer: writer.to_string(),
                newer_token: token,
                newer_line: line_no,
            },
        };
        let mut held: i64 = 0;
        if line.token < st.highest {
            let (w, t, l) = (&st.highest_writer, st.highest, st.highest_line);
            out.push(finding(FindingKind::TokenRegression, w, t, l));
            let (w, t, l) = (&st.newest_writer, st.newest_token, st.newest_line);
            out.push(finding(FindingKind::StaleOwner, w, t, l));
        } else if line.token == st.highest {
            if hash != st.newest_hash {
                if st.knows(hash) {
                    // An owner that wrote with this token before the newest one did.
                    let (w, t, l) = (&st.newest_writer, st.newest_token, st.newest_line);
                    out.push(finding(FindingKind::StaleOwner, w, t, l));
                } else {
                    // A second owner with the same token: it is now the newest.
                    st.remember(hash);
                    held += name_bytes(line.writer.len()) as i64;
                    held -= name_bytes(st.newest_writer.len()) as i64;
                    st.newest_writer = line.writer.into_owned();
                    st.newest_hash = hash;
                    st.newest_line = no;
                }
            }
        } else {
            held += 2 * name_bytes(line.writer.len()) as i64;
            held -=
                (name_bytes(st.highest_writer.len()) + name_bytes(st.newest_writer.len())) as i64;
            st.highest = line.token;
            st.highest_writer = line.writer.to_string();
            st.highest_line = no;
            st.owners = [0; OWNERS_PER_TOKEN];
            st.owners[0] = hash;
            st.owner_count = 1;
            st.newest_writer = line.writer.into_owned();
            st.newest_hash = hash;
            st.newest_token = st.highest;
            st.newest_line = no;
        }
        (held, false)
    }
}
