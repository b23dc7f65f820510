//! Formula arguments every formula-reading subcommand shares: where the formula text comes
//! from (argument, `-` for stdin, `--file`, or a qmgr line), which names it may use (PBS's
//! built-ins plus `--resource NAME:TYPE` and `--resourcedef FILE`, or the Slurm or flux
//! catalog with `--scheduler`), how it is compiled (`--engine`, `--compat`,
//! `--deny-warnings`), and compiling with rendered diagnostics.

use super::input::InputPath;
use super::report::{Failure, stderr_color};
use jobsort::catalog::{Scheduler, parse_resource_arg};
use jobsort::formula::check::formula_text;
use jobsort::formula::diag::render;
use jobsort::slurm::conf::SlurmConf;
use jobsort::slurm::multifactor::Multifactor;
use jobsort::{Catalog, CompileOptions, CompiledFormula, Formula, ResourceType};

/// The one formula of `check`, `eval` and `rank`. Flatten with `#[command(flatten)]`.
#[derive(clap::Args, Debug, Clone)]
pub struct FormulaArgs {
    /// The formula (`-` reads it from stdin). A qmgr line `set server job_sort_formula="..."`
    /// is accepted and unquoted. A formula starting with `-` works too (`-walltime`); one
    /// that looks like a flag (`--version`) is a usage error. `eval` and `rank` without one
    /// use the site's job_sort_formula (`--qmgr`, `--pbs-home`).
    #[arg(
        value_name = "FORMULA",
        allow_hyphen_values = true,
        conflicts_with = "file",
        value_parser = FormulaValue
    )]
    pub formula: Option<String>,
    /// The formula as a flag, as `sim` takes its formulas (the same as FORMULA).
    #[arg(
        long = "formula",
        id = "formula_flag",
        value_name = "FORMULA",
        allow_hyphen_values = true,
        conflicts_with_all = ["formula", "file"],
        value_parser = FormulaValue
    )]
    pub formula_flag: Option<String>,
    /// Read the formula (or a qmgr line setting it) from a file (`-` for stdin).
    #[arg(long, value_name = "PATH")]
    pub file: Option<InputPath>,
    #[command(flatten)]
    pub catalog: CatalogArgs,
    #[command(flatten)]
    pub scheduler: SchedulerArgs,
}

impl FormulaArgs {
    /// Whether a formula is given (as FORMULA or `--file`).
    pub fn given(&self) -> bool {
        self.file.is_some() || self.formula.is_some() || self.formula_flag.is_some()
    }

    /// The formula text and its name in diagnostics (`<formula>`, `<stdin>` or the path).
    pub fn read(&self) -> Result<(String, String), Failure> {
        match (
            &self.file,
            self.formula.as_deref().or(self.formula_flag.as_deref()),
        ) {
            (Some(path), _) => Ok((formula_text(&path.read_formula()?), path.name())),
            (None, Some(arg)) => read_formula_arg(arg, "<formula>"),
            (None, None) => Err(Failure::usage(
                "no formula given (FORMULA, `-`, --formula FORMULA or --file PATH)",
            )),
        }
    }
}

/// The formula text of an argument (`-` reads stdin) and its name in diagnostics.
pub fn read_formula_arg(arg: &str, name: &str) -> Result<(String, String), Failure> {
    if arg == "-" {
        Ok((
            formula_text(&InputPath::Stdin.read_formula()?),
            "<stdin>".into(),
        ))
    } else {
        Ok((formula_text(arg), name.to_string()))
    }
}

/// `--scheduler`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedulerArg {
    /// PBS `job_sort_formula`: PBS's keywords and resources (the default).
    Pbs,
    /// Slurm `priority/multifactor`: age, assoc, fairshare, jobsize, partition, qos,
    /// tres_*, site, nice.
    Slurm,
    /// flux-accounting `mf_priority`: fairshare, queue_factor, bank_factor, urgency.
    Flux,
}

