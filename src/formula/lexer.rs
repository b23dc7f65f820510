//! The lexer (logos): formula text → tokens with byte spans.
//!
//! Numbers follow Python (SPEC §1.1): `12`, `1_000`, `1.5`, `.5`, `5.`, `1e-3`, `2.5E+4`.
//! A number-like run of characters (`3e`, `1..2`, `08x`) is lexed as ONE token and validated
//! as a whole, so a malformed number is one error at its span instead of a confusing parse
//! error. Characters and constructs outside the language (strings, brackets, `.` attribute
//! access, `;`, `=`, `lambda`, `None`, ...) are lexed too, only to be reported with a message
//! that says what to write instead.

use super::diag::{Diagnostic, codes};
use super::syntax::Span;
use logos::Logos;
use std::fmt;

/// A numeric literal: its value and whether it was written as an integer (`2` vs `2.0`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NumLit {
    pub value: f64,
    pub is_int: bool,
}

/// Why a token could not be lexed.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum LexError {
    /// A character no token starts with.
    #[default]
    Unexpected,
    /// A malformed number, with the reason.
    BadNumber(String),
}

fn number(lex: &mut logos::Lexer<'_, RawTok>) -> Result<NumLit, LexError> {
    parse_number(lex.slice()).map_err(LexError::BadNumber)
}

/// The raw token set, including constructs that exist only to be reported.
#[derive(Logos, Debug, Clone, PartialEq)]
#[logos(error = LexError)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip(r"#[^\n]*", allow_greedy = true))]
enum RawTok {
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("//")]
    SlashSlash,
    #[token("%")]
    Percent,
    #[token("**")]
    StarStar,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token(",")]
    Comma,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Name,
    /// Anything that starts like a number and continues with number-ish characters.
    #[regex(r"([0-9]|\.[0-9])([0-9A-Za-z_.]|[eE][+-])*", number)]
    Num(NumLit),
    // --- only for error messages ---
    #[regex(r#"[rRbBuUfF]{0,2}"([^"\\\n]|\\.)*"?"#)]
    #[regex(r#"[rRbBuUfF]{0,2}'([^'\\\n]|\\.)*'?"#)]
    Str,
    #[token("[")]
    #[token("]")]
    Bracket,
    #[token("{")]
    #[token("}")]
    Brace,
    #[token(".")]
    Dot,
    #[token(";")]
    Semi,
    #[token("=")]
    #[token("+=")]
    #[token("-=")]
    #[token("*=")]
    #[token("/=")]
    Assign,
    #[token(":=")]
    Walrus,
    #[token(":")]
    Colon,
    #[token("!")]
    Bang,
    #[token("&&")]
    AmpAmp,
    #[token("||")]
    PipePipe,
    #[token("&")]
    #[token("|")]
    #[token("~")]
    #[token("<<")]
    #[token(">>")]
    Bitwise,
    #[token("^")]
    Caret,
    #[token("<>")]
    LtGt,
    #[token("@")]
    At,
    #[token("?")]
    Question,
    #[token("\\")]
    Backslash,
}

/// A token as the parser sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tok<'a> {
    Plus,
    Minus,
    Star,
    Slash,
    SlashSlash,
    Percent,
    StarStar,
    LParen,
    RParen,
    Comma,
    Lt,
    Le,
    Gt,
    Ge,
    EqEq,
    Ne,
    And,
    Or,
    Not,
    If,
    Else,
    True,
    False,
    Name(&'a str),
    Num(NumLit),
}

impl Tok<'_> {
    /// How the token reads in a message ("`+`", "the name `ncpus`").
    pub fn describe(&self) -> String {
        match self {
            Tok::Name(n) => format!("name `{n}`"),
            Tok::Num(n) => format!("number `{}`", n.value),
            t => format!("`{}`", t.text()),
        }
    }
    /// The source text of a fixed token.
    pub fn text(&self) -> &'static str {
        match self {
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::SlashSlash => "//",
            Tok::Percent => "%",
            Tok::StarStar => "**",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::Comma => ",",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::EqEq => "==",
            Tok::Ne => "!=",
            Tok::And => "and",
            Tok::Or => "or",
            Tok::Not => "not",
            Tok::If => "if",
            Tok::Else => "else",
            Tok::True => "True",
            Tok::False => "False",
            Tok::Name(_) => "name",
            Tok::Num(_) => "number",
        }
    }
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Name(n) => f.write_str(n),
            Tok::Num(n) => write!(f, "{}", n.value),
            t => f.write_str(t.text()),
        }
    }
}

/// A token with its byte span, in lalrpop's external-lexer shape.
pub type Spanned<'a> = (usize, Tok<'a>, usize);

