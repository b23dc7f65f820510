//! Hazard analysis: interval (abstract) evaluation of the typed IR over the domain of every
//! input (SPEC §1.6).
//!
//! Domains: PBS built-in resources `[0, ∞)`, custom resources `(-∞, ∞)` (or as declared),
//! keywords [`Keyword::domain`]. Long, size and time resources and the integer keywords hold
//! whole numbers, so `ncpus > 0` narrows `ncpus` to `[1, ∞)`.
//!
//! Guards narrow: the condition of `a if c else b` narrows the inputs in each branch (`c` true
//! in `a`, false in `b`), `c and x` narrows `x` by `c` true, `c or x` by `c` false.
//! Comparisons of an input with anything whose interval is known, truthiness of an input,
//! `not`, `and` and `or` are understood; a branch the guard makes impossible is not analysed
//! (its errors can never happen).
//!
//! What is reported (codes in [`super::diag`]):
//! - constant sub-expressions are evaluated exactly (with [`interp::eval_node`]); one that
//!   fails is an error (`E0301` division by zero, `E0302` domain/range), as is an operation
//!   whose operand interval makes it fail for every job that reaches it;
//! - an operand interval that makes it fail for some jobs is a warning: `W0401` division by
//!   zero (naming the input and when it is 0), `W0402` domain error, `W0403` overflow;
//! - `W0404` the formula reads no job attribute; `N0501` the hand-written
//!   `fairshare_factor`; `N0502` (`--compat pbs`) values beyond ±2^24.
//!
//! Overflow is judged on inputs bounded by 2^63 (PBS stores numeric resources in 64 bits),
//! so `ncpus ** 2` is fine while `2 ** ncpus` and `exp(walltime)` warn; every other hazard
//! and the value range use the unbounded domains.

use super::catalog::{Catalog, Input, Keyword, ResourceType};
use super::check::CheckOptions;
use super::diag::{Diagnostic, codes};
use super::interp;
use super::ir::{BinaryOp, CmpOp, Expr, Func, Ir, NodeId, Span, UnaryOp, expr_children};
use super::pymath::EvalError;

/// What the hazard analysis found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    /// The interval of values jobs get (0 included when some job can err). `None` if
    /// every job errs.
    pub range: Option<(f64, f64)>,
}

/// A closed interval of values; `int` when every value in it is a whole number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
    pub int: bool,
}

const INF: f64 = f64::INFINITY;
/// The bound the overflow check puts on unbounded inputs.
const OVERFLOW_BOUND: f64 = 9.223_372_036_854_776e18;
/// PBS stores the value in a C float: whole numbers above this are not all representable.
const FLOAT32_EXACT: f64 = 16_777_216.0;

impl Interval {
    pub fn new(lo: f64, hi: f64) -> Interval {
        Interval { lo, hi, int: false }
    }
    pub fn point(v: f64) -> Interval {
        Interval {
            lo: v,
            hi: v,
            int: v.fract() == 0.0,
        }
    }
    fn full() -> Interval {
        Interval::new(-INF, INF)
    }
    fn boolean() -> Interval {
        Interval {
            lo: 0.0,
            hi: 1.0,
            int: true,
        }
    }
    fn int(mut self, int: bool) -> Interval {
        self.int = int;
        self
    }
    /// Repair NaN bounds (from `inf - inf` and the like) by widening.
    fn sane(self) -> Interval {
        Interval {
            lo: if self.lo.is_nan() { -INF } else { self.lo },
            hi: if self.hi.is_nan() { INF } else { self.hi },
            int: self.int,
        }
    }
    pub fn contains(self, v: f64) -> bool {
        self.lo <= v && v <= self.hi
    }
    pub fn is_point(self) -> bool {
        self.lo == self.hi
    }
    fn can_be_zero(self) -> bool {
        self.contains(0.0)
    }
    fn always_zero(self) -> bool {
        self.lo == 0.0 && self.hi == 0.0
    }
    fn can_be_truthy(self) -> bool {
        !self.always_zero()
    }
    fn is_finite(self) -> bool {
        self.lo.is_finite() && self.hi.is_finite()
    }
    fn hull(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            int: self.int && o.int,
        }
    }
    fn meet(self, o: Interval) -> Option<Interval> {
        let r = Interval {
            lo: self.lo.max(o.lo),
            hi: self.hi.min(o.hi),
            int: self.int || o.int,
        };
        let r = if r.int {
            Interval {
                lo: r.lo.ceil(),
                hi: r.hi.floor(),
                int: true,
            }
        } else {
            r
        };
        (r.lo <= r.hi).then_some(r)
    }
    /// The part of the interval without 0 (a hull; `None` if it is exactly 0).
    fn without_zero(self) -> Option<Interval> {
        if !self.can_be_zero() {
            return Some(self);
        }
        if self.always_zero() {
            return None;
        }
        let (lo, hi) = (self.lo, self.hi);
        let step_up = if self.int {
            1.0
        } else {
            f64::MIN_POSITIVE.min(5e-324)
        };
        if lo == 0.0 {
            Some(Interval::new(if self.int { 1.0 } else { step_up }, hi).int(self.int))
        } else if hi == 0.0 {
            Some(Interval::new(lo, if self.int { -1.0 } else { -step_up }).int(self.int))
        } else {
            Some(self)
        }
    }
}

