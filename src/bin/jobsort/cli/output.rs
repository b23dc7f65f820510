//! Standard output: one writer for every subcommand (so a closed pipe is one error value,
//! handled once in [`super::report::Failure::exit`]), the output formats, and the table and
//! CSV printers `eval` and `rank` share.

use jobsort::jobs::load::NotRanked;
use std::io::{BufWriter, IsTerminal, Write};

/// Stdout, buffered when it is not a terminal (a terminal gets each line as it is written).
pub type Out = dyn Write;

/// The writer subcommands print to (the dispatcher flushes it).
pub fn stdout() -> Box<Out> {
    let out = std::io::stdout();
    if out.is_terminal() {
        Box::new(out.lock())
    } else {
        Box::new(BufWriter::with_capacity(1 << 16, out.lock()))
    }
}

/// Output of `eval` and `rank`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// An aligned table.
    Table,
    /// One JSON document.
    Json,
    /// CSV with a header row.
    Csv,
}

/// Output of `sim` and `replay`.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// Readable lines and a table.
    Table,
    /// One JSON document.
    Json,
}

/// Write one JSON document (pretty or compact) and a newline.
pub fn write_json(out: &mut Out, value: &serde_json::Value, pretty: bool) -> std::io::Result<()> {
    if pretty {
        serde_json::to_writer_pretty(&mut *out, value)?;
    } else {
        serde_json::to_writer(&mut *out, value)?;
    }
    writeln!(out)
}

/// A value as a person reads it: Python's `repr`, the shortest text that round-trips (a
/// subnormal is `5e-324`, not 300 digits).
pub fn show_value(v: f64) -> String {
    jobsort::formula::pymath::repr(v)
}

/// A duration as a person reads it (the library's, which the forecast's words use too).
pub use jobsort::input::units::span;

/// Write `bytes` to `path` so that a reader (a web server publishing the file) sees the old
/// file or the new one, never a part: a temporary file in the same folder, synced, then
/// renamed over `path`. Its mode is a new file's (0666 less the umask), not the temporary
/// file's 0600. A path that exists and is no regular file (a pipe, `/dev/stdout`) is
/// written as a stream.
pub fn write_file_atomic(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return std::fs::write(path, bytes);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "names no file"))?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{}.", name.to_string_lossy()))
        .suffix(".tmp")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// `n` rows as an aligned table; numeric columns (by `right`) are right-aligned. Rows are
/// made by `row` when needed (twice each: for the widths, then to print), never all held.
pub fn write_table(
    out: &mut Out,
    header: &[&str],
    right: &[bool],
    n: usize,
    row: impl Fn(usize) -> Vec<String>,
) -> std::io::Result<()> {
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for i in 0..n {
        for (w, cell) in width.iter_mut().zip(row(i)) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    let mut line = |cells: &[&str]| -> std::io::Result<()> {
        text.clear();
        for (i, cell) in cells.iter().enumerate() {
            let pad = width[i].saturating_sub(cell.chars().count());
            let last = i + 1 == cells.len();
            if right.get(i).copied().unwrap_or(false) {
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            } else {
                text.push_str(cell);
                if !last {
                    text.push_str(&" ".repeat(pad));
                }
            }
            if !last {
                text.push_str("  ");
            }
        }
        writeln!(out, "{}", text.trim_end())
    };
    line(header)?;
    for i in 0..n {
        line(&row(i).iter().map(String::as_str).collect::<Vec<_>>())?;
    }
    Ok(())
}

/// `n` rows as CSV with a header, each made by `row` as it is written.
pub fn write_csv(
    out: &mut Out,
    header: &[&str],
    n: usize,
    row: impl Fn(usize) -> Vec<String>,
) -> std::io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(header).map_err(io_error)?;
    for i in 0..n {
        w.write_record(row(i)).map_err(io_error)?;
    }
    w.flush()
}

/// `{"<key>":[...]}` and a newline, the `n` items made by `item` as they are written: the
/// bytes [`write_json`] (compact) writes for the whole document, without holding it. With
/// `not_ranked`, a second key `"not_ranked"` follows: the jobs the scheduler would not sort.
pub fn write_json_list(
    out: &mut Out,
    key: &str,
    n: usize,
    item: impl Fn(usize) -> serde_json::Value,
    not_ranked: Option<&[NotRanked]>,
) -> std::io::Result<()> {
    write!(out, "{{{}:[", serde_json::Value::from(key))?;
    for i in 0..n {
        if i > 0 {
            out.write_all(b",")?;
        }
        serde_json::to_writer(&mut *out, &item(i))?;
    }
    out.write_all(b"]")?;
    if let Some(jobs) = not_ranked {
        out.write_all(b",\"not_ranked\":")?;
        let jobs: Vec<serde_json::Value> = jobs
            .iter()
            .map(|j| serde_json::json!({"id": j.id, "state": j.state, "reason": j.reason}))
            .collect();
        serde_json::to_writer(&mut *out, &jobs)?;
    }
    writeln!(out, "}}")
}

/// The jobs the scheduler would not sort, after the `n` jobs `done` ("ranked",
/// "evaluated"): a summary line and a table of id, state and reason. Nothing when there are
/// none.
pub fn write_not_ranked(
    out: &mut Out,
    n: usize,
    done: &str,
    jobs: &[NotRanked],
) -> std::io::Result<()> {
    if jobs.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\n{n} {} {done}; {} not, as the scheduler would not sort them (--all: every job):",
        if n == 1 { "job" } else { "jobs" },
        jobs.len()
    )?;
    write_table(out, &["id", "state", "reason"], &[], jobs.len(), |i| {
        let j = &jobs[i];
        vec![j.id.clone(), j.state.clone(), j.reason.clone()]
    })
}

/// The I/O error inside a CSV error (so a closed pipe stays one), else the error as I/O.
fn io_error(e: csv::Error) -> std::io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => std::io::Error::other(format!("{other:?}")),
    }
}
