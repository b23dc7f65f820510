//! Differential test against CPython: random formulas generated from the grammar (printed with
//! minimal parentheses, so Python's own parser checks our precedence), random job values
//! (zeros, -0.0, negatives, huge, tiny and subnormal values included); jobsort's value and
//! error must equal Python's `eval` with `from math import *` under PBS's error → 0 policy,
//! bit for bit, and the error message must be Python's. Both engines are checked: the
//! reference interpreter against Python, and the JIT (over columns) against the interpreter.
//!
//! Deliberate, documented differences, excluded precisely by the Python harness below:
//! - Python evaluates integer-only subexpressions in arbitrary-precision `int`; jobsort
//!   computes in f64. The harness turns integer literals into floats (except the `ndigits`
//!   of `round`, which must be an int).
//! - Python's `bool` is an `int` in arithmetic; jobsort's is the float 0.0 or 1.0. They differ
//!   only where int arithmetic does: the sign of a zero (`-False` is `0`, `-(0.0)` is `-0.0`)
//!   and the wording of an int `ZeroDivisionError`. The harness turns comparisons, `not` and
//!   `True`/`False` into floats.
//! - `floor`, `ceil`, `trunc` and one-argument `round` return Python ints; jobsort returns the
//!   same value as a float (errors for infinity/NaN are kept). The harness wraps them in
//!   `float(...)`.
//! - A negative number to a fractional power is a complex number in Python (it flows on into
//!   other operations; as the formula's value it crashes pbs_sched, which the checker
//!   reports); jobsort reports an error at that `**`. The harness raises at the `**` that
//!   makes a complex number.
//! - A non-finite final value is an error in jobsort; the harness maps it to that error.
//!
//! Scale: `JOBSORT_DIFF_FORMULAS` (default 1500) formulas × `JOBSORT_DIFF_JOBS` (default 24)
//! jobs; `JOBSORT_DIFF_SEED` picks the seed.
//!
//! Under `--compat pbs` (`compat_pbs_matches_what_pbs_sched_evaluates`) the first three
//! differences are gone: the harness gives Python each input as the text pbs_sched writes
//! (`formula_evaluate`, OpenPBS `src/scheduler/job_info.cpp`: `%.*f` with `float_digits(v, 4)`
//! decimals, `%f` for the fairshare keywords), so whole numbers and integer literals are
//! Python ints, with `int`'s exact arithmetic and error texts (`Objects/longobject.c`).

use crate::common;
use jobsort::formula::check::{CheckOptions, check};
use jobsort::formula::pyint::IntModel;
use jobsort::formula::{interp, pbs_round_input};
use jobsort::{Catalog, CompileOptions, Engine, EvalError, Formula};
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::{Command, Stdio};

/// SplitMix64: a small deterministic generator (the test must be reproducible from its seed).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const NAMES: [&str; 7] = [
    "ncpus",
    "walltime",
    "mem",
    "eligible_time",
    "fairshare_perc",
    "fairshare_tree_usage",
    "job_priority",
];

/// Python precedence levels (higher binds tighter).
const P_COND: u8 = 1;
const P_OR: u8 = 2;
const P_AND: u8 = 3;
const P_NOT: u8 = 4;
const P_CMP: u8 = 5;
const P_ADD: u8 = 6;
const P_MUL: u8 = 7;
const P_UNARY: u8 = 8;
const P_POW: u8 = 9;
const P_ATOM: u8 = 10;

/// A generated expression: its text and the precedence of its outermost operator.
struct Gen {
    text: String,
    prec: u8,
}

fn paren(g: Gen, min_prec: u8, rng: &mut Rng) -> String {
    if g.prec < min_prec || (g.prec < P_ATOM && rng.chance(5)) {
        format!("({})", g.text)
    } else {
        g.text
    }
}

fn number(rng: &mut Rng) -> String {
    match rng.below(10) {
        0 => "0".into(),
        1 => "1".into(),
        2 => "2".into(),
        3 => format!("{}", rng.below(100)),
        4 => format!("{}.{}", rng.below(10), rng.below(100)),
        5 => rng
            .pick(&[
                "0.5", "1e-3", "2.5E+4", "1e300", "1e-300", "3600", "1_000", ".5", "5.",
            ])
            .to_string(),
        6 => rng.pick(&["1000", "1024", "7", "3", "0.1"]).to_string(),
        7 => rng.pick(&["True", "False", "pi", "e", "tau"]).to_string(),
        _ => format!("{}", rng.below(10)),
    }
}

