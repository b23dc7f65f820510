//! Sampled checks against the C library (the exhaustive ones are
//! `cargo run --release -p jobsort-tools --bin vecmath_exhaustive`).

use super::*;
use crate::formula::pymath::{EvalError, exp as py_exp, float_pow, log as py_log, math_pow};

fn same(f: VecFn, x: f64, y: f64, got: f64) {
    let want = f.libm(x, y);
    assert!(
        got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
        "{f:?}({x:e}, {y:e}) = {want:e} ({:#x}), the port gave {got:e} ({:#x})",
        want.to_bits(),
        got.to_bits()
    );
}

/// xorshift64: reproducible samples without a dependency.
fn samples(seed: u64, n: usize) -> impl Iterator<Item = u64> {
    let mut x = seed;
    (0..n).map(move |_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    })
}

fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// One lane, four lanes and whole blocks (the JIT's calls) against libm for each `(x, y)`.
fn check(f: VecFn, args: &[(f64, f64)]) {
    for &(x, y) in args {
        same(f, x, y, one(f, x, y));
    }
    for q in args.chunks_exact(4) {
        let x = [q[0].0, q[1].0, q[2].0, q[3].0];
        let y = [q[0].1, q[1].1, q[2].1, q[3].1];
        let v = four(f, x, y);
        for l in 0..4 {
            same(f, x[l], y[l], v[l]);
        }
    }
    // Whole blocks (the JIT's calls), with a tail that is not a multiple of four.
    let (xs, ys): (Vec<f64>, Vec<f64>) = args.iter().copied().unzip();
    let mut v = xs.clone();
    let mut codes = vec![9; xs.len()];
    block(
        Call::Fn(f),
        &mut v,
        &ys,
        &mut codes,
        |x, y| Ok(f.libm(x, y)),
    );
    assert!(codes.iter().all(|&c| c == 0));
    for l in 0..xs.len() {
        same(f, xs[l], ys[l], v[l]);
    }
    // A constant base: its logarithm computed once.
    if f == VecFn::Pow {
        for &base in xs.iter().take(16) {
            let Some(log) = pow_base_log(base) else {
                continue;
            };
            let mut v = vec![f64::NAN; ys.len()];
            let mut codes = vec![9; ys.len()];
            let call = Call::PowConstBase { base, log };
            block(call, &mut v, &ys, &mut codes, |x, y| Ok(f.libm(x, y)));
            assert!(codes.iter().all(|&c| c == 0));
            for l in 0..ys.len() {
                same(f, base, ys[l], v[l]);
            }
        }
    }
}

/// How many of `args` the port answers itself (so the checks test the port, not libm
/// against itself).
fn answered(f: VecFn, args: &[(f64, f64)]) -> usize {
    args.iter()
        .filter(|&&(x, y)| main_path(f, &[x], &[y], &mut [0.0]) == 1)
        .count()
}

