//! Workload loading from files: SWF (plain and gzip) errors with file:line, JSON job lists,
//! node-shaped requests.

use jobsort::sim::load_workload;
use jobsort::sim::run::{RunOptions, simulate};
use jobsort::sim::workload::Request;
use jobsort::sim::{Policy, SimConfig};
use std::io::Write;

fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn swf_parse_errors_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "bad.swf", b"; MaxProcs: 4\n1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n2 5 0 x 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n");
    let e = load_workload(&p).unwrap_err().to_string();
    assert_eq!(
        e,
        format!("{}:3: field 4 (run time) is not a number: `x`", p.display())
    );
    let p = write(dir.path(), "short.swf", b"1 0 0 10 1\n");
    assert_eq!(
        load_workload(&p).unwrap_err().to_string(),
        format!("{}:1: expected 18 fields, found 5", p.display())
    );
    let p = write(dir.path(), "dup.swf", b"1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n");
    assert_eq!(
        load_workload(&p).unwrap_err().to_string(),
        format!("{}:2: duplicate job number 1", p.display())
    );
}

#[test]
fn gzip_swf_is_read_transparently() {
    let dir = tempfile::tempdir().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"; MaxNodes: 2\n; MaxProcs: 8\n7 3 1 10 2 -1 -1 2 20 -1 1 5 6 -1 2 -1 -1 -1\n")
        .unwrap();
    let p = write(dir.path(), "t.swf.gz", &gz.finish().unwrap());
    let w = load_workload(&p).unwrap();
    assert_eq!(w.jobs.len(), 1);
    assert_eq!((w.machine.nodes, w.machine.cores), (Some(2), Some(4)));
    assert_eq!(w.jobs[0].user, "u5");
    assert_eq!(w.name, "t.swf.gz");
    assert_eq!(w.sha256.len(), 64);
}

#[test]
fn json_job_list_with_node_requests_is_placed_on_whole_nodes() {
    // 3 nodes × 4 cores. a: 1 node × 3 cores on node 0; b: 2 nodes × 2 cores → nodes 1, 2
    // (node 0 has 1 core left); c: 6 procs anywhere → waits for a or b.
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "jobs.json",
        br#"[{"id":"a","submit":0,"run":10,"nnodes":1,"ncores":3,"walltime":10},
             {"id":"b","submit":0,"run":20,"nnodes":2,"ncores":2,"walltime":20},
             {"id":"c","submit":1,"run":5,"procs":6,"walltime":5}]"#,
    );
    let w = load_workload(&p).unwrap();
    assert_eq!(w.jobs[1].request, Request::Nodes { nodes: 2, cores: 2 });
    let cfg = SimConfig::new(Policy::Strict, 3, 4);
    let r = simulate(&w, &cfg, None, &RunOptions::default()).unwrap();
    // Free at t=1: node0 1, node1 2, node2 2 = 5 < 6. At t=10 a ends: 4 + 2 + 2 = 8 ≥ 6.
    assert_eq!(r.outcome.start, [Some(0), Some(0), Some(10)]);
}

#[test]
fn json_errors_name_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(
        dir.path(),
        "j.json",
        br#"[{"submit":0,"run":1,"procs":1},{"submit":"late","run":1,"procs":1}]"#,
    );
    assert_eq!(
        load_workload(&p).unwrap_err().to_string(),
        format!(
            "{}: jobs[1]: `submit` must be a number, got \"late\"",
            p.display()
        )
    );
}

/// An SWF line with the given submit, wait, run, processors and requested time.
fn swf_line(id: usize, submit: &str, wait: &str, run: &str, procs: &str, req: &str) -> String {
    format!("{id} {submit} {wait} {run} {procs} -1 -1 -1 {req} -1 1 1 1 -1 -1 -1 -1 -1\n")
}

#[test]
fn swf_times_and_sizes_past_the_simulators_range_are_errors_naming_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let bad = |name: &str, line: String| {
        let text = swf_line(1, "0", "0", "10", "1", "10") + &line;
        let p = write(dir.path(), name, text.as_bytes());
        let e = load_workload(&p).unwrap_err().to_string();
        let prefix = format!("{}:2: ", p.display());
        assert!(e.starts_with(&prefix), "{e}");
        e[prefix.len()..].to_string()
    };
    // The times that wrapped to −446744073709551616 in a recording.
    assert_eq!(
        bad("submit.swf", swf_line(2, "9e18", "0", "10", "1", "10")),
        "field 2 (submit time): 9000000000000000000 s is more than 2^53 s (285 million years)"
    );
    assert!(
        bad("wait.swf", swf_line(2, "5", "9e18", "10", "1", "10"))
            .starts_with("field 3 (wait time): ")
    );
    assert!(
        bad("run.swf", swf_line(2, "5", "0", "9e18", "1", "10"))
            .starts_with("field 4 (run time): ")
    );
    assert!(
        bad("req.swf", swf_line(2, "5", "0", "10", "1", "9e18"))
            .starts_with("field 9 (requested time): ")
    );
    assert_eq!(
        bad("procs.swf", swf_line(2, "5", "0", "10", "5e9", "10")),
        "field 5 (allocated processors): 5000000000 is more than the 4294967295 a job may ask for"
    );
    // 2^53 s is still in range.
    let p = write(
        dir.path(),
        "edge.swf",
        swf_line(
            1,
            "9007199254740992",
            "0",
            "9007199254740992",
            "1",
            "9007199254740992",
        )
        .as_bytes(),
    );
    assert_eq!(load_workload(&p).unwrap().jobs.len(), 1);
}

