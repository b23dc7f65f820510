//! `jobsort eval` and `jobsort rank` end to end: JSON shapes of SPEC §6, exit codes, ordering,
//! thresholds, top-k, explain, job file formats and located errors.

use crate::common;

use common::cli::{jobsort, json, stderr, stdout, write};
use serde_json::Value;

const JOBS: &str = r#"[
  {"id": "a", "ncpus": 2, "walltime": "01:00:00"},
  {"id": "b", "ncpus": 0, "walltime": "00:30:00"},
  {"id": "c", "ncpus": 4, "walltime": 600},
  {"id": "d", "ncpus": 2, "walltime": "02:00:00"}
]"#;

#[test]
fn eval_json_in_input_order_with_per_job_errors() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    for engine in ["jit", "interp"] {
        let out = jobsort([
            "eval",
            "walltime/ncpus",
            "--jobs",
            &jobs,
            "--format",
            "json",
            "--engine",
            engine,
        ]);
        let v = json(&out);
        let got: Vec<(String, f64, Value)> = v["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                (
                    j["id"].as_str().unwrap().to_string(),
                    j["value"].as_f64().unwrap(),
                    j["error"].clone(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("a".into(), 1800.0, Value::Null),
                ("b".into(), 0.0, Value::from("float division by zero")),
                ("c".into(), 150.0, Value::Null),
                ("d".into(), 3600.0, Value::Null),
            ],
            "engine {engine}"
        );
        // The warning about the possible division by zero goes to stderr, not stdout.
        assert!(String::from_utf8_lossy(&out.stderr).contains("W0401"));
    }
}

#[test]
fn rank_orders_descending_ties_by_submission_order_then_id() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let v = json(&jobsort([
        "rank", "ncpus", "--jobs", &jobs, "--format", "json",
    ]));
    let order: Vec<&str> = v["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, vec!["c", "a", "d", "b"]);
    let first = &v["order"][0];
    assert_eq!(first["rank"], 1);
    assert_eq!(first["runnable"], true);
    assert_eq!(first["reason"], Value::Null);

    // With submission times the tie between a and d follows them, then the id.
    let jobs = write(
        dir.path(),
        "submit.json",
        r#"[{"id":"a","ncpus":2,"submit":20},{"id":"z","ncpus":2,"submit":10},{"id":"y","ncpus":2,"submit":10}]"#,
    );
    let v = json(&jobsort([
        "rank", "ncpus", "--jobs", &jobs, "--format", "json",
    ]));
    let order: Vec<&str> = v["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, vec!["y", "z", "a"]);
}

#[test]
fn rank_threshold_top_and_explain() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let v = json(&jobsort([
        "rank",
        "ncpus*10 - walltime/600",
        "--jobs",
        &jobs,
        "--threshold",
        "14",
        "--top",
        "3",
        "--explain",
        "--format",
        "json",
    ]));
    let order = v["order"].as_array().unwrap();
    assert_eq!(order.len(), 3);
    // c: 40 - 1 = 39; a: 20 - 6 = 14 (not runnable: the threshold is inclusive); d: 20 - 12 = 8
    assert_eq!(order[0]["id"], "c");
    assert_eq!(order[1]["id"], "a");
    assert_eq!(order[1]["value"], 14.0);
    assert_eq!(order[1]["runnable"], false);
    assert!(order[1]["reason"].as_str().unwrap().contains("threshold"));
    assert_eq!(order[0]["terms"][0]["term"], "ncpus*10");
    assert_eq!(order[0]["terms"][0]["value"], 40.0);
    assert_eq!(order[0]["terms"][1]["term"], "-(walltime/600)");
    assert_eq!(order[0]["terms"][1]["value"], -1.0);
}

#[test]
fn explain_terms_follow_compat_pbs() {
    // Under `--compat pbs` each term is what the compiled formula gives for it: its value
    // stored as a 32-bit float, as beside it in `value`, not the unrounded interpreter value.
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let v = json(&jobsort([
        "rank",
        "ncpus/3 + walltime/7",
        "--jobs",
        &jobs,
        "--compat",
        "pbs",
        "--explain",
        "--format",
        "json",
    ]));
    let order = v["order"].as_array().unwrap();
    let c = order.iter().find(|j| j["id"] == "c").unwrap();
    assert_eq!(c["terms"][0]["value"], (4.0f32 / 3.0) as f64);
    assert_eq!(c["terms"][1]["value"], (600.0f32 / 7.0) as f64);
    assert_eq!(c["value"], (4.0f64 / 3.0 + 600.0 / 7.0) as f32 as f64);
}

