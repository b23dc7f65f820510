//! The front-end pipeline: lex → parse → sema → hazards, behind one call.

use super::diag::{Diagnostic, Severity};
use super::ir::Ir;
use super::{hazards, parser, sema};
use crate::catalog::Catalog;

/// Options of the static checker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// `--compat pbs`: also report PBS's 32-bit storage and rounding quirks.
    pub compat_pbs: bool,
    /// `--deny-warnings`: warnings become errors.
    pub deny_warnings: bool,
}

/// What the checker found: the typed IR (when there are no errors), every diagnostic, and
/// the interval of the formula's value.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub ir: Option<Ir>,
    pub diagnostics: Vec<Diagnostic>,
    /// The interval `[lo, hi]` the formula's value lies in for every job (including the 0 a
    /// job gets when its evaluation errs). A bound may be infinite. `None` when the formula
    /// has errors.
    pub range: Option<(f64, f64)>,
}

impl Checked {
    /// True when there is no error (warnings and notes allowed).
    pub fn is_valid(&self) -> bool {
        !self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The line `jobsort check` prints after the diagnostics: `valid: 2 warnings, 0 notes;
    /// value in [0, inf]` or `invalid: 1 error, 0 warnings, 0 notes`.
    pub fn summary(&self) -> String {
        let count = |s: Severity| self.diagnostics.iter().filter(|d| d.severity == s).count();
        let plural = |k: usize, word: &str| format!("{k} {word}{}", if k == 1 { "" } else { "s" });
        let (e, w, n) = (
            count(Severity::Error),
            count(Severity::Warning),
            count(Severity::Note),
        );
        if self.is_valid() {
            let bound = |v: f64| {
                if v == f64::INFINITY {
                    "inf".to_string()
                } else if v == f64::NEG_INFINITY {
                    "-inf".to_string()
                } else {
                    format!("{v}")
                }
            };
            let range = self
                .range
                .map(|(lo, hi)| format!("value in [{}, {}]", bound(lo), bound(hi)))
                .unwrap_or_else(|| "value range unknown".into());
            format!(
                "valid: {}, {}; {range}",
                plural(w, "warning"),
                plural(n, "note")
            )
        } else {
            format!(
                "invalid: {}, {}, {}",
                plural(e, "error"),
                plural(w, "warning"),
                plural(n, "note")
            )
        }
    }
}

/// Check a formula against a catalog. Never panics; every problem is a diagnostic.
pub fn check(source: &str, catalog: &Catalog, options: &CheckOptions) -> Checked {
    let mut diagnostics = Vec::new();
    let ast = match parser::parse(source) {
        Ok(ast) => ast,
        Err(d) => {
            return Checked {
                ir: None,
                diagnostics: d,
                range: None,
            };
        }
    };
    let ir = sema::lower(&ast, catalog, &mut diagnostics);
    drop(ast);
    let mut range = None;
    if let Some(ir) = &ir {
        let report = hazards::analyze(ir, source, catalog, options.compat_pbs);
        diagnostics.extend(report.diagnostics);
        range = report.range;
    }
    if options.deny_warnings {
        for d in &mut diagnostics {
            if d.severity == Severity::Warning {
                d.severity = Severity::Error;
                d.notes
                    .push("this warning is an error because of --deny-warnings".into());
            }
        }
    }
    // Stable order: by position, then severity (errors first).
    diagnostics.sort_by(|a, b| {
        (a.span.start, std::cmp::Reverse(a.severity), a.span.end).cmp(&(
            b.span.start,
            std::cmp::Reverse(b.severity),
            b.span.end,
        ))
    });
    let valid = !diagnostics.iter().any(Diagnostic::is_error);
    Checked {
        ir: if valid { ir } else { None },
        range: if valid { range } else { None },
        diagnostics,
    }
}

/// A formula as written in a file, an argument or a Python string: a qmgr line is unquoted
/// ([`formula_from_qmgr`]), trailing line ends are dropped (spans stay byte offsets into what
/// is left).
pub fn formula_text(raw: &str) -> String {
    match formula_from_qmgr(raw) {
        Some(f) => f,
        None => raw.trim_end_matches(['\n', '\r']).to_string(),
    }
}

/// If `text` is a qmgr command that sets the formula (`set server job_sort_formula="..."`,
/// also `qmgr -c '...'` around it, `s sched sc1 job_sort_formula = ...`, or the
/// `print server` output line), return the formula with its quotes removed. A multi-line
/// text is searched for the one such line. Returns `None` when `text` is not a qmgr line.
pub fn formula_from_qmgr(text: &str) -> Option<String> {
    text.lines().find_map(qmgr_line)
}

fn qmgr_line(line: &str) -> Option<String> {
    let mut s = line.trim();
    if let Some(rest) = s.strip_prefix("qmgr") {
        let rest = rest.trim_start();
        let rest = rest.strip_prefix("-c")?.trim();
        s = unquote(rest).unwrap_or(rest);
        s = s.trim();
    }
    let (verb, rest) = s.split_once(char::is_whitespace)?;
    if !matches!(verb.to_ascii_lowercase().as_str(), "set" | "s") {
        return None;
    }
    let pos = rest.find("job_sort_formula")?;
    let after = rest[pos + "job_sort_formula".len()..].trim_start();
    let value = after.strip_prefix('=')?.trim();
    // Everything between `set` and the attribute must be an object (`server`, `sched NAME`).
    let object = rest[..pos].trim();
    let kind = object.split_whitespace().next().unwrap_or("");
    if !matches!(
        kind.to_ascii_lowercase().as_str(),
        "server" | "s" | "sched" | ""
    ) {
        return None;
    }
    Some(unquote(value).unwrap_or(value).to_string())
}

/// Strip one level of matching `"` or `'` quotes.
fn unquote(s: &str) -> Option<&str> {
    let s = s.trim();
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return Some(&s[1..s.len() - 1]);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qmgr_lines_are_unquoted() {
        assert_eq!(
            formula_from_qmgr(r#"set server job_sort_formula="ncpus * 2""#).as_deref(),
            Some("ncpus * 2")
        );
        assert_eq!(
            formula_from_qmgr(r#"qmgr -c 'set server job_sort_formula = "walltime/ncpus"'"#)
                .as_deref(),
            Some("walltime/ncpus")
        );
        assert_eq!(
            formula_from_qmgr("set sched sc1 job_sort_formula=2*walltime").as_deref(),
            Some("2*walltime")
        );
        assert_eq!(
            formula_from_qmgr("#\n# Set server attributes.\nset server scheduling = True\nset server job_sort_formula = \"ncpus\"\n").as_deref(),
            Some("ncpus")
        );
        assert_eq!(formula_from_qmgr("ncpus * 2"), None);
    }

    #[test]
    fn the_milestone_formula_checks() {
        let c = check(
            "ncpus*2 + eligible_time/3600",
            &Catalog::pbs(),
            &CheckOptions::default(),
        );
        assert!(c.is_valid(), "{:?}", c.diagnostics);
        assert_eq!(c.ir.unwrap().inputs, vec!["ncpus", "eligible_time"]);
    }
}
