//! Python's float semantics, operation by operation, as CPython 3.11 implements them
//! (`Objects/floatobject.c`, `Modules/mathmodule.c`, `Python/bltinmodule.c`).
//!
//! Every function here is the single definition of its operation: the reference evaluator
//! calls them directly and the JIT calls the `extern "C"` wrappers in [`ffi`], so both
//! backends share one implementation of every non-trivial operation and every libm call goes
//! to the same symbol ([`libm`]).
//!
//! The error an operation raises is an [`EvalError`]; its message is Python's own words.

use std::fmt;

/// Why a job's evaluation failed. The job gets the value 0 (PBS policy) and this message.
///
/// The discriminants are stable: they are the per-job error codes of the JIT's error column
/// and of the C ABI (0 means no error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum EvalError {
    /// `x / 0`
    FloatDivisionByZero = 1,
    /// `x // 0`
    FloatFloorDivisionByZero = 2,
    /// `x % 0`
    FloatModulo = 3,
    /// `x ** y` overflowed (Python's `OverflowError` from errno `ERANGE`).
    PowRange = 4,
    /// `0.0 ** negative`
    ZeroToNegativePower = 5,
    /// `negative ** fractional`: Python makes a complex number (PBS then uses -1.0); jobsort
    /// treats it as an error (a deliberate difference, see ARCHITECTURE.md).
    NegativeToFractionalPower = 6,
    /// `ValueError: math domain error`
    MathDomain = 7,
    /// `OverflowError: math range error`
    MathRange = 8,
    /// `floor`/`ceil`/`trunc`/`round` of an infinity.
    InfinityToInteger = 9,
    /// `floor`/`ceil`/`trunc`/`round` of a NaN.
    NanToInteger = 10,
    /// The formula's final value is an infinity or NaN (jobsort's rule; PBS would sort it
    /// unpredictably).
    NotFinite = 11,
}

impl EvalError {
    /// All errors, in code order.
    pub const ALL: [EvalError; 11] = [
        EvalError::FloatDivisionByZero,
        EvalError::FloatFloorDivisionByZero,
        EvalError::FloatModulo,
        EvalError::PowRange,
        EvalError::ZeroToNegativePower,
        EvalError::NegativeToFractionalPower,
        EvalError::MathDomain,
        EvalError::MathRange,
        EvalError::InfinityToInteger,
        EvalError::NanToInteger,
        EvalError::NotFinite,
    ];

