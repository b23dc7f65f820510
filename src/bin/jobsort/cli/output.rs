//! Standard output: one writer for every subcommand (so a closed pipe is one error value,
//! handled once in [`super::report::Failure::exit`]), the output formats, and the table and
//! CSV printers `eval` and `rank` share.

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

/// A value as a person reads it: the shortest text that round-trips.
pub fn show_value(v: f64) -> String {
    if v == v.trunc() && v.abs() < 1e16 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// Rows as an aligned table; numeric columns (by `right`) are right-aligned.
pub fn write_table(
    out: &mut Out,
    header: &[&str],
    right: &[bool],
    rows: &[Vec<String>],
) -> std::io::Result<()> {
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in width.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut line = |cells: &[&str]| -> std::io::Result<()> {
        let mut text = String::new();
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
    for row in rows {
        line(&row.iter().map(String::as_str).collect::<Vec<_>>())?;
    }
    Ok(())
}

/// Rows as CSV with a header.
pub fn write_csv(out: &mut Out, header: &[&str], rows: &[Vec<String>]) -> std::io::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(header).map_err(io_error)?;
    for row in rows {
        w.write_record(row).map_err(io_error)?;
    }
    w.flush()
}

/// The I/O error inside a CSV error (so a closed pipe stays one), else the error as I/O.
fn io_error(e: csv::Error) -> std::io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => std::io::Error::other(format!("{other:?}")),
    }
}
