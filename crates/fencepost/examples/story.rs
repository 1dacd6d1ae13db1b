//! The story fencepost exists for, told through the core with real calls:
//! a worker pauses past its lease, another takes over, and the storage refuses the stale write.

use fencepost::{Admission, Authority, Config, Guard, Token};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ttl = 30_000;
    let mut lock: Authority<&str> =
        Authority::new(Config::new(ttl).with_first_token(Token::new(33).ok_or("token 0")?))?;
    let mut storage = Guard::new();
    let mut document: Vec<(&str, Token)> = Vec::new();

    let at = |ms: u64| format!("t={:>4.1}s", ms as f64 / 1000.0);

    let a = lock.try_acquire(&"A", 0)?;
    println!(
        "{}  A acquires the lock          -> token {} (lease until {})",
        at(0),
        a.token,
        at(a.expires_at)
    );
    println!(
        "{}  A pauses for 45 s (a long GC pause, a suspended VM ...)",
        at(1_000)
    );

    if let Some(e) = lock.expire(ttl) {
        println!(
            "{}  A's lease expires; A is still paused and still believes it holds token {}",
            at(e.at),
            e.token
        );
    }

    let b = lock.try_acquire(&"B", 45_000)?;
    println!(
        "{}  B acquires the lock          -> token {} (lease until {})",
        at(45_000),
        b.token,
        at(b.expires_at)
    );
    let verdict = storage.admit(b.token);
    if verdict.is_accepted() {
        document.push(("B", b.token));
    }
    println!(
        "{}  B writes with token {}        -> storage: {verdict}",
        at(45_500),
        b.token
    );

    println!(
        "{}  A resumes, unaware, and writes with token {}",
        at(46_000),
        a.token
    );
    let verdict = storage.admit(a.token);
    if verdict.is_accepted() {
        document.push(("A", a.token));
    }
    println!("{}  storage: {verdict}", at(46_000));
    match lock.renew(&"A", a.token, 46_000) {
        Err(e) => println!(
            "{}  A tries to renew            -> refused: {e}",
            at(46_000)
        ),
        Ok(_) => return Err("a lost lease was renewed".into()),
    }

    println!();
    println!("document: {document:?}");
    println!(
        "highest accepted token: {}",
        storage.highest().map_or(0, Token::get)
    );
    match verdict {
        Admission::Stale { presented, highest } if document == [("B", b.token)] => {
            println!(
                "fencing held: A's stale write ({presented} < {highest}) never reached the data."
            );
            Ok(())
        }
        other => Err(format!("fencing failed: {other}").into()),
    }
}
