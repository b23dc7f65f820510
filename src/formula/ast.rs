//! The syntax tree the parser builds: untyped, names unresolved, every node with its byte span.
//!
//! Parentheses leave no node (the span of a parenthesised expression is its inner span).
//! `Display` prints a parenthesised form that parses back to the same tree (see
//! [`Expr::sexpr`] for a span-free structural form used by round-trip tests).
//!
//! Architecture invariant: no tree is nested deeper than [`MAX_NESTING`] (the parser refuses
//! to build one), and every walk of a tree or of its IR recurses only as deep as the nesting:
//! a chain of operators (`a + b + c`, `a and b and c`), however long, is one level, walked in a
//! loop ([`Expr::chain`], [`super::ir::Ir::chain`]); `Drop` uses a stack.

use super::syntax::{BinaryOp, CmpOp, Link, Span, UnaryOp};
use std::fmt;

/// The deepest nesting the parser builds. A chain of binary operators, `and` and `or` is
/// walked down its left operands in a loop, so those sit at the chain's own level: a flat sum
/// of any length is two levels deep (the sum and its terms). Every other operand is one level
/// deeper than its operator: a link's right operand (the `b * c` of `a + b * c`, the right
/// side of `**`), a unary operator's operand, a call's arguments, a conditional's parts and a
/// comparison's operands.
pub const MAX_NESTING: u32 = 256;

/// The deepest parenthesis nesting accepted: CPython's, whose tokenizer refuses more than
/// `MAXLEVEL` (200) open parentheses with "too many nested parentheses" (Parser/tokenizer.c),
/// so PBS, which runs the formula in Python, could not either.
pub const MAX_PARENS: usize = 200;

/// One expression node.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// How deeply the node is nested ([`MAX_NESTING`]): 1 for a leaf; for a chain node the
    /// larger of its left operand's nesting (one more if that is not a chain node) and one
    /// more than its right operand's; for any other node one more than its deepest child.
    pub nesting: u32,
}

/// The kinds of expressions.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// A numeric literal; `is_int` when written without `.`/exponent.
    Num {
        value: f64,
        is_int: bool,
    },
    /// `True` / `False`.
    Bool(bool),
    /// A name (resource, keyword, constant), resolved by sema.
    Name(String),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `first op x op y ...`
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    /// `then if cond else otherwise`
    IfElse {
        then: Box<Expr>,
        cond: Box<Expr>,
        otherwise: Box<Expr>,
    },
    /// `name(args)`
    Call {
        name: String,
        name_span: Span,
        args: Vec<Expr>,
    },
}

