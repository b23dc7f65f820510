//! Setting up a simulation from its settings: the auto fairshare tree on traces whose users
//! include SWF's -1 (`unknown`).

mod common;

use common::cli::{jobsort, repo_file, stderr, write};

/// The LLNL Atlas trace of `../shared/data/traces/` (it has jobs of user -1).
fn llnl() -> String {
    repo_file("../shared/data/traces/LLNL-Atlas-2006-2.1-cln.swf.gz")
}

/// SWF jobs of user -1 are user `unknown`, which is PBS's own `unknown` group (see
/// `sim::share`'s test `an_entity_named_unknown_is_pbs_unknown_group` for what OpenPBS
/// does): `--auto-tree user` simulates them instead of failing on "entity unknown is not
/// unique".
#[test]
fn auto_tree_takes_swf_user_minus_one_as_pbs_unknown_group() {
    let dir = tempfile::tempdir().unwrap();
    let swf = write(
        dir.path(),
        "minus1.swf",
        "; MaxNodes: 4\n\
         1 0 -1 10 1 -1 -1 1 20 -1 1 3 1 -1 1 -1 -1 -1\n\
         2 1 -1 10 2 -1 -1 2 20 -1 1 -1 -1 -1 1 -1 -1 -1\n\
         3 2 -1 10 1 -1 -1 1 20 -1 1 4 1 -1 1 -1 -1 -1\n",
    );
    for auto in ["user", "group", "group:user"] {
        let out = jobsort([
            "sim",
            "--trace",
            &swf,
            "--auto-tree",
            auto,
            "--formula",
            "fairshare_perc",
            "--format",
            "json",
        ]);
        assert!(out.status.success(), "{auto}: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["runs"][0]["jobs"], 3, "{auto}");
        assert_eq!(v["runs"][0]["never_started"], 0, "{auto}");
    }
    let out = jobsort([
        "sim",
        "--trace",
        &llnl(),
        "--first",
        "20000",
        "--auto-tree",
        "user",
        "--formula",
        "fairshare_factor",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
}
