use crate::abi::*;
use crate::errors::*;
use crate::guard::*;
use crate::keeper::keeper_new;
use crate::locks::*;
use crate::objects::*;
use crate::resource::*;
use crate::signer::*;
use crate::state::with;
use crate::token::*;
use fencepost::snapshot::MAX_ID_LEN;

/// A new object of kind `k` from its family's constructor, given the arguments each takes.
#[allow(clippy::too_many_arguments)]
fn object_new(
    k: u32,
    restore: bool,
    n: usize,
    token: u64,
    ttl: f64,
    lock_delay: f64,
    max_reentry: u32,
    block: f64,
) -> u32 {
    match k {
        kind::GUARD => guard_new(token),
        kind::RESOURCE => resource_new(),
        kind::SIGNER | kind::RING => signer_new(k == kind::RING, n, token),
        kind::AUTHORITY | kind::TABLE => {
            let table = k == kind::TABLE;
            lock_new(
                table,
                restore,
                n,
                token,
                ttl,
                lock_delay,
                max_reentry,
                block,
            )
        }
        _ => NONE,
    }
}

/// The state of object `i` from its family's reader: 1 if it has one, else 0.
fn state(i: u32) -> u32 {
    lock_state(i).max(resource_state(i)).max(ring_state(i))
}

/// Writes `texts` back to back into the input area; returns their lengths.
fn put(texts: &[&[u8]]) -> Vec<usize> {
    with(Vec::new(), |st| {
        st.input.clear();
        for t in texts {
            st.input.extend_from_slice(t);
        }
        texts.iter().map(|t| t.len()).collect()
    })
}

fn put1(text: &str) -> usize {
    put(&[text.as_bytes()])[0]
}

fn put2(a: &str, b: &str) -> (usize, usize) {
    let n = put(&[a.as_bytes(), b.as_bytes()]);
    (n[0], n[1])
}

fn holder() -> String {
    with(String::new(), |st| {
        String::from_utf8(st.out.holder.clone().0).unwrap()
    })
}

fn name() -> String {
    with(String::new(), |st| {
        String::from_utf8(st.out.name.clone().0).unwrap()
    })
}

// The fields of the last result, as the package reads them from the record `out` points at.
fn out_token() -> u64 {
    with(0, |st| st.out.token)
}
fn out_token2() -> u64 {
    with(0, |st| st.out.token2)
}
fn out_token3() -> u64 {
    with(0, |st| st.out.token3)
}
fn out_time() -> f64 {
    with(0.0, |st| st.out.time)
}
fn out_time2() -> f64 {
    with(0.0, |st| st.out.time2)
}
fn out_time3() -> f64 {
    with(0.0, |st| st.out.time3)
}
fn out_depth() -> u32 {
    with(0, |st| st.out.depth)
}
pub(crate) fn last_error() -> u32 {
    out();
    with(0, |st| st.out.error)
}
fn last_error_detail() -> u32 {
    out();
    with(0, |st| st.out.detail)
}

#[test]
fn the_record_has_the_offsets_the_package_reads() {
    use core::mem::offset_of;
    assert_eq!(
        [
            offset_of!(Out, token),
            offset_of!(Out, token2),
            offset_of!(Out, token3),
            offset_of!(Out, time),
            offset_of!(Out, time2),
            offset_of!(Out, time3),
            offset_of!(Out, depth),
            offset_of!(Out, error),
            offset_of!(Out, detail),
            offset_of!(Out, holder_at),
            offset_of!(Out, holder_len),
            offset_of!(Out, name_at),
            offset_of!(Out, name_len),
            offset_of!(Out, output_at),
            offset_of!(Out, field_at),
        ],
        [0, 8, 16, 24, 32, 40, 48, 52, 56, 60, 64, 68, 72, 76, 80]
    );
}

/// The config's errors are one range: a restore tells them apart from a snapshot's by it (see
/// `isConfigError` in the generated abi.js).
#[test]
fn the_config_errors_are_one_range() {
    for c in [code::ZERO_REENTRY, code::ZERO_RESERVE_BLOCK] {
        assert!((code::ZERO_TTL..=code::ZERO_FIRST_TOKEN).contains(&c));
    }
    assert_eq!(CONFIG_ERRORS, code::ZERO_TTL..=code::ZERO_FIRST_TOKEN);
}

