//! flux-accounting's `mf_priority` priorities through `eval --scheduler flux` where jobsort
//! used to differ from a live flux: the queue factor a recomputed priority uses, and
//! fair-share from a flux-accounting database per (bank, user), as stored.
//!
//! Upstream: flux-framework/flux-accounting `src/plugins/mf_priority.cpp` (`new_cb` stores
//! the job's queue factor on the association, `priority_calculation` reads it there) and
//! `src/cmd/flux_account_update_fshare.cpp` / `src/fairness/writer/data_writer_db.cpp`
//! (fair-share written with `std::to_string`, six decimals).

mod common;

use common::cli::{jobsort, json, run, write};
use serde_json::Value;

fn values(doc: &Value) -> Vec<f64> {
    doc["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["value"].as_f64().unwrap())
        .collect()
}

fn eval(jobs: &str, extra: &[&str]) -> Vec<f64> {
    let (code, formula, err) = run(["flux-formula"]);
    assert_eq!(code, 0, "{err}");
    let mut args = vec![
        "eval",
        formula.trim_end(),
        "--scheduler",
        "flux",
        "--jobs",
        jobs,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    values(&json(&jobsort(args)))
}

/// Every recomputed priority of ann/A uses queue priority 7 of ann/A's last submitted job:
/// 100000 · 0.05346 + 10000 · 7 = 75346 for job 1, whose own queue has priority 0 (5346).
/// bob/A and ann/B are other associations. `--flux-queue-factor job` uses the job's own.
#[test]
fn recomputed_priorities_use_the_queue_of_the_associations_last_job() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(
        dir.path(),
        "jobs.csv",
        "id,user,account,queue,submit,fairshare,queue_factor,urgency\n\
         1,ann,A,standby,100,0.05346,0,16\n\
         2,ann,A,bronze,200,0.05346,7,16\n\
         3,bob,A,standby,150,0.05346,0,16\n\
         4,ann,B,standby,300,0.05346,0,16\n",
    );
    assert_eq!(eval(&jobs, &[]), [75_346.0, 75_346.0, 5_346.0, 5_346.0]);
    assert_eq!(
        eval(&jobs, &["--flux-queue-factor", "job"]),
        [5_346.0, 75_346.0, 5_346.0, 5_346.0]
    );
}
