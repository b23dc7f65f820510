//! `pow(2, y)` with the bits of glibc's `pow`, which is what OpenPBS and Slurm call.
//!
//! Both compute their fairshare factor in C as `pow(2, -(ratio))`. In Rust, `2f64.powf(y)`
//! does not reliably call `pow`: LLVM rewrites `pow(2.0, y)` to `exp2(y)` in optimised
//! builds, and glibc's `exp2` and `pow` differ in the last bit for about 0.07% of inputs
//! (157,745 of the 218,103,808 `f32` ratios in [2^-20, 64)). So the factor depends on the
//! build profile unless something forces a real `pow`.
//!
//! [`pow2`] gives glibc's `pow(2, y)` bit for bit:
//! - On x86-64 Linux with glibc, when the CPU has FMA and AVX2, glibc runs its FMA build of
//!   `pow` (the ARM optimized-routines algorithm since glibc 2.28). For base 2 the logarithm
//!   part is a constant pair, and the rest is done here with the same operations in the same
//!   order, FMA for FMA, as that build's machine code: 4.0 ns a call against 13.4 ns for
//!   libm's `pow` (and 3.2 ns for `exp2`). [`pow2_in_place`] does four lanes at a time with
//!   AVX2, each lane the same operations.
//! - Everywhere else, and for arguments outside the main path (|y| < 2^-65, |y| >= 2^63,
//!   results that overflow or underflow, NaN), it calls the C library's `pow`.
//!
//! Tests compare it with the C library's `pow` over sampled `f32` ratios and random
//! doubles; `cargo run --release -p jobsort-tools --bin pow2_exhaustive` covers every `f32` ratio (the
//! whole domain of the PBS factor), one lane and four lanes against libm.
//! The port is `formula::pymath::vector`'s (glibc's `pow`, `exp` and `log` on one, two or
//! four lanes), with `log_inline(2)` as a constant.
//! One gap: glibc can be told to pick its SSE2 build (`GLIBC_TUNABLES` hwcaps masks); a
//! process started that way gets the FMA bits from here and the SSE2 bits from C.

use crate::formula::pymath::vector;

/// The C library's `pow`, never rewritten to `exp2` (the base is opaque to the optimiser).
#[inline]
pub fn libm_pow(x: f64, y: f64) -> f64 {
    std::hint::black_box(x).powf(y)
}

/// `pow(2, y)`, bit for bit as glibc computes it (see the module docs).
#[inline]
pub fn pow2(y: f64) -> f64 {
    vector::pow2(y)
}

/// [`pow2`] of every element, in place. Each `pow` is a chain of about ten dependent
/// floating-point operations: one tight loop over many lets the CPU overlap the chains
/// (measured: 5.1 against 7.5 ns per fairshare factor, divisions included).
pub fn pow2_in_place(ys: &mut [f64]) {
    vector::pow2_in_place(ys)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(y: f64) {
        let (got, want) = (pow2(y), libm_pow(2.0, y));
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "pow(2, {y:e}) = {want:e}, pow2 gave {got:e}"
        );
    }

    #[test]
    fn in_place_is_one_at_a_time() {
        let mut ys: Vec<f64> = (0..5000).map(|i| -(i as f64) * 0.173 + 3.0).collect();
        ys.extend([
            0.0,
            -0.0,
            1e-300,
            2000.0,
            -2000.0,
            f64::NAN,
            f64::NEG_INFINITY,
        ]);
        let want: Vec<u64> = ys.iter().map(|&y| libm_pow(2.0, y).to_bits()).collect();
        pow2_in_place(&mut ys);
        let got: Vec<u64> = ys.iter().map(|v| v.to_bits()).collect();
        assert_eq!(got, want);
    }

    /// Ratios where glibc's `exp2` (what `2f64.powf` becomes in release builds) differs from
    /// its `pow`: `pow2` gives `pow`'s bits.
    #[test]
    fn gives_pow_not_exp2() {
        for r in [
            f32::from_bits(0x3591_ffd9), // 0x1.23ffb2p-20
            f32::from_bits(0x35bc_3fed), // 0x1.787fdap-20
            f32::from_bits(0x3610_78ee), // 0x1.20f1dcp-19
        ] {
            let y = -(r as f64);
            same(y);
            #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
            assert_ne!(
                pow2(y).to_bits(),
                std::hint::black_box(y).exp2().to_bits(),
                "{r:e}"
            );
        }
    }

    /// The PBS factor's inputs are `-(f32 ratio)`: every 997th `f32` bit pattern, both signs.
    #[test]
    fn matches_libm_on_sampled_f32_ratios() {
        for b in (0..=0x7f80_0000u32).step_by(997) {
            let r = f32::from_bits(b) as f64;
            same(-r);
            same(r);
        }
    }

    /// Slurm's factor takes any double: random exponents over the whole main path and past it.
    #[test]
    fn matches_libm_on_random_doubles() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..400_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let unit = (x >> 11) as f64 / (1u64 << 53) as f64;
            same((unit - 0.5) * 2200.0);
            same(f64::from_bits(x));
        }
        for y in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1e-300,
            -1e-20,
            511.9,
            512.0,
            1023.9,
            1024.0,
            -1074.0,
            -1075.0,
            -1080.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ] {
            same(y);
        }
    }
}
