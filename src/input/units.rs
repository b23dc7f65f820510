//! PBS value syntax → the numbers a formula sees: times in seconds, sizes in kilobytes
//! (`res_to_num` in OpenPBS `src/scheduler/misc.cpp`).

/// Parse a PBS duration: `SS`, `MM:SS` or `HH:MM:SS` (each part may be fractional in the
/// last position, e.g. `01:00:30.5`). Returns seconds.
pub fn parse_time(s: &str) -> Result<f64, String> {
    let s = s.trim();
    let bad = || format!("`{s}` is not a time (expected SS, MM:SS or HH:MM:SS)");
    let parts = s.bytes().filter(|&b| b == b':').count() + 1;
    if parts > 3 {
        return Err(bad());
    }
    let mut seconds = 0.0;
    for (i, part) in s.split(':').enumerate() {
        let last = i + 1 == parts;
        let v = match digits(part) {
            Some(n) => n as f64,
            None => {
                let ok_chars = !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_digit() || (last && c == '.'));
                ok_chars
                    .then(|| part.parse::<f64>().ok())
                    .flatten()
                    .ok_or_else(bad)?
            }
        };
        seconds = seconds * 60.0 + v;
    }
    // PBS keeps a time as a count of seconds in a signed 64-bit `long`.
    if seconds >= i64::MAX as f64 {
        return Err(format!(
            "`{s}` is out of range: more seconds than a 64-bit count holds"
        ));
    }
    Ok(seconds)
}

/// A whole number of 1 to 19 ASCII digits (no sign), as read from a log: every such text
/// fits a `u64`, and `as f64` rounds it as `str::parse::<f64>` rounds its decimal text (both
/// give the nearest `f64` to the same integer), so callers take it as a fast path and keep
/// `str::parse` for everything else.
#[inline]
pub fn digits(s: &str) -> Option<u64> {
    digit_bytes(s.as_bytes())
}

/// [`digits`] of bytes (a field of a line already known to be ASCII, not yet made a `str`).
#[inline]
pub fn digit_bytes(b: &[u8]) -> Option<u64> {
    if b.is_empty() || b.len() > 19 {
        return None;
    }
    let mut n = 0u64;
    for &c in b {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n * 10 + u64::from(d);
    }
    Some(n)
}

/// A size ([`parse_size`]) as a whole number of KB (rounded up, as `parse_size` rounds), for a
/// count kept in a `u64` (`sim --mem`): a size past `u64::MAX` KB is an error naming that
/// maximum, never clamped to it.
pub fn parse_size_kb(s: &str) -> Result<u64, String> {
    let kb = parse_size(s)?;
    // `u64::MAX as f64` is 2^64 itself: every smaller f64 fits.
    if kb >= u64::MAX as f64 {
        return Err(format!(
            "`{s}` is more than the largest size, {} KB (16 ZiB)",
            u64::MAX
        ));
    }
    Ok(kb as u64)
}

