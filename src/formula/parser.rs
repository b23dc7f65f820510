//! The parser: tokens → [`Expr`], with lalrpop (grammar in `grammar/formula.lalrpop`).
//!
//! Before the LR parser runs, the source is checked for length ([`MAX_LEN`]) and the token
//! stream for balanced parentheses nested at most [`MAX_PARENS`] deep (CPython's limit). The
//! LR parser keeps its own stack on the heap, and the grammar actions refuse to build a tree
//! nested deeper than [`MAX_NESTING`], where a chain of operators, however long, is one level.
//! Every later walk recurses only as deep as that nesting, so no input, however hostile, makes
//! one overflow the stack.

use super::ast::{Expr, ExprKind, MAX_NESTING, MAX_PARENS};
use super::diag::{Diagnostic, codes};
use super::lexer::{self, Spanned, Tok};
use super::syntax::Span;
use lalrpop_util::ParseError;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused)]
    grammar,
    "/formula.rs"
);

/// The longest formula accepted, in bytes.
pub const MAX_LEN: usize = 64 * 1024;

/// The grammar actions' error: the tree would be nested deeper than [`MAX_NESTING`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep(pub Span);

/// Build a node unless it would be nested too deeply (used by the grammar actions).
pub fn node<'a>(
    kind: ExprKind,
    l: usize,
    r: usize,
) -> Result<Expr, ParseError<usize, Tok<'a>, TooDeep>> {
    let e = Expr::new(kind, Span::new(l, r));
    if e.nesting > MAX_NESTING {
        Err(ParseError::User {
            error: TooDeep(e.span),
        })
    } else {
        Ok(e)
    }
}

/// Parse a formula to its syntax tree, or return every error found (lexical errors all at
/// once; a syntax error is the first one).
pub fn parse(source: &str) -> Result<Expr, Vec<Diagnostic>> {
    if source.len() > MAX_LEN {
        return Err(vec![Diagnostic::error(
            codes::TOO_LONG,
            format!(
                "the formula is {} bytes long; the limit is {} bytes (64 KiB)",
                source.len(),
                MAX_LEN
            ),
            Span::new(MAX_LEN, source.len()),
        )]);
    }
    let tokens = lexer::lex(source)?;
    if tokens.is_empty() {
        return Err(vec![
            Diagnostic::error(
                codes::SYNTAX,
                "the formula is empty",
                Span::new(0, source.len()),
            )
            .with_note("write an expression such as `ncpus * 2 + eligible_time / 3600`"),
        ]);
    }
    check_parens(&tokens)?;
    grammar::FormulaParser::new()
        .parse(tokens.iter().map(|&t| Ok::<_, TooDeep>(t)))
        .map_err(|e| vec![parse_error(source, e)])
}

/// Balanced parentheses nested at most [`MAX_PARENS`] deep, checked on the token stream.
fn check_parens(tokens: &[Spanned<'_>]) -> Result<(), Vec<Diagnostic>> {
    let mut open: Vec<Span> = Vec::new();
    for &(l, ref t, r) in tokens {
        match t {
            Tok::LParen => {
                open.push(Span::new(l, r));
                if open.len() > MAX_PARENS {
                    return Err(vec![
                        Diagnostic::error(
                            codes::TOO_DEEP,
                            format!(
                                "too many nested parentheses: this `(` is {} levels deep; the limit is {MAX_PARENS}",
                                open.len()
                            ),
                            Span::new(l, r),
                        )
                        .with_note(format!(
                            "Python (and so PBS) refuses more than {MAX_PARENS} levels of parentheses"
                        )),
                    ]);
                }
            }
            Tok::RParen if open.pop().is_none() => {
                return Err(vec![Diagnostic::error(
                    codes::SYNTAX,
                    "unmatched `)`: there is no `(` for it to close",
                    Span::new(l, r),
                )]);
            }
            _ => {}
        }
    }
    if let Some(&span) = open.last() {
        return Err(vec![
            Diagnostic::error(codes::SYNTAX, "this `(` is never closed", span)
                .with_note("add a `)` where the parenthesised expression ends"),
        ]);
    }
    Ok(())
}

/// Human words for lalrpop's terminal names (the lists are per LR state and may be
/// incomplete, so the caller says "for example").
fn expected_words(expected: &[String]) -> Vec<&'static str> {
    let names: Vec<&str> = expected.iter().map(|e| e.trim_matches('"')).collect();
    let has = |t: &str| names.contains(&t);
    let expr = ["name", "number", "True", "False", "not"]
        .iter()
        .any(|t| has(t));
    let mut words = Vec::new();
    if expr {
        words.push("an expression");
    }
    if ["*", "/", "//", "%", "**"].iter().any(|t| has(t)) || (!expr && (has("+") || has("-"))) {
        words.push("an operator");
    }
    if ["<", "<=", ">", ">=", "==", "!="].iter().any(|t| has(t)) {
        words.push("a comparison");
    }
    if has("and") || has("or") {
        words.push("`and`/`or`");
    }
    if has("if") {
        words.push("`if`");
    }
    if has("else") {
        words.push("`else`");
    }
    if has(")") {
        words.push("`)`");
    }
    if has(",") {
        words.push("`,`");
    }
    words
}

fn expected_note(expected: &[String]) -> Option<String> {
    let words = expected_words(expected);
    match words.as_slice() {
        [] => None,
        [one] => Some(format!("expected {one} here")),
        [rest @ .., last] => Some(format!(
            "expected, for example, {} or {last}",
            rest.join(", ")
        )),
    }
}

