//! How deep a formula may be: a chain of operators is not nesting, so
//! `1+1+...+1` of any length that fits in 64 KiB checks, compiles and evaluates, and no pass
//! overflows the stack on it; real nesting (parentheses, unary operators, `**` on the right,
//! calls, conditionals) beyond the limits is an error with a span.
//!
//! What CPython 3.11.7 does with the same shapes (measured with `compile(src, "f", "eval")`):
//! - More than 200 nested parentheses: `SyntaxError: too many nested parentheses` (its
//!   tokenizer's `MAXLEVEL`). jobsort refuses the same ([`MAX_PARENS`]), since PBS evaluates
//!   the formula in Python and could not either.
//! - A flat sum of 257 terms is fine. Its compiler recurses once per operator, so a chain
//!   deeper than about 3 × `sys.getrecursionlimit()` fails with `RecursionError: maximum
//!   recursion depth exceeded during compilation`: 2,988 terms at the default limit of 1000
//!   (5,994 at 2000), 2,994 in the `eval` pbs_sched runs at module level. That limit is an
//!   accident of CPython's recursion and of the interpreter's settings, not of the language,
//!   so jobsort does not copy it: chains of any length work (`check --compat pbs` warns,
//!   `W0409`: `tests/it/check_pbs_compile.rs`).
//! - Unary chains (`----x`, `not not x`) and right-nested `**` chains also run up to about
//!   3,000 levels in CPython; jobsort stops at [`MAX_NESTING`] (256) with E0105, which no
//!   real formula reaches.
//!
//! Every case runs on a 2 MiB thread stack (the test harness's default) and on an 8 MiB one (a
//! main thread's), in debug builds.

use jobsort::Catalog;
use jobsort::catalog::ResourceType;
use jobsort::formula::ast::{MAX_NESTING, MAX_PARENS};
use jobsort::formula::check::{CheckOptions, Checked, check};
use jobsort::formula::diag::codes;
use jobsort::formula::explain::terms;
use jobsort::formula::ir::Ir;
use jobsort::formula::parser::{MAX_LEN, parse};
use jobsort::formula::{CompileOptions, CompiledFormula, Engine, interp, jit, opt};

fn catalog() -> Catalog {
    Catalog::pbs().with_resource("x", ResourceType::Float)
}

