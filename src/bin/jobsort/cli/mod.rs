//! Subcommands. Each file owns one subcommand's arguments and output; the library does the work.
//! This module (the binary crate) is the only place that depends on clap.

mod check;
mod eval;
mod fairshare;
pub mod fairshare_opts;
pub mod formula_args;
mod jobs_args;
mod limits;
mod prepared;
mod rank;
mod replay;
mod sim;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Exit code for invalid input (bad formula, bad file).
pub const EXIT_INVALID: u8 = 1;
/// Exit code for a usage error.
pub const EXIT_USAGE: u8 = 2;

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
    /// Rank the jobs of a job file by a formula.
    Rank(rank::Args),
    /// Compute and inspect a fairshare tree (pbsfs-compatible for the PBS algorithm).
    Fairshare(fairshare::Args),
    /// Run a stream of limit events through the flux-accounting limit engine.
    Limits(limits::Args),
    /// Simulate a workload trace under one or more formulas.
    Sim(sim::Args),
    /// Replay a recording: verify it or reconcile another formula against it.
    Replay(replay::Args),
}

pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Check(a) => check::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Rank(a) => rank::run(a),
        Command::Fairshare(a) => fairshare::run(a),
        Command::Limits(a) => limits::run(a),
        Command::Sim(a) => sim::run(a),
        Command::Replay(a) => replay::run(a),
    }
}
