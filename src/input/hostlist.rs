//! Slurm hostlists (`d09n04s[01-02],d13n[03,05,07-08,16]`, the form of sacct's `NodeList` and
//! Flux's `nodelist`) and Flux idsets (`[0-3]`, `0,2-5`, the form of `ranks`): the names they
//! stand for, so a site log's allocations can tell the cluster's size.
//!
//! The one reader of host lists: slurm.conf's `NodeName`/`Nodes`, sacct's `NodeList` and
//! Flux's `nodelist` all go through [`for_each_host`].
//!
//! Syntax of Slurm's `src/common/hostlist.c` (`hostlist_create`): names separated by commas,
//! spaces, tabs or line ends outside brackets, a run of separators counting as one
//! (`_next_tok` pushes past every leading separator, so `n[1-2],,n3` is three names); each
//! bracket holds comma-separated numbers or `lo-hi` ranges, zero-padded to the width of `lo`;
//! several brackets in one name multiply out.

/// The separators between the names of a host list (`hostlist_create`'s `"\t, \n"`).
const SEPARATORS: [char; 4] = ['\t', ',', ' ', '\n'];

/// Call `each` with every name of `list`; an error says what is malformed.
pub fn for_each_host(list: &str, mut each: impl FnMut(&str)) -> Result<(), String> {
    let mut name = String::new();
    for part in split_names(list)? {
        name.clear();
        expand(part, &mut name, &mut each).map_err(|e| format!("`{list}`: {e}"))?;
    }
    Ok(())
}

/// Every name of `list`, in order ([`for_each_host`]).
pub fn expand_hostlist(list: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for_each_host(list, |h| out.push(h.to_string()))?;
    Ok(out)
}

/// The names of a host list, brackets unexpanded: split at separators outside brackets, empty
/// names (runs of separators, separators at either end) skipped as Slurm skips them.
fn split_names(list: &str) -> Result<Vec<&str>, String> {
    let mut parts = split_outside(list, |c| SEPARATORS.contains(&c))?;
    parts.retain(|p| !p.is_empty());
    Ok(parts)
}

/// The comma-separated parts of a Flux `resource_summary` group, commas inside brackets kept
/// and empty parts too; unbalanced or nested brackets are an error.
pub fn split_outside_brackets(list: &str) -> Result<Vec<&str>, String> {
    split_outside(list, |c| c == ',')
}

/// `list` split at the characters `sep` takes outside brackets; unbalanced or nested brackets
/// are an error.
fn split_outside(list: &str, sep: impl Fn(char) -> bool) -> Result<Vec<&str>, String> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0u32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '[' if depth == 0 => depth = 1,
            '[' => return Err(format!("`{list}`: nested brackets")),
            ']' if depth == 1 => depth = 0,
            ']' => return Err(format!("`{list}`: `]` without `[`")),
            c if depth == 0 && sep(c) => {
                parts.push(&list[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err(format!("`{list}`: `[` without `]`"));
    }
    parts.push(&list[start..]);
    Ok(parts)
}

/// The numbers of a Flux idset (`[0-3]`, `0-3,7`, `5`): call `each` with every one.
pub fn for_each_id(set: &str, mut each: impl FnMut(u64)) -> Result<(), String> {
    let inner = set
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or(set);
    if inner.is_empty() {
        return Ok(());
    }
    for item in inner.split(',') {
        let (lo, hi) = range(item).map_err(|e| format!("`{set}`: {e}"))?;
        for v in lo.value..=hi {
            each(v);
        }
    }
    Ok(())
}

/// A range's low end and its zero-padded width.
struct Low {
    value: u64,
    width: usize,
}

fn range(item: &str) -> Result<(Low, u64), String> {
    let number = |s: &str| -> Result<u64, String> {
        if s.is_empty() || s.len() > 18 || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("`{item}` is not a number or a range lo-hi"));
        }
        s.parse().map_err(|_| format!("`{item}` is not a number"))
    };
    let (lo, hi) = match item.split_once('-') {
        Some((lo, hi)) => (lo, number(hi)?),
        None => (item, number(item)?),
    };
    let low = Low {
        value: number(lo)?,
        width: lo.len(),
    };
    if hi < low.value {
        return Err(format!("range `{item}` runs backwards"));
    }
    if hi - low.value > 1 << 24 {
        return Err(format!("range `{item}` is too large"));
    }
    Ok((low, hi))
}

