//! The syntactic lint: hand-written spellings of something PBS provides directly.

use crate::catalog::{Input, Keyword};
use crate::formula::diag::{Diagnostic, codes};
use crate::formula::ir::{Expr, Func, Ir, NodeId};
use crate::formula::syntax::{BinaryOp, UnaryOp};

/// `pow(2, -(fairshare_tree_usage/fairshare_perc))` or `2 ** -(...)`: that is
/// `fairshare_factor`, which PBS defines as 0 where perc is 0 instead of failing.
pub(super) fn fairshare_lint(ir: &Ir, diags: &mut Vec<Diagnostic>) {
    let keyword = |id: NodeId| match ir.node(id).expr {
        Expr::Input(k) => ir.inputs.get(k as usize).and_then(Input::keyword),
        _ => None,
    };
    let is_ratio = |id: NodeId| match ir.node(id).expr {
        Expr::Unary(UnaryOp::Neg, inner) => match ir.node(inner).expr {
            Expr::Binary(BinaryOp::Div, u, p) => {
                keyword(u) == Some(Keyword::FairshareTreeUsage)
                    && keyword(p) == Some(Keyword::FairsharePerc)
            }
            _ => false,
        },
        _ => false,
    };
    let is_two = |id: NodeId| ir.node(id).expr == Expr::Const(2.0);
    for node in &ir.nodes {
        let hit = match &node.expr {
            Expr::Binary(BinaryOp::Pow, a, b) => is_two(*a) && is_ratio(*b),
            Expr::Call(Func::Pow, args) if args.len() == 2 => is_two(args[0]) && is_ratio(args[1]),
            _ => false,
        };
        if hit {
            diags.push(
                Diagnostic::note(
                    codes::FAIRSHARE_FACTOR,
                    "this is `fairshare_factor`: write `fairshare_factor` instead",
                    node.span,
                )
                .with_note("PBS computes fairshare_factor as 2^-(fairshare_tree_usage/fairshare_perc) and defines it as 0 when fairshare_perc is 0, where this expression fails (and gives the job 0 with an error)"),
            );
        }
    }
}