impl From<SchedulerArg> for Scheduler {
    fn from(s: SchedulerArg) -> Scheduler {
        match s {
            SchedulerArg::Pbs => Scheduler::Pbs,
            SchedulerArg::Slurm => Scheduler::Slurm,
            SchedulerArg::Flux => Scheduler::Flux,
        }
    }
}

/// Whose priority a formula of `check`, `eval` or `rank` describes.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SchedulerArgs {
    /// Whose priority names the formula uses: pbs (default; slurm with --slurm-conf),
    /// slurm or flux.
    #[arg(long, value_enum, value_name = "SCHEDULER")]
    pub scheduler: Option<SchedulerArg>,
    /// A slurm.conf: its PriorityWeightTRES names are the catalog's TRES columns, and
    /// `eval`/`rank` compute each job's factors with its weights, flags, nodes and
    /// partitions. Implies `--scheduler slurm`.
    #[arg(long, value_name = "FILE", value_parser = crate::cli::input::path_or_stdin)]
    pub slurm_conf: Option<std::path::PathBuf>,
}

impl SchedulerArgs {
    /// The scheduler whose catalog the formula uses.
    pub fn scheduler(&self) -> Scheduler {
        match (self.scheduler, &self.slurm_conf) {
            (Some(s), _) => s.into(),
            (None, Some(_)) => Scheduler::Slurm,
            (None, None) => Scheduler::Pbs,
        }
    }

    /// The `--slurm-conf` file, read (`None` without one). It needs `--scheduler slurm`.
    pub fn slurm_conf(&self) -> Result<Option<SlurmConf>, Failure> {
        let Some(path) = &self.slurm_conf else {
            return Ok(None);
        };
        if self.scheduler() != Scheduler::Slurm {
            return Err(Failure::usage(format!(
                "--slurm-conf is for --scheduler slurm, not {}",
                self.scheduler()
            )));
        }
        SlurmConf::load(path).map(Some).map_err(Failure::invalid)
    }

    /// The scheduler's catalog (Slurm: with the TRES of `--slurm-conf`).
    pub fn catalog(&self) -> Result<Catalog, Failure> {
        Ok(match self.slurm_conf()? {
            Some(conf) => Multifactor::from_conf(&conf, 0).catalog(),
            None => Catalog::of(self.scheduler()),
        })
    }
}

impl FormulaArgs {
    /// The scheduler's catalog plus the declared custom resources.
    pub fn catalog(&self) -> Result<Catalog, Failure> {
        self.catalog.extend(self.scheduler.catalog()?)
    }
}

/// Custom resources a formula may use besides its scheduler's names.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct CatalogArgs {
    /// Declare a custom resource, e.g. `--resource paws:float` (types: long, float, size,
    /// time, boolean, string, string_array). Repeatable.
    #[arg(long = "resource", value_name = "NAME:TYPE", value_parser = resource_arg)]
    pub resources: Vec<(String, ResourceType)>,
    /// Declare the custom resources of a PBS `resourcedef` file (`NAME type=TYPE [flag=...]`).
    #[arg(long, value_name = "FILE")]
    pub resourcedef: Option<InputPath>,
}

fn resource_arg(s: &str) -> Result<(String, ResourceType), String> {
    parse_resource_arg(s)
}

impl CatalogArgs {
    /// PBS's catalog plus the declared custom resources.
    pub fn catalog(&self) -> Result<Catalog, Failure> {
        self.extend(Catalog::pbs())
    }

    /// `catalog` plus the declared custom resources (`--resourcedef` first, then each
    /// `--resource`, so a `--resource` can override a file entry).
    pub fn extend(&self, mut catalog: Catalog) -> Result<Catalog, Failure> {
        if let Some(path) = &self.resourcedef {
            let text = path.read_text()?;
            catalog
                .add_resourcedef(&text, &path.name())
                .map_err(Failure::invalid)?;
        }
        for (name, ty) in &self.resources {
            catalog.add_resource(name, *ty);
        }
        Ok(catalog)
    }
}

/// Compatibility mode.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compat {
    /// Reproduce PBS's numeric quirks: inputs rounded as PBS passes them, results stored as
    /// 32-bit floats (and `check` reports where they change a ranking).
    Pbs,
}

