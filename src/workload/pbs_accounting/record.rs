//! One accounting line: `MM/DD/YYYY HH:MM:SS;T;ID;MESSAGE` (OpenPBS
//! `src/server/accounting.c: write_account_record`), and the `key=value` tokens of a job
//! record's message, with PBS's quoting (`cpy_quote_value`: a value holding a space is
//! wrapped in `"…"`, or in `'…'` when it also holds a `"`; nothing is escaped).

/// A line split into its parts; the prefix (the server's local time, no zone) is checked
/// for its shape and otherwise unused: every time comes from the epoch keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Line<'a> {
    pub kind: u8,
    pub id: &'a str,
    pub message: &'a str,
}

/// Whether `line` starts like an accounting record (the format sniff).
pub(crate) fn looks_like_record(line: &str) -> bool {
    let b = line.as_bytes();
    b.len() >= 22 && prefix_ok(b) && b[19] == b';' && b[21] == b';'
}

/// Whether `b` starts with `MM/DD/YYYY HH:MM:SS`: a digit at each `0` of [`SHAPE`], the
/// shape's own byte elsewhere. Three overlapping words, every byte checked at once.
fn prefix_ok(b: &[u8]) -> bool {
    let Some(p) = b.get(..19) else {
        return false;
    };
    shaped(word_at(p, 0), 0) & shaped(word_at(p, 8), 8) & shaped(word_at(p, 11), 11)
}

/// The 8 bytes of `b` from `at`, little-endian; callers pass an `at` with 8 bytes after it
/// (a shorter rest would read as 0, no byte of which is a digit or a sought byte but NUL).
#[inline]
fn word_at(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .and_then(|w| w.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// The accounting prefix's shape, a `0` where any digit goes.
const SHAPE: &[u8; 19] = b"00/00/0000 00:00:00";

/// The 8 bytes of [`SHAPE`] from `at`, and the mask of those that are digits.
const fn shape_word(at: usize) -> (u64, u64) {
    let (mut text, mut digits, mut i) = (0u64, 0u64, 0);
    while i < 8 {
        text |= (SHAPE[at + i] as u64) << (8 * i);
        if SHAPE[at + i] == b'0' {
            digits |= 0xff << (8 * i);
        }
        i += 1;
    }
    (text, digits)
}

/// Whether the word `w` read at `at` fits the shape: each separator byte equal, each digit
/// byte `0x30..=0x39` (high nibble 3, low nibble plus 6 below 16: no carry between bytes).
#[inline]
fn shaped(w: u64, at: usize) -> bool {
    const LOW: u64 = 0x0f0f_0f0f_0f0f_0f0f;
    const SIX: u64 = 0x0606_0606_0606_0606;
    const SIXTEEN: u64 = 0x1010_1010_1010_1010;
    let (text, digits) = match at {
        0 => const { shape_word(0) },
        8 => const { shape_word(8) },
        _ => const { shape_word(11) },
    };
    let fixed = !digits | (digits & !LOW);
    let high_ok = (w ^ text) & fixed == 0;
    let low_ok = ((w & digits & LOW) + (digits & SIX)) & SIXTEEN == 0;
    high_ok & low_ok
}

/// Split a line (without its newline) into type, id and message.
pub(super) fn split_line(line: &str) -> Result<Line<'_>, String> {
    let b = line.as_bytes();
    if b.len() < 22 || !prefix_ok(b) || b[19] != b';' || b[21] != b';' {
        let shown: String = line.chars().take(40).collect();
        return Err(format!(
            "not an accounting record (expected `MM/DD/YYYY HH:MM:SS;T;ID;MESSAGE`): `{shown}`"
        ));
    }
    let rest = &line[22..];
    let semi = find_byte(rest.as_bytes(), b';').ok_or("no `;` after the record's id")?;
    let (id, message) = (&rest[..semi], &rest[semi + 1..]);
    if id.is_empty() {
        return Err("the record has an empty id".into());
    }
    Ok(Line {
        kind: b[20],
        id,
        message,
    })
}

/// The `key=value` tokens of a message, in order.
pub(super) fn attributes(message: &str) -> Attributes<'_> {
    Attributes { rest: message }
}

