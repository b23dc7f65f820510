//! Monotonicity in `eligible_time`: an IR proof that a formula's value never decreases as a
//! job waits, the other inputs fixed (the simulator's strict-ordering head path rests on it,
//! see `sim::scheduler::heads`).
//!
//! Why it is exact, bit for bit. [`analyze`] accepts only formulas in which every node that
//! depends on `eligible_time` is `eligible_time` itself, `+`/`-`/unary `-` of such nodes (with
//! matching directions) and of anything that does not depend on it, `*` or `/` by a
//! sign-definite factor that does not depend on it, or `min`/`max` of such nodes; every IEEE
//! operation involved is monotone (rounding to nearest is monotone), so the computed value is
//! monotone in `eligible_time` as long as no NaN or infinity appears. A caller that evaluates
//! both ends of a range of `eligible_time` (largest and smallest) and sees both finite knows,
//! with no `min`/`max`, that no value in between is non-finite (an infinity or NaN on the way
//! would reach the ends too). `min`/`max` can hide an infinity, so under one every operand
//! must have a finite magnitude bound (`eligible_time` at most the given span, other inputs
//! at most their largest magnitude, literals), below 10^300: no overflow at all
//! ([`Analysis::never_errs`]).

use crate::formula::ir::{Expr, Func, Ir, NodeId};

use crate::formula::syntax::{BinaryOp, UnaryOp};

/// How a node's value moves when `eligible_time` grows (the other inputs fixed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Does not depend on `eligible_time`.
    Constant,
    /// Non-decreasing.
    Up,
    /// Non-increasing.
    Down,
}

impl Direction {
    fn flip(self) -> Direction {
        match self {
            Direction::Up => Direction::Down,
            Direction::Down => Direction::Up,
            Direction::Constant => Direction::Constant,
        }
    }
    /// Direction of a sum of two terms, `None` when they pull apart.
    fn plus(self, other: Direction) -> Option<Direction> {
        match (self, other) {
            (a, Direction::Constant) => Some(a),
            (Direction::Constant, b) => Some(b),
            (a, b) if a == b => Some(a),
            _ => None,
        }
    }
}

/// What is known about each formula input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InputKind {
    /// `eligible_time`: between 0 and the given bound.
    EligibleTime { max: f64 },
    /// Fixed per job or per entity, with the range of values it takes in this simulation.
    Fixed { min: f64, max: f64 },
}

/// Sign of a value that does not depend on `eligible_time`, over every job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sign {
    NonNeg,
    NonPos,
    Unknown,
}

/// Analysis result of one node.
#[derive(Debug, Clone, Copy)]
struct Fact {
    dir: Direction,
    sign: Sign,
    /// Upper bound of `|value|` over every job and time (`None`: not bounded).
    bound: Option<f64>,
}

/// Magnitudes at or above this could overflow on the way (see the module docs).
const SAFE_BOUND: f64 = 1e300;

/// What [`analyze`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Analysis {
    /// Non-decreasing in `eligible_time` (or independent of it), in the sense of the module
    /// docs: group heads decide strict ordering.
    pub monotone: bool,
    /// No evaluation can err: only `+ - * min max`, unary `-`, division by non-zero
    /// literals, and every value bounded below 10^300. The group tails need no check.
    pub never_errs: bool,
}

/// Analyse `ir` given what each input is (`inputs[k]` for `Expr::Input(k)`).
pub fn analyze(ir: &Ir, inputs: &[InputKind]) -> Analysis {
    let mut facts: Vec<Option<Fact>> = Vec::with_capacity(ir.nodes.len());
    for i in 0..ir.nodes.len() {
        let f = fact(ir, NodeId(i as u32), &facts, inputs);
        facts.push(f);
    }
    let root = facts.get(ir.root.0 as usize).copied().flatten();
    let monotone = matches!(
        root,
        Some(Fact {
            dir: Direction::Up | Direction::Constant,
            ..
        })
    );
    Analysis {
        monotone,
        never_errs: monotone && root.and_then(|f| f.bound).is_some_and(|b| b < SAFE_BOUND),
    }
}

