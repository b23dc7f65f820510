//! `jobsort explain CODE`: what a diagnostic code means, with an example — its entry of
//! `docs/diagnostics.md`, which is generated from the code table of
//! `jobsort::formula::diag` (and checked against it by `tests/it/docs.rs`).
//!
//! Exit codes: 0 printed, 1 a code the table does not have (the message names the nearest
//! codes).

use super::output::Out;
use super::report::{Failure, Outcome};
use jobsort::formula::diag::{CodeInfo, code_table};
use jobsort::formula::sema::levenshtein;
use std::process::ExitCode;

/// The page the entries come from.
const PAGE: &str = include_str!("../../../../docs/diagnostics.md");

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A diagnostic code, as `check` prints it: `E0304`, `W0401`, `N0501` (any case).
    #[arg(value_name = "CODE")]
    pub code: String,
}

pub fn run(args: Args, out: &mut Out) -> Outcome {
    let code = args.code.trim().to_ascii_uppercase();
    let table = code_table();
    let Some(info) = table.iter().find(|c| c.code == code) else {
        return Err(Failure::invalid(unknown(&args.code, &code, &table)));
    };
    let entry = entry(PAGE, info.code).ok_or_else(|| {
        Failure::invalid(format!(
            "{}: no entry in docs/diagnostics.md (this build's copy is older than the code \
             table: {}: {})",
            info.code,
            severity(info),
            info.meaning
        ))
    })?;
    write!(out, "{entry}")?;
    Ok(ExitCode::SUCCESS)
}

fn severity(info: &CodeInfo) -> &'static str {
    match info.severity {
        jobsort::Severity::Error => "error",
        jobsort::Severity::Warning => "warning",
        jobsort::Severity::Note => "note",
    }
}

/// The entry of `code` on the page: from its heading `## CODE` to the next heading, the
/// code first and the fences of its example left out, as a terminal shows it.
fn entry(page: &str, code: &str) -> Option<String> {
    let heading = format!("## {code}");
    let mut lines = page.lines().skip_while(|l| *l != heading);
    lines.next()?;
    let mut text = format!("{code}\n");
    for line in lines.take_while(|l| !l.starts_with("## ")) {
        if !line.starts_with("```") {
            text.push_str(line);
            text.push('\n');
        }
    }
    Some(format!("{}\n", text.trim_end()))
}

/// The message for a code the table does not have: the codes one edit away, else those of
/// its family (`E03`), else the families.
fn unknown(given: &str, code: &str, table: &[CodeInfo]) -> String {
    let near: Vec<&str> = table
        .iter()
        .map(|c| c.code)
        .filter(|c| levenshtein(c, code) <= 1)
        .collect();
    let family: Vec<&str> = table
        .iter()
        .map(|c| c.code)
        .filter(|c| code.len() >= 3 && c.starts_with(&code[..3]))
        .collect();
    let hint = if !near.is_empty() {
        format!("did you mean {}?", near.join(", "))
    } else if !family.is_empty() {
        format!("the codes of {}xx: {}", &code[..3], family.join(", "))
    } else {
        "codes are E01xx syntax, E02xx names and types, E03xx certain failures, W04xx \
         warnings, N05xx notes, N09xx engine notes"
            .to_string()
    };
    format!("`{given}` is no diagnostic code; {hint} (every code: docs/diagnostics.md)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_of_the_table_has_an_entry_in_this_builds_page() {
        for c in code_table() {
            let e = entry(PAGE, c.code).unwrap_or_else(|| panic!("{}", c.code));
            assert!(e.starts_with(&format!("{}\n", c.code)), "{e}");
            assert!(e.contains(c.meaning), "{e}");
            assert!(!e.contains("```"), "{e}");
        }
    }

    #[test]
    fn an_entry_ends_at_the_next_heading() {
        let page =
            "# T\n\n## E0101\n\nerror: a\n\n```console\n$ x\nout\n```\n\n## E0102\n\nerror: b\n";
        assert_eq!(
            entry(page, "E0101").unwrap(),
            "E0101\n\nerror: a\n\n$ x\nout\n"
        );
        assert_eq!(entry(page, "E0102").unwrap(), "E0102\n\nerror: b\n");
        assert_eq!(entry(page, "E0103"), None);
    }

    #[test]
    fn an_unknown_code_names_the_nearest() {
        let t = code_table();
        let m = unknown("E0308", "E0308", &t);
        assert!(
            m.contains("did you mean E0301, E0302, E0303, E0304, E0305?"),
            "{m}"
        );
        let m = unknown("e0399x", "E0399X", &t);
        assert!(m.contains("the codes of E03xx: E0301"), "{m}");
        let m = unknown("X1", "X1", &t);
        assert!(m.contains("E01xx syntax"), "{m}");
    }
}
