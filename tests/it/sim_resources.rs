//! Multi-resource machines, schedules worked by hand: nodes with memory and
//! GPUs, node types of different sizes, each PBS `place` mode, and an accounting log with
//! `select`/`place` end to end. Every job runs its requested time (`walltime = run`); debug
//! builds check every round that no resource of any node is over-allocated.
//!
//! Placement is PBS's (`[OPBS] src/scheduler/node_info.cpp` `eval_selspec`, `check.cpp`
//! `check_avail_resources`; `place` as `doc/man1/qsub.1B` gives it), first fit in node
//! order: `free` stacks chunks on a node while it holds them, `pack` puts the whole request
//! on one node, `scatter`/`vscatter` one chunk per node, `excl`/`exclhost` only on nodes
//! with nothing running, held whole.

use crate::common;

use common::cli::{code, jobsort, json, stderr, stdout, write};
use jobsort::sim::cluster::Machine;
use jobsort::sim::run::{RunOptions, simulate_setup};
use jobsort::sim::workload::{
    ReadOptions, SacctOptions, parse_json_jobs, parse_pbs_accounting, parse_sacct,
};
use jobsort::sim::{Policy, Setup, SimConfig, Workload};

fn config(policy: Policy) -> SimConfig {
    SimConfig::new(policy, 1, 1)
}

/// Jobs `(submit, run, select, place)` in submit order, FCFS.
fn jobs(rows: &[(i64, i64, &str, &str)]) -> Workload {
    let list: Vec<String> = rows
        .iter()
        .enumerate()
        .map(|(i, (submit, run, select, place))| {
            format!(
                r#"{{"id": "{}", "submit": {submit}, "run": {run}, "walltime": {run}, "select": "{select}", "place": "{place}"}}"#,
                i + 1
            )
        })
        .collect();
    parse_json_jobs(&format!("[{}]", list.join(",")), "jobs.json").unwrap()
}

/// The start of every job on `machine` (the cluster format) under `policy`.
fn starts(machine: &str, w: &Workload, policy: Policy) -> Vec<i64> {
    let m = Machine::parse(machine, "test.cluster").unwrap();
    let setup = Setup::on_machine(&config(policy), &w.jobs, Some(m)).unwrap();
    let r = simulate_setup(w, &setup, None, &RunOptions::default()).unwrap();
    r.outcome.start.iter().map(|s| s.unwrap()).collect()
}

/// Two nodes of 8 cores and 16 GB. Job 1 (t=0, 12 GB) takes node 0, job 2 (12 GB) node 1.
/// Job 3 (t=1, 8 GB) finds 6 cores free on each node but 4 GB: it waits for job 1's end at
/// 100. Job 4 (t=2, 4 cores, no memory) fits now: strict ordering keeps it behind job 3
/// (100); EASY backfills it (it ends at 12, before job 3's reservation at 100). On cores
/// alone (`count=2 ncpus=8`), job 3 starts at 1 and job 4 at 2.
#[test]
fn memory_bound_placement() {
    let w = jobs(&[
        (0, 100, "1:ncpus=2:mem=12gb", "free"),
        (0, 100, "1:ncpus=2:mem=12gb", "free"),
        (1, 50, "1:ncpus=1:mem=8gb", "free"),
        (2, 10, "1:ncpus=4", "free"),
    ]);
    let m = "count=2 ncpus=8 mem=16gb";
    assert_eq!(starts(m, &w, Policy::Strict), [0, 0, 100, 100]);
    assert_eq!(starts(m, &w, Policy::Easy), [0, 0, 100, 2]);
    assert_eq!(starts("count=2 ncpus=8", &w, Policy::Strict), [0, 0, 1, 2]);
}

/// Two CPU nodes of 32 cores, then one GPU node of 16 cores and 2 GPUs. Job 1 (t=0, 2
/// GPUs) takes the GPU node, job 2 (32 cores) node 0. Job 3 (t=1, 1 GPU) finds 15 cores
/// free on the GPU node and no GPU: it waits for job 1's end at 100. Job 4 (t=2, 32 cores)
/// fits node 1: behind job 3 under strict ordering (100, on node 0, free then), backfilled
/// under EASY (ends at 12).
#[test]
fn gpu_bound_placement() {
    let w = jobs(&[
        (0, 100, "1:ncpus=1:ngpus=2", "free"),
        (0, 100, "1:ncpus=32", "free"),
        (1, 10, "1:ncpus=1:ngpus=1", "free"),
        (2, 10, "1:ncpus=32", "free"),
    ]);
    let m = "count=2 ncpus=32 name=cpu\ncount=1 ncpus=16 ngpus=2 name=gpu";
    assert_eq!(starts(m, &w, Policy::Strict), [0, 0, 100, 100]);
    assert_eq!(starts(m, &w, Policy::Easy), [0, 0, 100, 2]);
}

