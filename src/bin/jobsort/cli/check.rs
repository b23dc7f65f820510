//! `jobsort check`: check a formula statically and report diagnostics and its value range.
//!
//! Exit codes: 0 valid (warnings allowed), 1 invalid, 2 usage error (bad flags, unreadable
//! formula file, bad `--resource`/`--resourcedef`).
//!
//! `--format json` prints one document on stdout: `{"valid", "diagnostics": [{"severity",
//! "code", "message", "span": [start, end], "notes"}], "range": [lo, hi]}`; `range` is `null`
//! for an invalid formula and an unbounded side is `null` (`[0, null]` is "0 or more").
//! Spans are byte offsets into the formula text (after unquoting a qmgr line).

use super::formula_args::FormulaArgs;
use jobsort::formula::check::{CheckOptions, check};
use jobsort::formula::diag::{Severity, check_json, render};
use std::process::ExitCode;

/// Output format of `check`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Rendered diagnostics and a summary on stderr.
    #[default]
    Text,
    /// One JSON document on stdout (SPEC §6).
    Json,
}

/// Compatibility mode.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compat {
    /// Also report PBS's numeric quirks (32-bit storage of values).
    Pbs,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub formula: FormulaArgs,
    /// Treat warnings as errors.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Report where PBS would behave differently (e.g. values tying in 32-bit storage).
    #[arg(long, value_enum)]
    pub compat: Option<Compat>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

fn fmt_bound(v: f64) -> String {
    if v == f64::INFINITY {
        "inf".into()
    } else if v == f64::NEG_INFINITY {
        "-inf".into()
    } else {
        format!("{v}")
    }
}

pub fn run(args: Args) -> ExitCode {
    let source = match args.formula.source() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("jobsort check: {e}");
            return ExitCode::from(super::EXIT_USAGE);
        }
    };
    let catalog = match args.formula.catalog() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("jobsort check: {e}");
            return ExitCode::from(super::EXIT_USAGE);
        }
    };
    let options = CheckOptions {
        compat_pbs: args.compat == Some(Compat::Pbs),
        deny_warnings: args.deny_warnings,
    };
    let checked = check(&source, &catalog, &options);
    let valid = checked.is_valid();
    match args.format {
        Format::Json => {
            let doc = check_json(valid, &checked.diagnostics, checked.range);
            println!("{doc}");
        }
        Format::Text => {
            let text = render(
                &source,
                &args.formula.source_name(),
                &checked.diagnostics,
                super::prepared::stderr_color(),
            );
            eprint!("{text}");
            let count = |s: Severity| {
                checked
                    .diagnostics
                    .iter()
                    .filter(|d| d.severity == s)
                    .count()
            };
            let (e, w, n) = (
                count(Severity::Error),
                count(Severity::Warning),
                count(Severity::Note),
            );
            let plural =
                |k: usize, word: &str| format!("{k} {word}{}", if k == 1 { "" } else { "s" });
            if valid {
                let range = checked
                    .range
                    .map(|(lo, hi)| format!("value in [{}, {}]", fmt_bound(lo), fmt_bound(hi)))
                    .unwrap_or_else(|| "value range unknown".into());
                eprintln!(
                    "valid: {}, {}; {range}",
                    plural(w, "warning"),
                    plural(n, "note")
                );
            } else {
                eprintln!(
                    "invalid: {}, {}, {}",
                    plural(e, "error"),
                    plural(w, "warning"),
                    plural(n, "note")
                );
            }
        }
    }
    if valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::EXIT_INVALID)
    }
}
