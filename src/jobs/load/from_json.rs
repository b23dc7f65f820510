//! JSON job files: an array of jobs, `{"jobs": [...]}`, `qstat -f -F json` (jobs under
//! `"Jobs"`, keyed by id), and JSON lines.
//!
//! A document is parsed as it is read: each job object is taken whole (a small map) and
//! turned into columns, the array or object around it never is. The rules are those of the
//! document read whole: a syntax error anywhere wins over what a job says; of `Jobs` and
//! `jobs` (a key given twice: its last value), `Jobs` is read; other keys are ignored.

use super::error::{JobFileError, invalid, json_syntax};
use super::object::{Line, Place, Sink, job_from_json};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;
use std::io::BufRead;

/// The document's top level, as far as it has been read.
#[derive(Default)]
struct Document {
    /// The last `Jobs` value was an object (qstat); `None`: no `Jobs`.
    qstat: Option<bool>,
    /// The last `jobs` value was an array; `None`: no `jobs`.
    jobs: Option<bool>,
    /// The top level is an array (`Some(true)`), an object (`Some(false)`), or neither.
    array: Option<bool>,
    /// The first error a job gave, reported when the document has no syntax error.
    failed: Option<JobFileError>,
}

pub(super) fn read_json_document(
    input: impl BufRead,
    sink: &mut Sink<'_>,
) -> Result<(), JobFileError> {
    let mut de = serde_json::Deserializer::from_reader(input);
    let mut doc = Document::default();
    let parsed = Top {
        sink: &mut *sink,
        doc: &mut doc,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    if let Err(e) = parsed {
        return Err(json_syntax(sink.name, &e));
    }
    if let Some(e) = doc.failed {
        return Err(e);
    }
    let name = sink.name;
    match (doc.array, doc.qstat, doc.jobs) {
        (Some(true), ..) | (Some(false), Some(true), _) | (Some(false), None, Some(true)) => Ok(()),
        (Some(false), Some(false), _) => Err(invalid(
            format!("{name}: $.Jobs"),
            "expected an object of jobs keyed by job id",
        )),
        (Some(false), None, _) => Err(invalid(
            format!("{name}: $"),
            "expected a JSON array of jobs, an object with \"jobs\" (array) or \"Jobs\" (qstat -f -F json), or JSON lines",
        )),
        (None, ..) => Err(invalid(
            format!("{name}: $"),
            "expected a JSON array of jobs",
        )),
    }
}

/// Add one job object (or record its error, once, and go on reading for syntax errors).
fn add_job(sink: &mut Sink<'_>, doc: &mut Document, item: Value, id: Option<String>, path: &str) {
    if doc.failed.is_some() {
        return;
    }
    // Jobs keyed by id are qstat's: their states are read.
    let place = Place {
        file: sink.name,
        path,
        line: None,
        qstat: id.is_some(),
    };
    if let Err(e) = job_from_json(
        item,
        id,
        &place,
        sink.catalog,
        &mut sink.unknown,
        &mut sink.out,
    ) {
        doc.failed = Some(e);
    }
}

/// Start over: a later `Jobs` (or `jobs`) replaces what an earlier one gave.
fn restart(sink: &mut Sink<'_>, doc: &mut Document) {
    sink.out.clear();
    sink.unknown.fields.clear();
    doc.failed = None;
}

/// A visitor's answer to every scalar (a boolean, number, string or null): `value`, the
/// scalar read for its syntax and not kept.
macro_rules! scalars {
    ($value:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

/// The top level: an array of jobs, or an object holding them.
struct Top<'s, 'a> {
    sink: &'s mut Sink<'a>,
    doc: &'s mut Document,
}

impl<'de> DeserializeSeed<'de> for Top<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Top<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON document")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.doc.array = Some(true);
        JobArray {
            sink: self.sink,
            doc: self.doc,
            path: "$",
        }
        .visit_seq(seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.doc.array = Some(false);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "Jobs" => {
                    restart(self.sink, self.doc);
                    let shape = map.next_value_seed(Either {
                        sink: &mut *self.sink,
                        doc: &mut *self.doc,
                        want: Shape::Object,
                    })?;
                    self.doc.qstat = Some(shape == Shape::Object);
                }
                "jobs" if self.doc.qstat.is_none() => {
                    restart(self.sink, self.doc);
                    let shape = map.next_value_seed(Either {
                        sink: &mut *self.sink,
                        doc: &mut *self.doc,
                        want: Shape::Array,
                    })?;
                    self.doc.jobs = Some(shape == Shape::Array);
                }
                _ => map.next_value_seed(Drain)?,
            }
        }
        Ok(())
    }
    scalars!(());
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Array,
    Object,
    Other,
}