/// A node of 4 cores, then one of 16. Job 1 (t=0, 8 cores) fits only the big node, job 2 (4
/// cores) the small one, job 3 (t=1, 8 cores) the big node's other 8. Job 4 (t=2, 4 cores)
/// finds the small node full and the big one full: it waits for jobs 1 and 2 to end at 50.
#[test]
fn heterogeneous_node_types() {
    let w = jobs(&[
        (0, 50, "1:ncpus=8", "free"),
        (0, 50, "1:ncpus=4", "free"),
        (1, 60, "1:ncpus=8", "free"),
        (2, 10, "1:ncpus=4", "free"),
    ]);
    let m = "count=1 ncpus=4 name=small\ncount=1 ncpus=16 name=big";
    assert_eq!(starts(m, &w, Policy::Strict), [0, 0, 1, 50]);
}

/// Two nodes of 4 cores; job 1 (t=0, 1 core, 100 s) takes a core of node 0. Job 2 (t=1,
/// `select=2:ncpus=2`, 10 s) under each `place`, then job 3 (t=2, 3 cores, 10 s):
/// - `free`: node 0's 3 free cores hold one chunk, node 1 the other; job 3 finds 1 and 2
///   cores free and waits for job 2's end at 11;
/// - `pack`: both chunks on node 1; job 3 takes node 0's 3 cores at 2;
/// - `scatter`, `vscatter`: a chunk on each node, as `free` here: job 3 at 11;
/// - `free:excl`: only node 1 has nothing running; both chunks there, the node held whole;
///   job 3 at 2 on node 0;
/// - `scatter:excl`: two idle nodes are needed, node 0 is busy until 100: job 2 at 100
///   (both nodes whole to 110), job 3, behind it (strict), at 110;
/// - `pack:exclhost`: node 1 whole; job 3 at 2.
#[test]
fn each_place_mode() {
    let m = "count=2 ncpus=4";
    for (place, expected) in [
        ("free", [0, 1, 11]),
        ("pack", [0, 1, 2]),
        ("scatter", [0, 1, 11]),
        ("vscatter", [0, 1, 11]),
        ("free:excl", [0, 1, 2]),
        ("scatter:excl", [0, 100, 110]),
        ("pack:exclhost", [0, 1, 2]),
    ] {
        let w = jobs(&[
            (0, 100, "1:ncpus=1", "free"),
            (1, 10, "2:ncpus=2", place),
            (2, 10, "1:ncpus=3", "free"),
        ]);
        assert_eq!(starts(m, &w, Policy::Strict), expected, "place={place}");
    }
}

/// A PBS accounting log (E records) with `select` and `place`, on two nodes of 8 cores, 32
/// GB and a GPU. Job a (t=0, `2:ncpus=4:mem=16gb` scattered) takes 4 cores and 16 GB on
/// each node. Job b (t=10, `1:ncpus=2:ngpus=1`) takes node 0's GPU. Job c (t=20,
/// `1:ncpus=2:mem=20gb`) finds 16 GB free on each node: it waits for a's end at 1000. Job d
/// (t=30, `1:ncpus=1:ngpus=1`) fits node 1's GPU now but waits behind c (strict) until 1000.
/// The log's own starts (100 s after submit) play no part.
#[test]
fn an_accounting_log_with_select_and_place_end_to_end() {
    let rec = |id: &str, t: i64, run: i64, select: &str, place: &str| {
        format!(
            "03/01/2024 00:00:00;E;{id};user=u group=g queue=workq ctime={t} qtime={t} \
             etime={t} start={s} end={e} Exit_status=0 Resource_List.select={select} \
             Resource_List.place={place} Resource_List.walltime={run}\n",
            s = t + 100,
            e = t + 100 + run,
        )
    };
    let log = [
        rec("a.srv", 0, 1000, "2:ncpus=4:mem=16gb", "scatter"),
        rec("b.srv", 10, 500, "1:ncpus=2:ngpus=1", "free"),
        rec("c.srv", 20, 50, "1:ncpus=2:mem=20gb", "free"),
        rec("d.srv", 30, 50, "1:ncpus=1:ngpus=1", "free"),
    ]
    .concat();
    let w = parse_pbs_accounting(log.as_bytes(), "acct", ReadOptions { lenient: false }).unwrap();
    assert_eq!(w.jobs.len(), 4, "{:?}", w.report);
    let m = "count=2 ncpus=8 mem=32gb ngpus=1";
    assert_eq!(starts(m, &w, Policy::Strict), [0, 10, 1000, 1000]);
    // EASY: d backfills at 30 (it ends at 80, before c's reservation at 1000).
    assert_eq!(starts(m, &w, Policy::Easy), [0, 10, 1000, 30]);
}

