//! The checker's interval analysis is sound: for random formulas and random jobs drawn from
//! each input's declared domain (`hazards::input_domain`, `hazards::least_positive`), with its edges (0, the domain's
//! bounds, subnormals, huge values), every value the evaluator gives lies inside the range
//! `check` states, and every evaluation error was announced by a diagnostic. Both evaluators
//! are checked: the float interpreter and `--compat pbs` (Python's ints, inputs as pbs_sched
//! writes them, the value stored as a C float). Both match CPython bit for bit
//! (`tests/python_differential.rs`), so Python's semantics are the reference here too.
//!
//! Overflow is announced for inputs up to 2^63 in magnitude (PBS's 64-bit resources; see
//! `formula::hazards`), so an error is required to be announced only for jobs within that
//! bound; the range must hold for every job.
//!
//! Scale: `JOBSORT_SOUNDNESS_CASES` formulas (default 3000, each with 24 jobs);
//! `JOBSORT_SOUNDNESS_SEED` picks the seed.

use crate::common;
use jobsort::catalog::ResourceType;
use jobsort::formula::check::{CheckOptions, check};
use jobsort::formula::diag::{Diagnostic, codes};
use jobsort::formula::hazards::{input_domain, least_positive};
use jobsort::{Catalog, CompileOptions, Engine, EvalError, Formula};
use std::fmt::Write as _;

/// SplitMix64: deterministic, reproducible from its seed.
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
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Every input kind: whole-number resources, a float resource, a custom float resource with
/// no bounds, the integer keywords and the fairshare keywords.
const NAMES: [&str; 12] = [
    "ncpus",
    "walltime",
    "mem",
    "energy",
    "x",
    "eligible_time",
    "job_priority",
    "queue_priority",
    "accrue_type",
    "fairshare_perc",
    "fairshare_tree_usage",
    "fairshare_factor",
];

const CONSTANTS: [&str; 26] = [
    "0", "1", "2", "3", "7", "48", "1024", "3600", "0.1", "0.5", "2.5", "1e-3", "1e300", "1e-300",
    "5e-324", "1e999", "inf", "pi", "True", "False", "0.0", "95", "-1", "1e18", "1e308", "nan",
];

fn catalog() -> Catalog {
    Catalog::pbs().with_resource("x", ResourceType::Float)
}

/// A formula in Python syntax, parenthesised fully (precedence is another test's concern).
fn formula(rng: &mut Rng, depth: u32) -> String {
    if depth == 0 || rng.chance(25) {
        return if rng.chance(55) {
            rng.pick(&NAMES).to_string()
        } else {
            rng.pick(&CONSTANTS).to_string()
        };
    }
    let d = depth - 1;
    match rng.below(16) {
        0..=4 => {
            let op = rng.pick(&["+", "-", "*", "/", "//", "%", "**", "//", "/"]);
            format!("({} {op} {})", formula(rng, d), formula(rng, d))
        }
        5 => format!("(-{})", formula(rng, d)),
        6 => {
            let op = rng.pick(&["<", "<=", ">", ">=", "==", "!="]);
            format!("({} {op} {})", formula(rng, d), formula(rng, d))
        }
        7 => {
            let op = rng.pick(&["and", "or"]);
            format!("({} {op} {})", formula(rng, d), formula(rng, d))
        }
        8 => format!("(not {})", formula(rng, d)),
        9 => format!(
            "({} if {} else {})",
            formula(rng, d),
            formula(rng, d),
            formula(rng, d)
        ),
        _ => {
            let (f, arity): (&str, usize) = *rng.pick(common::MATH_FUNCTIONS);
            let args: Vec<String> = (0..arity)
                .map(|i| {
                    if f == "round" && i == 1 {
                        format!("{}", rng.below(5) as i64 - 1)
                    } else {
                        formula(rng, d)
                    }
                })
                .collect();
            format!("{f}({})", args.join(", "))
        }
    }
}

/// A value of an input with domain `[lo, hi]` (`int`: whole numbers only; no magnitude below
/// `least` but 0): its edges half of the time, else a random value of a random magnitude.
fn value(rng: &mut Rng, lo: f64, hi: f64, int: bool, least: f64) -> f64 {
    const EDGES: [f64; 22] = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        2.0,
        0.5,
        5e-324,
        -5e-324,
        2.2250738585072014e-308,
        1e-300,
        1e-5,
        0.1,
        1e300,
        -1e300,
        f64::MAX,
        -f64::MAX,
        9007199254740992.0,
        9.223372036854776e18,
        -9.223372036854776e18,
        1e18,
        4294967296.0,
        3600.0,
    ];
    for _ in 0..8 {
        let v = match rng.below(4) {
            0 => lo,
            1 => hi,
            2 => *rng.pick(&EDGES),
            _ => {
                let magnitude = 10f64.powf(rng.unit() * 40.0 - 20.0);
                let v = if rng.chance(50) {
                    magnitude
                } else {
                    -magnitude
                };
                if int { v.round() } else { v }
            }
        };
        if v.is_finite()
            && lo <= v
            && v <= hi
            && (!int || v.fract() == 0.0)
            && (v == 0.0 || v.abs() >= least)
        {
            return v;
        }
    }
    0.0f64.clamp(lo, hi)
}