/// The value of `jobs` (`want`: an array of jobs) or `Jobs` (an object of jobs keyed by id,
/// qstat); any other shape is only read for its syntax.
struct Either<'s, 'a> {
    sink: &'s mut Sink<'a>,
    doc: &'s mut Document,
    want: Shape,
}

impl<'de> DeserializeSeed<'de> for Either<'_, '_> {
    type Value = Shape;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Shape, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Either<'_, '_> {
    type Value = Shape;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("jobs")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Shape, A::Error> {
        if self.want != Shape::Array {
            Drain.visit_seq(seq)?;
        } else {
            JobArray {
                sink: self.sink,
                doc: self.doc,
                path: "$.jobs",
            }
            .visit_seq(seq)?;
        }
        Ok(Shape::Array)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        if self.want != Shape::Object {
            Drain.visit_map(map)?;
            return Ok(Shape::Object);
        }
        // qstat -f -F json: jobs keyed by id.
        while let Some(id) = map.next_key::<String>()? {
            let value: Value = map.next_value()?;
            let path = format!("$.Jobs[{}]", Value::String(id.clone()));
            add_job(self.sink, self.doc, value, Some(id), &path);
        }
        // qstat never repeats one; the object read whole would have made the two one job.
        if self.doc.failed.is_none()
            && let Some(id) = self.sink.out.repeated_id()
        {
            let path = format!("$.Jobs[{}]", Value::String(id));
            self.doc.failed = Some(invalid(
                format!("{}: {path}", self.sink.name),
                "this job id is given twice",
            ));
        }
        Ok(Shape::Object)
    }
    scalars!(Shape::Other);
}

/// The elements of an array of jobs, each taken whole and added.
struct JobArray<'s, 'a> {
    sink: &'s mut Sink<'a>,
    doc: &'s mut Document,
    path: &'static str,
}

impl JobArray<'_, '_> {
    fn visit_seq<'de, A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        while let Some(item) = seq.next_element::<Value>()? {
            add_job(
                self.sink,
                self.doc,
                item,
                None,
                &format!("{}[{i}]", self.path),
            );
            i += 1;
        }
        Ok(())
    }
}

/// A value read for its syntax only: numbers are parsed (one out of range is an error, as
/// in the document read whole), nothing is kept.
struct Drain;

impl<'de> DeserializeSeed<'de> for Drain {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Drain {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Drain)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value_seed(Drain)?;
        }
        Ok(())
    }
    scalars!(());
}

pub(super) fn read_json_lines(
    mut input: impl BufRead,
    sink: &mut Sink<'_>,
) -> Result<(), JobFileError> {
    let name = sink.name;
    let mut buf = Vec::new();
    let mut lineno = 0;
    loop {
        buf.clear();
        let n = input
            .read_until(b'\n', &mut buf)
            .map_err(|source| JobFileError::Io {
                path: name.to_string(),
                source,
            })?;
        if n == 0 {
            return Ok(());
        }
        lineno += 1;
        // As `str::lines`: without the line end.
        let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        // The bytes were checked to be UTF-8 on the way in.
        let line = std::str::from_utf8(line).unwrap_or_default();
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line).map_err(|e| {
            invalid(
                format!("{name}:{lineno}:{}", e.column()),
                format!("invalid JSON: {e}"),
            )
        })?;
        let place = Place {
            file: name,
            path: "$",
            line: Some(Line::Json(lineno)),
            qstat: false,
        };
        job_from_json(
            value,
            None,
            &place,
            sink.catalog,
            &mut sink.unknown,
            &mut sink.out,
        )?;
    }
}
