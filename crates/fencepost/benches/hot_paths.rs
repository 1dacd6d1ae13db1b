//! Benchmarks of fencepost's hot paths, each beside a baseline measured in the same run: the least
//! code that could do the same job without fencepost's rules (a plain `u64` max-compare-and-store
//! for a guard, a plain struct update for a lease, a bare HMAC for a signature, a `memcpy` of the
//! same bytes for a snapshot).
//!
//! Run with `cargo xtask bench`, which prints ns/op and the ratio to each baseline. Benchmark ids
//! are `<group>/<name>` and `<group>/baseline`; xtask reads them back by those names.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use fencepost::{Authority, AuthoritySnapshot, Config, Guard, Lease, LockTable, Token};

fn token(v: u64) -> Token {
    Token::new(v).expect("benchmarks use non-zero tokens")
}

/// `admit` with a newer token every time: the compare-and-advance a resource runs per write.
fn guard_admit(c: &mut Criterion) {
    let mut g = c.benchmark_group("guard_admit");
    g.bench_function("fencepost", |b| {
        let mut guard = Guard::new();
        let mut raw = 0u64;
        b.iter(|| {
            raw += 1;
            guard.admit_raw(black_box(raw))
        });
    });
    g.bench_function("baseline", |b| {
        let mut highest = 0u64;
        let mut raw = 0u64;
        b.iter(|| {
            raw += 1;
            let presented = black_box(raw);
            let accepted = presented != 0 && presented >= highest;
            if presented > highest {
                highest = presented;
            }
            accepted
        });
    });
    g.finish();
}

/// `check` of a stale token: a pure comparison with a reason attached.
fn guard_check(c: &mut Criterion) {
    let mut g = c.benchmark_group("guard_check");
    let guard = Guard::with_highest(Some(token(34)));
    g.bench_function("fencepost", |b| {
        b.iter(|| guard.check(black_box(token(33))))
    });
    let highest = 34u64;
    g.bench_function("baseline", |b| b.iter(|| black_box(33u64) >= highest));
    g.finish();
}

/// The plain-struct lease a baseline updates: no clamping, no re-entry, no lock-delay, no
/// reservation.
#[derive(Default)]
struct PlainLease {
    holder: Option<u32>,
    token: u64,
    expires_at: u64,
}

impl PlainLease {
    #[inline]
    fn acquire(&mut self, holder: u32, now: u64, ttl: u64) -> Option<u64> {
        if self.holder.is_some() && now < self.expires_at {
            return None;
        }
        self.token += 1;
        self.holder = Some(holder);
        self.expires_at = now.saturating_add(ttl);
        Some(self.token)
    }

    #[inline]
    fn renew(&mut self, holder: u32, token: u64, now: u64, ttl: u64) -> bool {
        let ok = self.holder == Some(holder) && self.token == token && now < self.expires_at;
        if ok {
            self.expires_at = now.saturating_add(ttl);
        }
        ok
    }

    #[inline]
    fn release(&mut self, holder: u32, token: u64) -> bool {
        let ok = self.holder == Some(holder) && self.token == token;
        if ok {
            self.holder = None;
        }
        ok
    }
}

/// A fresh grant and a clean release, back to back, one holder, one lock.
fn acquire_release(c: &mut Criterion) {
    let mut g = c.benchmark_group("acquire_release");
    g.bench_function("fencepost", |b| {
        let mut auth: Authority<u32> = Authority::new(Config::new(30_000)).expect("valid config");
        b.iter(|| {
            let now = black_box(1_000);
            let grant = auth
                .try_acquire(black_box(&7), now)
                .expect("the lock is free");
            auth.release(&7, grant.token, now)
                .expect("the holder releases")
        });
    });
    g.bench_function("baseline", |b| {
        let mut lease = PlainLease::default();
        b.iter(|| {
            let now = black_box(1_000);
            let token = lease.acquire(black_box(7), now, 30_000).expect("free");
            lease.release(7, token)
        });
    });
    g.finish();
}

/// A lock named, granted, released and forgotten in a table already holding `n` locks, the new
/// name sorting into the middle; the baseline inserts and removes the same key in a B-tree of as
/// many entries.
fn table_acquire_release(c: &mut Criterion) {
    let mut g = c.benchmark_group("table_acquire_release");
    for n in [100u64, 10_000] {
        g.bench_function(format!("fencepost/{n}"), |b| {
            let mut table: LockTable<u64, u32> =
                LockTable::new(Config::new(30_000)).expect("valid config");
            for lock in 0..n {
                table.try_acquire(&(2 * lock), &1, 0).expect("free");
            }
            let lock = n | 1;
            b.iter(|| {
                let now = black_box(1_000);
                let grant = table
                    .try_acquire(black_box(&lock), &7, now)
                    .expect("the lock is free");
                table
                    .release(&lock, &7, grant.token, now)
                    .expect("the holder releases")
            });
        });
        g.bench_function(format!("baseline/{n}"), |b| {
            let mut map: std::collections::BTreeMap<u64, (u64, u64)> =
                (0..n).map(|lock| (2 * lock, (1, 0))).collect();
            let lock = n | 1;
            b.iter(|| {
                map.insert(black_box(lock), (7, 1_000));
                map.remove(&lock)
            });
        });
    }
    g.finish();
}

