//! `replay --trace` with a PBS site's configuration: the site's job_sort_formula when no
//! `--formula` is given, the policy from strict_ordering, and the fairshare tree from
//! `sched_priv/resource_group` when fair_share is on — the same run as with the flags.

use crate::common;

use common::cli::{code, jobsort, json, pbs_home, stderr, write};

/// Cluster 4 × 1, users 1-3 (`u1`..`u3`): the fixture of `tests/it/sim_site_config.rs`.
const SWF: &str = "; MaxNodes: 4\n; MaxProcs: 4\n\
1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
2 0 -1 5 4 -1 -1 4 5 -1 1 2 1 -1 -1 -1 -1 -1\n\
3 1 -1 3 2 -1 -1 2 3 -1 1 3 1 -1 -1 -1 -1 -1\n\
4 2 -1 20 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n";

const FORMULA: &str = "fairshare_perc * 100 - walltime";
const RESOURCE_GROUP: &str = "u1 10 root 60\nu2 11 root 30\nu3 12 root 10\n";

fn replay(args: &[&str]) -> serde_json::Value {
    let mut a = vec!["replay", "--format", "json"];
    a.extend_from_slice(args);
    let out = jobsort(&a);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    json(&out)
}

#[test]
fn the_sites_formula_policy_and_tree_are_the_flags_run() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "a.swf", SWF);
    let qmgr = write(
        dir.path(),
        "qmgr.txt",
        &format!("set server job_sort_formula = \"{FORMULA}\"\n"),
    );
    let rg = write(dir.path(), "rg", RESOURCE_GROUP);
    // strict_ordering off (PBS's default): fill.
    let home = pbs_home(dir.path(), "fair_share: true ALL\n", Some(RESOURCE_GROUP));
    let site = replay(&["--trace", &trace, "--qmgr", &qmgr, "--pbs-home", &home]);
    let flags = replay(&[
        "--trace",
        &trace,
        "--formula",
        FORMULA,
        "--resource-group",
        &rg,
        "--policy",
        "fill",
    ]);
    assert_eq!(site, flags);
    assert_eq!(site["formula"], FORMULA);
    // The tree and the policy each change the result: the site's were applied.
    let no_tree = replay(&["--trace", &trace, "--formula", FORMULA, "--policy", "fill"]);
    assert_ne!(site["mean_kendall_tau"], no_tree["mean_kendall_tau"]);
    let strict = replay(&[
        "--trace",
        &trace,
        "--qmgr",
        &qmgr,
        "--pbs-home",
        &home,
        "--policy",
        "strict",
    ]);
    assert_ne!(site["instead_total"], strict["instead_total"]);
    // A recording carries its own fairshare: the tree flags are for --trace.
    let out = jobsort(["replay", &trace, "--resource-group", &rg]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("a recording carries its own fairshare setup"));
}
