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
//!   `fairshare_factor`; `N0502` (`--compat pbs`) values beyond ±2^24;
//! - `E0305` (`--compat pbs`; `W0407` otherwise) the formula crashes pbs_sched for a job it
//!   names: its value is then a complex number or an int too large for a float (`crash`).
//!
//! Under `--compat pbs` whole numbers are Python ints ([`crate::formula::pyint`]): constants
//! are evaluated as Python does, and a division by zero is named with the error of its
//! operands' types ("division by zero" for ints, "float division by zero" for floats, both
//! where an operand can be either).
//!
//! Overflow is judged on inputs bounded by 2^63 (PBS stores numeric resources in 64 bits),
//! so `ncpus ** 2` is fine while `2 ** ncpus` and `exp(walltime)` warn; every other hazard
//! and the value range use the unbounded domains.
//!
//! Files: this entry point (domains, the two passes, the report); `interval` the lattice;
//! `infinite` the values an infinite operand makes never finite;
//! `transfer` the operators' transfer functions and `calls` the built-in functions'; `narrow`
//! guard narrowing; `lint` the syntactic lint.

use crate::catalog::{Catalog, Input, Keyword, ResourceType};
use crate::formula::diag::{Diagnostic, codes};
use crate::formula::interp;
use crate::formula::ir::{Expr, Ir, NodeId, expr_children};
use crate::formula::pyint::{IntModel, PyType};
use crate::formula::pymath::int::Num;
use crate::formula::syntax::Span;
use interval::{Env, INF};
pub use lint::PYTHON_MAX_DEPTH;
use lint::{fairshare_lint, pbs_compile_lint};
use rustc_hash::FxHashMap;

mod calls;
mod crash;
mod infinite;
mod interval;
mod lint;
mod narrow;
mod transfer;

pub use interval::Interval;

/// What the hazard analysis found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    pub diagnostics: Vec<Diagnostic>,
    /// The interval of values jobs get (0 included when some job can err). `None` if
    /// every job errs.
    pub range: Option<(f64, f64)>,
}

/// The bound the overflow check puts on unbounded inputs.
const OVERFLOW_BOUND: f64 = 9.223_372_036_854_776e18;
/// PBS stores the value in a C float: whole numbers above this are not all representable.
const FLOAT32_EXACT: f64 = 16_777_216.0;

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
    /// How deep guard narrowing has recursed (it follows `and`/`or` chains, which can be
    /// long); at [`NARROW_DEPTH`] it stops narrowing, like a spent budget.
    narrow_depth: u32,
    /// `--compat pbs`: jobsort evaluates whole numbers as Python ints, as PBS does.
    compat_pbs: bool,
    /// Python's ints in this formula (what PBS computes, with or without `--compat pbs`).
    model: IntModel,
    /// The Python type of every node.
    types: Vec<PyType>,
    /// Under `--compat pbs`: the exact values of constant nodes evaluated so far.
    const_nums: FxHashMap<u32, Num>,
    /// Per node: a complex number there becomes the formula's value (pbs_sched crashes);
    /// computed when first needed.
    complex_reaches_root: Vec<bool>,
    /// Searches for a job that crashes pbs_sched left (each evaluates the formula up to a few
    /// hundred times; this bounds the analysis of a formula with thousands of `**`).
    crash_searches: u32,
    /// The inputs' domains (for naming the values that make pbs_sched crash).
    domains: Env,
    /// Per node: some job can get an infinity or a NaN from it ([`infinite::may_be_non_finite`]).
    non_finite: Vec<bool>,
    /// Constant nodes found not finite while analysing (their sub-expressions are finite).
    non_finite_constants: Vec<NodeId>,
}

/// Narrowing steps per analysis run.
const NARROW_BUDGET: u32 = 20_000;

/// The deepest guard narrowing recurses: as deep as any tree that is nested to the limit.
const NARROW_DEPTH: u32 = crate::formula::ast::MAX_NESTING;