fn generate(rng: &mut Rng, depth: u32) -> Gen {
    if depth == 0 || rng.chance(25) {
        let text = if rng.chance(55) {
            rng.pick(&NAMES).to_string()
        } else {
            number(rng)
        };
        return Gen { text, prec: P_ATOM };
    }
    let d = depth - 1;
    match rng.below(14) {
        0..=3 => {
            // left-associative binary arithmetic
            let (op, prec) = *rng.pick(&[
                ("+", P_ADD),
                ("-", P_ADD),
                ("*", P_MUL),
                ("/", P_MUL),
                ("//", P_MUL),
                ("%", P_MUL),
            ]);
            let a = generate(rng, d);
            let b = generate(rng, d);
            let a = paren(a, prec, rng);
            let b = paren(b, prec + 1, rng);
            Gen {
                text: format!("{a} {op} {b}"),
                prec,
            }
        }
        4 => {
            // ** : right-assoc; the left operand must bind tighter than unary; the right may be unary
            let a = generate(rng, d);
            let b = generate(rng, d);
            let a = paren(a, P_ATOM, rng);
            let b = paren(b, P_UNARY, rng);
            Gen {
                text: format!("{a}**{b}"),
                prec: P_POW,
            }
        }
        5 => {
            let op = *rng.pick(&["-", "+", "-"]);
            let a = generate(rng, d);
            let a = paren(a, P_UNARY, rng);
            Gen {
                text: format!("{op}{a}"),
                prec: P_UNARY,
            }
        }
        6 => {
            // comparison chain of 2 or 3 operands
            let n = 2 + rng.below(2);
            let mut parts = vec![];
            for i in 0..n {
                let g = generate(rng, d);
                parts.push(paren(g, P_ADD, rng));
                if i + 1 < n {
                    parts.push(rng.pick(&["<", "<=", ">", ">=", "==", "!="]).to_string());
                }
            }
            Gen {
                text: parts.join(" "),
                prec: P_CMP,
            }
        }
        7 => {
            let (op, prec) = *rng.pick(&[("and", P_AND), ("or", P_OR)]);
            let a = generate(rng, d);
            let b = generate(rng, d);
            let a = paren(a, prec, rng);
            let b = paren(b, prec + 1, rng);
            Gen {
                text: format!("{a} {op} {b}"),
                prec,
            }
        }
        8 => {
            let a = generate(rng, d);
            let a = paren(a, P_NOT, rng);
            Gen {
                text: format!("not {a}"),
                prec: P_NOT,
            }
        }
        9 => {
            let t = generate(rng, d);
            let c = generate(rng, d);
            let o = generate(rng, d);
            let t = paren(t, P_OR, rng);
            let c = paren(c, P_OR, rng);
            let o = paren(o, P_COND, rng);
            Gen {
                text: format!("{t} if {c} else {o}"),
                prec: P_COND,
            }
        }
        _ => {
            let (f, arity): (&str, usize) = *rng.pick(common::MATH_FUNCTIONS);
            let mut args = vec![];
            for i in 0..arity {
                if f == "round" && i == 1 {
                    args.push(format!("{}", rng.below(6)));
                } else {
                    let g = generate(rng, d);
                    args.push(paren(g, P_COND, rng));
                }
            }
            Gen {
                text: format!("{f}({})", args.join(", ")),
                prec: P_ATOM,
            }
        }
    }
}

fn job_value(rng: &mut Rng) -> f64 {
    match rng.below(12) {
        0 => 0.0,
        1 => -0.0,
        2 => 1.0,
        3 => (rng.below(64)) as f64,
        4 => -((rng.below(1000)) as f64) / 7.0,
        5 => *rng.pick(&[1e300, -1e300, 1.7976931348623157e308, 1e308]),
        6 => *rng.pick(&[1e-300, 5e-324, 2.2250738585072014e-308, -1e-310]),
        7 => (rng.below(1_000_000)) as f64 / 1000.0,
        8 => (rng.below(1000)) as f64 / 1000.0,
        9 => *rng.pick(&[0.5, 0.25, 0.125, 3600.0, 86400.0, 4194304.0]),
        10 => f64::from_bits(rng.next() >> 2), // anything finite and positive
        _ => (rng.below(10)) as f64,
    }
}

