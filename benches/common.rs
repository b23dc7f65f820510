//! Shared by `benches/*.rs` and `tools/src/bin/bench_report.rs`: the benchmark formulas, the job
//! data, and hand-written Rust loops with the same semantics as the formulas.
#![allow(dead_code)]

use jobsort::formula::ir::{Expr, Func, Ir, NodeId, Ty};

use jobsort::formula::pymath::{self, EvalError};
use jobsort::formula::syntax::{BinaryOp, CmpOp, Span, UnaryOp};
use jobsort::formula::{CompileOptions, CompiledFormula, Engine, Formula};
use jobsort::{Catalog, JobTable};

/// The columns the benchmark formulas read.
pub const COLUMNS: [&str; 8] = [
    "fairshare_tree_usage",
    "fairshare_perc",
    "ncpus",
    "mem",
    "walltime",
    "queue_priority",
    "eligible_time",
    "job_priority",
];

/// A hand-written evaluation loop: columns in [`COLUMNS`] order, values, error codes.
pub type NativeLoop = fn(&[&[f64]], &mut [f64], &mut [u8]);

/// One benchmark formula, with the spellings the peers need.
pub struct BenchFormula {
    pub name: &'static str,
    /// jobsort / PBS (Python) syntax.
    pub text: &'static str,
    /// numexpr syntax (NumPy arrays; `where` for the conditional).
    pub numexpr: &'static str,
    /// fasteval syntax (`^`, comparisons are 0/1), `None` if not expressible.
    pub fasteval: Option<&'static str>,
    /// meval syntax (no comparisons).
    pub meval: Option<&'static str>,
    /// exmex syntax (no comparisons).
    pub exmex: Option<&'static str>,
    /// evalexpr 11 syntax (float literals, `if(c, a, b)`, `math::pow`).
    pub evalexpr: Option<&'static str>,
    /// The same formula built as IR directly (used until the text front end is available).
    pub build_ir: fn() -> Ir,
    /// Hand-written loop: the same semantics, libm `pow` written as Rust's `powf`.
    pub native: NativeLoop,
    /// Hand-written loop that calls the C library through pymath, Python's rules included
    /// (where `native` may not: LLVM rewrites `2f64.powf(x)` to `exp2`).
    pub native_libm: Option<NativeLoop>,
}

