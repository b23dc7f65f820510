//! Loading a trace, whole (read, SHA-256, gunzip, parse, sort): KTH-SP2, LANL-CM5 and
//! LLNL-Atlas as stored (SWF, gzip), and LANL-CM5 as a JSON job list and as JSON lines.
//! Throughput in jobs/s. `cargo bench --bench trace_load` (add `-- --quick` on a shared
//! machine); `cargo run --release -p jobsort-tools --bin trace_load` gives the phases one by one and the
//! peak memory. Measured numbers are in `docs/perf.md`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jobsort::sim::load_workload;
use std::path::Path;
use std::time::Duration;

const TRACES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/traces");

/// LANL-CM5 written as a JSON job list (`lines`: JSON lines), in `dir`.
fn lanl_json(dir: &Path, lines: bool) -> std::path::PathBuf {
    let w = load_workload(&Path::new(TRACES).join("LANL-CM5-1994-4.1-cln.swf.gz"))
        .expect("LANL-CM5 trace");
    let jobs = w.jobs.iter().map(|j| {
        let mut o = serde_json::json!({
            "id": j.id, "submit": j.submit, "run": j.run, "ncpus": j.request.total_cores(),
            "user": j.user, "group": j.group, "queue": j.queue,
        });
        if j.walltime_given() {
            o["walltime"] = j.walltime.into();
        }
        if j.mem > 0.0 {
            o["mem"] = j.mem.into();
        }
        if let Some(s) = j.recorded_start() {
            o["start"] = s.into();
        }
        o
    });
    let text = if lines {
        jobs.map(|o| o.to_string() + "\n").collect::<String>()
    } else {
        serde_json::Value::Array(jobs.collect()).to_string()
    };
    let path = dir.join(if lines { "lanl.jsonl" } else { "lanl.json" });
    std::fs::write(&path, text).expect("write the JSON job list");
    path
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut traces: Vec<(String, std::path::PathBuf)> = [
        "KTH-SP2-1996-2.1-cln.swf.gz",
        "LANL-CM5-1994-4.1-cln.swf.gz",
        "LLNL-Atlas-2006-2.1-cln.swf.gz",
    ]
    .iter()
    .map(|n| (n.to_string(), Path::new(TRACES).join(n)))
    .collect();
    traces.push(("LANL-CM5.json".into(), lanl_json(dir.path(), false)));
    traces.push(("LANL-CM5.jsonl".into(), lanl_json(dir.path(), true)));
    let mut g = c.benchmark_group("trace_load");
    g.sample_size(10);
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(3));
    for (name, path) in &traces {
        let jobs = load_workload(path).expect("trace").jobs.len();
        g.throughput(Throughput::Elements(jobs as u64));
        g.bench_function(name.as_str(), |b| {
            b.iter(|| load_workload(path).expect("trace"))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
