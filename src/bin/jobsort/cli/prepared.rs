//! The shared first half of `eval` and `rank`: the site's configuration (flags win), compile
//! the formula, load the jobs, fill fairshare keywords and queue priorities (and Slurm's or
//! flux's factors), evaluate. Diagnostics and warnings go to stderr here.

use super::fairshare_opts::FairshareOpts;
use super::formula_args::{CompileArgs, FormulaArgs};
use super::input::one_stdin;
use super::jobs_args::JobsArgs;
use super::report::{Failure, error, warn};
use super::site_args::{Explained, PbsSiteArgs};
use super::slurm_args::{SlurmJobArgs, SlurmView};
use jobsort::catalog::{Input, Keyword};
use jobsort::jobs::JobSet;
use jobsort::jobs::load::NotRanked;
use jobsort::pbs::{Origin, PbsSite};
use jobsort::sim::settings::slurm_origin;
use jobsort::slurm::multifactor::Multifactor;
use jobsort::{Catalog, CompiledFormula, Evaluation};

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
    #[command(flatten)]
    pub site: PbsSiteArgs,
    /// Print the settings in effect and where each came from (flag, file:line, default),
    /// and exit without reading the jobs.
    #[arg(long)]
    pub explain_config: bool,
}

/// What the command line and the site's files say, before any job is read.
pub struct Resolved {
    /// The formula text and its name in diagnostics.
    pub source: String,
    pub name: String,
    /// The scheduler's catalog, the declared resources and the site's custom resources.
    pub catalog: Catalog,
    pub site: Option<PbsSite>,
    /// The fairshare options with the site's settings where no flag is given.
    pub fairshare: FairshareOpts,
    /// Every setting and where it came from, for `--explain-config`.
    pub explained: Explained,
}

impl InputArgs {
    /// The formula (FORMULA or `--file`, else the site's job_sort_formula), the catalog and
    /// the fairshare options, each flag winning over the site's files.
    pub fn resolve(&self) -> Result<Resolved, Failure> {
        one_stdin(std::iter::once(self.jobs.jobs.as_ref()).chain(self.site.inputs()))?;
        let site = self.site.read()?;
        let mut explained = Explained::default();
        let (source, name) = match site.as_ref().and_then(PbsSite::formula) {
            Some(f) if !self.formula.given() => {
                explained.add("job_sort_formula", &f.value, &f.origin);
                (f.value.clone(), format!("job_sort_formula at {}", f.origin))
            }
            // slurm.conf's multifactor priority ranks when no formula is given, as Slurm
            // ranks (and as `sim --slurm-conf` does).
            _ if !self.formula.given()
                && let Some(conf) = self.formula.scheduler.slurm_conf()?
                && conf.is_multifactor() =>
            {
                let text = Multifactor::from_conf(&conf, 0).formula();
                let at = conf
                    .settings
                    .get("PriorityType")
                    .map_or(Origin::Default, |(_, at)| slurm_origin(at.clone()));
                explained.add("priority", format!("{text} (Slurm multifactor)"), &at);
                (text, "slurm.conf multifactor".to_string())
            }
            _ if !self.formula.given() => {
                return Err(Failure::usage(
                    "no formula given (FORMULA, `-`, --formula FORMULA, --file PATH, a site's \
                     job_sort_formula with --qmgr FILE or --pbs-home DIR, or a slurm.conf of \
                     PriorityType=priority/multifactor)",
                ));
            }
            _ => {
                let (source, name) = self.formula.read()?;
                explained.add("job_sort_formula", &source, &Origin::Flag(name.clone()));
                (source, name)
            }
        };
        let mut catalog = self.formula.catalog()?;
        if let Some(q) = site.as_ref().and_then(|s| s.qmgr.as_ref()) {
            for (name, ty) in &q.resources {
                // `--resource` and `--resourcedef` win over the qmgr output.
                if catalog.resource(name).is_none() {
                    catalog.add_resource(name, ty.value);
                    explained.add(&format!("resource {name}"), ty.value, &ty.origin);
                }
            }
        }
        // `--lenient` reads the fairshare files as PBS does too (one spelling for leniency).
        let mut fairshare = self.fairshare.clone();
        fairshare.fairshare_lenient |= self.jobs.lenient;
        let fairshare = fairshare.with_site(site.as_ref(), &mut explained)?;
        Ok(Resolved {
            source,
            name,
            catalog,
            site,
            fairshare,
            explained,
        })
    }
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
    /// The settings in effect (flags over the site's files).
    pub resolved: Resolved,
    /// A second formula evaluated on the same jobs (`rank --compare`).
    pub compared: Option<Compared>,
}

