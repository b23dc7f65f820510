//! How PBS's C code reads text, for the PBS tree and `pbsfs`: comment lines, `fgets` pieces of
//! 255 bytes, `strtol` into an `int`, `strtod` (`pbsfs -s` values), as OpenPBS's
//! `fairshare.cpp` (`parse_group`) and `pbsfs.c` read them.

/// `skip_line`: blank, or the first non-space character is `#` or `*` (spaces as C's
/// `isspace`: also `\r`, `\v` and `\f`).
pub fn skip_line(line: &str) -> bool {
    let t = line.trim_start_matches(|c: char| c.is_ascii() && is_c_space(c as u8));
    t.is_empty() || t.starts_with('#') || t.starts_with('*')
}

/// C's `isspace` in the C locale.
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// The longest piece `fgets(buf, 256, fp)` returns.
pub const PBS_LINE_MAX: usize = 255;

/// The pieces `fgets(buf, 256, fp)` reads from one line (with its newline, if any): at most
/// 255 bytes each, the newline removed from the piece that ends with it.
pub(super) fn fgets_pieces(line: &[u8]) -> Vec<&[u8]> {
    line.chunks(PBS_LINE_MAX)
        .map(|p| p.strip_suffix(b"\n").unwrap_or(p))
        .collect()
}

/// `strtol(tok, &endp, 10)` where `*endp` must be `'\0'`: leading C spaces, an optional sign
/// and at least one digit, the whole token; out-of-range values saturate to `LONG_MIN` /
/// `LONG_MAX` as `strtol` does. `None` where PBS's `*endp == '\0'` check fails.
pub fn c_strtol(tok: &str) -> Option<i64> {
    let b = tok.as_bytes();
    let mut i = 0;
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    let neg = match b.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits = &b[i..];
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        let d = (d - b'0') as i64;
        v = match v.checked_mul(10).and_then(|x| {
            if neg {
                x.checked_sub(d)
            } else {
                x.checked_add(d)
            }
        }) {
            Some(x) => x,
            None => return Some(if neg { i64::MIN } else { i64::MAX }),
        };
    }
    Some(v)
}

/// A `resource_group` number as PBS reads it into an `int` (`strtol`, then the `long` narrowed
/// to 32 bits). Strict mode rejects what PBS would read differently from what the file says.
pub(super) fn c_int_field(
    field: &str,
    tok: &str,
    name: &str,
    lenient: bool,
    warn: &mut dyn FnMut(String),
) -> Result<i32, String> {
    let Some(v) = c_strtol(tok) else {
        let shown = tok.escape_debug();
        let why = if tok.ends_with('\r') {
            "; the line ends with a carriage return (CRLF line endings), which PBS keeps as part \
             of the last token, so it skips every such line: convert the file to LF endings"
        } else {
            ""
        };
        return Err(format!(
            "{field} `{shown}` of {name} is not an integer{why}"
        ));
    };
    // gcc narrows a long to an int by keeping the low 32 bits.
    let stored = v as i32;
    let plain = tok.parse::<i64>().ok() == Some(v);
    if stored as i64 != v {
        let msg = format!(
            "{field} {tok} of {name} do not fit in a C int (-2147483648..2147483647): PBS reads \
             {v} and keeps the low 32 bits, {stored}"
        );
        if !lenient {
            return Err(msg + " (--lenient does the same)");
        }
        warn(format!("{msg}, as here"));
    } else if !plain && !lenient {
        return Err(format!(
            "{field} `{}` of {name} is not a plain integer: PBS reads it with strtol as {stored} \
             (write {stored}, or use --lenient)",
            tok.escape_debug()
        ));
    }
    Ok(stored)
}

