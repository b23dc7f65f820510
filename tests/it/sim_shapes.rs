//! Slurm and Flux request shapes, and memory placed wherever the machine has memory, schedules worked by hand. Every job runs its requested time. The rule
//! (`src/sim/workload/shape.rs`): a job's memory is placed with its request's shape, per
//! processor for processors placed anywhere (SWF's requested memory is per processor; Slurm's
//! `--mem-per-cpu` is per CPU), per node for `nodes × cores` (Slurm's `--mem`, `sbatch(1)`),
//! only on a machine that names `mem`. Placement is first fit in node order (`free` stacks
//! chunks on a node while it holds them, `scatter` one chunk per node:
//! `tests/it/sim_resources.rs`).

use crate::common;

use common::cli::{code, jobsort, stderr, stdout, write};
use jobsort::sim::cluster::Machine;
use jobsort::sim::run::{RunOptions, simulate_setup};
use jobsort::sim::workload::{
    ReadOptions, SacctOptions, parse_flux_jobs, parse_sacct, place_memory,
};
use jobsort::sim::{Policy, Setup, SimConfig, Workload};

/// The start of every job, relative to the first submit, on `machine` (the cluster
/// format) under `policy`, each job's memory placed as `jobsort sim` places it.
fn starts(machine: &str, w: &Workload, policy: Policy) -> Vec<i64> {
    let m = Machine::parse(machine, "test.cluster").unwrap();
    let mut w = w.clone();
    place_memory(&mut w.jobs, &m);
    let setup = Setup::on_machine(&SimConfig::new(policy, 1, 1), &w.jobs, Some(m)).unwrap();
    let r = simulate_setup(&w, &setup, None, &RunOptions::default()).unwrap();
    let first = w.jobs[0].submit;
    r.outcome.start.iter().map(|s| s.unwrap() - first).collect()
}

const SACCT_HEADER: &str = "JobID|State|Submit|Start|End|Timelimit|Partition|User|NNodes|\
                            NCPUS|ReqCPUS|ReqMem|ReqTRES|AllocTRES|NodeList\n";

/// A sacct row (22.05 columns) of a job that ran from its submit for `run` seconds, its
/// requested time: `nodes` nodes, `cpus` CPUs, `req_mem` (ReqMem as printed) and `tres_mem`
/// (ReqTRES `mem`, empty for none).
fn sacct_row(id: u32, submit: u32, run: u32, nodes: u32, cpus: u32, mem: (&str, &str)) -> String {
    let (req_mem, tres_mem) = mem;
    let clock = |s: u32| format!("2026-01-05T10:{:02}:{:02}", s / 60, s % 60);
    let limit = format!("00:{:02}:{:02}", run / 60, run % 60);
    let tres = format!("billing={cpus},cpu={cpus},node={nodes}");
    let req_tres = if tres_mem.is_empty() {
        tres.clone()
    } else {
        format!("billing={cpus},cpu={cpus},mem={tres_mem},node={nodes}")
    };
    format!(
        "{id}|COMPLETED|{}|{}|{}|{limit}|batch|alice|{nodes}|{cpus}|{cpus}|{req_mem}|{req_tres}|\
         {tres}|n[01-02]\n",
        clock(submit),
        clock(submit),
        clock(submit + run),
    )
}

fn sacct(rows: &[String]) -> Workload {
    let text = format!("{SACCT_HEADER}{}", rows.concat());
    let w = parse_sacct(
        &text,
        "sacct.txt",
        ReadOptions::default(),
        &SacctOptions::default(),
    )
    .unwrap();
    assert_eq!(w.jobs.len(), rows.len(), "{:?}", w.report);
    w
}

