//! `float`'s operators (`Objects/floatobject.c`): truthiness, `/`, `//`, `%` and `**`.

use super::{EvalError, PyResult, errno, libm};

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
#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::pymath::math_pow;

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
}