/// The token of a keyword of the language (`and`, `if`, `True`, ...): a word that is never
/// a name.
pub fn keyword(word: &str) -> Option<Tok<'static>> {
    Some(match word {
        "and" => Tok::And,
        "or" => Tok::Or,
        "not" => Tok::Not,
        "if" => Tok::If,
        "else" => Tok::Else,
        "True" => Tok::True,
        "False" => Tok::False,
        _ => return None,
    })
}

/// Python keywords and names that are outside the language, with what to write instead.
pub fn unsupported_word(word: &str) -> Option<&'static str> {
    Some(match word {
        "lambda" => {
            "`lambda` is not supported: a formula is a single arithmetic expression over job attributes"
        }
        "None" => "`None` is not supported: formulas are numeric; write `0`",
        "is" => "`is` is not supported: compare values with `==` or `!=`",
        "in" => {
            "`in` (membership test) is not supported: compare values with `==`, or combine tests with `or`"
        }
        "for" | "while" | "yield" | "await" | "async" => {
            "comprehensions and generators are not supported: a formula is a single arithmetic expression"
        }
        "import" | "from" | "def" | "class" | "return" | "del" | "global" | "nonlocal" | "pass"
        | "raise" | "try" | "except" | "finally" | "with" | "assert" | "break" | "continue"
        | "elif" | "as" => {
            "statements are not supported: a formula is a single expression (PBS evaluates it with `eval`)"
        }
        _ => return None,
    })
}

/// At most this many lexical errors are reported (garbage input would give one per byte).
pub const MAX_LEX_ERRORS: usize = 20;

/// Lex a whole formula. Returns the tokens, or every lexical error found.
pub fn lex(source: &str) -> Result<Vec<Spanned<'_>>, Vec<Diagnostic>> {
    let mut raw: Vec<(Result<RawTok, LexError>, Span)> = Vec::new();
    let mut lexer = RawTok::lexer(source);
    while let Some(tok) = lexer.next() {
        raw.push((tok, Span::from(lexer.span())));
    }
    let mut toks = Vec::with_capacity(raw.len());
    let mut errors = Vec::new();
    for (i, (tok, span)) in raw.iter().enumerate() {
        let span = *span;
        let text = &source[span.start..span.end];
        let err = |msg: String| Diagnostic::error(codes::UNSUPPORTED, msg, span);
        let t = match tok {
            Ok(RawTok::Plus) => Tok::Plus,
            Ok(RawTok::Minus) => Tok::Minus,
            Ok(RawTok::Star) => Tok::Star,
            Ok(RawTok::Slash) => Tok::Slash,
            Ok(RawTok::SlashSlash) => Tok::SlashSlash,
            Ok(RawTok::Percent) => Tok::Percent,
            Ok(RawTok::StarStar) => Tok::StarStar,
            Ok(RawTok::LParen) => Tok::LParen,
            Ok(RawTok::RParen) => Tok::RParen,
            Ok(RawTok::Comma) => Tok::Comma,
            Ok(RawTok::Lt) => Tok::Lt,
            Ok(RawTok::Le) => Tok::Le,
            Ok(RawTok::Gt) => Tok::Gt,
            Ok(RawTok::Ge) => Tok::Ge,
            Ok(RawTok::EqEq) => Tok::EqEq,
            Ok(RawTok::Ne) => Tok::Ne,
            Ok(RawTok::Num(n)) => Tok::Num(*n),
            Ok(RawTok::Name) => match keyword(text) {
                Some(k) => k,
                None => match unsupported_word(text) {
                    Some(msg) => {
                        errors.push(err(msg.to_string()));
                        continue;
                    }
                    None => Tok::Name(text),
                },
            },
            Ok(RawTok::Dot) => {
                errors.push(dot_error(source, &raw, i));
                continue;
            }
            Ok(other) => {
                errors.push(err(other_message(other, text)));
                continue;
            }
            Err(LexError::BadNumber(msg)) => {
                errors.push(Diagnostic::error(
                    codes::BAD_NUMBER,
                    format!("malformed number `{text}`: {msg}"),
                    span,
                ));
                continue;
            }
            Err(LexError::Unexpected) => {
                errors.push(unexpected_char(text, span));
                continue;
            }
        };
        toks.push((span.start, t, span.end));
    }
    if errors.is_empty() {
        Ok(toks)
    } else {
        if errors.len() > MAX_LEX_ERRORS {
            let more = errors.len() - MAX_LEX_ERRORS;
            errors.truncate(MAX_LEX_ERRORS);
            if let Some(last) = errors.last_mut() {
                last.notes.push(format!(
                    "{more} more lexical errors follow and are not shown"
                ));
            }
        }
        Err(errors)
    }
}

