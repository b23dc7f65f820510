//! Hazard analysis (placeholder, being written).

use super::catalog::Catalog;
use super::check::CheckOptions;
use super::diag::Diagnostic;
use super::ir::Ir;

/// What the hazard analysis found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    pub range: Option<(f64, f64)>,
}

/// Analyse a checked formula.
pub fn analyze(_ir: &Ir, _catalog: &Catalog, _options: &CheckOptions) -> Report {
    Report::default()
}
