//! Transfer functions: the interval of each operation's value given its operands' intervals,
//! and the diagnostics for operations that fail for some or all jobs reaching them.

use super::interval::{Env, INF, Interval, fmt_interval, hull_opt, min_max, mul_bound};
use super::{Analyzer, Mode, why_zero};
use crate::catalog::Input;
use crate::formula::diag::{Diagnostic, codes};
use crate::formula::interp;
use crate::formula::ir::{Expr, Func, NodeId, expr_children};
use crate::formula::pyint::PyType;
use crate::formula::pymath::int::{self, Num};
use crate::formula::pymath::{EvalError, PyResult};
use crate::formula::syntax::{BinaryOp, CmpOp, Link, UnaryOp};

impl Analyzer<'_> {
    /// The interval of a node's value over the jobs that reach it without error; `None` if
    /// no job gets a value from it (it always errs, or it is unreachable).
    pub(super) fn eval(&mut self, id: NodeId, env: &Env) -> Option<Interval> {
        let node = self.ir.node(id);
        let r = match &node.expr {
            // The overflow pass reads an infinite constant as the largest float, so what it
            // reaches is judged like any huge value (`pow(inf, y)` overflows for y > 1).
            Expr::Const(c) if self.mode == Mode::Overflow && c.is_infinite() => {
                Some(Interval::point(f64::MAX.copysign(*c)))
            }
            Expr::Const(c) => Some(Interval::point(*c)),
            Expr::Input(k) => env.get(*k as usize).copied(),
            Expr::Unary(op, a) => {
                let a = self.eval(*a, env)?;
                let nan = match &node.expr {
                    Expr::Unary(_, inner) => self.non_finite[inner.index()],
                    _ => false,
                };
                Some(match op {
                    UnaryOp::Neg => Interval::new(-a.hi, -a.lo).int(a.int),
                    UnaryOp::Pos => a,
                    UnaryOp::Not if nan => Interval::boolean(),
                    UnaryOp::Not => truth_interval(a, true),
                })
            }
            Expr::Binary(..) | Expr::And(..) | Expr::Or(..) => {
                // A chain (`a + b + c`) in a loop, not one call per link.
                let chain = self.ir.chain(id, |_| false);
                let mut left = chain.first;
                let mut acc = self.eval(left, env);
                for (n, link, right) in chain.outward() {
                    acc = self.link(n, link, left, acc, right, env);
                    left = n;
                }
                return acc;
            }
            Expr::Compare { first, rest } => {
                let mut vals = vec![self.eval(*first, env)];
                for (_, n) in rest {
                    vals.push(self.eval(*n, env));
                }
                let vals: Option<Vec<Interval>> = vals.into_iter().collect();
                let vals = vals?;
                // A NaN operand makes any comparison false (and `!=` true).
                if std::iter::once(first)
                    .chain(rest.iter().map(|(_, n)| n))
                    .any(|n| self.non_finite[n.index()])
                {
                    return Some(Interval::boolean());
                }
                let mut all_true = true;
                let mut some_false = false;
                for (i, (op, _)) in rest.iter().enumerate() {
                    match cmp_interval(*op, vals[i], vals[i + 1]) {
                        Some(true) => {}
                        Some(false) => some_false = true,
                        None => all_true = false,
                    }
                }
                Some(if some_false {
                    Interval::point(0.0)
                } else if all_true {
                    Interval::point(1.0)
                } else {
                    Interval::boolean()
                })
            }
            Expr::IfElse {
                cond,
                then,
                otherwise,
            } => {
                let ic = self.eval(*cond, env)?;
                let rt = if ic.can_be_truthy() || self.non_finite[cond.index()] {
                    match self.narrow(*cond, true, env) {
                        Some(e) => self.eval(*then, &e),
                        None => None,
                    }
                } else {
                    None
                };
                let rf = if ic.can_be_zero() {
                    match self.narrow(*cond, false, env) {
                        Some(e) => self.eval(*otherwise, &e),
                        None => None,
                    }
                } else {
                    None
                };
                hull_opt(rt, rf)
            }
            Expr::Call(func, args) => {
                let mut vals = Vec::with_capacity(args.len());
                let mut ok = true;
                for a in args {
                    match self.eval(*a, env) {
                        Some(v) => vals.push(v),
                        None => ok = false,
                    }
                }
                if !ok {
                    return None;
                }
                if self.is_const[id.index()] {
                    return self.exact(id);
                }
                let r = self.call(id, *func, args, &vals);
                // Finite arguments whose value can leave the float range (`exp`, `degrees`,
                // `hypot` of huge values); `pow` judges its own.
                if self.mode == Mode::Overflow
                    && *func != Func::Pow
                    && vals.iter().all(|v| v.is_finite())
                    && r.is_some_and(|r| !r.is_finite())
                {
                    let err = match func {
                        Func::Exp | Func::Expm1 | Func::Sinh | Func::Cosh => EvalError::MathRange,
                        _ => EvalError::NotFinite,
                    };
                    self.overflow(id, err);
                }
                r
            }
        };
        r.map(Interval::sane)
    }

    /// The interval of chain node `id` (`left link right`) given its left operand's
    /// interval `ia` (`None`: no job gets a value from it).
    fn link(
        &mut self,
        id: NodeId,
        link: Link,
        left: NodeId,
        ia: Option<Interval>,
        right: NodeId,
        env: &Env,
    ) -> Option<Interval> {
        let r = match link {
            Link::Binary(op) => {
                let ib = self.eval(right, env);
                let (ia, ib) = (ia?, ib?);
                if self.is_const[id.index()] {
                    return self.exact_binary(id, op, left, right, ia, ib);
                }
                self.binary(id, op, left, right, ia, ib)
            }
            Link::And | Link::Or => {
                let ia = ia?;
                let and = link == Link::And;
                // `a and b` is `a` (0) when `a` is falsy, else `b`; `a or b` is `a` when `a`
                // is truthy, else `b`, which is evaluated under the guard `a` is `and`.
                // A NaN (from an infinite or NaN constant) is truthy whatever the interval.
                let nan = self.non_finite[left.index()];
                let (left_value, reaches_right) = if and {
                    (
                        ia.can_be_zero().then(|| Interval::point(0.0)),
                        ia.can_be_truthy() || nan,
                    )
                } else {
                    (
                        if nan { Some(ia) } else { ia.without_zero() },
                        ia.can_be_zero(),
                    )
                };
                let rb = if reaches_right {
                    self.narrow(left, and, env)
                        .and_then(|guarded| self.eval(right, &guarded))
                } else {
                    None
                };
                hull_opt(left_value, rb)
            }
        };
        r.map(Interval::sane)
    }

    /// A constant `a op b`. When both operands are constants or constant arithmetic, their
    /// points are their exact values, so the value is one operation on them, as the evaluator
    /// computes it; anything else is evaluated from scratch ([`Analyzer::exact`]). (A chain
    /// of n constants would cost n² otherwise.)
    fn exact_binary(
        &mut self,
        id: NodeId,
        op: BinaryOp,
        a: NodeId,
        b: NodeId,
        ia: Interval,
        ib: Interval,
    ) -> Option<Interval> {
        if self.compat_pbs {
            // Python's numbers: the left operand's value is cached (a chain is linear).
            let left = self.exact_num(a);
            let right = self.exact_num(b);
            let result = match (left, right) {
                (Ok(x), Ok(y)) => int::binary(op, &x, &y),
                (Err(e), _) | (_, Err(e)) => Err(e),
            };
            return self.exact_num_result(id, result);
        }
        let exact = |n: NodeId, i: Interval| {
            matches!(self.ir.node(n).expr, Expr::Const(_) | Expr::Binary(..))
                && i.lo.to_bits() == i.hi.to_bits()
                && !i.lo.is_nan()
        };
        if exact(a, ia) && exact(b, ib) {
            self.exact_result(id, interp::binary(op, ia.lo, ib.lo))
        } else {
            self.exact(id)
        }
    }

    /// Evaluate a constant node exactly; its children are known not to fail.
    pub(super) fn exact(&mut self, id: NodeId) -> Option<Interval> {
        if self.compat_pbs {
            let result = self.exact_num(id);
            return self.exact_num_result(id, result);
        }
        let result = interp::eval_node(self.ir, id, &[]);
        self.exact_result(id, result)
    }

    /// Under `--compat pbs`: the Python value of constant node `id` (cached).
    fn exact_num(&mut self, id: NodeId) -> Result<Num, EvalError> {
        if let Some(v) = self.const_nums.get(&id.0) {
            return Ok(v.clone());
        }
        let v = self.model.eval_node(self.ir, id, &[])?;
        self.const_nums.insert(id.0, v.clone());
        Ok(v)
    }

    /// [`Analyzer::exact_result`] for a Python value (cached); an int beyond a double is an
    /// unbounded interval of its sign.
    fn exact_num_result(&mut self, id: NodeId, result: Result<Num, EvalError>) -> Option<Interval> {
        match result {
            Ok(v) => {
                self.const_nums.insert(id.0, v.clone());
                Some(match v {
                    Num::Float(x) => {
                        self.note_constant(id, x);
                        self.constant_point(x)
                    }
                    Num::Int(i) => match i.to_f64() {
                        Some(x) => Interval::point(x),
                        None if i.is_negative() => Interval::new(-INF, -f64::MAX).int(true),
                        None => Interval::new(f64::MAX, INF).int(true),
                    },
                })
            }
            Err(e) => self.exact_result(id, Err(e)),
        }
    }

    /// A constant node's value: one that is not finite although written with finite numbers
    /// (`1e300 * 1e300`) is where an infinity starts ([`super::infinite::may_be_non_finite`]).
    fn note_constant(&mut self, id: NodeId, v: f64) {
        if !v.is_finite() && !self.non_finite[id.index()] {
            self.non_finite_constants.push(id);
        }
    }

    /// The interval of a constant's value; the overflow pass reads an infinity as the largest
    /// float (see [`Analyzer::eval`]).
    fn constant_point(&self, v: f64) -> Interval {
        if self.mode == Mode::Overflow && v.is_infinite() {
            Interval::point(f64::MAX.copysign(v))
        } else {
            Interval::point(v)
        }
    }

    /// The interval of constant node `id` whose value is `result`; an error is diagnosed.
    fn exact_result(&mut self, id: NodeId, result: PyResult) -> Option<Interval> {
        match result {
            Ok(v) => {
                self.note_constant(id, v);
                Some(self.constant_point(v))
            }
            Err(e) => {
                let code = match e {
                    EvalError::FloatDivisionByZero
                    | EvalError::FloatFloorDivisionByZero
                    | EvalError::FloatModulo
                    | EvalError::ZeroToNegativePower
                    | EvalError::IntDivisionByZero
                    | EvalError::IntFloorDivisionByZero
                    | EvalError::IntModuloByZero => codes::DIV_ZERO,
                    _ => codes::ALWAYS_FAILS,
                };
                let span = self.ir.node(id).span;
                let text = self.text(id).to_string();
                self.emit(Diagnostic::error(
                    code,
                    format!("`{text}` always fails: {}", e.message()),
                    span,
                ));
                None
            }
        }
    }

    pub(super) fn binary(
        &mut self,
        id: NodeId,
        op: BinaryOp,
        a: NodeId,
        b: NodeId,
        ia: Interval,
        ib: Interval,
    ) -> Option<Interval> {
        let r = self.arithmetic(id, op, a, b, ia, ib);
        // Finite operands whose result can leave the float range: an overflow (the value
        // becomes infinite, which is an error where it reaches the formula's value).
        let exact_int = self.compat_pbs
            && op != BinaryOp::Div
            && self.types[a.index()] == PyType::Int
            && self.types[b.index()] == PyType::Int;
        if self.mode == Mode::Overflow
            && op != BinaryOp::Pow
            && exact_int
            && r.is_some_and(|r| !r.is_finite())
            // An operand already beyond a float was judged where it became so (a chain is
            // judged once, at its first such link); a constant one is judged here.
            && (ia.is_finite() || self.is_const[a.index()])
            && (ib.is_finite() || self.is_const[b.index()])
            && let Some(err) = self.huge_int_consumer(id)
        {
            // Under --compat pbs an int op is exact: the error is where the int meets a float.
            self.overflow(id, err);
        } else if self.mode == Mode::Overflow
            && op != BinaryOp::Pow
            && !exact_int
            && (ia.is_finite() || self.is_const[a.index()])
            && (ib.is_finite() || self.is_const[b.index()])
            && r.is_some_and(|r| !r.is_finite())
        {
            let span = self.ir.node(id).span;
            let inputs = self.inputs_text(id);
            let why = if matches!(op, BinaryOp::Div | BinaryOp::FloorDiv | BinaryOp::Mod) {
                "a large dividend or a divisor near 0"
            } else {
                "large values"
            };
            self.emit(
                Diagnostic::warning(
                    codes::MAYBE_OVERFLOW,
                    format!(
                        "possible overflow: `{}` exceeds the float range for {why} of {inputs}",
                        self.text(id)
                    ),
                    span,
                )
                .with_note(
                    "its value is then infinite: where that reaches the formula's value, the job gets 0 and the error \"formula value is not finite\"",
                ),
            );
        }
        r
    }

    fn arithmetic(
        &mut self,
        id: NodeId,
        op: BinaryOp,
        a: NodeId,
        b: NodeId,
        ia: Interval,
        ib: Interval,
    ) -> Option<Interval> {
        let int = ia.int && ib.int;
        match op {
            BinaryOp::Add => Some(Interval::new(ia.lo + ib.lo, ia.hi + ib.hi).int(int)),
            BinaryOp::Sub => Some(Interval::new(ia.lo - ib.hi, ia.hi - ib.lo).int(int)),
            BinaryOp::Mul => {
                let c = [
                    mul_bound(ia.lo, ib.lo),
                    mul_bound(ia.lo, ib.hi),
                    mul_bound(ia.hi, ib.lo),
                    mul_bound(ia.hi, ib.hi),
                ];
                let (lo, hi) = min_max(&c);
                Some(Interval::new(lo, hi).int(int))
            }
            BinaryOp::Div | BinaryOp::FloorDiv | BinaryOp::Mod => {
                let (err, alt) = self.zero_division(op, a, b);
                let ib = self.divisor(id, b, ib, err, alt)?;
                Some(match op {
                    BinaryOp::Div => div_interval(ia, ib),
                    BinaryOp::FloorDiv => floor_div_interval(ia, ib),
                    _ => mod_interval(ia, ib),
                })
            }
            BinaryOp::Pow => self.power(id, a, b, ia, ib, false),
        }
    }

    /// The error of `a op b` (`/`, `//`, `%`) for a zero divisor, and the other one some jobs
    /// get. Python's ints (`--compat pbs`) have their own texts; a divisor that is an input is
    /// an int when it is 0 (pbs_sched writes `0`).
    fn zero_division(&self, op: BinaryOp, a: NodeId, b: NodeId) -> (EvalError, Option<EvalError>) {
        let float = match op {
            BinaryOp::Div => EvalError::FloatDivisionByZero,
            BinaryOp::FloorDiv => EvalError::FloatFloorDivisionByZero,
            _ => EvalError::FloatModulo,
        };
        if !self.compat_pbs {
            return (float, None);
        }
        let int = match op {
            BinaryOp::Div => EvalError::IntDivisionByZero,
            BinaryOp::FloorDiv => EvalError::IntFloorDivisionByZero,
            _ => EvalError::IntModuloByZero,
        };
        let divisor_int = match self.types[b.index()] {
            PyType::Int => Some(true),
            PyType::Float => Some(false),
            PyType::Either => self.input(b).is_some().then_some(true),
        };
        let dividend_int = match self.types[a.index()] {
            PyType::Int => Some(true),
            PyType::Float => Some(false),
            PyType::Either => None,
        };
        match (dividend_int, divisor_int) {
            (Some(true), Some(true)) => (int, None),
            (Some(false), _) | (_, Some(false)) => (float, None),
            _ => (int, Some(float)),
        }
    }

    /// Check a divisor; returns its interval without 0, or `None` if it is always 0. `err` is
    /// the error of a zero divisor, `alt` the other one some jobs get (see
    /// [`Analyzer::zero_division`]).
    pub(super) fn divisor(
        &mut self,
        id: NodeId,
        b: NodeId,
        ib: Interval,
        err: EvalError,
        alt: Option<EvalError>,
    ) -> Option<Interval> {
        // The error in words, bare (after a colon) and quoted (in a note).
        let (bare, quoted) = match alt {
            None => (err.message().to_string(), format!("\"{}\"", err.message())),
            Some(alt) => (
                format!(
                    "{} (or {} where a value is not a whole number: Python's int and float)",
                    err.message(),
                    alt.message()
                ),
                format!(
                    "\"{}\" (\"{}\" where a value is not a whole number: Python's int and float)",
                    err.message(),
                    alt.message()
                ),
            ),
        };
        if !ib.can_be_zero() {
            return Some(ib);
        }
        let span = self.ir.node(b).span;
        let btext = self.text(b).to_string();
        if ib.always_zero() {
            let whole = self.ir.node(id).span;
            self.emit(
                Diagnostic::error(
                    codes::DIV_ZERO,
                    format!("the divisor `{btext}` is always 0: {bare}"),
                    span,
                )
                .with_label(whole, "every job that evaluates this fails"),
            );
            return None;
        }
        let d = if let Some(input) = self.input(b) {
            let why = why_zero(input, self.catalog);
            let name = input.name();
            Diagnostic::warning(
                codes::MAYBE_DIV_ZERO,
                format!("possible division by zero: {why}"),
                span,
            )
            .with_note(format!(
                "a job with {name} = 0 gets the value 0 and the error {quoted}"
            ))
            .with_note(format!(
                "help: guard it, e.g. `{} if {name} > 0 else 0`",
                self.text(id)
            ))
        } else {
            let mut inputs = Vec::new();
            self.collect_inputs(b, &mut inputs);
            let mut d = Diagnostic::warning(
                codes::MAYBE_DIV_ZERO,
                format!(
                    "possible division by zero: the divisor `{btext}` can be 0 (its values lie in {})",
                    fmt_interval(ib)
                ),
                span,
            )
            .with_note(format!(
                "a job for which it is 0 gets the value 0 and the error {quoted}"
            ));
            for input in inputs {
                let zero_when_absent = match input {
                    Input::Keyword(_) => true,
                    Input::Resource { name, .. } => {
                        self.catalog.resource(name).is_some_and(|r| r.builtin)
                    }
                };
                if zero_when_absent {
                    d = d.with_note(why_zero(input, self.catalog));
                }
            }
            d.with_note(format!(
                "help: guard it, e.g. `{} if {btext} != 0 else 0`",
                self.text(id)
            ))
        };
        self.emit(d);
        let rest = ib.without_zero()?;
        Some(match self.ir.node(b).expr {
            Expr::Input(k) => self.no_tiny(k as usize, rest),
            _ => rest,
        })
    }

    /// The inputs `id` reads, each once, in source order (depth first, with a stack: a long
    /// chain is deep).
    pub(super) fn collect_inputs<'s>(&'s self, id: NodeId, out: &mut Vec<&'s Input>) {
        let mut stack = vec![id];
        while let Some(id) = stack.pop() {
            if let Some(input) = self.input(id) {
                if !out.contains(&input) {
                    out.push(input);
                }
                continue;
            }
            stack.extend(expr_children(&self.ir.node(id).expr).into_iter().rev());
        }
    }

    pub(super) fn inputs_text(&self, id: NodeId) -> String {
        let mut names = Vec::new();
        self.collect_inputs(id, &mut names);
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A possible (warning) or certain (error) domain error at `id`.
    pub(super) fn domain(&mut self, id: NodeId, certain: bool, what: String, err: EvalError) {
        let span = self.ir.node(id).span;
        let d = if certain {
            let code = if matches!(err, EvalError::ZeroToNegativePower) {
                codes::DIV_ZERO
            } else {
                codes::ALWAYS_FAILS
            };
            Diagnostic::error(
                code,
                format!(
                    "`{}` always fails: {what} ({})",
                    self.text(id),
                    err.message()
                ),
                span,
            )
        } else {
            let kind = match err {
                EvalError::MathDomain => "possible math domain error".to_string(),
                EvalError::FloatDivisionByZero | EvalError::ZeroToNegativePower => {
                    "possible division by zero".to_string()
                }
                _ => "possible error".to_string(),
            };
            Diagnostic::warning(codes::MAYBE_DOMAIN, format!("{kind}: {what}"), span).with_note(
                format!(
                    "a job for which this fails gets the value 0 and the error \"{}\"",
                    err.message()
                ),
            )
        };
        self.emit(d);
    }

    pub(super) fn overflow(&mut self, id: NodeId, err: EvalError) {
        let span = self.ir.node(id).span;
        let inputs = self.inputs_text(id);
        self.emit(
            Diagnostic::warning(
                codes::MAYBE_OVERFLOW,
                format!(
                    "possible overflow: `{}` exceeds the float range for large values of {inputs}",
                    self.text(id)
                ),
                span,
            )
            .with_note(format!(
                "such jobs get the value 0 and the error \"{}\"",
                err.message()
            )),
        );
    }

    /// `**` (`math_pow == false`) or `pow()`.
    pub(super) fn power(
        &mut self,
        id: NodeId,
        a: NodeId,
        b: NodeId,
        base: Interval,
        exp: Interval,
        math_pow: bool,
    ) -> Option<Interval> {
        let zero_err = if math_pow {
            EvalError::MathDomain
        } else {
            EvalError::ZeroToNegativePower
        };
        let neg_err = if math_pow {
            EvalError::MathDomain
        } else {
            EvalError::NegativeToFractionalPower
        };
        let range_err = if math_pow {
            EvalError::MathRange
        } else {
            EvalError::PowRange
        };
        let mut base = base;
        // 0 to a negative power.
        if base.can_be_zero() && exp.lo < 0.0 {
            let certain = base.always_zero() && exp.hi < 0.0;
            self.domain(
                id,
                certain,
                format!(
                    "the base can be 0 while the exponent `{}` can be negative",
                    self.text(b)
                ),
                zero_err,
            );
            if certain {
                return None;
            }
            if exp.hi < 0.0 {
                base = base.without_zero()?;
            }
        }
        // A negative base to a fractional power.
        if base.lo < 0.0 && !exp.int {
            if !math_pow && self.mode == Mode::Sound && self.quiet == 0 {
                self.complex_crash(id, a, b);
            }
            let certain = base.hi < 0.0 && exp.is_point();
            self.domain(
                id,
                certain,
                "a negative base with an exponent that is not a whole number".to_string(),
                neg_err,
            );
            if certain {
                return None;
            }
        }
        let r = pow_interval(base, exp);
        // Under --compat pbs an int to an int is exact: no overflow here (what becomes of a
        // huge int is judged where it meets a float, or at the formula's value).
        let exact_int = self.compat_pbs
            && !math_pow
            && self.types[a.index()] == PyType::Int
            && self.types[b.index()] == PyType::Int;
        if self.mode == Mode::Overflow && base.is_finite() && exp.is_finite() && !r.is_finite() {
            if !exact_int {
                self.overflow(id, range_err);
            } else if let Some(err) = self.huge_int_consumer(id) {
                self.overflow(id, err);
            }
        }
        Some(r)
    }
}