fn unexpected_char(text: &str, span: Span) -> Diagnostic {
    let c = text.chars().next().unwrap_or('?');
    let mut d = Diagnostic::error(
        codes::UNEXPECTED_CHAR,
        format!("unexpected character `{c}` (U+{:04X})", c as u32),
        span,
    );
    if !c.is_ascii() {
        d = d.with_note(
            "formulas use ASCII only: names are `[A-Za-z_][A-Za-z0-9_]*`, operators are `+ - * / // % ** < <= > >= == !=`",
        );
    }
    d
}

fn other_message(tok: &RawTok, text: &str) -> String {
    match tok {
        RawTok::Str => "string literals are not supported: a formula computes a number from numeric job attributes".into(),
        RawTok::Bracket => format!("`{text}` is not supported: lists, indexing and slicing are not part of the formula language"),
        RawTok::Brace => format!("`{text}` is not supported: dicts and sets are not part of the formula language"),
        RawTok::Semi => "`;` is not supported: a formula is a single expression, not a sequence of statements".into(),
        RawTok::Assign => format!("assignment (`{text}`) is not supported: a formula is an expression; to compare, write `==`"),
        RawTok::Walrus => "`:=` (assignment expression) is not supported: write the sub-expression again".into(),
        RawTok::Colon => "`:` is not supported: slices, lambdas and annotations are not part of the formula language".into(),
        RawTok::Bang => "`!` is not supported: write `not x` (or `!=` to compare)".into(),
        RawTok::AmpAmp => "`&&` is not supported: write `and`".into(),
        RawTok::PipePipe => "`||` is not supported: write `or`".into(),
        RawTok::Bitwise => format!("bitwise operator `{text}` is not supported: formulas compute with floats; use `and`, `or`, `not` for logic"),
        RawTok::Caret => "`^` is not supported (in Python it is bitwise xor, not power): write `x ** y` or `pow(x, y)`".into(),
        RawTok::LtGt => "`<>` is not supported: write `!=`".into(),
        RawTok::At => "`@` (matrix multiplication / decorators) is not supported: write `*`".into(),
        RawTok::Question => "`?` is not supported: write a conditional as `a if condition else b`".into(),
        RawTok::Backslash => "`\\` is not supported: write the formula on one line (line breaks are allowed anywhere as whitespace)".into(),
        _ => format!("`{text}` is not supported here"),
    }
}

/// `.` that is not part of a number: attribute access (`math.sqrt`) or a stray dot.
fn dot_error(source: &str, raw: &[(Result<RawTok, LexError>, Span)], i: usize) -> Diagnostic {
    let text_of = |j: usize| raw.get(j).map(|(_, s)| &source[s.start..s.end]);
    let is_name = |j: usize| matches!(raw.get(j), Some((Ok(RawTok::Name), _)));
    let dot = raw[i].1;
    if i > 0 && is_name(i - 1) && is_name(i + 1) {
        let obj = text_of(i - 1).unwrap_or("");
        let attr = text_of(i + 1).unwrap_or("");
        let span = raw[i - 1].1.cover(raw[i + 1].1);
        let fix = if super::ir::Func::from_name(attr).is_some() {
            format!("write `{attr}(x)`")
        } else if super::ir::CONSTANTS.iter().any(|(n, _)| *n == attr) {
            format!("write `{attr}`")
        } else if obj == "math" {
            format!("math names are used without the module prefix, but jobsort has no `{attr}`")
        } else {
            "use the attribute's name directly (resources and keywords are plain names)".to_string()
        };
        return Diagnostic::error(
            codes::UNSUPPORTED,
            format!("attribute access such as `{obj}.{attr}` is not supported: {fix}"),
            span,
        );
    }
    Diagnostic::error(
        codes::UNSUPPORTED,
        "`.` is not supported here: attribute access is not part of the formula language (a decimal point must touch a digit, as in `.5` or `5.`)",
        dot,
    )
}

