//! The typed intermediate representation shared by the checker, the optimiser and every backend.
//!
//! An [`Ir`] is plain data: an arena of [`Node`]s in which every child comes before its parent
//! (so a forward walk is a valid evaluation order for straight-line code), the root node, and
//! the resolved [`Input`]s (job columns) the formula reads. Every node keeps its type and the byte span
//! of the source text it came from, so diagnostics and run-time errors can point at it.
//!
//! Architecture invariant: the IR has exactly the run-time semantics of the reference evaluator
//! ([`crate::formula::interp`]); a backend or rewrite that disagrees with it on any bit of any
//! value or error flag is wrong.

use std::fmt;

use super::syntax::{BinaryOp, CmpOp, Link, Span, UnaryOp};
use crate::catalog::Input;

/// The two value types of the language (SPEC §1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A 64-bit float.
    Num,
    /// A Python bool; arithmetic sees it as 0 or 1.
    Bool,
}

/// Index of a node in [`Ir::nodes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Built-in functions: Python's `math` module and a few builtins, all over floats.
///
/// Where Python returns an `int` (`floor`, `ceil`, `trunc`, one-argument `round`), jobsort
/// returns the same value as a float; the conversion errors Python raises (infinity or NaN to
/// integer) are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Func {
    Abs,
    Fabs,
    Min,
    Max,
    /// `math.pow`
    Pow,
    Sqrt,
    Exp,
    /// `log(x)` or `log(x, base)`
    Log,
    Log10,
    Log2,
    Ceil,
    Floor,
    Trunc,
    /// `round(x)` (half to even) or `round(x, ndigits)`
    Round,
    Fmod,
    Copysign,
    Hypot,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Expm1,
    Log1p,
    Degrees,
    Radians,
}

/// How many arguments a function takes: `min..=max` (`max == None` means unbounded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arity {
    pub min: usize,
    pub max: Option<usize>,
}

impl Arity {
    pub fn accepts(self, n: usize) -> bool {
        n >= self.min && self.max.is_none_or(|m| n <= m)
    }
}

impl Func {
    /// Every function, in name order of [`Func::name`] (for suggestions and docs).
    pub const ALL: [Func; 31] = [
        Func::Abs,
        Func::Acos,
        Func::Asin,
        Func::Atan,
        Func::Atan2,
        Func::Ceil,
        Func::Copysign,
        Func::Cos,
        Func::Cosh,
        Func::Degrees,
        Func::Exp,
        Func::Expm1,
        Func::Fabs,
        Func::Floor,
        Func::Fmod,
        Func::Hypot,
        Func::Log,
        Func::Log10,
        Func::Log1p,
        Func::Log2,
        Func::Max,
        Func::Min,
        Func::Pow,
        Func::Radians,
        Func::Round,
        Func::Sin,
        Func::Sinh,
        Func::Sqrt,
        Func::Tan,
        Func::Tanh,
        Func::Trunc,
    ];

    /// The name a formula uses.
    pub fn name(self) -> &'static str {
        match self {
            Func::Abs => "abs",
            Func::Fabs => "fabs",
            Func::Min => "min",
            Func::Max => "max",
            Func::Pow => "pow",
            Func::Sqrt => "sqrt",
            Func::Exp => "exp",
            Func::Log => "log",
            Func::Log10 => "log10",
            Func::Log2 => "log2",
            Func::Ceil => "ceil",
            Func::Floor => "floor",
            Func::Trunc => "trunc",
            Func::Round => "round",
            Func::Fmod => "fmod",
            Func::Copysign => "copysign",
            Func::Hypot => "hypot",
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Tan => "tan",
            Func::Asin => "asin",
            Func::Acos => "acos",
            Func::Atan => "atan",
            Func::Atan2 => "atan2",
            Func::Sinh => "sinh",
            Func::Cosh => "cosh",
            Func::Tanh => "tanh",
            Func::Expm1 => "expm1",
            Func::Log1p => "log1p",
            Func::Degrees => "degrees",
            Func::Radians => "radians",
        }
    }

    pub fn from_name(name: &str) -> Option<Func> {
        Func::ALL.iter().copied().find(|f| f.name() == name)
    }

    pub fn arity(self) -> Arity {
        let exactly = |n| Arity {
            min: n,
            max: Some(n),
        };
        match self {
            Func::Min | Func::Max => Arity { min: 2, max: None },
            Func::Log | Func::Round => Arity {
                min: 1,
                max: Some(2),
            },
            Func::Hypot => Arity { min: 0, max: None },
            Func::Pow | Func::Fmod | Func::Copysign | Func::Atan2 => exactly(2),
            _ => exactly(1),
        }
    }
}

