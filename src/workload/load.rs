//! Loading a workload file: one rule for the format ([`detect`]), for the library, the command
//! line and every subcommand alike (`rank`/`eval --jobs` ask it too, through
//! `jobs::load`). Gzip is recognised by its magic bytes (whatever the name); then a `.jsonl` /
//! `.ndjson` name means JSON lines, a `.json` name a JSON job list, and otherwise the text
//! decides: `[` or `{` (after white space) starts a JSON job list, a first line
//! `MM/DD/YYYY HH:MM:SS;T;ID;` a PBS accounting log, a first line (past blank lines and SWF
//! `;` comments) holding a `|` a sacct dump, a first line of numbers or an SWF `;` comment
//! SWF, a first line holding a `,` (or a `.csv` name) a CSV job file with a header. A JSON
//! text whose first job has Flux's `t_submit` (and no `submit`) is a Flux job list. A
//! directory is a PBS accounting directory (`server_priv/accounting/`). Text that is none of
//! these is an error naming what was tried ([`WorkloadError::Unrecognised`]).

use super::pbs_accounting::{Progress, looks_like_record};
use super::swf::{machines_beside, parse_swf_with, read_swf_with};
use super::{
    JsonLayout, ReadOptions, SacctOptions, TraceText, Workload, WorkloadError, looks_like_flux,
    parse_csv_jobs, parse_flux_jobs, parse_json_jobs_as, parse_pbs_accounting, parse_sacct,
    read_json_jobs, read_pbs_accounting, sniff_flux,
};
use std::io::Read;
use std::path::Path;

/// How to read a trace beyond its bytes: bad records of a site's log strict or counted, and
/// what a sacct dump does not say of itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TraceOptions {
    pub read: ReadOptions,
    pub sacct: SacctOptions,
    /// The format, when the caller says it (`--jobs-format`); `None`: [`detect`] it.
    pub format: Option<TraceFormat>,
}

/// The format of a workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    Swf,
    Json(JsonLayout),
    /// Slurm `sacct --parsable2` output ([`super::sacct`]).
    Sacct,
    /// `flux jobs --json` or `flux job list` output ([`super::parse_flux_jobs`]).
    FluxJobs,
    /// PBS accounting logs ([`super::pbs_accounting`]).
    PbsAccounting,
    /// A CSV job file with a header row, in the job schema of the JSON job list (each row
    /// read as the object of its header's names).
    Csv,
}

impl TraceFormat {
    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Swf => "SWF",
            TraceFormat::Json(JsonLayout::Lines) => "JSON lines",
            TraceFormat::Json(JsonLayout::Auto) => "a JSON job list",
            TraceFormat::Sacct => "a sacct -P dump",
            TraceFormat::FluxJobs => "a Flux job list",
            TraceFormat::PbsAccounting => "a PBS accounting log",
            TraceFormat::Csv => "CSV",
        }
    }
}

/// What [`detect`] tries, in order, for the message of a text that is none of them.
pub const FORMATS_TRIED: &str = "JSON (a job list, JSON lines, qstat -f -F json, a Flux job list), \
     a PBS accounting log, a sacct -P dump, SWF, CSV with a header";

impl TraceFormat {
    /// Whether the format is a scheduler's own record of what ran (a site's log): its
    /// recorded schedule must fit the cluster. Archive traces (SWF) are cleaned and converted,
    /// and some overcommit their stated machine (KTH-SP2 holds 101 of its 100 cores at
    /// t = 2489248).
    pub fn is_site_log(self) -> bool {
        matches!(
            self,
            TraceFormat::PbsAccounting | TraceFormat::Sacct | TraceFormat::FluxJobs
        )
    }
}

