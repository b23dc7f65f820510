//! Writing a file jobsort produces (a PBS usage file, a plot, a forecast page) whole or not
//! at all: the one definition of "write a file atomically".
//!
//! The bytes go to a temporary file in the destination's folder, which is fsynced and renamed
//! over it, so a reader sees the old file or the new one, never a part. What the rename
//! replaces keeps what pbsfs's in-place rewrite keeps (OpenPBS
//! `src/scheduler/fairshare.cpp`, `write_usage`: `fopen(filename, "wb")` truncates the file it
//! opens, through its symbolic links, so its owner and mode stay, and a new file is created
//! 0666 less the umask):
//! - an existing file's owner and mode are given to the temporary file before the rename
//!   (the owner where the writer may set it: root, or the file's own owner; its group where
//!   the writer belongs to it);
//! - a new file is 0666 less the umask (0644 under the usual 022), as `fopen` creates it;
//! - a symbolic link is written through: its target is replaced, atomically in the target's
//!   folder, and the link stays;
//! - a destination that exists and is no regular file (a pipe, `/dev/stdout`) is written as
//!   a stream.
//!
//! With [`Backup::Keep`] (usage files: `usage.bak`) the previous file becomes `FILE.bak` by a
//! rename too (from a hard link, or a copy with its owner and mode where links fail), so a
//! backup that existed is never missing, even if the writer is killed. Temporary files left
//! by killed writers are removed by the next write.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Whether a write keeps the previous file as `FILE.bak`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backup {
    /// The previous file becomes `FILE.bak` (PBS usage files).
    Keep,
    /// No backup.
    None,
}

/// Write `bytes` to `path` atomically, with no backup (see the module's rules).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, Backup::None, |f| f.write_all(bytes))
}

/// Write `path` atomically with what `fill` writes (see the module's rules). If `fill` fails,
/// the temporary file is removed and `path` is untouched.
pub fn write_atomic_with(
    path: &Path,
    backup: Backup,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> io::Result<()> {
    let path = &link_target(path)?;
    let old = match fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)?;
            fill(&mut f)?;
            return f.flush();
        }
        Ok(m) => Some(m),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let dir = folder(path);
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "names no file"))?;
    remove_stale_temporaries(&dir, name);
    let tmp = dir.join(temp_name(name, ".tmp."));
    let result = (|| {
        let mut f = new_file(&tmp)?;
        if let Some(old) = &old {
            keep_owner_and_mode(&f, old)?;
        }
        fill(&mut f)?;
        f.flush()?;
        f.sync_all()?;
        Ok(f)
    })();
    let f = match result {
        Ok(f) => f,
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
    };
    if backup == Backup::Keep
        && let Some(old) = &old
        && let Err(e) = make_backup(path, old, &dir, name)
    {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    if let Err(e) = fs::rename(&tmp, path) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    drop(f);
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The path a write to `path` replaces: `path`, or where its symbolic links lead (a link
/// relative to its own folder, as the kernel reads it); at most 40 links, the kernel's limit.
pub fn link_target(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&p)?;
                p = if to.is_absolute() {
                    to
                } else {
                    folder(&p).join(to)
                };
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other(format!(
        "{}: too many levels of symbolic links",
        path.display()
    )))
}

/// The folder `path` is in (`.` for a bare name).
fn folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A new file, 0666 less the umask (`open` applies it, as `fopen` does), locked while it is
/// written (see [`remove_stale_temporaries`]).
fn new_file(path: &Path) -> io::Result<File> {
    let f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o666)
        .open(path)?;
    f.lock()?;
    Ok(f)
}

/// Give `f` the owner, group and mode of the file it replaces. The owner first (a change of
/// owner clears the set-id bits), and only where it differs; a writer that may not give the
/// file away (not root) keeps the group where it can and the mode always.
fn keep_owner_and_mode(f: &File, old: &fs::Metadata) -> io::Result<()> {
    let now = f.metadata()?;
    if (now.uid(), now.gid()) != (old.uid(), old.gid())
        && std::os::unix::fs::fchown(f, Some(old.uid()), Some(old.gid())).is_err()
    {
        let _ = std::os::unix::fs::fchown(f, None, Some(old.gid()));
    }
    f.set_permissions(fs::Permissions::from_mode(old.mode() & 0o7777))
}

/// The prefix of this process's temporary files for `name` (`.usage.tmp.`, `.usage.bak.tmp.`).
fn temp_name(name: &OsStr, kind: &str) -> OsString {
    let mut t = OsString::from(".");
    t.push(name);
    t.push(kind);
    t.push(std::process::id().to_string());
    t
}

