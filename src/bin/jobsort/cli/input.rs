//! Input files as arguments: a path, or `-` for stdin (`qstat -f -F json | jobsort rank F
//! --jobs -`). Stdin can feed one input per run; a second `-` is a usage error.

use super::report::Failure;
use jobsort::input::text::{MAX_CONFIG, read_at_most, text_of};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// A file argument; `-` is stdin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputPath {
    Stdin,
    File(PathBuf),
}

impl From<&std::ffi::OsStr> for InputPath {
    fn from(s: &std::ffi::OsStr) -> InputPath {
        if s == "-" {
            InputPath::Stdin
        } else {
            InputPath::File(PathBuf::from(s))
        }
    }
}

static STDIN_TAKEN: AtomicBool = AtomicBool::new(false);

const ONE_STDIN: &str = "`-` (stdin) given for more than one input: stdin can feed only one";

/// Claim stdin for one input; a second claim is a usage error.
pub fn take_stdin() -> Result<(), Failure> {
    if STDIN_TAKEN.swap(true, Ordering::SeqCst) {
        return Err(Failure::usage(ONE_STDIN));
    }
    Ok(())
}

/// Refuse `-` for more than one of a command's inputs before any of them is read: the first
/// reader would otherwise take the other input's text as its own and fail on it.
pub fn one_stdin<'a>(
    inputs: impl IntoIterator<Item = Option<&'a InputPath>>,
) -> Result<(), Failure> {
    let stdin = inputs
        .into_iter()
        .filter(|i| *i == Some(&InputPath::Stdin))
        .count();
    if stdin > 1 {
        return Err(Failure::usage(ONE_STDIN));
    }
    Ok(())
}

impl InputPath {
    /// The name diagnostics use: the path, or `<stdin>`.
    pub fn name(&self) -> String {
        match self {
            InputPath::Stdin => "<stdin>".into(),
            InputPath::File(p) => p.display().to_string(),
        }
    }

    /// The file path, `None` for stdin.
    pub fn file(&self) -> Option<&Path> {
        match self {
            InputPath::Stdin => None,
            InputPath::File(p) => Some(p),
        }
    }

    /// A path a library reader can open: the file, or `/dev/stdin` (a pipe or a redirect).
    pub fn open_path(&self) -> Result<PathBuf, Failure> {
        match self {
            InputPath::Stdin => {
                take_stdin()?;
                Ok(PathBuf::from("/dev/stdin"))
            }
            InputPath::File(p) => Ok(p.clone()),
        }
    }

    /// The whole input as UTF-8 text, when it holds at most `limit` bytes: at most `limit +
    /// 1` are read (`/dev/zero` or a pipe left open is an error, not a read that never
    /// ends), and a NUL byte is an error at its line and column.
    pub fn read_text_at_most(&self, limit: u64) -> Result<String, Failure> {
        let bytes = match self {
            InputPath::Stdin => {
                take_stdin()?;
                read_at_most(std::io::stdin(), limit)
            }
            InputPath::File(p) => std::fs::File::open(p)
                .map_err(|e| format!("cannot read: {e}"))
                .and_then(|f| read_at_most(f, limit)),
        };
        bytes.and_then(text_of).map_err(|e| {
            let sep = if e.starts_with(|c: char| c.is_ascii_digit()) {
                ":"
            } else {
                ": "
            };
            Failure::invalid(format!("{}{sep}{e}", self.name()))
        })
    }

    /// The whole input as UTF-8 text: a configuration file (a `resourcedef`, limits, a
    /// site's settings), at most [`MAX_CONFIG`] bytes.
    pub fn read_text(&self) -> Result<String, Failure> {
        self.read_text_at_most(MAX_CONFIG)
    }

    /// A formula's file: the formula, or qmgr output holding the line that sets it (`print
    /// server`), at most [`MAX_FORMULA_FILE`] bytes.
    pub fn read_formula(&self) -> Result<String, Failure> {
        self.read_text_at_most(MAX_FORMULA_FILE)
    }
}

/// The most a formula's file may hold: 16 times the longest formula
/// (`formula::parser::MAX_LEN`, 64 KiB), room for a `qmgr -c 'print server'` listing that
/// holds the line setting it. A plain formula over 64 KiB but within this is read, and the
/// checker says how long it is (`E0106`).
pub const MAX_FORMULA_FILE: u64 = 16 * jobsort::formula::parser::MAX_LEN as u64;

/// The copies of stdin made for readers that open a path ([`path_or_stdin`]), removed when
/// the command ends ([`remove_stdin_copies`]).
static STDIN_COPIES: Mutex<Vec<tempfile::TempDir>> = Mutex::new(Vec::new());

/// The value parser of every file argument whose reader opens a path (a PBS `resource_group`,
/// a usage file, slurm.conf, a tree, a machine file, a flux-accounting database): `-` is
/// stdin, as for every other input. Stdin is claimed as it is parsed (a second `-` is a usage
/// error) and copied to a file named `stdin` in a temporary folder, which the reader opens:
/// a reader may read its file twice (a tree's format is told from its first bytes) or need a
/// real file (SQLite), and a pipe gives its bytes once. The folder goes when the command ends.
pub fn path_or_stdin(s: &str) -> Result<PathBuf, String> {
    if s != "-" {
        return Ok(PathBuf::from(s));
    }
    take_stdin().map_err(|_| ONE_STDIN.to_string())?;
    let dir = tempfile::tempdir().map_err(|e| format!("cannot copy stdin: {e}"))?;
    let path = dir.path().join("stdin");
    let mut file = std::fs::File::create(&path).map_err(|e| format!("cannot copy stdin: {e}"))?;
    std::io::copy(&mut std::io::stdin().lock(), &mut file)
        .map_err(|e| format!("<stdin>: cannot read: {e}"))?;
    STDIN_COPIES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(dir);
    Ok(path)
}

/// Remove the copies of stdin [`path_or_stdin`] made.
pub fn remove_stdin_copies() {
    STDIN_COPIES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clear();
}
