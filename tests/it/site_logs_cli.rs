//! A site's own logs end to end: `sim --trace` and `replay --trace` on a Slurm sacct dump and
//! on Flux job lists (fixtures in `tests/data/`, real samples in `tests/data/samples/`).

use crate::common;

use common::cli::*;

fn fixture(name: &str) -> String {
    repo_file(&format!("tests/data/{name}"))
}

fn sample(name: &str) -> String {
    repo_file(&format!("tests/data/samples/{name}"))
}

const F: &str = "walltime + ncpus";

#[test]
fn sim_runs_a_sacct_dump_on_the_cluster_its_allocations_show() {
    let trace = fixture("sacct/edges.txt");
    let v = json(&jobsort([
        "sim",
        "--trace",
        &trace,
        "--formula",
        F,
        "--format",
        "json",
    ]));
    let t = &v["trace"];
    // Job 109 ran 0 seconds (FAILED at once): kept, and counted as such.
    assert_eq!(
        (t["read"].as_u64(), t["kept"].as_u64()),
        (Some(15), Some(9))
    );
    assert_eq!(t["zero_runtime"], 1);
    assert_eq!(t["records_skipped"]["job step (not a job)"], 3);
    assert!(t["dropped"].get("job step (not a job)").is_none());
    assert_eq!(t["dropped"]["running (not ended)"], 1);
    assert_eq!(
        (t["nodes"].as_u64(), t["cores"].as_u64()),
        (Some(11), Some(9))
    );
    assert!(
        t["machine_derived"]
            .as_str()
            .unwrap()
            .starts_with("11 nodes x 9 cores")
    );
    assert_eq!(v["runs"][0]["jobs"], 9);
    // The table says what was left out, and where the size came from.
    let out = jobsort(["sim", "--trace", &trace]);
    let text = stdout(&out);
    // Jobs read = simulated + dropped; the steps are records apart.
    let line = "trace edges.txt: 15 jobs read, 9 simulated (1 ran 0 s), 6 dropped (1 never started (ended before it ran), 1 no processors, 1 pending (never started), 1 pending array tasks (never started), 1 requeued run (the later record is the job), 1 running (not ended)); 3 records skipped (3 job step (not a job))";
    assert!(text.contains(line), "{text}");
    assert!(
        text.contains("cluster size: 11 nodes x 9 cores from the allocations of 9 jobs"),
        "{text}"
    );
    // --nodes and --cores override it.
    let v = json(&jobsort([
        "sim", "--trace", &trace, "--nodes", "20", "--cores", "16", "--format", "json",
    ]));
    assert_eq!(
        (v["trace"]["nodes"].as_u64(), v["trace"]["cores"].as_u64()),
        (Some(20), Some(16))
    );
    assert!(v["trace"].get("machine_derived").is_none());
}

#[test]
fn replay_reconciles_a_formula_against_a_sacct_dumps_real_schedule() {
    let trace = fixture("sacct/edges.txt");
    let out = jobsort(["replay", "--trace", &trace, "--formula", F]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(": 9 recorded dispatches, 9 jobs captured,"),
        "{text}"
    );
    assert!(!text.contains("exceeded the free cores"), "{text}");
    stderr_has(
        &out,
        "15 jobs read, 9 simulated (1 ran 0 s), 6 dropped (1 never started (ended before it ran), ",
    );
    stderr_has(&out, "; 3 records skipped (3 job step (not a job))");
    stderr_has(&out, "cluster size: 11 nodes x 9 cores");
}