/// The first `n` bytes of the output area.
fn output_bytes(n: usize) -> Vec<u8> {
    with(Vec::new(), |st| st.output[..n].to_vec())
}

/// The last error is one global: tests that read it take turns.
pub(crate) fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn store_decides_from_what_it_read() {
    let _turn = serial();
    assert_eq!(store_decide(0, 0, 34), write::APPLIED);
    assert_eq!(store_decide(34, 0, 33), write::STALE);
    assert_eq!(with(0, |st| st.out.token), 34);
    assert_eq!(store_decide(34, 33, 33), write::DUPLICATE);
    assert_eq!(store_decide(34, 0, 34), write::APPLIED);
    assert_eq!(store_decide(34, 0, 0), write::INVALID);
    assert_eq!(store_decide(u64::MAX - 1, 0, u64::MAX), write::APPLIED);
}

#[test]
fn the_story_through_the_bindings() {
    let _turn = serial();
    let auth = object_new(kind::AUTHORITY, false, 0, 33, 30_000.0, 0.0, u32::MAX, 1.0);
    assert_eq!(
        lock_call(call::ACQUIRE, auth, 0, put1("A"), 0, 0.0, -1.0),
        acquire::GRANTED
    );
    assert_eq!((out_token(), out_time()), (33, 30_000.0));
    assert_eq!(
        lock_call(call::ACQUIRE, auth, 0, put1("B"), 0, 10_000.0, -1.0),
        acquire::HELD
    );
    assert_eq!((holder(), out_time()), ("A".into(), 30_000.0));
    assert_eq!(
        lock_call(call::ACQUIRE, auth, 0, put1("B"), 0, 45_000.0, -1.0),
        acquire::GRANTED
    );
    assert_eq!((out_token(), out_time()), (34, 75_000.0));
    let guard = object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0);
    assert_eq!(guard_admit(guard, 34), admit::ADVANCED);
    assert_eq!(guard_admit(guard, 33), admit::STALE);
    assert_eq!(guard_admit(guard, 34), admit::CURRENT);
    assert_eq!(guard_admit(guard, 0), admit::INVALID);
    assert_eq!(guard_highest(guard), 34);
    assert_eq!(guard_admit(guard + 1, 35), admit::NO_GUARD);
    assert_eq!(state(auth), 1);
    assert_eq!((out_token(), out_token2(), out_token3()), (35, 34, 34));
    assert_eq!((out_time2(), out_time3()), (45_000.0, 0.0));
}

#[test]
fn only_accepted_codes_are_odd() {
    let _turn = serial();
    for refusal in [
        admit::STALE,
        admit::INVALID,
        admit::FORGED,
        admit::MALFORMED,
        admit::NO_GUARD,
    ] {
        assert_eq!(refusal & 1, 0, "refusal code {refusal}");
    }
    assert_eq!(admit::ADVANCED & 1, 1);
    assert_eq!(admit::CURRENT & 1, 1);
}

#[test]
fn indices_are_reused_and_freed_objects_answer_defaults() {
    let _turn = serial();
    let a = object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0);
    let b = object_new(kind::GUARD, false, 0, 7, 0.0, 0.0, 0, 0.0);
    assert_eq!(guard_highest(b), 7);
    // Another kind's free leaves it alone; a second free does nothing.
    free(kind::AUTHORITY, b);
    assert_eq!(guard_highest(b), 7);
    free(kind::GUARD, b);
    free(kind::GUARD, b);
    assert_eq!(guard_highest(b), 0);
    assert_eq!(guard_admit(b, 9), admit::NO_GUARD);
    let c = object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0);
    assert_eq!(c, b);
    assert_eq!(guard_highest(c), 0);
    assert_ne!(object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0), c);
    assert_eq!(guard_admit(a, 1), admit::ADVANCED);
    let auth = object_new(kind::AUTHORITY, false, 0, 1, 10.0, 0.0, 1, 1.0);
    free(kind::AUTHORITY, auth);
    assert_eq!(
        lock_call(call::ACQUIRE, auth, 0, put1("A"), 0, 0.0, -1.0),
        acquire::OTHER
    );
    assert_eq!(lock_call(call::RENEW, auth, 0, put1("A"), 1, 0.0, -1.0), 1);
    assert_eq!(state(auth), 0);
    assert_eq!(
        (lock_call(call::SNAPSHOT, auth, 0, 0, 0, 0.0, -1.0) as usize),
        0
    );
    assert_eq!(resource_write(NONE, 1, 1), write::INVALID);
    let (l, h) = put2("l", "1.00");
    assert_eq!(signer_verify(NONE, l, h), 0);
}