fn hull_opt(a: Option<Interval>, b: Option<Interval>) -> Option<Interval> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.hull(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// `0 * inf` as a limit of finite values is 0.
fn mul_bound(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 { 0.0 } else { a * b }
}

fn min_max(vals: &[f64]) -> (f64, f64) {
    let lo = vals.iter().copied().fold(INF, f64::min);
    let hi = vals.iter().copied().fold(-INF, f64::max);
    (lo, hi)
}

fn next_up(v: f64) -> f64 {
    v.next_up()
}
fn next_down(v: f64) -> f64 {
    v.next_down()
}

/// Input environment: an interval per input column.
type Env = Vec<Interval>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Real domains; reports everything but overflow.
    Sound,
    /// Inputs bounded by 2^63; reports only overflow.
    Overflow,
}

struct Analyzer<'a> {
    ir: &'a Ir,
    source: &'a str,
    catalog: &'a Catalog,
    is_const: Vec<bool>,
    mode: Mode,
    /// >0 while evaluating for narrowing (no diagnostics, no narrowing inside).
    quiet: u32,
    diags: Vec<Diagnostic>,
    may_err: bool,
    /// Steps left for narrowing; when spent, guards stop narrowing (sound, less precise),
    /// which bounds the analysis on adversarial nestings of conditions.
    budget: u32,
}

/// Narrowing steps per analysis run.
const NARROW_BUDGET: u32 = 20_000;

