//! Python's `max` and `min` over floats, NaN order included.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_max_keep_python_nan_order() {
        assert!(max(&[f64::NAN, 1.0]).is_nan());
        assert_eq!(max(&[1.0, f64::NAN]), 1.0);
        assert_eq!(min(&[3.0, 1.0, 2.0]), 1.0);
    }
}