#[test]
fn config_errors_are_codes() {
    let _turn = serial();
    assert_eq!(
        object_new(kind::AUTHORITY, false, 0, 1, 0.0, 0.0, 1, 1.0),
        NONE
    );
    assert_eq!(last_error(), code::ZERO_TTL);
    assert_eq!(object_new(kind::TABLE, false, 0, 0, 1.0, 0.0, 1, 1.0), NONE);
    assert_eq!(last_error(), code::ZERO_FIRST_TOKEN);
    assert_eq!(
        object_new(kind::AUTHORITY, false, 0, 1, f64::NAN, 0.0, 1, 1.0),
        NONE
    );
    assert_eq!(last_error(), code::ZERO_TTL);
    assert_eq!(object_new(kind::TABLE, false, 0, 1, 1.0, 0.0, 0, 1.0), NONE);
    assert_eq!(last_error(), code::ZERO_REENTRY);
}

#[test]
fn batches_keep_order() {
    let _turn = serial();
    let g = object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0);
    let tokens: Vec<u8> = [5u64, 4, 5, 0, 9]
        .iter()
        .flat_map(|t| t.to_le_bytes())
        .collect();
    put(&[&tokens]);
    assert_ne!(guard_admit_many(g, 5), 0);
    assert_eq!(
        output_bytes(5),
        [
            admit::ADVANCED as u8,
            admit::STALE as u8,
            admit::CURRENT as u8,
            admit::INVALID as u8,
            admit::ADVANCED as u8
        ]
    );
    assert_eq!(guard_admit_many(NONE, 5), 0);
}

#[test]
fn lock_tables_report_through_out() {
    let _turn = serial();
    let t = object_new(kind::TABLE, false, 0, 1, 10.0, 5.0, 1, 1.0);
    let long = "x".repeat(MAX_ID_LEN + 1);
    let (l, h) = put2(&long, "A");
    assert_eq!(
        lock_call(call::ACQUIRE, t, l, h, 0, 0.0, -1.0),
        acquire::BAD_NAME
    );
    assert_eq!(
        (last_error(), last_error_detail()),
        (code::NAME_TOO_LONG, 1025)
    );
    let (l, h) = put2("x", "A");
    assert_eq!(lock_call(call::ACQUIRE, t, l, h, 0, 0.0, -1.0), 0);
    let (l, h) = put2("y", "B");
    assert_eq!(lock_call(call::ACQUIRE, t, l, h, 0, 0.0, 3.0), 0);
    assert_eq!(lock_call(call::EXPIRE_ALL, t, 0, 0, 0, 12.0, -1.0), 2);
    assert_eq!(lock_call(call::EXPIRED, t, 1, 0, 0, 0.0, -1.0), 1);
    assert_eq!(
        (name(), holder(), out_token(), out_time(), out_time2()),
        ("y".into(), "B".into(), 2, 3.0, 8.0)
    );
    assert_eq!(lock_call(call::EXPIRED, t, 2, 0, 0, 0.0, -1.0), 0);
    assert_eq!(state(t), 1);
    assert_eq!((out_depth(), out_token()), (1, 3));
    let n = lock_call(call::SNAPSHOT, t, 0, 0, 0, 0.0, -1.0) as usize;
    let snap = output_bytes(n);
    assert_eq!(&snap[..4], b"FPst");
    let n = put(&[&snap])[0];
    let u = object_new(kind::TABLE, true, n, 1, 10.0, 0.0, 1, 1.0);
    assert_ne!(u, NONE);
    assert_eq!(state(u), 1);
    assert_eq!((out_depth(), out_token()), (1, 3));
    let (l, h) = put2("x", "C");
    assert_eq!(
        lock_call(call::ACQUIRE, u, l, h, 0, 13.0, -1.0),
        acquire::LOCK_DELAY
    );
    assert_eq!(out_time(), 15.0);
    assert_eq!(
        lock_call(call::ACQUIRE, u, l, h, 0, 15.0, -1.0),
        acquire::GRANTED
    );
    assert_eq!(out_token(), 3);
    assert_eq!(lock_call(call::LEASE, u, put1("x"), 0, 0, 16.0, -1.0), 1);
    assert_eq!((holder(), out_token(), out_time()), ("C".into(), 3, 25.0));
}