/// The memory-bound jobs as a JSON job list, for the command-line tests below.
const MEMORY_BOUND_JOBS: &str = r#"[
  {"id": "1", "submit": 0, "run": 100, "walltime": 100, "select": "1:ncpus=2:mem=12gb"},
  {"id": "2", "submit": 0, "run": 100, "walltime": 100, "select": "1:ncpus=2:mem=12gb"},
  {"id": "3", "submit": 1, "run": 50, "walltime": 50, "select": "1:ncpus=1:mem=8gb"},
  {"id": "4", "submit": 2, "run": 10, "walltime": 10, "select": "1:ncpus=4"}
]"#;

/// `sim --machine FILE` and `--nodes/--cores --mem`: the memory-bound schedule above
/// (waits 0, 0, 99, 98: mean 49.25), recorded with the machine and the chunks, and
/// `replay --verify` reproduces it. On cores alone the waits are 0, 0, 0, 0.
#[test]
fn the_command_line_machine_is_recorded_and_verified() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", MEMORY_BOUND_JOBS);
    let machine = write(dir.path(), "m.cluster", "count=2 ncpus=8 mem=16gb\n");
    let mean_wait = |args: &[&str]| {
        let mut a = vec!["--trace", &jobs, "--policy", "strict"];
        a.extend_from_slice(args);
        common::cli::sim_mean_wait(&a)
    };
    assert_eq!(mean_wait(&["--machine", &machine]), 49.25);
    assert_eq!(
        mean_wait(&["--nodes", "2", "--cores", "8", "--mem", "16gb"]),
        49.25
    );
    assert_eq!(mean_wait(&["--nodes", "2", "--cores", "8"]), 0.0);
    let rec = dir.path().join("r.jsonl").display().to_string();
    mean_wait(&["--machine", &machine, "--record", &rec]);
    let out = jobsort(["replay", &rec, "--verify"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("0 mismatches"), "{}", stdout(&out));
    // The machine gives the nodes and cores: --nodes/--cores with it are a usage error.
    let out = jobsort([
        "sim",
        "--trace",
        &jobs,
        "--machine",
        &machine,
        "--nodes",
        "4",
    ]);
    assert_eq!(code(&out), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("'--machine <FILE>' cannot be used with '--nodes <NODES>'"),
        "{}",
        stderr(&out)
    );
    // A machine file's error names its line.
    let bad = write(
        dir.path(),
        "bad.cluster",
        "count=2 ncpus=8\ncount=x ncpus=4\n",
    );
    let out = jobsort(["sim", "--trace", &jobs, "--machine", &bad]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains(&format!("{bad}:2: `count`: `x` is not a whole number")),
        "{}",
        stderr(&out)
    );
}

