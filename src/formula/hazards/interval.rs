//! The interval lattice: closed intervals of `f64` (with a flag for whole numbers), ordered by
//! inclusion, with hull (join) and meet, and the input environment the analysis carries.

pub(super) const INF: f64 = f64::INFINITY;

/// A closed interval of values; `int` when every value in it is a whole number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
    pub int: bool,
}

impl Interval {
    pub fn new(lo: f64, hi: f64) -> Interval {
        Interval { lo, hi, int: false }
    }
    pub fn point(v: f64) -> Interval {
        Interval {
            lo: v,
            hi: v,
            int: v.fract() == 0.0,
        }
    }
    pub(super) fn full() -> Interval {
        Interval::new(-INF, INF)
    }
    pub(super) fn boolean() -> Interval {
        Interval {
            lo: 0.0,
            hi: 1.0,
            int: true,
        }
    }
    pub(super) fn int(mut self, int: bool) -> Interval {
        self.int = int;
        self
    }
    /// Repair NaN bounds (from `inf - inf` and the like) by widening.
    pub(super) fn sane(self) -> Interval {
        Interval {
            lo: if self.lo.is_nan() { -INF } else { self.lo },
            hi: if self.hi.is_nan() { INF } else { self.hi },
            int: self.int,
        }
    }
    pub fn contains(self, v: f64) -> bool {
        self.lo <= v && v <= self.hi
    }
    pub fn is_point(self) -> bool {
        self.lo == self.hi
    }
    pub(super) fn can_be_zero(self) -> bool {
        self.contains(0.0)
    }
    pub(super) fn always_zero(self) -> bool {
        self.lo == 0.0 && self.hi == 0.0
    }
    pub(super) fn can_be_truthy(self) -> bool {
        !self.always_zero()
    }
    pub(super) fn is_finite(self) -> bool {
        self.lo.is_finite() && self.hi.is_finite()
    }
    pub(super) fn hull(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.min(o.lo),
            hi: self.hi.max(o.hi),
            int: self.int && o.int,
        }
    }
    pub(super) fn meet(self, o: Interval) -> Option<Interval> {
        let r = Interval {
            lo: self.lo.max(o.lo),
            hi: self.hi.min(o.hi),
            int: self.int || o.int,
        };
        let r = if r.int {
            Interval {
                lo: r.lo.ceil(),
                hi: r.hi.floor(),
                int: true,
            }
        } else {
            r
        };
        (r.lo <= r.hi).then_some(r)
    }
    /// The part of the interval without 0 (a hull; `None` if it is exactly 0).
    pub(super) fn without_zero(self) -> Option<Interval> {
        if !self.can_be_zero() {
            return Some(self);
        }
        if self.always_zero() {
            return None;
        }
        let (lo, hi) = (self.lo, self.hi);
        let step_up = if self.int {
            1.0
        } else {
            f64::MIN_POSITIVE.min(5e-324)
        };
        if lo == 0.0 {
            Some(Interval::new(if self.int { 1.0 } else { step_up }, hi).int(self.int))
        } else if hi == 0.0 {
            Some(Interval::new(lo, if self.int { -1.0 } else { -step_up }).int(self.int))
        } else {
            Some(self)
        }
    }
}

pub(super) fn hull_opt(a: Option<Interval>, b: Option<Interval>) -> Option<Interval> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.hull(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// `0 * inf` as a limit of finite values is 0.
pub(super) fn mul_bound(a: f64, b: f64) -> f64 {
    if a == 0.0 || b == 0.0 { 0.0 } else { a * b }
}

pub(super) fn min_max(vals: &[f64]) -> (f64, f64) {
    let lo = vals.iter().copied().fold(INF, f64::min);
    let hi = vals.iter().copied().fold(-INF, f64::max);
    (lo, hi)
}

pub(super) fn next_up(v: f64) -> f64 {
    v.next_up()
}
pub(super) fn next_down(v: f64) -> f64 {
    v.next_down()
}

/// Input environment: an interval per input column.
pub(super) type Env = Vec<Interval>;

pub(super) fn fmt_interval(i: Interval) -> String {
    let b = |v: f64| {
        if v == INF {
            "inf".to_string()
        } else if v == -INF {
            "-inf".to_string()
        } else {
            format!("{v}")
        }
    };
    format!("[{}, {}]", b(i.lo), b(i.hi))
}
