//! The shared optimiser: bit-exact rewrites of the [`Ir`] before any backend sees it.
//!
//! One forward pass over the arena (children come before parents) rebuilds the IR with:
//! - **constant folding**: a node whose operands are all constants is evaluated with the
//!   reference evaluator's own code ([`interp::eval_node`]), so a folded value is exactly the
//!   value the node would have at run time. A node whose evaluation *errs* is kept, so the
//!   error still happens for every job that reaches it;
//! - **dead branches of constant conditions**: `c and x`, `c or x`, `a if c else b` with a
//!   constant `c` become the operand Python would return; a comparison chain whose leading
//!   links are constant is shortened (or decided);
//! - **common subexpressions** (hash-consing): structurally equal nodes are built once. Every
//!   operation is a pure function of its operands, so sharing never changes a value or an
//!   error; backends must only evaluate a shared node where the reference evaluator would;
//! - a few **algebraic identities that are exact in IEEE arithmetic** for every input,
//!   including ±0, ±inf and NaN: `x * 1 → x`, `1 * x → x`, `x / 1 → x`, `x - 0 → x`,
//!   `x + (-0) → x`, `-(-x) → x`, `+x → x` (only where the node keeps its type), and
//!   `x / 2^k → x * 2^-k` (a power-of-two divisor with a normal reciprocal: both are the
//!   correctly rounded value of the same real number, and multiplication is cheaper).
//!
//! Not done, because they are not bit-exact against the reference semantics: `pow(x, 0.5) →
//! sqrt(x)` (glibc's `pow` is not correctly rounded), `x ** 2 → x * x` (Python raises
//! `OverflowError` where `x * x` is infinite, and `pow` may round differently), `x + 0 → x`
//! (`-0.0 + 0.0` is `+0.0`), `x * 0 → 0` (NaN, infinities and the sign of zero).
//!
//! Finally only the nodes reachable from the root are kept.

use std::collections::HashMap;

use super::interp;
use super::ir::{Expr, Ir, Node, NodeId, Ty, expr_children};
use super::pymath::truthy;
use super::syntax::{BinaryOp, CmpOp, UnaryOp};

/// Optimise `ir`; the result has exactly the values and errors of `ir` for every job.
pub fn optimize(ir: &Ir) -> Ir {
    let mut b = Builder {
        out: Ir {
            nodes: Vec::with_capacity(ir.nodes.len()),
            root: NodeId(0),
            inputs: ir.inputs.clone(),
        },
        consed: HashMap::new(),
    };
    let mut map: Vec<NodeId> = Vec::with_capacity(ir.nodes.len());
    for node in &ir.nodes {
        let expr = node.expr.map_children(|id| map[id.index()]);
        let id = b.simplify(expr, node.ty, node);
        map.push(id);
    }
    b.out.root = map[ir.root.index()];
    compact(&b.out)
}

struct Builder {
    out: Ir,
    consed: HashMap<Key, NodeId>,
}

/// A hashable image of a node (floats by their bits).
#[derive(Hash, PartialEq, Eq)]
struct Key {
    tag: u8,
    ty: bool,
    words: Vec<u64>,
}

fn key(expr: &Expr, ty: Ty) -> Key {
    let mut words = Vec::new();
    let tag = match expr {
        Expr::Const(c) => {
            words.push(c.to_bits());
            0
        }
        Expr::Input(k) => {
            words.push(u64::from(*k));
            1
        }
        Expr::Unary(op, a) => {
            words.extend([*op as u64, u64::from(a.0)]);
            2
        }
        Expr::Binary(op, a, b) => {
            words.extend([*op as u64, u64::from(a.0), u64::from(b.0)]);
            3
        }
        Expr::Compare { first, rest } => {
            words.push(u64::from(first.0));
            for (op, n) in rest {
                words.extend([*op as u64, u64::from(n.0)]);
            }
            4
        }
        Expr::And(a, b) => {
            words.extend([u64::from(a.0), u64::from(b.0)]);
            5
        }
        Expr::Or(a, b) => {
            words.extend([u64::from(a.0), u64::from(b.0)]);
            6
        }
        Expr::IfElse {
            cond,
            then,
            otherwise,
        } => {
            words.extend([u64::from(cond.0), u64::from(then.0), u64::from(otherwise.0)]);
            7
        }
        Expr::Call(f, args) => {
            words.push(*f as u64);
            words.extend(args.iter().map(|a| u64::from(a.0)));
            8
        }
    };
    Key {
        tag,
        ty: ty == Ty::Bool,
        words,
    }
}

impl Builder {
    fn node(&self, id: NodeId) -> &Node {
        self.out.node(id)
    }

    fn constant(&self, id: NodeId) -> Option<f64> {
        match self.node(id).expr {
            Expr::Const(c) => Some(c),
            _ => None,
        }
    }

    /// Add `expr` (hash-consed).
    fn intern(&mut self, expr: Expr, ty: Ty, src: &Node) -> NodeId {
        let k = key(&expr, ty);
        if let Some(&id) = self.consed.get(&k) {
            return id;
        }
        let id = self.out.push(expr, ty, src.span);
        self.consed.insert(k, id);
        id
    }

    /// `id` stands for a node of type `ty`: reuse it if it has that type, else (for a
    /// constant) a constant of that type, else `None`.
    fn alias(&mut self, id: NodeId, ty: Ty, src: &Node) -> Option<NodeId> {
        if self.node(id).ty == ty {
            return Some(id);
        }
        let c = self.constant(id)?;
        Some(self.intern(Expr::Const(c), ty, src))
    }

