//! How fast a large `sacct -P` dump is read, and how much memory the read holds: a generated
//! dump of 1,000,000 rows (a third of them steps, as a dump without `-X` has), written to a
//! temporary file and read line by line ([`read_sacct`]), then from memory ([`parse_sacct`]).
//! Not part of `cargo test`:
//!
//! ```sh
//! cargo run --release -p jobsort-tools --bin sacct_load [ROWS]
//! ```
//!
//! Peak memory is the process's peak resident set (`VmHWM` of `/proc/self/status`), read
//! after each phase: the streaming read comes first, so its figure holds the jobs kept and
//! not the file. Rates are given per second of wall time and per second of this thread's CPU
//! time (the fair figure on a shared machine).

use jobsort::sim::workload::{ReadOptions, SacctOptions, parse_sacct, read_sacct};
use std::io::{BufReader, BufWriter, Write};
use std::time::Instant;

const HEADER: &str = "JobID|JobIDRaw|User|Group|Account|Partition|QOS|Submit|Eligible|Start|End|\
Elapsed|State|ExitCode|Timelimit|NNodes|NCPUS|ReqMem|ReqTRES|AllocTRES|NodeList|JobName";

/// `YYYY-MM-DDTHH:MM:SS` of seconds since 2026-01-01T00:00:00 (no month past January is
/// needed below a month of seconds; days run on past 31 for longer dumps).
fn stamp(out: &mut String, t: i64) {
    use std::fmt::Write;
    let (d, s) = (t / 86_400, t % 86_400);
    let (month, day) = ((d / 28) % 12 + 1, d % 28 + 1);
    let _ = write!(
        out,
        "2026-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        s / 3600,
        s / 60 % 60,
        s % 60
    );
}

/// Write `rows` rows: each job is followed by its `.batch` step, every other job also by its
/// `.0` step.
fn generate(path: &std::path::Path, rows: usize) -> std::io::Result<usize> {
    let mut f = BufWriter::new(std::fs::File::create(path)?);
    writeln!(f, "{HEADER}")?;
    let (mut written, mut jobs, mut line) = (0, 0usize, String::with_capacity(512));
    let states = [
        "COMPLETED",
        "FAILED",
        "TIMEOUT",
        "CANCELLED by 1001",
        "OUT_OF_MEMORY",
    ];
    while written < rows {
        let id = 1_000_000 + jobs;
        // Jobs of 1 to 4 nodes of 32 cores on 4096 nodes, a submit every 2.5 s on average.
        let nodes = 1 + jobs % 4;
        let first = (jobs * 7) % 4093;
        let submit = (jobs as i64 * 5) / 2;
        let start = submit + (jobs as i64 * 37) % 3600;
        let end = start + 60 + (jobs as i64 * 101) % 86_000;
        let kinds = if jobs % 2 == 0 { 3 } else { 2 };
        for k in 0..kinds {
            if written == rows {
                break;
            }
            line.clear();
            let job_id = match k {
                0 => id.to_string(),
                1 => format!("{id}.batch"),
                _ => format!("{id}.0"),
            };
            line.push_str(&format!(
                "{job_id}|{id}|user{}|grp{}|acct{}|batch|normal|",
                jobs % 97,
                jobs % 13,
                jobs % 29
            ));
            stamp(&mut line, submit);
            line.push('|');
            stamp(&mut line, submit);
            line.push('|');
            stamp(&mut line, start);
            line.push('|');
            stamp(&mut line, end);
            let cpus = nodes * 32;
            line.push_str(&format!(
                "|{}|{}|0:0|1-00:00:00|{nodes}|{cpus}|{}G|billing={cpus},cpu={cpus},mem={}G,node={nodes}|\
                 billing={cpus},cpu={cpus},mem={}G,node={nodes}|n[{:04}-{:04}]|job{}\n",
                (end - start) / 3600,
                states[jobs % states.len()],
                nodes * 64,
                nodes * 64,
                nodes * 64,
                first,
                first + nodes - 1,
                jobs % 1000
            ));
            f.write_all(line.as_bytes())?;
            written += 1;
        }
        jobs += 1;
    }
    f.flush()?;
    Ok(jobs)
}

/// This thread's CPU time, seconds.
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to write.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn main() {
    let rows: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("ROWS is a number"))
        .unwrap_or(1_000_000);
    let dir = std::env::temp_dir().join(format!("jobsort-sacct-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join("sacct.txt");
    let t = Instant::now();
    let jobs = generate(&path, rows).expect("write the dump");
    let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!(
        "generated {rows} rows ({jobs} jobs, {:.0} MB) in {:.2} s",
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    let before = peak_rss_kb().unwrap_or(0);
    let (read, sacct) = (ReadOptions::default(), SacctOptions::default());
    let (t, cpu) = (Instant::now(), cpu_seconds());
    let file = std::fs::File::open(&path).expect("open the dump");
    let w = read_sacct(
        BufReader::with_capacity(1 << 16, file),
        "sacct.txt",
        read,
        &sacct,
    )
    .expect("read the dump");
    let (secs, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    println!(
        "streaming read: {} rows, {} jobs kept, {:.2} s ({:.2} s CPU): {:.2} M rows/s ({:.2} M \
         rows per CPU second), {:.0} MB/s; peak RSS {:.0} MB (before: {:.0} MB)",
        w.report.read,
        w.report.kept,
        secs,
        cpu,
        w.report.read as f64 / secs / 1e6,
        w.report.read as f64 / cpu / 1e6,
        bytes as f64 / secs / 1e6,
        peak_rss_kb().unwrap_or(0) as f64 / 1024.0,
        before as f64 / 1024.0
    );
    drop(w);
    let text = std::fs::read_to_string(&path).expect("read the dump");
    let (t, cpu) = (Instant::now(), cpu_seconds());
    let w = parse_sacct(&text, "sacct.txt", read, &sacct).expect("parse the dump");
    let (secs, cpu) = (t.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    println!(
        "in memory: {} rows in {:.2} s ({:.2} s CPU): {:.2} M rows/s ({:.2} M rows per CPU \
         second)",
        w.report.read,
        secs,
        cpu,
        w.report.read as f64 / secs / 1e6,
        w.report.read as f64 / cpu / 1e6
    );
    let _ = std::fs::remove_dir_all(&dir);
}
