//! Diagnostics: one type for every error, warning and note the front end produces.
//!
//! Rendering (ariadne for terminals, JSON for tools) lives here too, so no other module
//! depends on ariadne.
//!
//! # Codes
//!
//! Every diagnostic has a stable code (see [`codes`]); tools may match on it. `E01xx` are
//! syntax errors, `E02xx` name and type errors, `E03xx` errors found by the hazard analysis
//! (the formula fails for every job that reaches the expression), `W04xx` warnings (a hazard
//! for some jobs, or a portability problem), `N05xx` notes, `N09xx` notes about the engine.
//! `--deny-warnings` turns warnings into errors but keeps their codes.
//!
//! | code | severity | meaning |
//! |---|---|---|
//! | `E0101` | error | unexpected character |
//! | `E0102` | error | malformed number (`3e`, `1..2`, `08x`) |
//! | `E0103` | error | unsupported construct (strings, `[`, `.`, `;`, `=`, `lambda`, `None`, ...) |
//! | `E0104` | error | syntax error (unexpected token or end of formula, unbalanced parentheses) |
//! | `E0105` | error | formula nested too deeply (parentheses more than 200 levels, as Python; operands more than 256; an operator chain is one level) |
//! | `E0106` | error | formula too long (more than 64 KiB) or empty |
//! | `E0201` | error | unknown name (with "did you mean") — PBS 15124 |
//! | `E0202` | error | resource of an invalid type (string, boolean) — PBS 15125 |
//! | `E0203` | error | unknown or unsupported function |
//! | `E0204` | error | wrong number of arguments |
//! | `E0205` | error | calling something that is not a function |
//! | `E0206` | error | a function used as a value |
//! | `E0207` | error | `round(x, n)`: `n` must be an integer literal |
//! | `E0301` | error | division or modulo by zero for every job that reaches it |
//! | `E0302` | error | math domain or range error for every job that reaches it (`log(0)`) |
//! | `E0303` | error | the formula's value is never finite |
//! | `E0304` | error | a sub-expression is infinite or NaN for every job (`ncpus * 1e999`), so the value is never finite |
//! | `E0305` | error | `--compat pbs`: the formula crashes pbs_sched (OpenPBS ≤ 23.06) for some job: its value is then a complex number or an int too large for a float (names the job) |
//! | `W0401` | warning | possible division by zero (names the input and when it is 0) |
//! | `W0402` | warning | possible math domain error |
//! | `W0403` | warning | possible overflow (math range error) |
//! | `W0404` | warning | the formula reads no job attribute: every job ties |
//! | `W0405` | warning | deprecated name (`fair_share_perc`) |
//! | `W0406` | warning | a custom resource PBS shadows with a `math` name |
//! | `W0407` | warning | `E0305` without `--compat pbs` |
//! | `W0409` | warning | `--compat pbs`: operations nested deeper than CPython compiles (a chain of 2,995 or more terms): pbs_sched gives every job 0 |
//! | `W0410` | warning | `--compat pbs`: a line break in the formula, which ends the string literal pbs_sched writes it into: every job gets 0 |
//! | `W0408` | warning | the value can be infinite or NaN for some jobs (an infinite or NaN constant reaches it: `walltime and inf`) |
//! | `N0501` | note | `pow(2, -(fairshare_tree_usage/fairshare_perc))` is `fairshare_factor` |
//! | `N0502` | note | `--compat pbs`: values beyond ±2^24 tie in PBS's 32-bit storage |
//! | `N0901` | note | the JIT cannot run on this host: the interpreter evaluates instead |
//! | `N0902` | note | `--compat pbs`: Python ints can change this formula's values or errors, so the interpreter (which models them) evaluates it |

use super::syntax::Span;
use crate::input::text::{escaped, push_escaped};
use serde::Serialize;

