//! `--explain`: split a formula into its top-level terms (the operands of the outermost `+`/`-`
//! chain) and evaluate each one per job, like Slurm's `sprio` breakdown of a priority.
//!
//! Each term is compiled on its own with the formula's [`CompileOptions`] and evaluated over
//! the formula's input columns, so a term's value is what the formula's own engine gives for
//! it — under `--compat pbs` with the inputs rounded and the value stored as PBS does.

use super::ir::{Expr, Ir, NodeId};
use super::pymath::EvalError;
use super::syntax::{BinaryOp, Span};
use super::{ColumnError, CompileOptions, CompiledFormula, Evaluation};
use crate::table::JobTable;

/// One top-level term of a formula.
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    /// The term's source text span.
    pub span: Span,
    /// `-1.0` for a subtracted term, else `1.0`.
    pub sign: f64,
    pub node: NodeId,
}

/// The terms whose signed sum is the formula's value (a single term when the formula is not a
/// sum).
pub fn terms(ir: &Ir) -> Vec<Term> {
    let mut out = vec![];
    collect(ir, ir.root, 1.0, &mut out);
    out
}

/// Depth first, left to right, with a stack: a sum of n terms is a chain n deep.
fn collect(ir: &Ir, root: NodeId, sign: f64, out: &mut Vec<Term>) {
    let mut stack = vec![(root, sign)];
    while let Some((id, sign)) = stack.pop() {
        match ir.node(id).expr {
            Expr::Binary(BinaryOp::Add, a, b) => stack.extend([(b, sign), (a, sign)]),
            Expr::Binary(BinaryOp::Sub, a, b) => stack.extend([(b, -sign), (a, sign)]),
            _ => out.push(Term {
                span: ir.node(id).span,
                sign,
                node: id,
            }),
        }
    }
}

/// A formula's terms, each compiled like the formula (same [`CompileOptions`], same inputs).
#[derive(Debug, Clone)]
pub struct Explanation {
    terms: Vec<(Term, CompiledFormula)>,
}

impl Explanation {
    /// Compile every top-level term of `formula` with `formula`'s options.
    pub fn new(formula: &CompiledFormula) -> Explanation {
        Explanation::with_options(formula.ir(), formula.source(), formula.options())
    }

    /// `source` is the text `ir`'s spans index (under `--compat pbs` its integer literals are
    /// Python ints).
    fn with_options(ir: &Ir, source: &str, options: &CompileOptions) -> Explanation {
        let terms = terms(ir)
            .into_iter()
            .map(|term| {
                // The whole arena with the term as root: the term reads the formula's columns.
                let mut sub = ir.clone();
                sub.root = term.node;
                (
                    term,
                    CompiledFormula::from_ir_with_source(&sub, source, options),
                )
            })
            .collect();
        Explanation { terms }
    }

    /// The terms, in source order.
    pub fn terms(&self) -> impl ExactSizeIterator<Item = &Term> {
        self.terms.iter().map(|(t, _)| t)
    }

    /// The signed value of each term for one job (inputs indexed like
    /// [`CompiledFormula::inputs`]).
    pub fn eval_one(&self, inputs: &[f64]) -> Vec<Result<f64, EvalError>> {
        self.terms
            .iter()
            .map(|(t, f)| f.eval_one(inputs).map(|v| t.sign * v))
            .collect()
    }

    /// The signed values of each term over every job of `table` (one [`Evaluation`] per
    /// term), read from the columns the formula reads.
    pub fn evaluate(&self, table: &JobTable) -> Vec<Evaluation> {
        self.terms
            .iter()
            .map(|(t, f)| signed(f.evaluate(table), t.sign))
            .collect()
    }

    /// [`Explanation::evaluate`] over raw columns (`columns[k][i]` is input `k` of job `i`).
    pub fn try_evaluate_columns(
        &self,
        columns: &[&[f64]],
        n: usize,
    ) -> Result<Vec<Evaluation>, ColumnError> {
        self.terms
            .iter()
            .map(|(t, f)| Ok(signed(f.try_evaluate_columns(columns, n)?, t.sign)))
            .collect()
    }
}

/// An evaluation with its values multiplied by `sign` (an erred job's 0 stays 0).
fn signed(mut evaluation: Evaluation, sign: f64) -> Evaluation {
    if sign < 0.0 {
        for (v, &e) in evaluation.values.iter_mut().zip(&evaluation.errors) {
            if e == 0 {
                *v = -*v;
            }
        }
    }
    evaluation
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Catalog, ResourceType};
    use crate::formula::Formula;
    use crate::formula::check::{CheckOptions, check};

    #[test]
    fn sum_and_difference_split_into_signed_terms() {
        let catalog = Catalog::pbs()
            .with_resource("x", ResourceType::Float)
            .with_resource("y", ResourceType::Float);
        let ir = check("x + 2 - y", &catalog, &CheckOptions::default())
            .ir
            .unwrap();
        let t = terms(&ir);
        assert_eq!(
            t.iter().map(|t| (t.span.start, t.sign)).collect::<Vec<_>>(),
            vec![(0, 1.0), (4, 1.0), (8, -1.0)]
        );
        let e = Explanation::with_options(&ir, "x + 2 - y", &CompileOptions::default());
        assert_eq!(e.eval_one(&[3.0, 5.0]), vec![Ok(3.0), Ok(2.0), Ok(-5.0)]);
        let (x, y) = ([3.0, 0.0], [5.0, 1.0]);
        let by_term = e.try_evaluate_columns(&[&x, &y], 2).unwrap();
        let values: Vec<&[f64]> = by_term.iter().map(|t| t.values.as_slice()).collect();
        assert_eq!(values, [&[3.0, 0.0], &[2.0, 2.0], &[-5.0, -1.0]]);
    }

    #[test]
    fn under_compat_pbs_terms_are_what_the_compiled_formula_gives() {
        let options = CompileOptions {
            compat_pbs: true,
            ..CompileOptions::default()
        };
        let catalog = Catalog::pbs();
        let compile = |src| Formula::compile_with(src, &catalog, &options).unwrap();
        let f = compile("fairshare_perc * 1000 + ncpus / 3");
        assert_eq!(f.inputs(), ["fairshare_perc", "ncpus"]);
        let e = Explanation::new(&f);
        let (perc, ncpus) = (0.1234567, 1.0);
        let want = vec![
            compile("fairshare_perc * 1000").eval_one(&[perc]),
            compile("ncpus / 3").eval_one(&[ncpus]),
        ];
        // PBS passes fairshare_perc as 0.123457 and stores each value as a 32-bit float.
        assert_eq!(want, vec![Ok(123.457f32 as f64), Ok((1.0f32 / 3.0) as f64)]);
        assert_eq!(e.eval_one(&[perc, ncpus]), want);
        let by_term = e.try_evaluate_columns(&[&[perc], &[ncpus]], 1).unwrap();
        let values: Vec<f64> = by_term.iter().map(|t| t.values[0]).collect();
        assert_eq!(values, [123.457f32 as f64, (1.0f32 / 3.0) as f64]);
        // A term's integer literals are Python ints too: `1` over the int 0 is "division by
        // zero" (CPython `long_true_divide`), as in the whole formula.
        let f = compile("1 / (ncpus - 2) + walltime");
        let e = Explanation::new(&f);
        let i = f.inputs().iter().position(|c| c == "ncpus").unwrap();
        let mut row = [0.0; 2];
        row[i] = 2.0;
        assert_eq!(e.eval_one(&row)[0], Err(EvalError::IntDivisionByZero));
        assert_eq!(f.eval_one(&row), Err(EvalError::IntDivisionByZero));
    }
}
