//! The reference evaluator: a tree walk over the IR with Python's semantics (SPEC §1.5). It
//! recurses only as deep as the formula is nested: a chain of operators is a loop ([`Ir::chain`]).
//!
//! This is the oracle every other backend is tested against, and the path used for a single
//! job. Only the branches Python would evaluate are evaluated, so an error in an untaken
//! branch does not count.

use super::ir::{Expr, Func, Ir, NodeId, Ty};

use super::pymath::{self, EvalError, PyResult, truthy};
use super::syntax::{BinaryOp, CmpOp, Link, UnaryOp};

/// Evaluate the formula for one job whose column values are `inputs` (indexed like
/// [`Ir::inputs`]). Returns the final value (a bool as 1.0/0.0) or the first error Python would
/// raise; a non-finite final value is [`EvalError::NotFinite`].
pub fn eval_job(ir: &Ir, inputs: &[f64]) -> PyResult {
    let v = eval_node(ir, ir.root, inputs)?;
    finish(v)
}

/// The final-value rule shared by all backends: non-finite values are errors.
#[inline]
pub fn finish(v: f64) -> PyResult {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(EvalError::NotFinite)
    }
}

/// Evaluate a sub-expression (no final-value check). Public for the optimiser's constant
/// folding, which must fold exactly as the evaluator computes.
pub fn eval_node(ir: &Ir, id: NodeId, inputs: &[f64]) -> PyResult {
    let node = ir.node(id);
    let ev = |n: NodeId| eval_node(ir, n, inputs);
    match &node.expr {
        Expr::Const(c) => Ok(*c),
        Expr::Input(i) => Ok(inputs[*i as usize]),
        Expr::Unary(op, a) => {
            let a = ev(*a)?;
            Ok(match op {
                UnaryOp::Neg => -a,
                UnaryOp::Pos => a,
                UnaryOp::Not => bool_value(!truthy(a)),
            })
        }
        Expr::Binary(..) | Expr::And(..) | Expr::Or(..) => {
            // A chain (`a + b + c`, `a and b and c`) in a loop, not one call per link.
            let chain = ir.chain(id, |_| false);
            let mut v = ev(chain.first)?;
            for (_, link, b) in chain.outward() {
                v = match link {
                    Link::Binary(op) => binary(op, v, ev(b)?)?,
                    Link::And if truthy(v) => ev(b)?,
                    Link::Or if !truthy(v) => ev(b)?,
                    Link::And | Link::Or => v,
                };
            }
            Ok(v)
        }
        Expr::Compare { first, rest } => {
            let mut lhs = ev(*first)?;
            for (op, n) in rest {
                let rhs = ev(*n)?;
                if !compare(*op, lhs, rhs) {
                    return Ok(0.0);
                }
                lhs = rhs;
            }
            Ok(1.0)
        }
        Expr::IfElse {
            cond,
            then,
            otherwise,
        } => {
            if truthy(ev(*cond)?) {
                ev(*then)
            } else {
                ev(*otherwise)
            }
        }
        Expr::Call(func, args) => {
            let mut vals = [0.0f64; 8];
            let mut heap;
            let vals: &mut [f64] = if args.len() <= vals.len() {
                &mut vals[..args.len()]
            } else {
                heap = vec![0.0; args.len()];
                &mut heap
            };
            for (slot, a) in vals.iter_mut().zip(args) {
                *slot = ev(*a)?;
            }
            call(*func, vals)
        }
    }
}

#[inline]
fn bool_value(b: bool) -> f64 {
    if b { 1.0 } else { 0.0 }
}

/// A binary arithmetic operator on two evaluated operands.
pub fn binary(op: BinaryOp, a: f64, b: f64) -> PyResult {
    match op {
        BinaryOp::Add => Ok(a + b),
        BinaryOp::Sub => Ok(a - b),
        BinaryOp::Mul => Ok(a * b),
        BinaryOp::Div => pymath::div(a, b),
        BinaryOp::FloorDiv => pymath::floor_div(a, b),
        BinaryOp::Mod => pymath::rem(a, b),
        BinaryOp::Pow => pymath::float_pow(a, b),
    }
}

/// One link of a comparison chain (IEEE: every comparison with NaN is false but `!=`).
#[inline]
pub fn compare(op: CmpOp, a: f64, b: f64) -> bool {
    match op {
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
    }
}