/// The format of a workload's decoded `text` (its start is enough: the first text that is
/// not white space), its file `name` (`.gz` aside) as the hint (see the module doc); `None`
/// when the text is none of the formats read. Empty text is SWF (a trace of no jobs).
pub fn detect(name: &str, text: &str) -> Option<TraceFormat> {
    let stem = name
        .strip_suffix(".gz")
        .unwrap_or(name)
        .to_ascii_lowercase();
    let lines = stem.ends_with(".jsonl") || stem.ends_with(".ndjson");
    let json = lines || stem.ends_with(".json") || text.trim_start().starts_with(['[', '{']);
    let first = text.lines().find(|l| !l.trim().is_empty());
    let data = text
        .lines()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with(';'));
    Some(if json && looks_like_flux(text) {
        TraceFormat::FluxJobs
    } else if lines {
        TraceFormat::Json(JsonLayout::Lines)
    } else if json {
        TraceFormat::Json(JsonLayout::Auto)
    } else if first.is_some_and(looks_like_record) {
        TraceFormat::PbsAccounting
    } else if data.is_some_and(|l| l.contains('|')) {
        TraceFormat::Sacct
    } else if first.is_none_or(|l| l.trim_start().starts_with(';')) || data.is_some_and(swf_like) {
        TraceFormat::Swf
    } else if stem.ends_with(".csv") || first.is_some_and(|l| l.contains(',')) {
        TraceFormat::Csv
    } else if stem.ends_with(".swf") {
        // Named SWF: its reader says what is wrong with the line.
        TraceFormat::Swf
    } else {
        return None;
    })
}

/// Whether a line is an SWF record's shape: numbers separated by white space.
fn swf_like(line: &str) -> bool {
    line.split_whitespace()
        .all(|w| w.parse::<f64>().is_ok_and(f64::is_finite))
}

/// [`detect`], with SWF for a text that is none of the formats (its reader then says which
/// line is not SWF).
pub fn trace_format(name: &str, text: &str) -> TraceFormat {
    detect(name, text).unwrap_or(TraceFormat::Swf)
}

/// Load a workload file ([`trace_format`] decides how to read it). An SWF trace without a
/// machine size in its header takes it from an AleaNG `<file>.machines` beside it.
pub fn load_workload(path: &Path) -> Result<Workload, WorkloadError> {
    load_workload_with(path, &TraceOptions::default(), None).map(|(w, _)| w)
}

/// [`load_workload`] with the options a site's log may need, saying which format it read;
/// `progress` hears the bytes read so far while a directory of accounting logs streams.
pub fn load_workload_with(
    path: &Path,
    options: &TraceOptions,
    progress: Option<Progress<'_>>,
) -> Result<(Workload, TraceFormat), WorkloadError> {
    if path.is_dir() {
        let w = read_pbs_accounting(&[path.to_path_buf()], options.read, progress)?;
        return Ok((w, TraceFormat::PbsAccounting));
    }
    let file = path.display().to_string();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (mut w, format) = read_trace(TraceText::open(path)?, &file, &name, options)?;
    if format == TraceFormat::Swf
        && w.machine.nodes.is_none()
        && let Some(m) = machines_beside(path)?
    {
        w.machine = m;
    }
    Ok((w, format))
}

/// A workload from a file's bytes as stored (plain or gzip): `file` names it in errors,
/// `name` is its name (the format hint, and [`Workload::name`]). Also says which format it
/// was read as.
pub fn read_workload(
    bytes: Vec<u8>,
    file: &str,
    name: &str,
) -> Result<(Workload, TraceFormat), WorkloadError> {
    read_workload_with(bytes, file, name, &TraceOptions::default())
}

/// [`read_workload`] with the options a site's log may need.
pub fn read_workload_with(
    bytes: Vec<u8>,
    file: &str,
    name: &str,
    options: &TraceOptions,
) -> Result<(Workload, TraceFormat), WorkloadError> {
    read_trace(
        TraceText::new(&bytes[..], file, bytes.len())?,
        file,
        name,
        options,
    )
}