impl Expr {
    /// Build a node, computing its nesting from its children.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        let nesting = match kind.link() {
            Some((_, a, b)) => {
                let left = a.nesting + u32::from(a.kind.link().is_none());
                left.max(b.nesting + 1)
            }
            None => 1 + kind.children().map(|c| c.nesting).max().unwrap_or(0),
        };
        Expr {
            kind,
            span,
            nesting,
        }
    }

    /// The left spine of the chain rooted here, descending while `more(node, left operand)`:
    /// the innermost left operand and the chain nodes from the innermost outwards. A node
    /// that is not a chain node is its own innermost operand, with no links.
    pub fn chain_while(&self, more: impl Fn(&Expr, &Expr) -> bool) -> (&Expr, Vec<&Expr>) {
        let mut links = Vec::new();
        let mut at = self;
        while let Some((_, left, _)) = at.kind.link() {
            links.push(at);
            if !more(at, left) {
                at = left;
                break;
            }
            at = left;
        }
        links.reverse();
        (at, links)
    }

    /// [`Expr::chain_while`] through every chain node.
    pub fn chain(&self) -> (&Expr, Vec<&Expr>) {
        self.chain_while(|_, _| true)
    }

    /// A span-free, unambiguous rendering of the tree structure (`(+ a (* b 2))`).
    pub fn sexpr(&self) -> String {
        let mut s = String::new();
        self.write_sexpr(&mut s);
        s
    }

    fn write_sexpr(&self, s: &mut String) {
        use std::fmt::Write;
        match &self.kind {
            ExprKind::Num { value, is_int } => {
                let _ = write!(s, "{value:?}{}", if *is_int { "i" } else { "" });
            }
            ExprKind::Bool(b) => {
                let _ = write!(s, "{b}");
            }
            ExprKind::Name(n) => s.push_str(n),
            ExprKind::Unary(op, a) => {
                let _ = write!(s, "({} ", op.to_string().trim());
                a.write_sexpr(s);
                s.push(')');
            }
            ExprKind::Binary(..) | ExprKind::And(..) | ExprKind::Or(..) => {
                // `(+ (+ a b) c)`: every opening first, then the operands, in a loop.
                let (first, links) = self.chain();
                for e in links.iter().rev() {
                    if let Some((link, _, _)) = e.kind.link() {
                        let _ = write!(s, "({link} ");
                    }
                }
                first.write_sexpr(s);
                for e in &links {
                    if let Some((_, _, right)) = e.kind.link() {
                        s.push(' ');
                        right.write_sexpr(s);
                        s.push(')');
                    }
                }
            }
            ExprKind::Compare(first, rest) => {
                s.push_str("(cmp ");
                first.write_sexpr(s);
                for (op, e) in rest {
                    let _ = write!(s, " {op} ");
                    e.write_sexpr(s);
                }
                s.push(')');
            }
            ExprKind::IfElse {
                then,
                cond,
                otherwise,
            } => {
                s.push_str("(if ");
                cond.write_sexpr(s);
                s.push(' ');
                then.write_sexpr(s);
                s.push(' ');
                otherwise.write_sexpr(s);
                s.push(')');
            }
            ExprKind::Call { name, args, .. } => {
                let _ = write!(s, "(call {name}");
                for a in args {
                    s.push(' ');
                    a.write_sexpr(s);
                }
                s.push(')');
            }
        }
    }
}

impl ExprKind {
    /// `(link, left, right)` when this is a chain node: a binary operator, `and` or `or`.
    pub fn link(&self) -> Option<(Link, &Expr, &Expr)> {
        match self {
            ExprKind::Binary(op, a, b) => Some((Link::Binary(*op), a, b)),
            ExprKind::And(a, b) => Some((Link::And, a, b)),
            ExprKind::Or(a, b) => Some((Link::Or, a, b)),
            _ => None,
        }
    }

    fn is_leaf(&self) -> bool {
        matches!(
            self,
            ExprKind::Num { .. } | ExprKind::Bool(_) | ExprKind::Name(_)
        )
    }

    /// Move the children's kinds out to `stack`, leaving leaves behind (for [`Drop`]).
    fn take_children(self, stack: &mut Vec<ExprKind>) {
        let mut take = |mut e: Expr| {
            if !e.kind.is_leaf() {
                stack.push(std::mem::replace(&mut e.kind, ExprKind::Bool(false)));
            }
        };
        match self {
            ExprKind::Num { .. } | ExprKind::Bool(_) | ExprKind::Name(_) => {}
            ExprKind::Unary(_, a) => take(*a),
            ExprKind::Binary(_, a, b) | ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                take(*a);
                take(*b);
            }
            ExprKind::Compare(first, rest) => {
                take(*first);
                rest.into_iter().for_each(|(_, e)| take(e));
            }
            ExprKind::IfElse {
                then,
                cond,
                otherwise,
            } => {
                take(*then);
                take(*cond);
                take(*otherwise);
            }
            ExprKind::Call { args, .. } => args.into_iter().for_each(take),
        }
    }

    /// The direct children, in source order.
    pub fn children(&self) -> Box<dyn Iterator<Item = &Expr> + '_> {
        match self {
            ExprKind::Num { .. } | ExprKind::Bool(_) | ExprKind::Name(_) => {
                Box::new(std::iter::empty())
            }
            ExprKind::Unary(_, a) => Box::new(std::iter::once(&**a)),
            ExprKind::Binary(_, a, b) | ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                Box::new([&**a, &**b].into_iter())
            }
            ExprKind::Compare(first, rest) => {
                Box::new(std::iter::once(&**first).chain(rest.iter().map(|(_, e)| e)))
            }
            ExprKind::IfElse {
                then,
                cond,
                otherwise,
            } => Box::new([&**then, &**cond, &**otherwise].into_iter()),
            ExprKind::Call { args, .. } => Box::new(args.iter()),
        }
    }
}

