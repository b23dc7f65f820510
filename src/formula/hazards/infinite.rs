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
            // Functions that keep an infinity or NaN (or fail on it: `sqrt(-inf)`, the
            // logarithm of `-inf`, `floor(inf)`): no job gets a finite value from them.
            Expr::Call(
                Func::Abs
                | Func::Fabs
                | Func::Sqrt
                | Func::Log
                | Func::Log2
                | Func::Log10
                | Func::Log1p
                | Func::Sinh
                | Func::Cosh
                | Func::Degrees
                | Func::Radians
                | Func::Floor
                | Func::Ceil
                | Func::Trunc,
                args,
            ) if args.len() == 1 => args.first().is_some_and(of),
            Expr::Call(Func::Round, args) => args.first().is_some_and(of),
            // hypot is infinite when any argument is, even with a NaN.
            Expr::Call(Func::Hypot, args) => args.iter().any(of),
            Expr::Compare { .. } | Expr::And(..) | Expr::Or(..) | Expr::Call(..) => false,
        };
    }
    never
}

/// For each node, whether some job can get an infinity or a NaN from it (sound: `true`
/// whenever one can). Finite inputs make infinities only by overflow, which the overflow pass
/// reports; here they come from constants (`1e999`, `inf`, `nan`) and flow through every
/// operation that can pass them on. Comparisons and truth values are finite; `floor`, `ceil`,
/// `trunc`, `round` and the trigonometric functions fail on them instead (reported where they
/// are applied).
///
/// `seeds` are constant nodes known not to be finite (`1e300 * 1e300`).
pub(super) fn may_be_non_finite(ir: &Ir, seeds: &[NodeId]) -> Vec<bool> {
    let mut may = vec![false; ir.nodes.len()];
    let mut seeded = vec![false; ir.nodes.len()];
    for s in seeds {
        seeded[s.index()] = true;
    }
    for (i, node) in ir.nodes.iter().enumerate() {
        let of = |id: &NodeId| may[id.index()];
        if seeded[i] {
            may[i] = true;
            continue;
        }
        may[i] = match &node.expr {
            Expr::Const(c) => !c.is_finite(),
            Expr::Input(_) | Expr::Compare { .. } | Expr::Unary(UnaryOp::Not, _) => false,
            Expr::Unary(_, a) => of(a),
            Expr::Binary(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => of(a) || of(b),
            Expr::IfElse {
                then, otherwise, ..
            } => of(then) || of(otherwise),
            Expr::Call(
                Func::Floor | Func::Ceil | Func::Trunc | Func::Sin | Func::Cos | Func::Tan,
                _,
            ) => false,
            Expr::Call(Func::Round, args) if args.len() == 1 => false,
            Expr::Call(_, args) => args.iter().any(of),
        };
    }
    may
}

/// A constant that is not finite and reaches `id`'s value (where [`may_be_non_finite`] holds
/// for `id`).
pub(super) fn non_finite_origin(ir: &Ir, may: &[bool], mut id: NodeId) -> NodeId {
    while let Some(child) = crate::formula::ir::expr_children(&ir.node(id).expr)
        .into_iter()
        .find(|c| may[c.index()])
    {
        id = child;
    }
    id
}

/// Whether `func` fails on an infinite or NaN first argument (`floor(inf)`: "cannot convert
/// float infinity to integer"; `sin(inf)`, `fmod(inf, 1)`: "math domain error").
pub(super) fn fails_on_non_finite(func: Func, arity: usize) -> bool {
    matches!(
        func,
        Func::Floor | Func::Ceil | Func::Trunc | Func::Sin | Func::Cos | Func::Tan | Func::Fmod
    ) || (func == Func::Round && arity == 1)
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
