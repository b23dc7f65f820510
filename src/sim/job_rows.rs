//! Job rows (`rank`, `eval`, Python's `load_jobs`) from any job-bearing input, by the one
//! format rule ([`crate::workload::detect`]): job files (a JSON job list, JSON lines, CSV,
//! `qstat -f -F json`) through `jobs::load`, which keeps every column they give; traces and
//! site logs (SWF, sacct dumps, Flux job lists, PBS accounting logs, plain or gzip) through
//! the workload readers `sim --trace` uses, each job bound as the simulator binds it when the
//! job is submitted ([`values_at_submit`]). So a file means one thing in every subcommand.

use super::inputs::values_at_submit;
use crate::catalog::Catalog;
use crate::jobs::load::{JobFile, JobFileError, JobFormat, load_jobs, read_jobs};
use crate::jobs::{Job, JobSet, JobSetBuilder};
use crate::workload::{
    LoadReport, TraceFormat, TraceOptions, TraceText, Workload, WorkloadError, detect,
    load_workload_with, read_trace,
};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// How a job-bearing input is read: as a job file of a format, as a trace or site log of a
/// format, or by its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RowsFormat {
    /// [`detect`] decides (a `.json`/`.jsonl`/`.csv` name is a hint).
    #[default]
    Auto,
    /// A job file of this format.
    Jobs(JobFormat),
    /// A trace or site log of this format.
    Trace(TraceFormat),
}

/// The jobs of an input as rows, and what was read.
#[derive(Debug, Clone, Default)]
pub struct JobRows {
    /// The rows and the fields no formula reads (none for a trace or a site log: their
    /// readers know every field they read).
    pub file: JobFile,
    /// For a trace or site log: its format and the load report (jobs dropped, by reason).
    pub workload: Option<(TraceFormat, LoadReport)>,
}