#[test]
fn snapshot_errors_name_the_field() {
    let _turn = serial();
    let n = put(&[b"FP"])[0];
    assert_eq!(
        object_new(kind::AUTHORITY, true, n, 1, 10.0, 0.0, 1, 1.0),
        NONE
    );
    assert_eq!(
        (last_error(), last_error_detail()),
        (code::SNAP_TRUNCATED, 4)
    );
    let n = put(&[b"nope"])[0];
    assert_eq!(
        object_new(kind::AUTHORITY, true, n, 1, 10.0, 0.0, 1, 1.0),
        NONE
    );
    assert_eq!(last_error(), code::SNAP_BAD_MAGIC);
    let a = object_new(kind::AUTHORITY, false, 0, 1, 10.0, 0.0, 1, 1.0);
    let bytes = output_bytes(lock_call(call::SNAPSHOT, a, 0, 0, 0, 0.0, -1.0) as usize);
    let n = put(&[&bytes])[0];
    assert_eq!(object_new(kind::TABLE, true, n, 1, 10.0, 0.0, 1, 1.0), NONE);
    assert_eq!(
        (last_error(), last_error_detail()),
        (code::SNAP_WRONG_KIND, 1)
    );
    assert_ne!(
        object_new(kind::AUTHORITY, true, n, 1, 10.0, 0.0, 1, 1.0),
        NONE
    );
    // An inconsistent field is named by its text: its address in the record, its length
    // as the detail.
    let mut bad = bytes.clone();
    bad[6] = 0x80;
    let body = bad.len() - 4;
    let crc = {
        let mut c = !0u32;
        for &b in &bad[..body] {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = (c >> 1) ^ (0xEDB8_8320 & (c & 1).wrapping_neg());
            }
        }
        !c
    };
    bad[body..].copy_from_slice(&crc.to_be_bytes());
    let n = put(&[&bad])[0];
    assert_eq!(
        object_new(kind::AUTHORITY, true, n, 1, 10.0, 0.0, 1, 1.0),
        NONE
    );
    assert_eq!(
        (last_error(), last_error_detail()),
        (code::SNAP_INVALID, "flags".len() as u32)
    );
}

#[test]
fn the_input_area_has_a_limit_and_says_so() {
    let _turn = serial();
    assert_ne!(input(MAX_INPUT), 0);
    assert_eq!(with(0, |st| st.input.len()), MAX_INPUT);
    assert_eq!(input(MAX_INPUT + 1), 0);
    assert_ne!(input(0), 0);
}

#[test]
fn names_that_are_not_utf8_are_refused_on_restore() {
    let _turn = serial();
    let cfg = fencepost::Config::new(10);
    let mut tb: fencepost::LockTable<Vec<u8>, Vec<u8>> = fencepost::LockTable::new(cfg).unwrap();
    tb.try_acquire(&vec![b'l', 0xff], &b"A".to_vec(), 0)
        .unwrap();
    let n = put(&[&tb.snapshot_bytes().unwrap()])[0];
    assert_eq!(object_new(kind::TABLE, true, n, 1, 10.0, 0.0, 1, 1.0), NONE);
    assert_eq!(last_error(), code::SNAP_BAD_ID);
    let mut a: fencepost::Authority<Vec<u8>> = fencepost::Authority::new(cfg).unwrap();
    a.try_acquire(&vec![0xc3], 0).unwrap();
    let n = put(&[&a.snapshot_bytes().unwrap()])[0];
    assert_eq!(
        object_new(kind::AUTHORITY, true, n, 1, 10.0, 0.0, 1, 1.0),
        NONE
    );
    assert_eq!(last_error(), code::SNAP_BAD_ID);
    // The same snapshots with UTF-8 names restore.
    let mut tb: fencepost::LockTable<Vec<u8>, Vec<u8>> = fencepost::LockTable::new(cfg).unwrap();
    tb.try_acquire(&"lé".as_bytes().to_vec(), &b"A".to_vec(), 0)
        .unwrap();
    let n = put(&[&tb.snapshot_bytes().unwrap()])[0];
    let t = object_new(kind::TABLE, true, n, 1, 10.0, 0.0, 1, 1.0);
    assert_ne!(t, NONE);
    assert_eq!(lock_call(call::LEASE, t, put1("lé"), 0, 0, 1.0, -1.0), 1);
    assert_eq!(holder(), "A");
}