pub fn formulas() -> Vec<BenchFormula> {
    vec![
        BenchFormula {
            name: "seed",
            text: "pow(2, -(fairshare_tree_usage/fairshare_perc))",
            numexpr: "2.0 ** (-(fairshare_tree_usage/fairshare_perc))",
            fasteval: Some("2^(-(fairshare_tree_usage/fairshare_perc))"),
            meval: Some("2^(-(fairshare_tree_usage/fairshare_perc))"),
            exmex: Some("2^(-(fairshare_tree_usage/fairshare_perc))"),
            evalexpr: Some("math::pow(2.0, -(fairshare_tree_usage/fairshare_perc))"),
            build_ir: seed_ir,
            native: seed_native,
            native_libm: Some(seed_native_libm),
        },
        BenchFormula {
            name: "weighted6",
            text: "0.5*ncpus + 0.25*mem/1048576 + 2*walltime/3600 + 0.1*queue_priority + 0.01*eligible_time + 3*job_priority",
            numexpr: "0.5*ncpus + 0.25*mem/1048576 + 2*walltime/3600 + 0.1*queue_priority + 0.01*eligible_time + 3*job_priority",
            fasteval: Some(
                "0.5*ncpus + 0.25*mem/1048576 + 2*walltime/3600 + 0.1*queue_priority + 0.01*eligible_time + 3*job_priority",
            ),
            meval: Some(
                "0.5*ncpus + 0.25*mem/1048576 + 2*walltime/3600 + 0.1*queue_priority + 0.01*eligible_time + 3*job_priority",
            ),
            exmex: Some(
                "0.5*ncpus + 0.25*mem/1048576 + 2*walltime/3600 + 0.1*queue_priority + 0.01*eligible_time + 3*job_priority",
            ),
            evalexpr: Some(
                "0.5*ncpus + 0.25*mem/1048576.0 + 2.0*walltime/3600.0 + 0.1*queue_priority + 0.01*eligible_time + 3.0*job_priority",
            ),
            build_ir: weighted_ir,
            native: weighted_native,
            native_libm: None,
        },
        BenchFormula {
            name: "cond_minmax",
            text: "min(ncpus, 64) * 10 + (max(walltime, 60) / 3600 if queue_priority > 0 else 0) + eligible_time / 60",
            numexpr: "where(ncpus < 64, ncpus, 64) * 10 + where(queue_priority > 0, where(walltime > 60, walltime, 60) / 3600, 0) + eligible_time / 60",
            fasteval: Some(
                "min(ncpus, 64) * 10 + (queue_priority > 0) * (max(walltime, 60) / 3600) + eligible_time / 60",
            ),
            meval: None,
            exmex: None,
            evalexpr: Some(
                "min(ncpus, 64.0) * 10.0 + if(queue_priority > 0.0, max(walltime, 60.0) / 3600.0, 0.0) + eligible_time / 60.0",
            ),
            build_ir: cond_ir,
            native: cond_native,
            native_libm: None,
        },
        BenchFormula {
            name: "exp_log",
            text: "100 * exp(-eligible_time / 86400) + 10 * log(ncpus)",
            numexpr: "100 * exp(-eligible_time / 86400) + 10 * log(ncpus)",
            fasteval: None,
            meval: None,
            exmex: None,
            evalexpr: None,
            build_ir: exp_log_ir,
            native: exp_log_native,
            native_libm: Some(exp_log_native_libm),
        },
        BenchFormula {
            name: "powers",
            text: "ncpus ** 0.75 * (1 + queue_priority / 100) + (walltime / 3600) ** 1.5",
            numexpr: "ncpus ** 0.75 * (1 + queue_priority / 100) + (walltime / 3600) ** 1.5",
            fasteval: None,
            meval: None,
            exmex: None,
            evalexpr: None,
            build_ir: powers_ir,
            native: powers_native,
            native_libm: Some(powers_native_libm),
        },
    ]
}

/// Deterministic job data (xorshift), column by column in [`COLUMNS`] order.
pub fn data(n: usize) -> Vec<Vec<f64>> {
    (0..COLUMNS.len()).map(|k| column(k, n)).collect()
}

/// Column `k` of [`COLUMNS`] for `n` jobs (each column has its own random stream).
pub fn column(k: usize, n: usize) -> Vec<f64> {
    let mut x: u64 = 0x2545F4914F6CDD1D ^ (k as u64 + 1).wrapping_mul(0x9E3779B97F4A7C15);
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| {
            let r = next();
            match k {
                0 => r,
                1 => 0.001 + 0.999 * r,
                2 => (1.0 + 255.0 * r).floor(),
                3 => (1e3 + 1e9 * r).floor(),
                4 => (60.0 + 604_800.0 * r).floor(),
                5 => (-10.0 + 110.0 * r).floor(),
                6 => (1e6 * r).floor(),
                _ => (-1024.0 + 2047.0 * r).floor(),
            }
        })
        .collect()
}

/// Only the columns `f` reads (in its input order), for large `n`.
pub fn columns_for(f: &CompiledFormula, n: usize) -> Vec<Vec<f64>> {
    f.inputs()
        .iter()
        .map(|name| {
            column(
                COLUMNS
                    .iter()
                    .position(|c| name == c)
                    .expect("known column"),
                n,
            )
        })
        .collect()
}

pub fn table(cols: &[Vec<f64>]) -> JobTable {
    let n = cols.first().map_or(0, Vec::len);
    let mut t = JobTable::new(n);
    for (name, c) in COLUMNS.iter().zip(cols) {
        t.set_column(name, c.clone()).expect("same length");
    }
    t
}