/// A workload from a trace's text as it is decoded ([`read_workload`]'s rules; `Workload::
/// sha256` is of the stored bytes, hashed as they are read). SWF traces and JSON job lists
/// are parsed a piece at a time, never held whole; the other formats read the text whole
/// (and their format is told again from all of it), and so does a JSON text whose start
/// does not hold its first job (only all of it tells whether it is a Flux job list).
pub fn read_trace<R: Read>(
    mut input: TraceText<R>,
    file: &str,
    name: &str,
    options: &TraceOptions,
) -> Result<(Workload, TraceFormat), WorkloadError> {
    let head = input.head()?;
    let Some(format) = options.format.or_else(|| detect(name, head)) else {
        let line = head.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let first_line: String = line.chars().take(80).collect();
        return Err(WorkloadError::Unrecognised {
            file: file.to_string(),
            first_line: first_line.escape_debug().to_string(),
        });
    };
    let not_flux = sniff_flux(head.trim_start()) == Some(false);
    let streams = match format {
        TraceFormat::Swf => true,
        TraceFormat::Json(_) => not_flux || input.decoded_all(),
        _ => false,
    };
    let (format, text) = if streams {
        (format, String::new())
    } else {
        let text = input.read_to_string()?;
        let told = options.format.or_else(|| detect(name, &text));
        (told.unwrap_or(format), text)
    };
    let mut w = match format {
        // Read whole only when its start looked like another format (it cannot, in practice).
        TraceFormat::Swf if !streams => parse_swf_with(&text, file, options.read)?,
        TraceFormat::Swf => read_swf_with(&mut input, file, options.read)?,
        TraceFormat::Json(layout) if streams => read_json_jobs(&mut input, file, layout)?,
        TraceFormat::Json(layout) => parse_json_jobs_as(&text, file, layout)?,
        TraceFormat::Sacct => parse_sacct(&text, file, options.read, &options.sacct)?,
        TraceFormat::FluxJobs => parse_flux_jobs(&text, file, options.read)?,
        TraceFormat::PbsAccounting => parse_pbs_accounting(text.as_bytes(), file, options.read)?,
        TraceFormat::Csv => parse_csv_jobs(&text, file)?,
    };
    w.name = name.to_string();
    w.sha256 = input.sha256();
    Ok((w, format))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_name_is_a_hint_the_content_decides() {
        let swf = "1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
        let json = "[{\"submit\": 0, \"run\": 10, \"ncpus\": 1}]";
        let lines = "{\"submit\": 0, \"run\": 10, \"ncpus\": 1}\n";
        let auto = TraceFormat::Json(JsonLayout::Auto);
        assert_eq!(trace_format("t.swf", swf), TraceFormat::Swf);
        assert_eq!(trace_format("<stdin>", swf), TraceFormat::Swf);
        assert_eq!(trace_format("<stdin>", json), auto);
        assert_eq!(trace_format("t.swf", lines), auto);
        assert_eq!(trace_format("t.json", swf), auto);
        assert_eq!(
            trace_format("T.JSONL.gz", lines),
            TraceFormat::Json(JsonLayout::Lines)
        );
        // A gzip file is recognised by its bytes, whatever its name.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, lines.as_bytes()).unwrap();
        let (w, format) = read_workload(gz.finish().unwrap(), "t", "t").unwrap();
        assert_eq!((format, w.jobs.len()), (auto, 1));
        // One object on one line is one job (it used to be refused as a document).
        let (w, _) = read_workload(lines.into(), "t.jsonl", "t.jsonl").unwrap();
        assert_eq!(w.jobs.len(), 1);
    }

    #[test]
    fn a_sacct_dump_is_told_by_its_bars_and_swf_stays_swf() {
        let sacct = "JobID|Submit|Start|End|State|NCPUS\n\
                     1|2026-01-05T10:00:00|2026-01-05T10:01:00|2026-01-05T10:02:00|COMPLETED|1\n";
        assert_eq!(trace_format("sacct.txt", sacct), TraceFormat::Sacct);
        assert_eq!(trace_format("t.swf", sacct), TraceFormat::Sacct);
        // Headerless (`-n`), after blank lines.
        assert_eq!(
            trace_format("<stdin>", "\n4103947|4103947|ub-hpc\n"),
            TraceFormat::Sacct
        );
        // An SWF comment may hold a bar; the first data line decides.
        let swf = "; Note: a|b\n1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n";
        assert_eq!(trace_format("t.swf", swf), TraceFormat::Swf);
        assert_eq!(
            trace_format("t.json", sacct),
            TraceFormat::Json(JsonLayout::Auto)
        );
        let (w, format) = read_workload(sacct.into(), "s", "s").unwrap();
        assert_eq!(
            (format, w.jobs.len(), w.jobs[0].run),
            (TraceFormat::Sacct, 1, 60)
        );
    }

    /// JSON lines and documents stream a piece at a time: a text that starts with `{` is read
    /// as a document until its first object says it is JSON lines (no `"jobs"`), and the
    /// lines then start over from the first piece, numbered on through the later pieces.
    #[test]
    fn json_streams_across_pieces_and_lines_start_over() {
        let line = |i: usize| {
            format!("{{\"submit\": {i}, \"run\": 10, \"ncpus\": 1, \"user\": \"u{i}\"}}\n")
        };
        let mut text: String = (1..=20_000).map(line).collect();
        assert!(text.len() > 3 * (1 << 18), "more than three pieces");
        let (w, format) = read_workload(text.clone().into(), "t", "t").unwrap();
        assert_eq!(format, TraceFormat::Json(JsonLayout::Auto));
        assert_eq!(w.jobs.len(), 20_000);
        assert_eq!(
            (w.jobs[19_999].id.as_str(), w.jobs[19_999].submit),
            ("20000", 20_000)
        );
        text.push_str("{\"submit\": 1,\n");
        let e = read_workload(text.into(), "t", "t")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t:20001: invalid JSON: "), "{e}");
        let doc = format!(
            "{{\"jobs\": [\n{}]}}",
            (1..=20_000).map(line).collect::<Vec<_>>().join(",")
        );
        let (w, _) = read_workload(doc.clone().into(), "t", "t").unwrap();
        assert_eq!(w.jobs.len(), 20_000);
        let bad = doc.replace("\"submit\": 19999,", "\"submit\": 19999");
        let e = read_workload(bad.into(), "t", "t").unwrap_err().to_string();
        assert!(e.starts_with("t:20000: invalid JSON: "), "{e}");
    }

    /// A JSON document on one line longer than a piece is read in pieces of whole
    /// characters (never held whole, never refused as a long line), and JSON lines whose
    /// first line is longer than a piece start over from all of it.
    #[test]
    fn a_document_on_one_long_line_streams_in_pieces() {
        let job =
            |i: usize| format!("{{\"id\": \"é{i}\", \"submit\": {i}, \"run\": 10, \"ncpus\": 1}}");
        let doc = format!("[{}]", (0..30_000).map(job).collect::<Vec<_>>().join(","));
        assert!(doc.len() > 4 * (1 << 18) && !doc.contains('\n'));
        let (w, _) = read_workload(doc.into(), "t", "t").unwrap();
        assert_eq!(
            (w.jobs.len(), w.jobs[29_999].id.as_str()),
            (30_000, "é29999")
        );
        let pad = "é".repeat(400_000);
        let lines = format!(
            "{{\"id\": 1, \"submit\": 0, \"pad\": \"{pad}\", \"run\": 10, \"ncpus\": 1}}\n{}\n",
            job(2)
        );
        let (w, format) = read_workload(lines.into(), "t", "t").unwrap();
        assert_eq!(
            (format, w.jobs.len()),
            (TraceFormat::Json(JsonLayout::Auto), 2)
        );
    }

    /// Whether a JSON text is a Flux job list is told by its first job: when that job does
    /// not end within the start of the text that chose the format, all of it is read first.
    #[test]
    fn a_first_job_longer_than_the_start_still_tells_flux_from_ours() {
        let pad = "x".repeat(600_000);
        let flux = format!(
            "{{\"id\": 1, \"pad\": \"{pad}\", \"t_submit\": 0.0, \"t_run\": 1.0, \"t_cleanup\": 11.0, \"ncores\": 1}}\n"
        );
        let (w, format) = read_workload(flux.into(), "t", "t").unwrap();
        assert_eq!((format, w.jobs.len()), (TraceFormat::FluxJobs, 1));
        let ours = format!(
            "{{\"id\": 1, \"pad\": \"{pad}\", \"submit\": 0, \"run\": 10, \"ncpus\": 1}}\n"
        );
        let (w, format) = read_workload(ours.into(), "t", "t").unwrap();
        assert_eq!(
            (format, w.jobs.len()),
            (TraceFormat::Json(JsonLayout::Auto), 1)
        );
    }
}
