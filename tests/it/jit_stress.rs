//! Stress test for code-memory reuse: kernels whose machine code has the same layout and
//! differs only in the address of the called ffi function (`a % b` vs `a // b`, …) are
//! compiled, run and dropped alternately, on several threads at once, while other threads keep
//! evaluating long-lived kernels. Freed code pages are immediately reusable at the same
//! address, so stale instructions (e.g. a stale instruction-TLB entry for a reused virtual
//! address under nested virtualisation) would show up as one formula computing another's value —
//! the symptom of the once-seen flake `(1 % 1.5) or 0` → 0 (the value of `(1 // 1.5) or 0`).
//!
//! Default: a short run (a few seconds). `JOBSORT_LONG_STRESS=<seconds>`: a longer one.

use jobsort::formula::interp;
use jobsort::formula::ir::{Expr, Ir, NodeId, Ty};
use jobsort::formula::jit;
use jobsort::formula::syntax::{BinaryOp, Span};
use jobsort::{Input, ResourceType};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// `(a OP b) or 0`, with `a` an input column or (zero inputs) the constant 1.
fn formula(op: BinaryOp, with_input: bool) -> Ir {
    let s = Span::default();
    let mut ir = Ir {
        nodes: vec![],
        root: NodeId(0),
        inputs: if with_input {
            vec![Input::Resource {
                name: "x".to_string(),
                ty: ResourceType::Float,
            }]
        } else {
            vec![]
        },
    };
    let a = if with_input {
        ir.push(Expr::Input(0), Ty::Num, s)
    } else {
        ir.push(Expr::Const(1.0), Ty::Num, s)
    };
    let b = ir.push(Expr::Const(1.5), Ty::Num, s);
    let m = ir.push(Expr::Binary(op, a, b), Ty::Num, s);
    let z = ir.push(Expr::Const(0.0), Ty::Num, s);
    ir.root = ir.push(Expr::Or(m, z), Ty::Num, s);
    ir
}

/// Value bits and error codes per job.
type Outcome = (Vec<u64>, Vec<u8>);

fn expected(ir: &Ir, col: &[f64]) -> Outcome {
    col.iter()
        .map(|&x| {
            let row: Vec<f64> = if ir.inputs.is_empty() {
                vec![]
            } else {
                vec![x]
            };
            match interp::eval_job(ir, &row) {
                Ok(v) => (v.to_bits(), 0),
                Err(e) => (0f64.to_bits(), e.code()),
            }
        })
        .unzip()
}

fn run(k: &jit::Kernel, ir: &Ir, col: &[f64]) -> Outcome {
    let n = col.len();
    let cols: Vec<&[f64]> = if ir.inputs.is_empty() {
        vec![]
    } else {
        vec![col]
    };
    let mut v = vec![f64::NAN; n];
    let mut e = vec![77u8; n];
    assert!(k.run(&cols, n, &mut v, &mut e));
    (v.iter().map(|x| x.to_bits()).collect(), e)
}

fn stress(duration: Duration) -> u64 {
    let ops = [
        BinaryOp::Mod,
        BinaryOp::FloorDiv,
        BinaryOp::Pow,
        BinaryOp::Div,
    ];
    let col: Arc<Vec<f64>> = Arc::new(vec![1.0, -1.0, 2.5, 0.0, -0.0, 3.0, 1e300, 7.0, 0.5]);
    let stop = Arc::new(AtomicBool::new(false));
    let checks = Arc::new(AtomicU64::new(0));
    let mut handles = Vec::new();
    // Compilers: compile, run, drop, alternating formulas of identical code layout.
    for t in 0..3usize {
        let (col, stop, checks) = (col.clone(), stop.clone(), checks.clone());
        handles.push(std::thread::spawn(move || -> Result<(), String> {
            let cases: Vec<(Ir, Outcome)> = ops
                .iter()
                .flat_map(|&op| [false, true].map(|inp| formula(op, inp)))
                .map(|ir| {
                    let want = expected(&ir, &col);
                    (ir, want)
                })
                .collect();
            let mut i = t;
            while !stop.load(Ordering::Relaxed) {
                let (ir, want) = &cases[i % cases.len()];
                let k = jit::compile(ir).map_err(|e| e.to_string())?;
                // Run twice: the first call is the one that would hit stale code.
                for round in 0..2 {
                    let got = run(&k, ir, &col);
                    if &got != want {
                        return Err(format!(
                            "thread {t} iteration {i} round {round}: {ir}\n got {got:?}\nwant {want:?}"
                        ));
                    }
                }
                drop(k);
                checks.fetch_add(1, Ordering::Relaxed);
                i += 1;
            }
            Ok(())
        }));
    }
    // Evaluators: long-lived kernels run continuously while others are freed around them.
    for t in 0..2usize {
        let (col, stop, checks) = (col.clone(), stop.clone(), checks.clone());
        handles.push(std::thread::spawn(move || -> Result<(), String> {
            let ir = formula(ops[t % ops.len()], t % 2 == 0);
            let want = expected(&ir, &col);
            let k = jit::compile(&ir).map_err(|e| e.to_string())?;
            let shared = k.clone();
            drop(k); // the clone keeps the code alive
            while !stop.load(Ordering::Relaxed) {
                let got = run(&shared, &ir, &col);
                if got != want {
                    return Err(format!("evaluator {t}: {ir}\n got {got:?}\nwant {want:?}"));
                }
                checks.fetch_add(1, Ordering::Relaxed);
            }
            Ok(())
        }));
    }
    let start = Instant::now();
    while start.elapsed() < duration && !handles.iter().all(|h| h.is_finished()) {
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::Relaxed);
    let mut failures = Vec::new();
    for h in handles {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failures.push(e),
            Err(_) => failures.push("a stress thread panicked".into()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checks.load(Ordering::Relaxed)
}

#[test]
fn kernels_compiled_and_dropped_concurrently_stay_correct() {
    let secs = std::env::var("JOBSORT_LONG_STRESS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(3);
    let n = stress(Duration::from_secs(secs));
    eprintln!("jit stress: {n} kernel checks in {secs} s");
    assert!(n > 0);
}