/// A function call on evaluated arguments (arity already checked by sema).
pub fn call(func: Func, args: &[f64]) -> PyResult {
    let x = args.first().copied().unwrap_or(0.0);
    let y = args.get(1).copied().unwrap_or(0.0);
    match func {
        Func::Abs | Func::Fabs => pymath::fabs(x),
        Func::Min => Ok(pymath::min(args)),
        Func::Max => Ok(pymath::max(args)),
        Func::Pow => pymath::math_pow(x, y),
        Func::Sqrt => pymath::sqrt(x),
        Func::Exp => pymath::exp(x),
        Func::Expm1 => pymath::expm1(x),
        Func::Log if args.len() == 2 => pymath::log_base(x, y),
        Func::Log => pymath::log(x),
        Func::Log10 => pymath::log10(x),
        Func::Log2 => pymath::log2(x),
        Func::Log1p => pymath::log1p(x),
        Func::Ceil => pymath::ceil(x),
        Func::Floor => pymath::floor(x),
        Func::Trunc => pymath::trunc(x),
        Func::Round if args.len() == 2 => pymath::round_ndigits(x, y),
        Func::Round => pymath::round(x),
        Func::Fmod => pymath::fmod(x, y),
        Func::Copysign => pymath::copysign(x, y),
        Func::Hypot => pymath::hypot(args),
        Func::Sin => pymath::sin(x),
        Func::Cos => pymath::cos(x),
        Func::Tan => pymath::tan(x),
        Func::Asin => pymath::asin(x),
        Func::Acos => pymath::acos(x),
        Func::Atan => pymath::atan(x),
        Func::Atan2 => pymath::atan2(x, y),
        Func::Sinh => pymath::sinh(x),
        Func::Cosh => pymath::cosh(x),
        Func::Tanh => pymath::tanh(x),
        Func::Degrees => pymath::degrees(x),
        Func::Radians => pymath::radians(x),
    }
}

/// The type a node's value has (for callers that print bools as `True`/`False`).
pub fn result_type(ir: &Ir) -> Ty {
    ir.node(ir.root).ty
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::syntax::Span;

    fn ir_with(build: impl FnOnce(&mut Ir) -> NodeId) -> Ir {
        let mut ir = Ir {
            nodes: vec![],
            root: NodeId(0),
            inputs: vec![],
        };
        ir.root = build(&mut ir);
        ir
    }

    #[test]
    fn and_or_return_operands_and_short_circuit() {
        let s = Span::default();
        // 0 or 5 == 5
        let ir = ir_with(|ir| {
            let a = ir.push(Expr::Const(0.0), Ty::Num, s);
            let b = ir.push(Expr::Const(5.0), Ty::Num, s);
            ir.push(Expr::Or(a, b), Ty::Num, s)
        });
        assert_eq!(eval_job(&ir, &[]), Ok(5.0));
        // 0 and 1/0 == 0 (the division is never evaluated)
        let ir = ir_with(|ir| {
            let z = ir.push(Expr::Const(0.0), Ty::Num, s);
            let one = ir.push(Expr::Const(1.0), Ty::Num, s);
            let d = ir.push(Expr::Binary(BinaryOp::Div, one, z), Ty::Num, s);
            ir.push(Expr::And(z, d), Ty::Num, s)
        });
        assert_eq!(eval_job(&ir, &[]), Ok(0.0));
    }

    #[test]
    fn chained_comparison_stops_at_first_false_link() {
        let s = Span::default();
        // 3 < 2 < 1/0  is False without evaluating 1/0
        let ir = ir_with(|ir| {
            let three = ir.push(Expr::Const(3.0), Ty::Num, s);
            let two = ir.push(Expr::Const(2.0), Ty::Num, s);
            let one = ir.push(Expr::Const(1.0), Ty::Num, s);
            let zero = ir.push(Expr::Const(0.0), Ty::Num, s);
            let d = ir.push(Expr::Binary(BinaryOp::Div, one, zero), Ty::Num, s);
            ir.push(
                Expr::Compare {
                    first: three,
                    rest: vec![(CmpOp::Lt, two), (CmpOp::Lt, d)],
                },
                Ty::Bool,
                s,
            )
        });
        assert_eq!(eval_job(&ir, &[]), Ok(0.0));
    }

    #[test]
    fn non_finite_result_is_an_error() {
        let s = Span::default();
        let ir = ir_with(|ir| ir.push(Expr::Input(0), Ty::Num, s));
        assert_eq!(eval_job(&ir, &[f64::INFINITY]), Err(EvalError::NotFinite));
        assert_eq!(eval_job(&ir, &[2.0]), Ok(2.0));
    }
}