/// Parse a PBS size with a unit suffix (`4gb`, `512mb`, `10kb`, `100b`, `8w`, `2kw`, case
/// insensitive; `b` may be omitted after k/m/g/t/p). Returns kilobytes as PBS's scheduler
/// does (`res_to_num`): whole kilobytes for k and larger units (`kw`… times 8), bytes
/// rounded up to the next kilobyte, and plain words rounded up to the next 1024 words and
/// then times 8 (`1w` is 8 kb).
/// A string with no unit is a number of bytes (PBS's default unit).
pub fn parse_size(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = match digits(num) {
        Some(n) => n as f64,
        None => num.parse().map_err(|_| {
            format!(
                "`{s}` is not a size (expected a number with an optional unit such as 4gb, 512mb, 10kb)"
            )
        })?,
    };
    // The unit, case insensitive: at most two bytes, lowercased in place (no allocation).
    let u = unit.as_bytes();
    let mut lower = [0u8; 2];
    let key: &[u8] = if u.len() <= 2 {
        for (l, c) in lower.iter_mut().zip(u) {
            *l = c.to_ascii_lowercase();
        }
        &lower[..u.len()]
    } else {
        b"?"
    };
    // Units in bytes; `w` is an 8-byte word.
    let (scale_bytes, word) = match key {
        b"" | b"b" => (1.0, false),
        b"k" | b"kb" => (1024.0, false),
        b"m" | b"mb" => (1024.0 * 1024.0, false),
        b"g" | b"gb" => (1024.0 * 1024.0 * 1024.0, false),
        b"t" | b"tb" => (1024.0f64.powi(4), false),
        b"p" | b"pb" => (1024.0f64.powi(5), false),
        b"w" => (1.0, true),
        b"kw" => (1024.0, true),
        b"mw" => (1024.0 * 1024.0, true),
        b"gw" => (1024.0 * 1024.0 * 1024.0, true),
        b"tw" => (1024.0f64.powi(4), true),
        _ => {
            return Err(format!(
                "`{s}` has an unknown size unit `{}` (use b, kb, mb, gb, tb, pb or w, kw, mw, gw, tw)",
                unit.to_ascii_lowercase()
            ));
        }
    };
    if key == b"w" {
        // Words without a multiplier are rounded up to whole kilo-*words* first, then made
        // kilobytes: `res_to_num` (OpenPBS `src/scheduler/misc.cpp`) takes
        // `count = ceil(count / KILO)` and `multiplier = SIZEOF_WORD` for `w`, so `1w` is
        // 8 kb (not the 1 kb that 8 bytes round up to).
        return Ok((n / 1024.0).ceil() * 8.0);
    }
    let bytes = n * scale_bytes * if word { 8.0 } else { 1.0 };
    Ok((bytes / 1024.0).ceil())
}

/// Does this string look like a plain number (`12`, `-1.5e3`)?
pub fn parse_plain_number(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    let v: f64 = t.parse().ok()?;
    // Rust accepts "inf"/"nan"; job values must be finite.
    v.is_finite().then_some(v)
}

/// A formula value as JSON: a number when finite, else a string with the text PBS's log
/// prints for it (`Formula Evaluation = inf`, glibc's `%f`): `"inf"`, `"-inf"` or `"nan"`.
/// JSON has no such numbers, and serde_json would write them as `null`, which reads as "no
/// value"; every JSON output of a value (`eval`, `rank`, `fairshare`, a simulation's
/// recording) writes them this way, and [`value_from_json`] reads them back.
pub fn value_json(v: f64) -> serde_json::Value {
    if v.is_finite() {
        serde_json::Value::from(v)
    } else {
        serde_json::Value::from(non_finite_text(v))
    }
}

/// `"inf"`, `"-inf"` or `"nan"` for a value that is not finite.
pub fn non_finite_text(v: f64) -> &'static str {
    if v.is_nan() {
        "nan"
    } else if v > 0.0 {
        "inf"
    } else {
        "-inf"
    }
}

/// A value written by [`value_json`]: a number, or one of its three strings.
pub fn value_from_json(v: &serde_json::Value) -> Option<f64> {
    match v {
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => match s.as_str() {
            "inf" => Some(f64::INFINITY),
            "-inf" => Some(f64::NEG_INFINITY),
            "nan" => Some(f64::NAN),
            _ => None,
        },
        _ => None,
    }
}

