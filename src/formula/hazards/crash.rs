//! Formulas that crash pbs_sched (OpenPBS ≤ 23.06).
//!
//! `formula_evaluate` (`src/scheduler/job_info.cpp`) evaluates the formula inside a Python
//! `try`, but converts the value with `PyFloat_AsDouble` after it, in C. When the value is a
//! complex number (`(ncpus - 3) ** 0.5` for `ncpus < 3`) or an int too large for a double
//! (`ncpus ** 256` for `ncpus >= 16`), that conversion fails: it returns -1 with a Python
//! exception pending, pbs_sched logs the job with -1 and crashes on the next job (in
//! `PyModule_GetDict(NULL)`). Each case is reported (`E0305` under `--compat pbs`, `W0407`
//! otherwise) only with a job that triggers it, found with [`IntModel`] evaluating as Python
//! does, and named in the message.

use super::interval::{INF, Interval};
use super::{Analyzer, OVERFLOW_BOUND};
use crate::formula::diag::{Diagnostic, Severity, codes};
use crate::formula::ir::{Expr, Func, Ir, NodeId, expr_children};
use crate::formula::pyint::PyType;
use crate::formula::pymath::EvalError;
use crate::formula::pymath::int::Num;
use crate::formula::syntax::{BinaryOp, UnaryOp};

/// Per node: whether a complex number there becomes the formula's value. It does through
/// `+ - * / **` (either side), unary `-` and `+`, `and`/`or` (either side) and the branches
/// of `if`/`else`; anything else (`//`, `%`, a comparison, a function) raises a `TypeError`
/// inside the `try` (the job gets 0) or makes a bool or a float of it.
fn complex_reaches_root(ir: &Ir) -> Vec<bool> {
    let mut reach = vec![false; ir.nodes.len()];
    reach[ir.root.index()] = true;
    for i in (0..ir.nodes.len()).rev() {
        if !reach[i] {
            continue;
        }
        let through: Vec<NodeId> = match &ir.nodes[i].expr {
            Expr::Binary(
                BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Div | BinaryOp::Pow,
                a,
                b,
            )
            | Expr::And(a, b)
            | Expr::Or(a, b) => vec![*a, *b],
            Expr::Unary(UnaryOp::Neg | UnaryOp::Pos, a) => vec![*a],
            Expr::IfElse {
                then, otherwise, ..
            } => vec![*then, *otherwise],
            _ => Vec::new(),
        };
        for c in through {
            reach[c.index()] = true;
        }
    }
    reach
}

/// The inputs `id` reads, in order of first use.
fn inputs_of(ir: &Ir, id: NodeId) -> Vec<u32> {
    let mut out = Vec::new();
    let mut stack = vec![id];
    while let Some(n) = stack.pop() {
        match &ir.node(n).expr {
            Expr::Input(k) => {
                if !out.contains(k) {
                    out.push(*k);
                }
            }
            e => stack.extend(expr_children(e).into_iter().rev()),
        }
    }
    out
}

/// Values to try for an input in `dom`, smallest magnitude first, then the domain's ends
/// (bounded by 2^63, as PBS's 64-bit resources). `small` keeps to magnitudes up to 2^16 (a
/// large formula is slow to evaluate with huge ints).
fn candidates(dom: Interval, small: bool) -> Vec<f64> {
    let mut c = Vec::new();
    let mut push = |v: f64| {
        if dom.contains(v) && v.is_finite() && !c.contains(&v) {
            c.push(v);
        }
    };
    for v in [0.0, 1.0, 2.0, 3.0, 16.0, 256.0, 1024.0, 4096.0, 65536.0] {
        push(v);
        push(-v);
    }
    // A value that is not whole (a float resource; an exponent making a complex number).
    if !dom.int {
        push(0.5);
        push(-0.5);
    }
    if !small {
        for v in [4294967296.0, 9007199254740992.0] {
            push(v);
            push(-v);
        }
        push(dom.lo.max(-OVERFLOW_BOUND).ceil());
        push(dom.hi.min(OVERFLOW_BOUND).floor());
    }
    c
}

/// A formula this large is evaluated only at small values when searching for a crash.
const SMALL_SEARCH_NODES: usize = 200;

