//! `extern "C"` entry points for the JIT. Each returns the value and writes the error code
//! (0 for none) through `err`; on error the value is 0.

use super::vector::{Call, VecFn, block_fma};
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

macro_rules! ffi_block {
    ($($name:ident => $f:expr, $scalar:expr);* $(;)?) => {$(
        /// JIT entry point of the SIMD loop: lanes `0..n` of `x` (and `y`) through
        /// [`block_fma`], each as the function of the same name in `pymath` computes it;
        /// `base` and `log_hi`, `log_lo` are a power's constant base and its
        /// [`pow_base_log`](super::vector::pow_base_log) (unused otherwise).
        ///
        /// # Safety
        /// `x`, `y` and `codes` each point to `n` lanes, `x` and `codes` writable; FMA and
        /// AVX2 are usable ([`super::vector::usable`]).
        #[cfg_attr(
            all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"),
            target_feature(enable = "fma,avx2")
        )]
        pub unsafe extern "C" fn $name(
            x: *mut f64,
            y: *const f64,
            codes: *mut u64,
            n: usize,
            base: f64,
            log_hi: f64,
            log_lo: f64,
        ) {
            let call: Call = $f(base, [log_hi, log_lo]);
            // SAFETY: guaranteed by the caller.
            unsafe { block_fma(call, x, y, codes, n, $scalar) }
        }
    )*};
}

ffi_block! {
    jobsort_math_pow_block => |_, _| Call::Fn(VecFn::Pow), math_pow;
    jobsort_float_pow_block => |_, _| Call::Fn(VecFn::Pow), float_pow;
    jobsort_math_pow_const_block => |base, log| Call::PowConstBase { base, log }, math_pow;
    jobsort_float_pow_const_block => |base, log| Call::PowConstBase { base, log }, float_pow;
    jobsort_exp_block => |_, _| Call::Fn(VecFn::Exp), |x, _| exp(x);
    jobsort_log_block => |_, _| Call::Fn(VecFn::Log), |x, _| log(x);
}
