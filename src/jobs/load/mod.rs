//! Reading job files: a JSON array, JSON lines, CSV with a header, or PBS `qstat -f -F json`
//! output. Every problem is an error naming the file and the line (or JSON path); no job and
//! no value is silently dropped.
//!
//! Field names: `id`, `user`, `group`, `account`, `queue`, `submit` (or `qrank`; `qtime` in
//! qstat output), PBS keywords (`eligible_time`, `job_priority`, `fairshare_perc`, ...), and
//! resources — flat, or under `resources` / `Resource_List` (CSV: `Resource_List.ncpus`).
//! Values are numbers in formula units (seconds, kilobytes) or PBS strings: `HH:MM:SS` /
//! `MM:SS` times and `4gb` / `512mb` / `10kb` sizes. String and boolean resources and PBS
//! job attributes (`Job_Name`, `job_state`, ...) are not formula values and are not read.
//!
//! Nothing is silent: a field that is no keyword, resource, identity field or PBS job
//! attribute — usually a misspelling (`ncpu`, a CSV column `walltme`) — is reported in
//! [`JobFile::unknown`] with the closest known name. A UTF-8 byte order mark is skipped; a
//! `.json` file must be JSON.
//!
//! Files are read as they are parsed, one job at a time, straight into the columns of a
//! [`JobSet`] (a JSON document too: its jobs stream out of the array, or the `Jobs` object of
//! qstat output). Errors are those of the file read whole: one that is not UTF-8 says so
//! first, then a JSON document's syntax error comes before what its jobs say.
//!
//! Files: `error` ([`JobFileError`] and its locations), `text` (the bytes: UTF-8 and peeking
//! at the format), `from_json` (JSON documents, `qstat -f -F json` and JSON lines),
//! `from_csv` (CSV with a header), `object` (one job object into the columns: field names,
//! units and PBS attribute aliases), `state` (qstat job states: which jobs PBS's scheduler
//! sorts), `unknown` (fields no formula reads).

mod error;
mod from_csv;
mod from_json;
mod object;
mod state;
mod text;
mod unknown;

pub use error::JobFileError;
pub use state::{JobState, NotRanked};
pub use unknown::UnknownField;

use super::{JobSet, JobSetBuilder};
use crate::catalog::Catalog;
use crate::input::text::{MAX_LINE, NUL_BYTE};
use error::invalid;
use from_csv::read_csv;
use from_json::{read_json_document, read_json_lines};
use object::Sink;
use std::io::{BufRead, Read};
use std::path::Path;
use text::{Seen, Stop, Utf8Check, skip_space};
use unknown::Unknown;

/// The job file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobFormat {
    /// Decide from the extension, then the content.
    Auto,
    /// A JSON array of job objects (or `{"jobs": [...]}`).
    Json,
    /// One JSON object per line.
    JsonLines,
    /// CSV with a header row.
    Csv,
    /// `qstat -f -F json`: jobs under `"Jobs"`.
    Qstat,
}

/// A job file as read: the jobs, and the fields no formula can read.
#[derive(Debug, Clone, Default)]
pub struct JobFile {
    pub jobs: JobSet,
    /// Fields that are no keyword, resource or identity field or PBS job attribute, in the
    /// order first seen.
    pub unknown: Vec<UnknownField>,
}

/// The format a file name implies (`.csv`, `.jsonl`/`.ndjson`, `.json`), else `Auto`.
fn format_of_name(path: &Path) -> Option<JobFormat> {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("csv") => Some(JobFormat::Csv),
        Some("jsonl" | "ndjson") => Some(JobFormat::JsonLines),
        Some("json") => Some(JobFormat::Json),
        _ => None,
    }
}

/// Read jobs from a file. With [`JobFormat::Auto`] the extension decides (`.csv`, `.jsonl`;
/// a `.json` file is JSON — a document or JSON lines — and never read as CSV), else the
/// content. `columns`: the numeric columns to keep (all when `None`; the others are still
/// read and checked). The file is read as it is parsed, never held whole.
pub fn load_jobs(
    path: &Path,
    format: JobFormat,
    catalog: &Catalog,
    columns: Option<&[&str]>,
) -> Result<JobFile, JobFileError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|source| JobFileError::Io {
        path: name.clone(),
        source,
    })?;
    let reader = std::io::BufReader::with_capacity(1 << 16, file);
    let how = match (format, format_of_name(path)) {
        (JobFormat::Auto, Some(JobFormat::Json)) => How::AnyJson,
        (JobFormat::Auto, Some(f)) => How::Format(f),
        (f, _) => How::Format(f),
    };
    read(reader, &name, how, catalog, columns)
}

