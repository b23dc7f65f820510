//! `rank` and `eval` with a PBS site's own configuration (`--pbs-home`, `--sched-config`,
//! `--qmgr`): the site's job_sort_formula when none is given, its threshold, fair_share and
//! the fairshare files under `sched_priv`, unknown_shares, queue priorities; each flag wins
//! over the files, and `--explain-config` says where every setting came from.

use crate::common;

use common::cli::{code, jobsort, json, pbs_home, stderr, stdout, write};

const JOBS: &str = r#"[
  {"id": "a", "user": "ann", "queue": "low", "ncpus": 1},
  {"id": "b", "user": "bob", "queue": "high", "ncpus": 4},
  {"id": "c", "user": "cid", "queue": "low", "ncpus": 2}
]"#;

fn rank_json(args: &[&str]) -> Vec<(String, f64, bool)> {
    let mut a = vec!["rank", "--format", "json"];
    a.extend_from_slice(args);
    let out = jobsort(&a);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    json(&out)["order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["id"].as_str().unwrap().to_string(),
                j["value"].as_f64().unwrap(),
                j["runnable"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn row(id: &str, value: f64, runnable: bool) -> (String, f64, bool) {
    (id.to_string(), value, runnable)
}

#[test]
fn the_sites_formula_and_threshold_unless_flags_say_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let qmgr = write(
        dir.path(),
        "qmgr.txt",
        "set server job_sort_formula = \"ncpus * 2\"\nset sched job_sort_formula_threshold = 2\n",
    );
    // No FORMULA: qmgr's job_sort_formula; its threshold is inclusive (value <= 2).
    assert_eq!(
        rank_json(&["--jobs", &jobs, "--qmgr", &qmgr]),
        [
            row("b", 8.0, true),
            row("c", 4.0, true),
            row("a", 2.0, false)
        ]
    );
    // A formula and a threshold on the command line win.
    assert_eq!(
        rank_json(&[
            "-ncpus",
            "--jobs",
            &jobs,
            "--qmgr",
            &qmgr,
            "--threshold",
            "-3"
        ]),
        [
            row("a", -1.0, true),
            row("c", -2.0, true),
            row("b", -4.0, false)
        ]
    );
    // eval too.
    let out = jobsort(["eval", "--jobs", &jobs, "--qmgr", &qmgr, "--format", "csv"]);
    assert_eq!(stdout(&out), "id,value,error\na,2.0,\nb,8.0,\nc,4.0,\n");
    // Without a formula anywhere: a usage error that says where one can come from.
    let out = jobsort(["rank", "--jobs", &jobs]);
    assert_eq!(code(&out), Some(2));
    assert!(
        stderr(&out).contains("--qmgr FILE or --pbs-home DIR"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn queue_priorities_from_qmgr() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let qmgr = write(
        dir.path(),
        "qmgr.txt",
        "create queue high\nset queue high Priority = 100\ncreate queue low\n\
         set queue low Priority = 10\n",
    );
    assert_eq!(
        rank_json(&["queue_priority + ncpus", "--jobs", &jobs, "--qmgr", &qmgr]),
        [
            row("b", 104.0, true),
            row("c", 12.0, true),
            row("a", 11.0, true)
        ]
    );
}

#[test]
fn fairshare_tree_from_the_sites_resource_group_when_fair_share_is_on() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let rg = "ann 10 root 60\nbob 11 root 30\n";
    let home = pbs_home(
        dir.path(),
        "fair_share: true ALL\nunknown_shares: 10\n",
        Some(rg),
    );
    let rg_file = write(dir.path(), "rg", rg);
    // fairshare_perc: ann 60/100, bob 30/100, cid in `unknown` with the site's 10 shares
    // (PBS's values are 32-bit floats).
    let site = rank_json(&["fairshare_perc", "--jobs", &jobs, "--pbs-home", &home]);
    let f = |v: f32| f64::from(v);
    assert_eq!(
        site,
        [
            row("a", f(0.6), true),
            row("b", f(0.3), true),
            row("c", f(0.1), true)
        ]
    );
    let flags = rank_json(&[
        "fairshare_perc",
        "--jobs",
        &jobs,
        "--resource-group",
        &rg_file,
        "--unknown-shares",
        "10",
    ]);
    assert_eq!(site, flags);
    // A flag wins over unknown_shares: `unknown` without shares.
    let zero = rank_json(&[
        "fairshare_perc",
        "--jobs",
        &jobs,
        "--pbs-home",
        &home,
        "--unknown-shares",
        "0",
    ]);
    // ... and with fair_share on and fairshare_enforce_no_shares (true by default), PBS never
    // runs a job of an entity with no share (`query_jobs`, NO_FAIRSHARES).
    assert_eq!(zero[2], row("c", 0.0, false));
    // fair_share off (PBS's default): the resource_group is not read, as PBS does not.
    let home = pbs_home(dir.path(), "fair_share: false ALL\n", Some(rg));
    let out = jobsort([
        "rank",
        "fairshare_perc",
        "--jobs",
        &jobs,
        "--pbs-home",
        &home,
    ]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("no fairshare tree is given"),
        "{}",
        stderr(&out)
    );
    // On without a resource_group: an error at the line that turns it on.
    let bare = pbs_home(&dir.path().join("x"), "fair_share: true ALL\n", None);
    let out = jobsort(["rank", "ncpus", "--jobs", &jobs, "--pbs-home", &bare]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains("sched_config:1: fair_share is on, but there is no resource_group"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_usage_flag_goes_with_the_sites_resource_group() {
    // `--usage` once required `--resource-group` even when `--pbs-home` supplied the tree.
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let rg = "ann 10 root 60\nbob 11 root 30\n";
    let home = pbs_home(dir.path(), "fair_share: true ALL\n", Some(rg));
    let rg_file = write(dir.path(), "rg", rg);
    let usage = write(dir.path(), "usage.json", r#"{"ann": 300, "bob": 100}"#);
    let args = ["fairshare_tree_usage", "--jobs", &jobs, "--usage", &usage];
    let site = rank_json(&[&args[..], &["--pbs-home", &home]].concat());
    let flags = rank_json(&[&args[..], &["--resource-group", &rg_file, "--fair-share"]].concat());
    assert_eq!(site, flags);
    // The usage was read: ann's share of the tree's usage is no longer 0.
    let ann = site.iter().find(|r| r.0 == "a").unwrap();
    assert!(ann.1 > 0.0, "{site:?}");
    // Without any PBS tree, `--usage` has nothing to apply to.
    let out = jobsort(["rank", "ncpus", "--jobs", &jobs, "--usage", &usage]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--usage is the usage of a PBS tree"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn rank_explain_config_says_where_each_setting_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", JOBS);
    let home = pbs_home(
        dir.path(),
        "fair_share: true ALL\nfairshare_entity: egroup\nunknown_shares: 5\n",
        Some("g1 10 root 50\n"),
    );
    let qmgr = write(
        dir.path(),
        "qmgr.txt",
        "set server job_sort_formula = \"fairshare_perc * 100\"\n\
         set sched job_sort_formula_threshold = 1\n",
    );
    let out = jobsort([
        "rank",
        "--jobs",
        &jobs,
        "--pbs-home",
        &home,
        "--qmgr",
        &qmgr,
        "--unknown-shares",
        "7",
        "--explain-config",
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let sc = format!("{home}/sched_priv/sched_config");
    let rg = format!("{home}/sched_priv/resource_group");
    let rows: Vec<Vec<String>> = stdout(&out)
        .lines()
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(str::to_string)
                .collect()
        })
        .collect();
    let qm = qmgr.as_str();
    let expected: Vec<Vec<String>> = [
        vec!["setting", "value", "from"],
        vec![
            "job_sort_formula",
            "fairshare_perc * 100",
            &format!("{qm}:1"),
        ],
        vec!["fairshare tree", &rg, &format!("{sc}:1")],
        vec!["fairshare_entity", "egroup", &format!("{sc}:2")],
        vec!["unknown_shares", "7", "--unknown-shares"],
        vec!["job_sort_formula_threshold", "1.0", &format!("{qm}:2")],
        vec!["fair_share", "true", &format!("{sc}:1")],
        vec!["fairshare_enforce_no_shares", "true", "default"],
        vec!["by_queue", "false (one order over every queue)", "default"],
    ]
    .iter()
    .map(|r| r.iter().map(|c| c.to_string()).collect())
    .collect();
    assert_eq!(rows, expected);
}

/// PBS's `by_queue` (true in the shipped sched_config): the scheduler takes the queues one
/// after another by `Priority`, high first (`sort.cpp: cmp_queue_prio_dsc`; equal ones here
/// by name), and each queue's jobs in the formula's order (`fifo.cpp: next_job`,
/// `sort.cpp: sort_jobs`). `rank` now orders so, from the site or `--by-queue` /
/// `--queue-priority`, and `--explain-config` lists it.
#[test]
fn by_queue_takes_the_queues_by_priority_then_the_formula() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(
        dir.path(),
        "jobs.json",
        r#"[
  {"id": "1", "queue": "low", "ncpus": 8},
  {"id": "2", "queue": "high", "ncpus": 1},
  {"id": "3", "queue": "workq", "ncpus": 4},
  {"id": "4", "queue": "high", "ncpus": 2},
  {"id": "5", "queue": "other", "ncpus": 16}
]"#,
    );
    let qmgr = write(
        dir.path(),
        "qmgr.txt",
        "create queue high\nset queue high Priority = 100\ncreate queue low\n\
         set queue low Priority = -10\ncreate queue workq\n",
    );
    let ids =
        |rows: Vec<(String, f64, bool)>| -> Vec<String> { rows.into_iter().map(|r| r.0).collect() };
    let home = pbs_home(dir.path(), "by_queue: True ALL\n", None);
    let site = ids(rank_json(&[
        "ncpus",
        "--jobs",
        &jobs,
        "--pbs-home",
        &home,
        "--qmgr",
        &qmgr,
    ]));
    // high (100), then other and workq (0, by name), then low (-10).
    assert_eq!(site, ["4", "2", "5", "3", "1"]);
    let flags = ids(rank_json(&[
        "ncpus",
        "--jobs",
        &jobs,
        "--queue-priority",
        "high=100",
        "--queue-priority",
        "low=-10",
    ]));
    assert_eq!(flags, site);
    // Off: one order over every queue.
    let off = ids(rank_json(&[
        "ncpus",
        "--jobs",
        &jobs,
        "--pbs-home",
        &home,
        "--qmgr",
        &qmgr,
        "--by-queue",
        "false",
    ]));
    assert_eq!(off, ["5", "1", "3", "4", "2"]);
    // --top takes the first K of the queues' order.
    let top = ids(rank_json(&[
        "ncpus",
        "--jobs",
        &jobs,
        "--pbs-home",
        &home,
        "--qmgr",
        &qmgr,
        "--top",
        "2",
    ]));
    assert_eq!(top, ["4", "2"]);
    let out = jobsort([
        "rank",
        "ncpus",
        "--jobs",
        &jobs,
        "--pbs-home",
        &home,
        "--explain-config",
    ]);
    assert!(
        stdout(&out).contains("by_queue                     true (queues one after another"),
        "{}",
        stdout(&out)
    );
}

/// PBS's `round_robin` (taken before `by_queue`, `fifo.cpp: next_job`): the queues grouped by
/// `Priority`, higher first (`queue_list`), and within a group one job from each queue in
/// turn (`find_runnable_resresv_ind` on each queue's sorted jobs), a queue with no job left
/// skipped, until the group is done.
#[test]
fn round_robin_takes_one_job_from_each_queue_of_a_priority_in_turn() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(
        dir.path(),
        "jobs.json",
        r#"[
  {"id": "1", "queue": "a", "ncpus": 8},
  {"id": "2", "queue": "a", "ncpus": 7},
  {"id": "3", "queue": "a", "ncpus": 6},
  {"id": "4", "queue": "b", "ncpus": 5},
  {"id": "5", "queue": "low", "ncpus": 100},
  {"id": "6", "queue": "low", "ncpus": 90},
  {"id": "7", "queue": "c", "ncpus": 1}
]"#,
    );
    let qmgr = write(
        dir.path(),
        "qmgr.txt",
        "create queue a\nset queue a Priority = 50\ncreate queue b\nset queue b Priority = 50\n\
         create queue c\nset queue c Priority = 50\ncreate queue low\n",
    );
    let home = pbs_home(
        dir.path(),
        "round_robin: True ALL\nby_queue: True ALL\n",
        None,
    );
    let order: Vec<String> = rank_json(&[
        "ncpus",
        "--jobs",
        &jobs,
        "--pbs-home",
        &home,
        "--qmgr",
        &qmgr,
    ])
    .into_iter()
    .map(|r| r.0)
    .collect();
    // Priority 50: a, b, c in turn (1, 4, 7), then a alone (2, 3); then low (0).
    assert_eq!(order, ["1", "4", "7", "2", "3", "5", "6"]);
    let out = jobsort([
        "rank",
        "ncpus",
        "--jobs",
        &jobs,
        "--pbs-home",
        &home,
        "--explain-config",
    ]);
    assert!(
        stdout(&out).contains("true (one job from each queue of a Priority in turn"),
        "{}",
        stdout(&out)
    );
}
