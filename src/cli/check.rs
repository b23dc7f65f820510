//! `jobsort check` (in progress).

use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> ExitCode {
    eprintln!("jobsort check: not implemented yet");
    ExitCode::from(super::EXIT_USAGE)
}
