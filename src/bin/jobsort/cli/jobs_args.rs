//! Job-file options shared by `eval` and `rank`: the file (`-` for stdin), its format, and
//! `--strict`.

use super::input::{InputPath, take_stdin};
use super::report::{Failure, note, warn};
use super::schedule_args::{SacctArgs, dropped_table, trace_options};
use jobsort::Catalog;
use jobsort::jobs::JobSet;
use jobsort::jobs::load::{JobFormat, NotRanked};
use jobsort::sim::TraceFormat;
use jobsort::sim::job_rows::{RowsFormat, load_job_rows, read_job_rows};

#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobsFormatArg {
    /// From the extension, then the content.
    Auto,
    /// A JSON array of jobs (or `{"jobs": [...]}`).
    Json,
    /// One JSON object per line.
    Jsonl,
    /// CSV with a header row.
    Csv,
    /// `qstat -f -F json` output.
    Qstat,
    /// Standard Workload Format trace (plain or gzip).
    Swf,
    /// Slurm `sacct --parsable2` output.
    Sacct,
    /// PBS accounting logs (a file, or a directory of them).
    PbsAccounting,
    /// `flux jobs --json` or `flux job list` output.
    Flux,
}

#[derive(clap::Args, Debug, Clone)]
pub struct JobsArgs {
    /// Job file (`-` for stdin): JSON array, JSON lines, CSV with a header, `qstat -f -F json`
    /// output, or any trace or site log `sim --trace` reads (SWF, sacct -P, PBS accounting
    /// logs or their directory, Flux job lists; plain or gzip), told apart by content.
    /// Fields are described in docs/formats.md.
    #[arg(long, value_name = "FILE", required = true)]
    pub jobs: Option<InputPath>,
    /// Job file format (default: from the extension and content).
    #[arg(long, value_enum, default_value = "auto", value_name = "FORMAT")]
    pub jobs_format: JobsFormatArg,
    /// A job field that is no PBS keyword, resource or job attribute (a misspelling such as
    /// `ncpu`) is an error, not a warning.
    #[arg(long)]
    pub strict: bool,
    /// Rank every job of `qstat -f -F json` or `squeue --json` output, whatever its state
    /// (default: only the jobs the scheduler sorts — PBS: queued; Slurm: those sprio lists —
    /// and the others listed with why not).
    #[arg(long)]
    pub all: bool,
    /// Read inputs as their scheduler does where that differs from what they say, with
    /// warnings: bad records of a trace or site log given as `--jobs` (an SWF file's lines, a
    /// sacct dump's or a PBS accounting log's records) skipped and counted per reason, as
    /// `sim --lenient` does; the resource_group and usage file read as PBS does (bad lines
    /// and records skipped, long lines split, big shares wrapped), as `fairshare --lenient`
    /// does
    #[arg(long)]
    pub lenient: bool,
    /// With a trace or site log as `--jobs`: after the note of the jobs it drops, list each
    /// on stderr with its reason (`id  reason`; a bad record skipped with --lenient as `line
    /// N`), as `sim --list-dropped` does
    #[arg(long = "list-dropped")]
    pub list_dropped: bool,
    #[command(flatten)]
    pub sacct: SacctArgs,
}

impl JobsArgs {
    /// The job file. `--jobs` is required wherever these flags are, except by `rank
    /// --snapshot DIR`, which reads no job file.
    pub fn path(&self) -> Result<&InputPath, Failure> {
        self.jobs
            .as_ref()
            .ok_or_else(|| Failure::usage("no job file given (--jobs FILE)"))
    }

    /// The jobs of the file, keeping the numeric `columns` (the formula's inputs), whatever
    /// its format: job files as they are, traces and site logs bound as the simulator binds
    /// a job at its submission ([`jobsort::sim::job_rows`]; the jobs their conventions drop
    /// are noted). Unknown fields are warnings (errors under `--strict`), and so is a file
    /// without jobs.
    pub fn load(&self, catalog: &Catalog, columns: Option<&[&str]>) -> Result<JobSet, Failure> {
        let format = match self.jobs_format {
            JobsFormatArg::Auto => RowsFormat::Auto,
            JobsFormatArg::Json => RowsFormat::Jobs(JobFormat::Json),
            JobsFormatArg::Jsonl => RowsFormat::Jobs(JobFormat::JsonLines),
            JobsFormatArg::Csv => RowsFormat::Jobs(JobFormat::Csv),
            JobsFormatArg::Qstat => RowsFormat::Jobs(JobFormat::Qstat),
            JobsFormatArg::Swf => RowsFormat::Trace(TraceFormat::Swf),
            JobsFormatArg::Sacct => RowsFormat::Trace(TraceFormat::Sacct),
            JobsFormatArg::PbsAccounting => RowsFormat::Trace(TraceFormat::PbsAccounting),
            JobsFormatArg::Flux => RowsFormat::Trace(TraceFormat::FluxJobs),
        };
        let options = trace_options(self.lenient, &self.sacct);
        let path = self.path()?;
        let rows = match path {
            InputPath::File(path) => load_job_rows(path, format, catalog, columns, &options),
            InputPath::Stdin => {
                take_stdin()?;
                let stdin = std::io::stdin().lock();
                read_job_rows(stdin, "<stdin>", format, catalog, columns, &options)
            }
        }
        .map_err(Failure::invalid)?;
        if let Some((_, report)) = &rows.workload
            && report.records_skipped.values().sum::<usize>() > 0
        {
            let skipped: Vec<String> = report
                .records_skipped
                .iter()
                .map(|(r, n)| format!("{n} ({r})"))
                .collect();
            note(&format!("records skipped: {}", skipped.join(", ")));
        }
        if let Some((_, report)) = &rows.workload
            && report.dropped_total() > 0
        {
            let reasons: Vec<String> = report
                .dropped
                .iter()
                .map(|(r, n)| format!("{n} ({r})"))
                .collect();
            note(&format!(
                "{} of {} trace jobs dropped: {}",
                report.dropped_total(),
                report.read,
                reasons.join(", ")
            ));
            if self.list_dropped {
                eprint!("{}", dropped_table(report));
            }
        }
        let file = rows.file;
        if let Some(first) = file.unknown.first()
            && self.strict
        {
            return Err(Failure::invalid(format!("{first} (--strict)")));
        }
        for field in &file.unknown {
            warn(&field.to_string());
        }
        let jobs = file.jobs;
        if jobs.is_empty() {
            warn(&format!("{}: no jobs read", path.name()));
        }
        Ok(jobs)
    }

    /// The jobs of the file as [`load`](Self::load) reads them, without those the
    /// scheduler would not sort (unless `--all`): those are returned with why, when the file
    /// gives job states (`qstat -f -F json`); `None` when it gives none or under `--all`.
    pub fn load_sorted(
        &self,
        catalog: &Catalog,
        columns: Option<&[&str]>,
    ) -> Result<(JobSet, Option<Vec<NotRanked>>), Failure> {
        let mut jobs = self.load(catalog, columns)?;
        let not_ranked = (!self.all && jobs.has_states()).then(|| jobs.take_not_ranked());
        Ok((jobs, not_ranked))
    }
}