/// The stable diagnostic codes (table in the module docs).
pub mod codes {
    /// Unexpected character.
    pub const UNEXPECTED_CHAR: &str = "E0101";
    /// Malformed number.
    pub const BAD_NUMBER: &str = "E0102";
    /// Unsupported construct.
    pub const UNSUPPORTED: &str = "E0103";
    /// Syntax error.
    pub const SYNTAX: &str = "E0104";
    /// Nested too deeply.
    pub const TOO_DEEP: &str = "E0105";
    /// Too long or empty.
    pub const TOO_LONG: &str = "E0106";
    /// Unknown name.
    pub const UNKNOWN_NAME: &str = "E0201";
    /// Resource of an invalid type.
    pub const INVALID_TYPE: &str = "E0202";
    /// Unknown or unsupported function.
    pub const UNKNOWN_FUNCTION: &str = "E0203";
    /// Wrong number of arguments.
    pub const ARITY: &str = "E0204";
    /// Calling a non-function.
    pub const NOT_A_FUNCTION: &str = "E0205";
    /// A function used as a value.
    pub const FUNCTION_AS_VALUE: &str = "E0206";
    /// `round(x, n)` with a non-literal `n`.
    pub const ROUND_DIGITS: &str = "E0207";
    /// Division by zero for every job that reaches it.
    pub const DIV_ZERO: &str = "E0301";
    /// Domain or range error for every job that reaches it.
    pub const ALWAYS_FAILS: &str = "E0302";
    /// The value is never finite.
    pub const NOT_FINITE: &str = "E0303";
    /// An infinite operand makes the value never finite.
    pub const INFINITE_OPERAND: &str = "E0304";
    /// `--compat pbs`: the formula crashes pbs_sched for some job.
    pub const CRASHES_PBS: &str = "E0305";
    /// Possible division by zero.
    pub const MAYBE_DIV_ZERO: &str = "W0401";
    /// Possible domain error.
    pub const MAYBE_DOMAIN: &str = "W0402";
    /// Possible overflow.
    pub const MAYBE_OVERFLOW: &str = "W0403";
    /// Depends on no job attribute.
    pub const CONSTANT: &str = "W0404";
    /// Deprecated name.
    pub const DEPRECATED: &str = "W0405";
    /// Shadowed by a math name in PBS.
    pub const SHADOWED: &str = "W0406";
    /// The formula crashes pbs_sched for some job (`E0305` without `--compat pbs`).
    pub const MAYBE_CRASHES_PBS: &str = "W0407";
    /// The value can be infinite or NaN for some jobs.
    pub const MAYBE_NOT_FINITE: &str = "W0408";
    /// `--compat pbs`: nested deeper than CPython compiles.
    pub const TOO_DEEP_FOR_PYTHON: &str = "W0409";
    /// `--compat pbs`: a line break in the formula.
    pub const LINE_BREAK: &str = "W0410";
    /// The fairshare_factor lint.
    pub const FAIRSHARE_FACTOR: &str = "N0501";
    /// `--compat pbs` 32-bit storage.
    pub const FLOAT32: &str = "N0502";
    /// The JIT cannot run here; the interpreter evaluates.
    pub const JIT_UNAVAILABLE: &str = "N0901";
    /// `--compat pbs`: whole numbers are Python ints here; the interpreter evaluates.
    pub const INT_SEMANTICS: &str = "N0902";
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

/// A secondary span with its own message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// One finding about a formula, with a stable code (`E0101`, `W0201`, ...), a message, the
/// primary byte span, extra labelled spans and free-form notes ("help: ...").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    pub labels: Vec<Label>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(
        severity: Severity,
        code: &'static str,
        message: impl Into<String>,
        span: Span,
    ) -> Self {
        Diagnostic {
            severity,
            code,
            message: message.into(),
            span,
            labels: vec![],
            notes: vec![],
        }
    }
    pub fn error(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Diagnostic::new(Severity::Error, code, message, span)
    }
    pub fn warning(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Diagnostic::new(Severity::Warning, code, message, span)
    }
    pub fn note(code: &'static str, message: impl Into<String>, span: Span) -> Self {
        Diagnostic::new(Severity::Note, code, message, span)
    }
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A list of diagnostics (the error type of [`crate::formula::Formula::compile`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }
}

