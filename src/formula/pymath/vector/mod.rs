//! `pow`, `exp` and `log` on several lanes at once, with the C library's bits in every lane.
//!
//! On x86-64 Linux with glibc, when the CPU has FMA and AVX2, glibc's `pow`, `exp` and `log`
//! are its FMA builds (its ifunc selectors, `sysdeps/x86_64/fpu/multiarch/ifunc-fma4.h` and
//! `ifunc-avx-fma4.h`, pick them first). [`glibc`] ports their main paths operation for
//! operation over [`lanes`] (one lane, two with 128-bit AVX2, four with 256-bit AVX2), and
//! `data` holds their tables, copied from glibc 2.36's sources. A lane off the main path
//! (zero, negative, subnormal, infinite or NaN arguments, `log` near 1, possible overflow or
//! underflow) is computed again by the scalar function, so results and Python's errors are
//! exactly the scalar ones.
//!
//! Without FMA and AVX2 glibc runs its SSE2 builds (no FMA: different roundings); then every
//! lane goes to the scalar function, that is to the C library itself. One gap: glibc can be
//! told to ignore FMA (`GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2_Usable,-FMA_Usable`); a process
//! started that way gets the FMA bits from here and the SSE2 bits from C.
//!
//! Users: the JIT's f64x2 loop ([`block_fma`], through `pymath::ffi`), the PBS/Slurm fairshare
//! factor `pow(2, y)` ([`pow2`], [`pow2_in_place`]), the checks in
//! `tools/src/bin/vecmath_exhaustive.rs`.

#[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
mod data;
#[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
mod glibc;
#[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
mod lanes;

use super::{PyResult, libm};

/// Whether glibc runs the FMA builds ported here: FMA and AVX2 usable (its ifunc selector).
#[inline]
pub fn usable() -> bool {
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    {
        use std::sync::atomic::{AtomicU8, Ordering};
        /// 0: not checked yet, 1: usable, 2: not.
        static USABLE: AtomicU8 = AtomicU8::new(0);
        match USABLE.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => {
                let ok = std::arch::is_x86_feature_detected!("fma")
                    && std::arch::is_x86_feature_detected!("avx2");
                USABLE.store(if ok { 1 } else { 2 }, Ordering::Relaxed);
                ok
            }
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu")))]
    false
}

/// A function with a vector form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VecFn {
    Pow,
    Exp,
    Log,
}

impl VecFn {
    /// The C library's function (what every lane equals).
    pub fn libm(self, x: f64, y: f64) -> f64 {
        match self {
            VecFn::Pow => libm::pow(x, y),
            VecFn::Exp => libm::exp(x),
            VecFn::Log => libm::log(x),
        }
    }
}

/// Lanes `0..L` of `x` (and `y` for `pow`) through `f` into `out`, with glibc's FMA build on
/// its main path; the mask of the lanes computed (bit `i` for lane `i`), 0 when the CPU lacks
/// FMA or AVX2.
#[inline(always)]
fn main_path<const L: usize>(f: VecFn, x: &[f64; L], y: &[f64; L], out: &mut [f64; L]) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    if usable() {
        use std::arch::x86_64::{__m128d, __m256d};
        let (x, y, out) = (x.as_ptr(), y.as_ptr(), out.as_mut_ptr());
        // SAFETY: FMA and AVX2 are usable (checked above); each pointer has L lanes.
        return unsafe {
            match L {
                1 => fma::run::<f64>(f, x, y, out),
                2 => fma::run::<__m128d>(f, x, y, out),
                4 => fma::run::<__m256d>(f, x, y, out),
                _ => 0,
            }
        };
    }
    let _ = (f, x, y, out);
    0
}

#[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
mod fma {
    use super::lanes::Lanes;
    use super::{Call, PyResult, VecFn, glibc, off_path};
    use std::arch::x86_64::__m256d;

