//! `repr(float)` (`float_repr` in `Objects/floatobject.c`, `PyOS_double_to_string` with
//! `'r'`): the shortest digits that read back to the same float, in positional notation
//! when the decimal exponent is in `[-4, 16)`, else as `d.ddde±XX`; a whole number keeps
//! its `.0`.

/// The text Python's `repr` gives `v` (`inf`, `-inf` and `nan` for the non-finite).
pub fn repr(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    // Rust's `{:e}` is the shortest round-trip mantissa with its exponent.
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}`'s exponent is a number");
    if (-4..16).contains(&exp) {
        let fixed = format!("{v}");
        if fixed.contains('.') {
            fixed
        } else {
            format!("{fixed}.0")
        }
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::repr;

    #[test]
    fn as_python_prints_floats() {
        // Each expected text is CPython 3.11's `repr` of the value.
        for (v, text) in [
            (5e-324, "5e-324"),
            (-2.2250738585072014e-308, "-2.2250738585072014e-308"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (0.1, "0.1"),
            (123.0, "123.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (1.5e300, "1.5e+300"),
            (2.0f64.powi(60), "1.152921504606847e+18"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "nan"),
        ] {
            assert_eq!(repr(v), text);
        }
    }
}