/// Parse a `ctime`-style timestamp as PBS prints it in `qstat -f -F json`
/// (`Mon Nov 30 01:00:00 2026`) into seconds since the Unix epoch (UTC; the zone is not
/// printed, and only the order matters for tie-breaking).
pub fn parse_ctime(s: &str) -> Option<f64> {
    let f: Vec<&str> = s.split_whitespace().collect();
    if f.len() != 5 {
        return None;
    }
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let month = MONTHS.iter().position(|m| f[1].eq_ignore_ascii_case(m))? as i64 + 1;
    let day: i64 = f[2].parse().ok()?;
    let year: i64 = f[4].parse().ok()?;
    let hms: Vec<i64> = f[3]
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    if hms.len() != 3 {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some((days * 86400 + hms[0] * 3600 + hms[1] * 60 + hms[2]) as f64)
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a day count from 1970-01-01 (Howard Hinnant's
/// `civil_from_days`, the inverse of [`days_from_civil`]): `(year, month, day)`.
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Unix seconds as an ISO 8601 UTC time: `2025-12-01T10:00:00Z`.
pub fn utc_text(t: i64) -> String {
    let (days, secs) = (t.div_euclid(86_400), t.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// A duration as a person reads it: `2 h 05 min`, `45 min`, `30 s`, `3 d 4 h` (a negative
/// one as `0 s`).
pub fn span(s: i64) -> String {
    let s = s.max(0);
    if s >= 86_400 {
        format!("{} d {} h", s / 86_400, s % 86_400 / 3600)
    } else if s >= 3600 {
        format!("{} h {:02} min", s / 3600, s % 3600 / 60)
    } else if s >= 60 {
        format!("{} min", s / 60)
    } else {
        format!("{s} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_past_64_bits_of_kb_are_errors_naming_the_largest() {
        assert_eq!(parse_size_kb("4gb"), Ok(4 << 20));
        assert_eq!(
            parse_size_kb("99999999999999999999tb").unwrap_err(),
            "`99999999999999999999tb` is more than the largest size, 18446744073709551615 KB \
             (16 ZiB)"
        );
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("01:00:00"), Ok(3600.0));
        assert_eq!(parse_time("10:30"), Ok(630.0));
        assert_eq!(parse_time("45"), Ok(45.0));
        assert_eq!(parse_time("100:00:01"), Ok(360001.0));
        assert!(parse_time("1:xx").is_err());
        assert!(parse_time("1:2:3:4").is_err());
        // Minutes past what 64-bit seconds hold: an error, not 1.1e21 seconds.
        let e = parse_time("04:18446744073709551616:00").unwrap_err();
        assert!(
            e.ends_with("is out of range: more seconds than a 64-bit count holds"),
            "{e}"
        );
    }

    /// Texts made of the bytes a time or size is written with, and some it is not: every
    /// one up to three bytes long, and longer ones from a fixed pseudo-random sequence.
    fn texts() -> Vec<String> {
        const ALPHABET: &[u8] = b"0159:.gGkKbBwWmx -+e\xc3";
        let mut out = vec![String::new()];
        let mut frontier = vec![Vec::new()];
        for _ in 0..3 {
            let mut next = Vec::new();
            for t in &frontier {
                for &c in ALPHABET {
                    let mut t: Vec<u8> = t.clone();
                    t.push(c);
                    next.push(t);
                }
            }
            frontier = next;
            out.extend(
                frontier
                    .iter()
                    .filter_map(|t| String::from_utf8(t.clone()).ok()),
            );
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            let mut t = Vec::new();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            for k in 0..(x % 24) {
                t.push(ALPHABET[((x >> (k % 8 * 8)) as usize + k as usize) % 11]);
            }
            out.extend(String::from_utf8(t).ok());
        }
        out.extend(
            [
                "9999999999999999999",
                "18446744073709551616",
                "123456789012345678901",
            ]
            .map(String::from),
        );
        out.extend(["1.", ".5", "00:00:00.25", "1:2:", ":1", "  4GB ", "4\0"].map(String::from));
        out
    }

    #[test]
    fn times_and_sizes_read_as_their_first_definitions_did() {
        // The definitions before the digit fast path and the unallocated unit, kept as the
        // reference: every text reads to the same value or the same error.
        fn time_was(s: &str) -> Result<f64, String> {
            let s = s.trim();
            let parts: Vec<&str> = s.split(':').collect();
            if parts.is_empty() || parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
                return Err(format!(
                    "`{s}` is not a time (expected SS, MM:SS or HH:MM:SS)"
                ));
            }
            let mut seconds = 0.0;
            for (i, part) in parts.iter().enumerate() {
                let last = i == parts.len() - 1;
                let ok = part
                    .chars()
                    .all(|c| c.is_ascii_digit() || (last && c == '.'));
                let v: f64 = if ok { part.parse().ok() } else { None }.ok_or_else(|| {
                    format!("`{s}` is not a time (expected SS, MM:SS or HH:MM:SS)")
                })?;
                seconds = seconds * 60.0 + v;
            }
            Ok(seconds)
        }
        fn size_was(s: &str) -> Result<f64, String> {
            let t = s.trim().to_ascii_lowercase();
            let split = t
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(t.len());
            let (num, unit) = t.split_at(split);
            let n: f64 = num.parse().map_err(|_| format!("`{s}` is not a size (expected a number with an optional unit such as 4gb, 512mb, 10kb)"))?;
            let (scale, word) = match unit {
                "" | "b" => (1.0, false),
                "k" | "kb" => (1024.0, false),
                "m" | "mb" => (1024.0 * 1024.0, false),
                "g" | "gb" => (1024.0 * 1024.0 * 1024.0, false),
                "t" | "tb" => (1024.0f64.powi(4), false),
                "p" | "pb" => (1024.0f64.powi(5), false),
                "w" => (1.0, true),
                "kw" => (1024.0, true),
                "mw" => (1024.0 * 1024.0, true),
                "gw" => (1024.0 * 1024.0 * 1024.0, true),
                "tw" => (1024.0f64.powi(4), true),
                _ => {
                    return Err(format!(
                        "`{s}` has an unknown size unit `{unit}` (use b, kb, mb, gb, tb, pb or w, kw, mw, gw, tw)"
                    ));
                }
            };
            if unit == "w" {
                // Since changed to PBS's rounding of plain words (see
                // `sizes_in_words_as_pbs_res_to_num`).
                return Ok((n / 1024.0).ceil() * 8.0);
            }
            Ok((n * scale * if word { 8.0 } else { 1.0 } / 1024.0).ceil())
        }
        let bits = |r: Result<f64, String>| r.map(f64::to_bits);
        let (mut ok_time, mut ok_size) = (0, 0);
        for t in texts() {
            // Since changed: a time past what 64-bit seconds hold is out of range.
            if time_was(&t).is_ok_and(|v| v >= i64::MAX as f64) {
                assert!(parse_time(&t).is_err(), "time {t:?}");
            } else {
                assert_eq!(bits(parse_time(&t)), bits(time_was(&t)), "time {t:?}");
            }
            assert_eq!(bits(parse_size(&t)), bits(size_was(&t)), "size {t:?}");
            ok_time += usize::from(time_was(&t).is_ok());
            ok_size += usize::from(size_was(&t).is_ok());
        }
        // Both kinds of answer were compared, many times each.
        assert!(
            ok_time > 500 && ok_size > 500,
            "{ok_time} times, {ok_size} sizes read"
        );
    }

    #[test]
    fn digits_are_whole_numbers_that_fit() {
        assert_eq!(digits("0"), Some(0));
        assert_eq!(digits("0042"), Some(42));
        assert_eq!(
            digits("9999999999999999999"),
            Some(9_999_999_999_999_999_999)
        );
        for bad in ["", "+1", "-1", "1.0", " 1", "1a", "99999999999999999999"] {
            assert_eq!(digits(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn sizes_in_kilobytes_as_pbs() {
        assert_eq!(parse_size("4gb"), Ok(4194304.0));
        assert_eq!(parse_size("512mb"), Ok(524288.0));
        assert_eq!(parse_size("10kb"), Ok(10.0));
        assert_eq!(parse_size("1025b"), Ok(2.0));
        assert_eq!(parse_size("1GB"), Ok(1048576.0));
        assert_eq!(parse_size("128w"), Ok(8.0));
        assert!(parse_size("4xb").is_err());
        assert!(parse_size("gb").is_err());
    }

    /// Every unit path of PBS's scheduler for the sizes the server prints (`from_size` in
    /// OpenPBS `src/lib/Libattr/attr_fn_size.c` writes a number, an optional k/m/g/t/p and
    /// then `b` or `w`): `res_to_num` in `src/scheduler/misc.cpp` takes `b` as
    /// `ceil(N / KILO)`, `w` as `ceil(N / KILO) * SIZEOF_WORD`, k/m/g/t as 1, MEGATOKILO,
    /// GIGATOKILO, TERATOKILO, and a `w` after k/m/g/t as a further `* SIZEOF_WORD`.
    #[test]
    fn sizes_in_words_as_pbs_res_to_num() {
        // Plain words round up to whole kilo-words first.
        assert_eq!(parse_size("1w"), Ok(8.0));
        assert_eq!(parse_size("1024w"), Ok(8.0));
        assert_eq!(parse_size("1025w"), Ok(16.0));
        // As measured with a live pbs_sched: `mem=15721737w`, `mem/1024` logs 119.9531.
        let kb = parse_size("15721737w").unwrap();
        assert_eq!(kb, 122_832.0);
        assert_eq!(format!("{:.4}", kb / 1024.0), "119.9531");
        // Bytes round up to kilobytes.
        assert_eq!(parse_size("1b"), Ok(1.0));
        assert_eq!(parse_size("1024b"), Ok(1.0));
        assert_eq!(parse_size("1025b"), Ok(2.0));
        // Multiplied units, in bytes and in words.
        for (unit, kb) in [
            ("k", 1.0),
            ("m", 1024.0),
            ("g", 1048576.0),
            ("t", 1073741824.0),
        ] {
            assert_eq!(parse_size(&format!("3{unit}b")), Ok(3.0 * kb), "{unit}b");
            assert_eq!(parse_size(&format!("3{unit}w")), Ok(24.0 * kb), "{unit}w");
        }
    }

    /// JSON carries a value that is not finite as the text PBS logs for it, and reads it back.
    #[test]
    fn values_in_json_are_never_null() {
        for (v, text) in [
            (f64::INFINITY, "\"inf\""),
            (f64::NEG_INFINITY, "\"-inf\""),
            (f64::NAN, "\"nan\""),
            (1.5, "1.5"),
            (-0.0, "-0.0"),
        ] {
            let j = value_json(v);
            assert_eq!(j.to_string(), text);
            let back = value_from_json(&j).unwrap();
            assert!(back.to_bits() == v.to_bits() || (v.is_nan() && back.is_nan()));
        }
        assert_eq!(value_from_json(&serde_json::Value::Null), None);
        assert_eq!(value_from_json(&serde_json::json!("Infinity")), None);
    }

    #[test]
    fn ctime() {
        assert_eq!(parse_ctime("Thu Jan  1 00:00:10 1970"), Some(10.0));
        assert_eq!(parse_ctime("Mon Nov 30 01:00:00 2026"), Some(1796000400.0));
        assert_eq!(parse_ctime("yesterday"), None);
    }

    #[test]
    fn utc_texts_invert_days_from_civil() {
        assert_eq!(utc_text(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_text(1_764_583_200), "2025-12-01T10:00:00Z");
        assert_eq!(utc_text(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(utc_text(-1), "1969-12-31T23:59:59Z");
        for days in [-800_000, -1, 0, 59, 60, 11_016, 20_000, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(
            parse_ctime("Mon Dec  1 10:00:00 2025"),
            Some(1_764_583_200.0)
        );
    }
}
