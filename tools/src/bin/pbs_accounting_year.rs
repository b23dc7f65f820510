//! A year of PBS accounting logs, generated (`benches/pbs_log.rs`: one file per day, Q/S/E
//! per job, interleaved as a server writes them) into a temporary
//! `server_priv/accounting/`, then read as a workload: records/s on one core and the peak
//! memory. Not part of `cargo test`:
//!
//! ```sh
//! cargo run --release -p jobsort-tools --bin pbs_accounting_year            # 3 000 000 jobs
//! cargo run --release -p jobsort-tools --bin pbs_accounting_year -- 300000  # fewer
//! cargo run --release -p jobsort-tools --bin pbs_accounting_year -- 300000 DIR  # keep the logs in DIR
//! cargo run --release -p jobsort-tools --bin pbs_accounting_year -- 3000000 DIR gz  # gzip them (5 GB plain)
//! ```

use jobsort::sim::load_workload_with;
use std::io::Write;
use std::time::Instant;

#[path = "../../../benches/pbs_log.rs"]
mod pbs_log;

/// A file's text, inflated when it is gzip.
fn plain(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes.to_vec());
    }
    let mut text = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(bytes), &mut text)?;
    Ok(text)
}

/// The process's peak resident set (`VmHWM`, Linux), in MB.
fn max_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// CPU time this process has run, in seconds (`/proc/self/schedstat`, Linux): on a shared
/// machine the wall clock also counts the time others held the core.
fn cpu_seconds() -> f64 {
    std::fs::read_to_string("/proc/self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(f64::NAN, |ns| ns / 1e9)
}

/// Generate `jobs` jobs over 2024 into `dir`, a file per day (gzip, fastest level, when
/// `gz`): (records, bytes before compression).
fn generate_into(dir: &std::path::Path, jobs: u64, gz: bool) -> std::io::Result<(u64, u64)> {
    let t = Instant::now();
    let mut file: Option<(u64, Box<dyn Write>)> = None;
    let mut bytes = 0u64;
    let records = pbs_log::generate(jobs, 365, |day, line| {
        if file.as_ref().is_none_or(|(d, _)| *d != day) {
            if let Some((_, mut f)) = file.take() {
                f.flush()?;
            }
            let name = dir.join(format!("2024{:04}", 1000 + day));
            let f = std::io::BufWriter::new(std::fs::File::create(name)?);
            let out: Box<dyn Write> = if gz {
                Box::new(flate2::write::GzEncoder::new(
                    f,
                    flate2::Compression::fast(),
                ))
            } else {
                Box::new(f)
            };
            file = Some((day, out));
        }
        bytes += line.len() as u64;
        file.as_mut()
            .expect("opened above")
            .1
            .write_all(line.as_bytes())
    })?;
    if let Some((_, mut f)) = file.take() {
        f.flush()?;
    }
    println!(
        "generated {jobs} jobs, {records} records, {:.0} MB in {:.1} s",
        bytes as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    Ok((records, bytes))
}

fn main() -> std::io::Result<()> {
    let jobs: u64 = match std::env::args().nth(1) {
        Some(n) => n.parse().expect("the number of jobs"),
        None => 3_000_000,
    };
    let tmp = tempfile::tempdir()?;
    let dir = match std::env::args().nth(2) {
        Some(d) => std::path::PathBuf::from(d),
        None => tmp.path().join("accounting"),
    };
    let gz = std::env::args().nth(3).as_deref() == Some("gz");
    let exists = dir.read_dir().is_ok_and(|mut d| d.next().is_some());
    std::fs::create_dir_all(&dir)?;
    let (records, bytes) = if exists {
        // Logs kept from an earlier run: count what is there.
        let mut records = 0u64;
        let mut bytes = 0u64;
        for e in std::fs::read_dir(&dir)? {
            let text = plain(&std::fs::read(e?.path())?)?;
            bytes += text.len() as u64;
            records += text.iter().filter(|&&b| b == b'\n').count() as u64;
        }
        (records, bytes)
    } else {
        generate_into(&dir, jobs, gz)?
    };
    let files = std::fs::read_dir(&dir)?.count();
    println!(
        "{records} records in {files} files, {:.0} MB",
        bytes as f64 / 1e6
    );
    let rss_before = max_rss_mb().unwrap_or(0.0);
    let t = Instant::now();
    let cpu = cpu_seconds();
    let (w, _) = load_workload_with(&dir, &jobsort::sim::TraceOptions::default(), None)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let wall = t.elapsed().as_secs_f64();
    let secs = cpu_seconds() - cpu;
    assert_eq!(w.jobs.len() as u64, jobs);
    println!(
        "read {} jobs in {secs:.2} s of CPU ({wall:.2} s wall): {:.2} M records/s, {:.0} MB/s \
         per CPU second; cluster {:?} x {:?}",
        w.jobs.len(),
        records as f64 / secs / 1e6,
        bytes as f64 / secs / 1e6,
        w.machine.nodes,
        w.machine.cores
    );
    println!(
        "max RSS {:.0} MB (after generating: {rss_before:.0} MB); {} bytes of SimJob per job",
        max_rss_mb().unwrap_or(0.0),
        std::mem::size_of::<jobsort::sim::workload::SimJob>()
    );
    drop(w);
    in_memory(&dir)
}

/// The parse alone: the first days (up to 256 MB) one after the other in memory, parsed
/// as `parse_pbs_accounting` does (no file reads, no SHA-256 of the stored bytes), best of
/// three in CPU time.
fn in_memory(dir: &std::path::Path) -> std::io::Result<()> {
    let mut files: Vec<_> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    files.sort();
    let mut text = Vec::new();
    for f in files {
        if text.len() >= 256 << 20 {
            break;
        }
        text.extend_from_slice(&plain(&std::fs::read(f)?)?);
    }
    let records = text.iter().filter(|&&b| b == b'\n').count();
    let mut best = f64::INFINITY;
    let mut jobs = 0;
    for _ in 0..3 {
        let cpu = cpu_seconds();
        let w = jobsort::sim::workload::parse_pbs_accounting(
            &text,
            "generated",
            jobsort::sim::workload::ReadOptions::default(),
        )
        .map_err(|e| std::io::Error::other(e.to_string()))?;
        best = best.min(cpu_seconds() - cpu);
        jobs = w.jobs.len();
    }
    println!(
        "in memory: {records} records ({:.0} MB, {jobs} jobs ended) parsed in {best:.3} s of \
         CPU (best of 3): {:.2} M records/s",
        text.len() as f64 / 1e6,
        records as f64 / best / 1e6
    );
    Ok(())
}