#[test]
fn idempotent_writes_hand_back_the_first_slot() {
    let _turn = serial();
    let r = object_new(kind::RESOURCE, false, 0, 0, 0.0, 0.0, 0, 0.0);
    assert_eq!(resource_write(r, 33, 1), write::APPLIED);
    assert_eq!(out_depth(), 0);
    assert_eq!(resource_write(r, 34, 2), write::APPLIED);
    assert_eq!(out_depth(), 1);
    assert_eq!(resource_write(r, 33, 1), write::DUPLICATE);
    assert_eq!(out_depth(), 0);
    assert_eq!(resource_write(r, 33, 3), write::STALE);
    assert_eq!(out_token(), 34);
    assert_eq!(resource_write(r, 0, 3), write::INVALID);
    assert_eq!(state(r), 1);
    assert_eq!((out_token(), out_depth()), (34, 2));
}

#[test]
fn key_rings_sign_with_a_key_id_and_rotate() {
    let _turn = serial();
    let key = "first key, sixteen+ bytes";
    let r = object_new(kind::RING, false, put1(key), 1, 0.0, 0.0, 0, 0.0);
    assert_ne!(r, NONE);
    // The key's copy in the input area is wiped once the ring holds it.
    assert_eq!(
        with(Vec::new(), |st| st.input.clone()),
        std::vec![0; key.len()]
    );
    assert_eq!(state(r), 1);
    assert_eq!(out_depth(), 1);
    let n = signer_sign(r, put1("orders"), 34);
    let old = String::from_utf8(output_bytes(n)).unwrap();
    assert!(old.starts_with("34.1."), "{old}");
    assert_eq!(old.len(), 5 + 64);
    assert_eq!(
        ring_call(ring::ROTATE, r, put1("second key, sixteen+"), 2),
        0
    );
    assert_eq!(with(Vec::new(), |st| st.input.clone()), [0; 20]);
    assert_eq!((state(r), out_depth()), (1, 2));
    let n = signer_sign(r, put1("orders"), 35);
    let new = String::from_utf8(output_bytes(n)).unwrap();
    assert!(new.starts_with("35.2."), "{new}");
    let (l, h) = put2("orders", &old);
    assert_eq!(signer_verify(r, l, h), 34);
    let g = object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0);
    let (l, h) = put2("orders", &new);
    assert_eq!(guard_admit_signed(g, r, l, h), admit::ADVANCED);
    assert_eq!(ring_call(ring::REMOVE, r, 0, 2), code::CURRENT_KEY);
    assert_eq!(last_error_detail(), 2);
    assert_eq!(ring_call(ring::REMOVE, r, 0, 1), 0);
    let (l, h) = put2("orders", &old);
    assert_eq!(signer_verify(r, l, h), 0);
    assert_eq!((last_error(), last_error_detail()), (code::UNKNOWN_KEY, 1));
    let (l, h) = put2("orders", &old);
    assert_eq!(guard_admit_signed(g, r, l, h), admit::FORGED);
    assert_eq!(last_error(), code::UNKNOWN_KEY);
    // The v1 form of a signer, and a ring's form to a signer: refused as malformed.
    let (l, h) = put2("orders", &alloc::format!("34.{}", "a".repeat(64)));
    assert_eq!(guard_admit_signed(g, r, l, h), admit::MALFORMED);
    assert_eq!(last_error(), code::NO_KEY_ID);
    assert_eq!(
        ring_call(ring::ROTATE, r, put1("second key, sixteen+"), 2),
        code::KEY_ID_TAKEN
    );
    assert_eq!(
        ring_call(ring::ROTATE, r, put1("short"), 3),
        code::KEY_TOO_SHORT
    );
    assert_eq!(ring_call(9, r, 0, 3), code::UNKNOWN);
    assert_eq!(ring_call(ring::REMOVE, g, 0, 3), code::UNKNOWN);
    assert_eq!(
        object_new(kind::RING, false, put1(key), 1 << 32, 0.0, 0.0, 0, 0.0),
        NONE
    );
    assert_eq!(guard_highest(g), 35);
    free(kind::RING, r);
    assert_eq!(signer_sign(r, put1("orders"), 36), 0);
}

