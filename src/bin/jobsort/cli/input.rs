//! Input files as arguments: a path, or `-` for stdin (`qstat -f -F json | jobsort rank F
//! --jobs -`). Stdin can feed one input per run; a second `-` is a usage error.

use super::report::Failure;
use std::io::Read;
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

    /// The whole input as bytes.
    pub fn read_bytes(&self) -> Result<Vec<u8>, Failure> {
        match self {
            InputPath::Stdin => {
                take_stdin()?;
                let mut bytes = Vec::new();
                std::io::stdin()
                    .read_to_end(&mut bytes)
                    .map_err(|e| Failure::invalid(format!("<stdin>: cannot read: {e}")))?;
                Ok(bytes)
            }
            InputPath::File(p) => std::fs::read(p)
                .map_err(|e| Failure::invalid(format!("{}: cannot read: {e}", p.display()))),
        }
    }

    /// The whole input as UTF-8 text.
    pub fn read_text(&self) -> Result<String, Failure> {
        String::from_utf8(self.read_bytes()?).map_err(|e| {
            Failure::invalid(format!(
                "{}: not UTF-8 text (byte {})",
                self.name(),
                e.utf8_error().valid_up_to()
            ))
        })
    }
}

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