/// What `check` and the compiler share: PBS compatibility and strictness.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct CompatArgs {
    /// Reproduce PBS's numeric quirks: inputs rounded as PBS passes them, results stored as
    /// 32-bit floats.
    #[arg(long, value_enum)]
    pub compat: Option<Compat>,
    /// Treat warnings as errors.
    #[arg(long)]
    pub deny_warnings: bool,
}

/// Evaluation engine.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EngineArg {
    /// Native code (Cranelift); the default.
    #[default]
    Jit,
    /// The reference interpreter (bit-identical results).
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

/// How `eval`, `rank`, `sim` and `replay` compile their formulas.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct CompileArgs {
    /// Evaluation engine.
    #[arg(long, value_enum, default_value = "jit")]
    pub engine: EngineArg,
    #[command(flatten)]
    pub compat: CompatArgs,
}

impl CompileArgs {
    pub fn options(&self) -> CompileOptions {
        CompileOptions {
            engine: self.engine.into(),
            compat_pbs: self.compat.compat == Some(Compat::Pbs),
            deny_warnings: self.compat.deny_warnings,
        }
    }

    /// Compile `source`, rendering its diagnostics on stderr (errors, or the warnings and
    /// notes of a formula that compiles). `name` is the source in those diagnostics.
    pub fn compile(
        &self,
        source: &str,
        name: &str,
        catalog: &Catalog,
    ) -> Result<CompiledFormula, Failure> {
        match Formula::compile_with(source, catalog, &self.options()) {
            Ok(compiled) => {
                if !compiled.diagnostics().is_empty() {
                    eprint!(
                        "{}",
                        render(source, name, compiled.diagnostics(), stderr_color())
                    );
                }
                Ok(compiled)
            }
            Err(diagnostics) => {
                eprint!("{}", render(source, name, &diagnostics.0, stderr_color()));
                Err(Failure::Reported)
            }
        }
    }
}

/// The value parser of formula arguments: any text, except one that looks like a flag
/// (`--name` where `name` is no PBS name), which is the usage error clap gives for an
/// unknown flag, with a suggestion.
#[derive(Clone)]
pub struct FormulaValue;

impl clap::builder::TypedValueParser for FormulaValue {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let text = value
            .to_str()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidUtf8).with_cmd(cmd))?;
        let what = arg
            .and_then(|a| a.get_long().map(|l| format!("--{l}")))
            .unwrap_or_else(|| "FORMULA".into());
        match flag_error(cmd, &what, text) {
            Some(err) => Err(err),
            None => Ok(text.to_string()),
        }
    }
}

/// Before clap parses: a formula argument that looks like a flag is the usage error,
/// reported as such. Clap would take `check --version` or `eval --formt json` as the
/// formula, and `sim --formula --policy strict` as the formula `--policy`, and then complain
/// about the next argument instead. `args` is the whole command line.
pub fn check_formula_position(
    cli: &clap::Command,
    args: &[std::ffi::OsString],
) -> Result<(), clap::Error> {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let Some(sub_at) = args.iter().skip(1).position(|a| !a.starts_with('-')) else {
        return Ok(());
    };
    let Some(sub) = cli.find_subcommand(&args[sub_at + 1]) else {
        return Ok(());
    };
    let mut positional_formula = sub
        .get_arguments()
        .any(|a| a.get_id() == "formula" && a.is_positional());
    let mut rest = args[sub_at + 2..].iter();
    while let Some(token) = rest.next() {
        if token == "--" {
            break;
        }
        let Some(flag) = token.strip_prefix("--") else {
            // The first positional argument (or `-walltime`) is the formula.
            positional_formula = false;
            continue;
        };
        let (long, inline) = match flag.split_once('=') {
            Some((l, v)) => (l, Some(v)),
            None => (flag, None),
        };
        let named = |a: &&clap::Arg| {
            a.get_long() == Some(long) || a.get_all_aliases().is_some_and(|v| v.contains(&long))
        };
        match sub.get_arguments().find(named) {
            Some(a) if a.get_action().takes_values() => {
                let value = match inline {
                    Some(v) => Some(v),
                    None => rest.next().map(String::as_str),
                };
                if long == "formula"
                    && let Some(err) = value.and_then(|v| flag_error(sub, "--formula", v))
                {
                    return Err(err);
                }
            }
            Some(_) => {}
            None if positional_formula => {
                return flag_error(sub, "FORMULA", token).map_or(Ok(()), Err);
            }
            // An unknown flag elsewhere: clap reports it, with its own suggestion.
            None => return Ok(()),
        }
    }
    Ok(())
}