/// Diagnostics that announce a failure for some job.
fn announces_failure(d: &Diagnostic) -> bool {
    d.is_error()
        || [
            codes::MAYBE_DIV_ZERO,
            codes::MAYBE_DOMAIN,
            codes::MAYBE_OVERFLOW,
            codes::MAYBE_CRASHES_PBS,
            codes::MAYBE_NOT_FINITE,
        ]
        .contains(&d.code)
}

/// What one run found.
#[derive(Default)]
struct Findings {
    formulas: usize,
    jobs: usize,
    outside: usize,
    unannounced: usize,
    /// Formulas with at least one finding (a formula is one defect however many jobs show it).
    defective: std::collections::BTreeSet<String>,
    examples: String,
}

impl Findings {
    fn report(&mut self, kind: &str, src: &str, compat: bool, detail: String) {
        if self.defective.insert(format!("{compat} {src}")) && self.defective.len() <= 30 {
            let mode = if compat { " (--compat pbs)" } else { "" };
            let _ = writeln!(self.examples, "{kind}{mode}: `{src}`: {detail}");
        }
    }
}

/// Check one formula under one mode over `jobs` (values for every name in `NAMES`).
fn check_formula(src: &str, compat_pbs: bool, jobs: &[Vec<f64>], found: &mut Findings) {
    let catalog = catalog();
    let checked = check(
        src,
        &catalog,
        &CheckOptions {
            compat_pbs,
            deny_warnings: false,
        },
    );
    let Some(ir) = &checked.ir else { return };
    let (lo, hi) = checked.range.expect("a valid formula has a range");
    let compiled = Formula::compile_with(
        src,
        &catalog,
        &CompileOptions {
            engine: Engine::Interp,
            compat_pbs,
            ..CompileOptions::default()
        },
    )
    .expect("a valid formula compiles");
    let announced = checked.diagnostics.iter().any(announces_failure);
    let columns: Vec<usize> = ir
        .inputs
        .iter()
        .map(|i| {
            NAMES
                .iter()
                .position(|n| *n == i.name())
                .expect("a known name")
        })
        .collect();
    found.formulas += 1;
    for job in jobs {
        found.jobs += 1;
        let row: Vec<f64> = columns
            .iter()
            .zip(&ir.inputs)
            .map(|(&k, input)| {
                let d = input_domain(input, &catalog);
                job[k].clamp(d.lo, d.hi)
            })
            .collect();
        let result = compiled.eval_one(&row);
        let (v, err) = match result {
            Ok(v) => (v, None),
            Err(e) => (0.0, Some(e)),
        };
        // Errors are judged (announced, and 0 in the range) for jobs within PBS's 64-bit
        // bound, as the checker judges overflow; jobsort's own limit on Python's ints
        // (`IntTooLargeToModel`) is no Python error.
        let bounded = row.iter().all(|v| v.abs() <= 9.223372036854776e18);
        let judged = err.is_none() || (bounded && err != Some(EvalError::IntTooLargeToModel));
        if judged && !(lo <= v && v <= hi) {
            found.outside += 1;
            found.report(
                "outside the range",
                src,
                compat_pbs,
                format!("range [{lo:e}, {hi:e}], value {v:e} ({err:?}) for {row:?}"),
            );
        }
        if let Some(e) = err
            && !announced
            && judged
        {
            found.unannounced += 1;
            found.report(
                "an error no diagnostic announced",
                src,
                compat_pbs,
                format!("{} for {row:?}", e.message()),
            );
        }
    }
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn run(n_formulas: usize, seed: u64) -> Findings {
    let mut rng = Rng(seed);
    let catalog = catalog();
    let mut found = Findings::default();
    for _ in 0..n_formulas {
        let src = formula(&mut rng, 4);
        let jobs: Vec<Vec<f64>> = (0..24)
            .map(|_| {
                NAMES
                    .iter()
                    .map(|n| {
                        let input = catalog.input(n).expect("a known name");
                        let d = input_domain(&input, &catalog);
                        value(&mut rng, d.lo, d.hi, d.int, least_positive(&input))
                    })
                    .collect()
            })
            .collect();
        for compat_pbs in [false, true] {
            check_formula(&src, compat_pbs, &jobs, &mut found);
        }
    }
    found
}

#[test]
fn check_ranges_hold_and_every_error_is_announced() {
    let n = env_or("JOBSORT_SOUNDNESS_CASES", 3000) as usize;
    let seed = env_or("JOBSORT_SOUNDNESS_SEED", 20261206);
    let found = run(n, seed);
    eprintln!(
        "{} valid formula checks × jobs = {} evaluations: {} outside the range, {} unannounced errors, {} defective formulas",
        found.formulas,
        found.jobs,
        found.outside,
        found.unannounced,
        found.defective.len()
    );
    assert!(found.formulas > n, "too few generated formulas are valid");
    assert!(
        found.defective.is_empty(),
        "{} formulas break the checker's soundness (seed {seed}); first ones:\n{}",
        found.defective.len(),
        found.examples
    );
}

/// A job: the given values, every other input 1.
fn job(values: &[(&str, f64)]) -> Vec<f64> {
    NAMES
        .iter()
        .map(|n| {
            values
                .iter()
                .find(|(name, _)| name == n)
                .map_or(1.0, |&(_, v)| v)
        })
        .collect()
}

/// Formulas whose range or announced errors were wrong, each with the jobs that showed it.
#[test]
fn formulas_once_unsound_now_hold() {
    let cases: Vec<(&str, Vec<Vec<f64>>)> = vec![
        // PBS's default job_priority is 0: 1/copysign(0, 1) divides by zero.
        (
            "1/copysign(job_priority, 1)",
            vec![job(&[("job_priority", 0.0)])],
        ),
        // copysign keeps the magnitude: 0, 5, 7 are not in [1023, 1024].
        (
            "copysign(job_priority,48)",
            vec![
                job(&[("job_priority", 0.0)]),
                job(&[("job_priority", 5.0)]),
                job(&[("job_priority", 7.0)]),
            ],
        ),
        // Python's float `//` is floor((a - fmod(a, b)) / b): 95 // 0.1 is 949.
        ("(95+accrue_type*0)//0.1", vec![job(&[])]),
        // 0.5 // -inf is -1 in Python (a positive number floor-divided by -inf).
        (
            "fairshare_factor // -inf",
            vec![job(&[("fairshare_factor", 0.5)])],
        ),
        (
            "fairshare_factor // inf",
            vec![job(&[("fairshare_factor", 0.5)])],
        ),
        // The smallest subnormal's logarithm is -744.44, below ln(MIN_POSITIVE).
        ("log(energy)", vec![job(&[("energy", 5e-324)])]),
        ("log2(energy)", vec![job(&[("energy", 5e-324)])]),
        ("log10(energy)", vec![job(&[("energy", 5e-324)])]),
        // Never finite for any job: each needs a diagnostic.
        ("hypot(walltime, inf)", vec![job(&[])]),
        ("sqrt(ncpus*1e999)", vec![job(&[])]),
        ("trunc(walltime and inf)", vec![job(&[])]),
        // Under --compat pbs an exact int beyond a float fails where a function converts it.
        (
            "copysign(energy, (queue_priority * floor((1e308 * fairshare_perc))))",
            vec![job(&[("queue_priority", 1023.0), ("fairshare_perc", 1.0)])],
        ),
        (
            "expm1(((-(1024 ** 3600)) * walltime))",
            vec![job(&[("walltime", 32.0)])],
        ),
        // 0 * inf is NaN, which is truthy.
        (
            "(((0 / (accrue_type * 1e999)) and (-radians(3600))) or atan(queue_priority))",
            vec![job(&[("accrue_type", 0.0), ("queue_priority", 0.0)])],
        ),
        // hypot rounds its own way.
        (
            "hypot(exp((pi <= (job_priority if 3600 else 2))), cos(walltime))",
            vec![job(&[("job_priority", 1023.0), ("walltime", 0.0)])],
        ),
        // Squares of tiny values underflow; hypot does not.
        ("hypot(1e-300, walltime == 7)", vec![job(&[])]),
        // Python's round is half to even: round(2.5) is 2.
        (
            "((-round((2.5 if 1024 else job_priority))) / 2)",
            vec![job(&[("job_priority", 1023.0)])],
        ),
        // An int exponent beyond 2^53 keeps its parity under --compat pbs.
        (
            "((-ceil(sqrt(x))) ** (job_priority + ceil(1e308)))",
            vec![job(&[("x", 0.1), ("job_priority", 1023.0)])],
        ),
    ];
    let mut found = Findings::default();
    for (src, jobs) in &cases {
        for compat_pbs in [false, true] {
            check_formula(src, compat_pbs, jobs, &mut found);
        }
    }
    assert!(
        found.defective.is_empty(),
        "{} formulas break the checker's soundness:\n{}",
        found.defective.len(),
        found.examples
    );
}