const SPECIAL: [f64; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    1e-310,
    -1e-310,
    f64::MIN_POSITIVE,
    f64::MAX,
    709.78,
    -745.2,
    1e300,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

#[test]
fn pow_matches_libm_on_random_and_special_arguments() {
    let mut args: Vec<(f64, f64)> = samples(0x9e37_79b9_7f4a_7c15, 60_000)
        .map(|b| {
            // x over 2^-30..2^30 (every mantissa), y where the result stays normal.
            let x = f64::from_bits(0x3e10_0000_0000_0000 + (b >> 12) % (60 << 52));
            let y = (unit(b.rotate_left(29)) - 0.5) * 40.0;
            (x, y)
        })
        .collect();
    args.extend(samples(7, 20_000).map(|b| (unit(b) * 4.0, (unit(b >> 3) - 0.5) * 2000.0)));
    args.extend(
        samples(11, 20_000).map(|b| (f64::from_bits(b), f64::from_bits(b.rotate_left(17)))),
    );
    for x in SPECIAL {
        for y in SPECIAL {
            args.push((x, y));
        }
    }
    // pow(1, y) on the main path of log_inline: glibc gives exactly 1.
    args.extend(samples(13, 1_000).map(|b| (1.0, (unit(b) - 0.5) * 1e6)));
    check(VecFn::Pow, &args);
    assert!(answered(VecFn::Pow, &args[..60_000]) > 55_000);
}

#[test]
fn exp_matches_libm_on_random_and_special_arguments() {
    let mut args: Vec<(f64, f64)> = samples(3, 100_000)
        .map(|b| ((unit(b) - 0.5) * 1500.0, 0.0))
        .collect();
    args.extend(samples(5, 20_000).map(|b| (f64::from_bits(b), 0.0)));
    args.extend(SPECIAL.map(|x| (x, 0.0)));
    check(VecFn::Exp, &args);
    assert!(answered(VecFn::Exp, &args[..100_000]) > 65_000);
}

#[test]
fn log_matches_libm_on_random_and_special_arguments() {
    let mut args: Vec<(f64, f64)> = samples(17, 100_000)
        .map(|b| (f64::from_bits(b >> 1), 0.0))
        .collect();
    args.extend(samples(19, 20_000).map(|b| (unit(b) * 3.0, 0.0)));
    args.extend(samples(23, 2_000).map(|b| (f64::from_bits(b), 0.0)));
    args.extend(SPECIAL.map(|x| (x, 0.0)));
    check(VecFn::Log, &args);
    assert!(answered(VecFn::Log, &args[..100_000]) > 99_000);
}

/// Lanes off the main path get the scalar Python function's value or error, lane by lane.
#[test]
fn off_path_lanes_follow_python() {
    type Py = fn(f64, f64) -> PyResult;
    let cases: [(VecFn, Py, [f64; 4], [f64; 4]); 4] = [
        (
            VecFn::Pow,
            math_pow,
            [0.0, 2.0, 10.0, -8.0],
            [-1.0, 0.5, 400.0, 1.0 / 3.0],
        ),
        (
            VecFn::Pow,
            float_pow,
            [0.0, -8.0, 10.0, 3.0],
            [-1.0, 1.0 / 3.0, 400.0, 2.0],
        ),
        (
            VecFn::Exp,
            |x, _| py_exp(x),
            [1000.0, 1.0, -1000.0, f64::NAN],
            [0.0; 4],
        ),
        (
            VecFn::Log,
            |x, _| py_log(x),
            [0.0, -1.0, 1.0, 1.01],
            [0.0; 4],
        ),
    ];
    for (f, py, x, y) in cases {
        // A quad, then the same lanes as a tail of three and one.
        for lanes in [0..4, 0..3, 3..4] {
            let (x, y) = (&x[lanes.clone()], &y[lanes]);
            let mut v = x.to_vec();
            let mut codes = vec![9; x.len()];
            block(Call::Fn(f), &mut v, y, &mut codes, py);
            for l in 0..x.len() {
                let (want_v, want_c) = match py(x[l], y[l]) {
                    Ok(v) => (v, 0),
                    Err(e) => (0.0, u64::from(e.code())),
                };
                assert_eq!(codes[l], want_c, "{f:?}({}, {})", x[l], y[l]);
                assert_eq!(
                    v[l].to_bits(),
                    want_v.to_bits(),
                    "{f:?}({}, {})",
                    x[l],
                    y[l]
                );
            }
        }
    }
    // A constant base off the path: pow(0, -1) and pow(10, 400) through the scalar function.
    let log = pow_base_log(10.0);
    if let Some(log) = log {
        let mut v = [0.0; 4];
        let mut codes = [9; 4];
        let call = Call::PowConstBase { base: 10.0, log };
        block(
            call,
            &mut v,
            &[400.0, 2.0, -400.0, f64::NAN],
            &mut codes,
            math_pow,
        );
        let range = u64::from(EvalError::MathRange.code());
        assert_eq!(codes, [range, 0, 0, 0]);
        assert_eq!(v[1], 100.0);
        assert_eq!(v[2], 1e-400);
        assert!(v[3].is_nan());
    }
    assert_eq!(math_pow(0.0, -1.0), Err(EvalError::MathDomain));
}

#[test]
#[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
fn the_base_2_constant_is_log_inline_of_2() {
    if !usable() {
        return;
    }
    // SAFETY: FMA and AVX2 are usable (checked above).
    let (hi, lo) = unsafe { fma::log_inline(2.0) };
    assert_eq!(
        (hi.to_bits(), lo.to_bits()),
        (fma::LOG2_HI.to_bits(), fma::LOG2_LO.to_bits())
    );
}

/// The fairshare factor's comparisons (`fairshare::pow2`'s tests) test the port, not libm
/// against itself: on this kind of machine the main path answers nearly every input.
#[test]
#[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
fn the_base_2_port_answers_on_fma_machines() {
    if !usable() {
        return; // pow2 is libm's pow here
    }
    let answered = (1..10_000)
        .map(|i| -(i as f64) * 0.0731)
        // SAFETY: FMA and AVX2 are usable (checked above); one lane.
        .filter(|&y| unsafe { fma::pow_log::<f64>(fma::LOG2, &y, &mut 0.0) } == 1)
        .count();
    assert!(answered > 9_900);
}
