//! Transfer functions of the built-in functions (`sqrt`, `log`, `pow`, `fmod`, ...): each
//! one's value interval and the domain, range and overflow diagnostics of its arguments.

use super::interval::{INF, Interval};
use super::{Analyzer, why_zero};
use crate::formula::ir::{Func, NodeId};
use crate::formula::pymath::EvalError;

impl Analyzer<'_> {
    pub(super) fn call(
        &mut self,
        id: NodeId,
        func: Func,
        args: &[NodeId],
        vals: &[Interval],
    ) -> Option<Interval> {
        let x = vals.first().copied().unwrap_or(Interval::point(0.0));
        let y = vals.get(1).copied().unwrap_or(Interval::point(0.0));
        let arg_text = args
            .first()
            .map(|&a| self.text(a).to_string())
            .unwrap_or_default();
        let zero_reason = |s: &Self| {
            args.first()
                .and_then(|&a| s.input(a))
                .map(|input| format!(" ({})", why_zero(input, s.catalog)))
                .unwrap_or_default()
        };
        if let Some(&first) = args.first()
            && self.non_finite[first.index()]
            && super::infinite::fails_on_non_finite(func, args.len())
        {
            let err = match func {
                Func::Floor | Func::Ceil | Func::Trunc | Func::Round => {
                    EvalError::InfinityToInteger
                }
                _ => EvalError::MathDomain,
            };
            self.domain(
                id,
                false,
                format!(
                    "`{arg_text}` can be infinite or NaN, on which `{}` fails",
                    func.name()
                ),
                err,
            );
        }
        let mono = |f: fn(f64) -> f64, lo: f64, hi: f64| Interval::new(f(lo), f(hi));
        let dom = EvalError::MathDomain;
        Some(match func {
            Func::Abs | Func::Fabs => {
                let (lo, hi) = if x.lo >= 0.0 {
                    (x.lo, x.hi)
                } else if x.hi <= 0.0 {
                    (-x.hi, -x.lo)
                } else {
                    (0.0, (-x.lo).max(x.hi))
                };
                Interval::new(lo, hi).int(x.int)
            }
            Func::Min | Func::Max => {
                let lo = vals.iter().map(|v| v.lo);
                let hi = vals.iter().map(|v| v.hi);
                let int = vals.iter().all(|v| v.int);
                if func == Func::Min {
                    Interval::new(lo.fold(INF, f64::min), hi.fold(INF, f64::min)).int(int)
                } else {
                    Interval::new(lo.fold(-INF, f64::max), hi.fold(-INF, f64::max)).int(int)
                }
            }
            Func::Pow => return self.power(id, args[0], args[1], x, y, true),
            Func::Sqrt => {
                if x.lo < 0.0 {
                    let certain = x.hi < 0.0;
                    self.domain(
                        id,
                        certain,
                        format!("the square root of `{arg_text}`, which can be negative"),
                        dom,
                    );
                    if certain {
                        return None;
                    }
                }
                mono(f64::sqrt, x.lo.max(0.0), x.hi)
            }
            Func::Log | Func::Log10 | Func::Log2 => {
                let x = if x.lo <= 0.0 {
                    let certain = x.hi <= 0.0;
                    let reason = zero_reason(self);
                    self.domain(
                        id,
                        certain,
                        format!(
                            "the logarithm of `{arg_text}`, which can be {}{reason}",
                            if x.hi <= 0.0 || x.lo < 0.0 {
                                "0 or negative"
                            } else {
                                "0"
                            }
                        ),
                        dom,
                    );
                    if certain {
                        return None;
                    }
                    // The least positive float is the subnormal 5e-324 (log: -744.44).
                    Interval::new(if x.int { 1.0 } else { f64::from_bits(1) }, x.hi)
                } else {
                    x
                };
                if func == Func::Log && args.len() == 2 {
                    let base_text = self.text(args[1]).to_string();
                    if y.lo <= 0.0 {
                        let certain = y.hi <= 0.0;
                        self.domain(
                            id,
                            certain,
                            format!("the logarithm base `{base_text}` can be 0 or negative"),
                            dom,
                        );
                        if certain {
                            return None;
                        }
                    }
                    if y.contains(1.0) {
                        let certain = y.is_point();
                        self.domain(
                            id,
                            certain,
                            format!("the logarithm base `{base_text}` can be 1"),
                            EvalError::FloatDivisionByZero,
                        );
                        if certain {
                            return None;
                        }
                    }
                    // |log(x)| <= 745 and a base other than 1 has |log(base)| >= 1.1e-16.
                    Interval::new(-1e19, 1e19)
                } else {
                    let f = match func {
                        Func::Log10 => f64::log10,
                        Func::Log2 => f64::log2,
                        _ => f64::ln,
                    };
                    mono(f, x.lo, x.hi)
                }
            }
            Func::Log1p => {
                if x.lo <= -1.0 {
                    let certain = x.hi <= -1.0;
                    self.domain(
                        id,
                        certain,
                        format!("`log1p` of `{arg_text}`, which can be -1 or less"),
                        dom,
                    );
                    if certain {
                        return None;
                    }
                }
                mono(f64::ln_1p, x.lo.max(-1.0 + f64::EPSILON), x.hi)
            }
            Func::Asin | Func::Acos => {
                if x.lo < -1.0 || x.hi > 1.0 {
                    let certain = x.hi < -1.0 || x.lo > 1.0;
                    self.domain(
                        id,
                        certain,
                        format!(
                            "`{}` of `{arg_text}`, which can be outside [-1, 1]",
                            func.name()
                        ),
                        dom,
                    );
                    if certain {
                        return None;
                    }
                }
                let (lo, hi) = (x.lo.max(-1.0), x.hi.min(1.0));
                if func == Func::Asin {
                    mono(f64::asin, lo, hi)
                } else {
                    Interval::new(hi.acos(), lo.acos())
                }
            }
            Func::Exp | Func::Expm1 => {
                let f = if func == Func::Exp {
                    f64::exp
                } else {
                    f64::exp_m1
                };
                mono(f, x.lo, x.hi)
            }
            Func::Sinh => mono(f64::sinh, x.lo, x.hi),
            Func::Cosh => {
                let m = if x.contains(0.0) {
                    0.0
                } else {
                    x.lo.abs().min(x.hi.abs())
                };
                Interval::new(m.cosh(), x.lo.abs().max(x.hi.abs()).cosh())
            }
            Func::Tanh => mono(f64::tanh, x.lo, x.hi),
            Func::Atan => mono(f64::atan, x.lo, x.hi),
            Func::Atan2 => Interval::new(-std::f64::consts::PI, std::f64::consts::PI),
            Func::Sin | Func::Cos => {
                if x.is_finite() && x.lo == x.hi {
                    let v = if func == Func::Sin {
                        x.lo.sin()
                    } else {
                        x.lo.cos()
                    };
                    Interval::point(v)
                } else {
                    Interval::new(-1.0, 1.0)
                }
            }
            Func::Tan => {
                let half_pi = std::f64::consts::FRAC_PI_2;
                if x.lo > -half_pi && x.hi < half_pi {
                    mono(f64::tan, x.lo, x.hi)
                } else {
                    // No float is nearer an odd multiple of π/2 than about 2^-62, so |tan| of a
                    // float stays far below this.
                    Interval::new(-1e22, 1e22)
                }
            }
            Func::Ceil => mono(f64::ceil, x.lo, x.hi).int(true),
            Func::Floor => mono(f64::floor, x.lo, x.hi).int(true),
            Func::Trunc => mono(f64::trunc, x.lo, x.hi).int(true),
            Func::Round => {
                if args.len() == 2 {
                    let digits = y.lo;
                    let r = |v: f64| {
                        if v.is_finite() {
                            crate::formula::pymath::round_ndigits(v, digits).unwrap_or(v)
                        } else {
                            v
                        }
                    };
                    Interval::new(r(x.lo), r(x.hi)).int(x.int || digits <= 0.0)
                } else {
                    // Python rounds half to even (`round(2.5)` is 2).
                    let r = |v: f64| crate::formula::pymath::round(v).unwrap_or(v);
                    Interval::new(r(x.lo), r(x.hi)).int(true)
                }
            }
            Func::Fmod => {
                if y.can_be_zero() {
                    let certain = y.always_zero();
                    let reason = args
                        .get(1)
                        .and_then(|&a| self.input(a))
                        .map(|input| format!(" ({})", why_zero(input, self.catalog)))
                        .unwrap_or_default();
                    self.domain(
                        id,
                        certain,
                        format!(
                            "`fmod` by `{}`, which can be 0{reason}",
                            args.get(1).map(|&a| self.text(a)).unwrap_or_default()
                        ),
                        dom,
                    );
                    if certain {
                        return None;
                    }
                }
                let m = y.lo.abs().max(y.hi.abs());
                let lo = if x.lo >= 0.0 { 0.0 } else { x.lo.max(-m) };
                let hi = if x.hi <= 0.0 { 0.0 } else { x.hi.min(m) };
                Interval::new(lo, hi)
            }
            Func::Copysign => {
                // |x| with y's sign; y's interval cannot tell 0.0 from -0.0.
                let m = x.lo.abs().max(x.hi.abs());
                let least = if x.contains(0.0) {
                    0.0
                } else {
                    x.lo.abs().min(x.hi.abs())
                };
                let y_nan = args.get(1).is_some_and(|b| self.non_finite[b.index()]);
                if y_nan {
                    // A NaN's sign bit is either.
                    Interval::new(-m, m)
                } else if y.lo > 0.0 {
                    Interval::new(least, m)
                } else if y.hi < 0.0 {
                    Interval::new(-m, -least)
                } else {
                    Interval::new(-m, m)
                }
                .int(x.int)
            }
            Func::Hypot => {
                // At most the largest magnitude times √n (squaring could underflow: hypot of
                // 1e-300 is 1e-300), with a little slack for hypot's own rounding.
                let m = vals
                    .iter()
                    .map(|v| v.lo.abs().max(v.hi.abs()))
                    .fold(0.0f64, f64::max);
                let n = vals.len() as f64;
                Interval::new(0.0, m * n.sqrt() * (1.0 + 4.0 * f64::EPSILON))
            }
            Func::Degrees => mono(f64::to_degrees, x.lo, x.hi),
            Func::Radians => mono(f64::to_radians, x.lo, x.hi),
        })
    }
}
