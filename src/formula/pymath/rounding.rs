//! Floats to integers: `math.floor`, `math.ceil`, `math.trunc`, and `round` with and without
//! `ndigits`.

use super::{EvalError, PyResult, libm};

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
#[cfg(test)]
mod tests {
    use super::*;

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
}