/// Validate a number-like run of characters against Python's literal syntax (decimal only)
/// and return its value, or the reason it is malformed.
pub fn parse_number(text: &str) -> Result<NumLit, String> {
    let b = text.as_bytes();
    let lower = text.to_ascii_lowercase();
    if lower.starts_with("0x") || lower.starts_with("0o") || lower.starts_with("0b") {
        return Err(
            "hexadecimal, octal and binary literals are not supported: write the number in decimal"
                .into(),
        );
    }
    if lower.ends_with('j') && lower.len() > 1 {
        return Err("complex numbers are not supported".into());
    }
    let mut i = 0;
    // digits: [0-9](_?[0-9])*
    fn digits(b: &[u8], i: &mut usize) -> Result<usize, String> {
        let start = *i;
        while *i < b.len() && (b[*i].is_ascii_digit() || b[*i] == b'_') {
            if b[*i] == b'_' && (*i == start || *i + 1 >= b.len() || !b[*i + 1].is_ascii_digit()) {
                return Err("`_` may only separate two digits".into());
            }
            *i += 1;
        }
        Ok(*i - start)
    }
    let int_len = digits(b, &mut i)?;
    let mut is_int = true;
    if i < b.len() && b[i] == b'.' {
        is_int = false;
        i += 1;
        let frac_len = digits(b, &mut i)?;
        if int_len == 0 && frac_len == 0 {
            return Err("a decimal point needs a digit next to it".into());
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        is_int = false;
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if digits(b, &mut i)? == 0 {
            return Err("the exponent has no digits (write e.g. `3e0` or `3`)".into());
        }
    }
    if i < b.len() {
        let c = text[i..].chars().next().unwrap_or('?');
        return Err(if c == '.' {
            "a number has at most one decimal point".into()
        } else if c == 'e' || c == 'E' {
            "a number has at most one exponent".into()
        } else {
            format!("unexpected `{c}` in a number (a name cannot start with a digit)")
        });
    }
    let clean: String = text.chars().filter(|&c| c != '_').collect();
    if is_int && clean.len() > 1 && clean.starts_with('0') && clean.bytes().any(|c| c != b'0') {
        let fixed = clean.trim_start_matches('0');
        return Err(format!(
            "leading zeros are not allowed in an integer (Python rejects them): write `{fixed}`"
        ));
    }
    let value: f64 = clean
        .parse()
        .map_err(|_| "not a valid number".to_string())?;
    Ok(NumLit { value, is_int })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok<'_>> {
        lex(s).unwrap().into_iter().map(|(_, t, _)| t).collect()
    }
    fn err(s: &str) -> Vec<Diagnostic> {
        lex(s).unwrap_err()
    }

    #[test]
    fn numbers() {
        for (s, v) in [
            ("12", 12.0),
            ("1_000", 1000.0),
            ("1.5", 1.5),
            (".5", 0.5),
            ("5.", 5.0),
            ("1e-3", 1e-3),
            ("2.5E+4", 2.5e4),
            ("1.e2", 100.0),
            ("0", 0.0),
            ("00", 0.0),
            ("007.5", 7.5),
        ] {
            match toks(s).as_slice() {
                [Tok::Num(n)] => assert_eq!(n.value, v, "{s}"),
                t => panic!("{s}: {t:?}"),
            }
        }
        assert_eq!(
            toks("2.0"),
            vec![Tok::Num(NumLit {
                value: 2.0,
                is_int: false
            })]
        );
    }

    #[test]
    fn malformed_numbers_are_one_error_at_their_span() {
        for s in [
            "3e", "1..2", "08x", "08", "1_", "1__0", "0x1F", "3e+", "1.2.3",
        ] {
            let e = err(s);
            assert_eq!(e.len(), 1, "{s}: {e:?}");
            assert_eq!(e[0].span, Span::new(0, s.len()), "{s}");
            assert_eq!(e[0].code, codes::BAD_NUMBER, "{s}");
        }
        let e = err("ncpus * 3e + 1");
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].span, Span::new(8, 10));
    }

    #[test]
    fn unsupported_constructs_say_what_to_write() {
        let e = err("math.sqrt(ncpus)");
        assert_eq!(e.len(), 1);
        assert!(e[0].message.contains("write `sqrt(x)`"), "{}", e[0].message);
        assert_eq!(e[0].span, Span::new(0, 9));
        for (s, needle) in [
            ("'a'", "string"),
            ("x[1]", "index"),
            ("ncpus; 1", "single expression"),
            ("ncpus=1", "`==`"),
            ("lambda: 1", "lambda"),
            ("None", "`0`"),
            ("a && b", "`and`"),
            ("2^3", "**"),
        ] {
            let e = err(s);
            assert!(e.iter().any(|d| d.message.contains(needle)), "{s}: {e:?}");
        }
    }

    #[test]
    fn comments_and_keywords() {
        assert_eq!(
            toks("not a and b # c"),
            vec![Tok::Not, Tok::Name("a"), Tok::And, Tok::Name("b")]
        );
        assert_eq!(toks("True"), vec![Tok::True]);
    }

    #[test]
    fn non_ascii_spans_are_bytes() {
        let e = err("ncpus ＋ 1");
        assert_eq!(e[0].span, Span::new(6, 9));
    }
}