/// Run `f` on a thread with a stack of `mib` MiB; a stack overflow aborts the test binary.
fn on_stack(mib: usize, f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(mib << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("the case panicked");
}

/// Both stacks a formula may be evaluated on: the test harness's and a main thread's.
fn on_both_stacks(f: impl Fn() + Send + Sync + Clone + 'static) {
    on_stack(2, f.clone());
    on_stack(8, f);
}

/// `n` terms joined by `op`.
fn chain(term: &str, op: &str, n: usize) -> String {
    vec![term; n].join(op)
}

fn checked(src: &str) -> Checked {
    check(src, &catalog(), &CheckOptions::default())
}

/// Job columns for the formula's inputs: a few jobs, including 0 and negative values, so
/// errors and both sides of every branch are reached.
fn columns(ir: &Ir) -> Vec<Vec<f64>> {
    let jobs = [1.0, 0.0, 2.5, -3.0, 1.0000001, 7.0, 0.5];
    (0..ir.inputs.len())
        .map(|k| jobs.iter().map(|v| v + k as f64).collect())
        .collect()
}

/// Each job's value bits and error code, from the reference interpreter.
fn oracle(ir: &Ir, cols: &[&[f64]], n: usize) -> (Vec<u64>, Vec<u8>) {
    (0..n)
        .map(|i| {
            let row: Vec<f64> = cols.iter().map(|c| c[i]).collect();
            match interp::eval_job(ir, &row) {
                Ok(v) => (v.to_bits(), 0),
                Err(e) => (0f64.to_bits(), e.code()),
            }
        })
        .unzip()
}

/// A formula that must be accepted: no error, and every backend (the interpreter on the raw
/// and the optimised IR, scalar and SIMD JIT code of both, the public API) gives the same bits
/// for every job. Returns the checked formula.
fn accepted_everywhere(src: &str) -> Checked {
    let c = checked(src);
    let errors: Vec<_> = c.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(
        errors.is_empty(),
        "{}...: {errors:?}",
        &src[..src.len().min(40)]
    );
    let raw = c.ir.clone().expect("an IR");
    let cols = columns(&raw);
    let cols: Vec<&[f64]> = cols.iter().map(Vec::as_slice).collect();
    let n = 7;
    let want = oracle(&raw, &cols, n);
    let optimized = opt::optimize(&raw);
    assert_eq!(
        oracle(&optimized, &cols, n),
        want,
        "the optimiser changed results"
    );
    for ir in [&raw, &optimized] {
        for simd in [false, true] {
            let k = jit::compile_with(ir, simd).expect("JIT");
            let mut v = vec![f64::NAN; n];
            let mut e = vec![77u8; n];
            assert!(k.run(&cols, n, &mut v, &mut e));
            let got: Vec<u64> = v.iter().map(|x| x.to_bits()).collect();
            assert_eq!((got, e), want, "JIT (simd {simd}) disagrees with interp");
        }
    }
    let f = CompiledFormula::from_ir(
        &raw,
        &CompileOptions {
            engine: Engine::Jit,
            ..Default::default()
        },
    );
    let ev = f.evaluate_columns(&cols, n);
    let got: Vec<u64> = ev.values.iter().map(|x| x.to_bits()).collect();
    assert_eq!((got, ev.errors), want);
    c
}

/// The AST prints to text that parses back to the same tree (when the printed text, which
/// has spaces around operators, still fits in the length limit).
fn round_trips(src: &str) {
    let e = parse(src).expect("parses");
    let printed = e.to_string();
    if printed.len() > MAX_LEN {
        return;
    }
    let again = parse(&printed).unwrap_or_else(|d| panic!("{d:?}"));
    assert_eq!(again.sexpr(), e.sexpr());
}

#[test]
fn a_flat_sum_of_257_terms_is_not_nested() {
    // The field report: 257 ones were "nested more than 256 levels deep". Python takes them.
    let src = chain("1", "+", 257);
    let c = checked(&src);
    assert!(c.is_valid(), "{:?}", c.diagnostics);
    assert_eq!(c.range, Some((257.0, 257.0)));
}

#[test]
fn chains_of_ten_thousand_operands_check_compile_and_agree() {
    on_both_stacks(|| {
        let (n, m) = (10_000, 2_000);
        let sum = accepted_everywhere(&chain("1", "+", n));
        assert_eq!(sum.range, Some((n as f64, n as f64)));
        assert_eq!(
            terms(sum.ir.as_ref().unwrap()).len(),
            n,
            "explain: one term each"
        );
        for src in [
            chain("ncpus", "+", n),
            chain("x", "*", n),
            chain("x", " and ", n),
            // Shorter, to keep the debug-build JIT quick: the walks are the same.
            chain("x", "-", m),
            chain("x", "/", m),
            chain("x", "//", m),
            chain("x", "%", m),
            chain("x", " or ", m),
            chain("x<ncpus", " and ", m),
            chain("ncpus*2-x/3", "+", m),
            chain("abs(x)-ncpus", "-", m),
            chain("x", "<", m),
            format!("max({})", chain("x", ",", m)),
        ] {
            accepted_everywhere(&src);
            round_trips(&src);
        }
    });
}

#[test]
fn a_64_kib_formula_of_any_shape_is_checked_without_overflow() {
    on_both_stacks(|| {
        let fill = |unit: &str, last: &str| {
            let mut s = unit.repeat((MAX_LEN - last.len()) / unit.len());
            s.push_str(last);
            assert!(s.len() <= MAX_LEN);
            s
        };
        for src in [
            fill("1+", "1"),
            fill("x*", "x"),
            fill("x-", "x"),
            fill("x and ", "x"),
            fill("-", "x"),
            fill("not ", "x"),
            fill("x**", "x"),
            fill("(", "x"),
            fill("-(", "x"),
            fill("x if x else ", "x"),
            fill("sqrt(", "x"),
            fill("x < ", "x"),
        ] {
            for options in [
                CheckOptions::default(),
                CheckOptions {
                    compat_pbs: true,
                    deny_warnings: true,
                },
            ] {
                let c = check(&src, &catalog(), &options);
                for d in &c.diagnostics {
                    assert!(d.span.end <= src.len());
                }
            }
        }
        // The chains among them are accepted, and every backend agrees on them.
        accepted_everywhere(&fill("1+", "1"));
        accepted_everywhere(&fill("x*", "x"));
    });
}

#[test]
fn nesting_up_to_the_limits_is_accepted() {
    on_both_stacks(|| {
        let d = MAX_NESTING as usize;
        let p = MAX_PARENS;
        for src in [
            "-".repeat(d - 1) + "x",
            "not ".repeat(d - 1) + "x",
            chain("x", " ** ", d),
            "-(".repeat(p) + "x" + &")".repeat(p),
            "(".repeat(p) + &chain("x", " + ", 1000) + &")".repeat(p),
            "sqrt(".repeat(p) + "x" + &")".repeat(p),
            "x if x > 0 else ".repeat(d - 2) + "0",
            // A chain inside every level of parentheses.
            "(x + ".repeat(p) + "1" + &" + x)".repeat(p),
        ] {
            accepted_everywhere(&src);
            round_trips(&src);
        }
    });
}

#[test]
fn real_nesting_beyond_the_limits_is_an_error_with_a_span() {
    on_both_stacks(|| {
        let d = MAX_NESTING as usize;
        let p = MAX_PARENS;
        // Parentheses: CPython's limit and (nearly) its words; the span is the first `(` too
        // many.
        let src = "(".repeat(p + 1) + "x" + &")".repeat(p + 1);
        let c = checked(&src);
        assert_eq!(c.diagnostics.len(), 1);
        let e = &c.diagnostics[0];
        assert_eq!(e.code, codes::TOO_DEEP);
        assert!(
            e.message.contains("too many nested parentheses"),
            "{}",
            e.message
        );
        assert_eq!((e.span.start, e.span.end), (p, p + 1));
        let src = "-(".repeat(p + 1) + "x" + &")".repeat(p + 1);
        assert_eq!(checked(&src).diagnostics[0].code, codes::TOO_DEEP);
        // Nesting without parentheses.
        for src in [
            "-".repeat(d) + "x",
            "not ".repeat(d) + "x",
            chain("x", " ** ", d + 1),
            "x if x > 0 else ".repeat(d) + "0",
        ] {
            let c = checked(&src);
            let e = &c.diagnostics[0];
            assert_eq!(e.code, codes::TOO_DEEP, "{}...", &src[..30]);
            assert!(
                e.message.contains("nested more than 256 levels"),
                "{}",
                e.message
            );
            assert!(e.span.start < e.span.end && e.span.end <= src.len());
        }
    });
}