impl std::fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for d in &self.0 {
            writeln!(
                f,
                "{:?}[{}]: {} at {}..{}",
                d.severity, d.code, d.message, d.span.start, d.span.end
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

/// Clamp a span to the source and give it at least one character's width where possible,
/// so ariadne always has something to underline (an end-of-input error points at the end).
fn render_range(source: &str, span: Span) -> std::ops::Range<usize> {
    let len = source.len();
    let mut start = span.start.min(len);
    let mut end = span.end.min(len).max(start);
    while start < len && !source.is_char_boundary(start) {
        start += 1;
    }
    while end < len && !source.is_char_boundary(end) {
        end += 1;
    }
    let end = end.max(start);
    if start == end {
        if let Some(c) = source[start..].chars().next() {
            return start..start + c.len_utf8();
        }
        if let Some(c) = source[..start].chars().next_back() {
            return start - c.len_utf8()..start;
        }
    }
    start..end
}

/// At most this many diagnostics are rendered as code frames; the rest are counted.
pub const MAX_RENDERED: usize = 50;

/// A source line longer than this many bytes is shown only around the spans on it.
const LONG_LINE: usize = 512;
/// Bytes shown on each side of a span's start and end on a long line.
const CONTEXT: usize = 120;
/// Marks a cut in a long line.
const CUT: &str = "…";

/// The source as a code frame shows it: long lines cut to windows around the spans, and
/// control characters (and bidirectional overrides) escaped so they cannot act on the terminal.
struct Shown {
    text: String,
    /// `offset[i]`: where byte `i` of the real source is in `text` (`len + 1` entries).
    offset: Vec<usize>,
}

impl Shown {
    fn new(source: &str, spans: &[std::ops::Range<usize>]) -> Shown {
        let len = source.len();
        // Which bytes of each long line stay visible.
        let mut visible = vec![true; len];
        let mut line_start = 0;
        for line in source.split_inclusive('\n') {
            let line_end = line_start + line.len();
            if line.len() > LONG_LINE {
                visible[line_start..line_end].fill(false);
                for r in spans {
                    for at in [r.start, r.end] {
                        if (line_start..=line_end).contains(&at) {
                            let lo = at.saturating_sub(CONTEXT).max(line_start);
                            let hi = (at + CONTEXT).min(line_end);
                            visible[lo..hi].fill(true);
                        }
                    }
                }
                if line.ends_with('\n') {
                    visible[line_end - 1] = true;
                }
            }
            line_start = line_end;
        }
        let mut text = String::with_capacity(len.min(64 * 1024));
        let mut offset = vec![0; len + 1];
        let mut cut = false;
        for (i, c) in source.char_indices() {
            for o in &mut offset[i..i + c.len_utf8()] {
                *o = text.len();
            }
            if !visible[i] {
                if !cut {
                    text.push_str(CUT);
                    cut = true;
                }
                continue;
            }
            cut = false;
            push_escaped(&mut text, c);
        }
        offset[len] = text.len();
        Shown { text, offset }
    }

    fn range(&self, r: &std::ops::Range<usize>) -> std::ops::Range<usize> {
        self.offset[r.start]..self.offset[r.end].max(self.offset[r.start])
    }
}

/// Render diagnostics as ariadne code frames (byte-offset spans, so correct under non-ASCII
/// input). `filename` labels the frame (`<formula>`, a path); `color` adds ANSI colours —
/// the caller decides (the CLI: only on a terminal and never when `NO_COLOR` is set).
///
/// A line longer than 512 bytes is shown only around the spans on it (cuts marked `…`), and
/// control characters from the source are shown escaped (`\u{1b}`), never raw.
pub fn render(source: &str, filename: &str, diagnostics: &[Diagnostic], color: bool) -> String {
    use ariadne::{Color, Config, IndexType, Label as ALabel, Report, ReportKind, Source};
    let rendered = &diagnostics[..diagnostics.len().min(MAX_RENDERED)];
    let spans: Vec<std::ops::Range<usize>> = rendered
        .iter()
        .flat_map(|d| std::iter::once(d.span).chain(d.labels.iter().map(|l| l.span)))
        .map(|span| render_range(source, span))
        .collect();
    let shown = Shown::new(source, &spans);
    let mut out = Vec::new();
    let mut cache = (filename, Source::from(shown.text.as_str()));
    for d in rendered {
        let (kind, colour) = match d.severity {
            Severity::Error => (ReportKind::Error, Color::Red),
            Severity::Warning => (ReportKind::Warning, Color::Yellow),
            Severity::Note => (ReportKind::Custom("Note", Color::Cyan), Color::Cyan),
        };
        let range = shown.range(&render_range(source, d.span));
        let mut primary =
            ALabel::new((filename, range.clone())).with_message(escaped(primary_label(d)));
        if color {
            primary = primary.with_color(colour);
        }
        let mut report = Report::build(kind, (filename, range))
            .with_config(
                Config::default()
                    .with_index_type(IndexType::Byte)
                    .with_color(color),
            )
            .with_code(d.code)
            .with_message(escaped(&d.message))
            .with_label(primary);
        for l in &d.labels {
            let mut label = ALabel::new((filename, shown.range(&render_range(source, l.span))))
                .with_message(escaped(&l.message));
            if color {
                label = label.with_color(Color::Blue);
            }
            report = report.with_label(label);
        }
        let label_text = primary_label(d);
        for n in d.notes.iter().filter(|n| n.as_str() != label_text) {
            if let Some(help) = n.strip_prefix("help: ") {
                report = report.with_help(escaped(help));
            } else {
                report = report.with_note(escaped(n));
            }
        }
        // Writing to a Vec cannot fail; a failure would only lose this one report.
        let _ = report.finish().write(&mut cache, &mut out);
    }
    let mut text = String::from_utf8_lossy(&out).into_owned();
    if diagnostics.len() > MAX_RENDERED {
        text.push_str(&format!(
            "... and {} more diagnostics not shown (--format json lists them all)\n",
            diagnostics.len() - MAX_RENDERED
        ));
    }
    if color { text } else { strip_ansi(&text) }
}

/// Remove ANSI SGR sequences (ariadne colours custom report kinds even without colour).
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// One diagnostic in the JSON shape of SPEC §6 (plus its `notes`).
#[derive(Debug, Clone, Serialize)]
pub struct JsonDiagnostic<'a> {
    pub severity: Severity,
    pub code: &'a str,
    pub message: &'a str,
    pub span: Span,
    pub notes: &'a [String],
}

/// The `jobsort check --format json` document: `{"valid", "diagnostics", "range"}`.
/// `range` is `null` when the formula is invalid; an unbounded side of the range is `null`
/// (`[0, null]` means "0 or more").
pub fn check_json(
    valid: bool,
    diagnostics: &[Diagnostic],
    range: Option<(f64, f64)>,
) -> serde_json::Value {
    let finite = |v: f64| if v.is_finite() { Some(v) } else { None };
    let diags: Vec<JsonDiagnostic<'_>> = diagnostics
        .iter()
        .map(|d| JsonDiagnostic {
            severity: d.severity,
            code: d.code,
            message: &d.message,
            span: d.span,
            notes: &d.notes,
        })
        .collect();
    serde_json::json!({
        "valid": valid,
        "diagnostics": diags,
        "range": range.map(|(lo, hi)| [finite(lo), finite(hi)]),
    })
}

/// The short text under the primary span: a "did you mean" note, else a word per code.
fn primary_label(d: &Diagnostic) -> &str {
    if let Some(n) = d.notes.iter().find(|n| n.starts_with("did you mean")) {
        return n;
    }
    match d.code {
        codes::UNEXPECTED_CHAR | codes::UNSUPPORTED => "not supported",
        codes::BAD_NUMBER => "malformed number",
        codes::TOO_DEEP => "too deep",
        codes::TOO_LONG => "too long",
        codes::UNKNOWN_NAME => "unknown name",
        codes::INVALID_TYPE => "not numeric",
        codes::UNKNOWN_FUNCTION => "unknown function",
        codes::ARITY => "wrong number of arguments",
        codes::NOT_A_FUNCTION => "not a function",
        codes::FUNCTION_AS_VALUE => "a function",
        codes::ROUND_DIGITS => "not an integer literal",
        codes::DIV_ZERO | codes::ALWAYS_FAILS => "always fails",
        codes::NOT_FINITE | codes::INFINITE_OPERAND => "not finite",
        codes::MAYBE_DIV_ZERO => "can be 0",
        codes::MAYBE_DOMAIN => "can fail",
        codes::MAYBE_OVERFLOW => "can overflow",
        codes::CONSTANT => "no job attribute",
        codes::DEPRECATED => "deprecated",
        codes::SHADOWED => "a math name in PBS",
        codes::FAIRSHARE_FACTOR => "fairshare_factor",
        codes::FLOAT32 => "can exceed 2^24",
        codes::CRASHES_PBS | codes::MAYBE_CRASHES_PBS => "crashes pbs_sched",
        _ => match d.severity {
            Severity::Error => "here",
            Severity::Warning | Severity::Note => "this",
        },
    }
}

/// One diagnostic code: a row of the code table in this module's documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeInfo {
    /// The stable code (`E0304`).
    pub code: &'static str,
    /// The severity diagnostics of this code have (without `--deny-warnings`).
    pub severity: Severity,
    /// What the code means, in the table's words (Markdown).
    pub meaning: &'static str,
}