/// A PBS site's nodes as `qmgr -c 'print node @default'` prints them (`--qmgr FILE`): two
/// vnodes of 8 cores and 16 GB (`resources_available`), the machine of the memory-bound
/// schedule above (mean wait 49.25); `--nodes/--cores` win (cores alone: 0). A node without
/// `resources_available.ncpus` and a bad amount are errors at their lines.
#[test]
fn a_pbs_sites_nodes_from_qmgr_print_node() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "jobs.json", MEMORY_BOUND_JOBS);
    let node = |n: &str, mem: &str| {
        format!(
            "#\n# Create and define node {n}\n#\ncreate node {n} Mom={n}.example.com\n\
             set node {n} state = free\nset node {n} resources_available.arch = linux\n\
             set node {n} resources_available.host = {n}\n\
             set node {n} resources_available.mem = {mem}\n\
             set node {n} resources_available.ncpus = 8\n\
             set node {n} resources_available.vnode = {n}\nset node {n} resv_enable = True\n"
        )
    };
    let qmgr = write(
        dir.path(),
        "nodes.qmgr",
        &(node("n1", "16gb") + &node("n2", "16777216kb")),
    );
    let run = |args: &[&str]| {
        let mut a = vec![
            "sim", "--trace", &jobs, "--policy", "strict", "--format", "json",
        ];
        a.extend_from_slice(args);
        jobsort(&a)
    };
    let mean_wait = |args: &[&str]| {
        let out = run(args);
        assert_eq!(code(&out), Some(0), "{}", stderr(&out));
        json(&out)["runs"][0]["metrics"]["mean_wait"]
            .as_f64()
            .unwrap()
    };
    assert_eq!(mean_wait(&["--qmgr", &qmgr]), 49.25);
    assert_eq!(
        mean_wait(&["--qmgr", &qmgr, "--nodes", "2", "--cores", "8"]),
        0.0
    );
    let out = jobsort(["sim", "--trace", &jobs, "--qmgr", &qmgr, "--explain-config"]);
    assert!(
        stdout(&out).contains("2 nodes, 1 node type (resources_available)"),
        "{}",
        stdout(&out)
    );
    // Errors at their lines: no ncpus (n3 is created on line 1), a bad size (line 3).
    let bad = write(
        dir.path(),
        "bad.qmgr",
        "create node n3\nset node n3 resources_available.mem = 1gb\n",
    );
    let out = run(&["--qmgr", &bad]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains(&format!("{bad}:1: node n3: no resources_available.ncpus")),
        "{}",
        stderr(&out)
    );
    let bad = write(
        dir.path(),
        "bad2.qmgr",
        "create node n4\nset node n4 resources_available.ncpus = 8\n\
         set node n4 resources_available.mem = lots\n",
    );
    let out = run(&["--qmgr", &bad]);
    assert_eq!(code(&out), Some(1));
    assert!(
        stderr(&out).contains(&format!("{bad}:3: node n4 resources_available.mem:")),
        "{}",
        stderr(&out)
    );
}

/// A `sacct -P` dump whose GPU jobs give `gres/gpu` in ReqTRES/AllocTRES, on two CPU nodes
/// of 16 cores and a GPU node of 16 cores and 2 GPUs (times from the first submit). Job 1
/// (16 cores, 30 min) takes node 0; job 2 (4 cores, 2 GPUs, 60 min) the GPU node. Job 3
/// (t=60, 2 cores, 1 GPU) finds no GPU free: it waits for job 2's end at 3600. Job 4 (t=120,
/// 16 cores, 10 min) fits node 1 now: behind job 3 under strict ordering (3600), backfilled
/// under EASY (it ends at 720). On cores alone (3 × 16), jobs 2 and 3 share node 1 and
/// job 4 takes node 2 at once: 0, 0, 60, 120.
#[test]
fn a_sacct_dump_with_gres_gpus_end_to_end() {
    let header = "JobID|State|Submit|Start|End|Timelimit|Partition|User|UID|Group|GID|Account|\
                  QOS|NNodes|NCPUS|ReqCPUS|ReqMem|ReqTRES|AllocTRES|NodeList|JobName\n";
    let row = |id: u32, submit: &str, end: &str, limit: &str, cpus: u32, gpus: u32| {
        let gres = if gpus > 0 {
            format!(",gres/gpu={gpus}")
        } else {
            String::new()
        };
        let tres = format!("billing={cpus},cpu={cpus}{gres},mem=8G,node=1");
        format!(
            "{id}|COMPLETED|2026-01-05T{submit}|2026-01-05T{submit}|2026-01-05T{end}|{limit}|\
             batch|alice|1001|phys|2001|proj1|normal|1|{cpus}|{cpus}|8G|{tres}|{tres}|n01|j{id}\n"
        )
    };
    let text = [
        header.to_string(),
        row(1, "10:00:00", "10:30:00", "00:30:00", 16, 0),
        row(2, "10:00:00", "11:00:00", "01:00:00", 4, 2),
        row(3, "10:01:00", "10:11:00", "00:10:00", 2, 1),
        row(4, "10:02:00", "10:12:00", "00:10:00", 16, 0),
    ]
    .concat();
    let w = parse_sacct(
        &text,
        "sacct.txt",
        ReadOptions::default(),
        &SacctOptions::default(),
    )
    .unwrap();
    assert_eq!(w.jobs.len(), 4, "{:?}", w.report);
    let first = w.jobs[0].submit;
    let rel = |s: Vec<i64>| s.into_iter().map(|t| t - first).collect::<Vec<_>>();
    let m = "count=2 ncpus=16 mem=64gb name=cpu\ncount=1 ncpus=16 mem=64gb ngpus=2 name=gpu";
    assert_eq!(rel(starts(m, &w, Policy::Strict)), [0, 0, 3600, 3600]);
    assert_eq!(rel(starts(m, &w, Policy::Easy)), [0, 0, 3600, 120]);
    assert_eq!(
        rel(starts("count=3 ncpus=16", &w, Policy::Strict)),
        [0, 0, 60, 120]
    );
}