/// Where a huge int made at `id` first meets something that converts it to a float, and the
/// error Python raises there: `None` when it reaches the formula's value as an int (pbs_sched
/// crashes; reported at the root) or only meets operations that take any int (comparisons,
/// truthiness, the logarithms).
fn int_consumer(ir: &Ir, types: &[PyType], id: NodeId) -> Option<EvalError> {
    let mut parent = vec![None; ir.nodes.len()];
    for (i, n) in ir.nodes.iter().enumerate() {
        for c in expr_children(&n.expr) {
            parent[c.index()] = Some(NodeId(i as u32));
        }
    }
    let mut at = id;
    while let Some(p) = parent[at.index()] {
        let int = |n: &NodeId| types[n.index()] == PyType::Int;
        let converts = match &ir.node(p).expr {
            Expr::Binary(BinaryOp::Div, a, b) if int(a) && int(b) => {
                return Some(EvalError::IntDivisionTooLarge);
            }
            Expr::Binary(_, a, b) if int(a) && int(b) => false,
            Expr::Binary(..) => true,
            Expr::Unary(UnaryOp::Not, _) | Expr::Compare { .. } => return None,
            Expr::Unary(..) | Expr::And(..) | Expr::Or(..) => false,
            Expr::IfElse { cond, .. } if *cond == at => return None,
            Expr::IfElse { .. } => false,
            Expr::Call(f, _) => match f {
                Func::Abs | Func::Min | Func::Max | Func::Floor | Func::Ceil | Func::Trunc => false,
                Func::Round => false,
                Func::Log | Func::Log2 | Func::Log10 => return None,
                _ => true,
            },
            Expr::Const(_) | Expr::Input(_) => false,
        };
        if converts {
            return Some(EvalError::IntTooLargeForFloat);
        }
        at = p;
    }
    None
}