/// Analyse a checked formula: hazards as diagnostics, and the formula's value range.
pub fn analyze(ir: &Ir, source: &str, catalog: &Catalog, options: &CheckOptions) -> Report {
    let mut is_const = vec![false; ir.nodes.len()];
    for (i, node) in ir.nodes.iter().enumerate() {
        is_const[i] = match &node.expr {
            Expr::Input(_) => false,
            e => expr_children(e).iter().all(|c| is_const[c.index()]),
        };
    }
    let domains = input_domains(ir, catalog);
    let mut a = Analyzer {
        ir,
        source,
        catalog,
        is_const,
        mode: Mode::Sound,
        quiet: 0,
        diags: Vec::new(),
        may_err: false,
        budget: NARROW_BUDGET,
    };
    let root = a.eval(ir.root, &domains);
    let mut diags = std::mem::take(&mut a.diags);
    let may_err = a.may_err;

    let clamped: Env = domains
        .iter()
        .map(|d| Interval::new(d.lo.max(-OVERFLOW_BOUND), d.hi.min(OVERFLOW_BOUND)).int(d.int))
        .collect();
    a.mode = Mode::Overflow;
    a.may_err = false;
    a.budget = NARROW_BUDGET;
    a.eval(ir.root, &clamped);
    diags.append(&mut a.diags);
    let may_err = may_err || a.may_err;

    let whole = Span::new(0, source.len());
    let root_span = ir.node(ir.root).span;
    if a.is_const[ir.root.index()] && root.is_some() {
        if let (Err(_), Ok(v)) = (
            interp::eval_job(ir, &[]),
            interp::eval_node(ir, ir.root, &[]),
        ) {
            diags.push(Diagnostic::error(
                codes::NOT_FINITE,
                format!("the formula's value is always {v}, which is not finite: every job would get 0 and an error"),
                root_span,
            ));
        }
    } else if let Some(r) = root
        && (r.lo == INF || r.hi == -INF)
    {
        diags.push(Diagnostic::error(
            codes::NOT_FINITE,
            "the formula's value is never finite: every job gets 0 and an error",
            root_span,
        ));
    }
    if ir.inputs.is_empty() {
        diags.push(
            Diagnostic::warning(
                codes::CONSTANT,
                "the formula reads no job attribute: every job gets the same value, so jobs are ordered by submission only",
                whole,
            )
            .with_note("use resources (`ncpus`, `walltime`, ...) or keywords (`eligible_time`, `fairshare_factor`, ...)"),
        );
    }
    fairshare_lint(ir, &mut diags);

    let range = root.map(|r| {
        let r = if may_err {
            r.hull(Interval::point(0.0))
        } else {
            r
        };
        (r.lo, r.hi)
    });
    if options.compat_pbs
        && let Some((lo, hi)) = range
        && (hi > FLOAT32_EXACT || lo < -FLOAT32_EXACT)
    {
        let shown = |v: f64| {
            if v.is_infinite() {
                if v > 0.0 {
                    "inf".to_string()
                } else {
                    "-inf".to_string()
                }
            } else {
                format!("{v}")
            }
        };
        diags.push(
            Diagnostic::note(
                codes::FLOAT32,
                format!(
                    "values can exceed 2^24 = 16777216 in magnitude (range [{}, {}]): PBS stores the value in a 32-bit float, so jobs whose values differ only beyond its precision tie",
                    shown(lo),
                    shown(hi)
                ),
                root_span,
            )
            .with_note("e.g. 16777216 and 16777217 are the same 32-bit float; scale the formula down if such jobs must be ordered"),
        );
    }
    Report {
        diagnostics: diags,
        range,
    }
}

/// The domain of every input column.
fn input_domains(ir: &Ir, catalog: &Catalog) -> Env {
    ir.inputs
        .iter()
        .map(|input| match input {
            Input::Keyword(k) => {
                let (lo, hi) = k.domain();
                Interval::new(lo, hi).int(!k.is_fairshare())
            }
            Input::Resource { name, ty } => {
                let int = matches!(
                    ty,
                    ResourceType::Long | ResourceType::Size | ResourceType::Time
                );
                match catalog.resource(name) {
                    Some(r) => Interval::new(r.domain.0, r.domain.1).int(int),
                    None => Interval::full(),
                }
            }
        })
        .collect()
}

/// Why an input can be 0, in words.
fn why_zero(input: &Input, catalog: &Catalog) -> String {
    match input {
        Input::Keyword(Keyword::FairsharePerc) => {
            "fairshare_perc is 0 for entities with no shares; PBS gives those jobs 0".into()
        }
        Input::Keyword(Keyword::FairshareFactor) => {
            "fairshare_factor is 0 for entities with no shares".into()
        }
        Input::Keyword(Keyword::FairshareTreeUsage) => {
            "fairshare_tree_usage is 0 for entities with no usage".into()
        }
        Input::Keyword(Keyword::EligibleTime) => {
            "eligible_time is 0 for a job that has just become eligible".into()
        }
        Input::Keyword(Keyword::QueuePriority) => {
            "queue_priority is 0 for a queue without a Priority".into()
        }
        Input::Keyword(Keyword::JobPriority) => {
            "job_priority is 0 unless the job's Priority is set".into()
        }
        Input::Keyword(Keyword::AccrueType) => {
            "accrue_type is 0 for a job in its initial state".into()
        }
        Input::Resource { name, .. } => match catalog.resource(name) {
            Some(r) if r.builtin => format!("{name} is 0 when a job does not request it"),
            _ => format!("{name} can be 0 (it is 0 when a job does not request it)"),
        },
    }
}

fn fmt_interval(i: Interval) -> String {
    let b = |v: f64| {
        if v == INF {
            "inf".to_string()
        } else if v == -INF {
            "-inf".to_string()
        } else {
            format!("{v}")
        }
    };
    format!("[{}, {}]", b(i.lo), b(i.hi))
}

