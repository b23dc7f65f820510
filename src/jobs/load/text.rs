//! The bytes of a job file as they stream past the parsers: checked to be UTF-8 on the way
//! (the whole file, also past the first error, as when the file was read whole first), and
//! the leading white space and first line peeked at to choose the format.

use std::io::{self, BufRead, Read};

/// A [`BufRead`] that checks that what passes through it is UTF-8. A bad byte ends the
/// stream with an error and is kept in [`Utf8Check::bad`] (its offset from the start).
pub(super) struct Utf8Check<R> {
    inner: R,
    /// Bytes of `inner`'s current buffer already checked.
    checked: usize,
    /// The start of a character cut by the end of a buffer, completed by the next one.
    carry: Vec<u8>,
    /// Offset of the first byte of `inner`'s current buffer.
    offset: u64,
    bad: Option<u64>,
}

impl<R: BufRead> Utf8Check<R> {
    pub(super) fn new(inner: R) -> Utf8Check<R> {
        Utf8Check {
            inner,
            checked: 0,
            carry: Vec::new(),
            offset: 0,
            bad: None,
        }
    }

    /// The offset of the first byte that is not UTF-8, once one was met.
    pub(super) fn bad(&self) -> Option<u64> {
        self.bad
    }

    /// Read (and check) the rest, after a parser stopped early: a file that is not UTF-8
    /// says so whatever else is wrong in it.
    pub(super) fn drain(&mut self) {
        while self.bad.is_none() {
            match self.fill_buf() {
                Ok([]) | Err(_) => break,
                Ok(b) => {
                    let n = b.len();
                    self.consume(n);
                }
            }
        }
    }

    fn not_utf8(&mut self, at: u64) -> io::Error {
        self.bad = Some(at);
        io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text")
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
        if let Some(at) = self.bad {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("not UTF-8 text (byte {at})"),
            ));
        }
        let buf = self.inner.fill_buf()?;
        if buf.is_empty() && !self.carry.is_empty() {
            let at = self.offset - self.carry.len() as u64;
            return Err(self.not_utf8(at));
        }
        if self.checked < buf.len() {
            let mut new = &buf[self.checked..];
            let mut start = self.offset + self.checked as u64;
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

/// Move the white space at the front of `r` into `into`; returns the byte after it (not
/// consumed), `None` at the end.
pub(super) fn skip_space(r: &mut impl BufRead, into: &mut Vec<u8>) -> io::Result<Option<u8>> {
    loop {
        let buf = r.fill_buf()?;
        let Some(&first) = buf.first() else {
            return Ok(None);
        };
        let n = buf.iter().take_while(|&&b| is_space(b)).count();
        into.extend_from_slice(&buf[..n]);
        r.consume(n);
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
        (out, r.bad())
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
