//! The bytes of a job file as they stream past the parsers: checked to be UTF-8 on the way
//! (the whole file, also past the first error, as when the file was read whole first), with
//! no NUL byte and, where a format is read by lines, no line longer than
//! [`text::MAX_LINE`]; and the leading white space and first line peeked at to choose the
//! format (white space counted, not kept, past [`SEEN`] bytes).

use crate::input::text;
use std::io::{self, BufRead, Read};

/// Why the bytes stopped before their end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stop {
    /// A byte that is not UTF-8, at this offset from the start.
    NotUtf8(u64),
    /// A NUL byte at this line and column (bytes, from 1).
    Nul(u64, u64),
    /// A line longer than [`text::MAX_LINE`], this one.
    LongLine(u64),
}

/// A [`BufRead`] that checks that what passes through it is UTF-8 text. A bad byte ends the
/// stream with an error and is kept in [`Utf8Check::stop`].
pub(super) struct Utf8Check<R> {
    inner: R,
    /// Bytes of `inner`'s current buffer already checked.
    checked: usize,
    /// The start of a character cut by the end of a buffer, completed by the next one.
    carry: Vec<u8>,
    /// Offset of the first byte of `inner`'s current buffer.
    offset: u64,
    lines: Lines,
    /// Whether a line may be longer than [`text::MAX_LINE`] (a JSON document may be one line).
    long_lines: bool,
    stop: Option<Stop>,
}

impl<R: BufRead> Utf8Check<R> {
    pub(super) fn new(inner: R) -> Utf8Check<R> {
        Utf8Check {
            inner,
            checked: 0,
            carry: Vec::new(),
            offset: 0,
            lines: Lines::default(),
            long_lines: false,
            stop: None,
        }
    }

    /// Why the bytes stopped early, once they did.
    pub(super) fn stop(&self) -> Option<Stop> {
        self.stop
    }

    /// Let lines be as long as they are: a JSON document is read by its syntax, not by lines.
    pub(super) fn allow_long_lines(&mut self) {
        self.long_lines = true;
    }

    /// Read (and check) the rest, after a parser stopped early: a file that is not UTF-8
    /// says so whatever else is wrong in it. At most [`text::MAX_DRAIN`] bytes more are
    /// read: an input that never ends still gives its error.
    pub(super) fn drain(&mut self) {
        let until = self.offset.saturating_add(text::MAX_DRAIN);
        while self.stop.is_none() && self.offset <= until {
            match self.fill_buf() {
                Ok([]) | Err(_) => break,
                Ok(b) => {
                    let n = b.len();
                    self.consume(n);
                }
            }
        }
    }

    fn stopped(&mut self, stop: Stop) -> io::Error {
        self.stop = Some(stop);
        io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text")
    }

    fn not_utf8(&mut self, at: u64) -> io::Error {
        self.stopped(Stop::NotUtf8(at))
    }
}

/// The lines of the bytes checked so far.
#[derive(Default)]
struct Lines {
    /// Line feeds checked so far, and the offset just past the last one.
    feeds: u64,
    start: u64,
}

impl Lines {
    /// Count the lines of `new` (bytes from offset `at`), stopping at a NUL byte or, unless
    /// `long_lines`, at a line longer than [`text::MAX_LINE`].
    fn of(&mut self, new: &[u8], at: u64, long_lines: bool) -> Result<(), Stop> {
        let nul = text::nul_at(new);
        let upto = &new[..nul.unwrap_or(new.len())];
        if let Some(last) = memchr::memrchr(b'\n', upto) {
            self.feeds += upto.iter().filter(|&&b| b == b'\n').count() as u64;
            self.start = at + last as u64 + 1;
        }
        let end = at + upto.len() as u64;
        if !long_lines && end - self.start > text::MAX_LINE as u64 {
            return Err(Stop::LongLine(self.feeds + 1));
        }
        match nul {
            Some(_) => Err(Stop::Nul(self.feeds + 1, end - self.start + 1)),
            None => Ok(()),
        }
    }
}

