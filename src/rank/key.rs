//! The order's integer keys: a value's [`value_key`] and a job's [`JobKey`].

/// Ascending key for ascending f64 order (`-0.0` as `0.0`, NaN last).
#[inline]
pub(super) fn ascending_key(v: f64) -> u64 {
    if v.is_nan() {
        return u64::MAX;
    }
    let bits = (v + 0.0).to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// The order's key of a value: an integer that ascends as the value descends (IEEE total
/// order with `-0.0` equal to `0.0`, NaN after every number). The least key ranks first.
#[inline]
pub fn value_key(v: f64) -> u64 {
    if v.is_nan() {
        return u64::MAX;
    }
    !ascending_key(v)
}

/// A job's place in the order of [`rank`](super::rank) without submission keys, as one
/// integer: the value's [`value_key`], then the position that breaks ties (the input position,
/// or any number that ascends with it, such as a submit order). The least key is the top job;
/// keys of distinct positions are distinct, so any sort of them gives the same order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JobKey(u128);

impl JobKey {
    /// The key of the job at `position` with `value`.
    #[inline]
    pub fn new(value: f64, position: u32) -> JobKey {
        JobKey((u128::from(value_key(value)) << 64) | u128::from(position))
    }
    /// The position the key was made with.
    #[inline]
    pub fn position(self) -> u32 {
        self.0 as u32
    }
}
