//! One job object (a JSON object, or a CSV record as one) into a [`JobSetBuilder`]: identity
//! fields and their PBS aliases, values in formula units, resources flat or nested.

use super::error::{JobFileError, invalid};
use super::state::StateFields;
use super::unknown::Unknown;
use crate::catalog::{Catalog, Keyword, ResourceType};
use crate::input::fields::{self, is_pbs_job_attribute};
use crate::input::units::{parse_ctime, parse_plain_number, parse_size, parse_time};
use crate::jobs::JobSetBuilder;
use serde_json::Value;

/// Where the jobs of a file go (`name` is the file, for locations), and the fields no
/// formula reads.
pub(super) struct Sink<'a> {
    pub(super) name: &'a str,
    pub(super) catalog: &'a Catalog,
    pub(super) unknown: Unknown,
    pub(super) out: JobSetBuilder,
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
    let v = match value {
        Value::Null => None,
        Value::Number(n) => match n.as_f64() {
            Some(v) if v.is_finite() => Some(v),
            _ => return Err(format!("`{n}` is not a finite number")),
        },
        Value::String(s) => match parse_plain_number(s) {
            Some(v) => Some(v),
            None => match kind {
                ValueKind::Time => Some(parse_time(s)?),
                ValueKind::Size => Some(parse_size(s)?),
                ValueKind::Number => return Err(format!("`{s}` is not a number")),
                ValueKind::Unknown | ValueKind::NotNumeric => None,
            },
        },
        Value::Bool(_) | Value::Array(_) | Value::Object(_) => match kind {
            ValueKind::Unknown | ValueKind::NotNumeric => None,
            _ => return Err(format!("expected a number, found {}", json_type(value))),
        },
    };
    // In the field's domain, so what `check` proves of a formula holds for the job.
    v.map(|v| fields::check_value(name, v, catalog)).transpose()
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
/// CSV the record's line; and whether it is a `qstat -f -F json` job, whose state is read.
pub(super) struct Place<'a> {
    pub(super) file: &'a str,
    /// The JSON path of the job object (`$` for a line of JSON Lines; unused for CSV).
    pub(super) path: &'a str,
    /// The line holding the job, in a file of one job per line.
    pub(super) line: Option<Line>,
    pub(super) qstat: bool,
}

/// A job's line in a file of one job per line.
#[derive(Clone, Copy)]
pub(super) enum Line {
    /// A CSV row: its fields are columns.
    Csv(u64),
    /// A JSON Lines line: its fields are JSON paths from `$`.
    Json(u64),
}

impl Place<'_> {
    /// Where field `key` of this job is, for an unknown-field report.
    fn of_field(&self, key: &str) -> String {
        match self.line {
            Some(Line::Csv(line)) => format!("{}:{line}: column `{key}`", self.file),
            Some(Line::Json(line)) => format!("{}:{line}: {}.{key}", self.file, self.path),
            None => format!("{}: {}.{key}", self.file, self.path),
        }
    }

    /// An error located `FILE: PATH` within the job, located by its line instead where the
    /// file has one (`FILE:LINE`, the column or path moved into the message).
    fn relocate(&self, e: JobFileError) -> JobFileError {
        let (Some(line), JobFileError::Invalid { message, location }) = (self.line, &e) else {
            return e;
        };
        let within = location
            .strip_prefix(self.file)
            .and_then(|l| l.strip_prefix(": "))
            .unwrap_or_default();
        let (line, message) = match line {
            Line::Csv(line) => (
                line,
                format!("column `{}`: {message}", within.trim_start_matches('.')),
            ),
            Line::Json(line) => (line, format!("{within}: {message}")),
        };
        invalid(format!("{}:{line}", self.file), message)
    }
}

/// Add the job of a JSON object to `out`. `place` locates the object for errors.
pub(super) fn job_from_json(
    value: Value,
    id: Option<String>,
    place: &Place<'_>,
    catalog: &Catalog,
    unknown: &mut Unknown,
    out: &mut JobSetBuilder,
) -> Result<(), JobFileError> {
    job_fields(value, id, place, catalog, unknown, out).map_err(|e| place.relocate(e))
}

fn job_fields(
    value: Value,
    id: Option<String>,
    place: &Place<'_>,
    catalog: &Catalog,
    unknown: &mut Unknown,
    out: &mut JobSetBuilder,
) -> Result<(), JobFileError> {
    let (name, path) = (place.file, place.path);
    let Value::Object(map) = value else {
        return Err(invalid(
            format!("{name}: {path}"),
            format!("expected a job object, found {}", json_type(&value)),
        ));
    };
    let index = out.len();
    out.begin();
    if let Some(id) = id {
        out.row.id = id;
    }
    let mut owner = None;
    let mut qtime = None;
    let mut state = StateFields::default();
    for (key, value) in &map {
        if place.qstat {
            state.read(key, value);
        }
        let at = |k: &str| format!("{name}: {path}.{k}");
        // Strip CSV-style prefixes.
        let field = key
            .strip_prefix("Resource_List.")
            .or_else(|| key.strip_prefix("resources."))
            .unwrap_or(key);
        match field {
            f if fields::ID.contains(&f) => {
                out.row.id = as_text(value)
                    .ok_or_else(|| invalid(at(key), "the job id must be a string or number"))?
            }
            f if fields::USER.contains(&f) => out.row.user = as_text(value),
            fields::OWNER => owner = as_text(value),
            f if fields::GROUP.contains(&f) => out.row.group = as_text(value),
            f if fields::ACCOUNT.contains(&f) => out.row.account = as_text(value),
            f if fields::QUEUE.contains(&f) => out.row.queue = as_text(value),
            f if fields::SUBMIT.contains(&f) || f == fields::QUEUE_RANK => {
                let v = convert("submit", value, catalog).map_err(|m| invalid(at(key), m))?;
                if v.is_none() && !value.is_null() {
                    return Err(invalid(at(key), "the submission order must be a number"));
                }
                out.row.submit = v;
            }
            fields::QTIME => qtime = Some(value.clone()),
            "Priority" => {
                if let Some(v) =
                    convert("job_priority", value, catalog).map_err(|m| invalid(at(key), m))?
                {
                    out.set("job_priority", v);
                }
            }
            f if fields::RESOURCE_LISTS.contains(&f) => {
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
                        out.set(rname, v);
                    }
                }
            }
            _ => {
                if catalog.lookup(field).is_none()
                    && !is_pbs_job_attribute(field)
                    && !fields::is_trace_field(field)
                {
                    unknown.record(key, field, || place.of_field(key), catalog);
                }
                if let Some(v) = convert(field, value, catalog).map_err(|m| invalid(at(key), m))? {
                    let column = Keyword::from_name(field).map_or(field, |k| k.name());
                    out.set(column, v);
                }
            }
        }
    }
    let row = &mut out.row;
    if row.user.is_none() {
        // Job_Owner is user@host.
        row.user = owner.map(|o| o.split('@').next().unwrap_or_default().to_string());
    }
    if row.submit.is_none()
        && let Some(q) = qtime
    {
        row.submit = match &q {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => parse_plain_number(s).or_else(|| parse_ctime(s)),
            _ => None,
        };
        if row.submit.is_none() {
            return Err(invalid(
                format!("{name}: {path}.qtime"),
                format!("`{q}` is not a time stamp"),
            ));
        }
    }
    if row.id.is_empty() {
        row.id = (index + 1).to_string();
    }
    if place.qstat {
        row.state = state
            .state(&row.id)
            .map_err(|m| invalid(format!("{name}: {path}.job_state"), m))?;
    }
    out.end();
    Ok(())
}
