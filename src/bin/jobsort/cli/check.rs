//! `jobsort check`: check a formula statically and report diagnostics and its value range.
//!
//! Exit codes: 0 valid (warnings allowed), 1 invalid or unreadable (formula, `--file`,
//! `--resourcedef`), 2 usage error (bad flags, a bad `--resource`).
//!
//! `--format json` prints one document on stdout: `{"valid", "diagnostics": [{"severity",
//! "code", "message", "span": [start, end], "notes"}], "range": [lo, hi]}`; `range` is `null`
//! for an invalid formula and an unbounded side is `null` (`[0, null]` is "0 or more").
//! Spans are byte offsets into the formula text (after unquoting a qmgr line).

use super::formula_args::{Compat, CompatArgs, FormulaArgs};
use super::output::{Out, write_json};
use super::report::{EXIT_INVALID, Outcome, stderr_color};
use jobsort::formula::check::{CheckOptions, check};
use jobsort::formula::diag::{check_json, render};
use std::process::ExitCode;

/// Output format of `check`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Rendered diagnostics and a summary on stderr.
    #[default]
    Text,
    /// One JSON document on stdout: `valid`, `diagnostics` (severity, code, message, span,
    /// notes) and `range` (see docs/cli.md).
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub formula: FormulaArgs,
    #[command(flatten)]
    pub compat: CompatArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

pub fn run(args: Args, out: &mut Out) -> Outcome {
    let (source, name) = args.formula.read()?;
    let catalog = args.formula.catalog()?;
    let options = CheckOptions {
        compat_pbs: args.compat.compat == Some(Compat::Pbs),
        deny_warnings: args.compat.deny_warnings,
    };
    let checked = check(&source, &catalog, &options);
    let valid = checked.is_valid();
    match args.format {
        Format::Json => {
            let doc = check_json(valid, &checked.diagnostics, checked.range);
            write_json(out, &doc, false)?;
        }
        Format::Text => {
            let text = render(&source, &name, &checked.diagnostics, stderr_color());
            eprint!("{text}");
            eprintln!("{}", checked.summary());
        }
    }
    Ok(if valid {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_INVALID)
    })
}