#[test]
fn signed_tokens_round_trip() {
    let _turn = serial();
    let s = object_new(
        kind::SIGNER,
        false,
        put1("0123456789abcdef"),
        0,
        0.0,
        0.0,
        0,
        0.0,
    );
    // The key's copy in the input area is wiped once the signer holds it, and when refused.
    assert_eq!(with(Vec::new(), |st| st.input.clone()), [0; 16]);
    let short = object_new(kind::SIGNER, false, put1("short key"), 0, 0.0, 0.0, 0, 0.0);
    assert_eq!(short, NONE);
    assert_eq!(with(Vec::new(), |st| st.input.clone()), [0; 9]);
    let n = signer_sign(s, put1("orders"), 34);
    let h = String::from_utf8(output_bytes(n)).unwrap();
    assert_eq!(h.split('.').next(), Some("34"));
    assert_eq!(h.len(), 2 + 1 + 64);
    let (l, hl) = put2("orders", &h);
    assert_eq!(signer_verify(s, l, hl), 34);
    let (l, hl) = put2("invoices", &h);
    assert_eq!(signer_verify(s, l, hl), 0);
    assert_eq!(last_error(), code::FORGED);
    let (l, hl) = put2("orders", "34");
    assert_eq!(signer_verify(s, l, hl), 0);
    assert_eq!(last_error(), code::MISSING_MAC);
    let g = object_new(kind::GUARD, false, 0, 0, 0.0, 0.0, 0, 0.0);
    let (l, hl) = put2("orders", &h);
    assert_eq!(guard_admit_signed(g, s, l, hl), admit::ADVANCED);
    let forged = alloc::format!("{}.{}", u64::MAX, "a".repeat(64));
    let (l, fl) = put2("orders", &forged);
    assert_eq!(guard_admit_signed(g, s, l, fl), admit::FORGED);
    let (l, hl) = put2("orders", &h);
    assert_eq!(guard_admit_signed(g, NONE, l, hl), admit::NO_GUARD);
    assert_eq!(guard_highest(g), 34);
    assert_eq!(
        object_new(kind::SIGNER, false, put1("short"), 0, 0.0, 0.0, 0, 0.0),
        NONE
    );
    assert_eq!(
        (last_error(), last_error_detail()),
        (code::KEY_TOO_SHORT, 5)
    );
}

#[test]
fn codecs() {
    let _turn = serial();
    assert_eq!(token_decode(form::DECIMAL, put1("34")), 34);
    assert_eq!(token_decode(form::DECIMAL, put1("3x")), 0);
    assert_eq!((last_error(), last_error_detail()), (code::NOT_A_DIGIT, 1));
    assert_eq!(token_decode(form::HEADER, put1("34.ab")), 0);
    assert_eq!(last_error(), code::SIGNED);
    assert_eq!(
        token_decode(form::BYTES, put(&[&[0, 0, 0, 0, 0, 0, 1, 0]])[0]),
        256
    );
    assert_eq!(token_decode(form::BYTES, put(&[&[1]])[0]), 0);
    assert_eq!((last_error(), last_error_detail()), (code::LENGTH, 1));
}