/// Read jobs from a stream (stdin, say) as [`load_jobs`] reads a file; `name` is used in
/// error locations.
pub fn read_jobs(
    reader: impl BufRead,
    name: &str,
    format: JobFormat,
    catalog: &Catalog,
    columns: Option<&[&str]>,
) -> Result<JobFile, JobFileError> {
    read(reader, name, How::Format(format), catalog, columns)
}

/// Parse jobs from text; `name` is used in error locations. A leading byte order mark is
/// skipped. Every numeric column is kept.
pub fn parse_jobs(
    text: &str,
    name: &str,
    format: JobFormat,
    catalog: &Catalog,
) -> Result<JobFile, JobFileError> {
    read_jobs(text.as_bytes(), name, format, catalog, None)
}

/// How to read a stream: a format, or "JSON of either kind" (a `.json` name).
#[derive(Clone, Copy)]
enum How {
    Format(JobFormat),
    AnyJson,
}

fn read(
    reader: impl BufRead,
    name: &str,
    how: How,
    catalog: &Catalog,
    columns: Option<&[&str]>,
) -> Result<JobFile, JobFileError> {
    let mut src = Utf8Check::new(reader);
    let mut sink = Sink {
        name,
        catalog,
        unknown: Unknown::default(),
        out: JobSetBuilder::new(columns),
    };
    let result = read_format(&mut src, how, &mut sink);
    if result.is_err() {
        src.drain();
    }
    match src.stop() {
        Some(Stop::NotUtf8(byte)) => {
            return Err(invalid(
                name.to_string(),
                format!("not UTF-8 text (byte {byte})"),
            ));
        }
        Some(Stop::Nul(line, column)) => {
            return Err(invalid(format!("{name}:{line}:{column}"), NUL_BYTE));
        }
        Some(Stop::LongLine(line)) => {
            return Err(invalid(
                format!("{name}:{line}"),
                format!(
                    "a line longer than {} MiB: no job file's line is this long (is this a \
                     text file?)",
                    MAX_LINE >> 20
                ),
            ));
        }
        None => {}
    }
    result?;
    Ok(JobFile {
        jobs: sink.out.finish(),
        unknown: sink.unknown.fields,
    })
}

const BOM: &[u8] = "\u{feff}".as_bytes();

/// Skip a byte order mark, choose the format (see [`load_jobs`]) and read.
fn read_format<R: BufRead>(
    src: &mut Utf8Check<R>,
    how: How,
    sink: &mut Sink<'_>,
) -> Result<(), JobFileError> {
    let io = |source| JobFileError::Io {
        path: sink.name.to_string(),
        source,
    };
    if src.fill_buf().map_err(io)?.starts_with(BOM) {
        src.consume(BOM.len());
    }
    // What was peeked at; the parsers read it again (line numbers count from the start).
    let mut seen = Seen::default();
    let first = skip_space(src, &mut seen).map_err(io)?;
    let format = match (how, first) {
        (How::Format(JobFormat::Auto), None) => return Ok(()),
        (How::Format(JobFormat::Auto), Some(b'[' | b'{')) | (How::AnyJson, _) => match first {
            None => return Ok(()),
            Some(b'{') if lines_follow(src, &mut seen).map_err(io)? => JobFormat::JsonLines,
            _ => JobFormat::Json,
        },
        (How::Format(JobFormat::Auto), Some(_)) => JobFormat::Csv,
        (How::Format(f), _) => f,
    };
    if matches!(format, JobFormat::Json | JobFormat::Qstat | JobFormat::Auto) {
        src.allow_long_lines();
    }
    let input = seen.chain(src);
    match format {
        JobFormat::Csv => read_csv(input, sink),
        JobFormat::JsonLines => read_json_lines(input, sink),
        JobFormat::Json | JobFormat::Qstat | JobFormat::Auto => read_json_document(input, sink),
    }
}