/// Analyse a checked formula: hazards as diagnostics, and the formula's value range.
/// `compat_pbs` (`--compat pbs`) also reports values a 32-bit float cannot tell apart.
pub fn analyze(ir: &Ir, source: &str, catalog: &Catalog, compat_pbs: bool) -> Report {
    let mut is_const = vec![false; ir.nodes.len()];
    for (i, node) in ir.nodes.iter().enumerate() {
        is_const[i] = match &node.expr {
            Expr::Input(_) => false,
            e => expr_children(e).iter().all(|c| is_const[c.index()]),
        };
    }
    let domains = input_domains(ir, catalog);
    let model = IntModel::new(ir, source);
    let types = model.static_types(ir);
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
        narrow_depth: 0,
        compat_pbs,
        complex_reaches_root: Vec::new(),
        crash_searches: 32,
        model,
        types,
        const_nums: FxHashMap::default(),
        domains: domains.clone(),
        non_finite: infinite::may_be_non_finite(ir, &[]),
        non_finite_constants: Vec::new(),
    };
    let mut root = a.eval(ir.root, &domains);
    if !a.non_finite_constants.is_empty() {
        // An infinity made of finite constants (`1e300 * 1e300`): analyse again with it known,
        // so the operations it reaches are judged with it.
        a.non_finite = infinite::may_be_non_finite(ir, &a.non_finite_constants);
        a.diags.clear();
        a.may_err = false;
        a.budget = NARROW_BUDGET;
        root = a.eval(ir.root, &domains);
    }
    let mut diags = std::mem::take(&mut a.diags);
    let may_err = a.may_err;

    let clamped: Env = domains
        .iter()
        .map(|d| Interval::new(d.lo.max(-OVERFLOW_BOUND), d.hi.min(OVERFLOW_BOUND)).int(d.int))
        .collect();
    a.mode = Mode::Overflow;
    a.may_err = false;
    a.budget = NARROW_BUDGET;
    let bounded_root = a.eval(ir.root, &clamped);
    diags.append(&mut a.diags);
    let mut may_err = may_err || a.may_err;
    if root.is_some() {
        if let Some(d) = a.int_result_crash(bounded_root) {
            diags.push(d);
        } else if a.types[ir.root.index()] != PyType::Float
            && bounded_root.is_some_and(|r| r.hi == INF || r.lo == -INF)
            && !diags.iter().any(|d| d.code == codes::MAYBE_OVERFLOW)
        {
            // The value can be an int beyond a float, but no job the search tried makes one:
            // still a hazard for the jobs that do.
            let inputs = a.inputs_text(ir.root);
            diags.push(
                Diagnostic::warning(
                    codes::MAYBE_OVERFLOW,
                    format!(
                        "possible overflow: the formula's value can be an int too large for a float for large values of {inputs}"
                    ),
                    ir.node(ir.root).span,
                )
                .with_note(
                    "pbs_sched cannot convert such a value (it crashes: see E0305); jobsort gives those jobs 0 and an error",
                ),
            );
            may_err = true;
        }
    }

    let whole = Span::new(0, source.len());
    let root_span = ir.node(ir.root).span;
    let constant_root = |a: &Analyzer| {
        if a.compat_pbs {
            (
                a.model.eval_job(ir, &[]),
                a.model.eval_node(ir, ir.root, &[]).map(|n| match n {
                    Num::Float(v) => v,
                    Num::Int(i) => i.to_f64().unwrap_or(INF),
                }),
            )
        } else {
            (
                interp::eval_job(ir, &[]),
                interp::eval_node(ir, ir.root, &[]),
            )
        }
    };
    if a.is_const[ir.root.index()] && root.is_some() {
        if let (Err(e), Ok(v)) = constant_root(&a)
            && e != crate::formula::pymath::EvalError::IntResultTooLarge
        {
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
    } else if root.is_some() && !a.is_const[ir.root.index()] {
        let never = infinite::never_finite(ir);
        if never[ir.root.index()] {
            let at = infinite::origin(ir, &never, &a.is_const, ir.root);
            let text = snippet(
                source
                    .get(ir.node(at).span.start..ir.node(at).span.end)
                    .unwrap_or("?"),
            );
            let mut d = Diagnostic::error(
                codes::INFINITE_OPERAND,
                format!(
                    "`{text}` is infinite or NaN for every job, so the formula's value is never finite: every job gets 0 and an error"
                ),
                ir.node(at).span,
            );
            if at != ir.root {
                d = d.with_label(root_span, "so this is never finite");
            }
            diags.push(d);
        } else if a.non_finite[ir.root.index()] {
            let at = infinite::non_finite_origin(ir, &a.non_finite, ir.root);
            let text = snippet(
                source
                    .get(ir.node(at).span.start..ir.node(at).span.end)
                    .unwrap_or("?"),
            );
            diags.push(
                Diagnostic::warning(
                    codes::MAYBE_NOT_FINITE,
                    format!(
                        "the formula's value can be infinite or NaN: `{text}` is not finite and can reach it"
                    ),
                    root_span,
                )
                .with_label(ir.node(at).span, "not finite")
                .with_note("a job whose value is not finite gets the value 0 and the error \"formula value is not finite\""),
            );
            may_err = true;
        }
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
    if compat_pbs {
        pbs_compile_lint(ir, source, &mut diags);
    }

    let range = root.map(|r| {
        let r = if may_err {
            r.hull(Interval::point(0.0))
        } else {
            r
        };
        (r.lo, r.hi)
    });
    if compat_pbs
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
    // PBS stores the value in a C float (`eval --compat pbs` gives that value): the range
    // holds the stored values too.
    let range = if compat_pbs {
        range.map(|(lo, hi)| (f32_below(lo), f32_above(hi)))
    } else {
        range
    };
    Report {
        diagnostics: diags,
        range,
    }
}

/// The largest `f32` value at or below `v` (as `f64`), `-inf` below every finite `f32`.
fn f32_below(v: f64) -> f64 {
    let f = v as f32;
    if f64::from(f) > v { f.next_down() } else { f }.into()
}

/// The smallest `f32` value at or above `v` (as `f64`), `inf` above every finite `f32`.
fn f32_above(v: f64) -> f64 {
    let f = v as f32;
    if f64::from(f) < v { f.next_up() } else { f }.into()
}

/// The domain of every input column.
fn input_domains(ir: &Ir, catalog: &Catalog) -> Env {
    ir.inputs
        .iter()
        .map(|input| input_domain(input, catalog))
        .collect()
}

/// The values a job can have for `input`: its declared range, `int` when only whole numbers
/// (long, size and time resources, the integer keywords). The analysis and its soundness test
/// read the domains from here.
pub fn input_domain(input: &Input, catalog: &Catalog) -> Interval {
    match input {
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
    }
}

/// The least positive value `input` can have: PBS computes `fairshare_perc` and
/// `fairshare_tree_usage` in `f32` (`fairshare::pbs::shares`), so neither is below `f32`'s
/// least subnormal, 1.4e-45, unless 0; any other float can be as small as 5e-324.
pub fn least_positive(input: &Input) -> f64 {
    match input {
        Input::Keyword(Keyword::FairsharePerc | Keyword::FairshareTreeUsage) => {
            f64::from(f32::from_bits(1))
        }
        _ => f64::from_bits(1),
    }
}

/// The longest source text a message quotes whole.
const SNIPPET_CHARS: usize = 80;

/// `text` as a message quotes it: whole up to [`SNIPPET_CHARS`] characters, else its start
/// and end around an ellipsis, so a diagnostic's size does not grow with the formula (each of
/// a long chain's links would otherwise quote the whole chain before it).
pub fn snippet(text: &str) -> std::borrow::Cow<'_, str> {
    let n = text.chars().count();
    if n <= SNIPPET_CHARS {
        return text.into();
    }
    let keep = SNIPPET_CHARS / 2 - 2;
    let head: String = text.chars().take(keep).collect();
    let tail: String = text.chars().skip(n - keep).collect();
    format!("{} … {}", head.trim_end(), tail.trim_start()).into()
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

impl Analyzer<'_> {
    /// The source text of a node for a message, shortened ([`snippet`]).
    pub(super) fn text(&self, id: NodeId) -> std::borrow::Cow<'_, str> {
        let s = self.ir.node(id).span;
        snippet(self.source.get(s.start..s.end).unwrap_or("?"))
    }

    pub(super) fn emit(&mut self, d: Diagnostic) {
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

    /// Input `k`'s interval `v` without the values between 0 and its least positive value
    /// ([`least_positive`]), which no job has.
    pub(super) fn no_tiny(&self, k: usize, v: Interval) -> Interval {
        let least = self.ir.inputs.get(k).map_or(0.0, least_positive);
        let mut v = v;
        if v.lo > 0.0 && v.lo < least {
            v.lo = least.min(v.hi);
        }
        if v.hi < 0.0 && v.hi > -least {
            v.hi = (-least).max(v.lo);
        }
        v
    }

    /// The input a node reads directly, if it is an input.
    pub(super) fn input(&self, id: NodeId) -> Option<&Input> {
        match self.ir.node(id).expr {
            Expr::Input(k) => self.ir.inputs.get(k as usize),
            _ => None,
        }
    }
}
