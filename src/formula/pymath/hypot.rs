//! `math.hypot`: CPython 3.11's accurate `vector_norm`.

use super::{PyResult, libm};

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
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hypot_matches_python() {
        assert_eq!(hypot(&[3.0, 4.0]), Ok(5.0));
        assert_eq!(hypot(&[1e308, 1e308]), Ok(1.4142135623730951e308));
        assert_eq!(hypot(&[]), Ok(0.0));
    }
}
