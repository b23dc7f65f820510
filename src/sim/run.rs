//! One call to simulate a workload: scheduler + optional recording + metrics.

use super::metrics::{self, Metrics, ShareRow};
use super::priority::Priority;
use super::record::{Header, Recorder, TraceInfo};
use super::scheduler::{SimConfig, SimError, SimOutcome, Simulator, plain};
use super::setup::{Setup, SetupError};
use crate::workload::Workload;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// The result of one simulation run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// Formula text (`None`: first come, first served).
    pub formula: Option<String>,
    pub config: SimConfig,
    /// Jobs simulated.
    pub jobs: usize,
    /// Jobs dropped while loading.
    pub dropped: usize,
    /// Jobs that never started (e.g. under the threshold or held forever).
    pub never_started: usize,
    pub metrics: Metrics,
    /// Delivered vs target share per fairshare entity (per user without fairshare, with equal
    /// targets).
    pub shares: Vec<ShareRow>,
    pub outcome: SimOutcome,
}

/// An error running a simulation.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Setup(#[from] SetupError),
    #[error(transparent)]
    Sim(#[from] SimError),
    /// [`RunOptions::cancel`] was set: the run stopped between two rounds.
    #[error("the simulation was cancelled")]
    Cancelled,
    /// Writing the recording failed: its path, the error's text and kind (a reader that
    /// closed the pipe it reads is `BrokenPipe`).
    #[error("{path}: {message}")]
    Io {
        path: String,
        message: String,
        kind: std::io::ErrorKind,
    },
}

/// What to do besides simulating.
#[derive(Default)]
pub struct RunOptions<'a> {
    /// Write a recording to this file (streamed, flushed each round; a regular file is also
    /// synced to disk at the end, a pipe, FIFO or terminal is only written).
    pub record: Option<&'a Path>,
    /// List the ranked queue (ids and formula values) in every recorded round
    /// (`sim --record-queue`; the round's hash covers it either way).
    pub record_queue: bool,
    /// Keep the queue-length series (for plots).
    pub series: bool,
    /// Called every 1024 rounds with (jobs submitted so far, total jobs).
    pub progress: Option<&'a (dyn Fn(usize, usize) + Sync)>,
    /// Checked between rounds: once set (by another thread, say on Ctrl-C), the run stops
    /// with [`RunError::Cancelled`].
    pub cancel: Option<&'a AtomicBool>,
}

/// Where a recording goes: the file as it is, or gzip-compressed when its name ends in `.gz`
/// (each round's flush is a gzip sync flush, so a cut file still decodes to its last round).
// One per run: the gzip state's size does not matter.
#[allow(clippy::large_enum_variant)]
enum RecordSink<W: Write> {
    Plain(W),
    Gzip(flate2::write::GzEncoder<W>),
}

impl<W: Write> RecordSink<W> {
    fn new(out: W, path: &Path) -> RecordSink<W> {
        if path.extension().is_some_and(|e| e == "gz") {
            RecordSink::Gzip(flate2::write::GzEncoder::new(
                out,
                flate2::Compression::default(),
            ))
        } else {
            RecordSink::Plain(out)
        }
    }

    /// The sink, with the gzip trailer written.
    fn finish(self) -> std::io::Result<W> {
        match self {
            RecordSink::Plain(w) => Ok(w),
            RecordSink::Gzip(g) => g.finish(),
        }
    }
}

impl<W: Write> Write for RecordSink<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            RecordSink::Plain(w) => w.write(buf),
            RecordSink::Gzip(g) => g.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            RecordSink::Plain(w) => w.flush(),
            RecordSink::Gzip(g) => g.flush(),
        }
    }
}

/// The trace description recorded in a header.
pub fn trace_info(w: &Workload) -> TraceInfo {
    TraceInfo {
        name: w.name.clone(),
        sha256: w.sha256.clone(),
        jobs: w.jobs.len(),
        dropped: w.report.dropped.clone(),
    }
}

/// Simulate `w` under `config` and `formula` (one run: [`simulate_setup`] runs several from
/// one [`Setup`]).
pub fn simulate(
    w: &Workload,
    config: &SimConfig,
    formula: Option<&dyn Priority>,
    opts: &RunOptions<'_>,
) -> Result<RunResult, RunError> {
    simulate_setup(w, &Setup::new(config, &w.jobs)?, formula, opts)
}