pub(super) struct Attributes<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Attributes<'a> {
    type Item = Result<(&'a str, &'a str), String>;

    fn next(&mut self) -> Option<Self::Item> {
        // Past the spaces (one between tokens, as PBS writes them), a byte at a time.
        let r = self.rest.as_bytes();
        let skip = r.iter().position(|&c| c != b' ').unwrap_or(r.len());
        let s = &self.rest[skip..];
        let b = s.as_bytes();
        if b.is_empty() {
            self.rest = s;
            return None;
        }
        // The key runs to `=`; a space first means no value.
        let i = find(b, |w| bytes_are(w, b'=') | bytes_are(w, b' ')).unwrap_or(b.len());
        if i == b.len() || b[i] == b' ' {
            self.rest = "";
            return Some(Err(format!("`{}` is not a key=value attribute", &s[..i])));
        }
        let key = &s[..i];
        let after = &s[i + 1..];
        let a = after.as_bytes();
        // A quoted value runs to the same quote followed by a space or the end.
        if let Some(&q @ (b'"' | b'\'')) = a.first() {
            for close in memchr::memchr_iter(q, &a[1..]).map(|c| c + 1) {
                if close + 1 == a.len() || a[close + 1] == b' ' {
                    self.rest = &after[close + 1..];
                    return Some(Ok((key, &after[1..close])));
                }
            }
            // No closing quote: a bare value that happens to start with a quote.
        }
        let end = find(a, |w| bytes_are(w, b' ')).unwrap_or(a.len());
        self.rest = &after[end..];
        Some(Ok((key, &after[..end])))
    }
}

/// The first `c` in `b` ([`find`]: for the short fields of a record).
#[inline]
pub(super) fn find_byte(b: &[u8], c: u8) -> Option<usize> {
    find(b, |w| bytes_are(w, c))
}

/// `a == b`, inline for the short values of a record (names, numbers, resources) where a
/// call to `memcmp` costs more than the compare: two overlapping loads from each end.
#[inline]
pub(super) fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let u64_at = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().expect("8"));
    let u32_at = |s: &[u8], i: usize| u32::from_le_bytes(s[i..i + 4].try_into().expect("4"));
    match n {
        0..4 => a.iter().zip(b).all(|(x, y)| x == y),
        4..8 => u32_at(a, 0) == u32_at(b, 0) && u32_at(a, n - 4) == u32_at(b, n - 4),
        8..=16 => u64_at(a, 0) == u64_at(b, 0) && u64_at(a, n - 8) == u64_at(b, n - 8),
        _ => a == b,
    }
}

/// `s.split(c)` for an ASCII `c`, with [`find_byte`].
pub(super) fn split_on(s: &str, c: u8) -> impl Iterator<Item = &str> {
    let mut rest = Some(s);
    std::iter::from_fn(move || {
        let r = rest?;
        match find_byte(r.as_bytes(), c) {
            Some(i) => {
                rest = Some(&r[i + 1..]);
                Some(&r[..i])
            }
            None => {
                rest = None;
                Some(r)
            }
        }
    })
}

/// The high bit of each byte of `w` that is `c`, and no other bit.
#[inline]
fn bytes_are(w: u64, c: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let v = w ^ (0x0101_0101_0101_0101 * u64::from(c));
    // A byte's low seven bits plus 0x7f reach its high bit unless they are all zero (and
    // never carry into the next byte); with its own high bit, a byte is zero when neither.
    !((((v & LOW7) + LOW7) | v) | LOW7)
}

