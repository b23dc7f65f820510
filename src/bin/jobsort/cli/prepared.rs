//! The shared first half of `eval` and `rank`: compile the formula, load the jobs, fill
//! fairshare keywords (and Slurm's or flux's factors), evaluate. Diagnostics and warnings go
//! to stderr here.

use super::fairshare_opts::FairshareOpts;
use super::formula_args::{CompileArgs, FormulaArgs};
use super::jobs_args::JobsArgs;
use super::report::{Failure, error, warn};
use super::slurm_args::{SlurmJobArgs, SlurmView};
use jobsort::catalog::{Input, Keyword};
use jobsort::jobs::JobSet;
use jobsort::jobs::load::NotRanked;
use jobsort::{CompiledFormula, Evaluation};

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
    pub compile: CompileArgs,
    #[command(flatten)]
    pub slurm: SlurmJobArgs,
}

pub struct Prepared {
    pub compiled: CompiledFormula,
    pub jobs: JobSet,
    pub evaluation: Evaluation,
    /// The fairshare tree the jobs' keywords came from, when one was given.
    pub fairshare: Option<jobsort::fairshare::inputs::Fairshare>,
    /// Under `--scheduler slurm --slurm-conf`: the multifactor configuration and each job's
    /// factors.
    pub slurm: Option<SlurmView>,
    /// The jobs of `qstat`/`squeue` output the scheduler would not sort, with why (not in
    /// `jobs`); `None` when the file gives no job states, or under `--all`.
    pub not_ranked: Option<Vec<NotRanked>>,
}

/// Whether jobs that all get the same value are a failure (`rank`: the order would say
/// nothing) or only worth a warning (`eval`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ties {
    Fail,
    Warn,
}

impl Prepared {
    pub fn new(args: &InputArgs, ties: Ties) -> Result<Prepared, Failure> {
        let InputArgs {
            formula,
            jobs,
            fairshare,
            compile,
            slurm,
        } = args;
        let (source, name) = formula.read()?;
        let catalog = formula.catalog()?;
        let compiled = compile.compile(&source, &name, &catalog)?;
        let columns: Vec<&str> = compiled.inputs().iter().map(Input::column).collect();
        let loaded = slurm.load(&formula.scheduler, jobs, &catalog, &columns)?;
        let (mut jobs, rows, not_ranked) = (loaded.jobs, loaded.rows, loaded.not_ranked);
        let (warnings, tree) = fairshare
            .apply_loaded(&mut jobs)
            .map_err(Failure::invalid)?;
        for warning in warnings {
            warn(&warning);
        }
        let slurm = slurm.fill(&formula.scheduler, &mut jobs, rows, tree.as_ref())?;
        if !jobs.is_empty() {
            check_absent_inputs(&compiled, &absent_inputs(&compiled, &jobs), ties)?;
        }
        let evaluation = compiled.evaluate(jobs.table());
        Ok(Prepared {
            compiled,
            jobs,
            evaluation,
            fairshare: tree,
            slurm,
            not_ranked,
        })
    }

    /// Per-job errors go to stderr (the job's value is 0, as in PBS).
    pub fn report_errors(&self) {
        let n = self.evaluation.error_count();
        if n > 0 {
            for i in 0..self.jobs.len() {
                if let Some(e) = self.evaluation.error(i) {
                    error(&format!(
                        "job {}: formula evaluation error, value 0 used: {}",
                        self.jobs.id(i),
                        e.message()
                    ));
                }
            }
            error(&format!(
                "{n} of {} jobs had evaluation errors",
                self.jobs.len()
            ));
        }
    }
}

/// The formula's inputs no job has (each reads 0 for every job).
fn absent_inputs<'a>(compiled: &'a CompiledFormula, jobs: &JobSet) -> Vec<&'a str> {
    compiled
        .inputs()
        .iter()
        .map(Input::column)
        .filter(|name| jobs.table().column(name).is_none())
        .collect()
}

/// The formula's fairshare keywords: without a fairshare tree they read 0 for every job.
pub fn fairshare_inputs(compiled: &CompiledFormula) -> Vec<&str> {
    compiled
        .inputs()
        .iter()
        .filter(|i| matches!(i, Input::Keyword(k) if k.is_fairshare()))
        .map(Input::name)
        .collect()
}

/// Say which inputs read the same value (0) for every job. When those are fairshare
/// keywords (no tree given) and the formula reads nothing else, every job ties: under
/// [`Ties::Fail`] that is an error.
pub fn check_absent_inputs(
    compiled: &CompiledFormula,
    absent: &[&str],
    ties: Ties,
) -> Result<(), Failure> {
    let (fairshare, others): (Vec<&str>, Vec<&str>) = absent
        .iter()
        .copied()
        .partition(|n| Keyword::from_name(n).is_some_and(Keyword::is_fairshare));
    if !fairshare.is_empty() && absent.len() == compiled.inputs().len() && ties == Ties::Fail {
        return Err(Failure::invalid(format!(
            "the formula reads only {} and no fairshare tree is given: every job would get \
             the same value (give a fairshare tree)",
            quoted(&fairshare)
        )));
    }
    if !fairshare.is_empty() {
        warn(&format!(
            "no fairshare tree is given: {} read{} 0 for every job",
            quoted(&fairshare),
            if fairshare.len() == 1 { "s" } else { "" }
        ));
    }
    for name in others {
        warn(&format!("no job has `{name}`: every job reads 0"));
    }
    Ok(())
}

/// `a`, `a` and `b`, `a`, `b` and `c`, each in backquotes.
pub fn quoted(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match q.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}
