use alloc::format;
use alloc::string::{String, ToString};

use super::tagged::FaultKind;
use super::*;

const OK: &str =
    r#"{"version":1,"lease_ttl_ms":1000,"workers":[{"name":"A","job":{"work_ms":10}}]}"#;

#[test]
fn minimal_scenario_has_defaults() {
    let s = Scenario::from_json(OK).unwrap();
    assert!(s.protections.fencing);
    assert_eq!(s.first_token, 1);
    assert_eq!(s.workers[0].job.writes, 1);
    let back = Scenario::from_json(&s.to_json()).unwrap();
    assert_eq!(back, s);
}

fn err_of(json: &str) -> ScenarioError {
    Scenario::from_json(json).unwrap_err()
}

fn fault(json: &str) -> Result<Fault, String> {
    serde_json::from_str(json).map_err(|e| {
        let m = e.to_string();
        m[..m.find(" at line").unwrap_or(m.len())].to_string()
    })
}

#[test]
fn faults_read_like_internally_tagged_enums() {
    assert_eq!(
        fault(r#"{"kind":"pause","worker":"A","at":1,"for":2}"#),
        Ok(Fault::Pause {
            worker: "A".into(),
            at: 1,
            for_ms: 2
        })
    );
    assert_eq!(
        fault(r#"{"for":5,"point":"before_write","worker":"A","kind":"pause_at"}"#),
        Ok(Fault::PauseAt {
            worker: "A".into(),
            point: Point::BeforeWrite,
            nth: 1,
            for_ms: 5
        })
    );
    assert_eq!(
        fault(r#"{"kind":"clock","worker":"B","jump_at":null,"drift_ppm":-5}"#),
        Ok(Fault::Clock {
            worker: "B".into(),
            skew_ms: 0,
            drift_ppm: -5,
            jump_at: None,
            jump_ms: 0
        })
    );
    for f in [
        Fault::Crash {
            worker: "A".into(),
            at: 3,
            restart_after: Some(4),
        },
        Fault::AuthorityRestart {
            at: 9,
            persisted: true,
        },
        Fault::Hold {
            worker: "A".into(),
            nth_write: 2,
            for_ms: 7,
        },
        Fault::Partition {
            worker: "A".into(),
            from: 1,
            to: 8,
        },
    ] {
        assert_eq!(fault(&serde_json::to_string(&f).unwrap()), Ok(f));
    }
    let cases = [
        (
            r#"{"kind":"melt"}"#,
            "unknown variant `melt`, expected one of `pause`, `pause_at`, `hold`, `partition`, `clock`, `crash`, `authority_restart`",
        ),
        (r#"{"worker":"A","at":1}"#, "missing field `kind`"),
        (
            r#"{"kind":"pause","worker":"A","at":1}"#,
            "missing field `for`",
        ),
        (
            r#"{"kind":"pause","worker":"A","at":1,"for":2,"point":7}"#,
            "unknown field `point`, expected one of `worker`, `at`, `for`",
        ),
        (
            r#"{"point":"now","kind":"pause","worker":"A","at":1,"for":2}"#,
            "unknown variant `now`, expected one of `after_acquire`, `after_renew_check`, `before_write`",
        ),
        (
            r#"{"at":1,"kind":"pause","worker":"A","for":2,"extra":0}"#,
            "unknown field `extra`, expected one of `worker`, `at`, `for`",
        ),
        (
            r#"{"kind":"pause","kind":"hold"}"#,
            "duplicate field `kind`",
        ),
        (
            r#"{"kind":"pause","worker":"A","at":1,"at":2,"for":3}"#,
            "duplicate field `at`",
        ),
        (
            r#"{"extra":0,"kind":"pause","worker":"A","at":1,"for":2,"extra":1}"#,
            "unknown field `extra`, expected one of `worker`, `at`, `for`",
        ),
        (
            r#"{"kind":"pause","worker":"A","at":1,"for":2,"extra":0,"other":1,"extra":2}"#,
            "unknown field `extra`, expected one of `worker`, `at`, `for`",
        ),
        (r#"{"extra":0,"extra":1}"#, "missing field `kind`"),
        (
            r#"{"kind":"authority_restart","at":1,"persisted":"yes"}"#,
            "invalid type: string \"yes\", expected a boolean",
        ),
        (
            "[1]",
            "invalid type: sequence, expected a fault: an object with a `kind`",
        ),
    ];
    for (json, message) in cases {
        assert_eq!(fault(json), Err(message.to_string()), "{json}");
    }
}

#[test]
fn objects_are_read_from_objects_only() {
    let with = |field: &str| OK.replace("\"workers\"", &format!("{field},\"workers\""));
    let cases = [
        (
            with("\"latency_ms\":[50,60]"),
            "invalid type: sequence, expected struct Latency at line 1 column 46",
        ),
        (
            OK.replace("{\"work_ms\":10}", "[10]"),
            "invalid type: sequence, expected struct Job at line 1 column 62",
        ),
        (
            "[1,\"x\",1000,[]]".to_string(),
            "invalid type: sequence, expected struct Scenario at line 1 column 0",
        ),
        (
            with("\"latency_ms\":{\"min\":1,\"min\":2}"),
            "duplicate field `min` at line 1 column 60",
        ),
        (
            with("\"protections\":{\"fence\":true}"),
            "unknown field `fence`, expected one of `fencing`, `token_kind`, \
             `idempotency_keys`, `check_before_write` at line 1 column 55",
        ),
        (
            with("\"latency_ms\":{\"max\":2}"),
            "missing field `min` at line 1 column 55",
        ),
    ];
    for (json, message) in cases {
        assert_eq!(err_of(&json).message, message, "{json}");
    }
    let s = Scenario::from_json(&with("\"protections\":{\"idempotency_keys\":true}")).unwrap();
    assert!(s.protections.fencing && s.protections.idempotency_keys);
    let s = Scenario::from_json(&with("\"protections\":{}")).unwrap();
    assert_eq!(s.protections, Protections::default());
    assert_eq!((s.seed, s.end_ms, s.faults.len()), (0, None, 0));
}

#[test]
fn errors_name_the_field() {
    let e = err_of(&OK.replace("\"version\":1", "\"version\":2"));
    assert_eq!(
        (e.field.as_str(), e.message.as_str()),
        ("version", "must be 1, got 2")
    );
    let e = err_of(&OK.replace("\"lease_ttl_ms\":1000", "\"lease_ttl_ms\":0"));
    assert_eq!(e.field, "lease_ttl_ms");
    let e = err_of(&OK.replace("\"work_ms\":10", "\"work_ms\":10,\"wrk\":1"));
    assert_eq!(e.field, "wrk");
    assert!(
        e.message.starts_with("unknown field `wrk`"),
        "{}",
        e.message
    );
    let e = err_of(r#"{"version":1,"workers":[]}"#);
    assert_eq!(e.field, "lease_ttl_ms");
    let e = err_of(&OK.replace(
        "\"workers\":[{",
        "\"workers\":[{\"name\":\"A\",\"job\":{\"work_ms\":1}},{",
    ));
    assert_eq!(
        (e.field.as_str(), e.message.as_str()),
        ("workers[1].name", "`A` is used twice")
    );
    let e = err_of(&OK.replace(
        "]}",
        r#"],"faults":[{"kind":"pause","worker":"Z","at":1,"for":2}]}"#,
    ));
    assert_eq!(
        (e.field.as_str(), e.message.as_str()),
        ("faults[0].worker", "no worker is named `Z`")
    );
    let e = err_of(&OK.replace(
        "]}",
        r#"],"faults":[{"kind":"partition","worker":"A","from":5,"to":5}]}"#,
    ));
    assert_eq!(e.field, "faults[0].to");
    let e = err_of(&OK.replace("]}", r#"],"faults":[{"kind":"melt","worker":"A"}]}"#));
    assert!(
        e.message.contains("unknown variant `melt`"),
        "{}",
        e.message
    );
    let e = err_of("{");
    assert!(e.message.contains("EOF"), "{}", e.message);
    let e = err_of(&OK.replace("\"lease_ttl_ms\":1000", "\"lease_ttl_ms\":-1"));
    assert!(e.message.contains("invalid value"), "{}", e.message);
    let e = err_of(&OK.replace("\"name\":\"A\"", "\"name\":\"lock\""));
    assert_eq!(e.to_string(), "workers[0].name: `lock` is reserved");
}

#[test]
fn names_are_strings_and_say_what_else_was_found() {
    // Every name each enum writes reads back as that variant.
    for p in Point::ALL {
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<Point>(&json).unwrap(), p);
    }
    for k in [TokenKind::Ordered, TokenKind::Uuid] {
        let json = serde_json::to_string(&k).unwrap();
        assert_eq!(serde_json::from_str::<TokenKind>(&json).unwrap(), k);
    }
    let kinds = [
        "pause",
        "pause_at",
        "hold",
        "partition",
        "clock",
        "crash",
        "authority_restart",
    ];
    for (i, name) in kinds.iter().enumerate() {
        let k = serde_json::from_str::<FaultKind>(&format!("\"{name}\"")).unwrap();
        assert_eq!(k as usize, i);
    }
    // Anything but a string is refused with what it is; so is the object form serde's
    // derived reader took as a name.
    let message = |json: &str| {
        let mut m = Scenario::from_json(json).unwrap_err().message;
        crate::strip_json_position(&mut m);
        m
    };
    assert_eq!(
        message(&OK.replace(
            "\"workers\"",
            "\"protections\":{\"token_kind\":5},\"workers\""
        )),
        "invalid type: integer `5`, expected `ordered` or `uuid`"
    );
    assert_eq!(
        message(&OK.replace(
            "]}",
            r#"],"faults":[{"kind":{"pause":null},"worker":"A"}]}"#
        )),
        "invalid type: map, expected one of `pause`, `pause_at`, `hold`, `partition`, `clock`, `crash`, `authority_restart`"
    );
    assert_eq!(
        message(&OK.replace(
            "]}",
            r#"],"faults":[{"kind":"pause_at","worker":"A","point":true,"for":1}]}"#
        )),
        "invalid type: boolean `true`, expected one of `after_acquire`, `after_renew_check`, `before_write`"
    );
    assert_eq!(
        message(&OK.replace(
            "\"workers\"",
            "\"protections\":{\"token_kind\":\"big\"},\"workers\""
        )),
        "unknown variant `big`, expected `ordered` or `uuid`"
    );
}

#[test]
fn clock_faults_are_checked() {
    let clock = |fields: &str| {
        let json = OK.replace(
            "]}",
            &format!(r#"],"faults":[{{"kind":"clock","worker":"A"{fields}}}]}}"#),
        );
        Scenario::from_json(&json)
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let cases = [
        (
            r#","skew_ms":-1099511627777"#,
            "faults[0].skew_ms: is out of range",
        ),
        (
            r#","drift_ppm":-900001"#,
            "faults[0].drift_ppm: must be between -900000 and 1000000",
        ),
        (
            r#","drift_ppm":1000001"#,
            "faults[0].drift_ppm: must be between -900000 and 1000000",
        ),
        (
            r#","jump_ms":5"#,
            "faults[0].jump_at: is required with jump_ms",
        ),
        (
            r#","jump_at":1099511627777"#,
            "faults[0].jump_at: must be at most 1099511627776 ms",
        ),
        (
            r#","jump_at":1,"jump_ms":1099511627777"#,
            "faults[0].jump_ms: is out of range",
        ),
        // The first problem is reported.
        (
            r#","jump_ms":1099511627777"#,
            "faults[0].jump_at: is required with jump_ms",
        ),
    ];
    for (fields, message) in cases {
        assert_eq!(clock(fields), Err(message.to_string()), "{fields}");
    }
    let ok = r#","skew_ms":-1099511627776,"drift_ppm":-900000,"jump_at":1099511627776,"jump_ms":1099511627776"#;
    assert_eq!(clock(ok), Ok(()));
    assert_eq!(clock(r#","drift_ppm":1000000"#), Ok(()));
}