fn parse_error(source: &str, e: ParseError<usize, Tok<'_>, TooDeep>) -> Diagnostic {
    match e {
        ParseError::UnrecognizedEof { location, expected } => {
            let at = location.min(source.len());
            let mut d = Diagnostic::error(
                codes::SYNTAX,
                "the formula ends too early",
                Span::new(at, at),
            );
            if let Some(n) = expected_note(&expected) {
                d = d.with_note(n);
            }
            d
        }
        ParseError::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let span = Span::new(l, r);
            let mut d = match tok {
                Tok::Else => Diagnostic::error(
                    codes::SYNTAX,
                    "`else` without a matching `if`: a conditional is written `a if condition else b`",
                    span,
                ),
                Tok::If if expected.iter().any(|e| e == "\")\"" || e == "\",\"") => {
                    Diagnostic::error(
                        codes::SYNTAX,
                        format!("unexpected {}", tok.describe()),
                        span,
                    )
                }
                Tok::LParen => Diagnostic::error(
                    codes::SYNTAX,
                    "unexpected `(`: only a function name can be called (`sqrt(x)`); to multiply, write `*`",
                    span,
                ),
                Tok::Name(_) | Tok::Num(_) if expected.iter().any(|e| e == "\"+\"") => {
                    Diagnostic::error(
                        codes::SYNTAX,
                        format!(
                            "unexpected {}: two values in a row need an operator between them",
                            tok.describe()
                        ),
                        span,
                    )
                }
                _ => Diagnostic::error(
                    codes::SYNTAX,
                    format!("unexpected {}", tok.describe()),
                    span,
                ),
            };
            if let Some(n) = expected_note(&expected) {
                d = d.with_note(n);
            }
            d
        }
        ParseError::ExtraToken { token: (l, tok, r) } => Diagnostic::error(
            codes::SYNTAX,
            format!(
                "unexpected {} after the end of the expression",
                tok.describe()
            ),
            Span::new(l, r),
        ),
        ParseError::InvalidToken { location } => Diagnostic::error(
            codes::SYNTAX,
            "invalid token",
            Span::new(location, location),
        ),
        ParseError::User {
            error: TooDeep(span),
        } => Diagnostic::error(
            codes::TOO_DEEP,
            format!("the expression is nested more than {MAX_NESTING} levels deep"),
            span,
        )
        .with_note("each operand of a unary operator, of `**` on its right, of a call or of a conditional is a level deeper; a chain such as `a + b + c` is one level however long"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sx(s: &str) -> String {
        parse(s).unwrap_or_else(|e| panic!("{s}: {e:?}")).sexpr()
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(sx("-2**2"), "(- (** 2.0i 2.0i))");
        assert_eq!(sx("2**-1"), "(** 2.0i (- 1.0i))");
        assert_eq!(sx("2**3**2"), "(** 2.0i (** 3.0i 2.0i))");
        assert_eq!(sx("a - b - c"), "(- (- a b) c)");
        assert_eq!(sx("a + b * c"), "(+ a (* b c))");
        assert_eq!(sx("1 < 2 < 3"), "(cmp 1.0i < 2.0i < 3.0i)");
        assert_eq!(sx("a if b else c if d else e"), "(if b a (if d c e))");
        assert_eq!(
            sx("not a < b and c or d"),
            "(or (and (not (cmp a < b)) c) d)"
        );
        assert_eq!(sx("-a ** -b"), "(- (** a (- b)))");
        assert_eq!(sx("max(a, b,)"), "(call max a b)");
        assert_eq!(sx("f()"), "(call f)");
    }

    #[test]
    fn spans_are_bytes() {
        let e = parse("ncpus + walltime").unwrap();
        assert_eq!(e.span, Span::new(0, 16));
    }

    #[test]
    fn syntax_errors() {
        let e = parse("ncpus +").unwrap_err();
        assert_eq!(e[0].code, codes::SYNTAX);
        let e = parse("(ncpus").unwrap_err();
        assert_eq!(e[0].span, Span::new(0, 1));
        let e = parse("ncpus)").unwrap_err();
        assert_eq!(e[0].span, Span::new(5, 6));
        let e = parse("ncpus walltime").unwrap_err();
        assert!(e[0].message.contains("operator"), "{e:?}");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        // Over 64 KiB: refused for length before anything else runs.
        let s = "(".repeat(100_000);
        assert_eq!(parse(&s).unwrap_err()[0].code, codes::TOO_LONG);
        let s = "(".repeat(60_000);
        assert_eq!(parse(&s).unwrap_err()[0].code, codes::TOO_DEEP);
        let s = format!("{}1{}", "(".repeat(201), ")".repeat(201));
        assert_eq!(parse(&s).unwrap_err()[0].code, codes::TOO_DEEP);
        let s = format!("{}1", "-".repeat(30_000));
        assert_eq!(parse(&s).unwrap_err()[0].code, codes::TOO_DEEP);
        let s = format!("{}1", "(".repeat(200)) + &")".repeat(200);
        assert!(parse(&s).is_ok());
        let s = "x".repeat(MAX_LEN + 1);
        assert_eq!(parse(&s).unwrap_err()[0].code, codes::TOO_LONG);
    }

    #[test]
    fn a_chain_of_any_length_is_one_level() {
        let s = vec!["1"; 20_000].join("+");
        let e = parse(&s).map_err(|d| d[0].message.clone());
        assert_eq!(e.map(|e| e.nesting), Ok(2));
        let s = vec!["1"; 300].join(" and ");
        assert_eq!(parse(&s).map(|e| e.nesting).ok(), Some(2));
        // A chain's operands are a level deeper when they are not chain links.
        assert_eq!(parse("-a + -b").map(|e| e.nesting).ok(), Some(3));
        assert_eq!(parse("a * b + c").map(|e| e.nesting).ok(), Some(2));
        assert_eq!(parse("a + b * c").map(|e| e.nesting).ok(), Some(3));
    }
}
