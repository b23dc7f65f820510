//! Guard narrowing: the input environment in which a condition has a given truth, so each
//! branch of `a if c else b`, `c and x` and `c or x` is analysed under its guard.

use super::interval::{Env, INF, Interval, next_down, next_up};
use super::{Analyzer, NARROW_DEPTH};
use crate::formula::ir::{Expr, NodeId};
use crate::formula::syntax::{CmpOp, UnaryOp};

impl Analyzer<'_> {
    /// The environment in which `cond` has the given truth, or `None` if it cannot.
    pub(super) fn narrow(&mut self, cond: NodeId, truth: bool, env: &Env) -> Option<Env> {
        if self.quiet > 0 {
            // Narrowing only at the top level keeps the analysis linear.
            return Some(env.clone());
        }
        self.quiet += 1;
        let r = self.narrow_inner(cond, truth, env);
        self.quiet -= 1;
        r
    }

    pub(super) fn narrow_inner(&mut self, cond: NodeId, truth: bool, env: &Env) -> Option<Env> {
        if self.budget == 0 || self.narrow_depth >= NARROW_DEPTH {
            return Some(env.clone());
        }
        self.budget -= 1;
        self.narrow_depth += 1;
        let r = self.narrow_step(cond, truth, env);
        self.narrow_depth -= 1;
        r
    }

    fn narrow_step(&mut self, cond: NodeId, truth: bool, env: &Env) -> Option<Env> {
        if self.non_finite[cond.index()] {
            // A NaN's truth is not its interval's: no narrowing.
            return Some(env.clone());
        }
        let ic = self.eval(cond, env)?;
        if truth && !ic.can_be_truthy() || !truth && !ic.can_be_zero() {
            return None;
        }
        let expr = self.ir.node(cond).expr.clone();
        match expr {
            Expr::Input(k) => {
                let mut e = env.clone();
                let v = e[k as usize];
                e[k as usize] = if truth {
                    self.no_tiny(k as usize, v.without_zero()?)
                } else {
                    v.meet(Interval::point(0.0))?
                };
                Some(e)
            }
            Expr::Unary(UnaryOp::Not, a) => self.narrow_inner(a, !truth, env),
            Expr::And(a, b) if truth => {
                let e = self.narrow_inner(a, true, env)?;
                self.narrow_inner(b, true, &e)
            }
            Expr::Or(a, b) if !truth => {
                let e = self.narrow_inner(a, false, env)?;
                self.narrow_inner(b, false, &e)
            }
            Expr::And(a, b) => {
                // false: a false, or a true and b false
                let e1 = self.narrow_inner(a, false, env);
                let e2 = self
                    .narrow_inner(a, true, env)
                    .and_then(|e| self.narrow_inner(b, false, &e));
                env_hull(e1, e2)
            }
            Expr::Or(a, b) => {
                let e1 = self.narrow_inner(a, true, env);
                let e2 = self
                    .narrow_inner(a, false, env)
                    .and_then(|e| self.narrow_inner(b, true, &e));
                env_hull(e1, e2)
            }
            Expr::Compare { first, rest } => {
                if truth {
                    let mut e = env.clone();
                    let mut lhs = first;
                    for (op, rhs) in rest {
                        e = self.narrow_link(lhs, op, rhs, &e)?;
                        lhs = rhs;
                    }
                    Some(e)
                } else if rest.len() == 1 {
                    let (op, rhs) = rest[0];
                    self.narrow_link(first, negate(op), rhs, env)
                } else {
                    Some(env.clone())
                }
            }
            _ => Some(env.clone()),
        }
    }

    /// Narrow `a op b` (true) on whichever side is an input.
    pub(super) fn narrow_link(
        &mut self,
        a: NodeId,
        op: CmpOp,
        b: NodeId,
        env: &Env,
    ) -> Option<Env> {
        let ia = self.eval(a, env)?;
        let ib = self.eval(b, env)?;
        let mut e = env.clone();
        if let Expr::Input(k) = self.ir.node(a).expr {
            e[k as usize] = self.no_tiny(k as usize, constrain(e[k as usize], op, ib)?);
        }
        if let Expr::Input(k) = self.ir.node(b).expr {
            e[k as usize] = self.no_tiny(k as usize, constrain(e[k as usize], flip(op), ia)?);
        }
        Some(e)
    }
}

pub(super) fn env_hull(a: Option<Env>, b: Option<Env>) -> Option<Env> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.iter().zip(&b).map(|(x, y)| x.hull(*y)).collect()),
        (a, None) => a,
        (None, b) => b,
    }
}

/// `x op other` holds: the values of `x` that allow it.
pub(super) fn constrain(x: Interval, op: CmpOp, other: Interval) -> Option<Interval> {
    let above = |v: f64| if x.int { v.floor() + 1.0 } else { next_up(v) };
    let below = |v: f64| if x.int { v.ceil() - 1.0 } else { next_down(v) };
    let r = match op {
        CmpOp::Gt => Interval::new(above(other.lo), INF),
        CmpOp::Ge => Interval::new(other.lo, INF),
        CmpOp::Lt => Interval::new(-INF, below(other.hi)),
        CmpOp::Le => Interval::new(-INF, other.hi),
        CmpOp::Eq => other,
        CmpOp::Ne => {
            if other.is_point() {
                let p = other.lo;
                let mut y = x;
                if y.lo == p {
                    y.lo = above(p);
                }
                if y.hi == p {
                    y.hi = below(p);
                }
                return (y.lo <= y.hi).then_some(y);
            }
            return Some(x);
        }
    };
    x.meet(r.int(false))
}

pub(super) fn negate(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Ge,
        CmpOp::Le => CmpOp::Gt,
        CmpOp::Gt => CmpOp::Le,
        CmpOp::Ge => CmpOp::Lt,
        CmpOp::Eq => CmpOp::Ne,
        CmpOp::Ne => CmpOp::Eq,
    }
}

/// `a op b` ⇔ `b flip(op) a`.
pub(super) fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        CmpOp::Eq => CmpOp::Eq,
        CmpOp::Ne => CmpOp::Ne,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constrain_integral_and_float() {
        let ncpus = Interval::new(0.0, INF).int(true);
        let r = constrain(ncpus, CmpOp::Gt, Interval::point(0.0)).unwrap();
        assert_eq!((r.lo, r.hi), (1.0, INF));
        let perc = Interval::new(0.0, 1.0);
        let r = constrain(perc, CmpOp::Gt, Interval::point(0.0)).unwrap();
        assert!(r.lo > 0.0 && r.lo < 1e-300);
        assert!(constrain(ncpus, CmpOp::Lt, Interval::point(0.0)).is_none());
    }
}
