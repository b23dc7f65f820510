//! The shared first half of `eval` and `rank`: compile the formula, load the jobs, fill
//! fairshare keywords, evaluate. Diagnostics and load errors are printed here.

use super::fairshare_opts::FairshareOpts;
use super::formula_args::FormulaArgs;
use super::jobs_args::{EvalOpts, JobsArgs};
use jobsort::jobs::{Job, table_from_jobs};
use jobsort::{CompiledFormula, Evaluation, Formula};
use std::io::IsTerminal;
use std::process::ExitCode;

/// The inputs `eval` and `rank` share: the formula, the jobs, the fairshare tree, and how to
/// compile and evaluate.
#[derive(clap::Args, Debug)]
pub struct InputArgs {
    #[command(flatten)]
    pub formula: FormulaArgs,
    #[command(flatten)]
    pub jobs: JobsArgs,
    #[command(flatten)]
    pub fairshare: FairshareOpts,
    #[command(flatten)]
    pub eval: EvalOpts,
}

pub struct Prepared {
    pub compiled: CompiledFormula,
    pub jobs: Vec<Job>,
    pub evaluation: Evaluation,
    /// The fairshare tree the jobs' keywords came from, when one was given.
    pub fairshare: Option<jobsort::fairshare::inputs::Fairshare>,
}

/// Colour only on a terminal, and never under `NO_COLOR`.
pub fn stderr_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn fail(message: &str) -> ExitCode {
    eprintln!("jobsort: {message}");
    ExitCode::from(super::EXIT_INVALID)
}

impl Prepared {
    pub fn new(args: &InputArgs) -> Result<Prepared, ExitCode> {
        let InputArgs {
            formula,
            jobs,
            fairshare,
            eval,
        } = args;
        let source = formula.source().map_err(|e| fail(&e))?;
        let catalog = formula.catalog().map_err(|e| fail(&e))?;
        let options = eval.compile_options();
        let color = stderr_color();
        let compiled = match Formula::compile_with(&source, &catalog, &options) {
            Ok(c) => c,
            Err(diagnostics) => {
                eprint!(
                    "{}",
                    jobsort::formula::diag::render(
                        &source,
                        &formula.source_name(),
                        &diagnostics.0,
                        color
                    )
                );
                return Err(ExitCode::from(super::EXIT_INVALID));
            }
        };
        if !compiled.diagnostics().is_empty() {
            eprint!(
                "{}",
                jobsort::formula::diag::render(
                    &source,
                    &formula.source_name(),
                    compiled.diagnostics(),
                    color
                )
            );
        }
        let mut jobs = jobs.load(&catalog).map_err(|e| fail(&e))?;
        let (warnings, tree) = fairshare.apply_loaded(&mut jobs).map_err(|e| fail(&e))?;
        for warning in warnings {
            eprintln!("jobsort: warning: {warning}");
        }
        let table = table_from_jobs(&jobs, compiled.inputs());
        let evaluation = compiled.evaluate(&table);
        Ok(Prepared {
            compiled,
            jobs,
            evaluation,
            fairshare: tree,
        })
    }

    /// Per-job errors go to stderr (the job's value is 0, as in PBS).
    pub fn report_errors(&self) {
        let n = self.evaluation.error_count();
        if n > 0 {
            for (i, job) in self.jobs.iter().enumerate() {
                if let Some(e) = self.evaluation.error(i) {
                    eprintln!(
                        "jobsort: job {}: formula evaluation error, value 0 used: {}",
                        job.id,
                        e.message()
                    );
                }
            }
            eprintln!(
                "jobsort: {n} of {} jobs had evaluation errors",
                self.jobs.len()
            );
        }
    }
}