/// sacct jobs without gres, bound by memory (ReqTRES `mem`, the job's total in 22.05) on two
/// nodes of 8 cores and 16 GB. Job 1 (t=0, 2 CPUs, 12 GB, 100 s) takes node 0, job 2 (the
/// same) node 1: 4 GB left on each. Job 3 (t=1, 1 CPU, 8 GB, 50 s) fits no node until jobs
/// 1 and 2 end at 100. Job 4 (t=2, 4 CPUs, no memory, 10 s) fits now: strict ordering keeps
/// it behind job 3 (100); EASY backfills it at 2 (it ends at 12, before job 3's reservation
/// at 100). On cores alone (`count=2 ncpus=8`) job 3 starts at 1 and job 4 at 2: the
/// schedule of `sim_resources.rs`'s `memory_bound_placement`, here from a sacct dump. (Before
/// the rule, a sacct job's memory was placed only with GPUs: job 3 started at 1.)
#[test]
fn a_sacct_job_bound_by_memory_without_gres() {
    let w = sacct(&[
        sacct_row(1, 0, 100, 1, 2, ("12G", "12G")),
        sacct_row(2, 0, 100, 1, 2, ("12G", "12G")),
        sacct_row(3, 1, 50, 1, 1, ("8G", "8G")),
        sacct_row(4, 2, 10, 1, 4, ("", "")),
    ]);
    let m = "count=2 ncpus=8 mem=16gb";
    assert_eq!(starts(m, &w, Policy::Strict), [0, 0, 100, 100]);
    assert_eq!(starts(m, &w, Policy::Easy), [0, 0, 100, 2]);
    assert_eq!(starts("count=2 ncpus=8", &w, Policy::Strict), [0, 0, 1, 2]);
}

/// Per-node and per-CPU memory (Slurm ≤ 20.11's ReqMem `Mn` and `Mc`) of a job whose CPUs do
/// not divide over its nodes: 3 CPUs on 2 nodes, on two nodes of 4 cores and 4 GB. Job 1
/// (t=0, 1 node, 2 CPUs, `3072Mn`, 100 s) takes node 0: 2 cores and 1 GB left there.
/// Job 2 (t=1, 50 s):
/// - `2048Mn`: 2 GB on each of its 2 nodes (`--mem`: every node), 2 CPUs on one and 1 on
///   the other. The 2-CPU chunk fits node 1 only, the 1-CPU chunk then needs another node
///   with 2 GB: node 0 has 1 GB. It waits for job 1's end: 100.
/// - `1024Mc`: 1 GB with each CPU (`--mem-per-cpu`), the CPUs anywhere: one on node 0 (its
///   last GB), two on node 1. It starts at 1.
/// - `3G` (22.05's total, ReqTRES `mem=3G`): the total spread with the CPUs, as per CPU: 1.
#[test]
fn per_cpu_and_per_node_memory_place_differently() {
    let job1 = sacct_row(1, 0, 100, 1, 2, ("3072Mn", ""));
    let m = "count=2 ncpus=4 mem=4gb";
    let second = |mem| {
        starts(
            m,
            &sacct(&[job1.clone(), sacct_row(2, 1, 50, 2, 3, mem)]),
            Policy::Strict,
        )
    };
    assert_eq!(second(("2048Mn", "")), [0, 100]);
    assert_eq!(second(("1024Mc", "")), [0, 1]);
    assert_eq!(second(("3G", "3G")), [0, 1]);
    // On cores alone both fit at once.
    let w = sacct(&[job1.clone(), sacct_row(2, 1, 50, 2, 3, ("2048Mn", ""))]);
    assert_eq!(starts("count=2 ncpus=4", &w, Policy::Strict), [0, 1]);
}

