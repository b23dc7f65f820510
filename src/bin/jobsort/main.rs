//! The `jobsort` command line. Parses arguments (clap), calls the library, prints.

/// Diagnostics, warnings and notes go to stderr. When stderr cannot be written (closed, or a
/// full device: `2>/dev/full`) they are lost, as output to a closed stdout pipe ends quietly;
/// std's `eprint!`/`eprintln!` would panic (exit 101) there. Every `eprint!`/`eprintln!` of
/// the command line is one of these two (macros defined here shadow std's in every module
/// below).
macro_rules! eprint {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

/// See [`eprint!`].
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod cli;

use clap::{CommandFactory, FromArgMatches};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Built once: for the check below, then to parse (`Cli::parse_from` would make and build
    // the command again, a third of what clap takes here).
    let mut command = cli::Cli::command();
    command.build();
    if let Err(e) = cli::formula_args::check_formula_position(&command, &args) {
        e.exit();
    }
    let cli = command
        .try_get_matches_from_mut(args)
        .and_then(|mut matches| cli::Cli::from_arg_matches_mut(&mut matches))
        .unwrap_or_else(|e| {
            cli::remove_stdin_copies();
            let e = e.format(&mut command);
            if let Some(tip) = cli::formula_args::unquoted_formula_tip(&e) {
                let _ = e.print();
                eprintln!("\n{tip}");
                std::process::exit(e.exit_code());
            }
            e.exit()
        });
    let code = cli::run(cli);
    cli::remove_stdin_copies();
    code
}
