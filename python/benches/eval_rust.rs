//! The Rust side of `python/benches/eval_overhead.py`: `CompiledFormula::evaluate` over the
//! same columns the Python side evaluates (raw little-endian f64 files, one per input, written
//! by the script), best of R runs, in ns per job.
//!
//! `cargo run --release -p jobsort-python --bench eval_rust -- FORMULA DIR RUNS`

use jobsort::{Catalog, Formula, JobTable};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, formula, dir, runs, ..] = args.as_slice() else {
        eprintln!("usage: eval_rust FORMULA DIR RUNS");
        std::process::exit(2);
    };
    let runs: usize = runs.parse().expect("RUNS is a number");
    let f = Formula::compile(formula, &Catalog::pbs()).expect("the formula compiles");
    let mut table: Option<JobTable> = None;
    for input in f.inputs() {
        let name = input.column();
        let bytes = std::fs::read(format!("{dir}/{name}.f64")).expect("column file");
        let col: Vec<f64> = bytes
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        let t = table.take().unwrap_or_else(|| JobTable::new(col.len()));
        table = Some(t.with_column(name, col).expect("equal lengths"));
    }
    let table = table.expect("the formula reads a column");
    let mut best = f64::INFINITY;
    let mut check = 0.0;
    for _ in 0..runs {
        let t = Instant::now();
        let ev = f.evaluate(&table);
        best = best.min(t.elapsed().as_secs_f64());
        check += ev.values[ev.values.len() / 2];
    }
    println!("{} {}", best * 1e9 / table.len() as f64, check);
}
