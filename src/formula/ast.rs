//! The syntax tree the parser builds: untyped, names unresolved, every node with its byte span.
//!
//! Parentheses leave no node (the span of a parenthesised expression is its inner span).
//! `Display` prints a fully parenthesised form that parses back to the same tree
//! (see [`Expr::sexpr`] for a span-free structural form used by round-trip tests).
//!
//! Architecture invariant: no tree is deeper than [`MAX_DEPTH`]; the parser refuses to build a
//! deeper one, so every recursive walk (sema, hazards, `Drop`) is bounded.

use super::syntax::{BinaryOp, CmpOp, Span, UnaryOp};
use std::fmt;

/// The deepest tree the parser builds (and the deepest parenthesis nesting it accepts).
pub const MAX_DEPTH: u32 = 256;

/// One expression node.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
    /// 1 for a leaf, else 1 + the deepest child.
    pub depth: u32,
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
    /// Build a node, computing its depth from its children.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        let depth = 1 + kind.children().map(|c| c.depth).max().unwrap_or(0);
        Expr { kind, span, depth }
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
            ExprKind::Binary(op, a, b) => {
                let _ = write!(s, "({op} ");
                a.write_sexpr(s);
                s.push(' ');
                b.write_sexpr(s);
                s.push(')');
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
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                s.push_str(if matches!(self.kind, ExprKind::And(..)) {
                    "(and "
                } else {
                    "(or "
                });
                a.write_sexpr(s);
                s.push(' ');
                b.write_sexpr(s);
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

/// Fully parenthesised source text that parses back to the same tree.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Leaves print bare, everything else in parentheses.
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
                sub(a, f)
            }
            ExprKind::Binary(op, a, b) => {
                sub(a, f)?;
                write!(f, " {op} ")?;
                sub(b, f)
            }
            ExprKind::Compare(first, rest) => {
                sub(first, f)?;
                for (op, e) in rest {
                    write!(f, " {op} ")?;
                    sub(e, f)?;
                }
                Ok(())
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                sub(a, f)?;
                f.write_str(if matches!(self.kind, ExprKind::And(..)) {
                    " and "
                } else {
                    " or "
                })?;
                sub(b, f)
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
                sub(otherwise, f)
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