/// Whether `a op b` is certainly true (`Some(true)`), certainly false, or unknown.
pub(super) fn cmp_interval(op: CmpOp, a: Interval, b: Interval) -> Option<bool> {
    let lt = if a.hi < b.lo {
        Some(true)
    } else if a.lo >= b.hi {
        Some(false)
    } else {
        None
    };
    let le = if a.hi <= b.lo {
        Some(true)
    } else if a.lo > b.hi {
        Some(false)
    } else {
        None
    };
    let eq = if a.is_point() && b.is_point() && a.lo == b.lo {
        Some(true)
    } else if a.hi < b.lo || b.hi < a.lo {
        Some(false)
    } else {
        None
    };
    match op {
        CmpOp::Lt => lt,
        CmpOp::Le => le,
        CmpOp::Gt => cmp_interval(CmpOp::Lt, b, a),
        CmpOp::Ge => cmp_interval(CmpOp::Le, b, a),
        CmpOp::Eq => eq,
        CmpOp::Ne => eq.map(|v| !v),
    }
}

/// The interval of Python truthiness (`not x` when `negate`).
pub(super) fn truth_interval(a: Interval, negate: bool) -> Interval {
    let t = if a.always_zero() {
        Some(false)
    } else if !a.can_be_zero() {
        Some(true)
    } else {
        None
    };
    match t.map(|t| t != negate) {
        Some(true) => Interval::point(1.0),
        Some(false) => Interval::point(0.0),
        None => Interval::boolean(),
    }
}

