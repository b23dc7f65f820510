//! CSV job files: a header row of field names (`Resource_List.ncpus` for a resource), one
//! job per record.

use super::error::{JobFileError, invalid};
use super::object::{Line, Place, Sink, job_from_json};
use serde_json::{Map, Value};
use std::io::Read;

pub(super) fn read_csv(input: impl Read, sink: &mut Sink<'_>) -> Result<(), JobFileError> {
    let name = sink.name;
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .flexible(false)
        .from_reader(input);
    let headers = reader
        .headers()
        .map_err(|e| invalid(format!("{name}:1"), format!("invalid CSV header: {e}")))?
        .clone();
    let mut record = csv::StringRecord::new();
    for index in 0u64.. {
        let more = reader.read_record(&mut record).map_err(|e| {
            let line = e.position().map(|p| p.line()).unwrap_or(0);
            invalid(format!("{name}:{line}"), format!("invalid CSV record: {e}"))
        })?;
        if !more {
            break;
        }
        let line = record.position().map(|p| p.line()).unwrap_or(index + 2);
        let mut map = Map::new();
        for (header, field) in headers.iter().zip(record.iter()) {
            if !field.is_empty() {
                map.insert(header.to_string(), Value::String(field.to_string()));
            }
        }
        let place = Place {
            file: name,
            path: "",
            line: Some(Line::Csv(line)),
            qstat: false,
        };
        job_from_json(
            Value::Object(map),
            None,
            &place,
            sink.catalog,
            &mut sink.unknown,
            &mut sink.out,
        )?;
    }
    Ok(())
}