/// The columns a compiled formula reads, in its input order.
pub fn bind<'a>(f: &CompiledFormula, cols: &'a [Vec<f64>]) -> Vec<&'a [f64]> {
    f.inputs()
        .iter()
        .map(|name| {
            let k = COLUMNS
                .iter()
                .position(|c| name == c)
                .expect("known column");
            cols[k].as_slice()
        })
        .collect()
}

/// Compile from text when the front end is available, else from the hand-built IR.
/// Returns the formula and whether the text front end was used.
pub fn compile(f: &BenchFormula, engine: Engine) -> (CompiledFormula, bool) {
    let options = CompileOptions {
        engine,
        ..CompileOptions::default()
    };
    match Formula::compile_with(f.text, &Catalog::pbs(), &options) {
        Ok(c) => (c, true),
        Err(_) => (CompiledFormula::from_ir(&(f.build_ir)(), &options), false),
    }
}

struct B(Ir);
impl B {
    fn new() -> B {
        B(Ir {
            nodes: vec![],
            root: NodeId(0),
            inputs: vec![],
        })
    }
    fn c(&mut self, v: f64) -> NodeId {
        self.0.push(Expr::Const(v), Ty::Num, Span::default())
    }
    fn x(&mut self, name: &str) -> NodeId {
        let input = Catalog::pbs()
            .input(name)
            .expect("a PBS keyword or resource");
        let k = self.0.input_index(input);
        self.0.push(Expr::Input(k), Ty::Num, Span::default())
    }
    fn bin(&mut self, op: BinaryOp, a: NodeId, b: NodeId) -> NodeId {
        self.0
            .push(Expr::Binary(op, a, b), Ty::Num, Span::default())
    }
    fn call(&mut self, f: Func, args: Vec<NodeId>) -> NodeId {
        self.0.push(Expr::Call(f, args), Ty::Num, Span::default())
    }
    fn done(mut self, root: NodeId) -> Ir {
        self.0.root = root;
        self.0
    }
}

fn seed_ir() -> Ir {
    let mut b = B::new();
    let two = b.c(2.0);
    let u = b.x("fairshare_tree_usage");
    let p = b.x("fairshare_perc");
    let d = b.bin(BinaryOp::Div, u, p);
    let n =
        b.0.push(Expr::Unary(UnaryOp::Neg, d), Ty::Num, Span::default());
    let r = b.call(Func::Pow, vec![two, n]);
    b.done(r)
}

fn weighted_ir() -> Ir {
    let mut b = B::new();
    let terms: [(&str, f64, Option<f64>); 6] = [
        ("ncpus", 0.5, None),
        ("mem", 0.25, Some(1048576.0)),
        ("walltime", 2.0, Some(3600.0)),
        ("queue_priority", 0.1, None),
        ("eligible_time", 0.01, None),
        ("job_priority", 3.0, None),
    ];
    let mut acc: Option<NodeId> = None;
    for (name, w, div) in terms {
        let w = b.c(w);
        let x = b.x(name);
        let mut t = b.bin(BinaryOp::Mul, w, x);
        if let Some(d) = div {
            let d = b.c(d);
            t = b.bin(BinaryOp::Div, t, d);
        }
        acc = Some(match acc {
            Some(a) => b.bin(BinaryOp::Add, a, t),
            None => t,
        });
    }
    let root = acc.expect("six terms");
    b.done(root)
}

