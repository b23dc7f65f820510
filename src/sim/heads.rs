//! Strict ordering without evaluating the whole queue.
//!
//! Under `--policy strict` a round starts jobs only while the top-ranked job fits, so all it
//! needs is the top job, again and again. When the formula is *non-decreasing in
//! `eligible_time`* and every other input is fixed per job (a resource) or per entity (a
//! fairshare keyword), the queued jobs fall into groups that share every input but
//! `eligible_time` (same entity, same resources). Within a group the earliest-submitted job
//! has the largest `eligible_time`, hence a value at least as large as every later one, and it
//! wins ties by submission order: so the top job of the whole queue is the top among the
//! group *heads*, and a round evaluates the heads (and tails, see below) instead of every job.
//!
//! Why it is exact, bit for bit. [`analyze`] accepts only formulas in which every node that
//! depends on `eligible_time` is `eligible_time` itself, `+`/`-`/unary `-` of such nodes (with
//! matching directions) and of anything that does not depend on it, `*` or `/` by a
//! sign-definite factor that does not depend on it, or `min`/`max` of such nodes; every IEEE
//! operation involved is monotone (rounding to nearest is monotone), so the computed value is
//! monotone in `eligible_time` as long as no NaN or infinity appears. Each round evaluates
//! both ends of every group (head: largest `eligible_time`; tail: smallest); if either errs
//! (a non-finite final value, a zero divisor, ...) the round falls back to evaluating the
//! whole queue. With both ends finite and no `min`/`max`, no member in between can be
//! non-finite (an infinity or NaN on the way would reach the ends too). `min`/`max` can hide
//! an infinity, so under one every operand must have a finite magnitude bound
//! (`eligible_time` at most the simulation's span, fairshare keywords at most 1, resources
//! at most their largest value in the workload, literals), below 10^300: no overflow at all.
//!
//! Debug and test builds check every round decided this way against the full ranking.

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
    use crate::{Catalog, Formula};

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

/// Queued jobs in groups that share every formula input but `eligible_time`, each group a
/// FIFO in submit order (its head is the earliest-submitted queued job).
#[derive(Debug, Clone)]
pub struct Groups {
    group_of: Vec<u32>,
    fifo: Vec<std::collections::VecDeque<u32>>,
    /// Each non-empty group's head (`fifo[g][0]`, kept at hand).
    head_of: Vec<u32>,
    queued: Vec<bool>,
    /// Groups with queued jobs, and each group's position in that list.
    nonempty: Vec<u32>,
    slot: Vec<u32>,
    /// Evaluate each group's tail as well as its head every round (off when the formula
    /// provably never errs).
    pub check_tails: bool,
}

const ABSENT: u32 = u32::MAX;

impl Groups {
    /// `group_of[j]`: job `j`'s group, numbered from 0.
    pub fn new(group_of: Vec<u32>) -> Groups {
        let n = group_of.iter().map(|&g| g as usize + 1).max().unwrap_or(0);
        let jobs = group_of.len();
        Groups {
            group_of,
            fifo: vec![Default::default(); n],
            head_of: vec![ABSENT; n],
            queued: vec![false; jobs],
            nonempty: Vec::new(),
            slot: vec![ABSENT; n],
            check_tails: true,
        }
    }

    /// Group ids from per-job keys: jobs with equal keys share a group.
    pub fn from_keys<K: std::hash::Hash + Eq>(keys: impl Iterator<Item = K>) -> Groups {
        let mut ids: std::collections::HashMap<K, u32> = Default::default();
        let group_of = keys
            .map(|k| {
                let next = ids.len() as u32;
                *ids.entry(k).or_insert(next)
            })
            .collect();
        Groups::new(group_of)
    }

    /// Queue job `j` (jobs arrive in submit order).
    pub fn push(&mut self, j: u32) {
        let g = self.group_of[j as usize];
        self.queued[j as usize] = true;
        let q = &mut self.fifo[g as usize];
        q.push_back(j);
        if q.len() == 1 {
            self.head_of[g as usize] = j;
            self.slot[g as usize] = self.nonempty.len() as u32;
            self.nonempty.push(g);
        }
    }

    /// Job `j` left the queue (a no-op when it is not queued).
    pub fn remove(&mut self, j: u32) {
        if !std::mem::replace(&mut self.queued[j as usize], false) {
            return;
        }
        let g = self.group_of[j as usize];
        let q = &mut self.fifo[g as usize];
        if q.front() == Some(&j) {
            q.pop_front();
            self.head_of[g as usize] = q.front().copied().unwrap_or(ABSENT);
        } else if let Some(p) = q.iter().position(|&x| x == j) {
            q.remove(p);
        }
        if q.is_empty() {
            let s = std::mem::replace(&mut self.slot[g as usize], ABSENT) as usize;
            self.nonempty.swap_remove(s);
            if let Some(&moved) = self.nonempty.get(s) {
                self.slot[moved as usize] = s as u32;
            }
        }
    }

    /// Groups with queued jobs (in no particular order).
    pub fn nonempty(&self) -> &[u32] {
        &self.nonempty
    }

    /// The earliest-submitted queued job of a non-empty group.
    pub fn head(&self, g: u32) -> u32 {
        self.head_of[g as usize]
    }

    /// The latest-submitted queued job of a non-empty group.
    pub fn tail(&self, g: u32) -> u32 {
        let q = &self.fifo[g as usize];
        q[q.len() - 1]
    }

    /// Whether group `g` has queued jobs.
    pub fn is_queued(&self, g: u32) -> bool {
        self.slot[g as usize] != ABSENT
    }

    /// Number of groups.
    pub fn count(&self) -> usize {
        self.fifo.len()
    }

    /// Job `j`'s group.
    pub fn group_of(&self, j: u32) -> u32 {
        self.group_of[j as usize]
    }
}
