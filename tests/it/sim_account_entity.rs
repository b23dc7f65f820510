//! `sim --entity account`: PBS's `fairshare_entity Account_Name` (and a Slurm account) as the
//! simulation's fairshare entity, for traces that name accounts (PBS accounting logs, sacct,
//! flux job lists, JSON job lists); a trace without them is refused, as `eval`/`rank` refuse
//! a job without the entity's field (`JobSet::entity`).

use crate::common;

use common::cli::{code, jobsort, stderr, write};

/// One core. Job 0 (account A) runs 0–100; jobs 1 (A, 50 s) and 2 (B, 10 s) wait from 1 s.
/// By account, A has used 100 core-seconds and B none: job 2 first (100–110), then job 1
/// (110–160): waits 0, 109, 99. By user (all `u`) the factors tie and submit order runs
/// job 1 first (100–150), then job 2 (150–160): waits 0, 99, 149.
const JOBS: &str = r#"[
  {"id": "0", "submit": 0, "run": 100, "ncpus": 1, "user": "u", "account": "A"},
  {"id": "1", "submit": 1, "run": 50, "ncpus": 1, "user": "u", "account": "A"},
  {"id": "2", "submit": 1, "run": 10, "ncpus": 1, "user": "u", "account": "B"}
]"#;

fn mean_wait(args: &[&str]) -> f64 {
    let mut a = vec!["--nodes", "1", "--cores", "1"];
    a.extend_from_slice(args);
    common::cli::sim_mean_wait(&a)
}

#[test]
fn accounts_are_the_fairshare_entity_when_the_trace_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let rg = write(dir.path(), "rg", "A 10 root 1\nB 11 root 1\nu 12 root 1\n");
    let base = [
        "--trace",
        &jobs,
        "--formula",
        "fairshare_factor",
        "--policy",
        "strict",
        "--resource-group",
        &rg,
    ];
    let by = |entity: &str| mean_wait(&[&base[..], &["--entity", entity]].concat());
    assert_eq!(by("account"), 208.0 / 3.0);
    assert_eq!(by("Account_Name"), 208.0 / 3.0);
    assert_eq!(by("euser"), 248.0 / 3.0);
    // A trace without accounts: refused, naming the first job without one.
    let swf = write(
        dir.path(),
        "t.swf",
        "1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n",
    );
    let out = jobsort([
        "sim",
        "--trace",
        &swf,
        "--formula",
        "fairshare_factor",
        "--resource-group",
        &rg,
        "--entity",
        "account",
        "--nodes",
        "1",
        "--cores",
        "1",
    ]);
    assert_eq!(code(&out), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("fairshare entity `account`: job 1 has no account"),
        "{}",
        stderr(&out)
    );
}