fn cond_ir() -> Ir {
    let mut b = B::new();
    let ncpus = b.x("ncpus");
    let c64 = b.c(64.0);
    let mn = b.call(Func::Min, vec![ncpus, c64]);
    let ten = b.c(10.0);
    let t1 = b.bin(BinaryOp::Mul, mn, ten);
    let wall = b.x("walltime");
    let c60 = b.c(60.0);
    let mx = b.call(Func::Max, vec![wall, c60]);
    let c3600 = b.c(3600.0);
    let d = b.bin(BinaryOp::Div, mx, c3600);
    let q = b.x("queue_priority");
    let zero = b.c(0.0);
    let gt = b.0.push(
        Expr::Compare {
            first: q,
            rest: vec![(CmpOp::Gt, zero)],
        },
        Ty::Bool,
        Span::default(),
    );
    let ife = b.0.push(
        Expr::IfElse {
            cond: gt,
            then: d,
            otherwise: zero,
        },
        Ty::Num,
        Span::default(),
    );
    let s = b.bin(BinaryOp::Add, t1, ife);
    let el = b.x("eligible_time");
    let c60b = b.c(60.0);
    let e = b.bin(BinaryOp::Div, el, c60b);
    let r = b.bin(BinaryOp::Add, s, e);
    b.done(r)
}

fn exp_log_ir() -> Ir {
    let mut b = B::new();
    let hundred = b.c(100.0);
    let el = b.x("eligible_time");
    let day = b.c(86400.0);
    let d = b.bin(BinaryOp::Div, el, day);
    let n =
        b.0.push(Expr::Unary(UnaryOp::Neg, d), Ty::Num, Span::default());
    let e = b.call(Func::Exp, vec![n]);
    let t1 = b.bin(BinaryOp::Mul, hundred, e);
    let ten = b.c(10.0);
    let ncpus = b.x("ncpus");
    let l = b.call(Func::Log, vec![ncpus]);
    let t2 = b.bin(BinaryOp::Mul, ten, l);
    let r = b.bin(BinaryOp::Add, t1, t2);
    b.done(r)
}

fn powers_ir() -> Ir {
    let mut b = B::new();
    let ncpus = b.x("ncpus");
    let k = b.c(0.75);
    let p1 = b.bin(BinaryOp::Pow, ncpus, k);
    let one = b.c(1.0);
    let q = b.x("queue_priority");
    let hundred = b.c(100.0);
    let qd = b.bin(BinaryOp::Div, q, hundred);
    let f = b.bin(BinaryOp::Add, one, qd);
    let t1 = b.bin(BinaryOp::Mul, p1, f);
    let wall = b.x("walltime");
    let hour = b.c(3600.0);
    let h = b.bin(BinaryOp::Div, wall, hour);
    let k2 = b.c(1.5);
    let p2 = b.bin(BinaryOp::Pow, h, k2);
    let r = b.bin(BinaryOp::Add, t1, p2);
    b.done(r)
}

#[inline(always)]
fn finish(v: f64, out: &mut f64, err: &mut u8) {
    if v.is_finite() {
        *out = v;
        *err = 0;
    } else {
        *out = 0.0;
        *err = EvalError::NotFinite.code();
    }
}

/// Columns in [`COLUMNS`] order.
pub fn seed_native(c: &[&[f64]], out: &mut [f64], err: &mut [u8]) {
    let (u, p) = (c[0], c[1]);
    for i in 0..out.len() {
        if p[i] == 0.0 {
            out[i] = 0.0;
            err[i] = EvalError::FloatDivisionByZero.code();
            continue;
        }
        let r = 2f64.powf(-(u[i] / p[i]));
        // math.pow's checks for finite arguments: NaN is a domain error, inf a range error.
        if r.is_nan() {
            out[i] = 0.0;
            err[i] = EvalError::MathDomain.code();
        } else if r.is_infinite() {
            out[i] = 0.0;
            err[i] = EvalError::MathRange.code();
        } else {
            finish(r, &mut out[i], &mut err[i]);
        }
    }
}

pub fn seed_native_libm(c: &[&[f64]], out: &mut [f64], err: &mut [u8]) {
    let (u, p) = (c[0], c[1]);
    for i in 0..out.len() {
        let r = pymath::div(u[i], p[i]).and_then(|q| pymath::math_pow(2.0, -q));
        match r {
            Ok(v) => finish(v, &mut out[i], &mut err[i]),
            Err(e) => {
                out[i] = 0.0;
                err[i] = e.code();
            }
        }
    }
}

