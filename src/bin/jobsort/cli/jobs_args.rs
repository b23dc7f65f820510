//! Job-file options shared by `eval` and `rank`, and the output helpers they share.

use jobsort::Catalog;
use jobsort::jobs::Job;
use jobsort::jobs::load::{JobFormat, load_jobs};
use std::path::PathBuf;

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobsFormatArg {
    Auto,
    Json,
    Jsonl,
    Csv,
    Qstat,
    /// Standard Workload Format trace (plain or gzip).
    Swf,
}

#[derive(clap::Args, Debug, Clone)]
pub struct JobsArgs {
    /// Job file: JSON array, JSON lines, CSV with a header, `qstat -f -F json` output, or an
    /// SWF trace (`.swf`, `.swf.gz`).
    #[arg(long, value_name = "FILE")]
    pub jobs: PathBuf,
    /// Job file format (default: from the extension and content).
    #[arg(long, value_enum, default_value = "auto", value_name = "FORMAT")]
    pub jobs_format: JobsFormatArg,
}

impl JobsArgs {
    pub fn load(&self, catalog: &Catalog) -> Result<Vec<Job>, String> {
        let name = self.jobs.to_string_lossy().to_ascii_lowercase();
        if self.jobs_format == JobsFormatArg::Swf
            || (self.jobs_format == JobsFormatArg::Auto
                && (name.ends_with(".swf") || name.ends_with(".swf.gz")))
        {
            return load_swf_jobs(&self.jobs, catalog);
        }
        let format = match self.jobs_format {
            JobsFormatArg::Auto => JobFormat::Auto,
            JobsFormatArg::Json => JobFormat::Json,
            JobsFormatArg::Jsonl => JobFormat::JsonLines,
            JobsFormatArg::Csv => JobFormat::Csv,
            JobsFormatArg::Qstat => JobFormat::Qstat,
            JobsFormatArg::Swf => unreachable!("handled above"),
        };
        load_jobs(&self.jobs, format, catalog).map_err(|e| e.to_string())
    }
}

/// Jobs of an SWF trace as formula inputs, bound as the simulator binds them when the job is
/// submitted ([`jobsort::sim::inputs::values_at_submit`]: `ncpus` = processors, `walltime` =
/// requested time, `mem` = requested memory (KB), `accrue_type` = 2, `job_priority` = 0, ...),
/// user `u<N>`, group `g<N>`, submission order = submit time. Jobs the trace conventions drop
/// (run time <= 0, no processors) are reported on stderr.
fn load_swf_jobs(path: &std::path::Path, catalog: &Catalog) -> Result<Vec<Job>, String> {
    let workload = jobsort::sim::swf::load_swf(path).map_err(|e| e.to_string())?;
    let report = &workload.report;
    if report.dropped_total() > 0 {
        let reasons: Vec<String> = report
            .dropped
            .iter()
            .map(|(r, n)| format!("{n} ({r})"))
            .collect();
        eprintln!(
            "jobsort: note: {} of {} trace jobs dropped: {}",
            report.dropped_total(),
            report.read,
            reasons.join(", ")
        );
    }
    Ok(workload
        .jobs
        .into_iter()
        .map(|j| {
            let mut job = Job::new(j.id.clone());
            job.values
                .extend(jobsort::sim::inputs::values_at_submit(&j, catalog));
            job.user = Some(j.user);
            job.group = Some(j.group);
            job.queue = Some(j.queue);
            job.submit = Some(j.submit as f64);
            job
        })
        .collect())
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineArg {
    Jit,
    Interp,
}

impl From<EngineArg> for jobsort::Engine {
    fn from(e: EngineArg) -> jobsort::Engine {
        match e {
            EngineArg::Jit => jobsort::Engine::Jit,
            EngineArg::Interp => jobsort::Engine::Interp,
        }
    }
}

/// Compile and evaluation options shared by `eval` and `rank`.
#[derive(clap::Args, Debug, Clone)]
pub struct EvalOpts {
    /// Evaluation engine.
    #[arg(long, value_enum, default_value = "jit")]
    pub engine: EngineArg,
    /// Reproduce PBS's numeric quirks: inputs rounded as PBS passes them, results stored as
    /// 32-bit floats.
    #[arg(long, value_enum)]
    pub compat: Option<super::check::Compat>,
    /// Treat warnings as errors.
    #[arg(long)]
    pub deny_warnings: bool,
}

impl EvalOpts {
    pub fn compile_options(&self) -> jobsort::CompileOptions {
        jobsort::CompileOptions {
            engine: self.engine.into(),
            compat_pbs: self.compat == Some(super::check::Compat::Pbs),
            deny_warnings: self.deny_warnings,
        }
    }
}

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    Table,
    Json,
    Csv,
}

/// A value as a person reads it: the shortest text that round-trips.
pub fn show_value(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e16 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// Print rows as an aligned table; numeric columns (by `right`) are right-aligned.
pub fn print_table(header: &[&str], right: &[bool], rows: &[Vec<String>]) {
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut out = String::new();
        for (i, cell) in cells.iter().enumerate() {
            let pad = width[i].saturating_sub(cell.chars().count());
            let last = i + 1 == cells.len();
            if right.get(i).copied().unwrap_or(false) {
                out.push_str(&" ".repeat(pad));
                out.push_str(cell);
            } else {
                out.push_str(cell);
                if !last {
                    out.push_str(&" ".repeat(pad));
                }
            }
            if !last {
                out.push_str("  ");
            }
        }
        println!("{}", out.trim_end());
    };
    line(header.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
}

/// Print rows as CSV on stdout.
pub fn print_csv(header: &[&str], rows: &[Vec<String>]) -> Result<(), String> {
    let mut w = csv::Writer::from_writer(std::io::stdout());
    w.write_record(header).map_err(|e| e.to_string())?;
    for row in rows {
        w.write_record(row).map_err(|e| e.to_string())?;
    }
    w.flush().map_err(|e| e.to_string())
}