/// `a / b` for a divisor interval that does not contain 0 in its interior... or does: then
/// the result is unbounded.
pub(super) fn div_interval(a: Interval, b: Interval) -> Interval {
    if b.lo < 0.0 && b.hi > 0.0 {
        // A whole divisor other than 0 is at least 1 in magnitude.
        if b.int {
            let m = a.lo.abs().max(a.hi.abs());
            return Interval::new(-m, m);
        }
        return Interval::full();
    }
    let q = |x: f64, y: f64| {
        if x == 0.0 {
            0.0
        } else if y.is_infinite() && x.is_infinite() {
            // inf/inf as a limit of finite values: anything; bounded by the caller's hull.
            if (x > 0.0) == (y > 0.0) { INF } else { -INF }
        } else {
            x / y
        }
    };
    let c = [q(a.lo, b.lo), q(a.lo, b.hi), q(a.hi, b.lo), q(a.hi, b.hi)];
    let (mut lo, mut hi) = min_max(&c);
    // inf/inf bounds: the quotient of large values can be anything of that sign.
    if c.iter().any(|v| v.is_nan()) {
        lo = -INF;
        hi = INF;
    }
    Interval::new(lo, hi)
}

/// `a // b` as Python computes it for floats (`float_floor_div`, `_float_div_mod` in
/// `Objects/floatobject.c`): `(a - fmod(a, b)) / b`, less 1 when the remainder's sign differs
/// from `b`'s, then rounded. That is the floor of the exact quotient, which can be 1 below
/// the floor of the rounded quotient `a / b` (`95 // 0.1` is 949 while `95 / 0.1` is 950.0;
/// `0.5 // -inf` is -1 while `0.5 / -inf` is -0.0); above 2^52 the values are whole and
/// their spacing exceeds 1, so the slack is relative there.
pub(super) fn floor_div_interval(a: Interval, b: Interval) -> Interval {
    const WHOLE: f64 = 4_503_599_627_370_496.0; // 2^52
    let q = div_interval(a, b);
    // Whole operands below 2^53 divide into a quotient whose rounding never reaches the next
    // whole number (their exact quotient is at least 1/|b| away from it).
    let exact = a.int
        && b.int
        && a.lo.abs().max(a.hi.abs()) <= 2.0 * WHOLE
        && b.lo.abs().max(b.hi.abs()) <= 2.0 * WHOLE;
    let lo = if !q.lo.is_finite() {
        q.lo
    } else if q.lo.abs() >= WHOLE {
        (q.lo - q.lo.abs() * f64::EPSILON * 4.0).floor()
    } else if q.lo.fract() == 0.0 && !exact {
        q.lo - 1.0
    } else {
        q.lo.floor()
    };
    let hi = if q.hi.is_finite() && q.hi.abs() >= WHOLE {
        (q.hi + q.hi.abs() * f64::EPSILON * 4.0).floor()
    } else {
        q.hi.floor()
    };
    Interval::new(lo, hi).int(true)
}