    /// One kernel over `L::N` lanes at `x`, `y`, into `out`; the mask of the lanes computed.
    ///
    /// # Safety
    /// FMA and AVX2 are usable; `x`, `y` and `out` each have `L::N` lanes.
    #[target_feature(enable = "fma,avx2")]
    pub(super) unsafe fn run<L: Lanes>(
        f: VecFn,
        x: *const f64,
        y: *const f64,
        out: *mut f64,
    ) -> u32 {
        // SAFETY: this function's precondition.
        unsafe {
            let (v, ok) = match f {
                VecFn::Pow => glibc::pow(L::load(x), L::load(y)),
                VecFn::Exp => glibc::exp(L::load(x)),
                VecFn::Log => glibc::log(L::load(x)),
            };
            v.store(out);
            ok
        }
    }

    /// `log_inline(2)`, head and tail: `__pow_log_data.tab[i]` for `x = 2` has `invc = 1`,
    /// `logc = logctail = 0`, so `r = 0`, every polynomial term vanishes and the pair is
    /// `Ln2hi + Ln2lo` and its rounding error (checked against [`glibc::log_inline`]).
    pub(super) const LOG2_HI: f64 = super::data::POW_LOG_LN2_HI + super::data::POW_LOG_LN2_LO;
    pub(super) const LOG2_LO: f64 =
        (super::data::POW_LOG_LN2_HI - LOG2_HI) + super::data::POW_LOG_LN2_LO;
    pub(super) const LOG2: [f64; 2] = [LOG2_HI, LOG2_LO];

    /// [`block_fma`](super::block_fma): four lanes at a time, compiled for FMA and AVX2 as a
    /// whole (the kernel inlined into the loop), the lanes off the main path out of line.
    ///
    /// # Safety
    /// FMA and AVX2 are usable; `x`, `y` and `codes` each have `n` lanes (`y` only for
    /// `pow`).
    #[inline]
    #[target_feature(enable = "fma,avx2")]
    pub(super) unsafe fn block(
        call: Call,
        x: *mut f64,
        y: *const f64,
        codes: *mut u64,
        n: usize,
        scalar: impl Fn(f64, f64) -> PyResult,
    ) {
        // SAFETY: this function's precondition; each quad is in bounds.
        unsafe {
            let s = __m256d::splat;
            let mut at = 0;
            while at + 4 <= n {
                let (v, ok) = match call {
                    Call::PowConstBase { log: [hi, lo], .. } => {
                        let (v, ok) = glibc::pow_from_log(s(hi), s(lo), __m256d::load(y.add(at)));
                        (v, __m256d::movemask(ok))
                    }
                    Call::Fn(f) => {
                        let xv = __m256d::load(x.add(at));
                        match f {
                            VecFn::Pow => glibc::pow(xv, __m256d::load(y.add(at))),
                            VecFn::Exp => glibc::exp(xv),
                            VecFn::Log => glibc::log(xv),
                        }
                    }
                };
                if ok == 0b1111 {
                    v.store(x.add(at));
                    for l in 0..4 {
                        *codes.add(at + l) = 0;
                    }
                } else {
                    let mut main = [0.0; 4];
                    v.store(main.as_mut_ptr());
                    off_path(
                        call,
                        ok,
                        main,
                        x.add(at),
                        y.add(at),
                        codes.add(at),
                        4,
                        &scalar,
                    );
                }
                at += 4;
            }
            off_path(
                call,
                0,
                [0.0; 4],
                x.add(at),
                y.add(at),
                codes.add(at),
                n - at,
                &scalar,
            );
        }
    }

    /// `pow(x, y)` on `L::N` lanes at `y` into `out` for the `x` whose `log_inline` is
    /// `log_x` (head, tail); the mask of the lanes computed.
    ///
    /// # Safety
    /// FMA and AVX2 are usable; `y` and `out` have `L::N` lanes.
    #[target_feature(enable = "fma,avx2")]
    pub(super) unsafe fn pow_log<L: Lanes>(log_x: [f64; 2], y: *const f64, out: *mut f64) -> u32 {
        // SAFETY: this function's precondition.
        unsafe {
            let s = L::splat;
            let (v, ok) = glibc::pow_from_log(s(log_x[0]), s(log_x[1]), L::load(y));
            v.store(out);
            L::movemask(ok)
        }
    }