/// Named constants from `math` (`pi e tau inf`). They are folded to [`Expr::Const`] by sema;
/// this table is the single source of their values.
pub const CONSTANTS: [(&str, f64); 4] = [
    ("pi", std::f64::consts::PI),
    ("e", std::f64::consts::E),
    ("tau", std::f64::consts::TAU),
    ("inf", f64::INFINITY),
];

/// One IR operation. Children are [`NodeId`]s of earlier nodes.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// A literal (also `True`/`False` as 1/0 with type `Bool`, and the math constants).
    Const(f64),
    /// Column `i` of the job table: the value of [`Ir::inputs`]`[i]` for this job.
    Input(u32),
    Unary(UnaryOp, NodeId),
    Binary(BinaryOp, NodeId, NodeId),
    /// A comparison chain `first op0 x0 op1 x1 ...` evaluated as Python does: left to right,
    /// each operand at most once, stopping at the first false link. Type `Bool`.
    Compare {
        first: NodeId,
        rest: Vec<(CmpOp, NodeId)>,
    },
    /// `a and b`: `a` if `a` is falsy, else `b` (the right side is evaluated only if needed).
    And(NodeId, NodeId),
    /// `a or b`: `a` if `a` is truthy, else `b`.
    Or(NodeId, NodeId),
    /// `then if cond else otherwise`: only the taken side is evaluated.
    IfElse {
        cond: NodeId,
        then: NodeId,
        otherwise: NodeId,
    },
    Call(Func, Vec<NodeId>),
}

/// A typed IR node with its source span.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub expr: Expr,
    pub ty: Ty,
    pub span: Span,
}

/// A checked formula: the arena, its root and the columns it reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Ir {
    /// Children always precede their parents.
    pub nodes: Vec<Node>,
    pub root: NodeId,
    /// The values read from each job, indexed by [`Expr::Input`].
    pub inputs: Vec<Input>,
}

impl Ir {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// Append a node and return its id. Children must already be in the arena.
    pub fn push(&mut self, expr: Expr, ty: Ty, span: Span) -> NodeId {
        debug_assert!(
            expr_children(&expr)
                .iter()
                .all(|c| c.index() < self.nodes.len())
        );
        self.nodes.push(Node { expr, ty, span });
        NodeId((self.nodes.len() - 1) as u32)
    }

    /// The column index of `input`, adding it to [`Ir::inputs`] if new.
    pub fn input_index(&mut self, input: Input) -> u32 {
        match self.inputs.iter().position(|i| *i == input) {
            Some(i) => i as u32,
            None => {
                self.inputs.push(input);
                (self.inputs.len() - 1) as u32
            }
        }
    }
}

impl Expr {
    /// `(link, left, right)` when this is a chain node: a binary operator, `and` or `or`.
    pub fn link(&self) -> Option<(Link, NodeId, NodeId)> {
        match *self {
            Expr::Binary(op, a, b) => Some((Link::Binary(op), a, b)),
            Expr::And(a, b) => Some((Link::And, a, b)),
            Expr::Or(a, b) => Some((Link::Or, a, b)),
            _ => None,
        }
    }
}

/// How many chain nodes a [`Chain`] holds without allocating.
const CHAIN_INLINE: usize = 8;

/// The left spine of a chain of binary operators, `and` and `or`: `a + b - c * d` is
/// `(a + b) - (c * d)`, whose spine is `-`, then `+`, down to `a`. The recursive walks over the
/// IR (the evaluator, both code generators, the interval analysis) take the innermost left
/// operand, then each link's right operand, in a loop, so a chain of any length costs them one
/// level of recursion: they recurse only as deep as the formula is really nested.
pub struct Chain {
    /// The innermost left operand (not itself a chain node, or where the walk was told to
    /// stop).
    pub first: NodeId,
    len: usize,
    /// The links from the outermost inwards: the first [`CHAIN_INLINE`] here, the rest in
    /// `far`.
    near: [(NodeId, Link, NodeId); CHAIN_INLINE],
    far: Vec<(NodeId, Link, NodeId)>,
}

impl Chain {
    /// `(node, link, right operand)` from the innermost link outwards (evaluation order).
    pub fn outward(&self) -> impl Iterator<Item = (NodeId, Link, NodeId)> + '_ {
        let near = &self.near[..self.len.min(CHAIN_INLINE)];
        self.far.iter().rev().chain(near.iter().rev()).copied()
    }
}