/// The usage error for a formula argument `text` that looks like a flag, `None` when it does
/// not. `what` names the argument (`FORMULA`, `--formula`).
fn flag_error(cmd: &clap::Command, what: &str, text: &str) -> Option<clap::Error> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let flag = flag_like(text)?;
    let longs: Vec<&str> = cmd.get_arguments().filter_map(|a| a.get_long()).collect();
    let mut err = clap::Error::new(ErrorKind::UnknownArgument).with_cmd(cmd);
    err.insert(ContextKind::InvalidArg, ContextValue::String(text.into()));
    let tip = if longs.contains(&flag) {
        format!("{what} needs a formula; `{text}` is a flag")
    } else if flag == "version" || flag == "help" {
        format!("`--{flag}` is an option of `jobsort` itself: `jobsort --{flag}`")
    } else if let Some(s) = jobsort::formula::sema::suggest(flag, longs.iter().copied()) {
        format!("a similar argument exists: `--{s}`")
    } else {
        "a formula cannot start with `--`; write `-(-x)` for a double negation".into()
    };
    err.insert(
        ContextKind::Suggested,
        ContextValue::StyledStrs(vec![tip.into()]),
    );
    err.insert(
        ContextKind::Usage,
        ContextValue::StyledStr(cmd.clone().render_usage()),
    );
    Some(err)
}

/// `Some(name)` when `text` is `--name` or `--name=...` with a name that is no PBS, Slurm or
/// flux formula name (so `--ncpus`, a double negation, stays a formula).
fn flag_like(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("--")?;
    let name = rest.split_once('=').map_or(rest, |(n, _)| n);
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let flag_chars = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    let formula_name = [Catalog::pbs(), Catalog::slurm(), Catalog::flux()]
        .iter()
        .any(|c| c.lookup(name).is_some());
    (first_ok && flag_chars && !formula_name).then_some(name)
}

/// A tip for a parse error that a formula the shell split makes: `jobsort check ncpus * 2`
/// gives clap the words `ncpus`, `*` (or, expanded by the shell, the names of the files here)
/// and `2`, and clap finds an argument too many. `None` for any other error.
pub fn unquoted_formula_tip(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    // Only where a formula is a positional argument (`check`, `eval`, `rank`, `sim`).
    let takes_formula = matches!(
        e.get(ContextKind::Usage),
        Some(ContextValue::StyledStr(usage)) if usage.to_string().contains("FORMULA")
    );
    if arg.starts_with('-') || !takes_formula {
        return None;
    }
    Some(
        "tip: a formula with spaces or `*` goes in quotes, as one argument (the shell splits it, \
         and turns `*` into the names of the files here): jobsort check 'ncpus * 2'"
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::flag_like;

    #[test]
    fn flags_are_told_from_formulas() {
        assert_eq!(flag_like("--version"), Some("version"));
        assert_eq!(flag_like("--format=json"), Some("format"));
        assert_eq!(flag_like("--jobs-format"), Some("jobs-format"));
        assert_eq!(flag_like("-walltime"), None);
        assert_eq!(
            flag_like("--ncpus"),
            None,
            "a double negation of a PBS name"
        );
        assert_eq!(flag_like("--ncpus + 1"), None);
        assert_eq!(flag_like("-- 2"), None);
        assert_eq!(flag_like("ncpus"), None);
    }
}
