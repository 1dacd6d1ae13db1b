//! Strategies shared by the property and model tests: configs, lease lengths and clock moves.

#![allow(dead_code)]

use fencepost::{Config, Token};
use proptest::prelude::*;

/// Cases per property. The acceptance bar is 1,000; the suite must stay fast in debug builds.
pub const CASES: u32 = 1_000;

/// How the host's clock moves before a step. `JumpTo` can land anywhere, including far in the
/// past and within a few seconds of `u64::MAX`.
#[derive(Clone, Copy, Debug)]
pub enum Move {
    Stay,
    Forward(u64),
    Back(u64),
    JumpTo(u64),
}

impl Move {
    pub fn apply(self, clock: u64) -> u64 {
        match self {
            Move::Stay => clock,
            Move::Forward(d) => clock.saturating_add(d),
            Move::Back(d) => clock.saturating_sub(d),
            Move::JumpTo(at) => at,
        }
    }
}

pub fn clock_move() -> impl Strategy<Value = Move> {
    prop_oneof![
        20 => Just(Move::Stay),
        40 => (1u64..60).prop_map(Move::Forward),
        10 => (60u64..2_000).prop_map(Move::Forward),
        12 => (1u64..150).prop_map(Move::Back),
        1 => (0u64..3_000).prop_map(|k| Move::JumpTo(u64::MAX - k)),
        1 => any::<u64>().prop_map(Move::JumpTo),
    ]
}

/// A lease length for one call: `None` means the config's default (`try_acquire`, `renew`).
pub fn ttl() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![
        6 => Just(None),
        3 => (0u64..300).prop_map(Some),
        1 => Just(Some(u64::MAX)),
    ]
}

fn first_token() -> impl Strategy<Value = Token> {
    prop_oneof![
        4 => Just(1u64),
        2 => 2u64..100,
        1 => (u64::MAX - 6)..=u64::MAX,
    ]
    .prop_map(|v| Token::new(v).expect("strategy never yields 0"))
}

/// Any valid config, weighted towards small numbers so that leases expire, locks get contested and
/// tokens run out within one history.
pub fn config() -> impl Strategy<Value = Config> {
    (
        prop_oneof![8 => 1u64..300, 1 => Just(u64::MAX)],
        prop_oneof![3 => Just(0u64), 2 => 1u64..200, 1 => Just(u64::MAX)],
        1u32..4,
        first_token(),
        prop_oneof![3 => Just(1u64), 3 => 2u64..6, 1 => Just(u64::MAX)],
    )
        .prop_map(|(ttl, delay, depth, first, block)| {
            Config::new(ttl)
                .with_lock_delay(delay)
                .with_max_reentry(depth)
                .with_first_token(first)
                .with_reserve_block(block)
        })
}

/// The lease length a call really asks for: the default, and 0 counts as 1 ms.
pub fn effective_ttl(cfg: &Config, ttl: Option<u64>) -> u64 {
    ttl.unwrap_or(cfg.ttl_ms).max(1)
}
