//! `sim` with a PBS site's own configuration (`--pbs-home`, `--sched-config`, `--qmgr`):
//! each setting read from the files, flags winning over them, and `--explain-config`
//! saying where each came from.

use crate::common;

use common::cli::{code, jobsort, jobsort_stdin, json, pbs_home, stderr, stdout, write};

/// Cluster 4 × 1 (SWF): the schedule of `tests/it/sim_schedule.rs`'s fixture A, where strict,
/// EASY and fill all differ.
const SWF: &str = "; MaxNodes: 4\n; MaxProcs: 4\n\
1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
2 0 -1 5 4 -1 -1 4 5 -1 1 2 1 -1 -1 -1 -1 -1\n\
3 1 -1 3 2 -1 -1 2 3 -1 1 3 1 -1 -1 -1 -1 -1\n\
4 2 -1 20 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n";

fn sim_json(args: &[&str]) -> serde_json::Value {
    let mut a = vec!["sim", "--format", "json"];
    a.extend_from_slice(args);
    let out = jobsort(&a);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    json(&out)
}

/// The run's metrics and policy, what `--format json` reports of a schedule.
fn run_of(v: &serde_json::Value) -> (String, String) {
    let r = &v["runs"][0];
    (r["policy"].to_string(), r["metrics"].to_string())
}

#[test]
fn strict_ordering_and_backfill_depth_choose_the_policy() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "a.swf", SWF);
    // PBS's shipped sched_config has `strict_ordering: false ALL`: no top jobs → fill.
    let home = pbs_home(dir.path(), "strict_ordering: false\tALL\n", None);
    let site = sim_json(&["--trace", &trace, "--pbs-home", &home]);
    let flag = sim_json(&["--trace", &trace, "--policy", "fill"]);
    assert_eq!(run_of(&site), run_of(&flag));
    assert_eq!(site["runs"][0]["policy"], "fill");
    // strict_ordering with backfill_depth 0 (qmgr) is strict; the flag wins over both.
    let home = pbs_home(dir.path(), "strict_ordering: True ALL\n", None);
    let qmgr = write(dir.path(), "q.txt", "set server backfill_depth = 0\n");
    let site = sim_json(&["--trace", &trace, "--pbs-home", &home, "--qmgr", &qmgr]);
    assert_eq!(site["runs"][0]["policy"], "strict");
    let over = sim_json(&[
        "--trace",
        &trace,
        "--pbs-home",
        &home,
        "--qmgr",
        &qmgr,
        "--policy",
        "easy",
    ]);
    assert_eq!(over["runs"][0]["policy"], "easy");
    // The three schedules differ on this trace (so the policy really was applied).
    let strict = sim_json(&["--trace", &trace, "--policy", "strict"]);
    let easy = sim_json(&["--trace", &trace, "--policy", "easy"]);
    assert_eq!(run_of(&site), run_of(&strict));
    assert_ne!(run_of(&strict).1, run_of(&easy).1);
    assert_ne!(run_of(&easy).1, run_of(&flag).1);
}