pub fn weighted_native(c: &[&[f64]], out: &mut [f64], err: &mut [u8]) {
    let (ncpus, mem, wall, qp, el, jp) = (c[2], c[3], c[4], c[5], c[6], c[7]);
    for i in 0..out.len() {
        let v = 0.5 * ncpus[i]
            + 0.25 * mem[i] / 1048576.0
            + 2.0 * wall[i] / 3600.0
            + 0.1 * qp[i]
            + 0.01 * el[i]
            + 3.0 * jp[i];
        finish(v, &mut out[i], &mut err[i]);
    }
}

pub fn cond_native(c: &[&[f64]], out: &mut [f64], err: &mut [u8]) {
    let (ncpus, wall, qp, el) = (c[2], c[4], c[5], c[6]);
    for i in 0..out.len() {
        // Python's min/max: keep the first unless a later one is strictly smaller/greater.
        let mn = if 64.0 < ncpus[i] { 64.0 } else { ncpus[i] };
        let mx = if 60.0 > wall[i] { 60.0 } else { wall[i] };
        let mid = if qp[i] > 0.0 { mx / 3600.0 } else { 0.0 };
        let v = mn * 10.0 + mid + el[i] / 60.0;
        finish(v, &mut out[i], &mut err[i]);
    }
}

/// `math.exp` and `math.log` written as Rust's `exp` and `ln` (libm's `exp` and `log`), with
/// Python's checks for this data (`log` of a non-positive `ncpus` is a domain error).
pub fn exp_log_native(c: &[&[f64]], out: &mut [f64], err: &mut [u8]) {
    let (ncpus, el) = (c[2], c[6]);
    for i in 0..out.len() {
        if ncpus[i] <= 0.0 {
            out[i] = 0.0;
            err[i] = EvalError::MathDomain.code();
            continue;
        }
        let v = 100.0 * (-el[i] / 86400.0).exp() + 10.0 * ncpus[i].ln();
        finish(v, &mut out[i], &mut err[i]);
    }
}

pub fn exp_log_native_libm(c: &[&[f64]], out: &mut [f64], err: &mut [u8]) {
    let (ncpus, el) = (c[2], c[6]);
    for i in 0..out.len() {
        let r = pymath::exp(-el[i] / 86400.0)
            .and_then(|e| Ok(100.0 * e + 10.0 * pymath::log(ncpus[i])?));
        match r {
            Ok(v) => finish(v, &mut out[i], &mut err[i]),
            Err(e) => {
                out[i] = 0.0;
                err[i] = e.code();
            }
        }
    }
}

/// `**` written as Rust's `powf` (libm's `pow`) for this data: positive bases, no errors.
pub fn powers_native(c: &[&[f64]], out: &mut [f64], err: &mut [u8]) {
    let (ncpus, wall, qp) = (c[2], c[4], c[5]);
    for i in 0..out.len() {
        let v = ncpus[i].powf(0.75) * (1.0 + qp[i] / 100.0) + (wall[i] / 3600.0).powf(1.5);
        finish(v, &mut out[i], &mut err[i]);
    }
}

pub fn powers_native_libm(c: &[&[f64]], out: &mut [f64], err: &mut [u8]) {
    let (ncpus, wall, qp) = (c[2], c[4], c[5]);
    for i in 0..out.len() {
        let r = pymath::float_pow(ncpus[i], 0.75).and_then(|a| {
            Ok(a * (1.0 + qp[i] / 100.0) + pymath::float_pow(wall[i] / 3600.0, 1.5)?)
        });
        match r {
            Ok(v) => finish(v, &mut out[i], &mut err[i]),
            Err(e) => {
                out[i] = 0.0;
                err[i] = e.code();
            }
        }
    }
}