fn fact(ir: &Ir, id: NodeId, facts: &[Option<Fact>], inputs: &[InputKind]) -> Option<Fact> {
    let node = ir.node(id);
    let get = |c: NodeId| facts.get(c.0 as usize).copied().flatten();
    let constant = |sign: Sign, bound: Option<f64>| Fact {
        dir: Direction::Constant,
        sign,
        bound,
    };
    // Anything that does not depend on `eligible_time` is accepted, whatever it computes.
    let children = crate::formula::ir::expr_children(&node.expr);
    let child_facts: Option<Vec<Fact>> = children.iter().map(|&c| get(c)).collect();
    let independent = child_facts
        .as_ref()
        .is_some_and(|fs| fs.iter().all(|f| f.dir == Direction::Constant));
    match &node.expr {
        Expr::Const(c) => {
            return Some(constant(range_sign(*c, *c), c.is_finite().then(|| c.abs())));
        }
        Expr::Input(k) => {
            return Some(match inputs.get(*k as usize)? {
                InputKind::EligibleTime { max } => Fact {
                    dir: Direction::Up,
                    sign: Sign::NonNeg,
                    bound: Some(*max),
                },
                InputKind::Fixed { min, max } => {
                    let bound =
                        (min.is_finite() && max.is_finite()).then(|| min.abs().max(max.abs()));
                    constant(range_sign(*min, *max), bound)
                }
            });
        }
        _ => {}
    }
    let fs = child_facts?;
    let add = |a: Option<f64>, b: Option<f64>| Some(a? + b?);
    match &node.expr {
        Expr::Unary(UnaryOp::Neg, _) => Some(Fact {
            dir: fs[0].dir.flip(),
            sign: match fs[0].sign {
                Sign::NonNeg => Sign::NonPos,
                Sign::NonPos => Sign::NonNeg,
                Sign::Unknown => Sign::Unknown,
            },
            bound: fs[0].bound,
        }),
        Expr::Unary(UnaryOp::Pos, _) => Some(fs[0]),
        Expr::Binary(op @ (BinaryOp::Add | BinaryOp::Sub), _, _) => {
            let (a, b) = (fs[0], fs[1]);
            let (bdir, bsign) = if *op == BinaryOp::Sub {
                (b.dir.flip(), flip_sign(b.sign))
            } else {
                (b.dir, b.sign)
            };
            let sign = if a.sign == bsign {
                a.sign
            } else {
                Sign::Unknown
            };
            let dir = a.dir.plus(bdir);
            if dir.is_none() && !independent {
                return None;
            }
            Some(Fact {
                dir: dir.unwrap_or(Direction::Constant),
                sign,
                bound: add(a.bound, b.bound),
            })
        }
        Expr::Binary(op @ (BinaryOp::Mul | BinaryOp::Div), _, _) => {
            let (a, b) = (fs[0], fs[1]);
            let sign = match (a.sign, b.sign) {
                (Sign::Unknown, _) | (_, Sign::Unknown) => Sign::Unknown,
                (x, y) if x == y => Sign::NonNeg,
                _ => Sign::NonPos,
            };
            let bound = match op {
                BinaryOp::Mul => a.bound.zip(b.bound).map(|(x, y)| x * y),
                // A divisor's magnitude has no useful lower bound in general: only literals.
                _ => match ir.node(children[1]).expr {
                    Expr::Const(c) if c != 0.0 && c.is_finite() => a.bound.map(|x| x / c.abs()),
                    _ => None,
                },
            };
            if independent {
                return Some(constant(sign, bound));
            }
            // One side depends on eligible_time; the other must not, with a known sign
            // (and a divisor must be the independent side).
            let (dep, factor) = match (a.dir, b.dir) {
                (_, Direction::Constant) => (a, b),
                (Direction::Constant, _) if *op == BinaryOp::Mul => (b, a),
                _ => return None,
            };
            let dir = match factor.sign {
                Sign::NonNeg => dep.dir,
                Sign::NonPos => dep.dir.flip(),
                Sign::Unknown => return None,
            };
            Some(Fact { dir, sign, bound })
        }
        Expr::Call(Func::Min | Func::Max, _) if !independent => {
            let mut dir = Direction::Constant;
            let mut bound = 0.0f64;
            for f in &fs {
                dir = dir.plus(f.dir)?;
                let b = f.bound.filter(|b| *b < SAFE_BOUND)?;
                bound = bound.max(b);
            }
            let sign = if fs.iter().all(|f| f.sign == Sign::NonNeg) {
                Sign::NonNeg
            } else if fs.iter().all(|f| f.sign == Sign::NonPos) {
                Sign::NonPos
            } else {
                Sign::Unknown
            };
            Some(Fact {
                dir,
                sign,
                bound: Some(bound),
            })
        }
        _ if independent => Some(constant(independent_sign(&node.expr, &fs), None)),
        _ => None,
    }
}