/// A machine of node types of cores alone (4 and 2 cores: 6 in all) runs processor
/// requests by count. Job 1 (4 procs) and job 2 (2) run 0–100; job 3 (1 proc, t=1, 10 s)
/// waits for them: 100–110. Utilization divides by the machine's 6 cores, not 2 × 4:
/// (400 + 200 + 10) / (6 × 110). (The every-round check of debug builds once found the
/// count-kept copy of such a machine re-summed as 2 × 4 cores.)
#[test]
fn node_types_of_cores_alone_run_by_count_with_their_own_capacity() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(
        dir.path(),
        "jobs.json",
        r#"[{"id": "1", "submit": 0, "run": 100, "procs": 4},
            {"id": "2", "submit": 0, "run": 100, "procs": 2},
            {"id": "3", "submit": 1, "run": 10, "procs": 1}]"#,
    );
    let machine = write(
        dir.path(),
        "m.cluster",
        "count=1 ncpus=4\ncount=1 ncpus=2\n",
    );
    for policy in ["strict", "easy", "fill", "conservative"] {
        let out = jobsort([
            "sim",
            "--trace",
            &jobs,
            "--machine",
            &machine,
            "--policy",
            policy,
            "--format",
            "json",
        ]);
        assert_eq!(code(&out), Some(0), "{policy}: {}", stderr(&out));
        let m = &json(&out)["runs"][0]["metrics"];
        assert_eq!(m["mean_wait"], 99.0 / 3.0, "{policy}");
        let util = m["utilization"].as_f64().unwrap();
        assert!((util - 610.0 / 660.0).abs() < 1e-12, "{policy}: {util}");
    }
}

/// A machine of node types in `--format json`: `trace.machine` lists the types (the
/// `nodes`/`cores` beside it are the node count and the largest node), and `--fidelity`
/// measures the recorded schedule against the machine's own 6 cores, not 2 nodes x 4.
#[test]
fn the_json_report_names_the_node_types_and_fidelity_uses_their_capacity() {
    let dir = tempfile::tempdir().unwrap();
    // Recorded: job 1 (4 cores) runs 0-100, job 2 (3 cores) waits for it and starts at
    // 100. On 4 + 2 cores, 2 are free while job 2 waits: it never fits, so the recorded
    // head-fits time is 0 (on 8 cores it would fit for all 100 s).
    let jobs = write(
        dir.path(),
        "jobs.json",
        r#"[{"id": "1", "submit": 0, "start": 0, "run": 100, "procs": 4},
            {"id": "2", "submit": 0, "start": 100, "run": 10, "procs": 3}]"#,
    );
    let machine = write(
        dir.path(),
        "m.cluster",
        "count=1 ncpus=4 name=big\ncount=1 ncpus=2 name=small\n",
    );
    let out = jobsort([
        "sim",
        "--trace",
        &jobs,
        "--machine",
        &machine,
        "--fidelity",
        "--format",
        "json",
    ]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    let doc = json(&out);
    assert_eq!(
        doc["trace"]["machine"],
        serde_json::json!([
            {"name": "big", "count": 1, "resources": {"ncpus": 4}},
            {"name": "small", "count": 1, "resources": {"ncpus": 2}},
        ])
    );
    assert_eq!(
        (
            doc["trace"]["nodes"].as_u64(),
            doc["trace"]["cores"].as_u64()
        ),
        (Some(2), Some(4))
    );
    let f = &doc["runs"][0]["fidelity"];
    assert_eq!(f["recorded_head_fits"], 0, "{f}");
    assert_eq!(f["recorded_span"], 110, "{f}");
}
