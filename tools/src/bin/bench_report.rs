//! One-command speed comparison: `cargo run --release -p jobsort-tools --bin bench_report`.
//!
//! Over the same data and the same formulas, in one run, prints ns/job for the JIT, the
//! reference interpreter, hand-written Rust loops (as written, and with libm `pow` really
//! called), fasteval, meval, exmex, evalexpr 11.3.1, and — through `benches/peers.py` —
//! numexpr on one thread and per-job CPython `eval` (OpenPBS's method), plus each formula's
//! compile time. Every engine runs single-threaded, best of 3, timed in the thread's CPU time
//! (the machine may be shared). The last line is
//! `summary: native/jit=.. interp/jit=.. fasteval/jit=.. numexpr/jit=.. python/jit=.. compile_us=..`
//! (geometric means over the formulas of ratios of ns/job, > 1 means the JIT is faster;
//! compile_us is the slowest formula's compile time).
//!
//! `JOBSORT_BENCH_N` sets the number of jobs (default 1,000,000), `JOBSORT_BENCH_REPS` more
//! repetitions than 3 for a busy machine; `-- --rank-only` runs only the ranking comparison,
//! `-- --only NAME` only formula `NAME`'s rows. No assertions on time.
//!
//! `jit_scalar` is the JIT's scalar kernel, the reference shape (and what formulas calling
//! `**`, `pow`, `exp` or `log` ran before the f64x2 loop computed them).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::process::Command;

use jobsort::formula::{Engine, interp, jit};

#[path = "../../../benches/common.rs"]
mod common;

/// The calling thread's CPU time in seconds: on a machine shared with other processes, wall
/// time would also count their turns on the core.
fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Best of `reps` CPU times of `f` (at least `JOBSORT_BENCH_REPS`), in ns per job.
fn time_ns(n: usize, reps: usize, mut f: impl FnMut()) -> f64 {
    let reps = std::env::var("JOBSORT_BENCH_REPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(reps, |r: usize| r.max(reps));
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = thread_cpu_s();
        f();
        best = best.min(thread_cpu_s() - t);
    }
    best * 1e9 / n as f64
}

/// Jobs whose value differs from the JIT's by more than 1e-12 relative (peers' semantics).
fn mismatches(a: &[f64], jit: &[f64]) -> usize {
    a.iter()
        .zip(jit)
        .filter(|(x, y)| ((*x - *y).abs() / y.abs().max(1e-300)) > 1e-12)
        .count()
}

/// Jobs whose value's bits differ from the JIT's (the interpreter and the JIT's other shape
/// must agree exactly).
fn bit_mismatches(a: &[f64], jit: &[f64]) -> usize {
    a.iter()
        .zip(jit)
        .filter(|(x, y)| x.to_bits() != y.to_bits())
        .count()
}

struct Row {
    ns: Option<f64>,
    note: String,
}

