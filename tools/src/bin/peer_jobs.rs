//! Write a trace's jobs, as jobsort simulates them on a machine, in the input of HPCOpt's
//! `sim-runner` (a JSON array of `job_id`, `submit_ts`, `runtime_actual_sec`,
//! `requested_cpus`), for the side-by-side runs of `docs/perf.md`:
//!
//! ```sh
//! cargo run --release -p jobsort-tools --bin peer_jobs -- TRACE NODES CORES OUT.json
//! ```
//!
//! The jobs are those `jobsort sim` keeps (too large for the machine dropped), the run time
//! the effective one (`min(run, walltime)`), a job's size its cores.

use jobsort::sim::load_workload;
use jobsort::sim::scheduler::drop_oversized;
use std::io::Write;
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [trace, nodes, cores, out] = &args[..] else {
        eprintln!("usage: peer_jobs TRACE NODES CORES OUT.json");
        std::process::exit(2);
    };
    let number = |a: &str| a.parse::<u32>().expect("a number");
    let mut w = load_workload(Path::new(trace)).expect("trace");
    drop_oversized(&mut w, number(nodes), number(cores));
    let mut f = std::io::BufWriter::new(std::fs::File::create(out).expect("output file"));
    write!(f, "[").unwrap();
    for (i, j) in w.jobs.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        write!(
            f,
            "{sep}\n{{\"job_id\":{},\"submit_ts\":{},\"runtime_actual_sec\":{},\"requested_cpus\":{}}}",
            i + 1,
            j.submit,
            j.effective_run(),
            j.request.total_cores()
        )
        .unwrap();
    }
    writeln!(f, "\n]").unwrap();
    println!("{} jobs written to {out}", w.jobs.len());
}
