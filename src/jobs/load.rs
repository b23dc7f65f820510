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

use super::Job;
use super::units::{parse_ctime, parse_plain_number, parse_size, parse_time};
use crate::catalog::{Catalog, Keyword, ResourceType};
use crate::formula::sema::suggest;
use serde_json::{Map, Value};
use std::path::Path;

/// A job file that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum JobFileError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// `location` is `file:line`, `file:line:column` or `file: $.Jobs["1.srv"].walltime`.
    #[error("{location}: {message}")]
    Invalid { location: String, message: String },
}

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

/// A field no formula can read (usually a misspelling): where it first appears, in how many
/// jobs, and the closest known name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    /// The field as written, with its `Resource_List.` / `resources.` prefix if any.
    pub field: String,
    /// `file: $[0].ncpu`, `file:3` or `file:2: column `walltme``.
    pub location: String,
    /// Jobs that have it.
    pub jobs: usize,
    /// The closest keyword, resource or identity field, when one is close.
    pub suggestion: Option<String>,
}

impl std::fmt::Display for UnknownField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: `{}` is no PBS keyword, resource or job attribute and is not read",
            self.location, self.field
        )?;
        if self.jobs > 1 {
            write!(f, " ({} jobs have it)", self.jobs)?;
        }
        match &self.suggestion {
            Some(s) => write!(f, "; did you mean `{s}`?"),
            None => write!(f, " (declare a custom resource with --resource NAME:TYPE)"),
        }
    }
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

/// PBS job attributes (`qstat -f`, `src/include/pbs_ifl.h`) that are not formula values:
/// read as nothing, without a warning.
const PBS_JOB_ATTRIBUTES: &str = "\
    Account_Name accounting_id accrue_type alt_id argument_list array array_id array_index \
    array_indices_remaining array_indices_submitted array_state_count block Checkpoint \
    comment create_resv_from_job credential_id credential_validity ctime depend egroup \
    eligible_time Error_Path estimated etime euser exec_host exec_vnode Executable \
    executable Execution_Time Exit_status forward_x11_cookie forward_x11_port group_list \
    hashname Hold_Types history_timestamp interactive jobdir Job_Name Job_Owner \
    job_kill_delay job_state Join_Path Keep_Files Mail_Points Mail_Users max_run_subjobs \
    mtime obittime Output_Path Priority project pset qtime queue queue_rank queue_type \
    release_nodes_on_stageout Remove_Files Rerunable resources_used run_count run_version \
    sandbox schedselect security_context server server_instance_id session_id \
    Shell_Path_List Stagein Stageout stime Submit_arguments Submit_Host substate \
    tolerate_node_failures topjob topjob_ineligible umask User_List Variable_List";

/// The identity fields a job file may carry (besides keywords and resources).
const IDENTITY_FIELDS: &[&str] = &["id", "user", "group", "account", "queue", "submit"];

/// The unknown fields of a file, one entry per name.
#[derive(Default)]
struct Unknown {
    fields: Vec<UnknownField>,
}

impl Unknown {
    /// Count `field` (as written) of one job; `location` is computed on first sight.
    fn record(
        &mut self,
        field: &str,
        bare: &str,
        location: impl FnOnce() -> String,
        catalog: &Catalog,
    ) {
        if let Some(f) = self.fields.iter_mut().find(|f| f.field == field) {
            f.jobs += 1;
            return;
        }
        let known = catalog.names().chain(IDENTITY_FIELDS.iter().copied());
        self.fields.push(UnknownField {
            field: field.to_string(),
            location: location(),
            jobs: 1,
            suggestion: suggest(bare, known).map(str::to_string),
        });
    }
}

fn json_syntax(name: &str, e: &serde_json::Error) -> JobFileError {
    JobFileError::Invalid {
        location: format!("{name}:{}:{}", e.line(), e.column()),
        message: format!("invalid JSON: {e}"),
    }
}

fn invalid(location: String, message: impl Into<String>) -> JobFileError {
    JobFileError::Invalid {
        location,
        message: message.into(),
    }
}

fn from_json_document(
    value: Value,
    name: &str,
    catalog: &Catalog,
    unknown: &mut Unknown,
) -> Result<Vec<Job>, JobFileError> {
    let mut job = |item: Value, id: Option<String>, path: &str, i: usize| {
        let place = Place {
            file: name,
            path,
            csv_line: None,
        };
        job_from_json(item, id, &place, i, catalog, unknown)
    };
    match value {
        Value::Array(items) => items
            .into_iter()
            .enumerate()
            .map(|(i, item)| job(item, None, &format!("$[{i}]"), i))
            .collect(),
        Value::Object(mut map) => {
            if let Some(jobs) = map.remove("Jobs") {
                // qstat -f -F json
                let Value::Object(jobs) = jobs else {
                    return Err(invalid(
                        format!("{name}: $.Jobs"),
                        "expected an object of jobs keyed by job id",
                    ));
                };
                jobs.into_iter()
                    .enumerate()
                    .map(|(i, (id, value))| {
                        let path = format!("$.Jobs[{}]", Value::String(id.clone()));
                        job(value, Some(id), &path, i)
                    })
                    .collect()
            } else if let Some(Value::Array(items)) = map.remove("jobs") {
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, item)| job(item, None, &format!("$.jobs[{i}]"), i))
                    .collect()
            } else {
                Err(invalid(
                    format!("{name}: $"),
                    "expected a JSON array of jobs, an object with \"jobs\" (array) or \"Jobs\" (qstat -f -F json), or JSON lines",
                ))
            }
        }
        _ => Err(invalid(
            format!("{name}: $"),
            "expected a JSON array of jobs",
        )),
    }
}