#[test]
fn explain_config_says_where_every_setting_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "a.swf", SWF);
    let home = pbs_home(
        dir.path(),
        "strict_ordering: true ALL\nfair_share: true ALL\nfairshare_entity: euser\n\
         fairshare_decay_time: 12:00:00\nfairshare_decay_factor: 0.7\nunknown_shares: 10\n\
         help_starving_jobs: true ALL\n",
        Some("grp 10 root 50\nuser1 11 grp 1\n"),
    );
    let qmgr = write(
        dir.path(),
        "qmgr.txt",
        "create resource ngpus\nset resource ngpus type = long\ncreate queue workq\n\
         set queue workq Priority = 100\n\
         set server job_sort_formula = \"fairshare_factor * 1000 + ngpus + queue_priority\"\n\
         set sched job_sort_formula_threshold = -1\n",
    );
    let out = jobsort([
        "sim",
        "--trace",
        &trace,
        "--pbs-home",
        &home,
        "--qmgr",
        &qmgr,
        "--decay-factor",
        "0.25",
        "--explain-config",
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let sc = format!("{home}/sched_priv/sched_config");
    let row = |name: &str| -> (String, String) {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{name}  ")))
            .unwrap_or_else(|| panic!("no row {name} in\n{text}"));
        let cols: Vec<&str> = line[name.len()..]
            .trim()
            .split("  ")
            .filter(|c| !c.is_empty())
            .collect();
        (
            cols[0].trim().to_string(),
            cols[cols.len() - 1].trim().to_string(),
        )
    };
    assert_eq!(row("policy"), ("easy".into(), format!("{sc}:1")));
    assert_eq!(
        row("fairshare tree"),
        (
            format!("resource_group {home}/sched_priv/resource_group"),
            format!("{sc}:2")
        )
    );
    assert_eq!(
        row("fairshare_decay_time"),
        ("43200".into(), format!("{sc}:4"))
    );
    assert_eq!(
        row("fairshare_decay_factor"),
        ("0.25".into(), "--decay-factor".into())
    );
    assert_eq!(row("unknown_shares"), ("10".into(), format!("{sc}:6")));
    assert_eq!(
        row("job_sort_formula_threshold"),
        ("-1".into(), format!("{qmgr}:6"))
    );
    assert_eq!(
        row("queue workq Priority"),
        ("100".into(), format!("{qmgr}:4"))
    );
    assert_eq!(row("resource ngpus"), ("long".into(), format!("{qmgr}:2")));
    assert_eq!(row("nodes"), ("4".into(), trace.clone()));
    assert!(
        row("fairshare_enforce_no_shares")
            .0
            .contains("jobs of entities with no share never run")
    );
    // What PBS would log about the file is a warning with its line.
    assert!(
        stderr(&out).contains(&format!(
            "{sc}:7: Obsolete config name help_starving_jobs: use eligible_time in job_sort_formula"
        )),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_sites_formula_and_queue_priorities_drive_the_run() {
    let dir = tempfile::tempdir().unwrap();
    // Two queues on one core; the qmgr Priority of `high` puts its job first.
    let jobs = write(
        dir.path(),
        "jobs.json",
        r#"[{"id": "a", "submit": 0, "run": 10, "procs": 1, "queue": "low"},
            {"id": "b", "submit": 0, "run": 10, "procs": 1, "queue": "low"},
            {"id": "c", "submit": 1, "run": 5, "procs": 1, "queue": "high"}]"#,
    );
    let qmgr = write(
        dir.path(),
        "qmgr.txt",
        "create queue low\nset queue low Priority = 1\ncreate queue high\n\
         set queue high Priority = 50\nset server job_sort_formula = queue_priority\n",
    );
    let site = sim_json(&["--trace", &jobs, "--nodes", "1", "--qmgr", &qmgr]);
    assert_eq!(site["runs"][0]["formula"], "queue_priority");
    // a runs at 0; at 10, c (priority 50) goes before b: waits 0, 9 (c), 15 (b).
    assert_eq!(site["runs"][0]["metrics"]["mean_wait"], 8.0);
    // A --formula given on the command line wins over the site's.
    let flag = sim_json(&[
        "--trace",
        &jobs,
        "--nodes",
        "1",
        "--qmgr",
        &qmgr,
        "--formula",
        "-queue_priority",
    ]);
    assert_eq!(flag["runs"][0]["formula"], "-queue_priority");
    // b before c: waits 0, 10 (b), 19 (c).
    assert_eq!(flag["runs"][0]["metrics"]["mean_wait"], 29.0 / 3.0);
}

#[test]
fn configurations_that_cannot_be_simulated_say_where_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "a.swf", SWF);
    let err = |args: &[&str]| {
        let mut a = vec!["sim", "--trace", trace.as_str()];
        a.extend_from_slice(args);
        let out = jobsort(&a);
        assert_eq!(code(&out), Some(1), "{}", stderr(&out));
        stderr(&out)
    };
    let home = pbs_home(dir.path(), "fair_share: true ALL\n", None);
    let e = err(&["--pbs-home", &home]);
    assert!(
        e.contains(&format!(
            "{home}/sched_priv/sched_config:1: fair_share is on, but there is no resource_group"
        )),
        "{e}"
    );
    let home = pbs_home(dir.path(), "strict_ordering: true ALL\n", None);
    let q = write(
        dir.path(),
        "q",
        "create queue a\nset queue a backfill_depth = 2\n",
    );
    let e = err(&["--pbs-home", &home, "--qmgr", &q]);
    assert!(
        e.contains(&format!("{q}:2: queue a has its own backfill_depth 2")),
        "{e}"
    );
    let home = pbs_home(
        dir.path(),
        "fair_share: true ALL\nunknown_shares: -3\n",
        Some("g 1 root 1\n"),
    );
    let e = err(&["--pbs-home", &home]);
    // `-3` does not start with a digit: parse_config reads it as -1.
    assert!(e.contains("sched_config:2: unknown_shares -1"), "{e}");
    let e = err(&["--pbs-home", &dir.path().join("none").display().to_string()]);
    assert!(e.contains("has no sched_priv/sched_config"), "{e}");
    let q = write(
        dir.path(),
        "q2",
        "set server job_sort_formula = \"ncpus +\"\n",
    );
    let e = err(&["--qmgr", &q]);
    assert!(
        e.contains(&format!("{q}:1")),
        "the formula's error names its line: {e}"
    );
}

