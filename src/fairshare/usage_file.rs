//! PBS's usage file (`sched_priv/usage`) and JSON/TOML usage maps.
//!
//! Version 2 (x86-64 layout): header `{char tag[9] = "PBS_MAG!"; double version = 2}` (24
//! bytes), `time_t last_decay` (8), then records `{char name[50]; double usage}` (64 bytes,
//! 6 of them padding). Version 1 has no header and 24-byte records `{char name[9]; double
//! usage}`. Integers and doubles are little-endian. Padding is written as zero bytes (PBS
//! writes whatever was on its stack; readers ignore it) — except that a version-1 name that
//! fills its 9 bytes runs on into the padding as PBS reads it (`read_usage_v1` hands
//! `grp.name` to `is_valid_pbs_name` and `find_alloc_ginfo` as a C string): the name is the
//! record's bytes up to its first NUL.
//!
//! Strict reading fails on what PBS would silently skip (a bad header, a truncated record, an
//! invalid name or negative usage), naming the record; lenient reading skips with warnings.

use super::FairshareError;
use super::pbs::{PbsTree, USAGE_NAME_MAX, is_valid_pbs_name};
use crate::input::text::{MAX_CONFIG, read_at_most};
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The magic tag (`USAGE_MAGIC`) with its NUL.
pub const MAGIC: &[u8; 9] = b"PBS_MAG!\0";
/// Size of the v2 header (tag, padding, version).
pub const HEADER_LEN: usize = 24;
/// Size of a v2 record.
pub const RECORD_V2_LEN: usize = 64;
/// Size of a v1 record.
pub const RECORD_V1_LEN: usize = 24;
/// `last_decay` must be 0 or later than 2000-01-01 (946713600).
pub const MIN_LAST_DECAY: i64 = 946_713_600;

/// A decoded usage file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UsageFile {
    /// 1 (headerless) or 2; 0 for JSON/TOML maps.
    pub version: u8,
    pub last_decay: i64,
    /// Records in file order.
    pub records: Vec<(String, f64)>,
}

impl UsageFile {
    /// Apply the records to a tree as `read_usage` does (creating unknown entities under
    /// `unknown` unless `trim`), then recompute. Sets the tree's `last_decay`.
    pub fn apply(&self, tree: &mut PbsTree, trim: bool) {
        if self.version == 2 {
            tree.last_decay = self.last_decay;
        }
        for (name, usage) in &self.records {
            tree.apply_usage_record(name, *usage, trim);
        }
        tree.recompute();
    }
}

fn cstr(field: &[u8]) -> Option<&[u8]> {
    field.iter().position(|&b| b == 0).map(|n| &field[..n])
}

fn f64_at(b: &[u8], off: usize) -> f64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[off..off + 8]);
    f64::from_le_bytes(a)
}