/// Remove the temporary files a killed writer of `name` left in `dir`: `.NAME.tmp.PID` and
/// `.NAME.bak.tmp.PID` that no live writer holds. A writer holds an exclusive lock on its
/// temporary file from just after creating it until it is renamed, so a file whose lock can be
/// taken is abandoned.
fn remove_stale_temporaries(dir: &Path, name: &OsStr) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let name = name.to_string_lossy();
    let prefixes = [format!(".{name}.tmp."), format!(".{name}.bak.tmp.")];
    for e in entries.flatten() {
        let file_name = e.file_name();
        let f = file_name.to_string_lossy();
        let Some(pid) = prefixes.iter().find_map(|p| f.strip_prefix(p.as_str())) else {
            continue;
        };
        if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == std::process::id().to_string() {
            continue;
        }
        let p = e.path();
        if let Ok(file) = File::open(&p)
            && file.try_lock().is_ok()
        {
            let _ = fs::remove_file(&p);
        }
    }
}

/// The backup name of `path` (`usage.bak` for `usage`; `usage.json.bak` for `usage.json`).
pub fn backup_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".bak");
    PathBuf::from(s)
}

/// Make `path.bak` a copy of `path` without a moment where it is missing: link (or copy, with
/// the owner and mode) to a temporary name, then rename over the old backup.
fn make_backup(path: &Path, old: &fs::Metadata, dir: &Path, name: &OsStr) -> io::Result<()> {
    let bak = backup_path(path);
    let tmp = dir.join(temp_name(name, ".bak.tmp."));
    let _ = fs::remove_file(&tmp);
    let made = fs::hard_link(path, &tmp).or_else(|_| {
        let mut out = new_file(&tmp)?;
        keep_owner_and_mode(&out, old)?;
        io::copy(&mut File::open(path)?, &mut out)?;
        out.sync_all()
    });
    if let Err(e) = made.and_then(|()| fs::rename(&tmp, &bak)) {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().mode() & 0o7777
    }

    /// A file's mode survives a rewrite (pbsfs's `fopen(.., "wb")` keeps it); a new file is
    /// 0666 less the umask.
    #[test]
    fn a_rewrite_keeps_the_mode_and_a_new_file_follows_the_umask() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("usage");
        fs::write(&p, b"old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        assert_eq!(mode(&p), 0o600);
        fs::set_permissions(&p, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic_with(&p, Backup::Keep, |f| f.write_all(b"newer")).unwrap();
        assert_eq!(mode(&p), 0o640);
        assert_eq!(mode(&backup_path(&p)), 0o640);
        // A new file: what `open(.., 0666)` gives under this process's umask.
        let fresh = dir.path().join("fresh");
        write_atomic(&fresh, b"x").unwrap();
        let probe = dir.path().join("probe");
        drop(
            fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o666)
                .open(&probe)
                .unwrap(),
        );
        assert_eq!(mode(&fresh), mode(&probe));
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(!names.iter().any(|n| n.contains(".tmp.")), "{names:?}");
    }

    /// A symbolic link is written through: the link stays, its target (relative to the
    /// link's folder, in another folder) gets the bytes, and the temporary file is made
    /// beside the target.
    #[test]
    fn a_symbolic_link_is_written_through_to_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        fs::create_dir(&real).unwrap();
        let target = real.join("usage");
        fs::write(&target, b"old").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("usage");
        symlink("real/usage", &link).unwrap();
        write_atomic_with(&link, Backup::Keep, |f| f.write_all(b"new")).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(&target).unwrap(), b"new");
        assert_eq!(fs::read(real.join("usage.bak")).unwrap(), b"old");
        assert_eq!(mode(&target), 0o600);
        assert!(!dir.path().join("usage.bak").exists());
        // A dangling link: the target is created.
        let dangling = dir.path().join("plot.svg");
        symlink("real/plot.svg", &dangling).unwrap();
        write_atomic(&dangling, b"<svg/>").unwrap();
        assert_eq!(fs::read(real.join("plot.svg")).unwrap(), b"<svg/>");
        // A loop is an error, not a hang.
        symlink("b", dir.path().join("a")).unwrap();
        symlink("a", dir.path().join("b")).unwrap();
        let e = write_atomic(&dir.path().join("a"), b"x").unwrap_err();
        assert!(e.to_string().contains("too many levels"), "{e}");
    }
}