#[test]
fn a_headerless_xdmod_dump_needs_its_fields() {
    let trace = sample("xdmod-sacct-P-noheader-X.log");
    let out = jobsort(["sim", "--trace", &trace]);
    assert_eq!(code(&out), Some(1));
    stderr_has(
        &out,
        "(its 26 columns are those of XDMoD's dump: `--sacct-fields xdmod`)",
    );
    let v = json(&jobsort([
        "sim",
        "--trace",
        &trace,
        "--sacct-fields",
        "xdmod",
        "--format",
        "json",
    ]));
    assert_eq!(
        (v["trace"]["kept"].as_u64(), v["trace"]["nodes"].as_u64()),
        (Some(3), Some(39))
    );
    // The dump's zone: the same schedule, shifted.
    let shifted = json(&jobsort([
        "sim",
        "--trace",
        &trace,
        "--sacct-fields",
        "xdmod",
        "--sacct-utc-offset",
        "-05:00",
        "--format",
        "json",
    ]));
    assert_eq!(shifted["runs"][0]["metrics"], v["runs"][0]["metrics"]);
    let out = jobsort(["sim", "--trace", &trace, "--sacct-utc-offset", "EST"]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
}

#[test]
fn lenient_skips_bad_records_that_stop_a_strict_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(fixture("sacct/edges.txt")).unwrap();
    text.push_str("112|COMPLETED|2026-01-05T10:20:00|2026-01-05T10:25:00|2026-01-05T10:2");
    let trace = write(dir.path(), "cut.txt", &text);
    let out = jobsort(["sim", "--trace", &trace]);
    assert_eq!(code(&out), Some(1));
    stderr_has(
        &out,
        format!("{trace}:20: the last line has no line feed and 5 of the 21 columns"),
    );
    let v = json(&jobsort([
        "sim",
        "--trace",
        &trace,
        "--lenient",
        "--format",
        "json",
    ]));
    assert_eq!(v["trace"]["dropped"]["bad record: truncated last line"], 1);
    // The 15 jobs of edges.txt and the cut one; its 3 steps are records skipped.
    assert_eq!(v["trace"]["read"], 16);
    let out = jobsort(["replay", "--trace", &trace, "--lenient", "--formula", F]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    stderr_has(&out, "1 bad record: truncated last line");
    // `--list-dropped` names it by its line, after the note; the report is the same.
    let listed = jobsort([
        "replay",
        "--trace",
        &trace,
        "--lenient",
        "--formula",
        F,
        "--list-dropped",
    ]);
    assert_eq!(listed.stdout, out.stdout);
    stderr_has(&listed, "line 20      bad record: truncated last line\n");
    assert!(!stderr(&out).contains("dropped jobs:"), "{}", stderr(&out));
}

#[test]
fn flux_job_lists_simulate_and_replay() {
    for (trace, kept, nodes) in [
        (fixture("flux/jobs.json"), 3, 3),
        // Two of its jobs (`true`, `false`) ran 0 seconds once rounded: kept.
        (sample("flux-core-job-list-returncode.jsonl"), 4, 4),
    ] {
        let v = json(&jobsort([
            "sim",
            "--trace",
            &trace,
            "--formula",
            F,
            "--format",
            "json",
        ]));
        assert_eq!(v["trace"]["kept"].as_u64(), Some(kept), "{trace}");
        assert_eq!(v["trace"]["nodes"].as_u64(), Some(nodes), "{trace}");
        let out = jobsort(["replay", "--trace", &trace, "--formula", F]);
        assert_eq!(code(&out), Some(0), "{}", stderr(&out));
        assert!(
            stdout(&out).contains(&format!(
                ": {kept} recorded dispatches, {kept} jobs captured,"
            )),
            "{}",
            stdout(&out)
        );
    }
    // The fixture: node1-2 (ranks 0-1) hold 8 cores each for job ƒ2eH1q, then 8 for ƒ2eH3s.
    let v = json(&jobsort([
        "sim",
        "--trace",
        &fixture("flux/jobs.json"),
        "--format",
        "json",
    ]));
    assert_eq!(v["trace"]["cores"].as_u64(), Some(8));
    assert_eq!(v["trace"]["dropped"]["pending (never started)"], 1);
    assert_eq!(
        v["trace"]["dropped"]["never started (ended before it ran)"],
        1
    );
}

/// Two 4-core jobs at once on a cluster given as one 4-core node.
const OVERFULL: &str = "JobID|Submit|Start|End|State|NNodes|NCPUS\n\
1|2026-01-05T10:00:00|2026-01-05T10:00:00|2026-01-05T11:00:00|COMPLETED|1|4\n\
2|2026-01-05T10:00:00|2026-01-05T10:30:00|2026-01-05T11:30:00|COMPLETED|1|4\n";

/// `replay --trace` of [`OVERFULL`] on one 4-core node.
fn replay_overfull() -> std::process::Output {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "overfull.txt", OVERFULL);
    let on_one_node = ["--nodes", "1", "--cores", "4"];
    jobsort(
        ["replay", "--trace", &trace, "--formula", F]
            .into_iter()
            .chain(on_one_node),
    )
}

