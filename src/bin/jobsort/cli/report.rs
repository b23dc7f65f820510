//! How every subcommand reports: one prefix (`jobsort <cmd>: `) for errors, warnings and
//! notes on stderr, and the exit codes the README and docs/cli.md document — 0 success, 1 bad
//! input (a formula, a file, a value the program cannot use), 2 a usage error (flags only). What a
//! message quotes of an input is shown with its control characters escaped (`\u{1b}`), as
//! formula diagnostics show them, so a file cannot act on the terminal.

use jobsort::input::text::escaped;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::OnceLock;

/// Exit code for invalid input (bad formula, bad or unreadable file).
pub const EXIT_INVALID: u8 = 1;
/// Exit code for a usage error (unknown flag, bad flag value, flags that conflict).
pub const EXIT_USAGE: u8 = 2;

/// Why a subcommand stopped. The message is printed once, by [`Failure::exit`], after the
/// `jobsort <cmd>: ` prefix; messages about a file start with its location (`file:line: `).
#[derive(Debug)]
pub enum Failure {
    /// Bad input: exit 1.
    Invalid(String),
    /// A usage error: exit 2.
    Usage(String),
    /// Already reported on stderr (rendered formula diagnostics, per-line errors): exit 1.
    Reported,
    /// Writing to stdout failed. A closed pipe (`| head`) ends the program quietly with
    /// status 0, as Unix filters do; any other error is reported.
    Output(std::io::Error),
}

impl Failure {
    pub fn invalid(message: impl std::fmt::Display) -> Failure {
        Failure::Invalid(message.to_string())
    }

    pub fn usage(message: impl std::fmt::Display) -> Failure {
        Failure::Usage(message.to_string())
    }

    /// Print the failure (once, with the command's prefix) and give the exit code.
    pub fn exit(self) -> ExitCode {
        match self {
            Failure::Invalid(m) => {
                error(&m);
                ExitCode::from(EXIT_INVALID)
            }
            Failure::Usage(m) => {
                error(&m);
                ExitCode::from(EXIT_USAGE)
            }
            Failure::Reported => ExitCode::from(EXIT_INVALID),
            Failure::Output(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Failure::Output(e) => {
                error(&format!("cannot write output: {e}"));
                ExitCode::from(EXIT_INVALID)
            }
        }
    }
}

impl From<jobsort::sim::settings::SettingsError> for Failure {
    fn from(e: jobsort::sim::settings::SettingsError) -> Failure {
        match e {
            jobsort::sim::settings::SettingsError::Usage(m) => Failure::usage(m),
            jobsort::sim::settings::SettingsError::Invalid(m) => Failure::invalid(m),
        }
    }
}

impl From<std::io::Error> for Failure {
    /// Errors writing stdout; errors reading a file carry its name and are [`Failure::Invalid`].
    fn from(e: std::io::Error) -> Failure {
        Failure::Output(e)
    }
}

/// What a subcommand returns: an exit code it chose (`check` on an invalid formula, `replay
/// --verify` on a mismatch), or a [`Failure`].
pub type Outcome = Result<ExitCode, Failure>;

static COMMAND: OnceLock<&'static str> = OnceLock::new();

/// Name the running subcommand, for the prefix. Called once, before the subcommand runs.
pub fn set_command(name: &'static str) {
    let _ = COMMAND.set(name);
}

fn prefix() -> String {
    match COMMAND.get() {
        Some(cmd) => format!("jobsort {cmd}"),
        None => "jobsort".into(),
    }
}

/// `jobsort <cmd>: message`.
pub fn error(message: &str) {
    eprintln!("{}: {}", prefix(), escaped(message));
}

/// `jobsort <cmd>: warning: message`.
pub fn warn(message: &str) {
    eprintln!("{}: warning: {}", prefix(), escaped(message));
}

/// `jobsort <cmd>: note: message`.
pub fn note(message: &str) {
    eprintln!("{}: note: {}", prefix(), escaped(message));
}

/// Colour on stderr only on a terminal, and never under `NO_COLOR`.
pub fn stderr_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

impl From<serde_json::Error> for Failure {
    /// Errors serialising to stdout (an I/O error inside stays one).
    fn from(e: serde_json::Error) -> Failure {
        Failure::Output(e.into())
    }
}
