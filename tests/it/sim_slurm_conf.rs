//! `sim --slurm-conf`: the machine from a slurm.conf's NodeName lines and the policy from its
//! SchedulerType, flags winning, and `--explain-config` naming each setting's line.
//!
//! `slurm.conf(5)`, SchedulerType: `sched/builtin` is "the FIFO scheduler which initiates
//! jobs in priority order. If any job in the partition can not be scheduled, no lower
//! priority job in that partition will be scheduled" (strict); `sched/backfill` (the
//! default) starts lower priority jobs "if doing so does not delay the expected initiation
//! time of any higher priority job" (every blocked job keeps its reservation: conservative).

use crate::common;

use common::cli::{code, jobsort, json, stderr, stdout, write};

/// A 4 × 1 cluster's trace whose strict, conservative and fill schedules differ (the fixture
/// of `tests/it/sim_site_config.rs`), with no size in its header: the size is slurm.conf's.
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
    // sched/backfill (the default) is Slurm's backfill, here (default knobs, requested
    // times far below the window and its resolution's effects) as conservative backfilling.
    let slurm = run_of(&sim(&["--trace", &trace, "--slurm-conf", &backfill]));
    assert_eq!(slurm.1, "\"slurm\"");
    assert_eq!(
        (&slurm.0, &slurm.2),
        (&run_of(&conservative).0, &run_of(&conservative).2)
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
    assert_eq!(row("policy"), ["slurm", "default"]);
    assert_eq!(row("nodes"), ["4".to_string(), at(4)]);
    assert_eq!(row("cores per node"), ["8".to_string(), at(4)]);
    // The knobs simulated are rows of their own (`tests/it/sim_slurm_backfill.rs`).
    assert_eq!(
        row("SchedulerParameters bf_window"),
        ["2880".to_string(), at(3)]
    );
    assert_eq!(
        row("SchedulerParameters bf_*"),
        ["bf_continue (not simulated)".to_string(), at(3)]
    );
    assert_eq!(
        row("PriorityType"),
        [
            "priority/multifactor (simulated: age, Fair Tree fairshare with usage decaying over a \
             half-life of 604800 s every 300 s, job size, partition, QOS, TRES, as slurmctld \
             stores them)"
                .to_string(),
            at(2)
        ]
    );
    assert_eq!(
        row("partitions"),
        [
            "2 (their nodes are not simulated: every job may use every node)".to_string(),
            at(5)
        ]
    );
    // Partition tiers are simulated (`tests/it/sim_queue_order.rs`): both at the default, 1.
    assert_eq!(
        row("partition b PriorityTier"),
        [
            "1 (higher tiers first, then the job order)".to_string(),
            at(6)
        ]
    );
}

/// Nodes of different sizes are node types: three of 32 CPUs and two of 64
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