/// Sign of every value in `[min, max]` (`Unknown` when the range straddles 0, or for NaN).
fn range_sign(min: f64, max: f64) -> Sign {
    if min >= 0.0 {
        Sign::NonNeg
    } else if max <= 0.0 {
        Sign::NonPos
    } else {
        Sign::Unknown
    }
}

fn flip_sign(s: Sign) -> Sign {
    match s {
        Sign::NonNeg => Sign::NonPos,
        Sign::NonPos => Sign::NonNeg,
        Sign::Unknown => Sign::Unknown,
    }
}

/// Sign of a function of independent values, where it is plain (`pow` of a non-negative
/// base, `exp`, `sqrt`, `abs`, ...); a multiplier of `eligible_time` needs a known sign.
fn independent_sign(e: &Expr, fs: &[Fact]) -> Sign {
    match e {
        Expr::Call(Func::Exp | Func::Abs | Func::Fabs | Func::Sqrt, _) => Sign::NonNeg,
        Expr::Call(Func::Pow, _) | Expr::Binary(BinaryOp::Pow, _, _)
            if fs.first().is_some_and(|f| f.sign == Sign::NonNeg) =>
        {
            Sign::NonNeg
        }
        Expr::Call(Func::Min | Func::Max | Func::Floor | Func::Ceil | Func::Trunc, _)
            if !fs.is_empty() && fs.iter().all(|f| f.sign == fs[0].sign) =>
        {
            fs[0].sign
        }
        _ => Sign::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::formula::Formula;

    /// Analyse `src`, `fixed` giving the range of each input but `eligible_time` (up to 1e9 s).
    fn analysis(src: &str, fixed: impl Fn(&str) -> (f64, f64)) -> Analysis {
        let f = Formula::compile(src, &Catalog::pbs()).unwrap();
        let kinds: Vec<InputKind> = f
            .inputs()
            .iter()
            .map(|n| match n.column() {
                "eligible_time" => InputKind::EligibleTime { max: 1e9 },
                other => {
                    let (min, max) = fixed(other);
                    InputKind::Fixed { min, max }
                }
            })
            .collect();
        analyze(f.ir(), &kinds)
    }

    fn accepts(src: &str) -> bool {
        analysis(src, |name| match name {
            "fairshare_factor" | "fairshare_perc" | "fairshare_tree_usage" => (0.0, 1.0),
            "queue_priority" => (-5.0, 5.0),
            _ => (1.0, 1e6),
        })
        .monotone
    }

    fn never_errs(src: &str) -> bool {
        analysis(src, |_| (0.0, 1.0)).never_errs
    }

    #[test]
    fn error_free_formulas_are_recognised() {
        assert!(never_errs("fairshare_factor * 1000 + eligible_time / 3600"));
        assert!(never_errs("min(eligible_time, 86400) * 2 - ncpus"));
        assert!(!never_errs("eligible_time / ncpus"));
        assert!(!never_errs("eligible_time * 1e300"));
        assert!(!never_errs("pow(2, -fairshare_tree_usage) + eligible_time"));
    }

    #[test]
    fn monotone_formulas_are_accepted() {
        for src in [
            "eligible_time",
            "-walltime",
            "ncpus",
            "fairshare_factor * 1000 + eligible_time / 3600",
            "pow(2, -(fairshare_tree_usage/fairshare_perc)) * 1000 + ncpus * 0.5 + eligible_time/3600",
            "eligible_time * fairshare_factor - walltime / 60",
            "min(eligible_time, 86400) / 3600 + fairshare_factor",
            "max(eligible_time / 60, ncpus) * 2",
            "-(-eligible_time) + ncpus",
            "eligible_time / ncpus",
            "1 if ncpus > 4 else 0",
        ] {
            assert!(accepts(src), "{src}");
        }
    }

    #[test]
    fn other_formulas_are_refused() {
        for src in [
            "-eligible_time",
            "walltime - eligible_time",
            "eligible_time - eligible_time / 2",
            "eligible_time * queue_priority",
            "ncpus / eligible_time",
            "eligible_time ** 2",
            "sqrt(eligible_time)",
            "eligible_time if ncpus > 4 else 0",
            "eligible_time > 100",
            "min(eligible_time, pow(2, ncpus))",
            "eligible_time % 3600",
        ] {
            assert!(!accepts(src), "{src}");
        }
    }
}
