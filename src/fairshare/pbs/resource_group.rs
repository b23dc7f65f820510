//! Reading a `resource_group` file as PBS's `parse_group` reads it.

use super::super::FairshareError;
use super::super::c_text::{PBS_LINE_MAX, c_int_field, fgets_pieces, skip_line};
use super::{PbsTree, ROOT_NAME, check_entity_name};

/// Options of `parse_resource_group`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ParseOptions {
    /// `unknown_shares` from `sched_config` (default 0).
    pub unknown_shares: i32,
    /// Skip bad lines with a warning, as PBS does, instead of failing.
    pub lenient: bool,
}

impl PbsTree {
    /// Parse a `resource_group` file's text into a new tree and compute its percentages and
    /// usage factors. `file` names the file in messages (`file:line: message`). Returns the
    /// tree and warnings (lenient mode only).
    ///
    /// The file is read as `parse_group` (fairshare.cpp) reads it: `fgets` into a 256-byte
    /// buffer (a line longer than 255 bytes is read as several lines), only the newline
    /// removed (a carriage return stays on the last token), tokens split at spaces and tabs,
    /// numbers read by `strtol` and stored in an `int`. Lenient mode does exactly that, skipping
    /// bad lines with PBS's `resgroup: error on line N.` (N counts `fgets` pieces, as PBS's
    /// does). Strict mode fails on the first line PBS would skip or read differently from
    /// what it says, and the error says what PBS would have done.
    pub fn parse_resource_group(
        text: &str,
        file: &str,
        options: &ParseOptions,
    ) -> Result<(PbsTree, Vec<String>), FairshareError> {
        let mut t = PbsTree::new(options.unknown_shares);
        let mut warnings = Vec::new();
        let mut pbs_lineno = 0;
        for (i, raw) in text.as_bytes().split_inclusive(|&b| b == b'\n').enumerate() {
            let lineno = i + 1;
            let pieces = fgets_pieces(raw);
            if !options.lenient && pieces.len() > 1 && pieces[1..].iter().any(|p| !p.is_empty()) {
                let len = raw.strip_suffix(b"\n").unwrap_or(raw).len();
                return Err(FairshareError::at(
                    file,
                    lineno,
                    format!(
                        "line is {len} bytes; PBS reads resource_group lines in pieces of at most \
                         {PBS_LINE_MAX} bytes (fgets into a 256-byte buffer), so it would read this one as \
                         {} separate lines (--lenient does the same)",
                        pieces.len()
                    ),
                ));
            }
            for piece in pieces {
                pbs_lineno += 1;
                let line = String::from_utf8_lossy(piece);
                if skip_line(&line) {
                    continue;
                }
                let at = if options.lenient { pbs_lineno } else { lineno };
                let mut line_warnings = Vec::new();
                let parsed = t.parse_line(&line, options.lenient, &mut |w| line_warnings.push(w));
                warnings.extend(
                    line_warnings
                        .into_iter()
                        .map(|w| format!("{file}:{at}: {w}")),
                );
                match parsed {
                    Err(msg) if options.lenient => warnings.push(format!(
                        "{file}:{at}: {msg}; line skipped (resgroup: error on line {at}.)"
                    )),
                    Err(msg) => return Err(FairshareError::at(file, at, msg)),
                    Ok(name) if !options.lenient => {
                        // Names PBS cannot keep in its usage file: fail early, not when writing.
                        if let Err(msg) = check_entity_name(&name) {
                            return Err(FairshareError::at(file, at, msg));
                        }
                    }
                    Ok(_) => {}
                }
            }
        }
        t.recompute();
        Ok((t, warnings))
    }