/// Whether a JSON text starting with `{` is JSON lines rather than one document: its first
/// line is a JSON value by itself and something follows it (so the text as one document would
/// end there, at line 2 or later). Reads that line and the space after it into `seen`. A
/// first line longer than half of [`MAX_LINE`] is taken for a document on one line.
fn lines_follow(src: &mut impl BufRead, seen: &mut Seen) -> std::io::Result<bool> {
    let mut line = Vec::new();
    src.take(MAX_LINE as u64 / 2).read_until(b'\n', &mut line)?;
    let whole = std::str::from_utf8(&line)
        .is_ok_and(|l| serde_json::from_str::<serde_json::Value>(l).is_ok());
    seen.push(&line);
    Ok(whole && skip_space(src, seen)?.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<JobSet, JobFileError> {
        parse_jobs(text, "jobs", JobFormat::Auto, &Catalog::pbs()).map(|f| f.jobs)
    }

    fn unknown(text: &str) -> Vec<String> {
        parse_jobs(text, "jobs", JobFormat::Auto, &Catalog::pbs())
            .unwrap()
            .unknown
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn json_array_with_units_and_nested_resources() {
        let jobs = parse(r#"[{"id":"a","user":"bob","ncpus":4,"walltime":"01:00:00","resources":{"mem":"4gb"}},{"id":"b","eligible_time":"10:00"}]"#).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs.value(0, "ncpus"), Some(4.0));
        assert_eq!(jobs.value(0, "walltime"), Some(3600.0));
        assert_eq!(jobs.value(0, "mem"), Some(4194304.0));
        assert_eq!(jobs.user(0), Some("bob"));
        assert_eq!(jobs.value(1, "eligible_time"), Some(600.0));
        assert_eq!(jobs.value(1, "ncpus"), Some(0.0), "absent: 0");
    }

    /// A value outside its field's domain (the range `check` analyses a formula over) is an
    /// error at its JSON path, or its CSV line, naming the field: it was read silently.
    #[test]
    fn values_outside_their_domain_are_errors_where_they_are() {
        let err = |text: &str| parse(text).unwrap_err().to_string();
        assert_eq!(
            err(r#"[{"id":"a","ncpus":4},{"id":"b","ncpus":-999999999999}]"#),
            "jobs: $[1].ncpus: ncpus -999999999999 is out of range: it is at least 0"
        );
        assert_eq!(
            err(r#"[{"id":"a","job_priority":5000}]"#),
            "jobs: $[0].job_priority: job_priority 5000 is out of range: it is from -1024 to 1023"
        );
        assert_eq!(
            err(r#"{"Jobs":{"1.s":{"Priority":-2000}}}"#),
            "jobs: $.Jobs[\"1.s\"].Priority: job_priority -2000 is out of range: it is from -1024 to 1023"
        );
        assert_eq!(
            err("{\"id\":\"a\",\"accrue_type\":0.5}\n{\"id\":\"b\"}\n"),
            "jobs:1: $.accrue_type: accrue_type 0.5 is not a whole number"
        );
        assert_eq!(
            err("id,walltime\na,01:00:00\nb,04:18446744073709551616:00\n"),
            "jobs:3: column `walltime`: `04:18446744073709551616:00` is out of range: more \
             seconds than a 64-bit count holds"
        );
        // The ends of each range are in it.
        let jobs = parse(r#"[{"job_priority":-1024,"accrue_type":4,"ncpus":0}]"#).unwrap();
        assert_eq!(jobs.value(0, "job_priority"), Some(-1024.0));
    }

    #[test]
    fn json_lines_and_csv() {
        let jobs = parse("{\"id\":\"a\",\"ncpus\":1}\n{\"id\":\"b\",\"ncpus\":2}\n").unwrap();
        assert_eq!(jobs.table().column("ncpus"), Some(&[1.0, 2.0][..]));
        let jobs =
            parse("id,user,ncpus,Resource_List.walltime\nj1,ann,8,00:30:00\nj2,bob,,\n").unwrap();
        assert_eq!(jobs.value(0, "walltime"), Some(1800.0));
        assert_eq!(jobs.value(1, "ncpus"), Some(0.0));
        assert_eq!((jobs.user(1), jobs.submit(1)), (Some("bob"), None));
    }

    #[test]
    fn qstat_json() {
        let text = r#"{"pbs_version":"23.06","Jobs":{
            "12.srv":{"Job_Owner":"ann@host","egroup":"g1","queue":"workq","qtime":"Mon Nov 30 01:00:00 2026",
                      "Priority":10,"eligible_time":"00:05:00","Resource_List":{"ncpus":2,"mem":"512mb","walltime":"02:00:00","select":"1:ncpus=2"}},
            "13.srv":{"euser":"bob","Resource_List":{"ncpus":1}}}}"#;
        let jobs = parse(text).unwrap();
        assert_eq!(jobs.id(0), "12.srv");
        assert_eq!(jobs.user(0), Some("ann"));
        assert_eq!(jobs.group(0), Some("g1"));
        assert_eq!(jobs.queue(0), Some("workq"));
        assert_eq!(jobs.value(0, "job_priority"), Some(10.0));
        assert_eq!(jobs.value(0, "eligible_time"), Some(300.0));
        assert_eq!(jobs.value(0, "mem"), Some(524288.0));
        assert_eq!(jobs.value(0, "select"), None);
        assert!(jobs.submit(0).is_some());
        assert_eq!(jobs.id(1), "13.srv");
        assert_eq!(jobs.user(1), Some("bob"));
    }

    #[test]
    fn qstat_states_are_read_and_the_jobs_pbs_would_not_sort_taken_out() {
        let text = r#"{"Jobs":{
            "1.s":{"job_state":"Q","Resource_List":{"ncpus":1},"qtime":5},
            "2.s":{"job_state":"R","Resource_List":{"ncpus":2},"qtime":1},
            "3[].s":{"job_state":"B","array":"True","array_indices_remaining":"2-4","Resource_List":{"ncpus":3},"qtime":2},
            "3[1].s":{"job_state":"R","array_id":"3[].s","Resource_List":{"ncpus":3},"qtime":2},
            "4.s":{"job_state":"H","Hold_Types":"u","Resource_List":{"ncpus":4}}}}"#;
        let mut jobs = parse(text).unwrap();
        assert!(jobs.has_states());
        assert_eq!(jobs.state(1).map(JobState::letter), Some('R'));
        let out = jobs.take_not_ranked();
        let got: Vec<(&str, &str, &str)> = out
            .iter()
            .map(|n| (n.id.as_str(), n.state.as_str(), n.reason.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("2.s", "R", "running"),
                ("3[1].s", "R", "running"),
                ("4.s", "H", "held: user hold")
            ]
        );
        // What is left is what was read, rows in order, every column with them.
        assert_eq!(jobs.ids().iter().collect::<Vec<_>>(), ["1.s", "3[].s"]);
        assert_eq!(jobs.table().column("ncpus"), Some(&[1.0, 3.0][..]));
        assert_eq!(jobs.submits(), Some(&[5.0, 2.0][..]), "4.s had no qtime");
        // Job files that are not qstat output have no state, even with `job_state`.
        let mut plain = parse(r#"[{"id":"a","job_state":"R"}]"#).unwrap();
        assert!(!plain.has_states());
        assert!(plain.take_not_ranked().is_empty());
        let e = parse(r#"{"Jobs":{"1.s":{"job_state":"Z"}}}"#)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "jobs: $.Jobs[\"1.s\"].job_state: `Z` is no PBS job state (one of B E F H M Q R S T U W X)"
        );
    }

    #[test]
    fn errors_name_the_place() {
        let e = parse(r#"[{"id":"a"},{"id":"b","walltime":"1:xx"}]"#)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("jobs: $[1].walltime: "), "{e}");
        let e = parse("{\"id\":\"a\"}\n{\"id\":\"b\",\"ncpus\":\"many\"}\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("jobs:2: "), "{e}");
        let e = parse("id,ncpus\na,1\nb,lots\n").unwrap_err().to_string();
        assert!(e.starts_with("jobs:3: column `ncpus`"), "{e}");
        let e = parse("[{\"id\": }]").unwrap_err().to_string();
        assert!(e.starts_with("jobs:1:"), "{e}");
        let e = parse("id,ncpus\na,1,2\n").unwrap_err().to_string();
        assert!(e.starts_with("jobs:2"), "{e}");
    }

    #[test]
    fn misspelled_fields_are_reported_with_the_closest_name() {
        assert_eq!(
            unknown(r#"[{"id":"a","ncpu":4},{"id":"b","ncpu":2,"Resource_List":{"walltme":60}}]"#),
            [
                "jobs: $[0].ncpu: `ncpu` is no PBS keyword, resource or job attribute and is not read (2 jobs have it); did you mean `ncpus`?",
                "jobs: $[1].Resource_List.walltme: `Resource_List.walltme` is no PBS keyword, resource or job attribute and is not read; did you mean `walltime`?",
            ]
        );
        assert_eq!(
            unknown("id,walltme,Resource_List.ncpu\na,60,1\n"),
            [
                "jobs:2: column `walltme`: `walltme` is no PBS keyword, resource or job attribute and is not read; did you mean `walltime`?",
                "jobs:2: column `Resource_List.ncpu`: `Resource_List.ncpu` is no PBS keyword, resource or job attribute and is not read; did you mean `ncpus`?",
            ]
        );
        assert_eq!(
            unknown("{\"id\":\"a\",\"frobs\":1}\n{\"id\":\"b\"}\n"),
            [
                "jobs:1: $.frobs: `frobs` is no PBS keyword, resource or job attribute and is not read (declare a custom resource with --resource NAME:TYPE)"
            ]
        );
        // qstat attributes, identity fields, keywords and string resources are known.
        let qstat = r#"{"Jobs":{"1.srv":{"Job_Name":"x","job_state":"Q","euser":"ann","Priority":0,
            "eligible_time":"00:00:10","Resource_List":{"ncpus":1,"select":"1:ncpus=1"},
            "resources_used":{"cput":"00:00:00"}}}}"#;
        assert_eq!(unknown(qstat), Vec::<String>::new());
    }

    #[test]
    fn byte_order_mark_is_skipped_and_json_files_must_be_json() {
        let jobs = parse("\u{feff}[{\"id\":\"a\",\"ncpus\":1}]").unwrap();
        assert_eq!(jobs.len(), 1);
        let jobs = parse("\u{feff}id,ncpus\na,1\n").unwrap();
        assert_eq!(jobs.value(0, "ncpus"), Some(1.0));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jobs.json");
        std::fs::write(&path, "\u{feff}[{\"id\":\"a\"}]").unwrap();
        assert_eq!(
            load_jobs(&path, JobFormat::Auto, &Catalog::pbs(), None)
                .unwrap()
                .jobs
                .len(),
            1
        );
        std::fs::write(&path, "{\"id\":\"a\"}\n{\"id\":\"b\"}\n").unwrap();
        assert_eq!(
            load_jobs(&path, JobFormat::Auto, &Catalog::pbs(), None)
                .unwrap()
                .jobs
                .len(),
            2,
            "JSON lines in a .json file"
        );
        std::fs::write(&path, "\n\nid,ncpus\na,1\n").unwrap();
        let e = load_jobs(&path, JobFormat::Auto, &Catalog::pbs(), None)
            .unwrap_err()
            .to_string();
        let at = format!("{}:3:1: invalid JSON", path.display());
        assert!(e.starts_with(&at), "{e}");
    }

    #[test]
    fn a_streamed_document_reads_as_the_document_read_whole() {
        // `Jobs` wins over `jobs` wherever it is, and what the `jobs` said is forgotten.
        let jobs =
            parse(r#"{"jobs":[{"id":"x","ncpus":"many"}],"Jobs":{"1.s":{"ncpus":2}}}"#).unwrap();
        assert_eq!((jobs.len(), jobs.id(0)), (1, "1.s"));
        let jobs = parse(r#"{"Jobs":{"1.s":{}},"jobs":[{"id":"x","ncpus":"many"}]}"#).unwrap();
        assert_eq!(jobs.id(0), "1.s");
        // A key given twice: its last value.
        let jobs = parse(r#"{"jobs":[{"id":"a"}],"v":1,"jobs":[{"id":"b"},{"id":"c"}]}"#).unwrap();
        assert_eq!(jobs.ids().iter().collect::<Vec<_>>(), ["b", "c"]);
        let e = parse(r#"{"jobs":[{"id":"a"}],"jobs":5}"#)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("jobs: $: expected a JSON array of jobs, an object"),
            "{e}"
        );
        let e = parse(r#"{"Jobs":[{"ncpus":"many"}]}"#)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "jobs: $.Jobs: expected an object of jobs keyed by job id"
        );
        // A syntax error after a job's error is the error; a number out of range is one, even
        // in a key no job reads.
        let e = parse("[{\"ncpus\":\"many\"},\n{\"id\":}]")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("jobs:2:7: invalid JSON"), "{e}");
        let e = parse("{\"v\":[1e999],\"jobs\":[]}")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("jobs:1:"), "{e}");
        let e = parse_jobs("7", "jobs", JobFormat::Json, &Catalog::pbs())
            .unwrap_err()
            .to_string();
        assert_eq!(e, "jobs: $: expected a JSON array of jobs");
        // qstat never gives an id twice; read whole, the two would have been one job.
        let e = parse(r#"{"Jobs":{"1.s":{},"2.s":{},"1.s":{}}}"#)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "jobs: $.Jobs[\"1.s\"]: this job id is given twice");
    }

    #[test]
    fn a_file_that_is_not_utf8_says_so_first() {
        for text in [
            &b"id,ncpus\na,lots\nb,\xff\n"[..],
            b"[{\"ncpus\":\"many\"},{\"id\":\"\xe2\x82\"}]",
            b"{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"\xc3\"}\n",
        ] {
            let at = text.iter().position(|&b| b >= 0x80).unwrap();
            let e = read_jobs(text, "f", JobFormat::Auto, &Catalog::pbs(), None)
                .unwrap_err()
                .to_string();
            assert_eq!(e, format!("f: not UTF-8 text (byte {at})"));
        }
    }
}
