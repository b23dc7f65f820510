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

/// The deepest expression CPython compiles: its AST validator and symbol table stop at
/// `COMPILER_STACK_FRAME_SCALE` (3) × the recursion limit (1000) levels, less those of the
/// code that calls `eval` (`Python/ast.c` `_PyAST_Validate`, `Python/symtable.c`, CPython
/// 3.11). Measured with python3 3.11.7 in the text pbs_sched runs (`formula_evaluate`, OpenPBS
/// `src/scheduler/job_info.cpp`: `eval("...")` at module level): `a + a + ... + a` of 2,994
/// terms (2,993 nested operations) compiles, of 2,995 it raises "maximum recursion depth
/// exceeded during compilation".
pub const PYTHON_MAX_DEPTH: u32 = 2993;

/// How deeply Python's AST nests each node's expression: a leaf is 0, any operation one more
/// than its deepest operand, except that Python makes one node of a chain of `and` (or of
/// `or`) and of a comparison chain.
fn python_depths(ir: &Ir) -> Vec<u32> {
    let mut depth = vec![0u32; ir.nodes.len()];
    for (i, node) in ir.nodes.iter().enumerate() {
        let of = |id: &NodeId| depth[id.index()];
        depth[i] = match &node.expr {
            Expr::Const(_) | Expr::Input(_) => 0,
            Expr::And(a, b) if matches!(ir.node(*a).expr, Expr::And(..)) => of(a).max(of(b) + 1),
            Expr::Or(a, b) if matches!(ir.node(*a).expr, Expr::Or(..)) => of(a).max(of(b) + 1),
            e => {
                1 + crate::formula::ir::expr_children(e)
                    .iter()
                    .map(of)
                    .max()
                    .unwrap_or(0)
            }
        };
    }
    depth
}

/// `--compat pbs`: what `check` accepts but CPython, so pbs_sched, cannot compile. pbs_sched
/// writes the formula into `eval("...")` inside a `try` (`formula_evaluate`): an expression
/// nested deeper than [`PYTHON_MAX_DEPTH`] raises there and every job gets 0; a line break
/// ends the string literal, so the text is a SyntaxError, `_FORMANS_` is never set and every
/// job gets 0 as well.
pub(super) fn pbs_compile_lint(ir: &Ir, source: &str, diags: &mut Vec<Diagnostic>) {
    let depth = python_depths(ir);
    let root = depth[ir.root.index()];
    if root > PYTHON_MAX_DEPTH {
        diags.push(
            Diagnostic::warning(
                codes::TOO_DEEP_FOR_PYTHON,
                format!(
                    "CPython cannot compile this formula: its operations nest {root} deep, more than the {PYTHON_MAX_DEPTH} it compiles, so pbs_sched gives every job 0"
                ),
                ir.node(ir.root).span,
            )
            .with_note("pbs_sched evaluates `eval(\"<formula>\")` in a `try` (formula_evaluate, src/scheduler/job_info.cpp); CPython raises RecursionError \"maximum recursion depth exceeded during compilation\" and logs each job with \"Zero value will be used\"")
            .with_note("help: a chain of about 2,994 terms is the most CPython 3.11 compiles; split it, e.g. `(a + b + ...) + (c + d + ...)`"),
        );
    }
    if let Some(at) = source.find(['\n', '\r']) {
        diags.push(
            Diagnostic::warning(
                codes::LINE_BREAK,
                "a line break in the formula: pbs_sched cannot evaluate it, so every job gets 0",
                crate::formula::syntax::Span::new(at, at + 1),
            )
            .with_note("pbs_sched writes the formula into a Python string literal, `eval(\"<formula>\")` (formula_evaluate, src/scheduler/job_info.cpp); a line break ends the literal and the code is a SyntaxError (outside brackets the formula alone is one too)")
            .with_note("help: write the formula on one line"),
        );
    }
}
