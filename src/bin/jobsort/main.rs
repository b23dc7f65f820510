//! The `jobsort` command line. Parses arguments (clap), calls the library, prints.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    cli::run(args)
}
