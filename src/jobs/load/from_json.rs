//! JSON job files: an array of jobs, `{"jobs": [...]}`, `qstat -f -F json` (jobs under
//! `"Jobs"`, keyed by id), and JSON lines.

use super::error::{JobFileError, invalid};
use super::object::{Place, job_from_json};
use super::unknown::Unknown;
use crate::catalog::Catalog;
use crate::jobs::Job;
use serde_json::Value;

pub(super) fn from_json_document(
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

pub(super) fn parse_json_lines(
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
