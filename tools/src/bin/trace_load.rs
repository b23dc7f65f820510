//! How long loading a trace takes, phase by phase, and how much memory it holds at its peak:
//! KTH-SP2, LANL-CM5 and LLNL-Atlas (SWF, gzip), and LANL-CM5 written out as a JSON job list
//! and as JSON lines. Best of several runs; not part of `cargo test`:
//!
//! ```sh
//! cargo run --release -p jobsort-tools --bin trace_load
//! ```
//!
//! The criterion version of the whole-load figures is `benches/trace_load.rs`; what the
//! numbers were and what was tried is in `docs/perf.md`.

use jobsort::sim::load_workload;
use jobsort::sim::workload::{Request, Workload};
use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

const TRACES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data/traces");
const RUNS: usize = 7;

/// The system allocator, counting the bytes live and their peak.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, new) };
        if !q.is_null() {
            if new >= layout.size() {
                let live =
                    LIVE.fetch_add(new - layout.size(), Ordering::Relaxed) + new - layout.size();
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The fastest of [`RUNS`] runs of `f`, in milliseconds, and the result of the last.
fn best<T>(mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..RUNS {
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        last = Some(r);
    }
    (best, last.expect("RUNS > 0"))
}

/// Peak bytes allocated while `f` runs, above what was live before, with its result.
fn peak<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let r = f();
    (PEAK.load(Ordering::Relaxed) - before, r)
}

/// A workload as the JSON job list `sim` reads, in the job schema of `eval` and `rank`.
fn json_list(w: &Workload, lines: bool) -> String {
    let mut s = String::with_capacity(w.jobs.len() * 160);
    if !lines {
        s.push_str("[\n");
    }
    for (i, j) in w.jobs.iter().enumerate() {
        if !lines && i > 0 {
            s.push_str(",\n");
        }
        let size = match &j.request {
            Request::Procs(p) => format!("\"ncpus\": {p}"),
            Request::Nodes { nodes, cores } => {
                format!(
                    "\"ncpus\": {}, \"nodect\": {nodes}",
                    *nodes as u64 * *cores as u64
                )
            }
            Request::Select(s) => format!("\"ncpus\": {}", s.total("ncpus")),
        };
        let _ = write!(
            s,
            "{{\"id\": \"{}\", \"submit\": {}, \"run\": {}, {size}, \"user\": \"{}\", \"group\": \"{}\", \"queue\": \"{}\"",
            j.id, j.submit, j.run, j.user, j.group, j.queue
        );
        if j.walltime_given() {
            let _ = write!(s, ", \"walltime\": {}", j.walltime);
        }
        if j.mem > 0.0 {
            let _ = write!(s, ", \"mem\": {}", j.mem);
        }
        if let Some(start) = j.recorded_start() {
            let _ = write!(s, ", \"start\": {start}");
        }
        s.push('}');
        if lines {
            s.push('\n');
        }
    }
    if !lines {
        s.push_str("\n]\n");
    }
    s
}

fn row(name: &str, what: &str, ms: f64, jobs: usize, bytes: Option<usize>) {
    let mem = bytes.map_or(String::new(), |b| format!("{:>9.1} MB", b as f64 / 1e6));
    println!(
        "{name:<28} {what:<22} {ms:>9.2} ms {:>9.2} Mjobs/s {mem}",
        jobs as f64 / ms / 1e3
    );
}

fn main() {
    println!(
        "{:<28} {:<22} {:>12} {:>16} {:>12}",
        "trace", "phase", "best", "", "peak memory"
    );
    let mut lanl = None;
    for name in [
        "KTH-SP2-1996-2.1-cln.swf.gz",
        "LANL-CM5-1994-4.1-cln.swf.gz",
        "LLNL-Atlas-2006-2.1-cln.swf.gz",
    ] {
        let path = format!("{TRACES}/{name}");
        let path = Path::new(&path);
        let (ms, bytes) = best(|| std::fs::read(path).expect("trace"));
        let (n, w) = peak(|| load_workload(path).expect("trace"));
        let jobs = w.jobs.len();
        row(name, "read file", ms, jobs, None);
        let (ms, _) = best(|| {
            use sha2::Digest;
            sha2::Sha256::digest(&bytes)
        });
        row(name, "sha256", ms, jobs, None);
        let (ms, text) = best(|| {
            let mut out = Vec::with_capacity(bytes.len() * 8);
            flate2::read::MultiGzDecoder::new(&bytes[..])
                .read_to_end(&mut out)
                .expect("gzip");
            out
        });
        row(name, "gunzip", ms, jobs, None);
        let (ms, _) = best(|| std::str::from_utf8(&text).is_ok());
        row(name, "UTF-8 check", ms, jobs, None);
        let text = String::from_utf8(text).expect("UTF-8");
        let (ms, _) = best(|| jobsort::sim::swf::parse_swf(&text, name).expect("trace"));
        row(name, "parse", ms, jobs, None);
        // The whole text first, then the parse: how every trace was loaded before the text
        // streamed (`load_workload` decodes and parses a piece at a time).
        let (whole_peak, _) = peak(|| {
            let (text, _) = jobsort::sim::workload::read_text(path).expect("trace");
            jobsort::sim::swf::parse_swf(&text, name).expect("trace")
        });
        let (ms, _) = best(|| {
            let (text, _) = jobsort::sim::workload::read_text(path).expect("trace");
            jobsort::sim::swf::parse_swf(&text, name).expect("trace")
        });
        row(name, "whole text, then parse", ms, jobs, Some(whole_peak));
        let (ms, _) = best(|| load_workload(path).expect("trace"));
        row(name, "load_workload", ms, jobs, Some(n));
        if name.starts_with("LANL") {
            lanl = Some(w);
        }
    }
    let lanl = lanl.expect("LANL-CM5 loaded");
    let dir = std::env::temp_dir().join(format!("jobsort-trace-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (file, lines) in [("LANL-CM5.json", false), ("LANL-CM5.jsonl", true)] {
        let path = dir.join(file);
        std::fs::write(&path, json_list(&lanl, lines)).expect("write JSON");
        let (n, w) = peak(|| load_workload(&path).expect("JSON job list"));
        assert_eq!(w.jobs, lanl.jobs, "{file} reads back as the SWF trace");
        let (ms, _) = best(|| load_workload(&path).expect("JSON job list"));
        row(file, "load_workload", ms, w.jobs.len(), Some(n));
    }
    let _ = std::fs::remove_dir_all(&dir);
}