/// Dropped with a stack, not recursively: a chain of n operators is a tree n deep.
impl Drop for Expr {
    fn drop(&mut self) {
        if self.kind.is_leaf() {
            return;
        }
        let mut stack = vec![std::mem::replace(&mut self.kind, ExprKind::Bool(false))];
        while let Some(kind) = stack.pop() {
            kind.take_children(&mut stack);
        }
    }
}

/// Source text that parses back to the same tree: every operand parenthesised except leaves,
/// calls, and where the grammar needs none to give the same tree: the left operand of a
/// left-associative operator of the same level (`a + b - c`), the right operand of `**` that
/// is a `**` (`a ** b ** c`), the `else` branch that is a conditional, and a unary operand of
/// a unary operator of the same kind (`--a`, `not not a`). So a chain prints flat, and the
/// printed text is nested no deeper in parentheses than the tree.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sub = |e: &Expr, f: &mut fmt::Formatter<'_>| -> fmt::Result {
            match e.kind {
                ExprKind::Num { .. }
                | ExprKind::Bool(_)
                | ExprKind::Name(_)
                | ExprKind::Call { .. } => write!(f, "{e}"),
                _ => write!(f, "({e})"),
            }
        };
        match &self.kind {
            ExprKind::Num { value, is_int } => {
                if *is_int && value.fract() == 0.0 && value.abs() < 1e16 {
                    write!(f, "{}", *value as i64)
                } else {
                    // `{:?}` always has a `.` or an exponent, so it stays a float literal.
                    write!(f, "{value:?}")
                }
            }
            ExprKind::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            ExprKind::Name(n) => f.write_str(n),
            ExprKind::Unary(op, a) => {
                write!(f, "{op}")?;
                let same = |o: &UnaryOp| (*o == UnaryOp::Not) == (*op == UnaryOp::Not);
                match &a.kind {
                    ExprKind::Unary(o, _) if same(o) => write!(f, "{a}"),
                    _ => sub(a, f),
                }
            }
            ExprKind::Binary(BinaryOp::Pow, a, b) => {
                sub(a, f)?;
                f.write_str(" ** ")?;
                match b.kind {
                    ExprKind::Binary(BinaryOp::Pow, ..) => write!(f, "{b}"),
                    _ => sub(b, f),
                }
            }
            ExprKind::Binary(..) | ExprKind::And(..) | ExprKind::Or(..) => {
                let level = |e: &Expr| e.kind.link().and_then(|(l, _, _)| l.left_assoc_level());
                let (first, links) =
                    self.chain_while(|e, left| level(left).is_some() && level(left) == level(e));
                sub(first, f)?;
                for e in links {
                    if let Some((link, _, right)) = e.kind.link() {
                        write!(f, " {link} ")?;
                        sub(right, f)?;
                    }
                }
                Ok(())
            }
            ExprKind::Compare(first, rest) => {
                sub(first, f)?;
                for (op, e) in rest {
                    write!(f, " {op} ")?;
                    sub(e, f)?;
                }
                Ok(())
            }
            ExprKind::IfElse {
                then,
                cond,
                otherwise,
            } => {
                sub(then, f)?;
                f.write_str(" if ")?;
                sub(cond, f)?;
                f.write_str(" else ")?;
                match otherwise.kind {
                    ExprKind::IfElse { .. } => write!(f, "{otherwise}"),
                    _ => sub(otherwise, f),
                }
            }
            ExprKind::Call { name, args, .. } => {
                write!(f, "{name}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{a}")?;
                }
                f.write_str(")")
            }
        }
    }
}
