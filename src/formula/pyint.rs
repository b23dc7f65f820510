//! Whole numbers as Python ints, as PBS evaluates a formula (`--compat pbs`).
//!
//! pbs_sched (`formula_evaluate`, `src/scheduler/job_info.cpp`) writes every value into the
//! Python text it evaluates: a consumable resource as `'%s':%.*f` with
//! `float_digits(amount, 4)` decimals (so a whole amount, or one within 0.001 of whole, has
//! no decimal point), an unrequested one as `0`, `eligible_time` with `%ld`,
//! `queue_priority`, `job_priority` and `accrue_type` with `%d`, and the fairshare keywords
//! with `%f`. A number written without a decimal point is a Python `int`, and so is an
//! integer literal of the formula: `1/(ncpus-2)` fails with "division by zero", `mem %
//! (ncpus-1)` with "integer modulo by zero", and `ncpus ** 256` is an exact int.
//!
//! [`IntModel::needed`] proves, in one pass over the checked IR, when int-ness cannot change
//! any value or error text: then the float evaluators (interpreter and JIT) are exact and the
//! model is not used. Otherwise [`IntModel::eval_job`] evaluates with [`pymath::int`]'s
//! numbers. The proof: a value that may be an int ("int-kind") is always a whole double `d`
//! that the float evaluators hold as `d` (with `+0.0` for zero, as an int has no `-0`): an
//! input (its value is rounded as PBS prints it, and a zero made `+0.0`), an integer literal
//! a double holds exactly, a bool, and `+x`, `abs`, `min`, `max`, `floor`, `ceil`, `trunc`, one-argument
//! `round`, `if`/`else`, `and`, `or` of such values. Python converts such an int to the same
//! double wherever it meets a float or a `math` function, and compares it exactly, as the
//! float evaluators do; so only these differ, and each makes the model needed: an arithmetic
//! operator with int-kind operands on both sides (except `/` by a nonzero integer literal,
//! which is one correctly rounded division either way), `-x` of an int-kind `x` (`-0` is
//! `0`), `round(x, n)` of an int-kind `x`, and an integer literal no double holds exactly
//! (exact in Python, rounded in a double).

use super::interp;
use super::ir::{Expr, Func, Ir, NodeId, Ty};
use super::lexer::parse_number;
use super::pymath::bigint::BigInt;
use super::pymath::int::{self, Num, NumResult};
use super::pymath::{self, EvalError, PyResult};
use super::syntax::{BinaryOp, Link, UnaryOp};
use crate::catalog::{Input, ResourceType};

/// The Python type a node's value has, as far as the formula's text tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PyType {
    /// Always an `int` (or a bool).
    Int,
    /// Always a `float`.
    Float,
    /// An `int` for some jobs, a `float` for others (a resource is an int when whole).
    Either,
}

impl PyType {
    fn join(self, other: PyType) -> PyType {
        if self == other { self } else { PyType::Either }
    }
    /// The type of an arithmetic result that is an int when both operands are.
    fn arith(self, other: PyType) -> PyType {
        match (self, other) {
            (PyType::Float, _) | (_, PyType::Float) => PyType::Float,
            (PyType::Int, PyType::Int) => PyType::Int,
            _ => PyType::Either,
        }
    }
}

/// What the Python-int evaluation needs besides the IR.
#[derive(Debug, Clone, PartialEq)]
pub struct IntModel {
    /// Per node: the exact value of an integer literal or a bool constant.
    literals: Vec<Option<BigInt>>,
    /// Per input: a fairshare keyword (written with `%f`: always a float).
    fairshare: Vec<bool>,
}

impl IntModel {
    /// The model of `ir`, whose spans index `source` (integer literals are read back from
    /// it; with an empty source only `True`/`False` are ints).
    pub fn new(ir: &Ir, source: &str) -> IntModel {
        let literals = ir
            .nodes
            .iter()
            .map(|n| match n.expr {
                Expr::Const(c) if n.ty == Ty::Bool => Some(BigInt::from_i64(i64::from(c != 0.0))),
                Expr::Const(_) => {
                    let text = source.get(n.span.start..n.span.end)?;
                    match parse_number(text) {
                        Ok(lit) if lit.is_int => BigInt::from_decimal(text),
                        _ => None,
                    }
                }
                _ => None,
            })
            .collect();
        IntModel {
            literals,
            fairshare: ir.inputs.iter().map(|i| i.is_fairshare()).collect(),
        }
    }

    /// The model when Python ints can change a value or an error text of `ir`; `None` when
    /// they cannot (the proof is in the module documentation).
    pub fn needed(ir: &Ir, source: &str) -> Option<IntModel> {
        let model = IntModel::new(ir, source);
        model.int_sensitive(ir).then_some(model)
    }