/// The length of the UTF-8 sequence a leading byte starts (0: not a leading byte).
fn sequence_len(first: u8) -> usize {
    match first {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 0,
    }
}

impl<R: BufRead> BufRead for Utf8Check<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.stop.is_some() {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "stopped"));
        }
        let buf = self.inner.fill_buf()?;
        if buf.is_empty() && !self.carry.is_empty() {
            let at = self.offset - self.carry.len() as u64;
            return Err(self.not_utf8(at));
        }
        if self.checked < buf.len() {
            let mut new = &buf[self.checked..];
            let mut start = self.offset + self.checked as u64;
            if let Err(stop) = self.lines.of(new, start, self.long_lines) {
                return Err(self.stopped(stop));
            }
            if !self.carry.is_empty() {
                let want = sequence_len(self.carry[0]) - self.carry.len();
                let take = want.min(new.len());
                self.carry.extend_from_slice(&new[..take]);
                if take == want {
                    if std::str::from_utf8(&self.carry).is_err() {
                        let at = start - (self.carry.len() - take) as u64;
                        return Err(self.not_utf8(at));
                    }
                    self.carry.clear();
                }
                new = &new[take..];
                start += take as u64;
            }
            if let Err(e) = std::str::from_utf8(new) {
                let valid = e.valid_up_to();
                if e.error_len().is_some() {
                    return Err(self.not_utf8(start + valid as u64));
                }
                self.carry.extend_from_slice(&new[valid..]);
            }
            self.checked = buf.len();
        }
        // Borrow again: the checks above needed `self` whole.
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
        self.checked -= n.min(self.checked);
        self.offset += n as u64;
    }
}

impl<R: BufRead> Read for Utf8Check<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let buf = self.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// White space as `str::trim_start` sees it, for the bytes a job file may start with.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// How much white space [`skip_space`] keeps as it is: past it, a run of white space is kept
/// as its count of line feeds and the spaces of its last line (a gzip bomb of newlines is
/// counted, not held).
const SEEN: usize = 1 << 20;

/// What was peeked at to choose the format, read again by the parser before the rest (line
/// numbers count from the start): bytes, or white space by count.
#[derive(Default)]
pub(super) struct Seen {
    parts: std::collections::VecDeque<Part>,
    /// Where the white space being skipped starts in the last part.
    space_from: usize,
}

enum Part {
    /// Bytes, and how many were read again.
    Bytes(Vec<u8>, usize),
    /// This many line feeds, or spaces.
    Feeds(u64),
    Spaces(u64),
}

impl Seen {
    /// Bytes to read again.
    pub(super) fn push(&mut self, bytes: &[u8]) {
        match self.parts.back_mut() {
            Some(Part::Bytes(b, _)) => b.extend_from_slice(bytes),
            _ => self.parts.push_back(Part::Bytes(bytes.to_vec(), 0)),
        }
    }

    /// The length of the last part's bytes.
    fn last_len(&self) -> usize {
        match self.parts.back() {
            Some(Part::Bytes(b, _)) => b.len(),
            _ => 0,
        }
    }

    /// White space beyond [`SEEN`] bytes of it, made its counts.
    fn count_space(&mut self) {
        let Some(Part::Bytes(b, _)) = self.parts.back_mut() else {
            return;
        };
        if b.len() - self.space_from <= SEEN {
            return;
        }
        let run = &b[self.space_from..];
        let feeds = run.iter().filter(|&&c| c == b'\n').count() as u64;
        let spaces = run.len() - memchr::memrchr(b'\n', run).map_or(0, |i| i + 1);
        b.truncate(self.space_from);
        if b.is_empty() {
            self.parts.pop_back();
        } else {
            b.shrink_to_fit();
        }
        self.parts.push_back(Part::Feeds(feeds));
        self.parts.push_back(Part::Spaces(spaces as u64));
        self.parts.push_back(Part::Bytes(Vec::new(), 0));
        self.space_from = 0;
    }
}