    fn simplify(&mut self, expr: Expr, ty: Ty, src: &Node) -> NodeId {
        if let Some(id) = self.rewrite(&expr, ty, src) {
            return id;
        }
        let all_const = expr_children(&expr)
            .iter()
            .all(|c| self.constant(*c).is_some());
        let is_leaf = matches!(expr, Expr::Const(_) | Expr::Input(_));
        if all_const && !is_leaf {
            // Fold exactly as the evaluator computes; keep an erring node.
            let probe = self.out.push(expr.clone(), ty, src.span);
            let folded = interp::eval_node(&self.out, probe, &[]);
            self.out.nodes.pop();
            if let Ok(v) = folded {
                return self.intern(Expr::Const(v), ty, src);
            }
        }
        self.intern(expr, ty, src)
    }

    /// Dead branches and exact identities; `None` when nothing applies.
    fn rewrite(&mut self, expr: &Expr, ty: Ty, src: &Node) -> Option<NodeId> {
        match expr {
            Expr::And(a, b) => {
                let c = self.constant(*a)?;
                let pick = if truthy(c) { *b } else { *a };
                self.alias(pick, ty, src)
            }
            Expr::Or(a, b) => {
                let c = self.constant(*a)?;
                let pick = if truthy(c) { *a } else { *b };
                self.alias(pick, ty, src)
            }
            Expr::IfElse {
                cond,
                then,
                otherwise,
            } => {
                let c = self.constant(*cond)?;
                let pick = if truthy(c) { *then } else { *otherwise };
                self.alias(pick, ty, src)
            }
            Expr::Compare { first, rest } => self.shorten_chain(*first, rest, ty, src),
            Expr::Unary(UnaryOp::Pos, a) => self.alias(*a, ty, src),
            Expr::Unary(UnaryOp::Neg, a) => match self.node(*a).expr {
                Expr::Unary(UnaryOp::Neg, inner) => self.alias(inner, ty, src),
                _ => None,
            },
            Expr::Binary(op, a, b) => {
                let (ca, cb) = (self.constant(*a), self.constant(*b));
                let is = |c: Option<f64>, v: f64| c.is_some_and(|c| c.to_bits() == v.to_bits());
                match op {
                    BinaryOp::Mul if is(cb, 1.0) => self.alias(*a, ty, src),
                    BinaryOp::Mul if is(ca, 1.0) => self.alias(*b, ty, src),
                    BinaryOp::Div if is(cb, 1.0) => self.alias(*a, ty, src),
                    BinaryOp::Sub if is(cb, 0.0) => self.alias(*a, ty, src),
                    BinaryOp::Add if is(cb, -0.0) => self.alias(*a, ty, src),
                    BinaryOp::Div => {
                        let r = cb.and_then(exact_reciprocal)?;
                        let r = self.intern(Expr::Const(r), Ty::Num, src);
                        Some(self.intern(Expr::Binary(BinaryOp::Mul, *a, r), ty, src))
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `c0 op c1 op x ...`: decide or drop leading links between constants.
    fn shorten_chain(
        &mut self,
        first: NodeId,
        rest: &[(CmpOp, NodeId)],
        ty: Ty,
        src: &Node,
    ) -> Option<NodeId> {
        let mut first = first;
        let mut k = 0;
        while k < rest.len() {
            let (Some(a), Some(b)) = (self.constant(first), self.constant(rest[k].1)) else {
                break;
            };
            if !interp::compare(rest[k].0, a, b) {
                return Some(self.intern(Expr::Const(0.0), ty, src));
            }
            first = rest[k].1;
            k += 1;
        }
        if k == 0 {
            return None;
        }
        if k == rest.len() {
            return Some(self.intern(Expr::Const(1.0), ty, src));
        }
        let expr = Expr::Compare {
            first,
            rest: rest[k..].to_vec(),
        };
        Some(self.intern(expr, ty, src))
    }
}

/// `1/c` when `c` is a power of two whose reciprocal is a normal number: then `x / c` and
/// `x * (1/c)` are the correctly rounded results of the same real number for every `x`
/// (including subnormal results, infinities, NaN and signed zeros), so they are bit-identical,
/// and no zero check is needed.
fn exact_reciprocal(c: f64) -> Option<f64> {
    let bits = c.to_bits();
    let exponent = (bits >> 52) & 0x7ff;
    let mantissa = bits & ((1u64 << 52) - 1);
    (mantissa == 0 && (1..=2045).contains(&exponent)).then(|| 1.0 / c)
}

/// Keep only the nodes reachable from the root (order preserved, so children still come first).
fn compact(ir: &Ir) -> Ir {
    let mut live = vec![false; ir.nodes.len()];
    live[ir.root.index()] = true;
    for i in (0..ir.nodes.len()).rev() {
        if live[i] {
            for c in expr_children(&ir.nodes[i].expr) {
                live[c.index()] = true;
            }
        }
    }
    let mut map = vec![NodeId(u32::MAX); ir.nodes.len()];
    let mut out = Ir {
        nodes: Vec::new(),
        root: NodeId(0),
        inputs: ir.inputs.clone(),
    };
    for (i, node) in ir.nodes.iter().enumerate() {
        if !live[i] {
            continue;
        }
        let expr = node.expr.map_children(|id| map[id.index()]);
        map[i] = out.push(expr, node.ty, node.span);
    }
    out.root = map[ir.root.index()];
    out
}