/// The outcome text both sides produce: `ok <hex bits>` or `err <message>`.
fn outcome(r: Result<f64, EvalError>) -> String {
    match r {
        Ok(v) => format!("ok {:016x}", v.to_bits()),
        Err(EvalError::NegativeToFractionalPower) => "err complex".to_string(),
        Err(EvalError::NotFinite) => "err nonfinite".to_string(),
        Err(e) => format!("err {}: {}", e.python_exception(), e.message()),
    }
}

const HARNESS: &str = r#"
import ast, builtins, json, math, struct, sys
from math import *
_round = builtins.round
def round(x, n=None):
    return float(_round(x)) if n is None else _round(x, n)
_floor, _ceil, _trunc = math.floor, math.ceil, math.trunc
def floor(x): return float(_floor(x))
def ceil(x): return float(_ceil(x))
def trunc(x): return float(_trunc(x))
def _f(x): return float(x)
class Complex(Exception):
    pass
def _pow(a, b):
    try:
        r = a ** b
    except OverflowError as ex:
        if str(ex) == 'complex exponentiation':
            raise Complex()
        raise
    if isinstance(r, complex):
        raise Complex()
    return r
ns = dict(globals())

class Floats(ast.NodeTransformer):
    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id == 'round' and len(node.args) == 2:
            node.args[0] = self.visit(node.args[0])
            return node
        return self.generic_visit(node)
    def visit_Compare(self, node):
        self.generic_visit(node)
        return ast.copy_location(ast.Call(ast.Name('_f', ast.Load()), [node], []), node)
    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(ast.Call(ast.Name('_f', ast.Load()), [node], []), node)
        return node
    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            return ast.copy_location(ast.Call(ast.Name('_pow', ast.Load()), [node.left, node.right], []), node)
        return node
    def visit_Constant(self, node):
        if type(node.value) in (int, bool):
            return ast.copy_location(ast.Constant(float(node.value)), node)
        return node

data = json.load(sys.stdin)
names = data['names']
jobs = [[struct.unpack('<d', struct.pack('<Q', int(b, 16)))[0] for b in job] for job in data['jobs']]
out = []
for src in data['formulas']:
    tree = ast.fix_missing_locations(Floats().visit(ast.parse(src, mode='eval')))
    code = compile(tree, '<formula>', 'eval')
    for job in jobs:
        env = dict(ns)
        env.update(zip(names, job))
        try:
            v = eval(code, env)
            if isinstance(v, complex):
                out.append('err complex')
                continue
            v = float(v)
            if not math.isfinite(v):
                out.append('err nonfinite')
            else:
                out.append('ok %016x' % struct.unpack('<Q', struct.pack('<d', v))[0])
        except Complex:
            out.append('err complex')
        except Exception as ex:
            out.append('err %s: %s' % (type(ex).__name__, ex))
json.dump(out, sys.stdout)
"#;

/// The harness under `--compat pbs`: Python as pbs_sched runs it. Inputs arrive as the text
/// pbs_sched writes; the formula is not transformed except that a `**` giving a complex number
/// raises (jobsort's documented difference) and an int operation beyond 2^16 bits raises
/// `TooLarge` (jobsort does not compute such ints). The value goes through `float()` as
/// `PyFloat_AsDouble` does; an int too large for it is `err intresult`.
const PBS_HARNESS: &str = r#"
import ast, json, math, struct, sys
from math import *
class Complex(Exception):
    pass
class TooLarge(Exception):
    pass
BITS = 1 << 16
def _bin(op, a, b):
    if op == '**':
        if type(a) is int and type(b) is int and b > 0 and abs(a) > 1 and (abs(a).bit_length() - 1) * b > BITS:
            raise TooLarge()
        try:
            r = a ** b
        except OverflowError as ex:
            if str(ex) == 'complex exponentiation':
                raise Complex()
            raise
        if isinstance(r, complex):
            raise Complex()
    elif op == '+': r = a + b
    elif op == '-': r = a - b
    elif op == '*': r = a * b
    elif op == '/': r = a / b
    elif op == '//': r = a // b
    else: r = a % b
    if isinstance(r, int) and r.bit_length() > BITS:
        raise TooLarge()
    return r