#[test]
fn a_real_schedule_beyond_the_given_cluster_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "overfull.txt", OVERFULL);
    // No NodeList: no size from the dump.
    let out = jobsort(["replay", "--trace", &trace, "--formula", F]);
    assert_eq!(code(&out), Some(1));
    stderr_has(&out, "no machine size in the trace");
    // Given one 4-core node, the two 4-core jobs overlap: a site's log must fit its cluster
    // (`replay/trace.rs`'s capacity check), so this is an error that says when and by how much.
    let out = replay_overfull();
    assert_eq!(code(&out), Some(1), "{}", stdout(&out));
    stderr_has(
        &out,
        "the recorded schedule does not fit the cluster: at time 1767609000 its 2 running jobs \
         hold 8 cores, the cluster has 4 (1 nodes x 4 cores)",
    );
}

/// `--lenient` on an SWF trace: the bad lines counted by kind, the good ones simulated; the
/// same lines piped to `replay` read alike. Strict, the first bad line is the error.
#[test]
fn lenient_skips_and_counts_bad_swf_lines() {
    let swf = "; MaxNodes: 4\n; MaxProcs: 4\n\
               1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n\
               2 0 0 10 1\n\
               3 5 0 ten 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n\
               4 9 0 20 2 -1 -1 2 -1 -1 1 1 1 -1 1 -1 -1 -1\n";
    let out = jobsort_stdin(["sim", "--trace", "-"], swf.as_bytes());
    assert_eq!(code(&out), Some(1));
    stderr_has(&out, "<stdin>:4: expected 18 fields, found 5");
    let out = jobsort_stdin(
        ["sim", "--trace", "-", "--lenient", "--format", "json"],
        swf.as_bytes(),
    );
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let v = json(&out);
    let t = &v["trace"];
    assert_eq!((t["read"].as_u64(), t["kept"].as_u64()), (Some(4), Some(2)));
    assert_eq!(t["dropped"]["bad record: wrong number of fields"], 1);
    assert_eq!(t["dropped"]["bad record: not a number"], 1);
    let out = jobsort_stdin(
        ["replay", "--trace", "-", "--lenient", "--formula", F],
        swf.as_bytes(),
    );
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    stderr_has(
        &out,
        "4 jobs read, 2 simulated, 2 dropped (1 bad record: not a number, 1 bad record: wrong \
         number of fields)",
    );
}

/// The `id` and `reason` of each entry of a JSON report's `trace.dropped_jobs`.
fn dropped_jobs(v: &serde_json::Value) -> Vec<(String, String)> {
    v["trace"]["dropped_jobs"]
        .as_array()
        .expect("dropped_jobs")
        .iter()
        .map(|d| {
            let s = |k: &str| d[k].as_str().unwrap().to_string();
            (s("id"), s("reason"))
        })
        .collect()
}

/// Each listed job's reason, counted: what the report's `dropped` counts say.
fn listed_counts(list: &[(String, String)]) -> serde_json::Value {
    let mut counts = serde_json::Map::new();
    for (_, reason) in list {
        let n = counts.get(reason).and_then(|n| n.as_u64()).unwrap_or(0);
        counts.insert(reason.clone(), (n + 1).into());
    }
    counts.into()
}