fn parse_json_lines(
    text: &str,
    name: &str,
    catalog: &Catalog,
    unknown: &mut Unknown,
) -> Result<Vec<Job>, JobFileError> {
    let mut jobs = vec![];
    for (lineno, line) in text.lines().enumerate() {
        let lineno = lineno + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line).map_err(|e| {
            invalid(
                format!("{name}:{lineno}:{}", e.column()),
                format!("invalid JSON: {e}"),
            )
        })?;
        let index = jobs.len();
        let file_line = format!("{name}:{lineno}");
        let place = Place {
            file: &file_line,
            path: "$",
            csv_line: None,
        };
        let job =
            job_from_json(value, None, &place, index, catalog, unknown).map_err(|e| match e {
                JobFileError::Invalid { message, location } => {
                    // Replace the document-level location by the line.
                    let path = location
                        .split_once(": ")
                        .map(|(_, p)| p.to_string())
                        .unwrap_or_default();
                    invalid(format!("{name}:{lineno}"), format!("{path}: {message}"))
                }
                other => other,
            })?;
        jobs.push(job);
    }
    Ok(jobs)
}

fn parse_csv(
    text: &str,
    name: &str,
    catalog: &Catalog,
    unknown: &mut Unknown,
) -> Result<Vec<Job>, JobFileError> {
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .flexible(false)
        .from_reader(text.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| invalid(format!("{name}:1"), format!("invalid CSV header: {e}")))?
        .clone();
    let mut jobs = vec![];
    for (index, record) in reader.records().enumerate() {
        let record = record.map_err(|e| {
            let line = e.position().map(|p| p.line()).unwrap_or(0);
            invalid(format!("{name}:{line}"), format!("invalid CSV record: {e}"))
        })?;
        let line = record
            .position()
            .map(|p| p.line())
            .unwrap_or(index as u64 + 2);
        let mut map = Map::new();
        for (header, field) in headers.iter().zip(record.iter()) {
            if !field.is_empty() {
                map.insert(header.to_string(), Value::String(field.to_string()));
            }
        }
        let place = Place {
            file: name,
            path: "",
            csv_line: Some(line),
        };
        let job = job_from_json(Value::Object(map), None, &place, index, catalog, unknown)
            .map_err(|e| match e {
                JobFileError::Invalid { message, location } => {
                    let column = location
                        .split_once(": ")
                        .map(|(_, p)| p.trim_start_matches('.').to_string())
                        .unwrap_or_default();
                    invalid(
                        format!("{name}:{line}"),
                        format!("column `{column}`: {message}"),
                    )
                }
                other => other,
            })?;
        jobs.push(job);
    }
    Ok(jobs)
}

/// How a named value is read.
enum ValueKind {
    Time,
    Size,
    Number,
    /// A string or boolean resource: not a formula value.
    NotNumeric,
    /// Not a known name: read when numeric, otherwise not a formula value.
    Unknown,
}

fn value_kind(name: &str, catalog: &Catalog) -> ValueKind {
    if name == "eligible_time" {
        return ValueKind::Time;
    }
    if Keyword::from_name(name).is_some() {
        return ValueKind::Number;
    }
    match catalog.resource_type(name) {
        Some(ResourceType::Time) => ValueKind::Time,
        Some(ResourceType::Size) => ValueKind::Size,
        Some(ResourceType::Long | ResourceType::Float) => ValueKind::Number,
        Some(_) => ValueKind::NotNumeric,
        None => ValueKind::Unknown,
    }
}

