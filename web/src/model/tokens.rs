//! How tokens are written on the page: as the numbers they are, or as ids with no order.

use fencepost_sim::TokenKind;

/// How tokens are written: as the numbers they are, or, for a scenario whose tokens are unique
/// ids instead of increasing numbers, as short hex ids that carry no order. (The simulator still
/// numbers grants; an id is derived from that number, the same one everywhere on the page.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TokenStyle {
    /// Increasing numbers: `33`, `34`.
    #[default]
    Number,
    /// Unique ids: six hex digits or more.
    UniqueId,
}

impl TokenStyle {
    /// The style for a scenario's kind of token.
    pub fn of(kind: TokenKind) -> TokenStyle {
        match kind {
            TokenKind::Ordered => TokenStyle::Number,
            TokenKind::Uuid => TokenStyle::UniqueId,
        }
    }

    /// One token, as the page writes it.
    pub fn show(self, token: u64) -> String {
        match self {
            TokenStyle::Number => token.to_string(),
            TokenStyle::UniqueId => {
                // As many hex digits as the number needs, at least six; within one width, a
                // permutation of the numbers of that width (every step below is invertible
                // modulo 2^bits), so that distinct tokens always read as distinct ids and
                // neighbouring numbers get unrelated-looking ones.
                let digits = (64 - token.leading_zeros()).div_ceil(4).max(6);
                let bits = digits * 4;
                let mask = u64::MAX >> (64 - bits);
                let half = bits / 2;
                let mut z = token.wrapping_add(0x9e37_79b9_7f4a_7c15) & mask;
                z = ((z ^ (z >> half)).wrapping_mul(0xbf58_476d_1ce4_e5b9)) & mask;
                z = ((z ^ (z >> (half - 1))).wrapping_mul(0x94d0_49bb_1331_11eb)) & mask;
                z ^= z >> half;
                format!("{z:0width$x}", width = digits as usize)
            }
        }
    }

    /// A sentence of the simulator's with its tokens written this way. With unique ids the
    /// storage cannot know that a token is older than another, and the sentence says so.
    pub fn words(self, sentence: &str) -> String {
        if self == TokenStyle::Number {
            return sentence.to_string();
        }
        let s = sentence.replace(
            " even though it already accepted ",
            ", unable to tell that it is older than ",
        );
        const BEFORE: [&str; 5] = ["token ", "token is ", "accepted ", "issued ", "older than "];
        let mut out = String::with_capacity(s.len() + 16);
        let mut rest = s.as_str();
        while let Some((at, len)) = BEFORE
            .iter()
            .filter_map(|m| rest.find(m).map(|i| (i, m.len())))
            .min_by_key(|&(i, len)| (i, usize::MAX - len))
        {
            let (head, tail) = rest.split_at(at + len);
            out.push_str(head);
            let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
            match tail[..digits].parse::<u64>() {
                Ok(n) => out.push_str(&self.show(n)),
                Err(_) => out.push_str(&tail[..digits]),
            }
            rest = &tail[digits..];
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Timeline, banner_at, lane_status_at};
    use fencepost_sim::{Actor, preset, run};

    #[test]
    fn distinct_tokens_read_as_distinct_ids() {
        let ids = TokenStyle::UniqueId;
        let show = |t: u64| ids.show(t);
        assert_eq!(
            [33, 34, 1, 0].map(show),
            ["059828", "4ac396", "6308b8", "ce3d07"]
        );
        assert_eq!(show(0xff_ffff).len(), 6);
        assert_eq!(show(0x100_0000), "377364b");
        assert_eq!(show(u64::MAX), "1da43af3bac50201");
        // A long run's tokens, and the numbers around each change of width.
        let mut seen = std::collections::HashSet::new();
        let edges = (6..16).flat_map(|d| {
            let edge = 1u64 << (4 * d);
            edge - 2_000..edge + 2_000
        });
        for t in (0..200_000).chain(edges).chain(u64::MAX - 2_000..=u64::MAX) {
            let id = show(t);
            let digits = (64 - t.leading_zeros()).div_ceil(4).max(6) as usize;
            assert_eq!(id.len(), digits, "{t}: {id}");
            assert!(id.bytes().all(|c| c.is_ascii_hexdigit()), "{t}: {id}");
            assert!(seen.insert(id), "{t} reads as an id shown before");
        }
    }

    #[test]
    fn unique_tokens_read_as_ids_with_no_order() {
        let ids = TokenStyle::UniqueId;
        assert_eq!(TokenStyle::Number.show(33), "33");
        let (a, b) = (ids.show(33), ids.show(34));
        assert_eq!(a, ids.show(33));
        assert!(
            a.len() == 6 && a.bytes().all(|c| c.is_ascii_hexdigit()),
            "{a}"
        );
        let all: std::collections::BTreeSet<String> = (1..=500).map(|t| ids.show(t)).collect();
        assert_eq!(all.len(), 500);
        assert_eq!(
            ids.words("the storage applies A's write #1 with token 33 even though it already accepted 34: stale data lands"),
            format!("the storage applies A's write #1 with token {a}, unable to tell that it is older than {b}: stale data lands")
        );
        assert_eq!(
            ids.words("I2: A's write (token 33) landed after B (a newer owner, token 34) had written at 46 s"),
            format!("I2: A's write (token {a}) landed after B (a newer owner, token {b}) had written at 46 s")
        );
        assert_eq!(
            ids.words("the lock service restarts from its persisted state; its next token is 34"),
            format!("the lock service restarts from its persisted state; its next token is {b}")
        );
        assert_eq!(TokenStyle::Number.words("token 33"), "token 33");
        // Numbers are the simulator's own words, whatever a worker is called.
        assert_eq!(
            TokenStyle::Number.words("storage rejected x freezes (a GC pause) for 45 s"),
            "storage rejected x freezes (a GC pause) for 45 s"
        );
        assert_eq!(
            ids.words("no token here, token x"),
            "no token here, token x"
        );

        // The uuid story: every token on the page is an id, and nothing claims an order.
        let t = run(&preset("uuid-token").unwrap().scenario());
        let tl = Timeline::of(&t, ids);
        let texts: Vec<&str> = tl.badges.iter().map(|b| b.text.as_str()).collect();
        assert!(
            texts.contains(&format!("✓ {a} stale").as_str()),
            "{texts:?}"
        );
        assert!(texts.contains(&format!("{b} → B").as_str()), "{texts:?}");
        assert!(
            texts
                .iter()
                .all(|t| !t.contains('<') && !t.contains("33") && !t.contains("34"))
        );
        assert!(
            tl.arrows
                .iter()
                .all(|a| !a.label.contains("33") && !a.label.contains("34"))
        );
        let b = banner_at(&t, t.events.len(), ids).unwrap();
        assert!(
            b.details.iter().all(|d| !d.contains("token 33")),
            "{:?}",
            b.details
        );
        let end = t.beliefs_after(t.events.len());
        assert_eq!(
            lane_status_at(&t, &end, Actor::Storage, ids),
            "ids, no order"
        );
    }
}