/// Decode a binary usage file. `file` names it in messages.
pub fn read_binary(
    bytes: &[u8],
    file: &str,
    lenient: bool,
) -> Result<(UsageFile, Vec<String>), FairshareError> {
    let mut warnings = Vec::new();
    let mut out = UsageFile::default();
    if bytes.is_empty() {
        out.version = 2;
        return Ok((out, warnings));
    }
    let bad = |msg: String, warnings: &mut Vec<String>| -> Result<(), FairshareError> {
        if lenient {
            warnings.push(format!("{file}: {msg}"));
            Ok(())
        } else {
            Err(FairshareError::file(file, msg))
        }
    };
    if bytes.len() >= HEADER_LEN && &bytes[..9] == MAGIC {
        out.version = 2;
        let version = f64_at(bytes, 16);
        if version != 2.0 {
            // PBS logs "Invalid usage file header" and loads nothing.
            bad(
                format!("Invalid usage file header: version {version} (only 2 is known)"),
                &mut warnings,
            )?;
            return Ok((out, warnings));
        }
        if bytes.len() < HEADER_LEN + 8 {
            bad(
                "truncated header: no last_decay time".to_string(),
                &mut warnings,
            )?;
            return Ok((out, warnings));
        }
        let mut a = [0u8; 8];
        a.copy_from_slice(&bytes[24..32]);
        let last = i64::from_le_bytes(a);
        if last != 0 && last <= MIN_LAST_DECAY {
            bad(
                format!("Invalid usage file header: last_decay {last} is before 2000-01-01"),
                &mut warnings,
            )?;
            return Ok((out, warnings));
        }
        out.last_decay = last;
        let body = &bytes[32..];
        let whole = body.len() / RECORD_V2_LEN;
        for r in 0..whole {
            let rec = &body[r * RECORD_V2_LEN..(r + 1) * RECORD_V2_LEN];
            let usage = f64_at(rec, 56);
            read_record(
                &rec[..USAGE_NAME_MAX],
                usage,
                r + 1,
                file,
                lenient,
                &mut out,
                &mut warnings,
            )?;
        }
        if !body.len().is_multiple_of(RECORD_V2_LEN) {
            bad(
                format!(
                    "record {}: truncated ({} of {} bytes); PBS ignores it",
                    whole + 1,
                    body.len() % RECORD_V2_LEN,
                    RECORD_V2_LEN
                ),
                &mut warnings,
            )?;
        }
        return Ok((out, warnings));
    }
    // No magic: a version-1 file, unless it plainly is not one.
    if bytes.len() >= 7 && &bytes[..7] == b"PBS_MAG" || !bytes.len().is_multiple_of(RECORD_V1_LEN) {
        let msg = if bytes.starts_with(b"PBS_MAG") {
            "bad magic: expected `PBS_MAG!` followed by NUL".to_string()
        } else {
            format!(
                "bad magic: no `PBS_MAG!` header, and {} bytes is not a whole number of 24-byte version-1 records",
                bytes.len()
            )
        };
        if !lenient {
            return Err(FairshareError::file(file, msg));
        }
        warnings.push(format!("{file}: {msg}; read as version 1 as PBS does"));
    }
    out.version = 1;
    let whole = bytes.len() / RECORD_V1_LEN;
    for r in 0..whole {
        let rec = &bytes[r * RECORD_V1_LEN..(r + 1) * RECORD_V1_LEN];
        let usage = f64_at(rec, 16);
        // The name as PBS reads it: up to the first NUL, past `name[9]` when it fills it
        // (beyond the record PBS would read its own stack: that is refused).
        read_record(rec, usage, r + 1, file, lenient, &mut out, &mut warnings)?;
    }
    Ok((out, warnings))
}

fn read_record(
    name_field: &[u8],
    usage: f64,
    recno: usize,
    file: &str,
    lenient: bool,
    out: &mut UsageFile,
    warnings: &mut Vec<String>,
) -> Result<(), FairshareError> {
    let name = cstr(name_field).and_then(|n| std::str::from_utf8(n).ok());
    let problem = match name {
        None => Some(format!(
            "Invalid entity: name is not NUL-terminated within {} bytes",
            name_field.len()
        )),
        Some(n) if !is_valid_pbs_name(n) => Some(format!(
            "Invalid entity: name `{n}` has characters PBS does not accept"
        )),
        Some(n) if usage.is_nan() || usage < 0.0 => Some(format!(
            "Invalid entity: usage {usage} of `{n}` is negative or not a number"
        )),
        Some(_) => None,
    };
    match (problem, name) {
        (None, Some(n)) => {
            out.records.push((n.to_string(), usage));
            Ok(())
        }
        (msg, _) => {
            let msg = msg.unwrap_or_else(|| "Invalid entity".to_string());
            if lenient {
                warnings.push(format!("{file}:{recno}: {msg}; record skipped"));
                Ok(())
            } else {
                Err(FairshareError::at(
                    file,
                    recno,
                    format!("record {recno}: {msg}"),
                ))
            }
        }
    }
}

/// Encode a tree's usage as PBS's `write_usage` does (version 2; leaves with usage ≠ 1 other
/// than `unknown`). Names longer than 49 bytes are truncated as PBS's `snprintf` does.
pub fn write_v2(tree: &PbsTree) -> Vec<u8> {
    let recs = tree.usage_records();
    let mut b = Vec::with_capacity(32 + recs.len() * RECORD_V2_LEN);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&[0u8; 7]);
    b.extend_from_slice(&2f64.to_le_bytes());
    b.extend_from_slice(&tree.last_decay.to_le_bytes());
    for (name, usage) in recs {
        let mut rec = [0u8; RECORD_V2_LEN];
        let n = name.len().min(USAGE_NAME_MAX - 1);
        rec[..n].copy_from_slice(&name.as_bytes()[..n]);
        rec[56..64].copy_from_slice(&usage.to_le_bytes());
        b.extend_from_slice(&rec);
    }
    b
}

