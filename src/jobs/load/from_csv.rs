//! CSV job files: a header row of field names (`Resource_List.ncpus` for a resource), one
//! job per record.

use super::error::{JobFileError, invalid};
use super::object::{Place, job_from_json};
use super::unknown::Unknown;
use crate::catalog::Catalog;
use crate::jobs::Job;
use serde_json::{Map, Value};

pub(super) fn parse_csv(
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
