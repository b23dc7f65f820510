//! `jobsort limits` end to end: JSON-lines output, text output, the state query, the flux
//! database source and located errors for bad event lines.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

const CONFIG: &str = r#"
[[association]]
user = "user1"
bank = "A"
queues = ["bronze"]
max_running_jobs = 1
max_active_jobs = 3
[[queue]]
name = "bronze"
"#;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    PathBuf::from(common::cli::write(dir, name, text))
}

/// `jobsort limits ARGS`.
fn jobsort(args: &[&str]) -> Output {
    common::cli::jobsort(std::iter::once("limits").chain(args.iter().copied()))
}

fn lines(o: &Output) -> Vec<Value> {
    common::cli::json_lines(o)
}

#[test]
fn json_lines_output() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(dir.path(), "limits.toml", CONFIG);
    let ev = write(
        dir.path(),
        "events.jsonl",
        concat!(
            r#"{"op":"submit","job":"job1","user":"user1","bank":"A","queue":"bronze","nnodes":1,"ncores":4}"#,
            "\n",
            r#"{"op":"run","job":"job1"}"#,
            "\n",
            r#"{"op":"submit","job":"job2","user":"user1"}"#,
            "\n\n",
            r#"{"op":"end","job":"job1"}"#,
            "\n",
            r#"{"op":"update","association":{"user":"user1","bank":"A","max_running_jobs":0}}"#,
            "\n",
        ),
    );
    let out = jobsort(&[
        "--config",
        cfg.to_str().unwrap(),
        "--events",
        ev.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = lines(&out);
    let assoc = |run: i64, active: i64, sched: i64, nodes: i64, cores: i64, held: Value| {
        json!([{"user": "user1", "bank": "A", "cur_run_jobs": run, "cur_active_jobs": active,
                "cur_sched_jobs": sched, "cur_nodes": nodes, "cur_cores": cores, "held_jobs": held}])
    };
    let want = vec![
        json!({"event": 1, "op": "submit", "job": "job1",
               "changes": [{"job": "job1", "state": "sched"}],
               "associations": assoc(0, 1, 1, 0, 0, json!([]))}),
        json!({"event": 2, "op": "run", "job": "job1",
               "changes": [{"job": "job1", "state": "run"}],
               "associations": assoc(1, 1, 0, 1, 4, json!([]))}),
        json!({"event": 3, "op": "submit", "job": "job2",
               "changes": [{"job": "job2", "dependency_add": "max-running-jobs-user-limit"}],
               "associations": assoc(1, 2, 0, 1, 4,
                   json!([{"job": "job2", "dependencies": ["max-running-jobs-user-limit"]}]))}),
        json!({"event": 4, "op": "end", "job": "job1",
               "changes": [{"job": "job1", "state": "inactive"},
                           {"job": "job2", "dependency_remove": "max-running-jobs-user-limit"},
                           {"job": "job2", "state": "sched"}],
               "associations": assoc(0, 1, 1, 0, 0, json!([]))}),
        json!({"event": 5, "op": "update", "job": null, "changes": [],
               "associations": assoc(0, 1, 1, 0, 0, json!([]))}),
    ];
    assert_eq!(got, want);
    // Keys in the documented order.
    let first = String::from_utf8(out.stdout).unwrap();
    assert!(first.starts_with(r#"{"event":1,"op":"submit","job":"job1","changes":["#));
}

#[test]
fn text_output_and_state() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(dir.path(), "limits.toml", CONFIG);
    let ev = write(
        dir.path(),
        "events.jsonl",
        "{\"op\":\"submit\",\"job\":\"a\",\"user\":\"user1\"}\n{\"op\":\"run\",\"job\":\"a\"}\n{\"op\":\"submit\",\"job\":\"b\",\"user\":\"user1\"}\n",
    );
    let args = [
        "--config",
        cfg.to_str().unwrap(),
        "--events",
        ev.to_str().unwrap(),
    ];
    let out = jobsort(&args);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("#3 submit b\n    b: dependency-add max-running-jobs-user-limit\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "[user1/A] run=1 active=2 sched=0 nodes=1 cores=1 held=b(max-running-jobs-user-limit)"
        ),
        "{text}"
    );

    let out = jobsort(&[&args[..], &["--state"]].concat());
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let bank = &v["mf_priority_map"][0]["banks"][0];
    assert_eq!(bank["cur_run_jobs"], 1);
    assert_eq!(
        bank["held_jobs"]["b"]["deps"],
        json!(["max-running-jobs-user-limit"])
    );
}

#[test]
fn bad_lines_are_located_and_stop_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(dir.path(), "limits.toml", CONFIG);
    let ev = write(
        dir.path(),
        "events.jsonl",
        "{\"op\":\"submit\",\"job\":\"a\",\"user\":\"user1\"}\n{\"op\":\"run\",\"job\":\"zz\"}\n{\"op\":\"run\",\"job\":\"a\"}\n{not json\n{\"op\":\"submit\",\"job\":\"a\",\"user\":\"user1\"}\n{\"op\":\"submit\",\"job\":\"c\",\"user\":\"nobody\"}\n{\"op\":\"end\",\"job\":\"a\"}\n",
    );
    let evs = ev.to_str().unwrap();
    let args = [
        "--config",
        cfg.to_str().unwrap(),
        "--events",
        evs,
        "--format",
        "json",
    ];
    let out = jobsort(&args);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(
        err,
        format!("jobsort limits: {evs}:2: unknown job \"zz\" (never submitted)\n")
    );
    assert_eq!(lines(&out).len(), 1, "the rest of the file is not applied");

    let out = jobsort(&[&args[..], &["--keep-going"]].concat());
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    let errs: Vec<&str> = err.lines().collect();
    assert_eq!(errs.len(), 4, "{err}");
    assert_eq!(
        errs[0],
        format!("jobsort limits: {evs}:2: unknown job \"zz\" (never submitted)")
    );
    assert!(
        errs[1].starts_with(&format!("jobsort limits: {evs}:4: ")),
        "{err}"
    );
    assert_eq!(
        errs[2],
        format!("jobsort limits: {evs}:5: duplicate submit of job \"a\"")
    );
    assert_eq!(
        errs[3],
        format!("jobsort limits: {evs}:6: unknown association nobody/(default bank)")
    );
    // Every event line keeps its number, a rejected one skipped included: the run on line 3
    // is event 3, the end on line 7 event 7 (they were 2 and 3).
    let got = lines(&out);
    assert_eq!(got.len(), 3);
    assert_eq!(
        (&got[1]["op"], &got[1]["event"]),
        (&json!("run"), &json!(3))
    );
    assert_eq!(
        (&got[2]["op"], &got[2]["event"]),
        (&json!("end"), &json!(7))
    );

    // A bad configuration is reported with its location.
    let bad = write(
        dir.path(),
        "bad.toml",
        "[[association]]\nuser='u'\nbank='A'\nmax_nodes='x'\n",
    );
    let out = jobsort(&["--config", bad.to_str().unwrap(), "--events", evs]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with(&format!("jobsort limits: {}:4: ", bad.display())),
        "{err}"
    );
}