pub(super) fn mod_interval(a: Interval, b: Interval) -> Interval {
    let m = b.lo.abs().max(b.hi.abs());
    let int = a.int && b.int;
    if b.lo > 0.0 {
        // result in [0, b)
        let hi = if a.lo >= 0.0 { a.hi.min(m) } else { m };
        Interval::new(0.0, hi).int(int)
    } else if b.hi < 0.0 {
        let lo = if a.hi <= 0.0 { a.lo.max(-m) } else { -m };
        Interval::new(lo, 0.0).int(int)
    } else {
        Interval::new(-m, m).int(int)
    }
}

/// `x ** y` over a box with `x >= 0` (or an integral exponent); bilinear in `(ln x, y)`, so
/// the extremes are at the corners, plus `x == 0` and `|x| == 1` handled as limits.
pub(super) fn pow_interval(base: Interval, exp: Interval) -> Interval {
    let p = |x: f64, y: f64| {
        if y == 0.0 { 1.0 } else { x.powf(y) }
    };
    if base.lo >= 0.0 {
        let mut c = vec![
            p(base.lo, exp.lo),
            p(base.lo, exp.hi),
            p(base.hi, exp.lo),
            p(base.hi, exp.hi),
        ];
        if exp.contains(0.0) {
            c.push(1.0);
        }
        let (lo, hi) = min_max(&c);
        let lo = if lo.is_nan() { 0.0 } else { lo };
        let hi = if hi.is_nan() { INF } else { hi };
        return Interval::new(lo, hi).int(base.int && exp.int && exp.lo >= 0.0);
    }
    // Negative base, integral exponent(s).
    // Parity is known only where whole numbers are exact (an int exponent beyond 2^53 is
    // rounded in the interval's floats).
    if exp.is_point() && exp.lo.abs() < 9_007_199_254_740_992.0 {
        let n = exp.lo;
        let odd = (n % 2.0).abs() == 1.0;
        if n > 0.0 {
            if odd {
                return Interval::new(p(base.lo, n), p(base.hi, n)).int(base.int);
            }
            let a = p(base.lo.abs(), n);
            let b = p(base.hi.abs(), n);
            let lo = if base.contains(0.0) { 0.0 } else { a.min(b) };
            return Interval::new(lo, a.max(b)).int(base.int);
        }
    }
    let m = base.lo.abs().max(base.hi.abs());
    let big = [p(m, exp.lo), p(m, exp.hi), 1.0]
        .into_iter()
        .fold(0.0f64, |acc, v| if v.is_nan() { INF } else { acc.max(v) });
    let big = if base.contains(0.0) && exp.lo < 0.0 {
        INF
    } else {
        big
    };
    Interval::new(-big, big)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pow_corners() {
        let r = pow_interval(Interval::new(0.5, 2.0), Interval::new(-1.0, 1.0));
        assert_eq!((r.lo, r.hi), (0.5, 2.0));
        let r = pow_interval(Interval::new(-3.0, 2.0), Interval::point(2.0));
        assert_eq!((r.lo, r.hi), (0.0, 9.0));
    }
}