    /// The Python type of every node of `ir`. Inputs: the fairshare keywords are floats
    /// (`%f`), `eligible_time`, `queue_priority`, `job_priority` and `accrue_type` ints (`%ld`,
    /// `%d`), a `long` resource an int, any other resource an int when whole.
    pub fn static_types(&self, ir: &Ir) -> Vec<PyType> {
        let mut t: Vec<PyType> = Vec::with_capacity(ir.nodes.len());
        for (i, node) in ir.nodes.iter().enumerate() {
            let ty = match &node.expr {
                Expr::Const(_) => {
                    if self.literals[i].is_some() {
                        PyType::Int
                    } else {
                        PyType::Float
                    }
                }
                Expr::Input(k) => match &ir.inputs[*k as usize] {
                    Input::Keyword(kw) if kw.is_fairshare() => PyType::Float,
                    Input::Keyword(_) => PyType::Int,
                    Input::Resource { ty, .. } if *ty == ResourceType::Long => PyType::Int,
                    Input::Resource { .. } => PyType::Either,
                },
                Expr::Unary(UnaryOp::Not, _) | Expr::Compare { .. } => PyType::Int,
                Expr::Unary(_, a) => t[a.index()],
                Expr::Binary(op, a, b) => {
                    let r = t[a.index()].arith(t[b.index()]);
                    match op {
                        BinaryOp::Div => PyType::Float,
                        // int ** negative int is a float.
                        BinaryOp::Pow if r == PyType::Int => match &self.literals[b.index()] {
                            Some(v) if !v.is_negative() => PyType::Int,
                            _ => PyType::Either,
                        },
                        _ => r,
                    }
                }
                Expr::And(a, b) | Expr::Or(a, b) => t[a.index()].join(t[b.index()]),
                Expr::IfElse {
                    then, otherwise, ..
                } => t[then.index()].join(t[otherwise.index()]),
                Expr::Call(f, args) => match f {
                    Func::Abs => t[args[0].index()],
                    Func::Min | Func::Max => args
                        .iter()
                        .map(|a| t[a.index()])
                        .reduce(PyType::join)
                        .unwrap_or(PyType::Float),
                    Func::Floor | Func::Ceil | Func::Trunc => PyType::Int,
                    Func::Round if args.len() == 1 => PyType::Int,
                    Func::Round => t[args[0].index()],
                    _ => PyType::Float,
                },
            };
            t.push(ty);
        }
        t
    }

    /// Whether some operation of `ir` behaves differently on Python ints.
    pub fn int_sensitive(&self, ir: &Ir) -> bool {
        let mut int_kind = vec![false; ir.nodes.len()];
        let is_int = |k: &[bool], n: NodeId| k[n.index()];
        for (i, node) in ir.nodes.iter().enumerate() {
            let kind = match &node.expr {
                Expr::Const(c) => match &self.literals[i] {
                    // A literal no double holds exactly (9007199254740993) is exact in Python.
                    Some(v) if BigInt::from_f64(*c).as_ref() != Some(v) => return true,
                    Some(_) => true,
                    None => false,
                },
                Expr::Input(k) => !self.fairshare[*k as usize],
                Expr::Unary(UnaryOp::Not, _) | Expr::Compare { .. } => true,
                Expr::Unary(UnaryOp::Pos, a) => is_int(&int_kind, *a),
                Expr::Unary(UnaryOp::Neg, a) => {
                    if is_int(&int_kind, *a) {
                        return true;
                    }
                    false
                }
                Expr::Binary(op, a, b) => {
                    if is_int(&int_kind, *a) && is_int(&int_kind, *b) {
                        let nonzero_literal = self.literals[b.index()]
                            .as_ref()
                            .is_some_and(|v| !v.is_zero());
                        if !(*op == BinaryOp::Div && nonzero_literal) {
                            return true;
                        }
                    }
                    false
                }
                Expr::And(a, b) | Expr::Or(a, b) => is_int(&int_kind, *a) || is_int(&int_kind, *b),
                Expr::IfElse {
                    then, otherwise, ..
                } => is_int(&int_kind, *then) || is_int(&int_kind, *otherwise),
                Expr::Call(f, args) => match f {
                    Func::Abs | Func::Min | Func::Max => args.iter().any(|a| is_int(&int_kind, *a)),
                    Func::Floor | Func::Ceil | Func::Trunc => true,
                    Func::Round if args.len() == 1 => true,
                    Func::Round => {
                        if is_int(&int_kind, args[0]) {
                            return true;
                        }
                        false
                    }
                    _ => false,
                },
            };
            int_kind[i] = kind;
        }
        false
    }

    /// Evaluate one job (inputs already rounded as PBS writes them): the final value, or the
    /// first error Python raises. An int value too large for a double is
    /// [`EvalError::IntResultTooLarge`] (pbs_sched crashes on it); a non-finite float is
    /// [`EvalError::NotFinite`] as in every backend.
    pub fn eval_job(&self, ir: &Ir, inputs: &[f64]) -> PyResult {
        match self.eval_node(ir, ir.root, inputs)? {
            Num::Float(v) => interp::finish(v),
            Num::Int(i) => i.to_f64().ok_or(EvalError::IntResultTooLarge),
        }
    }