impl Analyzer<'_> {
    fn text(&self, id: NodeId) -> &str {
        let s = self.ir.node(id).span;
        self.source.get(s.start..s.end).unwrap_or("?")
    }

    fn emit(&mut self, d: Diagnostic) {
        if self.quiet > 0 {
            return;
        }
        let overflow = d.code == codes::MAYBE_OVERFLOW;
        if (self.mode == Mode::Overflow) != overflow {
            return;
        }
        if !d.is_error() {
            self.may_err = true;
        }
        self.diags.push(d);
    }

    /// The input a node reads directly, if it is an input.
    fn input(&self, id: NodeId) -> Option<&Input> {
        match self.ir.node(id).expr {
            Expr::Input(k) => self.ir.inputs.get(k as usize),
            _ => None,
        }
    }

    /// The interval of a node's value over the jobs that reach it without error; `None` if
    /// no job gets a value from it (it always errs, or it is unreachable).
    fn eval(&mut self, id: NodeId, env: &Env) -> Option<Interval> {
        let node = self.ir.node(id);
        let r = match &node.expr {
            Expr::Const(c) => Some(Interval::point(*c)),
            Expr::Input(k) => env.get(*k as usize).copied(),
            Expr::Unary(op, a) => {
                let a = self.eval(*a, env)?;
                Some(match op {
                    UnaryOp::Neg => Interval::new(-a.hi, -a.lo).int(a.int),
                    UnaryOp::Pos => a,
                    UnaryOp::Not => truth_interval(a, true),
                })
            }
            Expr::Binary(op, a, b) => {
                let (ia, ib) = (self.eval(*a, env), self.eval(*b, env));
                let (ia, ib) = (ia?, ib?);
                if self.is_const[id.index()] {
                    return self.exact(id);
                }
                self.binary(id, *op, *a, *b, ia, ib)
            }
            Expr::Compare { first, rest } => {
                let mut vals = vec![self.eval(*first, env)];
                for (_, n) in rest {
                    vals.push(self.eval(*n, env));
                }
                let vals: Option<Vec<Interval>> = vals.into_iter().collect();
                let vals = vals?;
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
            Expr::And(a, b) => {
                let ia = self.eval(*a, env)?;
                let falsy = ia.can_be_zero().then(|| Interval::point(0.0));
                let rb = if ia.can_be_truthy() {
                    match self.narrow(*a, true, env) {
                        Some(env_t) => self.eval(*b, &env_t),
                        None => None,
                    }
                } else {
                    None
                };
                hull_opt(falsy, rb)
            }
            Expr::Or(a, b) => {
                let ia = self.eval(*a, env)?;
                let truthy = ia.without_zero();
                let rb = if ia.can_be_zero() {
                    match self.narrow(*a, false, env) {
                        Some(env_f) => self.eval(*b, &env_f),
                        None => None,
                    }
                } else {
                    None
                };
                hull_opt(truthy, rb)
            }
            Expr::IfElse {
                cond,
                then,
                otherwise,
            } => {
                let ic = self.eval(*cond, env)?;
                let rt = if ic.can_be_truthy() {
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
                self.call(id, *func, args, &vals)
            }
        };
        r.map(Interval::sane)
    }

    /// Evaluate a constant node exactly; its children are known not to fail.
    fn exact(&mut self, id: NodeId) -> Option<Interval> {
        match interp::eval_node(self.ir, id, &[]) {
            Ok(v) => Some(Interval::point(v)),
            Err(e) => {
                let code = match e {
                    EvalError::FloatDivisionByZero
                    | EvalError::FloatFloorDivisionByZero
                    | EvalError::FloatModulo
                    | EvalError::ZeroToNegativePower => codes::DIV_ZERO,
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

    fn binary(
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
                let err = match op {
                    BinaryOp::Div => EvalError::FloatDivisionByZero,
                    BinaryOp::FloorDiv => EvalError::FloatFloorDivisionByZero,
                    _ => EvalError::FloatModulo,
                };
                let ib = self.divisor(id, b, ib, err)?;
                Some(match op {
                    BinaryOp::Div => div_interval(ia, ib),
                    BinaryOp::FloorDiv => {
                        let q = div_interval(ia, ib);
                        Interval::new(q.lo.floor(), q.hi.floor()).int(true)
                    }
                    _ => mod_interval(ia, ib),
                })
            }
            BinaryOp::Pow => self.power(id, a, b, ia, ib, false),
        }
    }

    /// Check a divisor; returns its interval without 0, or `None` if it is always 0.
    fn divisor(&mut self, id: NodeId, b: NodeId, ib: Interval, err: EvalError) -> Option<Interval> {
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
                    format!("the divisor `{btext}` is always 0: {}", err.message()),
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
                "a job with {name} = 0 gets the value 0 and the error \"{}\"",
                err.message()
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
                "a job for which it is 0 gets the value 0 and the error \"{}\"",
                err.message()
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
        ib.without_zero()
    }

    fn collect_inputs<'s>(&'s self, id: NodeId, out: &mut Vec<&'s Input>) {
        if let Some(input) = self.input(id) {
            if !out.contains(&input) {
                out.push(input);
            }
            return;
        }
        for c in expr_children(&self.ir.node(id).expr) {
            self.collect_inputs(c, out);
        }
    }

    fn inputs_text(&self, id: NodeId) -> String {
        let mut names = Vec::new();
        self.collect_inputs(id, &mut names);
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A possible (warning) or certain (error) domain error at `id`.
    fn domain(&mut self, id: NodeId, certain: bool, what: String, err: EvalError) {
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

    fn overflow(&mut self, id: NodeId, err: EvalError) {
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
    fn power(
        &mut self,
        id: NodeId,
        _a: NodeId,
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
        if self.mode == Mode::Overflow && base.is_finite() && exp.is_finite() && !r.is_finite() {
            self.overflow(id, range_err);
        }
        Some(r)
    }

    fn call(
        &mut self,
        id: NodeId,
        func: Func,
        args: &[NodeId],
        vals: &[Interval],
    ) -> Option<Interval> {
        let x = vals.first().copied().unwrap_or(Interval::point(0.0));
        let y = vals.get(1).copied().unwrap_or(Interval::point(0.0));
        let arg_text = args
            .first()
            .map(|&a| self.text(a).to_string())
            .unwrap_or_default();
        let zero_reason = |s: &Self| {
            args.first()
                .and_then(|&a| s.input(a))
                .map(|input| format!(" ({})", why_zero(input, s.catalog)))
                .unwrap_or_default()
        };
        let mono = |f: fn(f64) -> f64, lo: f64, hi: f64| Interval::new(f(lo), f(hi));
        let dom = EvalError::MathDomain;
        Some(match func {
            Func::Abs | Func::Fabs => {
                let (lo, hi) = if x.lo >= 0.0 {
                    (x.lo, x.hi)
                } else if x.hi <= 0.0 {
                    (-x.hi, -x.lo)
                } else {
                    (0.0, (-x.lo).max(x.hi))
                };
                Interval::new(lo, hi).int(x.int)
            }
            Func::Min | Func::Max => {
                let lo = vals.iter().map(|v| v.lo);
                let hi = vals.iter().map(|v| v.hi);
                let int = vals.iter().all(|v| v.int);
                if func == Func::Min {
                    Interval::new(lo.fold(INF, f64::min), hi.fold(INF, f64::min)).int(int)
                } else {
                    Interval::new(lo.fold(-INF, f64::max), hi.fold(-INF, f64::max)).int(int)
                }
            }
            Func::Pow => return self.power(id, args[0], args[1], x, y, true),
            Func::Sqrt => {
                if x.lo < 0.0 {
                    let certain = x.hi < 0.0;
                    self.domain(
                        id,
                        certain,
                        format!("the square root of `{arg_text}`, which can be negative"),
                        dom,
                    );
                    if certain {
                        return None;
                    }
                }
                mono(f64::sqrt, x.lo.max(0.0), x.hi)
            }
            Func::Log | Func::Log10 | Func::Log2 => {
                let x = if x.lo <= 0.0 {
                    let certain = x.hi <= 0.0;
                    let reason = zero_reason(self);
                    self.domain(
                        id,
                        certain,
                        format!(
                            "the logarithm of `{arg_text}`, which can be {}{reason}",
                            if x.hi <= 0.0 || x.lo < 0.0 {
                                "0 or negative"
                            } else {
                                "0"
                            }
                        ),
                        dom,
                    );
                    if certain {
                        return None;
                    }
                    Interval::new(if x.int { 1.0 } else { f64::MIN_POSITIVE }, x.hi)
                } else {
                    x
                };
                if func == Func::Log && args.len() == 2 {
                    let base_text = self.text(args[1]).to_string();
                    if y.lo <= 0.0 {
                        let certain = y.hi <= 0.0;
                        self.domain(
                            id,
                            certain,
                            format!("the logarithm base `{base_text}` can be 0 or negative"),
                            dom,
                        );
                        if certain {
                            return None;
                        }
                    }
                    if y.contains(1.0) {
                        let certain = y.is_point();
                        self.domain(
                            id,
                            certain,
                            format!("the logarithm base `{base_text}` can be 1"),
                            EvalError::FloatDivisionByZero,
                        );
                        if certain {
                            return None;
                        }
                    }
                    Interval::full()
                } else {
                    let f = match func {
                        Func::Log10 => f64::log10,
                        Func::Log2 => f64::log2,
                        _ => f64::ln,
                    };
                    mono(f, x.lo, x.hi)
                }
            }
            Func::Log1p => {
                if x.lo <= -1.0 {
                    let certain = x.hi <= -1.0;
                    self.domain(
                        id,
                        certain,
                        format!("`log1p` of `{arg_text}`, which can be -1 or less"),
                        dom,
                    );
                    if certain {
                        return None;
                    }
                }
                mono(f64::ln_1p, x.lo.max(-1.0 + f64::EPSILON), x.hi)
            }
            Func::Asin | Func::Acos => {
                if x.lo < -1.0 || x.hi > 1.0 {
                    let certain = x.hi < -1.0 || x.lo > 1.0;
                    self.domain(
                        id,
                        certain,
                        format!(
                            "`{}` of `{arg_text}`, which can be outside [-1, 1]",
                            func.name()
                        ),
                        dom,
                    );
                    if certain {
                        return None;
                    }
                }
                let (lo, hi) = (x.lo.max(-1.0), x.hi.min(1.0));
                if func == Func::Asin {
                    mono(f64::asin, lo, hi)
                } else {
                    Interval::new(hi.acos(), lo.acos())
                }
            }
            Func::Exp | Func::Expm1 => {
                let f = if func == Func::Exp {
                    f64::exp
                } else {
                    f64::exp_m1
                };
                let r = mono(f, x.lo, x.hi);
                if self.mode == Mode::Overflow && x.is_finite() && !r.is_finite() {
                    self.overflow(id, EvalError::MathRange);
                }
                r
            }
            Func::Sinh => {
                let r = mono(f64::sinh, x.lo, x.hi);
                if self.mode == Mode::Overflow && x.is_finite() && !r.is_finite() {
                    self.overflow(id, EvalError::MathRange);
                }
                r
            }
            Func::Cosh => {
                let m = if x.contains(0.0) {
                    0.0
                } else {
                    x.lo.abs().min(x.hi.abs())
                };
                let r = Interval::new(m.cosh(), x.lo.abs().max(x.hi.abs()).cosh());
                if self.mode == Mode::Overflow && x.is_finite() && !r.is_finite() {
                    self.overflow(id, EvalError::MathRange);
                }
                r
            }
            Func::Tanh => mono(f64::tanh, x.lo, x.hi),
            Func::Atan => mono(f64::atan, x.lo, x.hi),
            Func::Atan2 => Interval::new(-std::f64::consts::PI, std::f64::consts::PI),
            Func::Sin | Func::Cos => {
                if x.is_finite() && x.lo == x.hi {
                    let v = if func == Func::Sin {
                        x.lo.sin()
                    } else {
                        x.lo.cos()
                    };
                    Interval::point(v)
                } else {
                    Interval::new(-1.0, 1.0)
                }
            }
            Func::Tan => Interval::full(),
            Func::Ceil => mono(f64::ceil, x.lo, x.hi).int(true),
            Func::Floor => mono(f64::floor, x.lo, x.hi).int(true),
            Func::Trunc => mono(f64::trunc, x.lo, x.hi).int(true),
            Func::Round => {
                if args.len() == 2 {
                    let digits = y.lo;
                    let r = |v: f64| {
                        if v.is_finite() {
                            super::pymath::round_ndigits(v, digits).unwrap_or(v)
                        } else {
                            v
                        }
                    };
                    Interval::new(r(x.lo), r(x.hi)).int(x.int || digits <= 0.0)
                } else {
                    Interval::new(x.lo.round(), x.hi.round()).int(true)
                }
            }
            Func::Fmod => {
                if y.can_be_zero() {
                    let certain = y.always_zero();
                    let reason = args
                        .get(1)
                        .and_then(|&a| self.input(a))
                        .map(|input| format!(" ({})", why_zero(input, self.catalog)))
                        .unwrap_or_default();
                    self.domain(
                        id,
                        certain,
                        format!(
                            "`fmod` by `{}`, which can be 0{reason}",
                            args.get(1).map(|&a| self.text(a)).unwrap_or("")
                        ),
                        dom,
                    );
                    if certain {
                        return None;
                    }
                }
                let m = y.lo.abs().max(y.hi.abs());
                let lo = if x.lo >= 0.0 { 0.0 } else { x.lo.max(-m) };
                let hi = if x.hi <= 0.0 { 0.0 } else { x.hi.min(m) };
                Interval::new(lo, hi)
            }
            Func::Copysign => {
                let m = x.lo.abs().max(x.hi.abs());
                if y.lo > 0.0 {
                    Interval::new(x.lo.abs().min(x.hi.abs()), m)
                } else {
                    Interval::new(-m, m)
                }
            }
            Func::Hypot => {
                let m: f64 = vals
                    .iter()
                    .map(|v| v.lo.abs().max(v.hi.abs()))
                    .map(|v| v * v)
                    .sum();
                Interval::new(0.0, m.sqrt())
            }
            Func::Degrees => mono(f64::to_degrees, x.lo, x.hi),
            Func::Radians => mono(f64::to_radians, x.lo, x.hi),
        })
    }

    /// The environment in which `cond` has the given truth, or `None` if it cannot.
    fn narrow(&mut self, cond: NodeId, truth: bool, env: &Env) -> Option<Env> {
        if self.quiet > 0 {
            // Narrowing only at the top level keeps the analysis linear.
            return Some(env.clone());
        }
        self.quiet += 1;
        let r = self.narrow_inner(cond, truth, env);
        self.quiet -= 1;
        r
    }

    fn narrow_inner(&mut self, cond: NodeId, truth: bool, env: &Env) -> Option<Env> {
        if self.budget == 0 {
            return Some(env.clone());
        }
        self.budget -= 1;
        let ic = self.eval(cond, env)?;
        if truth && !ic.can_be_truthy() || !truth && !ic.can_be_zero() {
            return None;
        }
        let expr = self.ir.node(cond).expr.clone();
        match expr {
            Expr::Input(k) => {
                let mut e = env.clone();
                let v = e[k as usize];
                e[k as usize] = if truth {
                    v.without_zero()?
                } else {
                    v.meet(Interval::point(0.0))?
                };
                Some(e)
            }
            Expr::Unary(UnaryOp::Not, a) => self.narrow_inner(a, !truth, env),
            Expr::And(a, b) if truth => {
                let e = self.narrow_inner(a, true, env)?;
                self.narrow_inner(b, true, &e)
            }
            Expr::Or(a, b) if !truth => {
                let e = self.narrow_inner(a, false, env)?;
                self.narrow_inner(b, false, &e)
            }
            Expr::And(a, b) => {
                // false: a false, or a true and b false
                let e1 = self.narrow_inner(a, false, env);
                let e2 = self
                    .narrow_inner(a, true, env)
                    .and_then(|e| self.narrow_inner(b, false, &e));
                env_hull(e1, e2)
            }
            Expr::Or(a, b) => {
                let e1 = self.narrow_inner(a, true, env);
                let e2 = self
                    .narrow_inner(a, false, env)
                    .and_then(|e| self.narrow_inner(b, true, &e));
                env_hull(e1, e2)
            }
            Expr::Compare { first, rest } => {
                if truth {
                    let mut e = env.clone();
                    let mut lhs = first;
                    for (op, rhs) in rest {
                        e = self.narrow_link(lhs, op, rhs, &e)?;
                        lhs = rhs;
                    }
                    Some(e)
                } else if rest.len() == 1 {
                    let (op, rhs) = rest[0];
                    self.narrow_link(first, negate(op), rhs, env)
                } else {
                    Some(env.clone())
                }
            }
            _ => Some(env.clone()),
        }
    }

    /// Narrow `a op b` (true) on whichever side is an input.
    fn narrow_link(&mut self, a: NodeId, op: CmpOp, b: NodeId, env: &Env) -> Option<Env> {
        let ia = self.eval(a, env)?;
        let ib = self.eval(b, env)?;
        let mut e = env.clone();
        if let Expr::Input(k) = self.ir.node(a).expr {
            e[k as usize] = constrain(e[k as usize], op, ib)?;
        }
        if let Expr::Input(k) = self.ir.node(b).expr {
            e[k as usize] = constrain(e[k as usize], flip(op), ia)?;
        }
        Some(e)
    }
}

fn env_hull(a: Option<Env>, b: Option<Env>) -> Option<Env> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.iter().zip(&b).map(|(x, y)| x.hull(*y)).collect()),
        (a, None) => a,
        (None, b) => b,
    }
}

/// `x op other` holds: the values of `x` that allow it.
fn constrain(x: Interval, op: CmpOp, other: Interval) -> Option<Interval> {
    let above = |v: f64| if x.int { v.floor() + 1.0 } else { next_up(v) };
    let below = |v: f64| if x.int { v.ceil() - 1.0 } else { next_down(v) };
    let r = match op {
        CmpOp::Gt => Interval::new(above(other.lo), INF),
        CmpOp::Ge => Interval::new(other.lo, INF),
        CmpOp::Lt => Interval::new(-INF, below(other.hi)),
        CmpOp::Le => Interval::new(-INF, other.hi),
        CmpOp::Eq => other,
        CmpOp::Ne => {
            if other.is_point() {
                let p = other.lo;
                let mut y = x;
                if y.lo == p {
                    y.lo = above(p);
                }
                if y.hi == p {
                    y.hi = below(p);
                }
                return (y.lo <= y.hi).then_some(y);
            }
            return Some(x);
        }
    };
    x.meet(r.int(false))
}

fn negate(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Ge => CmpOp::Lt,
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
    }
}

/// `a op b` ⇔ `b flip(op) a`.
fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        CmpOp::Eq => CmpOp::Eq,
        CmpOp::Ne => CmpOp::Ne,
    }
}

