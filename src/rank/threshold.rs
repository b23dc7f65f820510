//! PBS's `job_sort_formula_threshold`, a number that is never NaN.

use std::fmt;

/// PBS's `job_sort_formula_threshold`: a job whose value is `<=` it is not runnable. Any
/// number, infinities included, but never NaN: NaN compares false with every value, so under
/// PBS's `<=` every job would stay runnable and under `>` none would — [`Threshold::new`]
/// refuses it rather than pick one.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Threshold(f64);

impl Threshold {
    /// The threshold `value`; [`NanThreshold`] when it is NaN.
    pub fn new(value: f64) -> Result<Threshold, NanThreshold> {
        if value.is_nan() {
            Err(NanThreshold)
        } else {
            Ok(Threshold(value))
        }
    }

    /// The number.
    pub fn value(self) -> f64 {
        self.0
    }

    /// Whether a job with `value` is runnable: `value > threshold`.
    #[inline]
    pub fn admits(self, value: f64) -> bool {
        value > self.0
    }
}

impl TryFrom<f64> for Threshold {
    type Error = NanThreshold;
    fn try_from(value: f64) -> Result<Threshold, NanThreshold> {
        Threshold::new(value)
    }
}

/// The error of [`Threshold::new`]: the value was NaN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NanThreshold;

impl fmt::Display for NanThreshold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("NaN is no threshold: every comparison with it is false")
    }
}

impl std::error::Error for NanThreshold {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_is_refused_and_every_number_kept() {
        assert_eq!(Threshold::new(f64::NAN), Err(NanThreshold));
        assert_eq!(Threshold::try_from(-f64::NAN), Err(NanThreshold));
        assert_eq!(
            NanThreshold.to_string(),
            "NaN is no threshold: every comparison with it is false"
        );
        for v in [f64::NEG_INFINITY, -1.5, -0.0, 0.0, 20.0, f64::INFINITY] {
            let t = Threshold::new(v).unwrap();
            assert_eq!(t.value().to_bits(), v.to_bits());
            // Inclusive, as PBS's `value <= threshold` is not runnable.
            assert!(!t.admits(v));
        }
        let t = Threshold::new(2.0).unwrap();
        assert!(t.admits(2.5) && !t.admits(2.0) && !t.admits(f64::NAN));
    }
}