    /// Evaluate a sub-expression as Python would.
    pub fn eval_node(&self, ir: &Ir, id: NodeId, inputs: &[f64]) -> NumResult {
        let node = ir.node(id);
        let ev = |n: NodeId| self.eval_node(ir, n, inputs);
        match &node.expr {
            Expr::Const(c) => Ok(match &self.literals[id.index()] {
                Some(v) => Num::Int(v.clone()),
                None => Num::Float(*c),
            }),
            Expr::Input(k) => {
                let v = inputs[*k as usize];
                Ok(if self.fairshare[*k as usize] {
                    Num::Float(v)
                } else {
                    match BigInt::from_f64(v) {
                        Some(i) => Num::Int(i),
                        None => Num::Float(v),
                    }
                })
            }
            Expr::Unary(op, a) => {
                let a = ev(*a)?;
                Ok(match op {
                    UnaryOp::Neg => int::neg(&a),
                    UnaryOp::Pos => a,
                    UnaryOp::Not => Num::bool(!a.truthy()),
                })
            }
            Expr::Binary(..) | Expr::And(..) | Expr::Or(..) => {
                let chain = ir.chain(id, |_| false);
                let mut v = ev(chain.first)?;
                for (_, link, b) in chain.outward() {
                    v = match link {
                        Link::Binary(op) => int::binary(op, &v, &ev(b)?)?,
                        Link::And if v.truthy() => ev(b)?,
                        Link::Or if !v.truthy() => ev(b)?,
                        Link::And | Link::Or => v,
                    };
                }
                Ok(v)
            }
            Expr::Compare { first, rest } => {
                let mut lhs = ev(*first)?;
                for (op, n) in rest {
                    let rhs = ev(*n)?;
                    if !int::compare(*op, &lhs, &rhs) {
                        return Ok(Num::bool(false));
                    }
                    lhs = rhs;
                }
                Ok(Num::bool(true))
            }
            Expr::IfElse {
                cond,
                then,
                otherwise,
            } => {
                if ev(*cond)?.truthy() {
                    ev(*then)
                } else {
                    ev(*otherwise)
                }
            }
            Expr::Call(func, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(ev(*a)?);
                }
                call(*func, &vals)
            }
        }
    }
}

/// A built-in function on Python numbers.
fn call(func: Func, args: &[Num]) -> NumResult {
    let Some(x) = args.first() else {
        // `hypot()`
        return float_call(func, args);
    };
    let rounding = |f: fn(f64) -> PyResult| match x {
        Num::Int(_) => Ok(x.clone()),
        Num::Float(v) => int::float_to_int(f(*v)),
    };
    match func {
        Func::Abs => Ok(int::abs(x)),
        Func::Max => Ok(int::max_min(args, true)),
        Func::Min => Ok(int::max_min(args, false)),
        Func::Floor => rounding(pymath::floor),
        Func::Ceil => rounding(pymath::ceil),
        Func::Trunc => rounding(pymath::trunc),
        Func::Round if args.len() == 1 => rounding(pymath::round),
        Func::Round => match &args[1] {
            Num::Int(n) => int::round_ndigits(x, n),
            Num::Float(_) => float_call(func, args),
        },
        Func::Log if args.len() == 2 => {
            let num = int::log_any(x, pymath::log)?;
            let den = int::log_any(&args[1], pymath::log)?;
            Ok(Num::Float(pymath::div(num, den)?))
        }
        Func::Log => Ok(Num::Float(int::log_any(x, pymath::log)?)),
        Func::Log2 => Ok(Num::Float(int::log_any(x, pymath::log2)?)),
        Func::Log10 => Ok(Num::Float(int::log_any(x, pymath::log10)?)),
        _ => float_call(func, args),
    }
}

/// A `math` function that takes `float(x)` of each argument, left to right.
fn float_call(func: Func, args: &[Num]) -> NumResult {
    let mut floats = Vec::with_capacity(args.len());
    for a in args {
        floats.push(a.to_float()?);
    }
    Ok(Num::Float(interp::call(func, &floats)?))
}

#[cfg(test)]
mod tests {
    use crate::catalog::Catalog;
    use crate::formula::{CompileOptions, Engine, Formula};

    /// 9007199254740993 is 2^53 + 1 in Python (`int`), 2^53 as a double: `ncpus <
    /// 9007199254740993` is true for ncpus = 2^53 only with the int (CPython
    /// `float_richcompare` compares an int exactly).
    #[test]
    fn an_integer_literal_no_double_holds_is_exact() {
        for engine in [Engine::Jit, Engine::Interp] {
            let options = CompileOptions {
                engine,
                compat_pbs: true,
                ..CompileOptions::default()
            };
            let f = Formula::compile_with("ncpus < 9007199254740993", &Catalog::pbs(), &options)
                .unwrap();
            assert_eq!(f.eval_one(&[9007199254740992.0]), Ok(1.0));
        }
    }
}
