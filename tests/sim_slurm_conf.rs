//! `sim --slurm-conf`: the machine from a slurm.conf's NodeName lines and the policy from its
//! SchedulerType, flags winning, and `--explain-config` naming each setting's line.
//!
//! `slurm.conf(5)`, SchedulerType: `sched/builtin` is "the FIFO scheduler which initiates
//! jobs in priority order. If any job in the partition can not be scheduled, no lower
//! priority job in that partition will be scheduled" (strict); `sched/backfill` (the
//! default) starts lower priority jobs "if doing so does not delay the expected initiation
//! time of any higher priority job" (every blocked job keeps its reservation: conservative).

mod common;

use common::cli::{code, jobsort, json, stderr, stdout, write};

/// A 4 × 1 cluster's trace whose strict, conservative and fill schedules differ (the fixture
/// of `tests/sim_site_config.rs`), with no size in its header: the size is slurm.conf's.
const SWF: &str = "\
1 0 -1 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n\
2 0 -1 5 4 -1 -1 4 5 -1 1 2 1 -1 -1 -1 -1 -1\n\
3 1 -1 3 2 -1 -1 2 3 -1 1 3 1 -1 -1 -1 -1 -1\n\
4 2 -1 20 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n";

fn sim(args: &[&str]) -> serde_json::Value {
    let mut a = vec!["sim", "--format", "json"];
    a.extend_from_slice(args);
    let out = jobsort(&a);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    json(&out)
}

fn run_of(v: &serde_json::Value) -> (String, String, String) {
    let r = &v["runs"][0];
    (
        format!("{}x{}", v["trace"]["nodes"], v["trace"]["cores"]),
        r["policy"].to_string(),
        r["metrics"].to_string(),
    )
}

#[test]
fn machine_and_policy_from_slurm_conf_flags_win() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "a.swf", SWF);
    let builtin = write(
        dir.path(),
        "builtin.conf",
        "SchedulerType=sched/builtin\nNodeName=n[1-4] CPUs=1\nPartitionName=all Nodes=ALL\n",
    );
    let backfill = write(
        dir.path(),
        "backfill.conf",
        "NodeName=n[1-2] Sockets=1 CoresPerSocket=1\nNodeName=n[3-4] CPUs=1\n",
    );
    let strict = sim(&[
        "--trace", &trace, "--nodes", "4", "--cores", "1", "--policy", "strict",
    ]);
    let conservative = sim(&[
        "--trace",
        &trace,
        "--nodes",
        "4",
        "--cores",
        "1",
        "--policy",
        "conservative",
    ]);
    assert_ne!(run_of(&strict).2, run_of(&conservative).2);
    assert_eq!(
        run_of(&sim(&["--trace", &trace, "--slurm-conf", &builtin])),
        run_of(&strict)
    );
    assert_eq!(
        run_of(&sim(&["--trace", &trace, "--slurm-conf", &backfill])),
        run_of(&conservative)
    );
    // Flags win: the policy, and the machine.
    let fill = sim(&[
        "--trace",
        &trace,
        "--slurm-conf",
        &builtin,
        "--policy",
        "fill",
    ]);
    assert_eq!(fill["runs"][0]["policy"], "fill");
    let big = sim(&["--trace", &trace, "--slurm-conf", &builtin, "--cores", "2"]);
    assert_eq!(run_of(&big).0, "4x2");
}

#[test]
fn explain_config_names_the_lines_and_what_is_not_simulated() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "a.swf", SWF);
    let conf = write(
        dir.path(),
        "slurm.conf",
        "ClusterName=c\nPriorityType=priority/multifactor\n\
         SchedulerParameters=bf_window=2880,bf_continue\n\
         NodeName=n[1-4] CPUs=8\nPartitionName=a Nodes=n[1-2]\nPartitionName=b Nodes=ALL\n",
    );
    let out = jobsort([
        "sim",
        "--trace",
        &trace,
        "--slurm-conf",
        &conf,
        "--explain-config",
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let row = |name: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{name}  ")))
            .unwrap_or_else(|| panic!("no row {name} in\n{text}"));
        line[name.len()..]
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect()
    };
    let at = |line: usize| format!("{conf}:{line}");
    assert_eq!(row("policy"), ["conservative", "default"]);
    assert_eq!(row("nodes"), ["4".to_string(), at(4)]);
    assert_eq!(row("cores per node"), ["8".to_string(), at(4)]);
    assert_eq!(
        row("SchedulerParameters bf_*"),
        [
            "bf_window=2880,bf_continue (not simulated: every blocked job keeps a reservation, no window)"
                .to_string(),
            at(3)
        ]
    );
    assert_eq!(
        row("PriorityType"),
        [
            "priority/multifactor (not simulated: jobs are ordered by --formula, else first come, first served)"
                .to_string(),
            at(2)
        ]
    );
    assert_eq!(
        row("partitions"),
        [
            "2 (not simulated: every job may use every node)".to_string(),
            at(5)
        ]
    );
}

/// Nodes of different sizes are node types (issue 15): three of 32 CPUs and two of 64
/// (the run's size names the 5 nodes and the largest node's CPUs); the flags still give a
/// machine of one size.
#[test]
fn heterogeneous_nodes_are_node_types_unless_the_flags_give_the_machine() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(dir.path(), "a.swf", SWF);
    let conf = write(
        dir.path(),
        "h.conf",
        "NodeName=a[1-3] CPUs=32 RealMemory=1000\nNodeName=b[1-2] CPUs=64 Gres=gpu:2\n",
    );
    let v = sim(&["--trace", &trace, "--slurm-conf", &conf]);
    assert_eq!(run_of(&v).0, "5x64");
    let v = sim(&[
        "--trace",
        &trace,
        "--slurm-conf",
        &conf,
        "--nodes",
        "5",
        "--cores",
        "64",
    ]);
    assert_eq!(run_of(&v).0, "5x64");
    // A PBS site and a Slurm site at once is a usage error.
    let out = jobsort([
        "sim",
        "--trace",
        &trace,
        "--slurm-conf",
        &conf,
        "--qmgr",
        &conf,
    ]);
    assert_eq!(code(&out), Some(2));
}
