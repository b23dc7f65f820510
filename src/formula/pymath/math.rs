//! The `math` module's functions (`Modules/mathmodule.c`) other than the integer conversions
//! and `hypot`: `math_1`'s error rules around libm, `pow`, the logarithms, `fmod`, `atan2`.

use super::{EvalError, PyResult, div, libm};

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
#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::pymath::floor;

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
}
