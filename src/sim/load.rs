//! Loading a workload file: one rule for the format, for the library and the command line
//! alike. Gzip is recognised by its magic bytes (whatever the name); then a `.jsonl` /
//! `.ndjson` name means JSON lines, a `.json` name a JSON job list, and otherwise the text
//! decides: `[` or `{` (after white space) starts a JSON job list, anything else is SWF.

use super::swf::{machines_beside, read_swf};
use super::workload::{JsonLayout, TraceText, Workload, WorkloadError, parse_json_jobs_as};
use std::io::Read;
use std::path::Path;

/// The format of a workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    Swf,
    Json(JsonLayout),
}

/// The format of a workload's decoded `text` (its start is enough: the first text that is
/// not white space), its file `name` (`.gz` aside) as the hint (see the module doc).
pub fn trace_format(name: &str, text: &str) -> TraceFormat {
    let stem = name
        .strip_suffix(".gz")
        .unwrap_or(name)
        .to_ascii_lowercase();
    if stem.ends_with(".jsonl") || stem.ends_with(".ndjson") {
        TraceFormat::Json(JsonLayout::Lines)
    } else if stem.ends_with(".json") || text.trim_start().starts_with(['[', '{']) {
        TraceFormat::Json(JsonLayout::Auto)
    } else {
        TraceFormat::Swf
    }
}

/// Load a workload file ([`trace_format`] decides how to read it). An SWF trace without a
/// machine size in its header takes it from an AleaNG `<file>.machines` beside it.
pub fn load_workload(path: &Path) -> Result<Workload, WorkloadError> {
    let file = path.display().to_string();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (mut w, format) = read_trace(TraceText::open(path)?, &file, &name)?;
    if format == TraceFormat::Swf
        && w.machine.nodes.is_none()
        && let Some(m) = machines_beside(path)?
    {
        w.machine = m;
    }
    Ok(w)
}

/// A workload from a file's bytes as stored (plain or gzip): `file` names it in errors,
/// `name` is its name (the format hint, and [`Workload::name`]). Also says which format it
/// was read as.
pub fn read_workload(
    bytes: Vec<u8>,
    file: &str,
    name: &str,
) -> Result<(Workload, TraceFormat), WorkloadError> {
    read_trace(TraceText::new(&bytes[..], file, bytes.len())?, file, name)
}

/// A workload from a trace's text as it is decoded ([`read_workload`]'s rules; `Workload::
/// sha256` is of the stored bytes, hashed as they are read). An SWF trace is parsed a piece
/// at a time, never held whole; the other formats read the text whole.
pub fn read_trace<R: Read>(
    mut input: TraceText<R>,
    file: &str,
    name: &str,
) -> Result<(Workload, TraceFormat), WorkloadError> {
    let format = trace_format(name, input.head()?);
    let text = match format {
        TraceFormat::Swf => String::new(),
        _ => input.read_to_string()?,
    };
    let mut w = match format {
        TraceFormat::Swf => read_swf(&mut input, file)?,
        TraceFormat::Json(layout) => parse_json_jobs_as(&text, file, layout)?,
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
}