#[test]
fn flux_db_source() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("flux.db");
    rusqlite::Connection::open(&db)
        .unwrap()
        .execute_batch(
            "CREATE TABLE association_table (username tinytext, userid int, bank tinytext,
                default_bank tinytext, active int, max_running_jobs int, max_active_jobs int,
                max_nodes int, max_cores int, queues tinytext, max_sched_jobs int);
             CREATE TABLE queue_table (queue tinytext, priority int, max_running_jobs int);
             INSERT INTO association_table VALUES ('u', 1, 'A', 'A', 1, 1, 7, 2147483647, 2147483647, '', 2147483647);",
        )
        .unwrap();
    let ev = write(
        dir.path(),
        "events.jsonl",
        "{\"op\":\"submit\",\"job\":\"a\",\"user\":\"u\"}\n{\"op\":\"run\",\"job\":\"a\"}\n{\"op\":\"submit\",\"job\":\"b\",\"user\":\"u\"}\n",
    );
    let out = jobsort(&[
        "--flux-db",
        db.to_str().unwrap(),
        "--events",
        ev.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = lines(&out);
    assert_eq!(
        got[2]["changes"],
        json!([{"job": "b", "dependency_add": "max-running-jobs-user-limit"}])
    );
}

#[test]
fn case_translations_run_through_the_cli() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/limits");
    let mut n = 0;
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
        let count = events.lines().filter(|l| !l.trim().is_empty()).count();
        let out = jobsort(&[
            "--config",
            dir.join("config.toml").to_str().unwrap(),
            "--events",
            dir.join("events.jsonl").to_str().unwrap(),
            "--format",
            "json",
        ]);
        assert!(
            out.status.success(),
            "{}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(lines(&out).len(), count, "{}", dir.display());
        n += 1;
    }
    assert_eq!(n, 6);
}

/// The README example: flux releases both 3-node jobs into 4 nodes of headroom; with
/// `--count-sched-in-resources` only one.
#[test]
fn readme_overshoot_example() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/limits_examples");
    let cfg = root.join("overshoot.toml");
    let ev = root.join("overshoot.jsonl");
    let args = [
        "--config",
        cfg.to_str().unwrap(),
        "--events",
        ev.to_str().unwrap(),
        "--format",
        "json",
    ];
    let released = |extra: &[&str]| -> Vec<String> {
        let out = jobsort(&[&args[..], extra].concat());
        assert!(out.status.success());
        lines(&out)[4]["changes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["state"] == "sched")
            .map(|c| c["job"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(released(&[]), ["j2", "j3"]);
    assert_eq!(released(&["--count-sched-in-resources"]), ["j2"]);
}
