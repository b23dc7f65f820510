//! Forecast a snapshot's queue as `jobsort forecast` does (the site's policy, the captured
//! priority order), but with every job's run time known: how near the plan comes when only
//! the run times are right, to tell the planner's error from the run-time assumption's.
//! The Slurm end-to-end test (`contrib/slurm/e2e.sh`) runs it on its live queue, whose jobs
//! are `sleep N`:
//!
//! ```sh
//! cargo run -p jobsort-tools --bin forecast_known_runtimes -- SNAPSHOT_DIR RUNTIMES.csv
//! ```
//!
//! `RUNTIMES.csv` has a line `id,seconds` per job (running or waiting); a job it does not
//! list runs its whole walltime. Prints `id start` (Unix seconds, `-` for none) for every
//! waiting job, in the order the plan took them.

use jobsort::forecast::{self, PlanOptions, Runtimes, plan};
use jobsort::model::snapshot::{PendingJob, Snapshot};
use std::collections::HashMap;
use std::path::Path;

struct Known(HashMap<String, i64>);

impl Runtimes for Known {
    fn running_end(&self, snap: &Snapshot, i: usize, _now: i64) -> Option<i64> {
        let job = &snap.running[i];
        match self.0.get(&job.id) {
            Some(run) => Some(job.start + run),
            None => job.planned_end(),
        }
    }
    fn run_time(&self, job: &PendingJob, walltime: i64) -> i64 {
        self.0.get(&job.id).copied().unwrap_or(walltime)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, runtimes] = &args[..] else {
        eprintln!("usage: forecast_known_runtimes SNAPSHOT_DIR RUNTIMES.csv");
        std::process::exit(2);
    };
    let loaded = jobsort::sim::snapshot::load_snapshot(Path::new(dir), false).unwrap_or_else(|e| {
        eprintln!("forecast_known_runtimes: {e}");
        std::process::exit(1);
    });
    let mut known = HashMap::new();
    let text = std::fs::read_to_string(runtimes).expect("the run times file");
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (id, secs) = line.split_once(',').expect("a line `id,seconds`");
        known.insert(
            id.trim().to_string(),
            secs.trim().parse::<i64>().expect("seconds"),
        );
    }
    let snap = &loaded.snapshot;
    let Some(now) = snap.taken_at else {
        eprintln!("forecast_known_runtimes: the snapshot does not say when it was taken");
        std::process::exit(1);
    };
    let order = forecast::captured_order(snap)
        .unwrap_or_else(|| (0..snap.pending.len()).collect::<Vec<_>>());
    let policy = forecast::site_policy(&loaded).unwrap_or_else(|e| {
        eprintln!("forecast_known_runtimes: {e}");
        std::process::exit(1);
    });
    let options = PlanOptions {
        policy,
        ..PlanOptions::default()
    };
    let p = plan(snap, &loaded.limits, &order, now, &options, &Known(known));
    for j in &p.jobs {
        let start = j.start.map_or_else(|| "-".to_string(), |s| s.to_string());
        println!("{} {start}", snap.pending[j.index].id);
    }
}
