//! The vocabulary the whole front end shares: source [`Span`]s and the operators. It sits
//! below the lexer, the syntax tree, the IR and the diagnostics, so none of them has to import
//! another for these.

use std::fmt;

/// A half-open byte range `[start, end)` into the formula source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
    /// The smallest span covering both.
    pub fn cover(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// Serialised as `[start, end]` (the JSON shape of SPEC §6).
impl serde::Serialize for Span {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.start, self.end).serialize(s)
    }
}

impl From<std::ops::Range<usize>> for Span {
    fn from(r: std::ops::Range<usize>) -> Span {
        Span::new(r.start, r.end)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Pos,
    /// `not x` (always `Bool`)
    Not,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    /// `/`, true division.
    Div,
    /// `//`, Python floor division.
    FloorDiv,
    /// `%`, Python modulo (sign of the divisor).
    Mod,
    /// `**`, Python's float power (`float.__pow__`), not `math.pow`.
    Pow,
}

impl BinaryOp {
    /// Every binary operator, in this order (the inline ones first).
    pub const ALL: [BinaryOp; 7] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::FloorDiv,
        BinaryOp::Mod,
        BinaryOp::Pow,
    ];
}

/// One link of a left-associative chain (`a + b - c`, `a and b or c`): how a chain node
/// combines the value so far, its left operand, with its right operand. The tree and the IR
/// walk a chain in a loop over its links instead of recursing once per link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Link {
    Binary(BinaryOp),
    And,
    Or,
}

impl Link {
    /// The precedence level of a left-associative operator (`+ -`, `* / // %`, `and`, `or`;
    /// `**` is right-associative, so `None`): a left operand of the same level needs no
    /// parentheses.
    pub fn left_assoc_level(self) -> Option<u8> {
        match self {
            Link::Binary(BinaryOp::Add | BinaryOp::Sub) => Some(1),
            Link::Binary(BinaryOp::Mul | BinaryOp::Div | BinaryOp::FloorDiv | BinaryOp::Mod) => {
                Some(2)
            }
            Link::Binary(BinaryOp::Pow) => None,
            Link::And => Some(3),
            Link::Or => Some(4),
        }
    }
}

impl fmt::Display for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Link::Binary(op) => write!(f, "{op}"),
            Link::And => f.write_str("and"),
            Link::Or => f.write_str("or"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl fmt::Display for UnaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UnaryOp::Neg => "-",
            UnaryOp::Pos => "+",
            UnaryOp::Not => "not ",
        })
    }
}

impl fmt::Display for BinaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::FloorDiv => "//",
            BinaryOp::Mod => "%",
            BinaryOp::Pow => "**",
        })
    }
}

impl fmt::Display for CmpOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        })
    }
}
