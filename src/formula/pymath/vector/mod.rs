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
//! Users: the JIT's f64x2 loop ([`Step`], through `pymath::ffi`), the PBS/Slurm fairshare
//! factor `pow(2, y)` ([`pow2`], [`pow2_in_place`]), the checks in
//! `examples/vecmath_exhaustive.rs`.

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
    use super::{PyResult, Step, VecFn, glibc};
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

    /// [`Step::run`] (`const_base` false) or [`Step::run_const_base`] (true), compiled for
    /// FMA and AVX2 as a whole: the kernel inlined, the lanes off the main path out of line.
    ///
    /// # Safety
    /// FMA and AVX2 are usable.
    #[inline]
    #[target_feature(enable = "fma,avx2")]
    pub(super) unsafe fn step(
        step: &mut Step,
        f: VecFn,
        const_base: bool,
        scalar: impl Fn(f64, f64) -> PyResult,
    ) {
        // SAFETY: this function's precondition; each field has four lanes.
        unsafe {
            let s = __m256d::splat;
            let y = __m256d::load(step.y.as_ptr());
            let (v, ok) = if const_base {
                let [hi, lo] = step.log_x;
                let (v, ok) = glibc::pow_from_log(s(hi), s(lo), y);
                (v, __m256d::movemask(ok))
            } else {
                let x = __m256d::load(step.x.as_ptr());
                match f {
                    VecFn::Pow => glibc::pow(x, y),
                    VecFn::Exp => glibc::exp(x),
                    VecFn::Log => glibc::log(x),
                }
            };
            if ok == 0b1111 {
                v.store(step.x.as_mut_ptr());
                step.codes = [0; 4];
            } else {
                let mut out = [0.0; 4];
                v.store(out.as_mut_ptr());
                step.off_path(ok, out, scalar);
            }
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
/// `x` ([`Step::run_const_base`]); `None` when the port does not run on this CPU or `x` is
/// not positive and normal (glibc's other paths).
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

/// One call of the JIT's SIMD loop: four lanes of operands in, four values and four error
/// codes out ([`super::EvalError::code`], 0 for none), laid out for one stack slot.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Step {
    /// The first operand; the values on return.
    pub x: [f64; 4],
    /// The second operand (`pow`'s exponent; unused otherwise).
    pub y: [f64; 4],
    /// Each lane's error code on return.
    pub codes: [u64; 4],
    /// For [`Step::run_const_base`]: [`pow_base_log`] of the base in `x` (every lane).
    pub log_x: [f64; 2],
}

impl Step {
    /// Byte offsets of the fields, for generated code.
    pub const X: i32 = 0;
    pub const Y: i32 = 32;
    pub const CODES: i32 = 64;
    pub const LOG_X: i32 = 96;

    /// Every lane through `f` (glibc's FMA build on its main path, AVX2), the others through
    /// `scalar`, the Python function whose libm call `f` is.
    pub fn run(&mut self, f: VecFn, scalar: impl Fn(f64, f64) -> PyResult) {
        if usable() {
            // SAFETY: FMA and AVX2 are usable (checked just above).
            unsafe { self.run_fma(f, scalar) }
        } else {
            self.off_path(0, [0.0; 4], scalar);
        }
    }

    /// `pow(x, y)` in every lane where `x` is the same in all and `log_x` is its
    /// [`pow_base_log`]: glibc's `pow` without recomputing the logarithm (the same bits);
    /// lanes off the main path through `scalar`.
    pub fn run_const_base(&mut self, scalar: impl Fn(f64, f64) -> PyResult) {
        if usable() {
            // SAFETY: FMA and AVX2 are usable (checked just above).
            unsafe { self.run_const_base_fma(scalar) }
        } else {
            self.off_path(0, [0.0; 4], scalar);
        }
    }

    /// [`Step::run`] without the CPU check, for callers that made it once (the JIT).
    ///
    /// # Safety
    /// FMA and AVX2 are usable ([`usable`]).
    #[inline]
    #[cfg_attr(
        all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"),
        target_feature(enable = "fma,avx2")
    )]
    pub unsafe fn run_fma(&mut self, f: VecFn, scalar: impl Fn(f64, f64) -> PyResult) {
        #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
        // SAFETY: this function's precondition.
        unsafe {
            fma::step(self, f, false, scalar)
        }
        #[cfg(not(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu")))]
        self.off_path(0, [0.0; 4], scalar);
    }

    /// [`Step::run_const_base`] without the CPU check, for callers that made it once.
    ///
    /// # Safety
    /// FMA and AVX2 are usable ([`usable`]).
    #[inline]
    #[cfg_attr(
        all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"),
        target_feature(enable = "fma,avx2")
    )]
    pub unsafe fn run_const_base_fma(&mut self, scalar: impl Fn(f64, f64) -> PyResult) {
        #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
        // SAFETY: this function's precondition.
        unsafe {
            fma::step(self, VecFn::Pow, true, scalar)
        }
        #[cfg(not(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu")))]
        self.off_path(0, [0.0; 4], scalar);
    }

    /// The values: `main[lane]` for the lanes in `ok`, `scalar(x, y)` (value or error code)
    /// for the others.
    #[cold]
    #[inline(never)]
    fn off_path(&mut self, ok: u32, main: [f64; 4], scalar: impl Fn(f64, f64) -> PyResult) {
        for lane in 0..4 {
            if ok & (1 << lane) != 0 {
                self.x[lane] = main[lane];
                self.codes[lane] = 0;
                continue;
            }
            match scalar(self.x[lane], self.y[lane]) {
                Ok(v) => {
                    self.x[lane] = v;
                    self.codes[lane] = 0;
                }
                Err(e) => {
                    self.x[lane] = 0.0;
                    self.codes[lane] = u64::from(e.code());
                }
            }
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