fn main() {
    let n: usize = std::env::var("JOBSORT_BENCH_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let n_slow = n.min(100_000); // evalexpr
    let n_py = n.min(20_000); // per-job CPython eval
    let cols = common::data(n);
    let all: Vec<&[f64]> = cols.iter().map(Vec::as_slice).collect();
    let mut formulas = common::formulas();
    let args: Vec<String> = std::env::args().collect();
    if let Some(k) = args.iter().position(|a| a == "--only") {
        let name = args.get(k + 1).map_or("", String::as_str);
        formulas.retain(|f| f.name == name);
        if formulas.is_empty() {
            eprintln!("--only: no formula named {name:?}");
            std::process::exit(2);
        }
    }
    if args.iter().any(|a| a == "--rank-only") {
        ranking(&formulas[0], &cols, n);
        return;
    }
    let engines = [
        "jit",
        "jit_scalar",
        "interp",
        "native",
        "native_libm",
        "fasteval",
        "meval",
        "exmex",
        "evalexpr",
        "numexpr",
        "python",
    ];
    let mut table: BTreeMap<(&str, &str), Row> = BTreeMap::new();
    let mut compile_us: Vec<(String, f64, bool, bool)> = Vec::new();
    let mut jit_values: Vec<Vec<f64>> = Vec::new();

    println!(
        "jobsort bench_report: {n} jobs, single thread, best of 3 (evalexpr {n_slow} jobs, python {n_py} jobs)"
    );
    for f in &formulas {
        // Compile time: parse + check + optimise + JIT (best of 20 after one warm-up).
        let (cf, frontend) = common::compile(f, Engine::Jit);
        let mut best = f64::INFINITY;
        for _ in 0..20 {
            let t = thread_cpu_s();
            black_box(common::compile(f, Engine::Jit));
            best = best.min(thread_cpu_s() - t);
        }
        compile_us.push((f.name.to_string(), best * 1e6, frontend, cf.is_simd()));
        let inputs = common::bind(&cf, &cols);

        // JIT kernel, one thread, preallocated outputs.
        let kernel = jit::compile(cf.ir()).expect("the JIT runs on this host");
        let mut v = vec![0.0; n];
        let mut e = vec![0u8; n];
        let ns = time_ns(n, 3, || {
            kernel.run(&inputs, n, &mut v, &mut e);
        });
        table.insert(
            (f.name, "jit"),
            Row {
                ns: Some(ns),
                note: String::new(),
            },
        );
        let jitv = v.clone();

        // The JIT's scalar kernel.
        let scalar = jit::compile_with(cf.ir(), false).expect("the JIT runs on this host");
        let mut sv = vec![0.0; n];
        let ns = time_ns(n, 3, || {
            scalar.run(&inputs, n, &mut sv, &mut e);
        });
        let note = format!("{} differ in bits", bit_mismatches(&sv, &jitv));
        table.insert((f.name, "jit_scalar"), Row { ns: Some(ns), note });

        // Reference interpreter.
        let mut iv = vec![0.0; n];
        let mut row = vec![0.0; inputs.len()];
        let ns = time_ns(n, 3, || {
            for i in 0..n {
                for (s, c) in row.iter_mut().zip(&inputs) {
                    *s = c[i];
                }
                iv[i] = interp::eval_job(cf.ir(), &row).unwrap_or(0.0);
            }
        });
        let note = format!("{} differ in bits", bit_mismatches(&iv, &jitv));
        table.insert((f.name, "interp"), Row { ns: Some(ns), note });

        // Hand-written loops.
        let mut nv = vec![0.0; n];
        let mut ne_ = vec![0u8; n];
        let ns = time_ns(n, 3, || (f.native)(black_box(&all), &mut nv, &mut ne_));
        let note = format!("{} differ", mismatches(&nv, &jitv));
        table.insert((f.name, "native"), Row { ns: Some(ns), note });
        if let Some(g) = f.native_libm {
            let ns = time_ns(n, 3, || g(black_box(&all), &mut nv, &mut ne_));
            let note = format!("{} differ", mismatches(&nv, &jitv));
            table.insert((f.name, "native_libm"), Row { ns: Some(ns), note });
        }

        // fasteval: compiled, closure namespace.
        if let Some(text) = f.fasteval {
            table.insert((f.name, "fasteval"), run_fasteval(text, &all, n, &jitv));
        }
        if let Some(text) = f.meval {
            table.insert((f.name, "meval"), run_meval(text, &all, n, &jitv));
        }
        if let Some(text) = f.exmex {
            table.insert((f.name, "exmex"), run_exmex(text, &all, n, &jitv));
        }
        if let Some(text) = f.evalexpr {
            table.insert(
                (f.name, "evalexpr"),
                run_evalexpr(text, &all, n_slow, &jitv),
            );
        }
        jit_values.push(jitv);
    }

    python_peers(&formulas, &cols, &jit_values, n, n_py, &mut table);
    ranking(&formulas[0], &cols, n);

    // The table.
    print!("{:<12}", "engine");
    for f in &formulas {
        print!(" | {:>22}", format!("{} ns/job (x jit)", f.name));
    }
    println!(" | notes");
    for eng in engines {
        print!("{eng:<12}");
        let mut notes = Vec::new();
        for f in &formulas {
            let jit = table.get(&(f.name, "jit")).and_then(|r| r.ns);
            match table.get(&(f.name, eng)) {
                Some(Row { ns: Some(ns), note }) => {
                    let ratio = jit.map_or(f64::NAN, |j| ns / j);
                    print!(" | {:>22}", format!("{ns:.2} ({ratio:.2}x)"));
                    if !note.is_empty() {
                        notes.push(format!("{}: {note}", f.name));
                    }
                }
                Some(Row { ns: None, note }) => {
                    print!(" | {:>22}", "n/a");
                    notes.push(format!("{}: {note}", f.name));
                }
                None => print!(" | {:>22}", "n/a"),
            }
        }
        println!(" | {}", notes.join("; "));
    }
    for (name, us, frontend, simd) in &compile_us {
        println!(
            "compile {name}: {us:.0} us ({}; kernel {})",
            if *frontend {
                "parse + check + optimise + JIT"
            } else {
                "optimise + JIT from IR; text front end not available"
            },
            if *simd {
                "f64x2 SIMD + scalar tail"
            } else {
                "scalar"
            }
        );
    }
    let geo = |eng: &str| -> Option<f64> {
        let rs: Vec<f64> = formulas
            .iter()
            .filter_map(|f| {
                let j = table.get(&(f.name, "jit"))?.ns?;
                Some(table.get(&(f.name, eng))?.ns? / j)
            })
            .collect();
        if rs.is_empty() {
            None
        } else {
            Some((rs.iter().map(|r| r.ln()).sum::<f64>() / rs.len() as f64).exp())
        }
    };
    let fmt = |r: Option<f64>| r.map_or("NA".to_string(), |r| format!("{r:.2}"));
    let max_compile = compile_us.iter().map(|c| c.1).fold(0.0, f64::max);
    println!(
        "summary: native/jit={} interp/jit={} fasteval/jit={} numexpr/jit={} python/jit={} compile_us={:.0}",
        fmt(geo("native")),
        fmt(geo("interp")),
        fmt(geo("fasteval")),
        fmt(geo("numexpr")),
        fmt(geo("python")),
        max_compile
    );
}

/// Rank `n` jobs by the seed formula (evaluate on one thread + order) against sorting `n`
/// precomputed f64 keys with the standard library.
fn ranking(f: &common::BenchFormula, cols: &[Vec<f64>], n: usize) {
    use jobsort::rank::{RankOptions, TieBreak, rank};
    let (cf, _) = common::compile(f, Engine::Jit);
    let inputs = common::bind(&cf, cols);
    let kernel = jit::compile(cf.ir()).expect("the JIT runs on this host");
    let mut v = vec![0.0; n];
    let mut e = vec![0u8; n];
    kernel.run(&inputs, n, &mut v, &mut e);
    let keys = v.clone();
    let ties = TieBreak::default();
    let ms = |ns_per_job: f64| ns_per_job * n as f64 / 1e6;
    let sort_stable = time_ns(n, 3, || {
        let mut k = keys.clone();
        k.sort_by(|a, b| b.partial_cmp(a).unwrap_or(std::cmp::Ordering::Equal));
        black_box(k);
    });
    let sort_unstable = time_ns(n, 3, || {
        let mut k = keys.clone();
        k.sort_unstable_by(|a, b| b.total_cmp(a));
        black_box(k);
    });
    let eval_rank = time_ns(n, 3, || {
        kernel.run(&inputs, n, &mut v, &mut e);
        black_box(rank(&v, ties, &RankOptions::default()));
    });
    let eval_top = time_ns(n, 3, || {
        kernel.run(&inputs, n, &mut v, &mut e);
        black_box(rank(
            &v,
            ties,
            &RankOptions {
                threshold: None,
                top: Some(100),
            },
        ));
    });
    println!(
        "rank {n} jobs ({}): std sort_by(partial_cmp) of precomputed keys {:.1} ms, sort_unstable_by(total_cmp) {:.1} ms; jit evaluate + rank {:.1} ms ({:.2}x / {:.2}x of the sorts); evaluate + top-100 {:.1} ms",
        f.name,
        ms(sort_stable),
        ms(sort_unstable),
        ms(eval_rank),
        eval_rank / sort_stable,
        eval_rank / sort_unstable,
        ms(eval_top)
    );
}

fn column_index(name: &str) -> Option<usize> {
    common::COLUMNS.iter().position(|c| *c == name)
}

fn run_fasteval(text: &str, all: &[&[f64]], n: usize, jit: &[f64]) -> Row {
    use fasteval::{Compiler, Evaler};
    let parser = fasteval::Parser::new();
    let mut slab = fasteval::Slab::new();
    let compiled = match parser.parse(text, &mut slab.ps) {
        Ok(p) => p.from(&slab.ps).compile(&slab.ps, &mut slab.cs),
        Err(e) => {
            return Row {
                ns: None,
                note: format!("parse error {e:?}"),
            };
        }
    };
    let mut out = vec![0.0; n];
    let ns = time_ns(n, 3, || {
        for (i, o) in out.iter_mut().enumerate() {
            let mut ns = |name: &str, _args: Vec<f64>| column_index(name).map(|k| all[k][i]);
            *o = compiled.eval(&slab, &mut ns).unwrap_or(f64::NAN);
        }
    });
    Row {
        ns: Some(ns),
        note: format!("{} differ", mismatches(&out, jit)),
    }
}

fn run_meval(text: &str, all: &[&[f64]], n: usize, jit: &[f64]) -> Row {
    let expr: meval::Expr = match text.parse() {
        Ok(e) => e,
        Err(e) => {
            return Row {
                ns: None,
                note: format!("parse error {e}"),
            };
        }
    };
    let names: Vec<&str> = common::COLUMNS
        .iter()
        .copied()
        .filter(|c| text.contains(c))
        .collect();
    let idx: Vec<usize> = names.iter().filter_map(|c| column_index(c)).collect();
    let f = match expr.bindn(&names) {
        Ok(f) => f,
        Err(e) => {
            return Row {
                ns: None,
                note: format!("bind error {e}"),
            };
        }
    };
    let mut out = vec![0.0; n];
    let mut row = vec![0.0; idx.len()];
    let ns = time_ns(n, 3, || {
        for (i, o) in out.iter_mut().enumerate() {
            for (s, &k) in row.iter_mut().zip(&idx) {
                *s = all[k][i];
            }
            *o = f(&row);
        }
    });
    Row {
        ns: Some(ns),
        note: format!("{} differ", mismatches(&out, jit)),
    }
}

fn run_exmex(text: &str, all: &[&[f64]], n: usize, jit: &[f64]) -> Row {
    use exmex::Express;
    let expr = match exmex::parse::<f64>(text) {
        Ok(e) => e,
        Err(e) => {
            return Row {
                ns: None,
                note: format!("parse error {e}"),
            };
        }
    };
    // exmex takes variables in alphabetical order of name.
    let idx: Vec<usize> = expr
        .var_names()
        .iter()
        .filter_map(|v| column_index(v))
        .collect();
    let mut out = vec![0.0; n];
    let mut row = vec![0.0; idx.len()];
    let ns = time_ns(n, 3, || {
        for (i, o) in out.iter_mut().enumerate() {
            for (s, &k) in row.iter_mut().zip(&idx) {
                *s = all[k][i];
            }
            *o = expr.eval(&row).unwrap_or(f64::NAN);
        }
    });
    Row {
        ns: Some(ns),
        note: format!("{} differ", mismatches(&out, jit)),
    }
}

fn run_evalexpr(text: &str, all: &[&[f64]], n: usize, jit: &[f64]) -> Row {
    use evalexpr::{ContextWithMutableVariables, HashMapContext, Value};
    let node = match evalexpr::build_operator_tree(text) {
        Ok(t) => t,
        Err(e) => {
            return Row {
                ns: None,
                note: format!("parse error {e}"),
            };
        }
    };
    let names: Vec<&str> = common::COLUMNS
        .iter()
        .copied()
        .filter(|c| text.contains(c))
        .collect();
    let idx: Vec<usize> = names.iter().filter_map(|c| column_index(c)).collect();
    let mut ctx = HashMapContext::new();
    let mut out = vec![0.0; n];
    let mut failed = None;
    let ns = time_ns(n, 3, || {
        for (i, o) in out.iter_mut().enumerate() {
            for (name, &k) in names.iter().zip(&idx) {
                let _ = ctx.set_value((*name).to_string(), Value::Float(all[k][i]));
            }
            *o = match node.eval_float_with_context(&ctx) {
                Ok(v) => v,
                Err(e) => {
                    failed.get_or_insert(e.to_string());
                    f64::NAN
                }
            };
        }
    });
    if let Some(e) = failed {
        return Row {
            ns: None,
            note: format!("eval error {e}"),
        };
    }
    Row {
        ns: Some(ns),
        note: format!("{} differ", mismatches(&out, &jit[..n])),
    }
}

/// Run `benches/peers.py` over the same data (written to a temporary directory).
fn python_peers(
    formulas: &[common::BenchFormula],
    cols: &[Vec<f64>],
    jit_values: &[Vec<f64>],
    n: usize,
    n_py: usize,
    table: &mut BTreeMap<(&'static str, &'static str), Row>,
) {
    let unavailable = |table: &mut BTreeMap<(&'static str, &'static str), Row>, why: &str| {
        println!("numexpr: not available ({why})");
        println!("python: not available ({why})");
        for f in formulas {
            table.insert(
                (f.name, "numexpr"),
                Row {
                    ns: None,
                    note: why.to_string(),
                },
            );
            table.insert(
                (f.name, "python"),
                Row {
                    ns: None,
                    note: why.to_string(),
                },
            );
        }
    };
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => return unavailable(table, &e.to_string()),
    };
    let write = |name: &str, v: &[f64]| {
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        std::fs::write(dir.path().join(name), bytes)
    };
    for (name, c) in common::COLUMNS.iter().zip(cols) {
        if let Err(e) = write(&format!("{name}.f64"), c) {
            return unavailable(table, &e.to_string());
        }
    }
    let mut spec = Vec::new();
    for (f, v) in formulas.iter().zip(jit_values) {
        if let Err(e) = write(&format!("{}.jit.f64", f.name), v) {
            return unavailable(table, &e.to_string());
        }
        let used: Vec<&str> = common::COLUMNS
            .iter()
            .copied()
            .filter(|c| f.text.contains(c))
            .collect();
        spec.push(serde_json::json!({"name": f.name, "text": f.text, "numexpr": f.numexpr, "columns": used}));
    }
    if let Err(e) = std::fs::write(
        dir.path().join("formulas.json"),
        serde_json::Value::Array(spec).to_string(),
    ) {
        return unavailable(table, &e.to_string());
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../benches/peers.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(dir.path())
        .arg(n.to_string())
        .arg(n_py.to_string())
        .output();
    let out = match out {
        Ok(o) if o.status.success() => o,
        Ok(o) => return unavailable(table, String::from_utf8_lossy(&o.stderr).trim()),
        Err(e) => return unavailable(table, &format!("python3: {e}")),
    };
    let mut said_numexpr = false;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(j) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let Some(f) = formulas.iter().find(|f| j["formula"] == f.name) else {
            continue;
        };
        match j["numexpr_ns"].as_f64() {
            Some(ns) => {
                let note = format!(
                    "max rel diff {:.1e}",
                    j["numexpr_maxrel"].as_f64().unwrap_or(f64::NAN)
                );
                table.insert((f.name, "numexpr"), Row { ns: Some(ns), note });
            }
            None => {
                if !said_numexpr {
                    println!("numexpr: not available");
                    said_numexpr = true;
                }
                let note = j["numexpr_note"]
                    .as_str()
                    .unwrap_or("not available")
                    .to_string();
                table.insert((f.name, "numexpr"), Row { ns: None, note });
            }
        }
        if let Some(ns) = j["python_ns"].as_f64() {
            let note = format!("{} of {n_py} differ", j["python_mismatch"]);
            table.insert((f.name, "python"), Row { ns: Some(ns), note });
        }
    }
}