    /// One `resource_group` line: `name id parent shares` (extra tokens ignored), checked in
    /// `parse_group`'s order. Returns the new entity's name.
    fn parse_line(
        &mut self,
        line: &str,
        lenient: bool,
        warn: &mut dyn FnMut(String),
    ) -> Result<String, String> {
        // strtok(buf, " \t"): only spaces and tabs separate tokens.
        let mut toks = line.split([' ', '\t']).filter(|s| !s.is_empty());
        let (name, cgroup, parent, shares) =
            match (toks.next(), toks.next(), toks.next(), toks.next()) {
                (Some(n), Some(c), Some(p), Some(s)) => (n, c, p, s),
                (n, c, p, _) => {
                    let missing = if n.is_none() {
                        "name"
                    } else if c.is_none() {
                        "id"
                    } else if p.is_none() {
                        "parent"
                    } else {
                        "shares"
                    };
                    return Err(format!(
                        "missing field `{missing}` (expected `name id parent shares`)"
                    ));
                }
            };
        if self.index.contains_key(name) {
            return Err(format!("entity {name} is not unique"));
        }
        let parent_name = if parent == "root" { ROOT_NAME } else { parent };
        let Some(&p) = self.index.get(parent_name) else {
            return Err(format!(
                "Parent ginfo of {name} doesnt exist. (parent `{parent}` must be defined on an earlier line)"
            ));
        };
        let shares = c_int_field("shares", shares, name, lenient, warn)?;
        if shares < 0 {
            let msg = format!("shares of {name} are negative ({shares})");
            if !lenient {
                return Err(msg);
            }
            warn(format!("{msg}; kept, as PBS does"));
        }
        let cgroup = c_int_field("id", cgroup, name, lenient, warn)?;
        // Unique: checked above, before the fields, in `parse_group`'s order.
        self.add_entity(name, cgroup, p, shares)
            .map_err(|_| format!("entity {name} is not unique"))?;
        Ok(name.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;

    #[test]
    fn errors_carry_file_and_line() {
        let cases = [
            ("a 1 root 10\na 2 root 10\n", 2, "entity a is not unique"),
            ("a 1 nope 10\n", 1, "Parent ginfo of a doesnt exist."),
            (
                "b 1 a 10\na 2 root 10\n",
                1,
                "Parent ginfo of b doesnt exist.",
            ),
            ("a 1 root\n", 1, "missing field `shares`"),
            ("a 1 root x\n", 1, "shares `x` of a is not an integer"),
            ("a x root 1\n", 1, "id `x` of a is not an integer"),
        ];
        for (text, line, msg) in cases {
            let e =
                PbsTree::parse_resource_group(text, "rg", &ParseOptions::default()).unwrap_err();
            assert_eq!(e.line, Some(line), "{text}");
            assert!(e.to_string().starts_with(&format!("rg:{line}: ")), "{e}");
            assert!(e.message.contains(msg), "{e}");
            let (t, w) = PbsTree::parse_resource_group(
                text,
                "rg",
                &ParseOptions {
                    lenient: true,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(w.len(), 1);
            assert!(t.len() >= 2);
        }
        let e = PbsTree::parse_resource_group("a 1 root -5\n", "rg", &ParseOptions::default())
            .unwrap_err();
        assert_eq!(e.to_string(), "rg:1: shares of a are negative (-5)");
        let long = "x".repeat(60);
        let e = PbsTree::parse_resource_group(
            &format!("{long} 1 root 1\n"),
            "rg",
            &ParseOptions::default(),
        )
        .unwrap_err();
        assert!(e.message.contains("at most 49 bytes"), "{e}");
    }

    #[test]
    fn strtol_and_strtod_read_as_c_does() {
        assert_eq!(c_strtol("42"), Some(42));
        assert_eq!(c_strtol("+7"), Some(7));
        let (t, _) =
            PbsTree::parse_resource_group("a +10 root +7\n", "rg", &ParseOptions::default())
                .unwrap();
        assert_eq!(
            t.node(t.find("a").unwrap()).shares,
            7,
            "a sign reads the same in C"
        );
        let e = PbsTree::parse_resource_group("a 10 root \x0b7\n", "rg", &ParseOptions::default())
            .unwrap_err();
        assert!(e.message.contains("strtol as 7"), "{e}");
        assert_eq!(c_strtol("\x0b-3"), Some(-3));
        assert_eq!(c_strtol("10\r"), None);
        assert_eq!(c_strtol("-"), None);
        assert_eq!(c_strtol("99999999999999999999"), Some(i64::MAX));
        assert_eq!(c_strtol("-99999999999999999999"), Some(i64::MIN));
        for (text, value, read) in [
            ("5", 5.0, 1),
            (" 5", 5.0, 2),
            ("5 ", 5.0, 1),
            ("0x10", 16.0, 4),
            ("0x1.8p1", 3.0, 7),
            ("0x", 0.0, 1),
            ("1e3", 1000.0, 3),
            ("1e", 1.0, 1),
            (".5", 0.5, 2),
            ("-inf", f64::NEG_INFINITY, 4),
            ("Infinity", f64::INFINITY, 8),
            ("abc", 0.0, 0),
            ("", 0.0, 0),
        ] {
            assert_eq!(c_strtod(text), (value, read), "{text:?}");
        }
        let (v, n) = c_strtod("nan(123)x");
        assert!(v.is_nan());
        assert_eq!(n, 8);
        assert_eq!(pbsfs_set_value(""), Some(0.0));
        assert_eq!(pbsfs_set_value("5 "), None);
        assert_eq!(parse_set_value("12.5", false), Ok(Some(12.5)));
        assert_eq!(parse_set_value("-5", true), Ok(Some(-5.0)));
        assert_eq!(parse_set_value("x", true), Ok(None));
        assert!(
            parse_set_value("0x10", false)
                .unwrap_err()
                .contains("as 16")
        );
    }

    /// fgets(buf, 256, fp): a long line is read as pieces, each a line of its own.
    #[test]
    fn long_lines_and_crlf_as_pbs_reads_them() {
        let lenient = ParseOptions {
            lenient: true,
            ..Default::default()
        };
        let long = format!("a 10 root 10{}b 20 root 5\nc 30 root 1\n", " ".repeat(250));
        let e = PbsTree::parse_resource_group(&long, "rg", &ParseOptions::default()).unwrap_err();
        assert_eq!(e.line, Some(1));
        let (t, w) = PbsTree::parse_resource_group(&long, "rg", &lenient).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert!(t.find("a").is_some() && t.find("b").is_some() && t.find("c").is_some());
        // A line of exactly 255 bytes: its newline is read as a blank line, harmless.
        let exact = format!("a 10 root 10{}\nx 1 nope 1\n", " ".repeat(243));
        let (_, w) = PbsTree::parse_resource_group(&exact, "rg", &lenient).unwrap();
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("rg:3: "), "PBS counts the piece: {w:?}");
        assert!(PbsTree::parse_resource_group(&exact, "rg", &ParseOptions::default()).is_err());
        // CRLF: a fifth token takes the carriage return, so PBS accepts that line.
        let (t, w) =
            PbsTree::parse_resource_group("a 10 root 10 x\r\nb 20 root 5\r\n", "rg", &lenient)
                .unwrap();
        assert!(t.find("a").is_some() && t.find("b").is_none());
        assert!(w[0].contains("resgroup: error on line 2."), "{w:?}");
        assert!(skip_line("\x0b# comment") && skip_line("\r"));
    }
}
