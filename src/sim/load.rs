//! Loading a workload file: one rule for the format, for the library and the command line
//! alike. Gzip is recognised by its magic bytes (whatever the name); then a `.jsonl` /
//! `.ndjson` name means JSON lines, a `.json` name a JSON job list, and otherwise the text
//! decides: `[` or `{` (after white space) starts a JSON job list, a first line
//! `MM/DD/YYYY HH:MM:SS;T;ID;` a PBS accounting log, anything else is SWF. A directory is
//! a PBS accounting directory (`server_priv/accounting/`).

use super::swf::{machines_beside, parse_swf};
use super::workload::pbs_accounting::{Progress, looks_like_record};
use super::workload::{
    JsonLayout, ReadOptions, Workload, WorkloadError, decode_text, hex, parse_json_jobs_as,
    parse_pbs_accounting, read_pbs_accounting,
};
use std::path::Path;

/// The format of a workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    Swf,
    Json(JsonLayout),
    PbsAccounting,
}

impl TraceFormat {
    /// Whether the format is a scheduler's own record of what ran (a site's log): its
    /// recorded schedule must fit the cluster. Archive traces (SWF) are cleaned and converted,
    /// and some overcommit their stated machine (KTH-SP2 holds 101 of its 100 cores at
    /// t = 2489248).
    pub fn is_site_log(self) -> bool {
        matches!(self, TraceFormat::PbsAccounting)
    }
}

/// The format of a workload's decoded `text`, its file `name` (`.gz` aside) as the hint
/// (see the module doc).
pub fn trace_format(name: &str, text: &str) -> TraceFormat {
    let stem = name
        .strip_suffix(".gz")
        .unwrap_or(name)
        .to_ascii_lowercase();
    if stem.ends_with(".jsonl") || stem.ends_with(".ndjson") {
        TraceFormat::Json(JsonLayout::Lines)
    } else if stem.ends_with(".json") || text.trim_start().starts_with(['[', '{']) {
        TraceFormat::Json(JsonLayout::Auto)
    } else if text
        .lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(looks_like_record)
    {
        TraceFormat::PbsAccounting
    } else {
        TraceFormat::Swf
    }
}

/// Load a workload file ([`trace_format`] decides how to read it). An SWF trace without a
/// machine size in its header takes it from an AleaNG `<file>.machines` beside it.
pub fn load_workload(path: &Path) -> Result<Workload, WorkloadError> {
    load_workload_with(path, ReadOptions::default(), None).map(|(w, _)| w)
}

/// [`load_workload`] with a site log's [`ReadOptions`], saying which format it read;
/// `progress` hears the bytes read so far while a directory of accounting logs streams.
pub fn load_workload_with(
    path: &Path,
    options: ReadOptions,
    progress: Option<Progress<'_>>,
) -> Result<(Workload, TraceFormat), WorkloadError> {
    if path.is_dir() {
        let w = read_pbs_accounting(&[path.to_path_buf()], options, progress)?;
        return Ok((w, TraceFormat::PbsAccounting));
    }
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| WorkloadError::Io {
        file: file.clone(),
        message: e.to_string(),
    })?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (mut w, format) = read_workload_with(bytes, &file, &name, options)?;
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
    read_workload_with(bytes, file, name, ReadOptions::default())
}

/// [`read_workload`] with a site log's [`ReadOptions`].
pub fn read_workload_with(
    bytes: Vec<u8>,
    file: &str,
    name: &str,
    options: ReadOptions,
) -> Result<(Workload, TraceFormat), WorkloadError> {
    use sha2::Digest;
    let sha256 = hex(&sha2::Sha256::digest(&bytes));
    let text = decode_text(bytes, file)?;
    let format = trace_format(name, &text);
    let mut w = match format {
        TraceFormat::Swf => parse_swf(&text, file)?,
        TraceFormat::Json(layout) => parse_json_jobs_as(&text, file, layout)?,
        TraceFormat::PbsAccounting => parse_pbs_accounting(text.as_bytes(), file, options)?,
    };
    w.name = name.to_string();
    w.sha256 = sha256;
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
}