/// Simulate `w` from `setup` (built for `w`'s jobs) under `formula`.
pub fn simulate_setup(
    w: &Workload,
    setup: &Setup,
    formula: Option<&dyn Priority>,
    opts: &RunOptions<'_>,
) -> Result<RunResult, RunError> {
    let config = setup.config();
    let total = w.jobs.len();
    // First come, first served on counted cores, with nothing reading the rounds: the
    // plain loop gives the same schedule (`scheduler/plain.rs`, `tests/it/sim_plain.rs`).
    let rounds_read = opts.record.is_some() || opts.series;
    if plain::applies(setup, formula, rounds_read)
        && let Some(outcome) = plain::run(&w.jobs, setup)?
    {
        if let Some(cb) = opts.progress {
            cb(total, total);
        }
        return Ok(result(w, config, None, outcome));
    }
    let mut sim = Simulator::new(&w.jobs, setup, formula)?
        .with_hashing(opts.record.is_some())
        .with_full_rounds(opts.record.is_some())
        .with_series(opts.series);
    let io_err = |p: &Path, e: std::io::Error| RunError::Io {
        path: p.display().to_string(),
        message: e.to_string(),
        kind: e.kind(),
    };
    let mut recorder = match opts.record {
        Some(p) => {
            let f = std::fs::File::create(p).map_err(|e| io_err(p, e))?;
            // A pipe, FIFO or terminal is a stream: nothing to make durable.
            let regular = f.metadata().map_err(|e| io_err(p, e))?.is_file();
            let header = Header::new(trace_info(w), formula.map(|f| f.source()), config)
                .with_queue(opts.record_queue)
                .with_machine(setup.machine());
            let sink = RecordSink::new(BufWriter::new(f), p);
            Some((
                Recorder::new(sink, &header).map_err(|e| io_err(p, e))?,
                p,
                regular,
            ))
        }
        None => None,
    };
    while let Some(round) = sim.step() {
        if opts.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Err(RunError::Cancelled);
        }
        if let Some((rec, p, _)) = recorder.as_mut() {
            rec.round(&w.jobs, round).map_err(|e| io_err(p, e))?;
        }
        if let Some(cb) = opts.progress
            && round.number % 1024 == 0
        {
            cb(sim.submitted(), total);
        }
    }
    if let Some((rec, p, regular)) = recorder {
        let mut f = rec
            .into_inner()
            .finish()
            .map_err(|e| io_err(p, e))?
            .into_inner()
            .map_err(|e| io_err(p, e.into_error()))?;
        f.flush().map_err(|e| io_err(p, e))?;
        if regular {
            f.sync_all().map_err(|e| io_err(p, e))?;
        }
    }
    if let Some(cb) = opts.progress {
        cb(total, total);
    }
    let outcome = sim.finish();
    Ok(result(
        w,
        config,
        formula.map(|f| f.source().to_string()),
        outcome,
    ))
}

/// Metrics and shares of a finished simulation.
pub fn result(
    w: &Workload,
    config: &SimConfig,
    formula: Option<String>,
    outcome: SimOutcome,
) -> RunResult {
    let (user_of, users) = metrics::users(&w.jobs);
    let (m, user_shares) = metrics::compute_with_user_shares(
        &w.jobs,
        &outcome.start,
        &outcome.end,
        outcome.capacity,
        &user_of,
        &users,
    );
    let shares = match (&outcome.tree, &outcome.leaves) {
        (Some(tree), Some(leaves)) => {
            let names: Vec<&str> = (0..tree.len() as u32).map(|i| tree.name(i)).collect();
            let target: Vec<f64> = (0..tree.len() as u32).map(|i| tree.target(i)).collect();
            metrics::shares(
                &w.jobs,
                &outcome.start,
                &outcome.end,
                leaves,
                &names,
                &target,
            )
        }
        // Per user, equal targets: from the metrics' own pass.
        _ => user_shares,
    };
    RunResult {
        formula,
        config: config.clone(),
        jobs: w.jobs.len(),
        dropped: w.report.dropped_total(),
        never_started: outcome.start.iter().filter(|s| s.is_none()).count(),
        metrics: m,
        shares,
        outcome,
    }
}