/// `strtod(s, &endp)` in the C locale: the value and the number of bytes read (0 when there is
/// no number). Accepts what glibc does: leading C spaces, a sign, decimal numbers with an
/// optional exponent, hexadecimal numbers (`0x1.8p3`), `inf`, `infinity` and `nan(...)` in any
/// case. (Hexadecimal mantissas beyond 53 bits are rounded by plain `f64` arithmetic.)
pub fn c_strtod(s: &str) -> (f64, usize) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    let neg = b.get(i) == Some(&b'-');
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let sign = if neg { -1.0 } else { 1.0 };
    let rest = &s[i..];
    let lower = rest.to_ascii_lowercase();
    if lower.starts_with("infinity") {
        return (sign * f64::INFINITY, i + 8);
    }
    if lower.starts_with("inf") {
        return (sign * f64::INFINITY, i + 3);
    }
    if lower.starts_with("nan") {
        let mut end = i + 3;
        if b.get(end) == Some(&b'(')
            && let Some(close) = b[end + 1..]
                .iter()
                .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))
            && b[end + 1 + close] == b')'
        {
            end += close + 2;
        }
        return (f64::NAN, end);
    }
    let digits = |from: usize, hex: bool| {
        b[from..]
            .iter()
            .take_while(|c| {
                if hex {
                    c.is_ascii_hexdigit()
                } else {
                    c.is_ascii_digit()
                }
            })
            .count()
    };
    if lower.starts_with("0x") {
        let start = i + 2;
        let int = digits(start, true);
        let mut end = start + int;
        let mut frac = 0;
        if b.get(end) == Some(&b'.') {
            frac = digits(end + 1, true);
        }
        if int + frac > 0 {
            let mut m = 0.0f64;
            for &c in &b[start..start + int] {
                m = m * 16.0 + (c as char).to_digit(16).unwrap_or(0) as f64;
            }
            let mut scale = 0i32;
            if b.get(end) == Some(&b'.') {
                for &c in &b[end + 1..end + 1 + frac] {
                    m = m * 16.0 + (c as char).to_digit(16).unwrap_or(0) as f64;
                    scale -= 4;
                }
                end += 1 + frac;
            }
            if matches!(b.get(end), Some(b'p' | b'P')) {
                let mut e = end + 1;
                let eneg = b.get(e) == Some(&b'-');
                if matches!(b.get(e), Some(b'-' | b'+')) {
                    e += 1;
                }
                let n = digits(e, false);
                if n > 0 {
                    let v: i32 = s[e..e + n].parse().unwrap_or(i32::MAX);
                    scale = scale.saturating_add(if eneg { -v } else { v });
                    end = e + n;
                }
            }
            return (sign * m * 2f64.powi(scale), end);
        }
        // `0x` with no hex digit: strtod reads the `0`.
        return (sign * 0.0, i + 1);
    }
    let int = digits(i, false);
    let mut end = i + int;
    let mut frac = 0;
    if b.get(end) == Some(&b'.') {
        frac = digits(end + 1, false);
        if int + frac > 0 {
            end += 1 + frac;
        }
    }
    if int + frac == 0 {
        return (0.0, 0);
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let mut e = end + 1;
        if matches!(b.get(e), Some(b'-' | b'+')) {
            e += 1;
        }
        let n = digits(e, false);
        if n > 0 {
            end = e + n;
        }
    }
    let v: f64 = s[i..end].parse().unwrap_or(0.0);
    (sign * v, end)
}

/// How `pbsfs -s ENT VAL` reads VAL (pbsfs.cpp, `main`): `val = strtod(VAL, &endp)`, used only
/// `if (*endp == '\0')`. `None`: pbsfs leaves the usage unchanged (and still rewrites the
/// file). An empty VAL reads as 0, as `strtod` leaves `endp` at its terminating NUL.
pub fn pbsfs_set_value(val: &str) -> Option<f64> {
    let (v, n) = c_strtod(val);
    (n == val.len()).then_some(v)
}

/// The usage `-s ENT VAL` sets. Lenient: exactly pbsfs's reading ([`pbsfs_set_value`]; `None`
/// leaves the usage unchanged). Strict: a plain finite number >= 0, or an error that says
/// what pbsfs would have done with VAL.
pub fn parse_set_value(val: &str, lenient: bool) -> Result<Option<f64>, String> {
    let pbs = pbsfs_set_value(val);
    if lenient {
        return Ok(pbs);
    }
    let plain: Option<f64> = val.parse().ok();
    match (pbs, plain) {
        (Some(v), Some(p)) if v.to_bits() == p.to_bits() && v.is_finite() && v >= 0.0 => {
            Ok(Some(v))
        }
        (None, _) => Err(format!(
            "usage `{}` is not a number: pbsfs ignores a value strtod cannot read whole and \
             rewrites the usage file unchanged (--lenient does the same)",
            val.escape_debug()
        )),
        (Some(v), _) if v.is_nan() || v < 0.0 => Err(format!(
            "usage `{}` is {}: pbsfs would store it, and the scheduler skips a record with \
             usage that is not >= 0 on every read (\"Invalid entity\"), so the entity's usage \
             would go back to 1 (--lenient stores it, as pbsfs does)",
            val.escape_debug(),
            if v.is_nan() {
                "not a number"
            } else {
                "negative"
            }
        )),
        (Some(v), _) if v.is_infinite() => Err(format!(
            "usage `{}` is infinite: pbsfs would store inf, which makes every usage ratio on \
             its path inf or NaN (--lenient stores it, as pbsfs does)",
            val.escape_debug()
        )),
        (Some(v), _) => Err(format!(
            "usage `{}` is not a plain number: pbsfs reads it with strtod as {v} (write {v}, \
             or use --lenient)",
            val.escape_debug()
        )),
    }
}