/// The first byte of `b` that `hits` marks (a mask of [`bytes_are`]), eight bytes at a time:
/// a record's keys and values are a few to a few tens of bytes, too short for `memchr`'s
/// vectors to pay for their setup and call.
#[inline]
fn find(b: &[u8], hits: impl Fn(u64) -> u64) -> Option<usize> {
    let mut words = b.chunks_exact(8);
    let mut at = 0;
    for w in &mut words {
        let m = hits(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        if m != 0 {
            return Some(at + (m.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let tail = words.remainder().len();
    if tail == 0 {
        return None;
    }
    let m = if b.len() >= 8 {
        // The last word again, its bytes already looked at shifted out.
        hits(word_at(b, b.len() - 8)) >> (8 * (8 - tail))
    } else {
        let mut w = 0u64;
        for (i, &c) in b.iter().enumerate() {
            w |= u64::from(c) << (8 * i);
        }
        hits(w) & ((1u64 << (8 * tail)) - 1)
    };
    (m != 0).then(|| at + (m.trailing_zeros() / 8) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_splits_into_type_id_and_message() {
        let l = split_line("01/26/2016 00:00:37;E;2994.pbs;user=a group=b").unwrap();
        assert_eq!(
            (l.kind, l.id, l.message),
            (b'E', "2994.pbs", "user=a group=b")
        );
        // An empty message ends in `;` (write_account_record); the message may hold `;`.
        let l = split_line("01/26/2016 00:00:37;C;7.srv;").unwrap();
        assert_eq!((l.kind, l.id, l.message), (b'C', "7.srv", ""));
        let l = split_line("01/26/2016 00:00:37;a;7.srv;Job_Name=x;y").unwrap();
        assert_eq!(l.message, "Job_Name=x;y");
        assert!(looks_like_record("01/26/2016 00:00:37;L;license;floating"));
        for bad in [
            "1 0 0 10 1 -1",
            "2016-01-26 00:00:37;E;1;",
            "01/26/2016 00:00:37;E",
            "01/26/2016 00:00:37;EE;1;",
        ] {
            assert!(split_line(bad).is_err(), "{bad}");
            assert!(!looks_like_record(bad), "{bad}");
        }
        assert_eq!(
            split_line("01/26/2016 00:00:37;E;;x=1").unwrap_err(),
            "the record has an empty id"
        );
    }

    #[test]
    fn the_prefix_check_is_bytewise_at_every_place_and_value() {
        // The byte-at-a-time definition the word check must match.
        let reference = |b: &[u8]| {
            b.len() >= 19
                && SHAPE.iter().zip(b).all(|(&s, &c)| {
                    if s == b'0' {
                        c.is_ascii_digit()
                    } else {
                        c == s
                    }
                })
        };
        let good = *b"12/31/2016 23:59:59;E;1;";
        assert!(prefix_ok(&good));
        for at in 0..good.len() {
            for c in 0..=255u8 {
                let mut b = good;
                b[at] = c;
                assert_eq!(prefix_ok(&b), reference(&b), "byte {at} = {c:#04x}");
            }
        }
        for n in 0..19 {
            assert!(!prefix_ok(&good[..n]), "{n} bytes");
        }
    }

    #[test]
    fn find_is_the_first_byte_at_every_length_and_place() {
        let eq_or_space = |w| bytes_are(w, b'=') | bytes_are(w, b' ');
        // Bytes next to `=` and ` ` in value, `=` and ` ` with the high bit set, 0, 0xff.
        let near = [b'<', b'>', 0x1f, b'!', 0xbd, 0xa0, 0, 0xff, b'a'];
        for n in 0..40 {
            let hay: Vec<u8> = (0..n).map(|i| near[i % near.len()]).collect();
            assert_eq!(find(&hay, eq_or_space), None, "{hay:?}");
            for at in 0..n {
                for c in [b'=', b' '] {
                    let mut h = hay.clone();
                    h[at] = c;
                    assert_eq!(find(&h, eq_or_space), Some(at), "{h:?}");
                    // A later one does not hide it.
                    if at + 1 < n {
                        h[n - 1] = b' ';
                        assert_eq!(find(&h, eq_or_space), Some(at), "{h:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn same_is_string_equality_at_every_length() {
        let text = "abcdefghijklmnopqrstuvwxyz0123456789";
        for n in 0..text.len() {
            let a = &text[..n];
            assert!(same(a, a), "{a}");
            assert!(!same(a, &text[..n + 1]), "{a}");
            // One byte different anywhere.
            for i in 0..n {
                let mut b = a.as_bytes().to_vec();
                b[i] = b'.';
                let b = std::str::from_utf8(&b).unwrap();
                assert!(!same(a, b), "{a} {b}");
            }
        }
    }

    #[test]
    fn split_on_is_str_split() {
        for s in [
            "",
            "+",
            "a",
            "a+b",
            "+a+",
            "a++bb+ccc+dddd+eeeee+ffffff+ggggggg",
            "ab:cd",
        ] {
            let got: Vec<_> = split_on(s, b'+').collect();
            assert_eq!(got, s.split('+').collect::<Vec<_>>(), "{s:?}");
        }
    }

    #[test]
    fn quoted_values_keep_their_spaces() {
        // cpy_quote_value: `account` is always quoted; a value with a space is quoted with
        // `"`, or with `'` when it also holds a `"`.
        let m = r#"user=u account="big lab" jobname='say "hi" now' project=p  run_count=1 "#;
        let got: Vec<_> = attributes(m).collect::<Result<_, _>>().unwrap();
        assert_eq!(
            got,
            [
                ("user", "u"),
                ("account", "big lab"),
                ("jobname", r#"say "hi" now"#),
                ("project", "p"),
                ("run_count", "1"),
            ]
        );
        // A value may itself contain `=` (select chunks), or start with a quote and hold none
        // after it.
        let got: Vec<_> = attributes(r#"Resource_List.select=2:ncpus=4 x="y"#)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(got, [("Resource_List.select", "2:ncpus=4"), ("x", "\"y")]);
        let e = attributes("user=u Job deleted")
            .nth(1)
            .unwrap()
            .unwrap_err();
        assert_eq!(e, "`Job` is not a key=value attribute");
    }
}