    /// The message, in Python's words where Python raises.
    pub fn message(self) -> &'static str {
        match self {
            EvalError::FloatDivisionByZero => "float division by zero",
            EvalError::FloatFloorDivisionByZero => "float floor division by zero",
            EvalError::FloatModulo => "float modulo",
            EvalError::PowRange => "(34, 'Numerical result out of range')",
            EvalError::ZeroToNegativePower => "0.0 cannot be raised to a negative power",
            EvalError::NegativeToFractionalPower => {
                "negative number cannot be raised to a fractional power"
            }
            EvalError::MathDomain => "math domain error",
            EvalError::MathRange => "math range error",
            EvalError::InfinityToInteger => "cannot convert float infinity to integer",
            EvalError::NanToInteger => "cannot convert float NaN to integer",
            EvalError::NotFinite => "formula value is not finite",
        }
    }

    /// The Python exception class this error stands for.
    pub fn python_exception(self) -> &'static str {
        match self {
            EvalError::FloatDivisionByZero
            | EvalError::FloatFloorDivisionByZero
            | EvalError::FloatModulo
            | EvalError::ZeroToNegativePower => "ZeroDivisionError",
            EvalError::PowRange | EvalError::MathRange | EvalError::InfinityToInteger => {
                "OverflowError"
            }
            EvalError::MathDomain | EvalError::NanToInteger => "ValueError",
            EvalError::NegativeToFractionalPower | EvalError::NotFinite => "jobsort",
        }
    }

    /// The stable numeric code (never 0).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The error for a code, `None` for 0 or an unknown code.
    pub fn from_code(code: u8) -> Option<EvalError> {
        EvalError::ALL.iter().copied().find(|e| e.code() == code)
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for EvalError {}

pub type PyResult = Result<f64, EvalError>;

/// The C library's math functions, called by symbol so that the interpreter and the JIT use
/// the very same code (Rust's `f64` methods may be lowered or folded differently by LLVM).
pub mod libm {
    unsafe extern "C" {
        pub safe fn pow(x: f64, y: f64) -> f64;
        pub safe fn exp(x: f64) -> f64;
        pub safe fn expm1(x: f64) -> f64;
        pub safe fn log(x: f64) -> f64;
        pub safe fn log10(x: f64) -> f64;
        pub safe fn log2(x: f64) -> f64;
        pub safe fn log1p(x: f64) -> f64;
        pub safe fn sqrt(x: f64) -> f64;
        pub safe fn fmod(x: f64, y: f64) -> f64;
        pub safe fn floor(x: f64) -> f64;
        pub safe fn ceil(x: f64) -> f64;
        pub safe fn trunc(x: f64) -> f64;
        pub safe fn round(x: f64) -> f64;
        pub safe fn sin(x: f64) -> f64;
        pub safe fn cos(x: f64) -> f64;
        pub safe fn tan(x: f64) -> f64;
        pub safe fn asin(x: f64) -> f64;
        pub safe fn acos(x: f64) -> f64;
        pub safe fn atan(x: f64) -> f64;
        pub safe fn atan2(y: f64, x: f64) -> f64;
        pub safe fn sinh(x: f64) -> f64;
        pub safe fn cosh(x: f64) -> f64;
        pub safe fn tanh(x: f64) -> f64;
        pub safe fn frexp(x: f64, exp: *mut i32) -> f64;
        pub safe fn ldexp(x: f64, exp: i32) -> f64;
    }
}

/// `errno`, which CPython consults after `pow`.
mod errno {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe extern "C" {
        safe fn __errno_location() -> *mut i32;
    }

    pub const ERANGE: i32 = 34;

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    pub fn clear() {
        // SAFETY: glibc returns a valid pointer to this thread's errno.
        unsafe { *__errno_location() = 0 }
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    pub fn get() -> i32 {
        // SAFETY: as above.
        unsafe { *__errno_location() }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    pub fn clear() {}
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    pub fn get() -> i32 {
        0
    }
}

/// Python truthiness of a float: false only for ±0 (NaN is true).
#[inline]
pub fn truthy(x: f64) -> bool {
    x != 0.0
}

/// `float.__truediv__`
#[inline]
pub fn div(a: f64, b: f64) -> PyResult {
    if b == 0.0 {
        Err(EvalError::FloatDivisionByZero)
    } else {
        Ok(a / b)
    }
}

/// CPython's `_float_div_mod`: (floor quotient, modulo) for a nonzero divisor.
fn div_mod(vx: f64, wx: f64) -> (f64, f64) {
    let mut m = libm::fmod(vx, wx);
    // fmod is typically exact, so vx - m is an exact multiple of wx, but this division may
    // still not be exact: the quotient is rounded below.
    let mut div = (vx - m) / wx;
    if m != 0.0 {
        // Ensure the remainder has the same sign as the denominator.
        if (wx < 0.0) != (m < 0.0) {
            m += wx;
            div -= 1.0;
        }
    } else {
        // The remainder is zero: make it the sign of the denominator.
        m = 0.0f64.copysign(wx);
    }
    let floordiv = if div != 0.0 {
        let mut f = libm::floor(div);
        if div - f > 0.5 {
            f += 1.0;
        }
        f
    } else {
        // The quotient is zero: give it the sign of the true quotient.
        0.0f64.copysign(vx / wx)
    };
    (floordiv, m)
}

/// `float.__floordiv__`
pub fn floor_div(a: f64, b: f64) -> PyResult {
    if b == 0.0 {
        return Err(EvalError::FloatFloorDivisionByZero);
    }
    Ok(div_mod(a, b).0)
}

/// `float.__mod__` (`float_rem`)
pub fn rem(a: f64, b: f64) -> PyResult {
    if b == 0.0 {
        return Err(EvalError::FloatModulo);
    }
    let mut m = libm::fmod(a, b);
    if m != 0.0 {
        if (b < 0.0) != (m < 0.0) {
            m += b;
        }
    } else {
        m = 0.0f64.copysign(b);
    }
    Ok(m)
}

/// Is `x` an odd integer? (CPython's `DOUBLE_IS_ODD_INTEGER`)
fn is_odd_integer(x: f64) -> bool {
    libm::fmod(x.abs(), 2.0) == 1.0
}

/// `float.__pow__` (`float_pow`), the `**` operator.
pub fn float_pow(iv: f64, iw: f64) -> PyResult {
    if iw == 0.0 {
        return Ok(1.0); // v**0 is 1, even 0**0 and nan**0
    }
    if iv.is_nan() {
        return Ok(iv); // nan**w = nan, unless w == 0
    }
    if iw.is_nan() {
        return Ok(if iv == 1.0 { 1.0 } else { iw }); // 1**nan = 1, v**nan = nan
    }
    if iw.is_infinite() {
        let v = iv.abs();
        return Ok(if v == 1.0 {
            1.0
        } else if (iw > 0.0) == (v > 1.0) {
            iw.abs() // (|v| > 1)**inf = inf, (|v| < 1)**-inf = inf
        } else {
            0.0
        });
    }
    if iv.is_infinite() {
        let odd = is_odd_integer(iw);
        return Ok(if iw > 0.0 {
            if odd { iv } else { iv.abs() }
        } else if odd {
            0.0f64.copysign(iv)
        } else {
            0.0
        });
    }
    if iv == 0.0 {
        let odd = is_odd_integer(iw);
        if iw < 0.0 {
            return Err(EvalError::ZeroToNegativePower);
        }
        return Ok(if odd { iv } else { 0.0 });
    }
    let mut v = iv;
    let mut negate = false;
    if v < 0.0 {
        if iw != libm::floor(iw) {
            return Err(EvalError::NegativeToFractionalPower);
        }
        v = -v;
        negate = is_odd_integer(iw);
    }
    if v == 1.0 {
        return Ok(if negate { -1.0 } else { 1.0 });
    }
    errno::clear();
    let mut ix = libm::pow(v, iw);
    let mut err = errno::get();
    // _Py_ADJUST_ERANGE1
    if err == 0 {
        if ix.is_infinite() {
            err = errno::ERANGE;
        }
    } else if err == errno::ERANGE && ix == 0.0 {
        err = 0;
    }
    if negate {
        ix = -ix;
    }
    if err != 0 {
        // CPython raises OverflowError for ERANGE and ValueError otherwise.
        return Err(if err == errno::ERANGE {
            EvalError::PowRange
        } else {
            EvalError::MathDomain
        });
    }
    Ok(ix)
}

/// CPython's `is_error` after a math function set `errno`-like state: an underflow (a small
/// result) is not an error, an overflow is.
fn range_error(r: f64) -> PyResult {
    if r.abs() < 1.5 {
        Ok(r)
    } else {
        Err(EvalError::MathRange)
    }
}

/// `math.pow`
pub fn math_pow(x: f64, y: f64) -> PyResult {
    let r;
    if !x.is_finite() || !y.is_finite() {
        r = if x.is_nan() {
            if y == 0.0 { 1.0 } else { x }
        } else if y.is_nan() {
            if x == 1.0 { 1.0 } else { y }
        } else if x.is_infinite() {
            let odd_y = y.is_finite() && libm::fmod(y.abs(), 2.0) == 1.0;
            if y > 0.0 {
                if odd_y { x } else { x.abs() }
            } else if y == 0.0 {
                1.0
            } else if odd_y {
                0.0f64.copysign(x)
            } else {
                0.0
            }
        } else {
            // y is infinite
            if x.abs() == 1.0 {
                1.0
            } else if y > 0.0 && x.abs() > 1.0 {
                y
            } else if y < 0.0 && x.abs() < 1.0 {
                -y
            } else {
                0.0
            }
        };
        return Ok(r);
    }
    r = libm::pow(x, y);
    if r.is_nan() {
        return Err(EvalError::MathDomain);
    }
    if r.is_infinite() {
        if x == 0.0 {
            return Err(EvalError::MathDomain);
        }
        return range_error(r);
    }
    Ok(r)
}

/// CPython's `math_1`: given `r = f(x)`, turn a NaN from a non-NaN into a domain error and an
/// infinity from a finite argument into a range (or domain) error.
#[inline]
fn math_1(x: f64, r: f64, can_overflow: bool) -> PyResult {
    if r.is_nan() && !x.is_nan() {
        return Err(EvalError::MathDomain);
    }
    if r.is_infinite() && x.is_finite() {
        return Err(if can_overflow {
            EvalError::MathRange
        } else {
            EvalError::MathDomain
        });
    }
    Ok(r)
}

pub fn sqrt(x: f64) -> PyResult {
    math_1(x, libm::sqrt(x), false)
}
pub fn exp(x: f64) -> PyResult {
    math_1(x, libm::exp(x), true)
}
pub fn expm1(x: f64) -> PyResult {
    math_1(x, libm::expm1(x), true)
}
pub fn sin(x: f64) -> PyResult {
    math_1(x, libm::sin(x), false)
}
pub fn cos(x: f64) -> PyResult {
    math_1(x, libm::cos(x), false)
}
pub fn tan(x: f64) -> PyResult {
    math_1(x, libm::tan(x), false)
}
pub fn asin(x: f64) -> PyResult {
    math_1(x, libm::asin(x), false)
}
pub fn acos(x: f64) -> PyResult {
    math_1(x, libm::acos(x), false)
}
pub fn atan(x: f64) -> PyResult {
    math_1(x, libm::atan(x), false)
}
pub fn sinh(x: f64) -> PyResult {
    math_1(x, libm::sinh(x), true)
}
pub fn cosh(x: f64) -> PyResult {
    math_1(x, libm::cosh(x), true)
}
pub fn tanh(x: f64) -> PyResult {
    math_1(x, libm::tanh(x), false)
}
pub fn fabs(x: f64) -> PyResult {
    Ok(x.abs())
}

fn m_log1p(x: f64) -> f64 {
    if x == 0.0 { x } else { libm::log1p(x) }
}
pub fn log1p(x: f64) -> PyResult {
    math_1(x, m_log1p(x), false)
}

/// CPython's `m_log`-style wrapper: finite positive → libm; 0 → -inf (domain); negative → NaN
/// (domain); NaN and +inf pass through.
fn m_logish(x: f64, f: extern "C" fn(f64) -> f64) -> f64 {
    if x.is_finite() {
        if x > 0.0 {
            f(x)
        } else if x == 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::NAN
        }
    } else if x.is_nan() || x > 0.0 {
        x
    } else {
        f64::NAN
    }
}
fn m_log(x: f64) -> f64 {
    m_logish(x, libm::log)
}
fn m_log10(x: f64) -> f64 {
    m_logish(x, libm::log10)
}
fn m_log2(x: f64) -> f64 {
    m_logish(x, libm::log2)
}

/// `math.log(x)`
pub fn log(x: f64) -> PyResult {
    math_1(x, m_log(x), false)
}
/// `math.log(x, base)`
pub fn log_base(x: f64, base: f64) -> PyResult {
    let num = log(x)?;
    let den = log(base)?;
    div(num, den)
}
pub fn log10(x: f64) -> PyResult {
    math_1(x, m_log10(x), false)
}
pub fn log2(x: f64) -> PyResult {
    math_1(x, m_log2(x), false)
}

/// `PyLong_FromDouble`: the value must be finite to become an int, and an int has no
/// negative zero (`math.ceil(-0.5)` is `0`), so `-0.0` becomes `0.0`.
#[inline]
fn to_integer(x: f64) -> PyResult {
    if x.is_nan() {
        Err(EvalError::NanToInteger)
    } else if x.is_infinite() {
        Err(EvalError::InfinityToInteger)
    } else {
        Ok(x + 0.0)
    }
}

pub fn floor(x: f64) -> PyResult {
    to_integer(libm::floor(x))
}
pub fn ceil(x: f64) -> PyResult {
    to_integer(libm::ceil(x))
}
pub fn trunc(x: f64) -> PyResult {
    to_integer(libm::trunc(x))
}

/// `round(x)`: half to even, as an integer.
pub fn round(x: f64) -> PyResult {
    let mut rounded = libm::round(x);
    if (x - rounded).abs() == 0.5 {
        // halfway case: round to even
        rounded = 2.0 * libm::round(x / 2.0);
    }
    to_integer(rounded)
}

/// `round(x, ndigits)` for a float: correctly rounded (half to even on the exact binary
/// value), as CPython's `double_round` does through `_Py_dg_dtoa` mode 3.
pub fn round_ndigits(x: f64, ndigits: f64) -> PyResult {
    // CPython: NDIGITS_MAX = 323, NDIGITS_MIN = -308.
    if ndigits > 323.0 {
        return Ok(x);
    }
    if ndigits < -308.0 {
        return Ok(0.0 * x);
    }
    if !x.is_finite() || x == 0.0 {
        return Ok(x);
    }
    let n = ndigits as i32;
    let rounded: f64 = if n >= 0 {
        // Rust's fixed-precision formatting is exact and rounds half to even, like dtoa mode 3.
        let s = format!("{:.*}", n as usize, x);
        s.parse().unwrap_or(x)
    } else {
        // Round to a multiple of 10^-n: format in scientific notation with the right number of
        // significant digits (exact, half to even), or to zero when the value is too small.
        let decimal_exponent = x.abs().log10().floor() as i32;
        let sig = decimal_exponent + n; // digits after the first in scientific notation
        if sig < -1 {
            0.0f64.copysign(x)
        } else if sig == -1 {
            // |x| < 10^-n: the result is 0 or ±10^-n
            let unit = format!("1e{}", -n).parse::<f64>().unwrap_or(f64::INFINITY);
            let half = format!("5e{}", -n - 1)
                .parse::<f64>()
                .unwrap_or(f64::INFINITY);
            if x.abs() > half {
                unit.copysign(x)
            } else {
                0.0f64.copysign(x)
            }
        } else {
            let s = format!("{:.*e}", sig as usize, x);
            s.parse().unwrap_or(x)
        }
    };
    if rounded.is_infinite() {
        return Err(EvalError::MathRange);
    }
    Ok(rounded)
}

/// `math.fmod`
pub fn fmod(x: f64, y: f64) -> PyResult {
    if y.is_infinite() && x.is_finite() {
        return Ok(x);
    }
    let r = libm::fmod(x, y);
    if r.is_nan() && !x.is_nan() && !y.is_nan() {
        return Err(EvalError::MathDomain);
    }
    Ok(r)
}

pub fn copysign(x: f64, y: f64) -> PyResult {
    Ok(x.copysign(y))
}

/// CPython's `m_atan2`
fn m_atan2(y: f64, x: f64) -> f64 {
    use std::f64::consts::PI;
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if y.is_infinite() {
        if x.is_infinite() {
            return if 1.0f64.copysign(x) == 1.0 {
                (0.25 * PI).copysign(y)
            } else {
                (0.75 * PI).copysign(y)
            };
        }
        return (0.5 * PI).copysign(y);
    }
    if x.is_infinite() || y == 0.0 {
        return if 1.0f64.copysign(x) == 1.0 {
            0.0f64.copysign(y)
        } else {
            PI.copysign(y)
        };
    }
    libm::atan2(y, x)
}

/// `math.atan2(y, x)` (`math_2` around `m_atan2`)
pub fn atan2(y: f64, x: f64) -> PyResult {
    let r = m_atan2(y, x);
    if r.is_nan() && !x.is_nan() && !y.is_nan() {
        return Err(EvalError::MathDomain);
    }
    if r.is_infinite() && x.is_finite() && y.is_finite() {
        return range_error(r);
    }
    Ok(r)
}

/// `math.degrees`: a plain multiplication (no range check, as in CPython).
pub fn degrees(x: f64) -> PyResult {
    const DEG_PER_RAD: f64 = 180.0 / std::f64::consts::PI;
    Ok(x * DEG_PER_RAD)
}
/// `math.radians`
pub fn radians(x: f64) -> PyResult {
    const RAD_PER_DEG: f64 = std::f64::consts::PI / 180.0;
    Ok(x * RAD_PER_DEG)
}

/// Python's `max(a, b, ...)`: keep the first, replace it when a later item is strictly greater.
pub fn max(args: &[f64]) -> f64 {
    let mut best = args[0];
    for &x in &args[1..] {
        if x > best {
            best = x;
        }
    }
    best
}

/// Python's `min(a, b, ...)`: keep the first, replace it when a later item is strictly less.
pub fn min(args: &[f64]) -> f64 {
    let mut best = args[0];
    for &x in &args[1..] {
        if x < best {
            best = x;
        }
    }
    best
}

/// An exact double-length value `hi + lo`.
struct DoubleLength {
    hi: f64,
    lo: f64,
}

fn dl_fast_sum(a: f64, b: f64) -> DoubleLength {
    let x = a + b;
    let z = x - a;
    DoubleLength { hi: x, lo: b - z }
}

fn dl_mul(x: f64, y: f64) -> DoubleLength {
    let z = x * y;
    DoubleLength {
        hi: z,
        lo: x.mul_add(y, -z),
    }
}

/// CPython's `vector_norm` (3.11), the accurate norm behind `math.hypot`.
fn vector_norm(vec: &mut [f64], max: f64, found_nan: bool) -> f64 {
    if max.is_infinite() {
        return max;
    }
    if found_nan {
        return f64::NAN;
    }
    if max == 0.0 || vec.len() <= 1 {
        return max;
    }
    let mut max_e = 0i32;
    libm::frexp(max, &mut max_e);
    if max_e < -1023 {
        // ldexp(1.0, -max_e) would overflow: scale subnormals up first.
        for v in vec.iter_mut() {
            *v /= f64::MIN_POSITIVE;
        }
        return f64::MIN_POSITIVE * vector_norm(vec, max / f64::MIN_POSITIVE, found_nan);
    }
    let scale = libm::ldexp(1.0, -max_e);
    let (mut csum, mut frac1, mut frac2) = (1.0f64, 0.0f64, 0.0f64);
    for &v in vec.iter() {
        let x = v * scale;
        let pr = dl_mul(x, x);
        let sm = dl_fast_sum(csum, pr.hi);
        csum = sm.hi;
        frac1 += pr.lo;
        frac2 += sm.lo;
    }
    let mut h = libm::sqrt(csum - 1.0 + (frac1 + frac2));
    let pr = dl_mul(-h, h);
    let sm = dl_fast_sum(csum, pr.hi);
    csum = sm.hi;
    frac1 += pr.lo;
    frac2 += sm.lo;
    let x = csum - 1.0 + (frac1 + frac2);
    h += x / (2.0 * h);
    h / scale
}

/// `math.hypot(*coordinates)`
pub fn hypot(args: &[f64]) -> PyResult {
    let mut coords: Vec<f64> = Vec::with_capacity(args.len());
    let mut max = 0.0f64;
    let mut found_nan = false;
    for &a in args {
        let x = a.abs();
        coords.push(x);
        found_nan |= x.is_nan();
        if x > max {
            max = x;
        }
    }
    Ok(vector_norm(&mut coords, max, found_nan))
}

/// `extern "C"` entry points for the JIT. Each returns the value and writes the error code
/// (0 for none) through `err`; on error the value is 0.
pub mod ffi {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_modulo_and_floor_division() {
        assert_eq!(rem(-7.0, 3.0), Ok(2.0));
        assert_eq!(rem(7.0, -3.0), Ok(-2.0));
        assert_eq!(floor_div(7.0, -2.0), Ok(-4.0));
        assert_eq!(floor_div(-7.0, 2.0), Ok(-4.0));
        assert!(rem(0.0, -3.0).unwrap().is_sign_negative());
        assert_eq!(rem(1.0, 0.0), Err(EvalError::FloatModulo));
        assert_eq!(
            floor_div(1.0, 0.0),
            Err(EvalError::FloatFloorDivisionByZero)
        );
    }

    #[test]
    fn powers() {
        assert_eq!(float_pow(2.0, -1.0), Ok(0.5));
        assert_eq!(float_pow(10.0, 400.0), Err(EvalError::PowRange));
        assert_eq!(float_pow(0.0, -1.0), Err(EvalError::ZeroToNegativePower));
        assert_eq!(
            float_pow(-8.0, 1.0 / 3.0),
            Err(EvalError::NegativeToFractionalPower)
        );
        assert_eq!(float_pow(-2.0, 3.0), Ok(-8.0));
        assert_eq!(float_pow(f64::NAN, 0.0), Ok(1.0));
        assert_eq!(math_pow(0.0, -1.0), Err(EvalError::MathDomain));
        assert_eq!(math_pow(-8.0, 1.0 / 3.0), Err(EvalError::MathDomain));
        assert_eq!(math_pow(10.0, 400.0), Err(EvalError::MathRange));
    }

    #[test]
    fn math_errors() {
        assert_eq!(log(0.0), Err(EvalError::MathDomain));
        assert_eq!(sqrt(-1.0), Err(EvalError::MathDomain));
        assert_eq!(exp(1000.0), Err(EvalError::MathRange));
        assert_eq!(exp(-1000.0), Ok(0.0));
        assert_eq!(log_base(5.0, 1.0), Err(EvalError::FloatDivisionByZero));
        assert_eq!(floor(f64::INFINITY), Err(EvalError::InfinityToInteger));
        assert_eq!(floor(f64::NAN), Err(EvalError::NanToInteger));
        assert_eq!(fmod(1.0, 0.0), Err(EvalError::MathDomain));
        assert_eq!(log1p(-1.0), Err(EvalError::MathDomain));
        assert_eq!(tan(f64::INFINITY), Err(EvalError::MathDomain));
    }

    #[test]
    fn rounding_is_half_even() {
        assert_eq!(round(2.5), Ok(2.0));
        assert_eq!(round(3.5), Ok(4.0));
        assert_eq!(round(-2.5), Ok(-2.0));
        // Python ints have no negative zero.
        assert!(round(-0.4).unwrap().is_sign_positive());
        assert!(ceil(-0.5).unwrap().is_sign_positive());
        assert!(trunc(-0.0).unwrap().is_sign_positive());
        assert_eq!(round_ndigits(2.675, 2.0), Ok(2.67));
        assert_eq!(round_ndigits(0.125, 2.0), Ok(0.12));
        assert_eq!(round_ndigits(1234.5, -2.0), Ok(1200.0));
        assert_eq!(round_ndigits(1250.0, -2.0), Ok(1200.0));
        assert_eq!(round_ndigits(49.0, -2.0), Ok(0.0));
        assert_eq!(round_ndigits(51.0, -2.0), Ok(100.0));
    }

    #[test]
    fn min_max_keep_python_nan_order() {
        assert!(max(&[f64::NAN, 1.0]).is_nan());
        assert_eq!(max(&[1.0, f64::NAN]), 1.0);
        assert_eq!(min(&[3.0, 1.0, 2.0]), 1.0);
    }

    #[test]
    fn hypot_matches_python() {
        assert_eq!(hypot(&[3.0, 4.0]), Ok(5.0));
        assert_eq!(hypot(&[1e308, 1e308]), Ok(1.4142135623730951e308));
        assert_eq!(hypot(&[]), Ok(0.0));
    }
}
