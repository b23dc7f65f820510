//! Values that are never finite: a sub-expression that is `inf`, `-inf` or NaN for every job
//! (`ncpus * 1e999`), followed through the operations that keep it so. The interval lattice
//! reads its bounds as limits of finite values (`0 * inf` is 0 there), so it cannot see these.

use crate::formula::ir::{Expr, Func, Ir, NodeId};
use crate::formula::syntax::{BinaryOp, UnaryOp};

/// For each node, whether every value it can give is infinite or NaN. Sound: `false` when
/// some input could make it finite.
pub(super) fn never_finite(ir: &Ir) -> Vec<bool> {
    let mut never = vec![false; ir.nodes.len()];
    for (i, node) in ir.nodes.iter().enumerate() {
        let of = |id: &NodeId| never[id.index()];
        never[i] = match &node.expr {
            Expr::Const(c) => !c.is_finite(),
            Expr::Input(_) => false,
            Expr::Unary(UnaryOp::Neg | UnaryOp::Pos, a) => of(a),
            Expr::Unary(UnaryOp::Not, _) => false,
            // inf ± x, inf * x (NaN for x = 0), NaN with anything.
            Expr::Binary(BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul, a, b) => of(a) || of(b),
            // inf / x, inf // x and inf % x are infinite or NaN (or fail); x / inf is finite.
            Expr::Binary(BinaryOp::Div | BinaryOp::FloorDiv | BinaryOp::Mod, a, _) => of(a),
            // inf ** 0 is 1.
            Expr::Binary(BinaryOp::Pow, _, _) => false,
            Expr::IfElse {
                then, otherwise, ..
            } => of(then) && of(otherwise),
            Expr::Call(Func::Abs | Func::Fabs, args) => args.first().is_some_and(of),
            Expr::Compare { .. } | Expr::And(..) | Expr::Or(..) | Expr::Call(..) => false,
        };
    }
    never
}

/// The smallest sub-expression of `id` that reads the jobs and is never finite: where an
/// infinite operand takes over (`ncpus + 1e999` in `ncpus + 1e999 - 1e999`).
pub(super) fn origin(ir: &Ir, never: &[bool], is_const: &[bool], mut id: NodeId) -> NodeId {
    while let Some(child) = crate::formula::ir::expr_children(&ir.node(id).expr)
        .into_iter()
        .find(|c| never[c.index()] && !is_const[c.index()])
    {
        id = child;
    }
    id
}

#[cfg(test)]
mod tests {
    use crate::catalog::Catalog;
    use crate::formula::check::{CheckOptions, check};
    use crate::formula::diag::codes;

    fn codes_of(src: &str) -> Vec<&'static str> {
        check(src, &Catalog::pbs(), &CheckOptions::default())
            .diagnostics
            .iter()
            .map(|d| d.code)
            .collect()
    }

    #[test]
    fn an_infinite_operand_that_reaches_the_value_is_a_certain_failure() {
        for src in [
            "ncpus*1e999",
            "ncpus + 1e999 - 1e999",
            "-(walltime * -1e999) / 2",
            "abs(ncpus * 1e999) if ncpus > 2 else ncpus * 1e999",
        ] {
            assert!(codes_of(src).contains(&codes::INFINITE_OPERAND), "{src}");
        }
        let d = check(
            "ncpus + 1e999 - 1e999",
            &Catalog::pbs(),
            &CheckOptions::default(),
        );
        assert_eq!(
            d.diagnostics[0].span,
            crate::formula::syntax::Span::new(0, 13)
        );
        // An infinity that does not reach the value is not one.
        for src in [
            "1/(ncpus*1e999) + 1",
            "min(ncpus, 1e999)",
            "ncpus * 1e999 if ncpus > 2 else 1",
            "(ncpus * 1e999) > 1",
            "2 ** -(ncpus * 1e999)",
        ] {
            assert!(!codes_of(src).contains(&codes::INFINITE_OPERAND), "{src}");
        }
    }
}