#[test]
fn table_and_csv_output() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let out = jobsort(["rank", "ncpus", "--jobs", &jobs]);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("rank  id"), "{text}");
    assert!(lines[1].trim_start().starts_with("1  c"), "{text}");
    let out = jobsort(["eval", "ncpus", "--jobs", &jobs, "--format", "csv"]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().lines().next(),
        Some("id,value,error")
    );
}

#[test]
fn qstat_csv_and_json_lines_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let qstat = write(
        dir.path(),
        "qstat.json",
        r#"{"Jobs":{"1.srv":{"Job_Owner":"ann@h","Resource_List":{"ncpus":2,"mem":"1gb","walltime":"00:10:00"}},
                   "2.srv":{"Job_Owner":"bob@h","Resource_List":{"ncpus":1,"mem":"512mb"}}}}"#,
    );
    let v = json(&jobsort([
        "eval",
        "mem + walltime",
        "--jobs",
        &qstat,
        "--format",
        "json",
    ]));
    assert_eq!(v["jobs"][0]["value"], 1048576.0 + 600.0);
    assert_eq!(v["jobs"][1]["value"], 524288.0);
    let csv = write(dir.path(), "jobs.csv", "id,ncpus\nx,3\ny,5\n");
    let v = json(&jobsort([
        "eval", "ncpus*2", "--jobs", &csv, "--format", "json",
    ]));
    assert_eq!(v["jobs"][1]["value"], 10.0);
    let jsonl = write(
        dir.path(),
        "jobs.jsonl",
        "{\"id\":\"p\",\"ncpus\":1}\n{\"id\":\"q\",\"ncpus\":7}\n",
    );
    let v = json(&jobsort([
        "rank", "ncpus", "--jobs", &jsonl, "--format", "json",
    ]));
    assert_eq!(v["order"][0]["id"], "q");
}

