//! Subcommands. Each file owns one subcommand's arguments and output; the library does the work.
//! This module (the binary crate) is the only place that depends on clap.
//!
//! Shared argument groups: [`formula_args`] (formula text, catalog, compile options),
//! [`jobs_args`] (job files), [`schedule_args`] (threshold, policy, machine, traces),
//! [`fairshare_opts`] (fairshare trees for jobs), [`slurm_args`] (Slurm/flux job factors).
//! Shared plumbing: [`input`] (`-` is stdin), [`output`] (stdout, formats, tables),
//! [`report`] (error prefix, exit codes).

mod check;
mod eval;
mod explain;
mod fairshare;
pub mod fairshare_opts;
pub mod formula_args;
#[cfg(test)]
mod help_examples;
mod input;
pub use input::remove_stdin_copies;
mod jobs_args;
mod limits;
mod output;
mod page;
mod prepared;
mod priority_formula;
mod queue;
mod queue_order_args;
mod rank;
mod rank_snapshot;
mod replay;
mod report;
mod schedule_args;
mod shell;
mod sim;
mod sim_snapshot;
mod site_args;
mod slurm_args;
mod snapshot;
mod why;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

pub use report::{EXIT_INVALID, EXIT_USAGE};

#[derive(Parser, Debug)]
#[command(
    name = "jobsort",
    version,
    about = "Compile, check and evaluate HPC batch-scheduler priority formulas"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check a formula statically: syntax, names, types, hazards, value range.
    Check(check::Args),
    /// Evaluate a formula for every job of a job file.
    Eval(eval::Args),
    /// Say what a diagnostic code means, with an example (`jobsort explain E0304`).
    Explain(explain::Args),
    /// Rank the jobs of a job file by a formula, or a snapshot's queue with what holds each job.
    #[command(
        override_usage = "jobsort rank [OPTIONS] --jobs <FILE> [FORMULA]\n       \
            jobsort rank --snapshot <DIR> [FORMULA] [--top <K>] [--explain] [--format <FORMAT>]"
    )]
    Rank(rank::Args),
    /// Compute and inspect a fairshare tree (pbsfs-compatible for the PBS algorithm).
    Fairshare(fairshare::Args),
    /// Run a stream of limit events through the flux-accounting limit engine.
    Limits(limits::Args),
    /// Simulate a workload trace under one or more formulas, or compare them on a site's queue
    /// now (--snapshot).
    #[command(
        override_usage = "jobsort sim [OPTIONS] --trace <FILE> [FORMULA]...\n       \
            jobsort sim --snapshot <DIR> [FORMULA]... [--policy <POLICY>] \
            [--runtimes <FILE> | --history <FILE>] [--per-job <FILE>] [--format <FORMAT>]"
    )]
    Sim(sim::Args),
    /// Replay a recording: verify it or reconcile another formula against it.
    Replay(replay::Args),
    /// Say what a snapshot of a site holds: nodes, running jobs, reservations, what is missing.
    Snapshot(snapshot::Args),
    /// Why is a job not running, and when will it start? From a snapshot of the site.
    Why(why::WhyArgs),
    /// When each waiting job of a snapshot starts, and what holds it now.
    Forecast(why::ForecastArgs),
    /// Print a slurm.conf's multifactor priority as a formula (Slurm catalog) and check it.
    SlurmFormula(priority_formula::SlurmArgs),
    /// Print flux-accounting's mf_priority priority as a formula (flux catalog) and check it.
    FluxFormula(priority_formula::FluxArgs),
    /// Print a shell completion script (`jobsort completions bash`).
    Completions(shell::CompletionsArgs),
    /// Print the man page (`jobsort man | man -l -`), or write every page with `--dir`.
    Man(shell::ManArgs),
}

impl Command {
    /// The subcommand's name, as typed.
    fn name(&self) -> &'static str {
        match self {
            Command::Check(_) => "check",
            Command::Eval(_) => "eval",
            Command::Explain(_) => "explain",
            Command::Rank(_) => "rank",
            Command::Fairshare(_) => "fairshare",
            Command::Limits(_) => "limits",
            Command::Sim(_) => "sim",
            Command::Replay(_) => "replay",
            Command::Snapshot(_) => "snapshot",
            Command::Why(_) => "why",
            Command::Forecast(_) => "forecast",
            Command::SlurmFormula(_) => "slurm-formula",
            Command::FluxFormula(_) => "flux-formula",
            Command::Completions(_) => "completions",
            Command::Man(_) => "man",
        }
    }
}

/// Run a subcommand. Its output goes to one stdout writer and its failure is reported once,
/// here: `jobsort <cmd>: message` and the exit code; a closed stdout pipe ends it quietly.
/// rayon's global pool is sized first (`formula::threads::cap_global_pool`: at most the
/// threads the machine runs at once), before any subcommand's parallel work builds it.
pub fn run(cli: Cli) -> ExitCode {
    report::set_command(cli.command.name());
    jobsort::formula::threads::cap_global_pool();
    let mut out = output::stdout();
    let out = &mut *out;
    let outcome = match cli.command {
        Command::Check(a) => check::run(a, out),
        Command::Eval(a) => eval::run(a, out),
        Command::Explain(a) => explain::run(a, out),
        Command::Rank(a) => match a.snapshot.clone() {
            Some(dir) => rank_snapshot::run(a, &dir, out),
            None => rank::run(a, out),
        },
        Command::Fairshare(a) => Ok(fairshare::run(a, out)),
        Command::Limits(a) => limits::run(a, out),
        Command::Sim(a) => sim::run(a, out),
        Command::Replay(a) => replay::run(a, out),
        Command::Snapshot(a) => snapshot::run(a, out),
        Command::Why(a) => why::run_why(a, out),
        Command::Forecast(a) => why::run_forecast(a, out),
        Command::SlurmFormula(a) => priority_formula::run_slurm(a, out),
        Command::FluxFormula(a) => priority_formula::run_flux(a, out),
        Command::Completions(a) => shell::run_completions(a, Cli::command(), out),
        Command::Man(a) => shell::run_man(a, Cli::command(), out),
    };
    let flushed = outcome.and_then(|code| Ok(out.flush().map(|()| code)?));
    flushed.unwrap_or_else(report::Failure::exit)
}
