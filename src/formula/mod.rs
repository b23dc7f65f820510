//! The formula compiler: text → checked, typed IR → an evaluator (interpreter or JIT).
//!
//! ```text
//! lexer (logos) → parser (lalrpop) → AST → sema (catalog) → IR → hazards → opt → interp | jit
//! ```

pub mod ast;
pub mod catalog;
pub mod check;
pub mod diag;
pub mod explain;
pub mod hazards;
pub mod interp;
pub mod ir;
pub mod lexer;
pub mod parser;
pub mod pymath;
pub mod sema;

use crate::jobs::table::JobTable;
use catalog::{Catalog, Keyword};
pub use check::{CheckOptions, Checked};
use diag::{Diagnostic, Diagnostics};
use ir::Ir;
use pymath::EvalError;

/// Which backend evaluates a compiled formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The Cranelift JIT (falls back to `Interp` where Cranelift cannot run).
    #[default]
    Jit,
    /// The reference tree-walking evaluator.
    Interp,
}

/// Options for [`Formula::compile_with`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompileOptions {
    pub engine: Engine,
    /// `--compat pbs`: round inputs as PBS passes them (fairshare values to 6 decimals, other
    /// values to at most 4) and store each result as a 32-bit float, as PBS does.
    pub compat_pbs: bool,
    /// `--deny-warnings`
    pub deny_warnings: bool,
}

/// Namespace for compiling formulas.
pub struct Formula;

impl Formula {
    /// Parse, check and compile `source` with the default options (JIT engine).
    pub fn compile(source: &str, catalog: &Catalog) -> Result<CompiledFormula, Diagnostics> {
        Formula::compile_with(source, catalog, &CompileOptions::default())
    }

    /// Parse, check and compile `source`. Errors (and warnings under `deny_warnings`) are
    /// returned as data; warnings and notes of a successful compile stay available through
    /// [`CompiledFormula::diagnostics`].
    pub fn compile_with(
        source: &str,
        catalog: &Catalog,
        options: &CompileOptions,
    ) -> Result<CompiledFormula, Diagnostics> {
        let checked = check::check(
            source,
            catalog,
            &CheckOptions {
                compat_pbs: options.compat_pbs,
                deny_warnings: options.deny_warnings,
            },
        );
        let has_errors = checked.diagnostics.iter().any(Diagnostic::is_error);
        match checked.ir {
            Some(ir) if !has_errors => Ok(CompiledFormula {
                source: source.to_string(),
                fairshare_inputs: ir
                    .inputs
                    .iter()
                    .map(|n| Keyword::from_name(n).is_some_and(Keyword::is_fairshare))
                    .collect(),
                ir,
                diagnostics: checked.diagnostics,
                range: checked.range,
                options: *options,
            }),
            _ => Err(Diagnostics(checked.diagnostics)),
        }
    }
}

/// A checked formula ready to evaluate; compile once, evaluate every scheduling cycle.
/// `Send + Sync`: share one across threads.
#[derive(Debug, Clone)]
pub struct CompiledFormula {
    source: String,
    ir: Ir,
    fairshare_inputs: Vec<bool>,
    diagnostics: Vec<Diagnostic>,
    range: Option<(f64, f64)>,
    options: CompileOptions,
}

/// Per-job results: a value for every job (0 where the evaluation erred) and an error code
/// (0 = none, else an [`EvalError`] code).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Evaluation {
    pub values: Vec<f64>,
    pub errors: Vec<u8>,
}

impl Evaluation {
    /// The error of job `i`, if its evaluation failed.
    pub fn error(&self, i: usize) -> Option<EvalError> {
        self.errors.get(i).and_then(|&c| EvalError::from_code(c))
    }
    /// How many jobs erred.
    pub fn error_count(&self) -> usize {
        self.errors.iter().filter(|&&c| c != 0).count()
    }
    pub fn len(&self) -> usize {
        self.values.len()
    }
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl CompiledFormula {
    /// The formula text as given.
    pub fn source(&self) -> &str {
        &self.source
    }
    /// The (optimised) IR.
    pub fn ir(&self) -> &Ir {
        &self.ir
    }
    /// The job columns the formula reads, in the order [`CompiledFormula::evaluate_columns`]
    /// expects them.
    pub fn inputs(&self) -> &[String] {
        &self.ir.inputs
    }
    /// Warnings and notes from the checker.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
    /// The interval of values the checker proved the formula stays in (`None` if unknown).
    pub fn range(&self) -> Option<(f64, f64)> {
        self.range
    }
    pub fn options(&self) -> &CompileOptions {
        &self.options
    }

    /// Evaluate one job given its input values (indexed like [`CompiledFormula::inputs`]).
    pub fn eval_one(&self, inputs: &[f64]) -> Result<f64, EvalError> {
        if self.options.compat_pbs {
            let rounded: Vec<f64> = inputs
                .iter()
                .zip(&self.fairshare_inputs)
                .map(|(&v, &fs)| pbs_round_input(v, fs))
                .collect();
            interp::eval_job(&self.ir, &rounded).map(pbs_store)
        } else {
            interp::eval_job(&self.ir, inputs)
        }
    }

    /// Evaluate every job of a table. Columns the table lacks read as 0 (a job that did not
    /// request a resource has 0, as in PBS).
    pub fn evaluate(&self, table: &JobTable) -> Evaluation {
        let columns = table.bind(&self.ir.inputs);
        self.evaluate_columns(&columns, table.len())
    }

    /// Evaluate over raw columns: `columns[k][i]` is input `k` of job `i`; each column must
    /// hold at least `n` values.
    pub fn evaluate_columns(&self, columns: &[&[f64]], n: usize) -> Evaluation {
        let mut values = vec![0.0; n];
        let mut errors = vec![0u8; n];
        let mut row = vec![0.0; columns.len()];
        for i in 0..n {
            for (slot, col) in row.iter_mut().zip(columns) {
                *slot = col[i];
            }
            match self.eval_one(&row) {
                Ok(v) => values[i] = v,
                Err(e) => errors[i] = e.code(),
            }
        }
        Evaluation { values, errors }
    }
}

/// PBS formats each input with `%f` (fairshare keywords: 6 decimals) or `float_digits(v, 4)`
/// (everything else: at most 4 decimals) before Python sees it.
fn pbs_round_input(v: f64, fairshare: bool) -> f64 {
    if !v.is_finite() {
        return v;
    }
    let digits = if fairshare { 6 } else { 4 };
    format!("{v:.digits$}").parse().unwrap_or(v)
}

/// PBS stores the formula value in a C `float`.
fn pbs_store(v: f64) -> f64 {
    v as f32 as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiled_formula_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<CompiledFormula>();
    }

    #[test]
    fn pbs_rounding_of_inputs() {
        assert_eq!(pbs_round_input(0.1234567, true), 0.123457);
        assert_eq!(pbs_round_input(0.123456, false), 0.1235);
        assert_eq!(pbs_store(16777217.0), 16777216.0);
    }
}
