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
//! Files: `error` ([`JobFileError`] and its locations), `from_json` (JSON documents, `qstat -f
//! -F json` and JSON lines), `from_csv` (CSV with a header), `object` (one job object to a
//! [`Job`]: field names, units and PBS attribute aliases), `unknown` (fields no formula reads).

mod error;
mod from_csv;
mod from_json;
mod object;
mod unknown;

pub use error::JobFileError;
pub use unknown::UnknownField;

use super::Job;
use crate::catalog::Catalog;
use error::json_syntax;
use from_csv::parse_csv;
use from_json::{from_json_document, parse_json_lines};
use serde_json::Value;
use std::path::Path;
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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobFile {
    pub jobs: Vec<Job>,
    /// Fields that are no keyword, resource, identity field or PBS job attribute, in the
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
/// content.
pub fn load_jobs(
    path: &Path,
    format: JobFormat,
    catalog: &Catalog,
) -> Result<JobFile, JobFileError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| JobFileError::Io {
        path: name.clone(),
        source,
    })?;
    let format = match (format, format_of_name(path)) {
        (JobFormat::Auto, Some(JobFormat::Json)) => {
            return parse_any_json(strip_bom(&text), &name, catalog);
        }
        (JobFormat::Auto, Some(f)) => f,
        (f, _) => f,
    };
    parse_jobs(&text, &name, format, catalog)
}

/// Parse jobs from text; `name` is used in error locations. A leading byte order mark is
/// skipped.
pub fn parse_jobs(
    text: &str,
    name: &str,
    format: JobFormat,
    catalog: &Catalog,
) -> Result<JobFile, JobFileError> {
    let text = strip_bom(text);
    let mut unknown = Unknown::default();
    let jobs = match format {
        JobFormat::Csv => parse_csv(text, name, catalog, &mut unknown),
        JobFormat::JsonLines => parse_json_lines(text, name, catalog, &mut unknown),
        JobFormat::Json | JobFormat::Qstat => {
            let value: Value = serde_json::from_str(text).map_err(|e| json_syntax(name, &e))?;
            from_json_document(value, name, catalog, &mut unknown)
        }
        JobFormat::Auto => match text.trim_start().chars().next() {
            None => Ok(vec![]),
            Some('[' | '{') => return parse_any_json(text, name, catalog),
            Some(_) => parse_csv(text, name, catalog, &mut unknown),
        },
    }?;
    Ok(JobFile {
        jobs,
        unknown: unknown.fields,
    })
}

/// A JSON document (array, `{"jobs"}`, qstat) or JSON lines; anything else is an error at
/// the first place it is not JSON.
fn parse_any_json(text: &str, name: &str, catalog: &Catalog) -> Result<JobFile, JobFileError> {
    let mut unknown = Unknown::default();
    let jobs = match serde_json::from_str::<Value>(text) {
        Ok(value) => from_json_document(value, name, catalog, &mut unknown),
        // Several objects one after another: JSON lines.
        Err(e)
            if e.is_syntax()
                && e.line() > 1
                && text.trim_start().starts_with('{')
                && text
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .is_some_and(|l| serde_json::from_str::<Value>(l).is_ok()) =>
        {
            parse_json_lines(text, name, catalog, &mut unknown)
        }
        Err(e) if e.is_eof() && text.trim().is_empty() => Ok(vec![]),
        Err(e) => Err(json_syntax(name, &e)),
    }?;
    Ok(JobFile {
        jobs,
        unknown: unknown.fields,
    })
}

fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<Job>, JobFileError> {
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
        assert_eq!(jobs[0].values["ncpus"], 4.0);
        assert_eq!(jobs[0].values["walltime"], 3600.0);
        assert_eq!(jobs[0].values["mem"], 4194304.0);
        assert_eq!(jobs[0].user.as_deref(), Some("bob"));
        assert_eq!(jobs[1].values["eligible_time"], 600.0);
    }

    #[test]
    fn json_lines_and_csv() {
        let jobs = parse("{\"id\":\"a\",\"ncpus\":1}\n{\"id\":\"b\",\"ncpus\":2}\n").unwrap();
        assert_eq!(
            jobs.iter().map(|j| j.values["ncpus"]).collect::<Vec<_>>(),
            vec![1.0, 2.0]
        );
        let jobs =
            parse("id,user,ncpus,Resource_List.walltime\nj1,ann,8,00:30:00\nj2,bob,,\n").unwrap();
        assert_eq!(jobs[0].values["walltime"], 1800.0);
        assert!(!jobs[1].values.contains_key("ncpus"));
    }

    #[test]
    fn qstat_json() {
        let text = r#"{"pbs_version":"23.06","Jobs":{
            "12.srv":{"Job_Owner":"ann@host","egroup":"g1","queue":"workq","qtime":"Mon Nov 30 01:00:00 2026",
                      "Priority":10,"eligible_time":"00:05:00","Resource_List":{"ncpus":2,"mem":"512mb","walltime":"02:00:00","select":"1:ncpus=2"}},
            "13.srv":{"euser":"bob","Resource_List":{"ncpus":1}}}}"#;
        let jobs = parse(text).unwrap();
        assert_eq!(jobs[0].id, "12.srv");
        assert_eq!(jobs[0].user.as_deref(), Some("ann"));
        assert_eq!(jobs[0].values["job_priority"], 10.0);
        assert_eq!(jobs[0].values["eligible_time"], 300.0);
        assert_eq!(jobs[0].values["mem"], 524288.0);
        assert!(!jobs[0].values.contains_key("select"));
        assert!(jobs[0].submit.is_some());
        assert_eq!(jobs[1].id, "13.srv");
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
        assert_eq!(jobs[0].values["ncpus"], 1.0);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("jobs.json");
        std::fs::write(&path, "\u{feff}[{\"id\":\"a\"}]").unwrap();
        assert_eq!(
            load_jobs(&path, JobFormat::Auto, &Catalog::pbs())
                .unwrap()
                .jobs
                .len(),
            1
        );
        std::fs::write(&path, "{\"id\":\"a\"}\n{\"id\":\"b\"}\n").unwrap();
        assert_eq!(
            load_jobs(&path, JobFormat::Auto, &Catalog::pbs())
                .unwrap()
                .jobs
                .len(),
            2,
            "JSON lines in a .json file"
        );
        std::fs::write(&path, "\n\nid,ncpus\na,1\n").unwrap();
        let e = load_jobs(&path, JobFormat::Auto, &Catalog::pbs())
            .unwrap_err()
            .to_string();
        let at = format!("{}:3:1: invalid JSON", path.display());
        assert!(e.starts_with(&at), "{e}");
    }
}
