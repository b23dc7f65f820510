//! How `jobsort fairshare` writes and stops: `emit!`/`emitln!` write stdout (a closed pipe
//! ends the command quietly), [`fail`] prints a message and gives exit code 1.

use std::process::ExitCode;

/// Write to stdout; a closed pipe ends the command quietly, any other write error is reported
/// (both through `Failure::exit`, as every other subcommand's output).
macro_rules! emit {
    ($out:expr, $($arg:tt)*) => {
        if let Err(e) = write!($out, $($arg)*) {
            return $crate::cli::report::Failure::from(e).exit();
        }
    };
}
macro_rules! emitln {
    ($out:expr, $($arg:tt)*) => {
        if let Err(e) = writeln!($out, $($arg)*) {
            return $crate::cli::report::Failure::from(e).exit();
        }
    };
}

/// Print `msg` on stderr with the command's prefix (`jobsort fairshare: Fairshare Entity erin
/// does not exist.`: pbsfs's words after it) and give exit code 1 (bad input).
pub(super) fn fail(msg: impl std::fmt::Display) -> ExitCode {
    crate::cli::report::error(&msg.to_string());
    ExitCode::from(crate::cli::EXIT_INVALID)
}