#[test]
fn swf_trace_as_job_input() {
    let dir = tempfile::tempdir().unwrap();
    let swf = write(
        dir.path(),
        "t.swf",
        "; MaxProcs: 8\n1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n2 10 0 50 2 -1 -1 2 3600 -1 1 2 1 -1 -1 -1 -1 -1\n3 20 0 0 2 -1 -1 2 60 -1 1 2 1 -1 -1 -1 -1 -1\n",
    );
    let out = jobsort(["rank", "-walltime", "--jobs", &swf, "--format", "json"]);
    let v = json(&out);
    let order: Vec<&str> = v["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_str().unwrap())
        .collect();
    assert_eq!(order, vec!["1", "2"]);
    // The job with run time 0 is dropped, and that is said.
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 of 3 trace jobs dropped"));
    // `--list-dropped` names it on stderr (job 3, run time 0); stdout is the same.
    for cmd in ["rank", "eval"] {
        let out = jobsort([cmd, "-walltime", "--jobs", &swf, "--format", "json"]);
        let listed = jobsort([
            cmd,
            "-walltime",
            "--jobs",
            &swf,
            "--format",
            "json",
            "--list-dropped",
        ]);
        assert_eq!(common::cli::code(&listed), Some(0), "{}", stderr(&listed));
        assert_eq!(listed.stdout, out.stdout);
        common::cli::stderr_has(&listed, "dropped jobs: 1\nid  reason\n3   runtime <= 0\n");
        assert!(!stderr(&out).contains("dropped jobs:"), "{}", stderr(&out));
    }
}

#[test]
fn bad_inputs_exit_1_with_location_usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(
        dir.path(),
        "bad.json",
        "[{\"id\":\"a\",\"ncpus\":1},\n {\"id\":\"b\",\"walltime\":\"1:xx\"}]",
    );
    let out = jobsort(["eval", "ncpus", "--jobs", &bad]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.json: $[1].walltime"), "{err}");
    assert!(out.stdout.is_empty());

    let jobs = write(dir.path(), "jobs.json", JOBS);
    let out = jobsort(["eval", "ncpu * 2", "--jobs", &jobs, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean `ncpus`"));
    assert!(
        out.stdout.is_empty(),
        "no JSON on stdout when the formula is invalid"
    );

    let out = jobsort([
        "eval",
        "ncpus",
        "--jobs",
        &dir.path().join("missing.json").to_string_lossy(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.json"));

    let out = jobsort(["rank", "ncpus"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "missing --jobs is a usage error"
    );
    let out = jobsort(["eval", "ncpus", "--jobs", &jobs, "--format", "yaml"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn deny_warnings_and_compat_pbs() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(
        dir.path(),
        "jobs.json",
        r#"[{"id":"a","eligible_time":16777217}]"#,
    );
    let out = jobsort(["eval", "walltime/ncpus", "--jobs", &jobs, "--deny-warnings"]);
    assert_eq!(out.status.code(), Some(1));
    // PBS stores the value in a 32-bit float: 16777217 becomes 16777216.
    let v = json(&jobsort([
        "eval",
        "eligible_time",
        "--jobs",
        &jobs,
        "--compat",
        "pbs",
        "--format",
        "json",
    ]));
    assert_eq!(v["jobs"][0]["value"], 16777216.0);
    let v = json(&jobsort([
        "eval",
        "eligible_time",
        "--jobs",
        &jobs,
        "--format",
        "json",
    ]));
    assert_eq!(v["jobs"][0]["value"], 16777217.0);
}

#[test]
fn fair_share_breaks_formula_ties_by_most_deserving_entity() {
    let manifest = env!("CARGO_MANIFEST_DIR");
    let jobs = format!("{manifest}/examples/jobs.json");
    let rg = format!("{manifest}/examples/resource_group");
    let usage = format!("{manifest}/examples/usage.json");
    let args = [
        "rank",
        "0",
        "--jobs",
        &jobs,
        "--resource-group",
        &rg,
        "--usage",
        &usage,
        "--format",
        "json",
    ];
    let ids = |v: Value| -> Vec<String> {
        v["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["id"].as_str().unwrap().to_string())
            .collect()
    };
    // Without --fair-share every job ties at 0: submission order.
    assert_eq!(
        ids(json(&jobsort(args)))[..3],
        ["101.pbs01", "102.pbs01", "103.pbs01"]
    );
    // With it: dave (bio, least usage for its shares) first, the unknown entity (erin) last.
    let mut with = args.to_vec();
    with.push("--fair-share");
    let order = ids(json(&jobsort(&with)));
    assert_eq!(order.first().map(String::as_str), Some("104.pbs01"));
    assert_eq!(order.last().map(String::as_str), Some("106.pbs01"));
    let out = jobsort(["rank", "0", "--jobs", &jobs, "--fair-share"]);
    assert_eq!(out.status.code(), Some(2));
    // erin is not in the tree: PBS puts her under `unknown` with 1 share within it, and
    // `unknown` itself has `unknown_shares` (0 by default): the warning says what that is worth.
    let warned = stderr(&jobsort(&with));
    assert!(
        warned.contains(
            "placed under `unknown` with 1 share each, which has 0 shares, so they get no share \
             of the machine (set unknown_shares to give them one): erin"
        ),
        "{warned}"
    );
    with.extend(["--unknown-shares", "5"]);
    let warned = stderr(&jobsort(&with));
    assert!(
        warned.contains("with 1 share each, which has 5 shares: erin"),
        "{warned}"
    );
}

/// A flat custom field is one value in every subcommand: `eval` reads it from the job file, and
/// `sim` (through the JSON job list's reader) gives the simulated jobs the same resource, so a
/// formula on it ranks them alike (`sim` read 0 for both before).
#[test]
fn a_flat_custom_field_means_the_same_in_eval_and_sim() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(
        dir.path(),
        "flat.json",
        r#"[{"id":"a","gpu_hours":5,"submit":0,"run":10,"ncpus":1,"Account_Name":"phys"},
            {"id":"b","gpu_hours":"1","submit":0,"run":10,"ncpus":1}]"#,
    );
    let out = jobsort([
        "eval",
        "gpu_hours",
        "--jobs",
        &jobs,
        "--resource",
        "gpu_hours:float",
        "--format",
        "json",
    ]);
    let values: Vec<f64> = json(&out)["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["value"].as_f64().unwrap())
        .collect();
    assert_eq!(values, [5.0, 1.0]);
    // No warning that `run` is unknown: it is the trace's run time, a field of the table.
    assert!(
        !common::cli::stderr(&out).contains("`run`"),
        "{}",
        common::cli::stderr(&out)
    );
    let out = jobsort([
        "sim",
        "--trace",
        &jobs,
        "--formula",
        "gpu_hours",
        "--resource",
        "gpu_hours:float",
        "--nodes",
        "1",
        "--cores",
        "1",
        "--record",
        "-",
    ]);
    let lines = common::cli::json_lines(&out);
    let submitted: Vec<(String, Value, Value)> = lines
        .iter()
        .flat_map(|l| l["events"].as_array().cloned().unwrap_or_default())
        .filter(|e| e.get("submit").is_some())
        .map(|e| {
            (
                e["submit"].as_str().unwrap().to_string(),
                e["resources"].clone(),
                e["account"].clone(),
            )
        })
        .collect();
    assert_eq!(submitted[0].1, serde_json::json!({"gpu_hours": 5.0}));
    assert_eq!(submitted[1].1, serde_json::json!({"gpu_hours": 1.0}));
    // Both started in the value's order: a (5) before b (1), on one core.
    let dispatched: Vec<&str> = lines
        .iter()
        .flat_map(|l| l["decisions"].as_array().into_iter().flatten())
        .filter_map(|d| d["dispatch"].as_str())
        .collect();
    assert_eq!(dispatched, ["a", "b"]);
}

/// Every subcommand that takes jobs reads every format, by the one format rule: a PBS
/// accounting log given to `eval` is its jobs (it was read as a one-column CSV: every value 0,
/// exit 0), a headerless sacct dump given to `rank` too (a CSV error before). Samples from
/// XDMoD's test data (`tests/data/samples/`, copied from `../shared/data/samples/`).
#[test]
fn eval_and_rank_read_site_logs_as_sim_does() {
    let log = common::cli::repo_file("tests/data/samples/xdmod-pbs-accounting-E-records.log");
    let out = jobsort([
        "eval",
        "ncpus",
        "--jobs",
        &log,
        "--lenient",
        "--format",
        "json",
    ]);
    assert_eq!(
        common::cli::code(&out),
        Some(0),
        "{}",
        common::cli::stderr(&out)
    );
    let jobs = json(&out)["jobs"].as_array().unwrap().clone();
    assert_eq!(jobs.len(), 7);
    assert_eq!(jobs[0]["id"], "6.edge.ccr.buffalo.edu");
    assert_eq!(jobs[0]["value"], 32.0);
    common::cli::stderr_has(&out, "1 of 8 trace jobs dropped: 1 (bad attribute value)");
    // The same log without --lenient stops at its bad record, as `sim --trace` does.
    let strict = jobsort(["eval", "ncpus", "--jobs", &log]);
    assert_eq!(common::cli::code(&strict), Some(1));
    common::cli::stderr_has(
        &strict,
        "xdmod-pbs-accounting-E-records.log:2: E record of job `6`",
    );
    let sacct = common::cli::repo_file("tests/data/samples/xdmod-sacct-P-noheader-X.log");
    let out = jobsort([
        "rank",
        "ncpus",
        "--jobs",
        &sacct,
        "--sacct-fields",
        "xdmod",
        "--format",
        "json",
    ]);
    assert_eq!(
        common::cli::code(&out),
        Some(0),
        "{}",
        common::cli::stderr(&out)
    );
    let v = json(&out);
    let ranked = v["order"].as_array().unwrap();
    assert_eq!(ranked[0]["id"], "4103947");
    assert_eq!(ranked[0]["value"], 256.0);
    // A text no reader takes is an error naming what was tried (sim), not zeros.
    let dir = tempfile::tempdir().unwrap();
    let prose = write(
        dir.path(),
        "notes.txt",
        "hello world\nthis is no job file\n",
    );
    let out = jobsort(["sim", "--trace", &prose, "--nodes", "1", "--cores", "1"]);
    assert_eq!(common::cli::code(&out), Some(1));
    common::cli::stderr_has(&out, "notes.txt: not a format jobsort reads (tried JSON");
}

/// `--jobs -` tells the format by content as a file does: an SWF trace on stdin, plain or
/// gzip, is the trace's jobs (it was read as CSV, a column named `; Version: 2.2`, every value
/// 0; gzip bytes "not UTF-8").
#[test]
fn jobs_on_stdin_are_told_by_content() {
    let swf = "; Version: 2.2\n; MaxProcs: 8\n\
               1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1\n\
               2 10 5 50 8 -1 -1 8 60 -1 1 4 2 -1 1 -1 -1 -1\n";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, swf.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    for input in [swf.as_bytes().to_vec(), gz] {
        let out = common::cli::jobsort_stdin(
            ["rank", "ncpus", "--jobs", "-", "--format", "json"],
            &input,
        );
        assert_eq!(
            common::cli::code(&out),
            Some(0),
            "{}",
            common::cli::stderr(&out)
        );
        let v = json(&out);
        let got: Vec<(&str, f64)> = v["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| (j["id"].as_str().unwrap(), j["value"].as_f64().unwrap()))
            .collect();
        assert_eq!(got, [("2", 8.0), ("1", 4.0)]);
    }
}

/// Under `--compat pbs` a value beyond a 32-bit float is `inf` (PBS stores `formula_value`
/// as a float and logs `Formula Evaluation = inf` — `formula_evaluate` in OpenPBS
/// `src/scheduler/job_info.cpp`): the JSON of `eval` and `rank` (and `rank --explain`'s terms)
/// carries it as a string, never as `null`, as the table does.
#[test]
fn infinite_values_are_strings_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(
        dir.path(),
        "jobs.json",
        r#"[{"id": "a", "ncpus": 60}, {"id": "b", "ncpus": 20}, {"id": "c", "ncpus": 40}]"#,
    );
    // `ncpus` is never negative (a job file saying so is refused): shifted to go below 0.
    let formula = "(ncpus - 40) * 1e38";
    let out = jobsort([
        "eval", formula, "--jobs", &jobs, "--format", "json", "--compat", "pbs",
    ]);
    let v = json(&out);
    let values: Vec<(Value, Value)> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| (j["value"].clone(), j["error"].clone()))
        .collect();
    assert_eq!(
        values,
        vec![
            (Value::from("inf"), Value::Null),
            (Value::from("-inf"), Value::Null),
            (Value::from(0.0), Value::Null),
        ]
    );
    let out = jobsort([
        "rank",
        formula,
        "--jobs",
        &jobs,
        "--format",
        "json",
        "--explain",
        "--compat",
        "pbs",
    ]);
    let v = json(&out);
    let order: Vec<(Value, Value, Value)> = v["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["id"].clone(),
                j["value"].clone(),
                j["terms"][0]["value"].clone(),
            )
        })
        .collect();
    assert_eq!(
        order,
        vec![
            ("a".into(), "inf".into(), "inf".into()),
            ("c".into(), 0.0.into(), 0.0.into()),
            ("b".into(), "-inf".into(), "-inf".into()),
        ]
    );
}

/// PBS's `cmp_sort` (OpenPBS `src/scheduler/sort.cpp`) breaks a tie in formula value by
/// `qrank`, which `qstat -f -F json` shows (as root) as `queue_rank`: it is the submission
/// order when shown; without it `qtime` (whole seconds) and then the id's sequence number
/// (`96.vm` before `108.vm`, array subjobs by index) stand in for it.
#[test]
fn rank_ties_follow_queue_rank_else_qtime_then_sequence_number() {
    let dir = tempfile::tempdir().unwrap();
    let order = |text: &str| -> Vec<String> {
        let jobs = write(dir.path(), "qstat.json", text);
        let out = jobsort(["rank", "ncpus", "--jobs", &jobs, "--format", "json"]);
        json(&out)["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["id"].as_str().unwrap().to_string())
            .collect()
    };
    let qtime = r#""qtime":"Mon Nov 30 01:00:00 2026""#;
    let job = |id: &str, extra: &str| {
        format!(r#""{id}":{{"job_state":"Q",{qtime},{extra}"Resource_List":{{"ncpus":1}}}}"#)
    };
    // Same second, no queue_rank: by sequence number, not as text.
    let text = format!(
        r#"{{"Jobs":{{{},{},{}}}}}"#,
        job("108.vm", ""),
        job("96.vm", ""),
        job(
            "100[].vm",
            r#""array":"True","array_indices_remaining":"1-3","#
        )
    );
    assert_eq!(order(&text), ["96.vm", "100[].vm", "108.vm"]);
    // queue_rank decides where it is shown (a job moved between queues is ranked anew).
    let text = format!(
        r#"{{"Jobs":{{{},{}}}}}"#,
        job("96.vm", r#""queue_rank":1796000400500,"#),
        job("108.vm", r#""queue_rank":1796000400200,"#)
    );
    assert_eq!(order(&text), ["108.vm", "96.vm"]);
}

/// PBS with `fair_share` and `fairshare_enforce_no_shares` (true in the shipped sched_config)
/// never runs a job whose entity has no share of the machine: `query_jobs` in OpenPBS
/// `src/scheduler/job_info.cpp` marks it NEVER_RUN with NO_FAIRSHARES ("Job has zero shares
/// for fairshare"), and `cmp_sort` (`src/scheduler/sort.cpp`) puts jobs that cannot run after
/// those that can. A 0-share entity, and one under `unknown` with `unknown_shares` 0.
#[test]
fn zero_share_jobs_are_never_runnable_under_fair_share() {
    let dir = tempfile::tempdir().unwrap();
    let rg = write(
        dir.path(),
        "resource_group",
        "grp 10 root 10\nalice 11 grp 5\nzed 12 grp 0\n",
    );
    let jobs = write(
        dir.path(),
        "jobs.json",
        r#"[{"id": "1", "user": "alice", "ncpus": 1},
            {"id": "2", "user": "zed", "ncpus": 8},
            {"id": "3", "user": "erin", "ncpus": 4},
            {"id": "4", "user": "alice", "ncpus": 2}]"#,
    );
    let rank = |extra: &[&str]| -> Vec<(String, bool, Value)> {
        let mut args = vec![
            "rank",
            "ncpus",
            "--jobs",
            &jobs,
            "--resource-group",
            &rg,
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let out = jobsort(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        json(&out)["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| {
                (
                    j["id"].as_str().unwrap().to_string(),
                    j["runnable"].as_bool().unwrap(),
                    j["reason"].clone(),
                )
            })
            .collect()
    };
    let zero = Value::from("Job has zero shares for fairshare");
    assert_eq!(
        rank(&["--fair-share"]),
        [
            ("4".to_string(), true, Value::Null),
            ("1".to_string(), true, Value::Null),
            ("2".to_string(), false, zero.clone()),
            ("3".to_string(), false, zero.clone()),
        ]
    );
    // --top selects after the jobs that cannot run are put last.
    assert_eq!(rank(&["--fair-share", "--top", "3"]).len(), 3);
    assert_eq!(rank(&["--fair-share", "--top", "3"])[2].0, "2");
    // Without enforcement, or without fair_share, every job is ranked by value.
    let by_value = ["2", "3", "4", "1"];
    for extra in [
        &["--fair-share", "--fairshare-enforce-no-shares", "false"][..],
        &[][..],
    ] {
        let got = rank(extra);
        assert_eq!(
            got.iter().map(|j| j.0.as_str()).collect::<Vec<_>>(),
            by_value
        );
        assert!(got.iter().all(|j| j.1), "{extra:?}");
    }
    // The table says why too.
    let out = jobsort([
        "rank",
        "ncpus",
        "--jobs",
        &jobs,
        "--resource-group",
        &rg,
        "--fair-share",
    ]);
    assert!(
        stdout(&out).contains("no        Job has zero shares for fairshare"),
        "{}",
        stdout(&out)
    );
}

/// A job file that is a pipe (`--jobs <(zcat trace.gz)`, `--jobs /dev/stdin`) is read once, as
/// a stream: its start told the format and was then lost when the file was opened again (a
/// JSON job list read as no jobs, an SWF trace from its ninth kilobyte on).
#[test]
fn a_job_file_that_is_a_pipe_is_read_once() {
    let json_jobs = r#"[{"id": "a", "ncpus": 2}, {"id": "b", "ncpus": 8}]"#;
    let swf = "; Version: 2.2\n1 0 5 100 4 -1 -1 4 200 -1 1 3 2 -1 1 -1 -1 -1\n\
               2 10 5 50 8 -1 -1 8 60 -1 1 4 2 -1 1 -1 -1 -1\n";
    for (input, want) in [(json_jobs, ["b", "a"]), (swf, ["2", "1"])] {
        let out = common::cli::jobsort_stdin(
            ["rank", "ncpus", "--jobs", "/dev/stdin", "--format", "json"],
            input.as_bytes(),
        );
        assert_eq!(common::cli::code(&out), Some(0), "{}", stderr(&out));
        let v = json(&out);
        let got: Vec<&str> = v["order"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["id"].as_str().unwrap())
            .collect();
        assert_eq!(got, want);
    }
}

#[test]
fn compare_ranks_the_same_jobs_by_a_second_formula() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    // By hand. By ncpus: c (4), a (2), d (2, after a in input order), b (0, not runnable
    // under threshold 1). By walltime: d (7200), a (3600), b (1800), c (600). Moves: c down
    // 3, a none, d up 2, b up 1. The pairs the orders put the other way round: (c,a), (c,d),
    // (c,b), (a,d): 4 of 6, so Kendall's tau = 1 - 2*4/6 = -1/3.
    let base = ["rank", "ncpus", "--jobs", &jobs, "--compare", "walltime"];
    let v = json(&jobsort(base.iter().copied().chain([
        "--threshold",
        "1",
        "--top",
        "2",
        "--format",
        "json",
    ])));
    let order = v["order"].as_array().unwrap();
    assert_eq!(order.len(), 2);
    assert_eq!(order[0]["id"], "c");
    assert_eq!(order[0]["compare"]["rank"], 4);
    assert_eq!(order[0]["compare"]["value"], 600.0);
    assert_eq!(order[0]["compare"]["move"], -3);
    assert_eq!(order[1]["id"], "a");
    assert_eq!(order[1]["compare"]["rank"], 2);
    assert_eq!(order[1]["compare"]["move"], 0);
    let summary = &v["compare"];
    assert_eq!(summary["formula"], "walltime");
    assert_eq!(summary["jobs"], 4);
    assert_eq!(summary["moved"], 3);
    assert_eq!(summary["swapped_pairs"], 4);
    assert!((summary["kendall_tau"].as_f64().unwrap() + 1.0 / 3.0).abs() < 1e-12);

    let table = stdout(&jobsort(base));
    assert!(table.contains("rank B"), "{table}");
    assert!(
        table
            .lines()
            .any(|l| l.contains(" c ") && l.ends_with("down 3")),
        "{table}"
    );
    assert!(
        table
            .lines()
            .any(|l| l.contains(" d ") && l.ends_with("up 2")),
        "{table}"
    );
    assert!(
        table.contains("B = `walltime`: 3 of 4 jobs move"),
        "{table}"
    );
    let csv = stdout(&jobsort(base.iter().copied().chain(["--format", "csv"])));
    assert!(csv.starts_with("rank,id,value,runnable,reason,rank B,value B,runnable B,move\n"));
    assert!(csv.contains("\n1,c,4.0,yes,,4,600.0,yes,-3\n"), "{csv}");

    // Both formulas are checked: an error in the second names `--compare`.
    let bad = jobsort(["rank", "ncpus", "--jobs", &jobs, "--compare", "walltime +"]);
    assert_eq!(bad.status.code(), Some(1), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("--compare:1:"), "{}", stderr(&bad));
}

/// The thread pool a large evaluation runs on has at most the threads the machine can run
/// at once, whatever `RAYON_NUM_THREADS` asks (built in `cli/mod.rs`, `build_thread_pool`):
/// 10,000 threads made a million-job `eval` 28 times slower. Asked for 10,000 under an
/// address-space limit that 10,000 thread stacks do not fit in, `eval` of a table large
/// enough to be split across threads still answers (it panicked spawning them).
#[test]
fn the_thread_pool_is_at_most_what_the_machine_runs() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("id,ncpus\n");
    for i in 0..70_000 {
        text.push_str(&format!("j{i},{}\n", i % 64 + 1));
    }
    let jobs = write(dir.path(), "jobs.csv", &text);
    let mut cmd = common::cli::command(["eval", "ncpus", "--jobs", &jobs, "--format", "csv"]);
    cmd.env("RAYON_NUM_THREADS", "10000");
    // SAFETY: `setrlimit` is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 3 << 30,
                rlim_max: 3 << 30,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.stdin(std::process::Stdio::null()).output().unwrap();
    assert_eq!(common::cli::code(&out), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), 70_001);
}

/// `eval` and `rank` print values as Python's `repr` does: a subnormal is `5e-324`, not the
/// 300-odd digits of its positional form.
#[test]
fn subnormal_values_print_as_python_repr() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(
        dir.path(),
        "jobs.json",
        r#"[{"id":"1","energy":5e-324},{"id":"2","energy":1e-5}]"#,
    );
    for sub in ["eval", "rank"] {
        let out = jobsort([sub, "--jobs", &jobs, "energy"]);
        let text = stdout(&out);
        assert!(text.contains("5e-324"), "{sub}: {text}");
        assert!(text.contains("1e-05"), "{sub}: {text}");
        assert!(text.lines().all(|l| l.len() < 100), "{sub}: {text}");
    }
}