/// Every diagnostic code with its severity and meaning, in the table's order. The table in
/// this module's documentation is the one place they are written: this reads its rows from
/// the module's own source, so the listing (`docs/diagnostics.md`, `jobsort explain`) and
/// the documentation cannot differ.
pub fn code_table() -> Vec<CodeInfo> {
    include_str!("diag.rs")
        .lines()
        .map_while(|line| line.strip_prefix("//!"))
        .filter_map(|row| {
            let cells: Vec<&str> = row
                .trim()
                .strip_prefix('|')?
                .strip_suffix('|')?
                .split(" | ")
                .collect();
            let [code, severity, meaning] = cells[..] else {
                return None;
            };
            let code = code.trim().strip_prefix('`')?.strip_suffix('`')?;
            let severity = match severity.trim() {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                "note" => Severity::Note,
                _ => return None,
            };
            Some(CodeInfo {
                code,
                severity,
                meaning: meaning.trim(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With byte spans rendered as bytes, the underline sits under the right characters even
    /// after multi-byte text (ariadne's default char indexing would shift it).
    #[test]
    fn render_uses_byte_offsets() {
        let src = "1 # é\n+ ncpu";
        let start = src.find("ncpu").unwrap();
        let d = Diagnostic::error("E0201", "unknown name `ncpu`", Span::new(start, start + 4));
        let out = render(src, "<formula>", &[d], false);
        let lines: Vec<&str> = out.lines().collect();
        let i = lines.iter().position(|l| l.ends_with("+ ncpu")).unwrap();
        let col = |s: &str, pat: char| s.chars().position(|c| c == pat);
        let underline = lines[i + 1];
        let first_mark = underline.chars().position(|c| c == '─' || c == '┬');
        assert_eq!(first_mark, col(lines[i], 'n'), "{out}");
        assert!(!out.contains('\u{1b}'));
        let coloured = render(
            src,
            "<formula>",
            &[Diagnostic::note("N0501", "n", Span::new(0, 1))],
            true,
        );
        assert!(coloured.contains('\u{1b}'));
    }

    #[test]
    fn a_long_line_is_shown_around_the_span() {
        let mut src = "ncpus + ".repeat(12_500);
        let start = src.len();
        src.push_str("ncpu");
        let d = Diagnostic::error("E0201", "unknown name `ncpu`", Span::new(start, start + 4))
            .with_label(Span::new(0, 5), "first term");
        let out = render(&src, "<formula>", &[d], false);
        assert!(out.len() < 2_000, "{} bytes:\n{out}", out.len());
        let line = out
            .lines()
            .find(|l| l.ends_with("ncpu"))
            .expect("the span's line");
        assert!(line.contains(CUT), "{out}");
        let underline = out.lines().skip_while(|l| *l != line).nth(1).unwrap();
        let col = |s: &str, p: usize| s.char_indices().position(|(i, _)| i == p);
        // The primary underline is the last mark on the line, under all four letters.
        let last_mark = underline.trim_end().chars().count() - 4;
        assert_eq!(Some(last_mark), col(line, line.len() - 4), "{out}");
        assert!(out.contains("first term"), "{out}");
    }

    #[test]
    fn control_characters_are_escaped() {
        let src = "ncpus # \u{1b}]0;owned\u{7}\r\u{202e}x\n+ \u{1b}[2J";
        let at = src.rfind('\u{1b}').unwrap();
        let d = Diagnostic::error(
            "E0101",
            "unexpected character `\u{1b}`",
            Span::new(at, at + 1),
        );
        for color in [false, true] {
            let out = render(src, "<formula>", std::slice::from_ref(&d), color);
            let plain = strip_ansi(&out);
            for raw in ['\u{7}', '\r', '\u{202e}'] {
                assert!(!out.contains(raw), "{out:?}");
            }
            assert!(!plain.contains('\u{1b}'), "{out:?}");
            assert!(plain.contains("\\u{1b}[2J"), "{plain}");
            assert!(plain.contains("unexpected character `\\u{1b}`"), "{plain}");
        }
    }

    #[test]
    fn empty_and_out_of_range_spans_render() {
        let d = Diagnostic::error("E0104", "the formula ends too early", Span::new(7, 7));
        assert!(render("ncpus +", "f", std::slice::from_ref(&d), false).contains("ends too early"));
        assert!(render("", "f", std::slice::from_ref(&d), false).contains("ends too early"));
        let d = Diagnostic::error("E0106", "too long", Span::new(100, 200));
        assert!(render("ncpus", "f", &[d], false).contains("too long"));
    }

    #[test]
    fn rendering_is_capped() {
        let d = Diagnostic::warning("W0401", "w", Span::new(0, 1));
        let out = render("x", "f", &vec![d; MAX_RENDERED + 7], false);
        assert!(
            out.ends_with("... and 7 more diagnostics not shown (--format json lists them all)\n")
        );
        assert_eq!(out.matches("[W0401]").count(), MAX_RENDERED);
    }

    #[test]
    fn check_json_shape() {
        let d = Diagnostic::warning("W0401", "possible division by zero", Span::new(9, 14));
        let v = check_json(true, &[d], Some((0.0, f64::INFINITY)));
        assert_eq!(
            v,
            serde_json::json!({
                "valid": true,
                "diagnostics": [{"severity": "warning", "code": "W0401",
                    "message": "possible division by zero", "span": [9, 14], "notes": []}],
                "range": [0.0, null],
            })
        );
        assert_eq!(
            check_json(false, &[], None)["range"],
            serde_json::Value::Null
        );
    }
}