    /// `log_inline(x)`, head and tail, for a positive normal `x`.
    ///
    /// # Safety
    /// FMA and AVX2 are usable.
    #[target_feature(enable = "fma,avx2")]
    pub(super) unsafe fn log_inline(x: f64) -> (f64, f64) {
        // SAFETY: this function's precondition.
        unsafe { glibc::log_inline::<f64>(x.to_bits()) }
    }
}

/// `f` on one lane with the C library's bits (the port on the main path).
pub fn one(f: VecFn, x: f64, y: f64) -> f64 {
    let mut out = [0.0];
    if main_path(f, &[x], &[y], &mut out) == 1 {
        out[0]
    } else {
        f.libm(x, y)
    }
}

/// `f` on four lanes with the C library's bits (AVX2 on the main path).
pub fn four(f: VecFn, x: [f64; 4], y: [f64; 4]) -> [f64; 4] {
    let mut out = [0.0; 4];
    let ok = main_path(f, &x, &y, &mut out);
    for lane in (0..4).filter(|l| ok & (1 << l) == 0) {
        out[lane] = f.libm(x[lane], y[lane]);
    }
    out
}

/// `log_inline(x)` (head, tail), what glibc's `pow(x, y)` computes first, for a constant base
/// `x` ([`Call::PowConstBase`]); `None` when the port does not run on this CPU or `x` is not
/// positive and normal (glibc's other paths).
pub fn pow_base_log(x: f64) -> Option<[f64; 2]> {
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    if usable() && (1..0x7ff).contains(&(x.to_bits() >> 52)) {
        // SAFETY: FMA and AVX2 are usable (checked just above).
        let (hi, lo) = unsafe { fma::log_inline(x) };
        return Some([hi, lo]);
    }
    let _ = x;
    None
}

/// What one call of the JIT's SIMD loop computes in each lane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Call {
    /// `f(x)`, or `pow(x, y)`.
    Fn(VecFn),
    /// `pow(base, y)`, `log` being [`pow_base_log`] of the base: glibc's `pow` without
    /// recomputing the logarithm (the same bits); the `x` lanes are not read.
    PowConstBase { base: f64, log: [f64; 2] },
}

/// One call of the JIT's SIMD loop over a block of lanes: lane `i` of `x` becomes the value of
/// `call` at `(x[i], y[i])` and `codes[i]` its error code ([`super::EvalError::code`], 0 for
/// none, the value then 0); glibc's FMA build on its main path, four lanes at a time with
/// AVX2, and `scalar`, the Python function whose libm call `call` is, for the other lanes (and
/// for every lane on a CPU without FMA and AVX2). `y` is read only by `pow` (`exp` and `log`
/// may be given any slice of the length).
///
/// # Panics
/// When the slices' lengths differ.
pub fn block(
    call: Call,
    x: &mut [f64],
    y: &[f64],
    codes: &mut [u64],
    scalar: impl Fn(f64, f64) -> PyResult,
) {
    let n = x.len();
    assert!(
        y.len() == n && codes.len() == n,
        "lanes of different lengths"
    );
    if usable() {
        // SAFETY: FMA and AVX2 are usable (checked just above); each slice has `n` lanes.
        unsafe {
            block_fma(
                call,
                x.as_mut_ptr(),
                y.as_ptr(),
                codes.as_mut_ptr(),
                n,
                scalar,
            )
        }
    } else {
        // SAFETY: each slice has `n` lanes.
        unsafe {
            off_path(
                call,
                0,
                [0.0; 4],
                x.as_mut_ptr(),
                y.as_ptr(),
                codes.as_mut_ptr(),
                n,
                &scalar,
            )
        }
    }
}