/// A site's accounting directory simulated with its own configuration
/// (`sim --trace ACCOUNTING_DIR --pbs-home DIR`): the formula and backfill_depth from the qmgr
/// output, strict ordering and fairshare from sched_config with the site's resource_group.
/// The run equals the one the same settings give as flags.
#[test]
fn an_accounting_directory_simulates_with_the_sites_own_settings() {
    let dir = tempfile::tempdir().unwrap();
    let logs = "tests/data/pbs_accounting/accounting";
    let rg = "physics 10 root 60\nchem 11 root 40\nann 20 physics 1\nbob 21 physics 1\n\
              cid 22 physics 1\ndee 23 chem 1\neve 24 chem 1\nfay 25 chem 1\ngus 26 chem 1\n\
              hal 27 chem 1\n";
    let home = pbs_home(
        dir.path(),
        "strict_ordering: true ALL\nfair_share: true ALL\nfairshare_entity: euser\n",
        Some(rg),
    );
    let formula = "fairshare_factor * 100 + eligible_time / 60";
    let qmgr = write(
        dir.path(),
        "q.txt",
        &format!("set server job_sort_formula = \"{formula}\"\nset server backfill_depth = 2\n"),
    );
    let site = sim_json(&["--trace", logs, "--pbs-home", &home, "--qmgr", &qmgr]);
    assert_eq!(site["runs"][0]["formula"], formula);
    assert_eq!(site["runs"][0]["policy"], "backfill:2");
    let rg_file = write(dir.path(), "resource_group", rg);
    let flags = sim_json(&[
        "--trace",
        logs,
        "--formula",
        formula,
        "--backfill-depth",
        "2",
        "--resource-group",
        &rg_file,
        "--entity",
        "euser",
    ]);
    assert_eq!(run_of(&site), run_of(&flags));
    assert_eq!(site["runs"][0]["shares"], flags["runs"][0]["shares"]);
    // Without the site's tree every user is `unknown`: the shares differ.
    let flat = sim_json(&[
        "--trace",
        logs,
        "--formula",
        "eligible_time / 60",
        "--backfill-depth",
        "2",
    ]);
    assert_ne!(site["runs"][0]["shares"], flat["runs"][0]["shares"]);
}

/// `qmgr -c 'print server' | jobsort sim --qmgr -`: the site's files may come on stdin
/// (one of them: stdin feeds only one input), named `<stdin>` where they are cited.
#[test]
fn a_sites_qmgr_output_or_sched_config_reads_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "a.swf", SWF);
    let home = pbs_home(dir.path(), "strict_ordering: True ALL\n", None);
    let qmgr = "set server backfill_depth = 0\n";
    let args = [
        "sim",
        "--format",
        "json",
        "--trace",
        &trace,
        "--pbs-home",
        &home,
    ];
    let piped = jobsort_stdin(args.iter().chain(&["--qmgr", "-"]), qmgr.as_bytes());
    assert_eq!(code(&piped), Some(0), "{}", stderr(&piped));
    let file = write(dir.path(), "q.txt", qmgr);
    let from_file = sim_json(
        &args[3..]
            .iter()
            .copied()
            .chain(["--qmgr", &file])
            .collect::<Vec<_>>(),
    );
    assert_eq!(json(&piped)["runs"][0]["policy"], "strict");
    assert_eq!(run_of(&json(&piped)), run_of(&from_file));

    let sc = "strict_ordering: True ALL\n";
    let explain = jobsort_stdin(
        [
            "sim",
            "--trace",
            &trace,
            "--sched-config",
            "-",
            "--explain-config",
        ],
        sc.as_bytes(),
    );
    assert_eq!(code(&explain), Some(0), "{}", stderr(&explain));
    assert!(
        stdout(&explain).contains("<stdin>:1"),
        "{}",
        stdout(&explain)
    );

    let twice = jobsort_stdin(
        [
            "sim", "--trace", "-", "--nodes", "4", "--cores", "1", "--qmgr", "-",
        ],
        SWF.as_bytes(),
    );
    assert_eq!(code(&twice), Some(2), "{}", stderr(&twice));
    assert!(
        stderr(&twice).contains("stdin can feed only one"),
        "{}",
        stderr(&twice)
    );
}

