//! What every reader of a text format shares about the bytes it is given: how long a line
//! may be before the input is taken for something that never ends (`/dev/zero`, a stream
//! without line ends), the byte no text holds (NUL), and how a message quotes what it read
//! (control characters escaped, so an input cannot act on the terminal that shows the
//! error; formula diagnostics quote their source the same way).

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

/// The longest line a line format's reader takes: no line of a trace, a site's log, a job
/// file or a configuration file comes near it (PBS accounting's longest, a job's
/// `exec_vnode` over thousands of nodes, is a few hundred KB). A longer line is an error at
/// its line, read no further, so an input without line ends is never held whole.
pub const MAX_LINE: usize = 16 << 20;

/// How far past a parser's error a reader still reads, for an error the whole text would
/// give first (text that is not UTF-8 further on, a gzip error): enough for any line, and a
/// bound for an input that never ends.
pub const MAX_DRAIN: u64 = 4 * MAX_LINE as u64;

/// The offset of the first NUL byte in `bytes`: no text format holds one, and an input that
/// does (`/dev/zero`, a binary file, a gzip bomb of zeros) is an error at once.
pub fn nul_at(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(0, bytes)
}

/// The 1-based line and column (in bytes) of `bytes[at]`, for a text whose `bytes` start on
/// line `line` at column `column`.
pub fn line_column(bytes: &[u8], at: usize, line: usize, column: usize) -> (usize, usize) {
    let before = &bytes[..at];
    let lines = before.iter().filter(|&&b| b == b'\n').count();
    match memchr::memrchr(b'\n', before) {
        Some(nl) => (line + lines, at - nl),
        None => (line, column + at),
    }
}

/// The largest configuration file a reader takes whole (slurm.conf and the files it
/// includes, a PBS `resource_group`, a usage map): a site's biggest are a few MB.
pub const MAX_CONFIG: u64 = 64 << 20;

/// All of `r`, when it holds at most `limit` bytes: at most `limit + 1` are read, so an input
/// that never ends (`/dev/zero`, a pipe left open) is an error, never held whole. The error
/// says what was wrong, for the caller to place (`file: ...`).
pub fn read_at_most(r: impl Read, limit: u64) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    r.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "longer than {} (the most this file may hold)",
            size_text(limit)
        ));
    }
    Ok(bytes)
}

/// The text of the file at `path` ([`read_at_most`] of it, then checked to be UTF-8 without a
/// NUL byte); the error says what was wrong (`cannot read: ...`, `longer than 64 MiB ...`,
/// `1:5: a NUL byte ...`).
pub fn read_text_at_most(path: &Path, limit: u64) -> Result<String, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    text_of(read_at_most(file, limit)?)
}

/// `bytes` as text: UTF-8 without a NUL byte, else where the first bad byte is.
pub fn text_of(bytes: Vec<u8>) -> Result<String, String> {
    if let Some(at) = nul_at(&bytes) {
        let (line, column) = line_column(&bytes, at, 1, 1);
        return Err(format!("{line}:{column}: {NUL_BYTE}"));
    }
    String::from_utf8(bytes)
        .map_err(|e| format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()))
}

/// A size in bytes as a person reads it (`64 KiB`, `64 MiB`, `100 bytes`).
pub fn size_text(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// The message of a NUL byte in a text.
pub const NUL_BYTE: &str = "a NUL byte: this is not text";

/// Whether `c` would act on a terminal instead of being printed: control characters but the
/// newline and tab, and the bidirectional overrides that reorder what is shown.
pub fn is_unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Push `c`, escaped (`\u{1b}`) when it is an [`is_unsafe_char`].
pub fn push_escaped(out: &mut String, c: char) {
    if is_unsafe_char(c) {
        out.extend(c.escape_default());
    } else {
        out.push(c);
    }
}

/// `text` with [`is_unsafe_char`]s escaped: what a message may quote of an input.
pub fn escaped(text: &str) -> Cow<'_, str> {
    if text.chars().any(is_unsafe_char) {
        let mut out = String::with_capacity(text.len() + 8);
        for c in text.chars() {
            push_escaped(&mut out, c);
        }
        out.into()
    } else {
        text.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_from_the_texts_start() {
        let t = b"ab\ncd\0";
        assert_eq!(nul_at(t), Some(5));
        assert_eq!(line_column(t, 5, 1, 1), (2, 3));
        assert_eq!(line_column(t, 1, 4, 10), (4, 11));
    }

    #[test]
    fn a_bounded_read_stops_one_byte_past_its_limit() {
        assert_eq!(read_at_most(&b"abc"[..], 3).unwrap(), b"abc");
        let e = read_at_most(std::io::repeat(b'a'), 1 << 16).unwrap_err();
        assert_eq!(e, "longer than 64 KiB (the most this file may hold)");
        let e = text_of(b"a\nbc\0".to_vec()).unwrap_err();
        assert_eq!(e, "2:3: a NUL byte: this is not text");
    }

    #[test]
    fn control_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(
            escaped("a\u{1b}[2Jb\u{7}\tc\nd"),
            "a\\u{1b}[2Jb\\u{7}\tc\nd"
        );
        assert!(matches!(escaped("plain ä"), Cow::Borrowed(_)));
    }
}