/// A renewal of a live lease.
fn renew(c: &mut Criterion) {
    let mut g = c.benchmark_group("renew");
    g.bench_function("fencepost", |b| {
        let mut auth: Authority<u32> = Authority::new(Config::new(30_000)).expect("valid config");
        let grant = auth.try_acquire(&7, 0).expect("the lock is free");
        b.iter(|| auth.renew(black_box(&7), grant.token, black_box(1_000)));
    });
    g.bench_function("baseline", |b| {
        let mut lease = PlainLease::default();
        let token = lease.acquire(7, 0, 30_000).expect("free");
        b.iter(|| lease.renew(black_box(7), token, black_box(1_000), 30_000));
    });
    g.finish();
}

/// One renewal round on the holder's side: the keeper records the send, takes the answer and says
/// the state; the baseline keeps the newest deadline with a max and compares the time with it.
fn keeper_step(c: &mut Criterion) {
    use fencepost::{Answer, Keeper, KeeperConfig};
    let mut g = c.benchmark_group("keeper_step");
    g.bench_function("fencepost", |b| {
        let mut k = Keeper::new(KeeperConfig::new(), 30_000, 0).expect("valid config");
        let answer = Answer {
            token: token(7),
            ttl_ms: 30_000,
        };
        let mut now = 0;
        b.iter(|| {
            now += 1;
            let t = k.send(black_box(now));
            let _ = k.granted(t, black_box(answer), black_box(now));
            k.state(black_box(now)).is_safe()
        });
    });
    g.bench_function("baseline", |b| {
        let mut deadline = 0u64;
        let mut now = 0u64;
        b.iter(|| {
            now += 1;
            let sent = black_box(now);
            deadline = deadline.max(sent + 30_000 - 30 - 100);
            black_box(now) < deadline
        });
    });
    g.finish();
}

/// Verifying a signed token, against computing the same HMAC-SHA-256 with no framing or compare.
fn signed_verify(c: &mut Criterion) {
    #[cfg(feature = "signed")]
    {
        use hmac::{Hmac, KeyInit, Mac};
        use sha2::Sha256;

        let key = b"0123456789abcdef0123456789abcdef";
        let mut g = c.benchmark_group("signed_verify");
        let signer = fencepost::TokenSigner::new(key).expect("key is long enough");
        let signed = signer.sign(b"orders", token(34)).expect("short lock name");
        g.bench_function("fencepost", |b| {
            b.iter(|| signer.verify(black_box(b"orders"), black_box(&signed)))
        });
        let keyed = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("any key length");
        let message = [0u8; 19 + 2 + 6 + 8];
        g.bench_function("baseline", |b| {
            b.iter(|| {
                let mut m = keyed.clone();
                m.update(black_box(&message));
                m.finalize().into_bytes()
            })
        });
        g.finish();
    }
    #[cfg(not(feature = "signed"))]
    let _ = c;
}

fn sample_snapshot() -> AuthoritySnapshot<u32> {
    AuthoritySnapshot {
        next_token: Some(token(35)),
        reserved_through: 42,
        lease: Some(Lease {
            holder: 7,
            token: token(34),
            granted_at: 45_000,
            expires_at: 75_000,
            depth: 1,
        }),
        free_at: 0,
        latest_now: 45_000,
        clamps: 1,
    }
}

/// Encoding an authority snapshot into a buffer, against copying as many bytes.
fn snapshot_encode(c: &mut Criterion) {
    let mut g = c.benchmark_group("snapshot_encode");
    let snap = sample_snapshot();
    let bytes = snap.to_bytes().expect("encodes");
    let mut out = [0u8; 128];
    g.bench_function("fencepost", |b| {
        b.iter(|| black_box(&snap).encode(black_box(&mut out)))
    });
    g.bench_function("baseline", |b| {
        b.iter(|| out[..bytes.len()].copy_from_slice(black_box(&bytes)))
    });
    g.finish();
}

/// Decoding and checking an authority snapshot, against copying its bytes.
fn snapshot_decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("snapshot_decode");
    let bytes = sample_snapshot().to_bytes().expect("encodes");
    let mut out = [0u8; 128];
    g.bench_function("fencepost", |b| {
        b.iter(|| AuthoritySnapshot::<u32>::decode(black_box(&bytes)))
    });
    g.bench_function("baseline", |b| {
        b.iter(|| out[..bytes.len()].copy_from_slice(black_box(&bytes)))
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50)
        .without_plots()
}

criterion_group! {
    name = hot_paths;
    config = config();
    targets = guard_admit, guard_check, acquire_release, table_acquire_release, renew, keeper_step, signed_verify, snapshot_encode,
        snapshot_decode
}
criterion_main!(hot_paths);