/// Line feeds and spaces to read from, for white space kept by count.
static FEEDS: [u8; 4096] = [b'\n'; 4096];
static SPACES: [u8; 4096] = [b' '; 4096];

impl Read for Seen {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let buf = self.fill_buf()?;
        let n = buf.len().min(out.len());
        out[..n].copy_from_slice(&buf[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Seen {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while let Some(p) = self.parts.front() {
            let done = match p {
                Part::Bytes(b, at) => *at == b.len(),
                Part::Feeds(n) | Part::Spaces(n) => *n == 0,
            };
            if !done {
                break;
            }
            self.parts.pop_front();
        }
        Ok(match self.parts.front() {
            None => &[],
            Some(Part::Bytes(b, at)) => &b[*at..],
            Some(Part::Feeds(n)) => &FEEDS[..(*n).min(4096) as usize],
            Some(Part::Spaces(n)) => &SPACES[..(*n).min(4096) as usize],
        })
    }

    fn consume(&mut self, k: usize) {
        match self.parts.front_mut() {
            None => {}
            Some(Part::Bytes(_, at)) => *at += k,
            Some(Part::Feeds(n) | Part::Spaces(n)) => *n -= k as u64,
        }
    }
}

/// Move the white space at the front of `r` into `seen`; returns the byte after it (not
/// consumed), `None` at the end.
pub(super) fn skip_space(r: &mut impl BufRead, seen: &mut Seen) -> io::Result<Option<u8>> {
    seen.push(&[]);
    seen.space_from = seen.last_len();
    loop {
        let buf = r.fill_buf()?;
        let Some(&first) = buf.first() else {
            return Ok(None);
        };
        let n = buf.iter().take_while(|&&b| is_space(b)).count();
        seen.push(&buf[..n]);
        r.consume(n);
        seen.count_space();
        if n == 0 {
            return Ok(Some(first));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything through a checker whose inner buffer is `cap` bytes.
    fn through(bytes: &[u8], cap: usize) -> (Vec<u8>, Option<u64>) {
        let mut r = Utf8Check::new(io::BufReader::with_capacity(cap, bytes));
        let mut out = Vec::new();
        let _ = r.read_to_end(&mut out);
        let bad = match r.stop() {
            Some(Stop::NotUtf8(at)) => Some(at),
            _ => None,
        };
        (out, bad)
    }

    #[test]
    fn characters_cut_by_a_buffer_end_are_checked_whole() {
        let text = "ä€𝄞 plain x€".as_bytes();
        for cap in 1..8 {
            assert_eq!(through(text, cap), (text.to_vec(), None), "cap {cap}");
        }
        // A bad byte, a cut sequence that never completes, and one completed badly.
        for (bytes, at) in [
            (&b"ab\xffcd"[..], 2),
            (&b"ab\xe2\x82"[..], 2),
            (&b"a\xe2\x82b"[..], 1),
        ] {
            for cap in 1..5 {
                assert_eq!(through(bytes, cap).1, Some(at), "{bytes:?} cap {cap}");
            }
        }
    }
}

#[cfg(test)]
mod seen_tests {
    use super::*;

    /// White space past [`SEEN`] bytes is given back as its line feeds and last spaces.
    #[test]
    fn long_white_space_is_given_back_by_count() {
        let mut text = b"\t \n".repeat(SEEN);
        text.extend_from_slice(b"  x");
        let mut seen = Seen::default();
        let mut r = &text[..];
        assert_eq!(skip_space(&mut r, &mut seen).unwrap(), Some(b'x'));
        assert!(seen.parts.len() > 2, "counted");
        let mut back = Vec::new();
        seen.read_to_end(&mut back).unwrap();
        let feeds = back.iter().filter(|&&b| b == b'\n').count();
        assert_eq!(feeds, SEEN);
        assert!(back.ends_with(b"\n  "), "the last line's spaces");
    }
}