/// Whether `a op b` is certainly true (`Some(true)`), certainly false, or unknown.
fn cmp_interval(op: CmpOp, a: Interval, b: Interval) -> Option<bool> {
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
fn truth_interval(a: Interval, negate: bool) -> Interval {
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
fn div_interval(a: Interval, b: Interval) -> Interval {
    if b.lo < 0.0 && b.hi > 0.0 {
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

fn mod_interval(a: Interval, b: Interval) -> Interval {
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
fn pow_interval(base: Interval, exp: Interval) -> Interval {
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
    if exp.is_point() {
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

/// `pow(2, -(fairshare_tree_usage/fairshare_perc))` or `2 ** -(...)`: that is
/// `fairshare_factor`, which PBS defines as 0 where perc is 0 instead of failing.
fn fairshare_lint(ir: &Ir, diags: &mut Vec<Diagnostic>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constrain_integral_and_float() {
        let ncpus = Interval::new(0.0, INF).int(true);
        let r = constrain(ncpus, CmpOp::Gt, Interval::point(0.0)).unwrap();
        assert_eq!((r.lo, r.hi), (1.0, INF));
        let perc = Interval::new(0.0, 1.0);
        let r = constrain(perc, CmpOp::Gt, Interval::point(0.0)).unwrap();
        assert!(r.lo > 0.0 && r.lo < 1e-300);
        assert!(constrain(ncpus, CmpOp::Lt, Interval::point(0.0)).is_none());
    }

    #[test]
    fn pow_corners() {
        let r = pow_interval(Interval::new(0.5, 2.0), Interval::new(-1.0, 1.0));
        assert_eq!((r.lo, r.hi), (0.5, 2.0));
        let r = pow_interval(Interval::new(-3.0, 2.0), Interval::point(2.0));
        assert_eq!((r.lo, r.hi), (0.0, 9.0));
    }
}
