//! The `jobsort` command line. Parses arguments (clap), calls the library, prints.

mod cli;

use clap::{CommandFactory, Parser};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let mut command = cli::Cli::command();
    command.build();
    if let Err(e) = cli::formula_args::check_formula_position(&command, &args) {
        e.exit();
    }
    cli::run(cli::Cli::parse_from(args))
}