/// A job-bearing input that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum JobRowsError {
    #[error(transparent)]
    Jobs(#[from] JobFileError),
    #[error(transparent)]
    Workload(#[from] WorkloadError),
}

/// How much of an input's start [`detect`] sees.
const HEAD: usize = 64 << 10;

/// The rows of a file (a directory: PBS accounting logs; a pipe is read as a stream, once).
/// `columns`: the numeric columns to keep (all when `None`); `options`: how a trace or site
/// log is read.
pub fn load_job_rows(
    path: &Path,
    format: RowsFormat,
    catalog: &Catalog,
    columns: Option<&[&str]>,
    options: &TraceOptions,
) -> Result<JobRows, JobRowsError> {
    let trace = |format: Option<TraceFormat>| -> Result<JobRows, JobRowsError> {
        let options = TraceOptions {
            format,
            ..options.clone()
        };
        let (w, format) = load_workload_with(path, &options, None)?;
        Ok(rows_of(w, format, catalog, columns))
    };
    match format {
        RowsFormat::Jobs(f) => Ok(rows(load_jobs(path, f, catalog, columns)?)),
        RowsFormat::Trace(f) => trace(Some(f)),
        RowsFormat::Auto if path.is_dir() => trace(None),
        RowsFormat::Auto => {
            let name = path.display().to_string();
            let file = std::fs::File::open(path).map_err(|e| JobFileError::Io {
                path: name.clone(),
                source: e,
            })?;
            // A pipe (`--jobs <(zcat trace.gz)`) gives its bytes once: read it as a stream,
            // not its start here and then the file again.
            if !file.metadata().is_ok_and(|m| m.is_file()) {
                return read_job_rows(file, &name, format, catalog, columns, options);
            }
            let mut reader = BufReader::with_capacity(HEAD, file);
            let head = reader.fill_buf().map_err(|e| JobFileError::Io {
                path: name.clone(),
                source: e,
            })?;
            let file_name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            match job_file_format(&file_name, head) {
                Some(_) => Ok(rows(load_jobs(path, JobFormat::Auto, catalog, columns)?)),
                None => trace(None),
            }
        }
    }
}

/// The rows of a stream (stdin) as [`load_job_rows`] reads a file; `name` names it in errors.
pub fn read_job_rows(
    reader: impl Read,
    name: &str,
    format: RowsFormat,
    catalog: &Catalog,
    columns: Option<&[&str]>,
    options: &TraceOptions,
) -> Result<JobRows, JobRowsError> {
    let mut reader = BufReader::with_capacity(HEAD, reader);
    let trace = |reader: BufReader<_>, format: Option<TraceFormat>| {
        let options = TraceOptions {
            format,
            ..options.clone()
        };
        let text = TraceText::new(reader, name, 0)?;
        let (w, format) = read_trace(text, name, name, &options)?;
        Ok(rows_of(w, format, catalog, columns))
    };
    let format = match format {
        RowsFormat::Auto => {
            // Fill the buffer as far as the stream gives at once, up to HEAD bytes.
            let head = reader.fill_buf().map_err(|e| JobFileError::Io {
                path: name.to_string(),
                source: e,
            })?;
            match job_file_format(name, head) {
                Some(f) => RowsFormat::Jobs(f),
                None => return trace(reader, None),
            }
        }
        f => f,
    };
    match format {
        RowsFormat::Trace(f) => trace(reader, Some(f)),
        RowsFormat::Jobs(f) => Ok(rows(read_jobs(reader, name, f, catalog, columns)?)),
        RowsFormat::Auto => unreachable!("decided above"),
    }
}

/// Whether an input whose name is `name` and whose bytes start with `head` is a job file
/// (and of which format `jobs::load` should read it: `Auto` lets it tell JSON kinds and CSV
/// apart), or `None` for a trace or site log. Gzip bytes are a trace's; so is any text the
/// format rule calls SWF, sacct, Flux or a PBS accounting log. A text it cannot place is read
/// as a job file: `jobs::load` then says what it found (a one-column CSV has no comma).
fn job_file_format(name: &str, head: &[u8]) -> Option<JobFormat> {
    if head.starts_with(&[0x1f, 0x8b]) {
        return None;
    }
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        // Cut inside a character at the end of the head, or not UTF-8 at all (the job file
        // reader then says so, at its byte).
        Err(e) if e.valid_up_to() > 0 => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
        Err(_) => return Some(JobFormat::Auto),
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match detect(name, text) {
        Some(TraceFormat::Json(_) | TraceFormat::Csv) | None => Some(JobFormat::Auto),
        Some(TraceFormat::Swf | TraceFormat::Sacct | TraceFormat::FluxJobs)
        | Some(TraceFormat::PbsAccounting) => None,
    }
}

fn rows(file: JobFile) -> JobRows {
    JobRows {
        file,
        workload: None,
    }
}

/// A workload's jobs as rows: the inputs the simulator binds at submission, user, group,
/// account and queue, the submission time as the submission order.
fn rows_of(
    w: Workload,
    format: TraceFormat,
    catalog: &Catalog,
    columns: Option<&[&str]>,
) -> JobRows {
    let mut jobs = JobSetBuilder::new(columns);
    for j in &w.jobs {
        let mut job = Job::new(j.id.as_str());
        job.values.extend(values_at_submit(j, catalog));
        job.user = Some(j.user.as_str().to_string());
        job.group = Some(j.group.as_str().to_string());
        job.queue = Some(j.queue.as_str().to_string());
        let account = j.account().as_str();
        if !account.is_empty() {
            job.account = Some(account.to_string());
        }
        job.submit = Some(j.submit as f64);
        jobs.push(&job);
    }
    JobRows {
        file: JobFile {
            jobs: jobs.finish(),
            unknown: Vec::new(),
        },
        workload: Some((format, w.report)),
    }
}

/// Every input of a set of rows that came from a job file has a [`JobSet`]; this is the
/// rows' jobs.
impl JobRows {
    pub fn jobs(&self) -> &JobSet {
        &self.file.jobs
    }
}
