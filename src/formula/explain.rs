//! `--explain`: split a formula into its top-level terms (the operands of the outermost `+`/`-`
//! chain) and evaluate each one per job, like Slurm's `sprio` breakdown of a priority.

use super::interp;
use super::ir::{BinaryOp, Expr, Ir, NodeId, Span};
use super::pymath::EvalError;

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

fn collect(ir: &Ir, id: NodeId, sign: f64, out: &mut Vec<Term>) {
    match ir.node(id).expr {
        Expr::Binary(BinaryOp::Add, a, b) => {
            collect(ir, a, sign, out);
            collect(ir, b, sign, out);
        }
        Expr::Binary(BinaryOp::Sub, a, b) => {
            collect(ir, a, sign, out);
            collect(ir, b, -sign, out);
        }
        _ => out.push(Term {
            span: ir.node(id).span,
            sign,
            node: id,
        }),
    }
}

/// The signed value of each term for one job (inputs indexed like [`Ir::inputs`]).
pub fn explain_job(ir: &Ir, terms: &[Term], inputs: &[f64]) -> Vec<Result<f64, EvalError>> {
    terms
        .iter()
        .map(|t| interp::eval_node(ir, t.node, inputs).map(|v| t.sign * v))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::catalog::{Input, ResourceType};
    use crate::formula::ir::Ty;

    #[test]
    fn sum_and_difference_split_into_signed_terms() {
        // x + 2 - y
        let s = Span::default();
        let mut ir = Ir {
            nodes: vec![],
            root: NodeId(0),
            inputs: ["x", "y"]
                .map(|name| Input::Resource {
                    name: name.to_string(),
                    ty: ResourceType::Float,
                })
                .to_vec(),
        };
        let x = ir.push(Expr::Input(0), Ty::Num, Span::new(0, 1));
        let two = ir.push(Expr::Const(2.0), Ty::Num, Span::new(4, 5));
        let add = ir.push(Expr::Binary(BinaryOp::Add, x, two), Ty::Num, s);
        let y = ir.push(Expr::Input(1), Ty::Num, Span::new(8, 9));
        ir.root = ir.push(Expr::Binary(BinaryOp::Sub, add, y), Ty::Num, s);
        let t = terms(&ir);
        assert_eq!(
            t.iter().map(|t| (t.span.start, t.sign)).collect::<Vec<_>>(),
            vec![(0, 1.0), (4, 1.0), (8, -1.0)]
        );
        assert_eq!(
            explain_job(&ir, &t, &[3.0, 5.0]),
            vec![Ok(3.0), Ok(2.0), Ok(-5.0)]
        );
    }
}
