//! flux-accounting's `mf_priority` priorities through `eval --scheduler flux` where jobsort
//! used to differ from a live flux: the queue factor a recomputed priority uses, and
//! fair-share from a flux-accounting database per (bank, user), as stored.
//!
//! Upstream: flux-framework/flux-accounting `src/plugins/mf_priority.cpp` (`new_cb` stores
//! the job's queue factor on the association, `priority_calculation` reads it there) and
//! `src/cmd/flux_account_update_fshare.cpp` / `src/fairness/writer/data_writer_db.cpp`
//! (fair-share written with `std::to_string`, six decimals).

use crate::common;

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

/// A flux-accounting database with 11 users: bank A (a1…a5 and ann, usage 1…6) walks
/// before bank B (b1, ann, b2…b4, usage 10…50), so the weighted walk gives ann 9/11 in A
/// and 4/11 in B, and a5 6/11. `update-fshare` stores them as 0.818182, 0.363636 and
/// 0.545455, and `mf_priority` uses the association's own value: 81818, 36364 and 54546
/// (looking ann up by name gave 81818 twice; the unrounded 6/11 gives 54545).
#[cfg(feature = "flux-db")]
#[test]
fn fairshare_from_the_database_per_bank_and_as_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("flux.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    // The columns `from_flux_db` reads, as flux-accounting's create_db.py names them.
    conn.execute_batch(
        "CREATE TABLE bank_table (bank_id integer PRIMARY KEY AUTOINCREMENT, bank text NOT NULL,
            active int(11) DEFAULT 1 NOT NULL, parent_bank text DEFAULT '',
            shares int NOT NULL, job_usage real DEFAULT 0.0 NOT NULL);
         CREATE TABLE association_table (creation_time bigint(20) NOT NULL,
            active int(11) DEFAULT 1 NOT NULL, username tinytext NOT NULL,
            userid int(11) DEFAULT 65534 NOT NULL, bank tinytext NOT NULL,
            default_bank tinytext NOT NULL, shares int(11) DEFAULT 1 NOT NULL,
            job_usage real DEFAULT 0.0 NOT NULL, fairshare real DEFAULT 0.5 NOT NULL,
            PRIMARY KEY (username, bank));
         INSERT INTO bank_table (bank, parent_bank, shares) VALUES ('root', '', 1), ('A', 'root', 1),
            ('B', 'root', 1);",
    )
    .unwrap();
    let users = [
        ("a1", "A", 1),
        ("a2", "A", 2),
        ("ann", "A", 3),
        ("a3", "A", 4),
        ("a4", "A", 5),
        ("a5", "A", 6),
        ("b1", "B", 10),
        ("ann", "B", 20),
        ("b2", "B", 30),
        ("b3", "B", 40),
        ("b4", "B", 50),
    ];
    for (user, bank, usage) in users {
        conn.execute(
            "INSERT INTO association_table (creation_time, username, bank, default_bank, job_usage)
             VALUES (0, ?1, ?2, 'A', ?3)",
            rusqlite::params![user, bank, usage],
        )
        .unwrap();
    }
    drop(conn);
    let jobs = write(
        dir.path(),
        "jobs.csv",
        "id,user,account,queue_factor,urgency\n1,ann,A,0,16\n2,ann,B,0,16\n3,a5,A,0,16\n",
    );
    let db = db.to_str().unwrap();
    assert_eq!(
        eval(&jobs, &["--fairshare-tree", db]),
        [81_818.0, 36_364.0, 54_546.0]
    );
}
