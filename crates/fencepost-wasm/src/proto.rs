//! Measurement prototype: the same guard and lock table as `#[wasm_bindgen]` classes with named
//! methods and a typed error turned into a JS error, to compare with the numeric ABI.
use alloc::string::String;
use alloc::vec::Vec;
use fencepost::{AcquireError, Config, Token};
use wasm_bindgen::prelude::*;

use super::{Name, admission};

#[wasm_bindgen]
pub struct ProtoGuard(fencepost::Guard);

#[wasm_bindgen]
impl ProtoGuard {
    #[wasm_bindgen(constructor)]
    pub fn new(highest: u64) -> ProtoGuard {
        ProtoGuard(fencepost::Guard::with_highest(Token::new(highest)))
    }
    pub fn admit(&mut self, token: u64) -> u32 {
        admission(self.0.admit_raw(token))
    }
    #[wasm_bindgen(js_name = admitMany)]
    pub fn admit_many(&mut self, tokens: &[u64], out: &mut [u8]) {
        for (t, o) in tokens.iter().zip(out.iter_mut()) {
            *o = admission(self.0.admit_raw(*t)) as u8;
        }
    }
    pub fn highest(&self) -> u64 {
        self.0.highest().map_or(0, Token::get)
    }
}

/// The typed error: each variant becomes a JS error whose name is the variant's.
pub enum LockError {
    Held { until: u64 },
    LockDelay { until: u64 },
    ReentryLimit { max: u32 },
    Exhausted,
    Lost,
}

impl From<LockError> for JsValue {
    fn from(e: LockError) -> JsValue {
        let (name, msg) = match e {
            LockError::Held { .. } => ("HeldError", "held by another holder"),
            LockError::LockDelay { .. } => ("LockDelayError", "in lock delay"),
            LockError::ReentryLimit { .. } => ("ReentryLimitError", "re-entered too deep"),
            LockError::Exhausted => ("ExhaustedError", "every token was issued"),
            LockError::Lost => ("LostError", "the lease was lost"),
        };
        let mut s = String::from(name);
        s.push_str(": ");
        s.push_str(msg);
        JsError::new(&s).into()
    }
}

#[wasm_bindgen]
pub struct ProtoGrant {
    pub token: u64,
    #[wasm_bindgen(js_name = expiresAt)]
    pub expires_at: f64,
}

#[wasm_bindgen]
pub struct ProtoTable(fencepost::LockTable<Name, Name>);

#[wasm_bindgen]
impl ProtoTable {
    #[wasm_bindgen(constructor)]
    pub fn new(ttl: f64) -> ProtoTable {
        ProtoTable(fencepost::LockTable::new(Config::new(ttl as u64)).ok().unwrap())
    }
    pub fn acquire(&mut self, lock: &str, holder: &str, now: f64) -> Result<ProtoGrant, LockError> {
        let (lock, holder) = (Name(Vec::from(lock.as_bytes())), Name(Vec::from(holder.as_bytes())));
        let ttl = self.0.config().ttl_ms;
        match self.0.try_acquire_for(&lock, &holder, ttl, now as u64) {
            Ok(g) => Ok(ProtoGrant { token: g.token.get(), expires_at: g.expires_at as f64 }),
            Err(AcquireError::Held { until, .. }) => Err(LockError::Held { until }),
            Err(AcquireError::LockDelay { until }) => Err(LockError::LockDelay { until }),
            Err(AcquireError::ReentryLimit { max }) => Err(LockError::ReentryLimit { max }),
            Err(_) => Err(LockError::Exhausted),
        }
    }
    pub fn release(&mut self, lock: &str, holder: &str, token: u64, now: f64) -> Result<u32, LockError> {
        let (lock, holder) = (Name(Vec::from(lock.as_bytes())), Name(Vec::from(holder.as_bytes())));
        let token = Token::new(token).ok_or(LockError::Lost)?;
        match self.0.release(&lock, &holder, token, now as u64) {
            Ok(fencepost::Released::Free) => Ok(0),
            Ok(fencepost::Released::Held { depth }) => Ok(depth),
            Err(_) => Err(LockError::Lost),
        }
    }
}
