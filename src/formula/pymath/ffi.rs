//! `extern "C"` entry points for the JIT. Each returns the value and writes the error code
//! (0 for none) through `err`; on error the value is 0.

use super::vector::{Step, VecFn};
use super::*;

#[inline]
fn split(r: PyResult, err: *mut u8) -> f64 {
    match r {
        Ok(v) => v,
        Err(e) => {
            // SAFETY: the JIT passes a pointer to a live u8 slot.
            unsafe { *err = e.code() };
            0.0
        }
    }
}

macro_rules! ffi1 {
    ($($name:ident => $f:path),* $(,)?) => {$(
        /// JIT entry point; see the function of the same name in `pymath`.
        pub extern "C" fn $name(x: f64, err: *mut u8) -> f64 { split($f(x), err) }
    )*};
}
macro_rules! ffi2 {
    ($($name:ident => $f:path),* $(,)?) => {$(
        /// JIT entry point; see the function of the same name in `pymath`.
        pub extern "C" fn $name(x: f64, y: f64, err: *mut u8) -> f64 { split($f(x, y), err) }
    )*};
}

ffi1! {
    jobsort_sqrt => sqrt, jobsort_exp => exp, jobsort_expm1 => expm1,
    jobsort_log => log, jobsort_log10 => log10, jobsort_log2 => log2, jobsort_log1p => log1p,
    jobsort_sin => sin, jobsort_cos => cos, jobsort_tan => tan,
    jobsort_asin => asin, jobsort_acos => acos, jobsort_atan => atan,
    jobsort_sinh => sinh, jobsort_cosh => cosh, jobsort_tanh => tanh,
    jobsort_floor => floor, jobsort_ceil => ceil, jobsort_trunc => trunc, jobsort_round => round,
}
ffi2! {
    jobsort_div => div, jobsort_floor_div => floor_div, jobsort_rem => rem,
    jobsort_float_pow => float_pow, jobsort_math_pow => math_pow,
    jobsort_log_base => log_base, jobsort_round_ndigits => round_ndigits,
    jobsort_fmod => fmod, jobsort_atan2 => atan2,
}

/// `math.hypot` over `n` values at `args`.
///
/// # Safety
/// `args` must point to `n` readable f64s.
pub unsafe extern "C" fn jobsort_hypot(args: *const f64, n: usize, err: *mut u8) -> f64 {
    // SAFETY: guaranteed by the caller.
    let slice = unsafe { std::slice::from_raw_parts(args, n) };
    split(hypot(slice), err)
}

macro_rules! ffi_step {
    ($($name:ident => $run:ident($($f:expr),*)),* $(,)?) => {$(
        /// JIT entry point of the SIMD loop: the four lanes of `step`, each as the function
        /// of the same name in `pymath` computes it (see [`Step`]).
        ///
        /// # Safety
        /// `step` points to a live, writable [`Step`]; FMA and AVX2 are usable
        /// ([`super::vector::usable`]).
        #[cfg_attr(
            all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"),
            target_feature(enable = "fma,avx2")
        )]
        pub unsafe extern "C" fn $name(step: *mut Step) {
            // SAFETY: guaranteed by the caller.
            unsafe { (&mut *step).$run($($f),*) }
        }
    )*};
}

ffi_step! {
    jobsort_math_pow_x4 => run_fma(VecFn::Pow, math_pow),
    jobsort_float_pow_x4 => run_fma(VecFn::Pow, float_pow),
    jobsort_math_pow_const_x4 => run_const_base_fma(math_pow),
    jobsort_float_pow_const_x4 => run_const_base_fma(float_pow),
    jobsort_exp_x4 => run_fma(VecFn::Exp, |x, _| exp(x)),
    jobsort_log_x4 => run_fma(VecFn::Log, |x, _| log(x)),
}