/// [`block`] on raw lanes without the CPU check, for the JIT (which made it once, when
/// compiling).
///
/// # Safety
/// FMA and AVX2 are usable ([`usable`]); `x`, `y` and `codes` each point to `n` lanes (`y`
/// only for `pow`: `exp` and `log` never read it).
#[inline]
#[cfg_attr(
    all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"),
    target_feature(enable = "fma,avx2")
)]
pub unsafe fn block_fma(
    call: Call,
    x: *mut f64,
    y: *const f64,
    codes: *mut u64,
    n: usize,
    scalar: impl Fn(f64, f64) -> PyResult,
) {
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    // SAFETY: this function's precondition.
    unsafe {
        fma::block(call, x, y, codes, n, scalar)
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu")))]
    // SAFETY: this function's precondition.
    unsafe {
        off_path(call, 0, [0.0; 4], x, y, codes, n, &scalar)
    }
}

/// The first `n` lanes at `x`, `y`, `codes`: `main[lane]` for the lanes in `ok` (lanes below
/// 4), `scalar` (value or error code) for the others.
///
/// # Safety
/// `x`, `y` and `codes` each point to `n` lanes (`y` only for `pow`).
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn off_path(
    call: Call,
    ok: u32,
    main: [f64; 4],
    x: *mut f64,
    y: *const f64,
    codes: *mut u64,
    n: usize,
    scalar: &impl Fn(f64, f64) -> PyResult,
) {
    for lane in 0..n {
        // SAFETY: the caller's; `lane < n`.
        unsafe {
            let on_path = main.get(lane).filter(|_| ok & (1 << lane) != 0);
            let (v, code) = if let Some(&v) = on_path {
                (v, 0)
            } else {
                let (xl, yl) = match call {
                    Call::PowConstBase { base, .. } => (base, *y.add(lane)),
                    Call::Fn(VecFn::Pow) => (*x.add(lane), *y.add(lane)),
                    Call::Fn(_) => (*x.add(lane), 0.0),
                };
                match scalar(xl, yl) {
                    Ok(v) => (v, 0),
                    Err(e) => (0.0, u64::from(e.code())),
                }
            };
            *x.add(lane) = v;
            *codes.add(lane) = code;
        }
    }
}

/// `pow(2, y)` with glibc's bits (the fairshare factor; see `fairshare::pow2`).
#[inline]
pub fn pow2(y: f64) -> f64 {
    if y == 0.0 {
        return 1.0; // C's pow(x, ±0) is 1 for every x (a zero usage: common)
    }
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    if usable() {
        let mut v = 0.0;
        // SAFETY: FMA and AVX2 are usable (checked just above); one lane.
        if unsafe { fma::pow_log::<f64>(fma::LOG2, &y, &mut v) } == 1 {
            return v;
        }
    }
    libm::pow(std::hint::black_box(2.0), y)
}

/// [`pow2`] of every element, in place, four lanes at a time with AVX2.
pub fn pow2_in_place(ys: &mut [f64]) {
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    if usable() {
        let mut quads = ys.chunks_exact_mut(4);
        for q in &mut quads {
            let y = [q[0], q[1], q[2], q[3]];
            // SAFETY: FMA and AVX2 are usable (checked above); `q` has four lanes.
            let ok = unsafe {
                fma::pow_log::<std::arch::x86_64::__m256d>(fma::LOG2, y.as_ptr(), q.as_mut_ptr())
            };
            if ok != 0b1111 {
                for lane in (0..4).filter(|l| ok & (1 << l) == 0) {
                    q[lane] = pow2(y[lane]);
                }
            }
        }
        for y in quads.into_remainder() {
            *y = pow2(*y);
        }
        return;
    }
    for y in ys {
        *y = pow2(*y);
    }
}

#[cfg(test)]
mod tests;