/// Expand one name with brackets: `prefix` is what has been built so far.
fn expand(rest: &str, prefix: &mut String, each: &mut impl FnMut(&str)) -> Result<(), String> {
    let Some(open) = rest.find('[') else {
        let len = prefix.len();
        prefix.push_str(rest);
        each(prefix);
        prefix.truncate(len);
        return Ok(());
    };
    let close = open + rest[open..].find(']').ok_or("`[` without `]`")?;
    let (head, inner, tail) = (&rest[..open], &rest[open + 1..close], &rest[close + 1..]);
    let len = prefix.len();
    for item in inner.split(',') {
        let (lo, hi) = range(item)?;
        for v in lo.value..=hi {
            prefix.truncate(len);
            prefix.push_str(head);
            push_padded(prefix, v, lo.width);
            expand(tail, prefix, each)?;
        }
    }
    prefix.truncate(len);
    Ok(())
}

/// `v` in decimal, zero-padded to `width` digits (`format!("{v:0width$}")` without the
/// formatting machinery: this runs once for every node of every job).
fn push_padded(out: &mut String, v: u64, width: usize) {
    let mut digits = [0u8; 20];
    let mut n = 0;
    let mut rest = v;
    loop {
        digits[n] = b'0' + (rest % 10) as u8;
        n += 1;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for _ in n..width {
        out.push('0');
    }
    for &d in digits[..n].iter().rev() {
        out.push(d as char);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(list: &str) -> Result<Vec<String>, String> {
        let mut v = Vec::new();
        for_each_host(list, |h| v.push(h.to_string()))?;
        Ok(v)
    }

    #[test]
    fn hostlists_expand_as_slurm_writes_them() {
        // From the XDMoD sample (`xdmod-sacct-P-noheader-X.log`, line 1).
        assert_eq!(
            hosts("d07n38s02,d09n04s[01-02],d13n[03,05,07-08,16]").unwrap(),
            [
                "d07n38s02",
                "d09n04s01",
                "d09n04s02",
                "d13n03",
                "d13n05",
                "d13n07",
                "d13n08",
                "d13n16"
            ]
        );
        assert_eq!(hosts("cn[8-10]").unwrap(), ["cn8", "cn9", "cn10"]);
        assert_eq!(hosts("cn[0-0]").unwrap(), ["cn0"]);
        assert_eq!(
            hosts("cn[0098-0101]").unwrap(),
            ["cn0098", "cn0099", "cn0100", "cn0101"]
        );
        assert_eq!(
            hosts("r[1-2]n[01-02]").unwrap(),
            ["r1n01", "r1n02", "r2n01", "r2n02"]
        );
        assert_eq!(hosts("asp,asp").unwrap(), ["asp", "asp"]);
        for bad in ["a[1-2", "a]1", "a[2-1]", "a[x]", "a[[1]]"] {
            assert!(hosts(bad).is_err(), "{bad}");
        }
    }

    /// slurm.conf's `NodeName` and sacct's `NodeList` are one syntax, read by one parser:
    /// `hostlist.c`'s `_next_tok` skips every separator before a name, so empty names are
    /// not names (`n[1-2],,n3` is three nodes, as slurmctld reads it), and spaces and tabs
    /// separate as commas do (`hostlist_create` splits at `"\t, \n"`).
    #[test]
    fn runs_of_separators_are_one_as_in_slurm() {
        assert_eq!(hosts("n[1-2],,n3").unwrap(), ["n1", "n2", "n3"]);
        assert_eq!(hosts(",a, b\tc,").unwrap(), ["a", "b", "c"]);
        assert_eq!(hosts("").unwrap(), Vec::<String>::new());
        assert_eq!(expand_hostlist("r[1-2]n[08-09],x").unwrap().len(), 5);
    }

    #[test]
    fn idsets() {
        let mut v = Vec::new();
        for_each_id("[0-3]", |i| v.push(i)).unwrap();
        for_each_id("7", |i| v.push(i)).unwrap();
        for_each_id("9,11-12", |i| v.push(i)).unwrap();
        assert_eq!(v, [0, 1, 2, 3, 7, 9, 11, 12]);
        assert!(for_each_id("[3-1]", |_| {}).is_err());
    }
}
