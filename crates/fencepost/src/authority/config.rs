//! How an authority behaves, and the configs that cannot work.

use core::fmt;

use crate::token::Token;

/// How an authority behaves. Build it with [`Config::new`] and the `with_*` methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Config {
    /// Default lease length in milliseconds (> 0).
    pub ttl_ms: u64,
    /// After an expiry, no new grant until `expires_at + lock_delay_ms`. 0 disables it.
    pub lock_delay_ms: u64,
    /// Deepest re-entry allowed for one holder (>= 1; 1 means not re-entrant).
    pub max_reentry: u32,
    /// The first token this authority issues (a host resuming at 33 can say so).
    pub first_token: Token,
    /// How many tokens one persisted reservation covers (>= 1).
    pub reserve_block: u64,
}

impl Config {
    /// A config with the given lease length, no lock-delay, re-entry up to `u32::MAX`, first token
    /// 1 and reservation blocks of 1 (persist every grant).
    pub const fn new(ttl_ms: u64) -> Config {
        Config {
            ttl_ms,
            lock_delay_ms: 0,
            max_reentry: u32::MAX,
            first_token: Token::MIN,
            reserve_block: 1,
        }
    }

    /// Sets the lock-delay after an expiry.
    pub const fn with_lock_delay(mut self, ms: u64) -> Config {
        self.lock_delay_ms = ms;
        self
    }

    /// Sets the deepest re-entry (1 = not re-entrant).
    pub const fn with_max_reentry(mut self, depth: u32) -> Config {
        self.max_reentry = depth;
        self
    }

    /// Sets the first token to issue.
    pub const fn with_first_token(mut self, token: Token) -> Config {
        self.first_token = token;
        self
    }

    /// Sets the first token from the wall clock, for a host that may lose all of a lock's stored
    /// state (an evicted or wiped entry) and must still never issue a token it issued before:
    /// the first token is `unix_ms << 20`, so an authority started later starts above every token
    /// an earlier one could have issued, as long as (1) the clock has not stepped back past the
    /// earlier authority's start and (2) the earlier one issued fewer than 2^20 tokens per
    /// millisecond of its life. Tokens are then about 2^61 (the year 2527 reaches 2^64); a
    /// `unix_ms` past that is clamped to the largest start that still leaves 2^20 tokens.
    pub const fn with_first_token_at(self, unix_ms: u64) -> Config {
        const SHIFT: u32 = 20;
        let ms = if unix_ms > u64::MAX >> SHIFT {
            u64::MAX >> SHIFT
        } else {
            unix_ms
        };
        // `ms << 20` is 0 only for ms = 0; token 1 is then the first.
        let first = match Token::new(ms << SHIFT) {
            Some(t) => t,
            None => Token::MIN,
        };
        self.with_first_token(first)
    }

    /// Sets the size of a token reservation block.
    pub const fn with_reserve_block(mut self, tokens: u64) -> Config {
        self.reserve_block = tokens;
        self
    }

    /// Checks the config.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if self.ttl_ms == 0 {
            return Err(ConfigError::ZeroTtl);
        }
        if self.max_reentry == 0 {
            return Err(ConfigError::ZeroReentry);
        }
        if self.reserve_block == 0 {
            return Err(ConfigError::ZeroReserveBlock);
        }
        Ok(())
    }
}

/// A config value that cannot work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// `ttl_ms` was 0: every lease would be born expired.
    ZeroTtl,
    /// `max_reentry` was 0: not even the first acquire could succeed.
    ZeroReentry,
    /// `reserve_block` was 0: no token could ever be reserved.
    ZeroReserveBlock,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConfigError::ZeroTtl => "ttl_ms must be greater than 0",
            ConfigError::ZeroReentry => "max_reentry must be at least 1",
            ConfigError::ZeroReserveBlock => "reserve_block must be at least 1",
        })
    }
}

impl core::error::Error for ConfigError {}