/// Every call that allocates asks for its room first: refused, it answers its refusal with
/// `NO_MEMORY` and changes nothing; with room again, the same objects carry on.
#[test]
fn calls_the_memory_cannot_hold_are_refused_and_change_nothing() {
    let _turn = serial();
    let t = object_new(kind::TABLE, false, 0, 1, 10.0, 0.0, 1, 1.0);
    let g = object_new(kind::GUARD, false, 0, 5, 0.0, 0.0, 0, 0.0);
    let s = object_new(
        kind::SIGNER,
        false,
        put1("0123456789abcdef"),
        0,
        0.0,
        0.0,
        0,
        0.0,
    );
    let (l, h) = put2("x", "AAAA");
    assert_eq!(
        lock_call(call::ACQUIRE, t, l, h, 0, 0.0, -1.0),
        acquire::GRANTED
    );
    let refused = |what: &str| {
        assert_eq!(last_error(), code::NO_MEMORY, "{what}");
    };
    // Room for a one-byte name, so the names are read and the refusal is the table's (a new
    // lock's place and copies) or the 4-byte holder's copy out of a lease.
    crate::memory::limit(1);
    let (l, h) = put2("y", "B");
    assert_eq!(
        lock_call(call::ACQUIRE, t, l, h, 0, 1.0, -1.0),
        call::REFUSED
    );
    refused("acquire");
    assert_eq!(
        lock_call(call::LEASE, t, put1("x"), 0, 0, 1.0, -1.0),
        call::REFUSED
    );
    refused("lease");
    crate::memory::limit(0);
    assert_eq!(
        lock_call(call::EXPIRE_ALL, t, 0, 0, 0, 20.0, -1.0),
        call::REFUSED
    );
    refused("expire all");
    assert_eq!(
        lock_call(call::SNAPSHOT, t, 0, 0, 0, 0.0, -1.0),
        call::REFUSED
    );
    refused("snapshot");
    assert_eq!(
        object_new(kind::TABLE, false, 0, 1, 10.0, 0.0, 1, 1.0),
        NONE
    );
    refused("a new table");
    assert_eq!(
        object_new(kind::RESOURCE, false, 0, 0, 0.0, 0.0, 0, 0.0),
        NONE
    );
    refused("a new resource");
    assert_eq!(keeper_new(1_000.0, 0.0, -1.0, -1.0, -1.0, -1.0), NONE);
    refused("a new keeper");
    // A key the memory cannot take is wiped all the same.
    let n = put1("0123456789abcdef");
    assert_eq!(
        object_new(kind::SIGNER, false, n, 0, 0.0, 0.0, 0, 0.0),
        NONE
    );
    refused("a new signer");
    assert!(with(false, |st| st.input[..n].iter().all(|&b| b == 0)));
    assert_eq!(signer_sign(s, put1("x"), 34), 0);
    refused("sign");
    with((), |st| st.output = Vec::new());
    let tokens: Vec<u8> = [7u64, 9].iter().flat_map(|t| t.to_le_bytes()).collect();
    put(&[&tokens]);
    assert_eq!(guard_admit_many(g, 2), 0);
    refused("admit many");
    // Nothing changed: the table holds "x" alone, still A's; the guard is still at 5.
    assert_eq!(guard_highest(g), 5);
    crate::memory::limit(usize::MAX);
    assert_eq!(state(t), 1);
    assert_eq!((out_depth(), out_token()), (1, 2));
    assert_eq!(lock_call(call::LEASE, t, put1("x"), 0, 0, 1.0, -1.0), 1);
    assert_eq!((holder(), out_token()), ("AAAA".into(), 1));
    // With room again, the same objects carry on.
    let (l, h) = put2("y", "B");
    assert_eq!(
        lock_call(call::ACQUIRE, t, l, h, 0, 1.0, -1.0),
        acquire::GRANTED
    );
    assert_eq!(lock_call(call::EXPIRE_ALL, t, 0, 0, 0, 20.0, -1.0), 2);
    let n = lock_call(call::SNAPSHOT, t, 0, 0, 0, 0.0, -1.0) as usize;
    assert_ne!(n as u32, call::REFUSED);
    let snap = output_bytes(n);
    crate::memory::limit(0);
    let n = put(&[&snap])[0];
    assert_eq!(object_new(kind::TABLE, true, n, 1, 10.0, 0.0, 1, 1.0), NONE);
    refused("a restore");
    crate::memory::limit(usize::MAX);
    assert_ne!(object_new(kind::TABLE, true, n, 1, 10.0, 0.0, 1, 1.0), NONE);
    put(&[&tokens]);
    assert_ne!(guard_admit_many(g, 2), 0);
    assert_eq!(
        output_bytes(2),
        [admit::ADVANCED as u8, admit::ADVANCED as u8]
    );
    assert_ne!(signer_sign(s, put1("x"), 34), 0);
    for (k, i) in [(kind::TABLE, t), (kind::GUARD, g), (kind::SIGNER, s)] {
        free(k, i);
    }
}