/// Convert one value; `Ok(None)` means "not a formula value".
fn convert(name: &str, value: &Value, catalog: &Catalog) -> Result<Option<f64>, String> {
    let kind = value_kind(name, catalog);
    if matches!(kind, ValueKind::NotNumeric) {
        return Ok(None);
    }
    match value {
        Value::Null => Ok(None),
        Value::Number(n) => match n.as_f64() {
            Some(v) if v.is_finite() => Ok(Some(v)),
            _ => Err(format!("`{n}` is not a finite number")),
        },
        Value::String(s) => {
            if let Some(v) = parse_plain_number(s) {
                return Ok(Some(v));
            }
            match kind {
                ValueKind::Time => parse_time(s).map(Some),
                ValueKind::Size => parse_size(s).map(Some),
                ValueKind::Number => Err(format!("`{s}` is not a number")),
                ValueKind::Unknown | ValueKind::NotNumeric => Ok(None),
            }
        }
        Value::Bool(_) | Value::Array(_) | Value::Object(_) => match kind {
            ValueKind::Unknown | ValueKind::NotNumeric => Ok(None),
            _ => Err(format!("expected a number, found {}", json_type(value))),
        },
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Where a job object is: its file (or `file:line` for JSON lines), its JSON path, and for
/// CSV the record's line.
struct Place<'a> {
    file: &'a str,
    path: &'a str,
    csv_line: Option<u64>,
}

impl Place<'_> {
    /// Where field `key` of this job is, for an unknown-field report.
    fn of_field(&self, key: &str) -> String {
        match self.csv_line {
            Some(line) => format!("{}:{line}: column `{key}`", self.file),
            None => format!("{}: {}.{key}", self.file, self.path),
        }
    }
}

/// Build a job from a JSON object. `place` locates the object for errors.
fn job_from_json(
    value: Value,
    id: Option<String>,
    place: &Place<'_>,
    index: usize,
    catalog: &Catalog,
    unknown: &mut Unknown,
) -> Result<Job, JobFileError> {
    let (name, path) = (place.file, place.path);
    let Value::Object(map) = value else {
        return Err(invalid(
            format!("{name}: {path}"),
            format!("expected a job object, found {}", json_type(&value)),
        ));
    };
    let mut job = Job::new(id.unwrap_or_default());
    let mut owner = None;
    let mut qtime = None;
    for (key, value) in &map {
        let at = |k: &str| format!("{name}: {path}.{k}");
        // Strip CSV-style prefixes.
        let field = key
            .strip_prefix("Resource_List.")
            .or_else(|| key.strip_prefix("resources."))
            .unwrap_or(key);
        match field {
            "id" | "Job_Id" | "job_id" | "jobid" => {
                job.id = as_text(value)
                    .ok_or_else(|| invalid(at(key), "the job id must be a string or number"))?
            }
            "user" | "euser" => job.user = as_text(value),
            "Job_Owner" => owner = as_text(value),
            "group" | "egroup" => job.group = as_text(value),
            "account" | "Account_Name" => job.account = as_text(value),
            "queue" => job.queue = as_text(value),
            "submit" | "qrank" => {
                let v = convert("submit", value, catalog).map_err(|m| invalid(at(key), m))?;
                if v.is_none() && !value.is_null() {
                    return Err(invalid(at(key), "the submission order must be a number"));
                }
                job.submit = v;
            }
            "qtime" => qtime = Some(value.clone()),
            "Priority" => {
                if let Some(v) =
                    convert("job_priority", value, catalog).map_err(|m| invalid(at(key), m))?
                {
                    job.values.insert("job_priority".into(), v);
                }
            }
            "resources" | "Resource_List" => {
                let Value::Object(res) = value else {
                    return Err(invalid(
                        at(key),
                        format!(
                            "expected an object of resources, found {}",
                            json_type(value)
                        ),
                    ));
                };
                for (rname, rvalue) in res {
                    if catalog.lookup(rname).is_none() {
                        let field = format!("{key}.{rname}");
                        unknown.record(&field, rname, || place.of_field(&field), catalog);
                    }
                    let v = convert(rname, rvalue, catalog)
                        .map_err(|m| invalid(format!("{name}: {path}.{key}.{rname}"), m))?;
                    if let Some(v) = v {
                        job.values.insert(rname.clone(), v);
                    }
                }
            }
            _ => {
                if catalog.lookup(field).is_none()
                    && !PBS_JOB_ATTRIBUTES.split_whitespace().any(|a| a == field)
                {
                    unknown.record(key, field, || place.of_field(key), catalog);
                }
                if let Some(v) = convert(field, value, catalog).map_err(|m| invalid(at(key), m))? {
                    let column = Keyword::from_name(field).map_or(field, |k| k.name());
                    job.values.insert(column.to_string(), v);
                }
            }
        }
    }
    if job.user.is_none() {
        // Job_Owner is user@host.
        job.user = owner.map(|o| o.split('@').next().unwrap_or_default().to_string());
    }
    if job.submit.is_none()
        && let Some(q) = qtime
    {
        job.submit = match &q {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => parse_plain_number(s).or_else(|| parse_ctime(s)),
            _ => None,
        };
        if job.submit.is_none() {
            return Err(invalid(
                format!("{name}: {path}.qtime"),
                format!("`{q}` is not a time stamp"),
            ));
        }
    }
    if job.id.is_empty() {
        job.id = (index + 1).to_string();
    }
    Ok(job)
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
