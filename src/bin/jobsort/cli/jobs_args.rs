//! Job-file options shared by `eval` and `rank`: the file (`-` for stdin), its format, and
//! `--strict`.

use super::input::{InputPath, take_stdin};
use super::report::{Failure, note, warn};
use jobsort::Catalog;
use jobsort::jobs::load::{JobFile, JobFormat, NotRanked, load_jobs, read_jobs};
use jobsort::jobs::{Job, JobSet, JobSetBuilder};

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
}

#[derive(clap::Args, Debug, Clone)]
pub struct JobsArgs {
    /// Job file (`-` for stdin): JSON array, JSON lines, CSV with a header, `qstat -f -F json`
    /// output, or an SWF trace (`.swf`, `.swf.gz`). Fields are described in the README.
    #[arg(long, value_name = "FILE")]
    pub jobs: InputPath,
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
}

impl JobsArgs {
    /// The jobs of the file, keeping the numeric `columns` (the formula's inputs). Unknown
    /// fields are warnings (errors under `--strict`), and so is a file without jobs.
    /// The jobs, keeping only `columns` (`None`: every column).
    pub fn load(&self, catalog: &Catalog, columns: Option<&[&str]>) -> Result<JobSet, Failure> {
        let swf_name = self.jobs.file().is_some_and(|p| {
            let name = p.to_string_lossy().to_ascii_lowercase();
            name.ends_with(".swf") || name.ends_with(".swf.gz")
        });
        let format = match self.jobs_format {
            JobsFormatArg::Swf => None,
            JobsFormatArg::Auto if swf_name => None,
            JobsFormatArg::Auto => Some(JobFormat::Auto),
            JobsFormatArg::Json => Some(JobFormat::Json),
            JobsFormatArg::Jsonl => Some(JobFormat::JsonLines),
            JobsFormatArg::Csv => Some(JobFormat::Csv),
            JobsFormatArg::Qstat => Some(JobFormat::Qstat),
        };
        let jobs = match format {
            None => self.load_swf(catalog, columns)?,
            Some(format) => {
                let file = self.load_job_file(format, catalog, columns)?;
                if let Some(first) = file.unknown.first()
                    && self.strict
                {
                    return Err(Failure::invalid(format!("{first} (--strict)")));
                }
                for field in &file.unknown {
                    warn(&field.to_string());
                }
                file.jobs
            }
        };
        if jobs.is_empty() {
            warn(&format!("{}: no jobs read", self.jobs.name()));
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

    fn load_job_file(
        &self,
        format: JobFormat,
        catalog: &Catalog,
        columns: Option<&[&str]>,
    ) -> Result<JobFile, Failure> {
        match &self.jobs {
            InputPath::File(path) => load_jobs(path, format, catalog, columns),
            InputPath::Stdin => {
                take_stdin()?;
                read_jobs(std::io::stdin().lock(), "<stdin>", format, catalog, columns)
            }
        }
        .map_err(Failure::invalid)
    }

    /// Jobs of an SWF trace as formula inputs, bound as the simulator binds them when the job
    /// is submitted ([`jobsort::sim::inputs::values_at_submit`]: `ncpus` = processors,
    /// `walltime` = requested time, `mem` = requested memory (KB), `accrue_type` = 2,
    /// `job_priority` = 0, ...), user `u<N>`, group `g<N>`, submission order = submit time.
    /// Jobs the trace conventions drop (run time <= 0, no processors) are noted.
    fn load_swf(&self, catalog: &Catalog, columns: Option<&[&str]>) -> Result<JobSet, Failure> {
        let workload = match &self.jobs {
            InputPath::File(path) => jobsort::sim::swf::load_swf(path),
            InputPath::Stdin => {
                let path = self.jobs.open_path()?;
                let stdin = std::fs::File::open(&path)
                    .map_err(|e| Failure::invalid(format!("<stdin>: cannot read: {e}")))?;
                jobsort::sim::workload::TraceText::new(stdin, "<stdin>", 0)
                    .and_then(|mut text| jobsort::sim::swf::read_swf(&mut text, "<stdin>"))
            }
        }
        .map_err(Failure::invalid)?;
        let report = &workload.report;
        if report.dropped_total() > 0 {
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
        }
        let mut jobs = JobSetBuilder::new(columns);
        for j in workload.jobs {
            let mut job = Job::new(j.id.clone());
            job.values
                .extend(jobsort::sim::inputs::values_at_submit(&j, catalog));
            job.user = Some(j.user.into());
            job.group = Some(j.group.into());
            job.queue = Some(j.queue.into());
            job.submit = Some(j.submit as f64);
            jobs.push(&job);
        }
        Ok(jobs.finish())
    }
}