OPS = {ast.Add: '+', ast.Sub: '-', ast.Mult: '*', ast.Div: '/', ast.FloorDiv: '//', ast.Mod: '%', ast.Pow: '**'}
ns = dict(globals())

class Ops(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        return ast.copy_location(ast.Call(ast.Name('_bin', ast.Load()), [ast.Constant(OPS[type(node.op)]), node.left, node.right], []), node)

data = json.load(sys.stdin)
names = data['names']
out = []
jobs = [dict((n, eval(t, dict(ns))) for n, t in zip(names, job)) for job in data['jobs']]
for src in data['formulas']:
    tree = ast.fix_missing_locations(Ops().visit(ast.parse(src, mode='eval')))
    code = compile(tree, '<formula>', 'eval')
    for job in jobs:
        env = dict(ns)
        env.update(job)
        try:
            v = eval(code, env)
        except Complex:
            out.append('err complex')
            continue
        except TooLarge:
            out.append('err toolarge')
            continue
        except Exception as ex:
            out.append('err %s: %s' % (type(ex).__name__, ex))
            continue
        if isinstance(v, complex):
            out.append('err complex')
            continue
        try:
            v = float(v)
        except OverflowError:
            out.append('err intresult')
            continue
        if not math.isfinite(v):
            out.append('err nonfinite')
        else:
            out.append('ok %016x' % struct.unpack('<Q', struct.pack('<d', v))[0])
json.dump(out, sys.stdout)
"#;

/// [`outcome`] under `--compat pbs`, where the value is stored as a 32-bit float.
fn pbs_outcome(r: Result<f64, EvalError>) -> String {
    match r {
        Err(EvalError::IntResultTooLarge) => "err intresult".to_string(),
        Err(EvalError::IntTooLargeToModel) => "err toolarge".to_string(),
        r => outcome(r),
    }
}

fn run_python(harness: &str, input: &str) -> Vec<String> {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
    let mut child = Command::new(&python)
        .args(["-c", harness])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {python} (python3 is required for this test): {e}"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "python harness failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Under `--compat pbs`, jobsort's value (stored as PBS stores it, a C `float`) and error text
/// equal what Python computes from the text pbs_sched writes (OpenPBS 23.06
/// `formula_evaluate`, `src/scheduler/job_info.cpp`; Python 3.11 int semantics,
/// `Objects/longobject.c`), for both engines; the JIT and the interpreter agree job by job.
#[test]
fn compat_pbs_matches_what_pbs_sched_evaluates() {
    let n_formulas = env_or("JOBSORT_DIFF_FORMULAS", 1500) as usize;
    let n_jobs = env_or("JOBSORT_DIFF_JOBS", 24) as usize;
    let mut rng = Rng(env_or("JOBSORT_DIFF_SEED", 20261206));
    let formulas: Vec<String> = (0..n_formulas)
        .map(|_| generate(&mut rng, 4).text)
        .collect();
    let jobs: Vec<Vec<f64>> = (0..n_jobs)
        .map(|_| NAMES.iter().map(|_| job_value(&mut rng)).collect())
        .collect();
    let catalog = Catalog::pbs();
    let fairshare: Vec<bool> = NAMES
        .iter()
        .map(|n| catalog.input(n).is_some_and(|i| i.is_fairshare()))
        .collect();
    let texts: Vec<Vec<String>> = jobs
        .iter()
        .map(|job| {
            job.iter()
                .zip(&fairshare)
                .map(|(&v, &fs)| jobsort::formula::pbs_input_text(v, fs))
                .collect()
        })
        .collect();
    let input = serde_json::json!({"names": NAMES, "formulas": formulas, "jobs": texts});
    let expected = run_python(PBS_HARNESS, &input.to_string());
    assert_eq!(expected.len(), n_formulas * n_jobs);

    let interp = CompileOptions {
        engine: Engine::Interp,
        compat_pbs: true,
        ..CompileOptions::default()
    };
    let jit_options = CompileOptions {
        compat_pbs: true,
        ..CompileOptions::default()
    };
    let (mut count, mut rejected, mut int_errors, mut modelled, mut proven) = (0, 0, 0, 0, 0);
    let mut mismatches = String::new();
    for (f, src) in formulas.iter().enumerate() {
        let compiled = match Formula::compile_with(src, &catalog, &interp) {
            Ok(c) => c,
            Err(d) => {
                assert!(
                    d.iter()
                        .filter(|d| d.is_error())
                        .all(|d| d.code.starts_with("E03")),
                    "generated formula `{src}` was rejected for something other than a constant error:\n{d}"
                );
                rejected += 1;
                continue;
            }
        };
        let jit = Formula::compile_with(src, &catalog, &jit_options).expect("compiles as above");
        modelled += usize::from(jit.engine() == Engine::Interp);
        // The proof behind the JIT: where ints cannot matter (IntModel::needed), the model and
        // the float interpreter agree bit for bit on the inputs as PBS writes them.
        let checked = check(
            src,
            &catalog,
            &CheckOptions {
                compat_pbs: true,
                deny_warnings: false,
            },
        );
        let ir = checked.ir.expect("checks as above");
        let model = IntModel::new(&ir, src);
        let ir_inputs: Vec<usize> = ir
            .inputs
            .iter()
            .map(|name| NAMES.iter().position(|n| name == n).unwrap())
            .collect();
        if !model.int_sensitive(&ir) {
            for job in &jobs {
                let row: Vec<f64> = ir_inputs
                    .iter()
                    .map(|&k| pbs_round_input(job[k], fairshare[k]))
                    .collect();
                let (m, f) = (model.eval_job(&ir, &row), interp::eval_job(&ir, &row));
                assert_eq!(
                    pbs_outcome(m),
                    pbs_outcome(f),
                    "`{src}` on {row:?}: the int model and the float interpreter disagree where the proof says ints cannot matter"
                );
                proven += 1;
            }
        }
        let inputs: Vec<usize> = compiled
            .inputs()
            .iter()
            .map(|name| NAMES.iter().position(|n| name == n).unwrap())
            .collect();
        let columns: Vec<Vec<f64>> = inputs
            .iter()
            .map(|&k| jobs.iter().map(|job| job[k]).collect())
            .collect();
        let column_refs: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
        let jitted = jit.evaluate_columns(&column_refs, n_jobs);
        for (j, job) in jobs.iter().enumerate() {
            let row: Vec<f64> = inputs.iter().map(|&k| job[k]).collect();
            let got = pbs_outcome(compiled.eval_one(&row));
            let jit_got = pbs_outcome(match jitted.error(j) {
                Some(e) => Err(e),
                None => Ok(jitted.values[j]),
            });
            assert_eq!(got, jit_got, "`{src}`: interp and JIT disagree on job {j}");
            let want = &expected[f * n_jobs + j];
            // PBS stores the value in a C float.
            let want = match want.strip_prefix("ok ") {
                Some(bits) => {
                    let v = f64::from_bits(u64::from_str_radix(bits, 16).unwrap());
                    pbs_outcome(Ok(v as f32 as f64))
                }
                None => want.clone(),
            };
            int_errors += usize::from(
                want == "err ZeroDivisionError: division by zero" || want.contains("integer"),
            );
            if got != want {
                count += 1;
                if count <= 20 {
                    let _ = writeln!(
                        mismatches,
                        "`{src}` with {}: jobsort {got}, python {want}",
                        texts[j].join(" ")
                    );
                }
            }
        }
    }
    assert!(
        rejected * 4 < n_formulas,
        "too many generated formulas rejected statically: {rejected}"
    );
    assert_eq!(
        count, 0,
        "{count} mismatches against CPython; first ones:\n{mismatches}"
    );
    assert!(int_errors > 0, "the generated cases must reach int errors");
    assert!(
        modelled > 0 && modelled < n_formulas,
        "{modelled} formulas need the int model"
    );
    assert!(proven > 0, "no formula was proven free of int effects");
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn jobsort_matches_cpython_bit_for_bit() {
    let n_formulas = env_or("JOBSORT_DIFF_FORMULAS", 1500) as usize;
    let n_jobs = env_or("JOBSORT_DIFF_JOBS", 24) as usize;
    let mut rng = Rng(env_or("JOBSORT_DIFF_SEED", 20261130));

    let formulas: Vec<String> = (0..n_formulas)
        .map(|_| generate(&mut rng, 4).text)
        .collect();
    let jobs: Vec<Vec<f64>> = (0..n_jobs)
        .map(|_| NAMES.iter().map(|_| job_value(&mut rng)).collect())
        .collect();

    let mut input = String::from("{\"names\":");
    input.push_str(&serde_json::to_string(&NAMES).unwrap());
    input.push_str(",\"formulas\":");
    input.push_str(&serde_json::to_string(&formulas).unwrap());
    input.push_str(",\"jobs\":[");
    for (i, job) in jobs.iter().enumerate() {
        if i > 0 {
            input.push(',');
        }
        let bits: Vec<String> = job
            .iter()
            .map(|v| format!("{:016x}", v.to_bits()))
            .collect();
        input.push_str(&serde_json::to_string(&bits).unwrap());
    }
    input.push_str("]}");

    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string());
    let mut child = Command::new(&python)
        .args(["-c", HARNESS])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {python} (python3 is required for this test): {e}"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "python harness failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let expected: Vec<String> = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(expected.len(), n_formulas * n_jobs);

    let catalog = Catalog::pbs();
    let options = CompileOptions {
        engine: Engine::Interp,
        ..CompileOptions::default()
    };
    let mut mismatches = String::new();
    let mut count = 0;
    let mut errors_seen = 0;
    let mut rejected = 0;
    for (f, src) in formulas.iter().enumerate() {
        // The checker rejects formulas with a constant sub-expression that always fails
        // (`1 // 0`, `log(0)`): Python would only fail at run time. Those are skipped here
        // (the checker has its own tests); any other rejection is a bug.
        let compiled = match Formula::compile_with(src, &catalog, &options) {
            Ok(c) => c,
            Err(d) => {
                assert!(
                    d.iter()
                        .filter(|d| d.is_error())
                        .all(|d| d.code.starts_with("E03")),
                    "generated formula `{src}` was rejected for something other than a constant error:\n{d}"
                );
                rejected += 1;
                continue;
            }
        };
        let inputs: Vec<usize> = compiled
            .inputs()
            .iter()
            .map(|name| {
                NAMES
                    .iter()
                    .position(|n| name == n)
                    .unwrap_or_else(|| panic!("unexpected input {name}"))
            })
            .collect();
        // The JIT over columns must give the very same outcome for every job.
        let jit = Formula::compile_with(src, &catalog, &CompileOptions::default())
            .expect("compiles as above");
        let columns: Vec<Vec<f64>> = inputs
            .iter()
            .map(|&k| jobs.iter().map(|job| job[k]).collect())
            .collect();
        let column_refs: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
        let jitted = jit.evaluate_columns(&column_refs, n_jobs);
        for (j, job) in jobs.iter().enumerate() {
            let row: Vec<f64> = inputs.iter().map(|&k| job[k]).collect();
            let got = outcome(compiled.eval_one(&row));
            let jit_got = outcome(match jitted.error(j) {
                Some(e) => Err(e),
                None => Ok(jitted.values[j]),
            });
            assert_eq!(
                got,
                jit_got,
                "`{src}`: interp and {:?} disagree on job {j}",
                jit.engine()
            );
            let want = &expected[f * n_jobs + j];
            errors_seen += usize::from(want.starts_with("err"));
            if &got != want {
                count += 1;
                if count <= 20 {
                    let values: Vec<String> = NAMES
                        .iter()
                        .zip(job)
                        .map(|(n, v)| format!("{n}={v:e}"))
                        .collect();
                    let _ = writeln!(
                        mismatches,
                        "`{src}` with {}: jobsort {got}, python {want}",
                        values.join(" ")
                    );
                }
            }
        }
    }
    assert!(
        rejected * 4 < n_formulas,
        "too many generated formulas rejected statically: {rejected}"
    );
    assert!(
        errors_seen > 0 && errors_seen < n_formulas * n_jobs,
        "the generated cases must mix values and errors"
    );
    assert_eq!(
        count, 0,
        "{count} mismatches against CPython; first ones:\n{mismatches}"
    );
}