/// Slurm's multifactor priority ranks the simulation (`src/sim/slurm_share.rs` works the
/// same three jobs by hand, round by round): job 0 (user a, account A) holds the node from 0
/// to 1000 s; job 1 (a, at 100 s, 300 s long) and job 2 (b of account B, QOS high, at 200 s,
/// 100 s long) wait. At the tick of 900 s job 1's priority is 2633 (a's usage gives it a
/// fairshare factor of 0.25) and job 2's 10241: job 2 runs first, 1000–1100, then job 1,
/// 1100–1400, a mean wait of (0 + 1000 + 800) / 3 = 600 s. First come, first served (or any
/// --formula, which wins over slurm.conf) runs job 1 first: (0 + 900 + 1100) / 3 s.
#[test]
fn multifactor_priority_from_slurm_conf_orders_the_simulation() {
    let dir = tempfile::tempdir().unwrap();
    let trace = write(
        dir.path(),
        "sacct.txt",
        "JobID|State|Submit|Start|End|Timelimit|Partition|User|Group|Account|QOS|NCPUS|NNodes\n\
         0|COMPLETED|2026-01-05T10:00:00|2026-01-05T10:00:00|2026-01-05T10:16:40|00:16:40|batch|a|g|A|normal|4|1\n\
         1|COMPLETED|2026-01-05T10:01:40|2026-01-05T10:16:40|2026-01-05T10:21:40|00:05:00|batch|a|g|A|normal|4|1\n\
         2|COMPLETED|2026-01-05T10:03:20|2026-01-05T10:21:40|2026-01-05T10:23:20|00:01:40|batch|b|g|B|high|4|1\n",
    );
    let conf = write(
        dir.path(),
        "slurm.conf",
        "PriorityType=priority/multifactor\n\
         PriorityWeightAge=1000\nPriorityWeightFairshare=10000\nPriorityWeightQOS=500\n\
         PriorityMaxAge=100\nPriorityDecayHalfLife=1:00:00\nPriorityCalcPeriod=5\n\
         PriorityFlags=NO_FAIR_TREE\nSchedulerType=sched/builtin\n\
         NodeName=n1 CPUs=4\nPartitionName=batch Nodes=n1 Default=YES\n",
    );
    let qos = ["--qos", "high=10", "--qos", "normal=40"];
    let mut args = vec!["--trace", &trace, "--slurm-conf", &conf];
    args.extend(qos);
    let v = sim(&args);
    let run = &v["runs"][0];
    assert_eq!(run["policy"], "strict");
    assert_eq!(
        run["formula"],
        "trunc(min(4294967295, max(1, 1000 * age + 10000 * fairshare + 500 * qos + site - nice)))"
    );
    assert_eq!(run["metrics"]["mean_wait"], 600.0);
    // A formula given wins, and says so.
    let with_formula = [
        "--trace",
        &trace,
        "--slurm-conf",
        &conf,
        "--formula",
        "eligible_time",
    ];
    let mut a = vec!["sim", "--format", "json"];
    a.extend(&with_formula);
    let out = jobsort(&a);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "--formula ranks the jobs: slurm.conf's multifactor priority is not simulated"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(json(&out)["runs"][0]["metrics"]["mean_wait"], 2000.0 / 3.0);
    // What cannot go with it is refused.
    let mut recorded = vec![
        "sim".to_string(),
        "--record".into(),
        dir.path().join("r.jsonl").display().to_string(),
    ];
    recorded.extend(args.iter().map(|a| a.to_string()));
    let out = jobsort(&recorded);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("a recording cannot replay Slurm's multifactor priority yet"));
    let out = jobsort(["sim", "--trace", &trace, "--qos", "high=10"]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    // The association tree of `sshare -a -l -P`, whose RawUsage is where usage starts: b
    // has used much, so a's job 1 now goes first (a mean wait of 2000 / 3 s).
    let tree = write(
        dir.path(),
        "sshare.txt",
        "Account|User|RawShares|RawUsage\nroot|||1000000\n A||1|0\n  A|a|1|0\n B||1|1000000\n  \
         B|b|1|1000000\n",
    );
    let mut shared = args.clone();
    shared.extend(["--share-tree", &tree]);
    assert_eq!(
        sim(&shared)["runs"][0]["metrics"]["mean_wait"],
        2000.0 / 3.0
    );
    // Partitions' PriorityTier orders before the multifactor priority (Slurm's
    // `sort_job_queue2`): job 2 in a partition of a lower tier waits for job 1, whose
    // priority is lower, as in the first-come order: (0 + 900 + 1100) / 3 s.
    let tiered = write(
        dir.path(),
        "sacct-tiers.txt",
        &std::fs::read_to_string(&trace)
            .unwrap()
            .replace("|batch|b|", "|low|b|"),
    );
    let conf_tiers = write(
        dir.path(),
        "slurm-tiers.conf",
        &std::fs::read_to_string(&conf).unwrap().replace(
            "PartitionName=batch Nodes=n1 Default=YES\n",
            "PartitionName=batch Nodes=n1 Default=YES PriorityTier=2\n\
             PartitionName=low Nodes=n1 PriorityTier=1\n",
        ),
    );
    let mut args = vec!["--trace", &tiered, "--slurm-conf", &conf_tiers];
    args.extend(qos);
    assert_eq!(sim(&args)["runs"][0]["metrics"]["mean_wait"], 2000.0 / 3.0);
    // With equal tiers, the priority decides again.
    let conf_equal = write(
        dir.path(),
        "slurm-equal.conf",
        &std::fs::read_to_string(&conf_tiers)
            .unwrap()
            .replace("PriorityTier=1", "PriorityTier=2"),
    );
    let mut args = vec!["--trace", &tiered, "--slurm-conf", &conf_equal];
    args.extend(qos);
    assert_eq!(sim(&args)["runs"][0]["metrics"]["mean_wait"], 600.0);
}

/// Nodes of one CPU count but different memory or GPUs (`Gres=gpu:a100:4`, memory consumable
/// under `CR_Core_Memory`) are node types with their memory and GPUs: they were "4 nodes x 64
/// cores", memory and GPUs dropped without a word, and `--explain-config` named the trace as
/// where the nodes came from.
#[test]
fn nodes_alike_in_cpus_but_not_in_memory_or_gpus_are_node_types() {
    let dir = tempfile::tempdir().unwrap();
    let conf = common::cli::write(
        dir.path(),
        "slurm.conf",
        "NodeName=a[1-2] CPUs=64 RealMemory=256000\n\
         NodeName=g[1-2] CPUs=64 RealMemory=512000 Gres=gpu:a100:4\n\
         PartitionName=batch Nodes=ALL Default=YES\n\
         SelectTypeParameters=CR_Core_Memory\n",
    );
    let trace = common::cli::write(
        dir.path(),
        "t.swf",
        "1 0 0 10 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1\n",
    );
    let out = common::cli::jobsort(["sim", "--trace", &trace, "--slurm-conf", &conf]);
    assert_eq!(
        common::cli::code(&out),
        Some(0),
        "{}",
        common::cli::stderr(&out)
    );
    let text = format!("{}{}", common::cli::stdout(&out), common::cli::stderr(&out));
    assert!(
        text.contains(
            "machine 4 nodes: 2 x (ncpus=64 mem=262144000kb ngpus=0) + 2 x (ncpus=64 \
             mem=524288000kb ngpus=4)"
        ),
        "{text}"
    );
    let out = common::cli::jobsort([
        "sim",
        "--trace",
        &trace,
        "--slurm-conf",
        &conf,
        "--explain-config",
    ]);
    let text = common::cli::stdout(&out);
    let nodes = text.lines().find(|l| l.starts_with("nodes ")).unwrap();
    assert!(nodes.trim_end().ends_with("slurm.conf:1"), "{nodes}");
}