/// `sim --list-dropped` names every job a load drops. KTH-SP2's first 5,000 jobs drop 3 for
/// a run time of 0 (field 4 of jobs 2466, 4360 and 4866); on 64 one-core nodes the jobs
/// asking for more than 64 processors are dropped after the load (the first: 150, 151,
/// 153). Without the flag the report is as it was.
#[test]
fn list_dropped_names_each_job_a_trace_drops() {
    let trace = kth();
    let v = json(&jobsort([
        "sim",
        "--trace",
        &trace,
        "--list-dropped",
        "--format",
        "json",
    ]));
    let runtime = "runtime <= 0".to_string();
    assert_eq!(
        dropped_jobs(&v),
        [
            ("2466".to_string(), runtime.clone()),
            ("4360".to_string(), runtime.clone()),
            ("4866".to_string(), runtime.clone()),
        ]
    );
    let out = jobsort(["sim", "--trace", &trace, "--list-dropped"]);
    let text = stdout(&out);
    assert!(
        text.contains(
            "dropped jobs: 3\nid    reason\n2466  runtime <= 0\n4360  runtime <= 0\n\
             4866  runtime <= 0\n"
        ),
        "{text}"
    );
    // Loaded and then too large for the cluster: the counts and the list agree.
    let small = ["--nodes", "64", "--cores", "1", "--format", "json"];
    let args = |more: &[&'static str]| {
        let mut a = vec!["sim", "--trace", &trace];
        a.extend(small);
        a.extend(more);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let v = json(&jobsort(args(&["--list-dropped"])));
    let list = dropped_jobs(&v);
    assert_eq!(listed_counts(&list), v["trace"]["dropped"]);
    assert_eq!(v["trace"]["dropped"]["larger than the cluster"], 156);
    let large: Vec<&str> = list
        .iter()
        .filter(|(_, r)| r == "larger than the cluster")
        .map(|(id, _)| id.as_str())
        .take(3)
        .collect();
    assert_eq!(large, ["150", "151", "153"]);
    // Without the flag: no list, and the rest of the document the same.
    let mut plain = json(&jobsort(args(&[])));
    assert!(plain["trace"].get("dropped_jobs").is_none());
    plain["trace"]["dropped_jobs"] = v["trace"]["dropped_jobs"].clone();
    assert_eq!(plain, v);
    let text = stdout(&jobsort(["sim", "--trace", &trace]));
    assert!(!text.contains("dropped jobs"), "{text}");
}

/// A site log's dropped jobs by their ids as the log names them (a pending array's range
/// `101_[5-7%2]`, PBS's `103[3].srv`); a bad record skipped with `--lenient` by its line.
#[test]
fn list_dropped_names_a_site_logs_jobs_and_bad_records_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = std::fs::read_to_string(fixture("sacct/edges.txt")).unwrap();
    text.push_str("112|COMPLETED|2026-01-05T10:20:00|2026-01-05T10:25:00|2026-01-05T10:2");
    let trace = write(dir.path(), "cut.txt", &text);
    let v = json(&jobsort([
        "sim",
        "--trace",
        &trace,
        "--lenient",
        "--list-dropped",
        "--format",
        "json",
    ]));
    let list = dropped_jobs(&v);
    assert_eq!(listed_counts(&list), v["trace"]["dropped"]);
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        list,
        [
            s("101_[5-7%2]", "pending array tasks (never started)"),
            s("103", "never started (ended before it ran)"),
            s("105", "pending (never started)"),
            s("106", "running (not ended)"),
            s("110", "requeued run (the later record is the job)"),
            s("111", "no processors"),
            s("line 20", "bad record: truncated last line"),
        ]
    );
    let v = json(&jobsort([
        "sim",
        "--trace",
        &fixture("pbs_accounting/accounting"),
        "--list-dropped",
        "--format",
        "json",
    ]));
    let list = dropped_jobs(&v);
    assert_eq!(listed_counts(&list), v["trace"]["dropped"]);
    assert!(
        list.contains(&s("103[3].srv", "deleted before it started")),
        "{list:?}"
    );
    assert!(
        list.contains(&s(
            "109.srv",
            "running at the end of the logs (no E record)"
        )),
        "{list:?}"
    );
}

/// A Flux job list's dropped jobs by their `jobid`s; a bad entry skipped with `--lenient`
/// by its place in the list (`jobs[1]`: no `t_submit`).
#[test]
fn list_dropped_names_flux_jobs_and_a_bad_entry_by_its_place() {
    let v = json(&jobsort([
        "sim",
        "--trace",
        &fixture("flux/jobs.json"),
        "--list-dropped",
        "--format",
        "json",
    ]));
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        dropped_jobs(&v),
        [
            s("ƒ2eK7b", "pending (never started)"),
            s("ƒ2eM3c", "never started (ended before it ran)"),
        ]
    );
    let dir = tempfile::tempdir().unwrap();
    let doc = r#"{"jobs": [
        {"id": 1, "jobid": "f1", "userid": 1000, "t_submit": 100.0, "t_run": 104.0,
         "t_inactive": 165.0, "state": "INACTIVE", "result": "COMPLETED", "ncores": 1},
        {"id": 2, "jobid": "f2", "userid": 1000, "t_run": 104.0, "t_inactive": 165.0,
         "state": "INACTIVE", "result": "COMPLETED", "ncores": 1}]}"#;
    let trace = write(dir.path(), "flux.json", doc);
    let out = jobsort(["sim", "--trace", &trace, "--nodes", "1", "--cores", "1"]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    let v = json(&jobsort([
        "sim",
        "--trace",
        &trace,
        "--nodes",
        "1",
        "--cores",
        "1",
        "--lenient",
        "--list-dropped",
        "--format",
        "json",
    ]));
    assert_eq!(dropped_jobs(&v), [s("jobs[1]", "bad record: missing time")]);
}
