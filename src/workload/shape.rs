//! The chunks a request is placed as, and the one memory rule.
//!
//! Every reader gives a job's memory as its total (`SimJob::mem`, KB) and its cores as a
//! [`Request`]. A reader that knows more of the shape than `Procs`/`Nodes` can say (GPUs per
//! node, memory on every node of an uneven job) builds the chunks itself with [`chunks`].
//! Otherwise the memory is placed by [`place_memory`], once the machine is known and only
//! when it schedules memory, with what the request's shape means:
//!
//! | request | memory is | chunks |
//! |---|---|---|
//! | `Procs(p)`: cores anywhere | per processor | `p:ncpus=1:mem=⌈mem/p⌉`, `free` |
//! | `Nodes { n, c }`: `c` cores on `n` nodes | per node | `n:ncpus=c:mem=⌈mem/n⌉`, `scatter` |
//! | `Select` | its chunks' own `mem` | unchanged |
//!
//! - SWF: requested memory (field 10) is "per processor" (the SWF definition,
//!   `parallel.cs.huji.ac.il/labs/parallel/workload/swf.html`); the reader keeps the total
//!   `field 10 × processors`, so a processor job gets field 10 on each processor.
//! - Slurm: `--mem` is per node and `--mem-per-cpu` per allocated CPU (`sbatch(1)`); sacct's
//!   ReqTRES `mem` and 22.05's ReqMem are the job's total, so a job of `n` nodes with the same
//!   cores on each gets `total / n` on each node, which is either request exactly. The
//!   sacct reader builds the other shapes itself (`sacct.rs`).
//! - PBS: `qsub -l ncpus=N -l mem=M` is converted by the server to `select=1:ncpus=N:mem=M`
//!   with `place=pack` (`pbs_resources.7B`, "Backward compatibility";
//!   `shared/reference/scheduler_data.md` §1), and the accounting log and `qstat -f -F json`
//!   print that `select`: such jobs come as chunks already. A JSON job list's `procs`/`ncpus`
//!   without a `select` is the simulator's own processor request and is read as SWF's.
//! - On a machine that does not name `mem` nothing changes: the requests stay as read, and a
//!   cores-only run places them as it always has.

use super::job::{Request, Select, SelectPart, SimJob};
use crate::model::Machine;
use crate::model::machine::{MEM, NCPUS};
use crate::model::place::{Arrangement, Place, Sharing};
use std::sync::Arc;

/// A request of `parts`, each chunk on nodes shared with other jobs, arranged as
/// `arrangement` (`place=free|pack|scatter`).
pub fn chunks(parts: Vec<SelectPart>, arrangement: Arrangement) -> Request {
    Request::Select(Arc::new(Select {
        parts,
        place: Place {
            arrangement,
            sharing: Sharing::Shared,
        },
    }))
}

/// `count` chunks of `resources` (`(name, amount)`; amounts of 0 are left out, `ncpus` is
/// kept).
pub fn part(count: u32, resources: &[(&str, u64)]) -> SelectPart {
    SelectPart {
        count,
        resources: resources
            .iter()
            .filter(|(r, v)| *v > 0 || *r == NCPUS)
            .map(|(r, v)| (r.to_string(), *v))
            .collect(),
    }
}

/// The chunks that place `mem_kb` (a job's total) with `request`, as the table of the module
/// doc gives them; `None` when there is no memory to place or the request is chunks
/// already.
pub fn memory_request(request: &Request, mem_kb: f64) -> Option<Request> {
    if !(mem_kb > 0.0 && mem_kb.is_finite()) {
        return None;
    }
    let share = |count: u32| (mem_kb / f64::from(count)).ceil() as u64;
    match *request {
        Request::Procs(p) if p > 0 => Some(chunks(
            vec![part(p, &[(NCPUS, 1), (MEM, share(p))])],
            Arrangement::Free,
        )),
        Request::Nodes { nodes, cores } if nodes > 0 => Some(chunks(
            vec![part(
                nodes,
                &[(NCPUS, u64::from(cores)), (MEM, share(nodes))],
            )],
            Arrangement::Scatter,
        )),
        _ => None,
    }
}

/// Give every job with memory that `machine` can schedule its memory chunks
/// ([`memory_request`]); nothing when the machine names no `mem`. Returns how many jobs
/// changed. `jobsort sim` calls it once the machine is known, before the setup
/// ([`Setup::on_machine`](crate::sim::Setup::on_machine)), so a recording holds the
/// chunks and `replay --verify` places them again.
pub fn place_memory(jobs: &mut [SimJob], machine: &Machine) -> usize {
    if machine.index(MEM).is_none() {
        return 0;
    }
    let mut changed = 0;
    for job in jobs {
        if let Some(r) = memory_request(&job.request, job.mem) {
            job.request = r;
            changed += 1;
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: u64 = 1024 * 1024;

    #[test]
    fn memory_follows_the_processors_or_the_nodes() {
        let text = |r: Option<Request>| match r {
            Some(Request::Select(s)) => format!("{} {}", s.select_text(), s.place),
            other => format!("{other:?}"),
        };
        // SWF: 4 processors, 1 GB each (4 GB in all).
        assert_eq!(
            text(memory_request(&Request::Procs(4), (4 * GB) as f64)),
            format!("4:ncpus=1:mem={GB}kb free:shared")
        );
        // 2 nodes × 8 cores, 12 GB in all: 6 GB on each node.
        assert_eq!(
            text(memory_request(
                &Request::Nodes { nodes: 2, cores: 8 },
                (12 * GB) as f64
            )),
            format!("2:ncpus=8:mem={}kb scatter:shared", 6 * GB)
        );
        // A share that does not divide is rounded up, never down.
        assert_eq!(
            text(memory_request(&Request::Procs(3), 10.0)),
            "3:ncpus=1:mem=4kb free:shared"
        );
        assert_eq!(text(memory_request(&Request::Procs(4), 0.0)), "None");
        assert_eq!(text(memory_request(&Request::Procs(4), f64::NAN)), "None");
        let select = chunks(vec![part(1, &[(NCPUS, 2)])], Arrangement::Pack);
        assert_eq!(text(memory_request(&select, 1.0)), "None");
    }

    #[test]
    fn only_a_machine_with_memory_changes_the_requests() {
        let mut jobs = crate::workload::parse_json_jobs(
            r#"[{"submit": 0, "run": 1, "procs": 2, "mem": 2048},
                {"submit": 0, "run": 1, "nnodes": 1, "ncores": 2}]"#,
            "jobs.json",
        )
        .unwrap()
        .jobs;
        let before = jobs.clone();
        assert_eq!(place_memory(&mut jobs, &Machine::uniform(2, 4)), 0);
        assert_eq!(jobs, before);
        let m = Machine::uniform(2, 4).with_per_node(MEM, 4 * GB);
        assert_eq!(place_memory(&mut jobs, &m), 1);
        assert_eq!(
            jobs[0].request,
            chunks(vec![part(2, &[(NCPUS, 1), (MEM, 1024)])], Arrangement::Free)
        );
        assert_eq!(jobs[1], before[1]);
    }
}