/// A second formula, compiled with the first one's catalog and options: its text and its
/// values on the same jobs.
pub struct Compared {
    pub source: String,
    pub evaluation: Evaluation,
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
        Prepared::comparing(args, ties, None)
    }

    /// [`Prepared::new`], and `other` (named `--compare` in diagnostics) compiled with the same
    /// catalog and evaluated on the same jobs: the jobs are read once, with the inputs of both.
    pub fn comparing(
        args: &InputArgs,
        ties: Ties,
        other: Option<&str>,
    ) -> Result<Prepared, Failure> {
        let InputArgs {
            formula,
            jobs,
            compile,
            slurm,
            ..
        } = args;
        let resolved = args.resolve()?;
        let catalog = &resolved.catalog;
        let compiled = compile.compile(&resolved.source, &resolved.name, catalog)?;
        let other = other
            .map(|source| {
                Ok::<_, Failure>((source, compile.compile(source, "--compare", catalog)?))
            })
            .transpose()?;
        let mut columns: Vec<&str> = compiled.inputs().iter().map(Input::column).collect();
        if let Some((_, c)) = &other {
            for name in c.inputs().iter().map(Input::column) {
                if !columns.contains(&name) {
                    columns.push(name);
                }
            }
        }
        let loaded = slurm.load(&formula.scheduler, jobs, catalog, &columns)?;
        let (mut jobs, rows, not_ranked) = (loaded.jobs, loaded.rows, loaded.not_ranked);
        if let Some(site) = &resolved.site
            && columns.contains(&Keyword::QueuePriority.name())
        {
            fill_queue_priorities(&mut jobs, site)?;
        }
        let (warnings, tree) = resolved
            .fairshare
            .apply_loaded(&mut jobs)
            .map_err(Failure::invalid)?;
        for warning in warnings {
            warn(&warning);
        }
        let slurm = slurm.fill(&formula.scheduler, &mut jobs, rows, tree.as_ref())?;
        if let Some(view) = &slurm {
            warn_fairshare_unknown(view, tree.is_some());
        }
        if !jobs.is_empty() {
            let absent = absent_inputs(&compiled, &jobs);
            check_absent_inputs(&compiled, &absent, ties)?;
            if let Some((_, c)) = &other {
                // Each input warned about once: the second formula's warnings are for the
                // inputs the first does not read.
                let absent_b = absent_inputs(c, &jobs);
                if absent_b.iter().any(|n| !absent.contains(n)) {
                    check_absent_inputs(c, &absent_b, ties)?;
                }
            }
        }
        let evaluation = compiled.evaluate(jobs.table());
        let compared = other.map(|(source, compiled)| Compared {
            source: source.to_string(),
            evaluation: compiled.evaluate(jobs.table()),
        });
        Ok(Prepared {
            compiled,
            jobs,
            evaluation,
            fairshare: tree,
            slurm,
            not_ranked,
            resolved,
            compared,
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

/// `queue_priority` from the site's queues (`set queue Q Priority = N`) for each job in one,
/// unless the jobs give it themselves.
fn fill_queue_priorities(jobs: &mut JobSet, site: &PbsSite) -> Result<(), Failure> {
    let name = Keyword::QueuePriority.name();
    let priorities = site.queue_priorities().map_err(Failure::invalid)?;
    if priorities.is_empty() || jobs.table().column(name).is_some() {
        return Ok(());
    }
    let column: Vec<f64> = (0..jobs.len())
        .map(|i| {
            jobs.queue(i)
                .and_then(|q| priorities.get(q))
                .map_or(0.0, |p| p.value)
        })
        .collect();
    jobs.set_column(name, column)
        .map_err(|e| Failure::invalid(e.to_string()))
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

/// Slurm's fairshare factor is 0 for every job when no association tree gives it (an `sshare`
/// capture or a tree), and when its weight is the largest that silently decides the order by
/// the other factors: say so.
fn warn_fairshare_unknown(view: &SlurmView, tree_given: bool) {
    let w = &view.multifactor.weights;
    let largest = [w.age, w.assoc, w.job_size, w.partition, w.qos]
        .into_iter()
        .max()
        .unwrap_or(0);
    if tree_given
        || w.fairshare == 0
        || w.fairshare < largest
        || view.factors.iter().any(|f| f.fairshare != 0.0)
    {
        return;
    }
    warn(&format!(
        "the fairshare factor is 0 for every job while PriorityWeightFairshare ({}) is the \
         largest weight: give the association tree (--fairshare-tree with `sshare -a -l -P` \
         output) for Slurm's order",
        w.fairshare
    ));
}
