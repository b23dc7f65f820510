//! Sampled checks against the C library (the exhaustive ones are
//! `cargo run --release --example vecmath_exhaustive`).

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

/// One lane and four lanes (and the JIT's two) against libm for each `(x, y)`.
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
        let mut step = Step {
            x,
            y,
            codes: [9; 4],
            log_x: [0.0; 2],
        };
        step.run(f, |x, y| Ok(f.libm(x, y)));
        assert_eq!(step.codes, [0; 4]);
        for l in 0..4 {
            same(f, x[l], y[l], step.x[l]);
        }
        // A constant base: x[0] in both lanes, its logarithm computed once.
        if f == VecFn::Pow {
            let mut step = Step {
                x: [x[0]; 4],
                y,
                codes: [9; 4],
                log_x: pow_base_log(x[0]).unwrap_or([f64::NAN; 2]),
            };
            if pow_base_log(x[0]).is_some() {
                step.run_const_base(|x, y| Ok(f.libm(x, y)));
                assert_eq!(step.codes, [0; 4]);
                for l in 0..4 {
                    same(f, x[0], y[l], step.x[l]);
                }
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
        let mut step = Step {
            x,
            y,
            codes: [9; 4],
            log_x: [0.0; 2],
        };
        step.run(f, py);
        for l in 0..4 {
            let (want_v, want_c) = match py(x[l], y[l]) {
                Ok(v) => (v, 0),
                Err(e) => (0.0, u64::from(e.code())),
            };
            assert_eq!(step.codes[l], want_c, "{f:?}({}, {})", x[l], y[l]);
            assert_eq!(
                step.x[l].to_bits(),
                want_v.to_bits(),
                "{f:?}({}, {})",
                x[l],
                y[l]
            );
        }
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