/// Parse a JSON (`{"entity": usage}`) or, when `toml` is set, TOML (`entity = usage`) usage
/// map. Entries are applied in name order.
pub fn read_map(text: &str, file: &str, toml_format: bool) -> Result<UsageFile, FairshareError> {
    let mut out = UsageFile::default();
    let entries: Vec<(String, Option<f64>)> = if toml_format {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            FairshareError {
                file: file.to_string(),
                line,
                message: e.message().to_string(),
            }
        })?;
        table
            .into_iter()
            .map(|(k, v)| {
                let f = v.as_float().or_else(|| v.as_integer().map(|i| i as f64));
                (k, f)
            })
            .collect()
    } else {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| FairshareError::at(file, e.line(), format!("invalid JSON: {e}")))?;
        let Some(obj) = v.as_object() else {
            return Err(FairshareError::file(
                file,
                "a usage map must be a JSON object {\"entity\": usage}",
            ));
        };
        obj.iter().map(|(k, v)| (k.clone(), v.as_f64())).collect()
    };
    for (name, usage) in entries {
        let Some(u) = usage else {
            return Err(FairshareError::file(
                file,
                format!("usage of `{name}` is not a number"),
            ));
        };
        if u < 0.0 || !u.is_finite() {
            return Err(FairshareError::file(
                file,
                format!("usage of `{name}` must be a finite number >= 0, not {u}"),
            ));
        }
        if let Err(m) = super::pbs::check_entity_name(&name) {
            return Err(FairshareError::file(file, m));
        }
        out.records.push((name, u));
    }
    Ok(out)
}

/// Read a usage file from disk: JSON (`.json` or text starting with `{`), TOML (`.toml`), or
/// PBS binary.
pub fn read_path(path: &Path, lenient: bool) -> Result<(UsageFile, Vec<String>), FairshareError> {
    let file = path.display().to_string();
    let bytes = fs::File::open(path)
        .map_err(|e| format!("cannot read: {e}"))
        .and_then(|f| read_at_most(f, MAX_CONFIG))
        .map_err(|e| FairshareError::file(&file, e))?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if ext == "json" || ext == "toml" || (first == Some(b'{') && ext != "bin") {
        let text =
            String::from_utf8(bytes).map_err(|_| FairshareError::file(&file, "not UTF-8 text"))?;
        return Ok((read_map(&text, &file, ext == "toml")?, vec![]));
    }
    read_binary(&bytes, &file, lenient)
}

/// The backup name of a usage file (`usage.bak` for `usage`; `usage.json.bak` for
/// `usage.json`), which every write keeps.
pub use crate::files::backup_path;

/// The file a running `pbs_sched` watches (`USAGE_TOUCH`, `usage.touch` beside `usage`):
/// `path` with `.touch` appended.
pub fn touch_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".touch");
    PathBuf::from(s)
}

/// What pbsfs does after every `-s`, `-d` or `-e` (pbsfs.cpp, `main`, after `write_usage`):
/// `fopen(USAGE_TOUCH, "w")` and close, which creates `usage.touch` (mode 0666 less the umask)
/// or empties it. A running scheduler re-reads the usage file only when this file exists.
/// Returns the path touched.
pub fn touch(path: &Path) -> io::Result<PathBuf> {
    let t = touch_path(path);
    File::create(&t)?;
    Ok(t)
}

/// Write a usage file atomically, the previous file kept as `path.bak`
/// ([`crate::files::write_atomic_with`]: owner and mode kept, symbolic links written through).
/// If `fill` fails, `path` is untouched.
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    crate::files::write_atomic_with(path, crate::files::Backup::Keep, fill)
}

/// [`write_atomic_with`] for a byte buffer.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |f| f.write_all(bytes))
}

