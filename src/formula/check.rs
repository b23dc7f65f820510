//! The front-end pipeline: lex → parse → sema → hazards. (Placeholder until the front end lands.)

use super::catalog::Catalog;
use super::diag::Diagnostic;
use super::ir::{Ir, Span};

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
    pub range: Option<(f64, f64)>,
}

/// Check a formula against a catalog.
pub fn check(source: &str, _catalog: &Catalog, _options: &CheckOptions) -> Checked {
    Checked {
        ir: None,
        diagnostics: vec![Diagnostic::error(
            "E0000",
            "the formula front end is not built yet",
            Span::new(0, source.len()),
        )],
        range: None,
    }
}