#[test]
fn swf_run_times_that_add_up_past_i64_seconds_are_an_error_at_the_job_that_does_it() {
    // 2^53 s each: 1022 jobs fit (2^53 × (1022 runs + the longest requested time) < 2^63);
    // the 1023rd would let the simulated time pass i64::MAX.
    let t = "9007199254740992";
    let text: String = (1..=1030)
        .map(|i| swf_line(i, "0", "-1", t, "1", t))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "sum.swf", text.as_bytes());
    let e = load_workload(&p).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}:1023: field 4 (run time): the run times add up",
            p.display()
        )),
        "{e}"
    );
}

#[test]
fn json_counts_and_times_past_the_simulators_range_are_errors_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let bad = |job: &str| {
        let p = write(dir.path(), "j.json", format!("[{job}]").as_bytes());
        load_workload(&p).unwrap_err().to_string()
    };
    // `nnodes` used to saturate silently at u32::MAX.
    assert!(
        bad(r#"{"submit": 0, "run": 10, "nnodes": 1e12, "ncores": 1}"#).ends_with(
            "jobs[0]: `nnodes`: 1000000000000 is more than the 4294967295 a job may ask for"
        )
    );
    assert!(
        bad(r#"{"submit": 0, "run": 10, "nnodes": 65536, "ncores": 65536}"#)
            .ends_with("jobs[0]: `nnodes` × `ncores`: 4294967296 cores in all is more than the 4294967295 a job may hold")
    );
    assert!(bad(r#"{"submit": 9e18, "run": 10, "procs": 1}"#).contains("jobs[0]: `submit`: "));
    assert!(
        bad(r#"{"submit": -5, "run": 10, "procs": 1}"#)
            .ends_with("jobs[0]: `submit`: -5 s is below 0")
    );
    assert!(
        bad(r#"{"submit": 0, "run": 10, "procs": 1, "walltime": 1e300}"#)
            .contains("jobs[0]: `walltime`: ")
    );
    assert!(
        bad(r#"{"submit": 0, "run": 10, "procs": 1, "start": 1e19}"#)
            .contains("jobs[0]: `start`: ")
    );
}

#[test]
fn a_json_job_list_gives_account_and_qos() {
    // Slurm's multifactor priority in `sim` reads them (its association and QOS factors).
    let w = jobsort::sim::workload::parse_json_jobs(
        r#"[{"id": "1", "submit": 0, "run": 10, "procs": 1, "user": "u", "account": "phys", "qos": "high"},
            {"id": "2", "submit": 5, "run": 10, "procs": 1, "user": "v"}]"#,
        "j.json",
    )
    .unwrap();
    assert_eq!(
        (&**w.jobs[0].account(), &**w.jobs[0].qos()),
        ("phys", "high")
    );
    assert_eq!((&**w.jobs[1].account(), &**w.jobs[1].qos()), ("", ""));
}

/// A JSON job list's dropped jobs are listed by their `id` (an entry without one by its
/// place, counted from 1), each with the reason its count is under.
#[test]
fn a_json_job_lists_dropped_jobs_are_listed_by_id() {
    let w = jobsort::sim::workload::parse_json_jobs(
        r#"[{"id": "a", "submit": 0, "run": 10, "procs": 1},
            {"id": "b", "submit": 1, "run": -5, "procs": 1},
            {"submit": 2, "run": 10, "procs": 0}]"#,
        "j.json",
    )
    .unwrap();
    let listed: Vec<(&str, &str)> = w
        .report
        .dropped_jobs
        .iter()
        .map(|d| (&*d.id, &*d.reason))
        .collect();
    assert_eq!(listed, [("b", "runtime < 0"), ("3", "no processors")]);
    assert_eq!(w.report.dropped_total(), 2);
    assert_eq!(w.report.dropped_unlisted, 0);
}