/// Write a tree's usage to `path` as PBS version 2, atomically, keeping `path.bak`. (pbsfs
/// then creates `usage.touch`: see [`touch`].)
pub fn write_tree(path: &Path, tree: &PbsTree) -> io::Result<()> {
    write_atomic(path, &write_v2(tree))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fairshare::pbs::ParseOptions;

    fn tree() -> PbsTree {
        let (t, _) = PbsTree::parse_resource_group(
            "g 10 root 40\nu1 11 g 50\nu2 12 g 50\nv 20 root 60\n",
            "rg",
            &ParseOptions::default(),
        )
        .unwrap();
        t
    }

    #[test]
    fn v2_round_trip_is_byte_identical() {
        let mut t = tree();
        t.last_decay = 1_700_000_000;
        for (n, u) in [("u1", 10.5), ("v", 300.0), ("stranger", 7.0)] {
            t.apply_usage_record(n, u, false);
        }
        t.recompute();
        let bytes = write_v2(&t);
        assert_eq!(bytes.len(), 32 + 3 * 64);
        let (uf, w) = read_binary(&bytes, "usage", false).unwrap();
        assert!(w.is_empty());
        assert_eq!(uf.version, 2);
        assert_eq!(uf.last_decay, 1_700_000_000);
        let mut t2 = tree();
        uf.apply(&mut t2, false);
        assert_eq!(write_v2(&t2), bytes);
        assert_eq!(t2.node(0).usage, t.node(0).usage);
    }

    #[test]
    fn v1_is_read() {
        let mut b = Vec::new();
        for (n, u) in [("u1", 5.0f64), ("v", 9.0)] {
            let mut r = [0u8; 24];
            r[..n.len()].copy_from_slice(n.as_bytes());
            r[16..].copy_from_slice(&u.to_le_bytes());
            b.extend_from_slice(&r);
        }
        let (uf, _) = read_binary(&b, "usage", false).unwrap();
        assert_eq!(uf.version, 1);
        assert_eq!(
            uf.records,
            vec![("u1".to_string(), 5.0), ("v".to_string(), 9.0)]
        );
    }

    /// A version-1 name that fills all of `char name[9]` has no NUL of its own: PBS's
    /// `read_usage_v1` (OpenPBS `src/scheduler/fairshare.cpp`) reads it as a C string, on into
    /// the padding up to the first NUL, and keeps the record (a live pbsfs gave TREEROOT usage
    /// 14811 with it, not 14801). A name with no NUL in the whole record is refused.
    #[test]
    fn v1_name_filling_its_nine_bytes_runs_into_the_padding() {
        let record = |name: &[u8], usage: f64| {
            let mut r = [0u8; 24];
            r[..name.len()].copy_from_slice(name);
            r[16..].copy_from_slice(&usage.to_le_bytes());
            r
        };
        let mut b = Vec::new();
        b.extend_from_slice(&record(b"ninechars", 10.0));
        b.extend_from_slice(&record(b"u1", 5.0));
        // Padding written by PBS from its stack: the name goes on to the NUL.
        b.extend_from_slice(&record(b"ninechars12\0xx", 7.0));
        for lenient in [false, true] {
            let (uf, w) = read_binary(&b, "usage", lenient).unwrap();
            assert!(w.is_empty(), "{w:?}");
            assert_eq!(
                uf.records,
                vec![
                    ("ninechars".to_string(), 10.0),
                    ("u1".to_string(), 5.0),
                    ("ninechars12".to_string(), 7.0)
                ]
            );
        }
        let mut no_nul = record(b"ninechars", 1.0);
        no_nul[9..16].copy_from_slice(b"abcdefg");
        no_nul[16..].copy_from_slice(b"hijklmno");
        let e = read_binary(&no_nul, "usage", false).unwrap_err();
        assert!(
            e.to_string()
                .contains("record 1: Invalid entity: name is not NUL-terminated within 24 bytes"),
            "{e}"
        );
        let (uf, w) = read_binary(&no_nul, "usage", true).unwrap();
        assert!(uf.records.is_empty() && w.len() == 1, "{w:?}");
    }

    #[test]
    fn bad_files_fail_strict_and_warn_lenient() {
        let good = write_v2(&{
            let mut t = tree();
            t.apply_usage_record("u1", 3.0, false);
            t
        });
        let mut bad_magic = good.clone();
        bad_magic[7] = b'?';
        let truncated = good[..good.len() - 10].to_vec();
        let mut bad_name = good.clone();
        for b in &mut bad_name[32..32 + 50] {
            *b = b'x';
        }
        let mut negative = good.clone();
        negative[32 + 56..32 + 64].copy_from_slice(&(-1f64).to_le_bytes());
        let mut old = good.clone();
        old[24..32].copy_from_slice(&5i64.to_le_bytes());
        for (bytes, want) in [
            (&bad_magic, "bad magic"),
            (&truncated, "truncated"),
            (
                &bad_name,
                "record 1: Invalid entity: name is not NUL-terminated within 50 bytes",
            ),
            (&negative, "negative"),
            (&old, "Invalid usage file header"),
        ] {
            let e = read_binary(bytes, "usage", false).unwrap_err();
            assert!(e.to_string().contains(want), "{e}");
            assert!(e.to_string().starts_with("usage"), "{e}");
            let (_, w) = read_binary(bytes, "usage", true).unwrap();
            assert!(!w.is_empty());
        }
    }

    #[test]
    fn json_and_toml_maps() {
        let u = read_map(r#"{"u1": 4, "v": 2.5}"#, "u.json", false).unwrap();
        assert_eq!(
            u.records,
            vec![("u1".to_string(), 4.0), ("v".to_string(), 2.5)]
        );
        let u = read_map("u1 = 4\nv = 2.5\n", "u.toml", true).unwrap();
        assert_eq!(u.records.len(), 2);
        assert!(read_map(r#"{"u1": -4}"#, "u.json", false).is_err());
        assert!(read_map(r#"{"u1": "x"}"#, "u.json", false).is_err());
        let e = read_map("{\n\"u1\": 4,,\n}", "u.json", false).unwrap_err();
        assert_eq!(e.line, Some(2));
    }

    #[test]
    fn atomic_write_keeps_backup_and_failed_write_leaves_file() {
        let dir = std::env::temp_dir().join(format!("jobsort-usage-test-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("usage");
        write_atomic(&p, b"first").unwrap();
        assert!(!backup_path(&p).exists());
        write_atomic(&p, b"second").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"second");
        assert_eq!(fs::read(backup_path(&p)).unwrap(), b"first");
        let e = write_atomic_with(&p, |f| {
            f.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        assert!(e.is_err());
        assert_eq!(fs::read(&p).unwrap(), b"second");
        assert_eq!(fs::read(backup_path(&p)).unwrap(), b"first");
        assert_eq!(
            fs::read_dir(&dir).unwrap().count(),
            2,
            "no temporary file left behind"
        );
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A killed writer's temporaries are removed by the next write; a live writer's (locked)
    /// are not; the backup is replaced, never removed first.
    #[test]
    fn stale_temporaries_removed_live_ones_kept() {
        let dir = std::env::temp_dir().join(format!("jobsort-usage-stale-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let p = dir.join("usage");
        write_atomic(&p, b"first").unwrap();
        let stale = dir.join(".usage.tmp.99999999");
        let stale_bak = dir.join(".usage.bak.tmp.99999998");
        fs::write(&stale, b"half").unwrap();
        fs::write(&stale_bak, b"half").unwrap();
        let live = dir.join(".usage.tmp.99999997");
        let held = File::create(&live).unwrap();
        held.lock().unwrap();
        write_atomic(&p, b"second").unwrap();
        assert!(!stale.exists() && !stale_bak.exists());
        assert!(
            live.exists(),
            "a locked temporary belongs to a running writer"
        );
        assert_eq!(fs::read(backup_path(&p)).unwrap(), b"first");
        drop(held);
        write_atomic(&p, b"third").unwrap();
        assert!(!live.exists());
        assert_eq!(fs::read(backup_path(&p)).unwrap(), b"second");
        assert_eq!(touch(&p).unwrap(), dir.join("usage.touch"));
        assert_eq!(fs::read(dir.join("usage.touch")).unwrap(), b"");
        fs::remove_dir_all(&dir).unwrap();
    }
}