/// Flux jobs that ran under sched-simple, their GPUs in `annotations.sched.resource_summary`
/// (`rlist_dumps`), on a node of 8 cores and a node of 8 cores and 2 GPUs. Job A (t=0,
/// `rank0/core[0-1],gpu[0-1]`, 100 s) takes both GPUs of node 1. Job B (t=1,
/// `rank0/core0,gpu0`, 50 s) waits for them: 100. Job C (t=2, 4 cores on 1 node, no
/// summary, 10 s): strict keeps it behind B (100, on node 0); EASY backfills it at 2. On
/// cores alone B starts at 1 and C at 2. (Before, the summary was not read: B started at 1.)
#[test]
fn a_flux_job_with_gpus() {
    let job = |id: u32, submit: u32, run: u32, ncores: u32, summary: &str| {
        let annotations = if summary.is_empty() {
            String::new()
        } else {
            format!(r#", "annotations": {{"sched": {{"resource_summary": "{summary}"}}}}"#)
        };
        format!(
            r#"{{"id": {id}, "userid": 1000, "t_submit": {submit}.0, "t_run": {submit}.0, "t_cleanup": {}.0, "state": "INACTIVE", "result": "COMPLETED", "ncores": {ncores}, "nnodes": 1, "duration": {run}.0{annotations}}}"#,
            submit + run
        )
    };
    let text = format!(
        r#"{{"jobs": [{}, {}, {}]}}"#,
        job(1, 0, 100, 2, "rank0/core[0-1],gpu[0-1]"),
        job(2, 1, 50, 1, "rank0/core0,gpu0"),
        job(3, 2, 10, 4, ""),
    );
    let w = parse_flux_jobs(&text, "flux.json", ReadOptions::default()).unwrap();
    assert_eq!(w.jobs.len(), 3, "{:?}", w.report);
    let m = "count=1 ncpus=8 name=cpu\ncount=1 ncpus=8 ngpus=2 name=gpu";
    assert_eq!(starts(m, &w, Policy::Strict), [0, 100, 100]);
    assert_eq!(starts(m, &w, Policy::Easy), [0, 100, 2]);
    assert_eq!(starts("count=2 ncpus=8", &w, Policy::Strict), [0, 1, 2]);
}

/// An SWF trace with requested memory (field 10, KB per processor) on `sim --machine` with
/// memory: two nodes of 4 cores and 4 GB. Job 1 (t=0, 2 processors of 1.5 GB, 100 s): both
/// on node 0 (`free` stacks them): 2 cores and 1 GB left there. Job 2 (t=1, 4 processors of
/// 1.5 GB, 50 s): node 0 holds none, node 1 two; it waits for job 1's end: 100 (wait 99).
/// Job 3 (t=4, 1 processor, no memory, 10 s): strict keeps it behind job 2 (100, wait 96:
/// mean wait 65); EASY backfills it at 4 (mean 33). On the same machine without memory, job
/// 2 starts at 1 (2 cores on node 0 and 2 on node 1) and job 3 at 4: mean 0. (Before the
/// rule, SWF memory was not placed: mean 0 on both machines.) A recording holds the chunks
/// and `replay --verify` reproduces the run.
#[test]
fn an_swf_trace_with_memory_on_a_machine_with_memory() {
    let dir = tempfile::tempdir().unwrap();
    let kb = 1536 * 1024;
    let trace = write(
        dir.path(),
        "mem.swf",
        &format!(
            "1 0 0 100 2 -1 -1 2 100 {kb} 1 1 1 -1 1 -1 -1 -1\n\
             2 1 0 50 4 -1 -1 4 50 {kb} 1 1 1 -1 1 -1 -1 -1\n\
             3 4 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
        ),
    );
    let with_mem = write(dir.path(), "mem.cluster", "count=2 ncpus=4 mem=4gb\n");
    let cores = write(dir.path(), "cores.cluster", "count=2 ncpus=4\n");
    let mean_wait = |args: &[&str]| {
        let mut a = vec!["--trace", &trace];
        a.extend_from_slice(args);
        common::cli::sim_mean_wait(&a)
    };
    assert_eq!(
        mean_wait(&["--machine", &with_mem, "--policy", "strict"]),
        65.0
    );
    assert_eq!(
        mean_wait(&["--machine", &with_mem, "--policy", "easy"]),
        33.0
    );
    assert_eq!(mean_wait(&["--machine", &cores, "--policy", "strict"]), 0.0);
    assert_eq!(
        mean_wait(&[
            "--nodes", "2", "--cores", "4", "--mem", "4gb", "--policy", "strict"
        ]),
        65.0
    );
    let rec = dir.path().join("r.jsonl").display().to_string();
    mean_wait(&[
        "--machine",
        &with_mem,
        "--policy",
        "strict",
        "--record",
        &rec,
    ]);
    let out = jobsort(["replay", &rec, "--verify"]);
    assert_eq!(code(&out), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("0 mismatches"), "{}", stdout(&out));
}
