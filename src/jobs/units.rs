//! PBS value syntax → the numbers a formula sees: times in seconds, sizes in kilobytes
//! (`res_to_num` in OpenPBS `src/scheduler/misc.cpp`).

/// Parse a PBS duration: `SS`, `MM:SS` or `HH:MM:SS` (each part may be fractional in the
/// last position, e.g. `01:00:30.5`). Returns seconds.
pub fn parse_time(s: &str) -> Result<f64, String> {
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
        let ok_chars = part
            .chars()
            .all(|c| c.is_ascii_digit() || (last && c == '.'));
        let v: f64 = if ok_chars { part.parse().ok() } else { None }
            .ok_or_else(|| format!("`{s}` is not a time (expected SS, MM:SS or HH:MM:SS)"))?;
        seconds = seconds * 60.0 + v;
    }
    Ok(seconds)
}

/// Parse a PBS size with a unit suffix (`4gb`, `512mb`, `10kb`, `100b`, `8w`, `2kw`, case
/// insensitive; `b` may be omitted after k/m/g/t/p). Returns kilobytes as PBS does: whole
/// kilobytes for k and larger units, bytes rounded up to the next kilobyte.
/// A string with no unit is a number of bytes (PBS's default unit).
pub fn parse_size(s: &str) -> Result<f64, String> {
    let t = s.trim().to_ascii_lowercase();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num.parse().map_err(|_| {
        format!(
            "`{s}` is not a size (expected a number with an optional unit such as 4gb, 512mb, 10kb)"
        )
    })?;
    // Units in bytes; `w` is an 8-byte word.
    let (scale_bytes, word) = match unit {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(parse_time("01:00:00"), Ok(3600.0));
        assert_eq!(parse_time("10:30"), Ok(630.0));
        assert_eq!(parse_time("45"), Ok(45.0));
        assert_eq!(parse_time("100:00:01"), Ok(360001.0));
        assert!(parse_time("1:xx").is_err());
        assert!(parse_time("1:2:3:4").is_err());
    }

    #[test]
    fn sizes_in_kilobytes_as_pbs() {
        assert_eq!(parse_size("4gb"), Ok(4194304.0));
        assert_eq!(parse_size("512mb"), Ok(524288.0));
        assert_eq!(parse_size("10kb"), Ok(10.0));
        assert_eq!(parse_size("1025b"), Ok(2.0));
        assert_eq!(parse_size("1GB"), Ok(1048576.0));
        assert_eq!(parse_size("128w"), Ok(1.0));
        assert!(parse_size("4xb").is_err());
        assert!(parse_size("gb").is_err());
    }

    #[test]
    fn ctime() {
        assert_eq!(parse_ctime("Thu Jan  1 00:00:10 1970"), Some(10.0));
        assert_eq!(parse_ctime("Mon Nov 30 01:00:00 2026"), Some(1796000400.0));
        assert_eq!(parse_ctime("yesterday"), None);
    }
}