impl Analyzer<'_> {
    /// Under `--compat pbs`, an exact `int ** int` at `id` that can exceed a double: the error
    /// where it meets a float, if it does (see [`int_consumer`]).
    pub(super) fn huge_int_consumer(&self, id: NodeId) -> Option<EvalError> {
        int_consumer(self.ir, &self.types, id)
    }

    /// `` `text` `` of node `id`, or `fallback` when the text is long.
    fn short_text(&self, id: NodeId, fallback: &str) -> String {
        let t = self.text(id);
        if t.chars().count() <= 60 {
            format!("`{t}`")
        } else {
            fallback.to_string()
        }
    }

    fn crash_diagnostic(&self, span_of: NodeId, what: String, when: &str) -> Diagnostic {
        let (severity, code) = if self.compat_pbs {
            (Severity::Error, codes::CRASHES_PBS)
        } else {
            (Severity::Warning, codes::MAYBE_CRASHES_PBS)
        };
        let message = format!("this formula crashes pbs_sched (OpenPBS ≤ 23.06) {when}: {what}");
        let d = match severity {
            Severity::Error => Diagnostic::error(code, message, self.ir.node(span_of).span),
            _ => Diagnostic::warning(code, message, self.ir.node(span_of).span),
        };
        d.with_note(
            "pbs_sched converts the value with PyFloat_AsDouble after the formula's `try` (formula_evaluate, src/scheduler/job_info.cpp): the error stays pending, the job is logged with -1 and pbs_sched crashes on the next job",
        )
    }

    /// The inputs of one job: `values`, the others 1.
    fn job(&self, values: &[(u32, f64)]) -> Vec<f64> {
        let mut inputs = vec![1.0; self.ir.inputs.len()];
        for &(k, v) in values {
            inputs[k as usize] = v;
        }
        inputs
    }

    /// The jobs for which `strict` holds, in words (`when a job has ncpus >= 16`), varying the
    /// inputs `scope` reads (the others are 1); `None` if no tried job satisfies it. With one
    /// input the boundary is found by bisection over whole values with `loose` (which holds
    /// wherever `strict` does, and beyond where jobsort stops computing), and stated when
    /// `strict` holds there.
    fn when(
        &self,
        scope: NodeId,
        strict: &dyn Fn(&[f64]) -> bool,
        loose: &dyn Fn(&[f64]) -> bool,
    ) -> Option<String> {
        let inputs = inputs_of(self.ir, scope);
        let name = |k: u32| self.ir.inputs[k as usize].name().to_string();
        let dom = |k: u32| self.domains[k as usize];
        let small = self.ir.nodes.len() > SMALL_SEARCH_NODES;
        if let [k] = inputs[..] {
            let at = |v: f64| self.job(&[(k, v)]);
            let cands = candidates(dom(k), small);
            let witness = cands.iter().copied().find(|&v| strict(&at(v)))?;
            let holds = |v: f64| loose(&at(v));
            let bisect = |mut no: f64, mut yes: f64| {
                // `no` fails, `yes` holds: move them together.
                while (yes - no).abs() > 1.0 {
                    let mid = ((no + yes) / 2.0).floor();
                    let mid = if mid == no {
                        no + (yes - no).signum()
                    } else {
                        mid
                    };
                    if holds(mid) { yes = mid } else { no = mid }
                }
                yes
            };
            // The nearest tried values on each side where it does not hold, and the
            // boundaries between them and the witness.
            let mut sorted = cands;
            sorted.sort_by(f64::total_cmp);
            let above = sorted
                .iter()
                .copied()
                .filter(|&v| v > witness)
                .find(|&v| !holds(v));
            let below = sorted
                .iter()
                .rev()
                .copied()
                .filter(|&v| v < witness)
                .find(|&v| !holds(v));
            let edge =
                |no: Option<f64>| no.map(|no| bisect(no, witness)).filter(|&b| strict(&at(b)));
            let (low, high) = (edge(below), edge(above));
            let n = name(k);
            return Some(match (below, above, low, high) {
                (Some(_), Some(_), Some(l), Some(h)) if l == h => {
                    format!("when a job has {n} = {l}")
                }
                (Some(_), Some(_), Some(l), Some(h)) => {
                    format!("when a job has {l} <= {n} <= {h}")
                }
                (None, Some(_), _, Some(h)) => format!("when a job has {n} <= {h}"),
                (Some(_), None, Some(l), _) => format!("when a job has {n} >= {l}"),
                (None, None, _, _) => format!("for every job (e.g. one with {n} = {witness})"),
                _ => format!("when a job has {n} = {witness}"),
            });
        }
        // Several inputs: all at one candidate value, then each alone with the others at 1.
        let mut tries: Vec<Vec<(u32, f64)>> = Vec::new();
        for v in candidates(Interval::new(-INF, INF), small) {
            if inputs.iter().all(|&k| dom(k).contains(v)) {
                tries.push(inputs.iter().map(|&k| (k, v)).collect());
            }
        }
        for &k in &inputs {
            for v in candidates(dom(k), small) {
                tries.push(vec![(k, v)]);
            }
        }
        let found = tries.into_iter().find(|t| strict(&self.job(t)))?;
        if inputs.is_empty() {
            return Some("for every job".to_string());
        }
        let words: Vec<String> = inputs
            .iter()
            .map(|&k| {
                let v = found.iter().find(|(j, _)| *j == k).map_or(1.0, |(_, v)| *v);
                format!("{} = {v}", name(k))
            })
            .collect();
        Some(format!("when a job has {} (for example)", words.join(", ")))
    }

    /// The formula's value is an int that can exceed a double (`bounded_root`: its interval
    /// over inputs bounded by 2^63) for some job.
    pub(super) fn int_result_crash(&self, bounded_root: Option<Interval>) -> Option<Diagnostic> {
        let root = self.ir.root;
        if self.types[root.index()] == PyType::Float {
            return None;
        }
        let r = bounded_root?;
        if r.hi != INF && r.lo != -INF {
            return None;
        }
        let value = |job: &[f64]| self.model.eval_job(self.ir, job);
        let when = self.when(
            root,
            &|job| value(job) == Err(EvalError::IntResultTooLarge),
            &|job| {
                matches!(
                    value(job),
                    Err(EvalError::IntResultTooLarge | EvalError::IntTooLargeToModel)
                )
            },
        )?;
        let d = self.crash_diagnostic(
            root,
            format!(
                "{} is then an int too large for a float",
                self.short_text(root, "the formula's value")
            ),
            &when,
        );
        Some(if self.compat_pbs {
            d.with_note(format!(
                "jobsort gives such jobs the value 0 and the error \"{}\"",
                EvalError::IntResultTooLarge.message()
            ))
        } else {
            d.with_note("without --compat pbs jobsort computes in floats, where this overflows")
        })
    }

    /// `base ** exp` at `id` can make a complex number (a negative base, an exponent that is not
    /// whole); report it when that number becomes the formula's value.
    pub(super) fn complex_crash(&mut self, id: NodeId, base: NodeId, exp: NodeId) {
        if self.complex_reaches_root.is_empty() {
            self.complex_reaches_root = complex_reaches_root(self.ir);
        }
        if !self.complex_reaches_root[id.index()] || self.crash_searches == 0 {
            return;
        }
        self.crash_searches -= 1;
        // The job reaches this `**` with a negative base and the formula fails there (or at
        // another such `**`).
        let complex = |job: &[f64]| {
            let negative = match self.model.eval_node(self.ir, base, job) {
                Ok(Num::Int(i)) => i.is_negative(),
                Ok(Num::Float(x)) => x < 0.0,
                Err(_) => false,
            };
            negative
                && self.model.eval_job(self.ir, job) == Err(EvalError::NegativeToFractionalPower)
        };
        let Some(when) = self.when(id, &complex, &complex) else {
            return;
        };
        let fractional = if matches!(self.ir.node(exp).expr, Expr::Const(_)) {
            String::new()
        } else {
            format!(
                " (when {} is not a whole number)",
                self.short_text(exp, "the exponent")
            )
        };
        let d = self.crash_diagnostic(
            id,
            format!(
                "{} is then a negative number to a fractional power{fractional}, a complex number, and it becomes the formula's value",
                self.short_text(id, "this `**`")
            ),
            &when,
        )
        .with_note(format!(
            "jobsort gives such jobs the value 0 and the error \"{}\"",
            EvalError::NegativeToFractionalPower.message()
        ));
        self.emit(d);
    }
}
