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
    extra: Option<(&str, serde_json::Value)>,
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
    if let Some((key, value)) = extra {
        write!(out, ",{}:", serde_json::Value::from(key))?;
        serde_json::to_writer(&mut *out, &value)?;
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

/// `s` cut to `width` characters, a `~` marking the cut.
pub fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut c: String = s.chars().take(width.saturating_sub(1)).collect();
    c.push('~');
    c
}

/// Whether `--per-job FILE` is CSV (`.csv`) or JSON lines (`.json`, `.jsonl`).
pub fn per_job_format(
    p: &std::path::Path,
) -> Result<(&std::path::Path, bool), super::report::Failure> {
    match p
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
    {
        Some(e) if e == "csv" => Ok((p, true)),
        Some(e) if e == "json" || e == "jsonl" => Ok((p, false)),
        _ => Err(super::report::Failure::usage(format!(
            "{}: --per-job writes FILE.csv or FILE.json (JSON lines); unknown extension",
            p.display()
        ))),
    }
}

/// Each run's per-user and per-queue mean-wait changes against the first run's (`labels`:
/// the runs' names, the first the base), largest first, as `sim` prints them after its table
/// (`--trace` and `--snapshot` alike); a run whose changes are all 0 prints none.
pub fn write_wait_changes(
    out: &mut Out,
    changes: &jobsort::sim::metrics::WaitChanges,
    labels: &[String],
) -> std::io::Result<()> {
    for (kind, changes) in [("user", &changes.users), ("queue", &changes.queues)] {
        for (k, rows) in changes.iter().enumerate() {
            if rows.iter().all(|c| c.change == 0.0) {
                continue;
            }
            writeln!(
                out,
                "\nmean wait per {kind}, `{}` against `{}` (largest changes first; s):",
                clip(&labels[k + 1], 48),
                clip(&labels[0], 48)
            )?;
            let shown = rows.len().min(CHANGES_SHOWN);
            let table: Vec<[String; 5]> = rows[..shown]
                .iter()
                .map(|c| {
                    [
                        c.name.clone(),
                        c.jobs.to_string(),
                        format!("{:.1}", c.base),
                        format!("{:.1}", c.other),
                        format!("{:+.1}", c.change),
                    ]
                })
                .collect();
            let name_w = table
                .iter()
                .map(|r| r[0].len())
                .max()
                .unwrap_or(0)
                .max(kind.len());
            writeln!(
                out,
                "  {kind:<name_w$}  {:>7}  {:>12}  {:>12}  {:>12}",
                "jobs", "before", "after", "change"
            )?;
            for [name, jobs, before, after, change] in &table {
                writeln!(
                    out,
                    "  {name:<name_w$}  {jobs:>7}  {before:>12}  {after:>12}  {change:>12}"
                )?;
            }
            if rows.len() > shown {
                writeln!(
                    out,
                    "  ... {} more (--format json: every one)",
                    rows.len() - shown
                )?;
            }
        }
    }
    Ok(())
}

/// The rows of each per-user and per-queue change table the text report shows.
const CHANGES_SHOWN: usize = 10;