impl Ir {
    /// The chain rooted at `id` (which must be a chain node to have links), descending through
    /// left operands that are chain nodes and for which `stop` is false.
    pub fn chain(&self, id: NodeId, stop: impl Fn(NodeId) -> bool) -> Chain {
        let mut chain = Chain {
            first: id,
            len: 0,
            near: [(id, Link::And, id); CHAIN_INLINE],
            far: Vec::new(),
        };
        let mut at = id;
        while let Some((link, left, right)) = self.node(at).expr.link() {
            if chain.len < CHAIN_INLINE {
                chain.near[chain.len] = (at, link, right);
            } else {
                chain.far.push((at, link, right));
            }
            chain.len += 1;
            at = left;
            if stop(at) {
                break;
            }
        }
        chain.first = at;
        chain
    }
}

impl Expr {
    /// The same operation with every child id replaced by `f(child)` (for passes that rebuild
    /// the arena).
    pub fn map_children(&self, mut f: impl FnMut(NodeId) -> NodeId) -> Expr {
        match self {
            Expr::Const(c) => Expr::Const(*c),
            Expr::Input(k) => Expr::Input(*k),
            Expr::Unary(op, a) => Expr::Unary(*op, f(*a)),
            Expr::Binary(op, a, b) => Expr::Binary(*op, f(*a), f(*b)),
            Expr::Compare { first, rest } => Expr::Compare {
                first: f(*first),
                rest: rest.iter().map(|(op, n)| (*op, f(*n))).collect(),
            },
            Expr::And(a, b) => Expr::And(f(*a), f(*b)),
            Expr::Or(a, b) => Expr::Or(f(*a), f(*b)),
            Expr::IfElse {
                cond,
                then,
                otherwise,
            } => Expr::IfElse {
                cond: f(*cond),
                then: f(*then),
                otherwise: f(*otherwise),
            },
            Expr::Call(func, args) => Expr::Call(*func, args.iter().map(|a| f(*a)).collect()),
        }
    }
}

/// The direct children of an expression, in evaluation order.
pub fn expr_children(expr: &Expr) -> Vec<NodeId> {
    match expr {
        Expr::Const(_) | Expr::Input(_) => vec![],
        Expr::Unary(_, a) => vec![*a],
        Expr::Binary(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => vec![*a, *b],
        Expr::Compare { first, rest } => std::iter::once(*first)
            .chain(rest.iter().map(|(_, n)| *n))
            .collect(),
        Expr::IfElse {
            cond,
            then,
            otherwise,
        } => vec![*cond, *then, *otherwise],
        Expr::Call(_, args) => args.clone(),
    }
}

/// A text dump, one node per line (`%3 = add %1, %2 : num`), for snapshot tests and `--dump-ir`.
impl fmt::Display for Ir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, input) in self.inputs.iter().enumerate() {
            writeln!(f, "input {i} = {input}")?;
        }
        for (i, node) in self.nodes.iter().enumerate() {
            let ty = match node.ty {
                Ty::Num => "num",
                Ty::Bool => "bool",
            };
            let body = match &node.expr {
                Expr::Const(c) => format!("const {c:?}"),
                Expr::Input(k) => format!("input {k}"),
                Expr::Unary(op, a) => format!("unary {} %{}", op.to_string().trim(), a.0),
                Expr::Binary(op, a, b) => format!("binary {op} %{}, %{}", a.0, b.0),
                Expr::Compare { first, rest } => {
                    let mut s = format!("compare %{}", first.0);
                    for (op, n) in rest {
                        s.push_str(&format!(" {op} %{}", n.0));
                    }
                    s
                }
                Expr::And(a, b) => format!("and %{}, %{}", a.0, b.0),
                Expr::Or(a, b) => format!("or %{}, %{}", a.0, b.0),
                Expr::IfElse {
                    cond,
                    then,
                    otherwise,
                } => format!("if %{} then %{} else %{}", cond.0, then.0, otherwise.0),
                Expr::Call(func, args) => {
                    let args: Vec<String> = args.iter().map(|a| format!("%{}", a.0)).collect();
                    format!("call {}({})", func.name(), args.join(", "))
                }
            };
            let root = if NodeId(i as u32) == self.root {
                "  ; root"
            } else {
                ""
            };
            writeln!(f, "%{i} = {body} : {ty}{root}")?;
        }
        Ok(())
    }
}