/// PBS backfills around top jobs only under strict ordering (Altair's admin guide,
/// "Implement Backfilling"): a `backfill_depth` with `strict_ordering` off changes nothing,
/// and the run says so at the depth's line instead of silently running fill.
#[test]
fn a_backfill_depth_without_strict_ordering_is_named_as_having_no_effect() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "a.swf", SWF);
    let qmgr = write(dir.path(), "q.txt", "set server backfill_depth = 2\n");
    let off = pbs_home(dir.path(), "strict_ordering: false ALL\n", None);
    let out = jobsort([
        "sim",
        "--trace",
        &trace,
        "--pbs-home",
        &off,
        "--qmgr",
        &qmgr,
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("q.txt:1: backfill_depth 2 has no effect while strict_ordering is off"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("fill"), "{}", stdout(&out));
    let on = pbs_home(dir.path(), "strict_ordering: true ALL\n", None);
    let out = jobsort(["sim", "--trace", &trace, "--pbs-home", &on, "--qmgr", &qmgr]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("no effect"), "{}", stderr(&out));
}

/// PBS with `fair_share` and `fairshare_enforce_no_shares` (true unless sched_config says
/// otherwise) never runs a job whose entity has no share: `query_jobs` in OpenPBS
/// `src/scheduler/job_info.cpp` marks it NEVER_RUN ("Job has zero shares for fairshare").
/// The simulation leaves such jobs out and counts them: u2 has 0 shares, u3 is not in the
/// tree and `unknown` has none.
#[test]
fn zero_share_jobs_never_run_in_a_simulation() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "a.swf", SWF);
    let rg = "grp 10 root 50\nu1 11 grp 1\nu2 12 grp 0\n";
    let kept = |sched_config: &str, sub: &str| -> (u64, serde_json::Value) {
        let home = pbs_home(&dir.path().join(sub), sched_config, Some(rg));
        let v = sim_json(&["--trace", &trace, "--pbs-home", &home]);
        (
            v["runs"][0]["jobs"].as_u64().unwrap(),
            v["trace"]["dropped"].clone(),
        )
    };
    let (jobs, dropped) = kept("fair_share: true ALL\n", "on");
    // Jobs 1 and 4 are u1's; 2 is u2's, 3 u3's.
    assert_eq!(jobs, 2);
    assert_eq!(
        dropped["zero shares for fairshare (PBS never runs them)"], 2,
        "{dropped}"
    );
    // `--list-dropped` names them: jobs 2 (u2) and 3 (u3).
    let home = pbs_home(&dir.path().join("on"), "fair_share: true ALL\n", Some(rg));
    let v = sim_json(&["--trace", &trace, "--pbs-home", &home, "--list-dropped"]);
    let zero = "zero shares for fairshare (PBS never runs them)";
    assert_eq!(
        v["trace"]["dropped_jobs"],
        serde_json::json!([{"id": "2", "reason": zero}, {"id": "3", "reason": zero}])
    );
    let (jobs, _) = kept(
        "fair_share: true ALL\nfairshare_enforce_no_shares: false\n",
        "off",
    );
    assert_eq!(jobs, 4);
    let (jobs, _) = kept("fair_share: true ALL\nunknown_shares: 5\n", "unknown");
    assert_eq!(jobs, 3, "u3 under `unknown` now has shares");
}
