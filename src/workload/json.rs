//! The JSON job-list reader: a document (`[...]` or `{"jobs": [...]}`) or JSON lines, in the
//! job schema of `eval`/`rank`, read as it is parsed with borrowed strings.

use super::job::*;
use super::pbs_accounting::select_request;
use crate::catalog::Keyword;
use crate::input::fields::{self, is_pbs_job_attribute};
use crate::input::units::{parse_ctime, parse_plain_number, parse_size, parse_time};
use serde_json::Value;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufReader, Read};
use std::sync::Arc;

/// The JSON job list's layout, when the caller knows it (a `.jsonl` name): JSON lines.
/// Otherwise the content decides ([`parse_json_jobs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonLayout {
    /// Decide from the text: `[` starts a document; `{` one whose object has a `"jobs"`
    /// array, else JSON lines.
    Auto,
    /// One job object per line.
    Lines,
}

/// Parse a JSON job list: an array of objects, an object with a `"jobs"` array, or JSON lines
/// (one object per line; a first object without `"jobs"` starts JSON lines). The fields are
/// those of `eval` and `rank`'s job files (README, "Job schema"):
///
/// | field | spellings |
/// |---|---|
/// | job id | `id`, `Job_Id`, `job_id`, `jobid` (default: the entry's position) |
/// | submit time (s) | `submit`, `qrank`, `qtime` |
/// | run time (s) | `run` |
/// | processors | `ncpus` (also `procs`) |
/// | nodes | `nodect` (also `nnodes`); cores per node `ncores`, else `ncpus / nodect` |
/// | requested time (s or `HH:MM:SS`) | `walltime` |
/// | requested memory (KB or `4gb`) | `mem` |
/// | entities | `user`/`euser`/`Job_Owner` (`user@host`), `group`/`egroup`, `account`/`Account_Name`, `qos`, `queue` |
/// | `queue_priority` keyword | `queue_priority` |
/// | recorded start (s) | `start` |
/// | chunks | `select` (`2:ncpus=4:mem=8gb:ngpus=1+1:ncpus=1`) and `place` (`scatter:excl`) |
///
/// The identity fields are [`crate::input::fields`]' table, the one `eval` and `rank` read.
/// The resources (`ncpus`, `nodect`, `walltime`, `mem` and custom numeric resources) may be
/// flat or under `resources` / `Resource_List`: a flat field that is none of the above, no
/// PBS keyword and no PBS job attribute is a custom resource when its value is a number (or
/// a string holding one), as in `eval`/`rank`. A job's `select` is its request as written
/// ([`select_request`]) when its chunks ask for more than cores (memory, GPUs, a custom
/// resource, exclusive nodes) or the job gives no `ncpus`; a `select` of cores alone keeps
/// the `ncpus`/`nodect` shapes, as the accounting reader does. Jobs with `run < 0` or no processors are
/// dropped and counted; a kept job out of the simulator's range ([`check_job`], [`Horizon`])
/// is an error naming its entry and field.
///
/// Each entry is read as it is parsed ([`read_json_jobs`]): no document tree is built.
pub fn parse_json_jobs(text: &str, file: &str) -> Result<Workload, WorkloadError> {
    parse_json_jobs_as(text, file, JsonLayout::Auto)
}

/// [`parse_json_jobs`] with the layout given.
pub fn parse_json_jobs_as(
    text: &str,
    file: &str,
    layout: JsonLayout,
) -> Result<Workload, WorkloadError> {
    read_json_jobs(
        &mut TraceText::new(text.as_bytes(), file, text.len())?,
        file,
        layout,
    )
}

/// A CSV job file with a header row, in the JSON job list's schema ([`parse_json_jobs`]): each
/// record is the object of the header's names (a `Resource_List.` or `resources.` prefix
/// dropped, as `eval`/`rank` read CSV), a value that is a JSON number a number, an empty
/// value absent, any other a string. Errors name the record's line.
pub fn parse_csv_jobs(text: &str, file: &str) -> Result<Workload, WorkloadError> {
    let csv_error = |e: csv::Error| {
        let line = e.position().map_or(1, |p| p.line() as usize);
        WorkloadError::Line {
            file: file.to_string(),
            line,
            reason: format!("CSV: {e}"),
        }
    };
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .from_reader(text.as_bytes());
    let names: Vec<String> = reader
        .headers()
        .map_err(csv_error)?
        .iter()
        .map(|h| {
            let h = h.trim();
            let bare = fields::RESOURCE_LISTS
                .iter()
                .find_map(|l| h.strip_prefix(l)?.strip_prefix('.'));
            bare.unwrap_or(h).to_string()
        })
        .collect();
    // JSON lines on the records' own line numbers (blank lines elsewhere, which JSON lines
    // skip), so the JSON reader's `file:line` errors point into the CSV file.
    let mut lines = String::new();
    let mut at = 1;
    for record in reader.records() {
        let record = record.map_err(csv_error)?;
        let line = record.position().map_or(at + 1, |p| p.line() as usize);
        while at < line {
            lines.push('\n');
            at += 1;
        }
        let mut object = serde_json::Map::new();
        for (name, value) in names.iter().zip(record.iter()) {
            let value = value.trim();
            if value.is_empty() {
                continue;
            }
            let v = match value.parse::<serde_json::Number>() {
                Ok(n) => Value::Number(n),
                Err(_) => Value::String(value.to_string()),
            };
            object.insert(name.clone(), v);
        }
        lines.push_str(&Value::Object(object).to_string());
    }
    parse_json_jobs_as(&lines, file, JsonLayout::Lines)
}

/// A JSON job list ([`parse_json_jobs`]'s rules) read as its text is decoded, a piece at a
/// time: JSON lines a piece of whole lines at a time, their strings borrowed from it; a
/// document through serde_json's reader over the pieces. Besides the jobs, only a piece is
/// held, and a copy of the first when the text starts with `{` (it may be JSON lines, which
/// then start over). The errors are those of the text read whole ([`TraceText::drain`]).
pub fn read_json_jobs<R: Read>(
    text: &mut TraceText<R>,
    file: &str,
    layout: JsonLayout,
) -> Result<Workload, WorkloadError> {
    let mut list = JsonList::new(file);
    let mut line = 0;
    let start = text.head()?.trim_start();
    let (document, object) = (start.starts_with(['[', '{']), start.starts_with('{'));
    if layout == JsonLayout::Auto && document {
        let failed = RefCell::new(None);
        let first = RefCell::new(object.then(String::new));
        let read = {
            let pieces = Pieces {
                text: &mut *text,
                at: 0,
                first: &first,
                first_line_read: false,
                failed: &failed,
            };
            let mut de = serde_json::Deserializer::from_reader(BufReader::new(pieces));
            let read = serde::de::DeserializeSeed::deserialize(Document(&mut list), &mut de);
            read.and_then(|()| if list.found { de.end() } else { Ok(()) })
        };
        if let Err(e) = read {
            if let Some(e) = failed.take() {
                return Err(e);
            }
            let error = list
                .failed
                .take()
                .unwrap_or_else(|| invalid_json(file, e.line(), &e));
            return Err(text.drain(error));
        }
        if !list.found {
            // An object without `"jobs"`: the first of JSON lines, which start over. The
            // object was the first line, all in the first piece (pieces are whole lines);
            // had it spanned lines, its first line is not JSON and reading stops there.
            let first = first.take().unwrap_or_default();
            if let Err(e) = list.lines(&first, &mut line) {
                return Err(text.drain(e));
            }
        }
    }
    if !list.found {
        while let Some(piece) = text.next_lines()? {
            if let Err(e) = list.lines(piece, &mut line) {
                return Err(text.drain(e));
            }
            text.fault_ahead(&list.w.jobs);
        }
    }
    list.w.finish();
    Ok(list.w)
}

/// A trace's text as `io::Read`, a piece at a time, for serde_json's reader: a copy of the
/// first piece kept when `first` holds a string, and the error that stopped the text in
/// `failed` (the reader sees only that it stopped).
struct Pieces<'a, R: Read> {
    text: &'a mut TraceText<R>,
    /// How much of the last piece was read.
    at: usize,
    first: &'a RefCell<Option<String>>,
    /// Whether `first` holds the first line whole (pieces are whole lines, unless a line is
    /// longer than a piece).
    first_line_read: bool,
    failed: &'a RefCell<Option<WorkloadError>>,
}

impl<R: Read> Read for Pieces<'_, R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.text.last_lines().len() {
            match self.text.next_text() {
                Ok(Some(piece)) => {
                    // The first line, and the rest of the piece that ends it.
                    if let Some(first) = self.first.borrow_mut().as_mut()
                        && !self.first_line_read
                    {
                        first.push_str(piece);
                        self.first_line_read = piece.contains('\n');
                    }
                    self.at = 0;
                }
                Ok(None) => {
                    // The text ended (no piece is held now): serde_json may ask again.
                    self.at = 0;
                    return Ok(0);
                }
                Err(e) => {
                    *self.failed.borrow_mut() = Some(e);
                    return Err(std::io::Error::other("the trace's text stopped"));
                }
            }
        }
        let piece = &self.text.last_lines().as_bytes()[self.at..];
        let n = piece.len().min(out.len());
        out[..n].copy_from_slice(&piece[..n]);
        self.at += n;
        Ok(n)
    }
}

fn invalid_json(file: &str, line: usize, e: &serde_json::Error) -> WorkloadError {
    WorkloadError::Line {
        file: file.to_string(),
        line,
        reason: format!("invalid JSON: {e}"),
    }
}

/// A JSON value of a job entry, its strings borrowed from the text when they have no escapes.
#[derive(Debug)]
enum Field<'a> {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    Str(Cow<'a, str>),
    Seq(Vec<Field<'a>>),
    /// An object's entries in order (a repeated key: the last one counts).
    Map(Vec<(Cow<'a, str>, Field<'a>)>),
}

impl Field<'_> {
    /// The value as JSON text, for messages.
    fn to_value(&self) -> Value {
        match self {
            Field::Null => Value::Null,
            Field::Bool(b) => Value::Bool(*b),
            Field::Number(n) => Value::Number(n.clone()),
            Field::Str(s) => Value::String(s.to_string()),
            Field::Seq(v) => Value::Array(v.iter().map(Field::to_value).collect()),
            Field::Map(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Field<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FieldVisitor)
    }
}

struct FieldVisitor;

impl<'de> serde::de::Visitor<'de> for FieldVisitor {
    type Value = Field<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Field<'de>, E> {
        Ok(Field::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Field<'de>, E> {
        Ok(Field::Bool(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Field<'de>, E> {
        Ok(Field::Number(v.into()))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Field<'de>, E> {
        Ok(Field::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Field<'de>, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Field::Null, Field::Number))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Owned(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Field<'de>, E> {
        Ok(Field::Str(Cow::Owned(v)))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Field<'de>, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = seq.next_element()? {
            v.push(x);
        }
        Ok(Field::Seq(v))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Field<'de>, A::Error> {
        let mut v = Vec::with_capacity(map.size_hint().unwrap_or(12));
        while let Some(k) = map.next_key::<Cow<'de, str>>()? {
            v.push((k, map.next_value()?));
        }
        Ok(Field::Map(v))
    }
}

/// The whole document: an array of jobs, or an object whose `"jobs"` array is read (its
/// other keys skipped). Each job goes to the list as it is parsed.
struct Document<'l, 'f>(&'l mut JsonList<'f>);

impl<'de> serde::de::DeserializeSeed<'de> for Document<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Document<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of jobs or an object with a \"jobs\" array")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.found = true;
        let mut entry = Entry::default();
        let mut i = 0;
        while seq.next_element_seed(&mut entry)?.is_some() {
            if let Err(e) = self.0.entry(&entry, || format!("jobs[{i}]")) {
                self.0.failed = Some(e);
                return Err(serde::de::Error::custom("stopped at a bad job"));
            }
            i += 1;
        }
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "jobs" && !self.0.found {
                map.next_value_seed(Jobs(&mut *self.0))?;
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// The `"jobs"` value of a document object: an array.
struct Jobs<'l, 'f>(&'l mut JsonList<'f>);

impl<'de> serde::de::DeserializeSeed<'de> for Jobs<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Jobs<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of jobs")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        Document(self.0).visit_seq(seq)
    }
}

/// The jobs read so far from a JSON job list.
struct JsonList<'f> {
    file: &'f str,
    w: Workload,
    seen: JobNumbers,
    horizon: Horizon,
    /// The users', groups' and queues' names, one text each.
    names: Names,
    /// The names of a job that gives none, looked up once (`unknown`, the empty name,
    /// `default`), not once a job (as in the SWF reader, where that was 14% of a whole
    /// `jobsort sim`).
    unknown: Name,
    empty: Name,
    default_queue: Name,
    /// Whether the document held a job array.
    found: bool,
    /// The error that stopped the parse inside a document.
    failed: Option<WorkloadError>,
}

/// The PBS resources that are chunk specifications, not values (`Resource_List.select`,
/// `Resource_List.place`): the job's request, not custom resources.
const NOT_VALUES: [Key; 2] = keys!["select", "place"];

impl<'f> JsonList<'f> {
    fn new(file: &'f str) -> Self {
        let mut names = Names::default();
        JsonList {
            file,
            w: Workload::default(),
            seen: Default::default(),
            horizon: Horizon::default(),
            unknown: names.get("unknown"),
            empty: names.get(""),
            default_queue: names.get("default"),
            names,
            found: false,
            failed: None,
        }
    }

    /// JSON lines: whole lines (the last may lack its line end), numbered on from `line`,
    /// the number of lines before them.
    fn lines(&mut self, text: &str, line: &mut usize) -> Result<(), WorkloadError> {
        let mut entry = Entry::default();
        for l in text.lines() {
            *line += 1;
            if l.trim().is_empty() {
                continue;
            }
            let n = *line;
            let mut de = serde_json::Deserializer::from_str(l);
            serde::de::DeserializeSeed::deserialize(&mut entry, &mut de)
                .and_then(|()| de.end())
                .map_err(|e| invalid_json(self.file, n, &e))?;
            self.entry(&entry, || format!("line {n}"))?;
        }
        Ok(())
    }

    /// One entry; `path` names it in errors (`jobs[3]`, `line 4`).
    fn entry(&mut self, e: &Entry, path: impl Fn() -> String) -> Result<(), WorkloadError> {
        let file = self.file;
        let err = |reason: String| WorkloadError::Json {
            file: file.to_string(),
            path: path(),
            reason,
        };
        let index = self.w.report.read;
        self.w.report.read += 1;
        if !e.object {
            return Err(err("expected an object".into()));
        }
        if let Some(k) = e.bad_resources {
            return Err(err(format!("`{k}` must be an object")));
        }
        let (fields, custom) = (&e.fields, &e.custom);
        // The last field given by one of `names` (a later spelling wins).
        let get = |names: &[Key]| -> Option<(&str, &Field)> {
            let at = names
                .iter()
                .map(|k| e.last[k.0 as usize])
                .max()?
                .checked_sub(1)?;
            let (k, v) = &fields[at as usize];
            Some((k.name(), v))
        };
        let num = |names: &[Key]| -> Result<Option<f64>, WorkloadError> {
            match get(names) {
                None | Some((_, Field::Null)) => Ok(None),
                Some((_, Field::Number(n))) => Ok(n.as_f64()),
                Some((k, other)) => Err(err(format!(
                    "`{k}` must be a number, got {}",
                    other.to_value()
                ))),
            }
        };
        // A number, or a PBS string (`01:30:00`, `4gb`) read by `parse`.
        let pbs = |names: &[Key],
                   parse: fn(&str) -> Result<f64, String>|
         -> Result<Option<f64>, WorkloadError> {
            match get(names) {
                Some((k, Field::Str(s))) => {
                    parse(s).map(Some).map_err(|m| err(format!("`{k}`: {m}")))
                }
                _ => num(names),
            }
        };
        // A text as written (borrowed), or a number's text.
        let text_field = |names: &[Key]| -> Result<Option<Cow<'_, str>>, WorkloadError> {
            match get(names) {
                None | Some((_, Field::Null)) => Ok(None),
                Some((_, Field::Str(s))) => Ok(Some(Cow::Borrowed(s.as_ref()))),
                Some((_, Field::Number(n))) => Ok(Some(Cow::Owned(n.to_string()))),
                Some((k, other)) => Err(err(format!(
                    "`{k}` must be a string, got {}",
                    other.to_value()
                ))),
            }
        };
        let id = text_field(&const { keys_of(fields::ID) })?
            .unwrap_or_else(|| Cow::Owned((index + 1).to_string()));
        if !self.seen.insert(&id) {
            return Err(err(format!("duplicate job id `{id}`")));
        }
        let submit = match num(&const { keys_of(fields::SUBMIT) })? {
            Some(s) => s,
            None => match get(&const { keys_of([fields::QTIME]) }) {
                Some((_, Field::Str(s))) => parse_plain_number(s)
                    .or_else(|| parse_ctime(s))
                    .ok_or_else(|| err(format!("`qtime`: `{s}` is not a time stamp")))?,
                _ => num(&const { keys_of([fields::QTIME]) })?
                    .ok_or_else(|| err("missing `submit`".into()))?,
            },
        };
        let run = num(&keys!["run"])?.ok_or_else(|| err("missing `run`".into()))?;
        let counted = |k: &str, v: f64| count(v).map_err(|e| err(format!("`{k}`: {}", e.reason)));
        let nodes = get(&keys!["nodect", "nnodes"]).map_or("nodect", |(k, _)| k);
        let cpus = get(&keys!["ncpus", "procs"]).map_or("ncpus", |(k, _)| k);
        // `select` (with `place`): chunks placed as written when they ask for more than
        // cores or the job gives no processors; else the shapes below, as the accounting
        // reader does.
        let select = match text_field(&keys!["select"])? {
            Some(text) => {
                let place = text_field(&keys!["place"])?;
                let s = select_request(&text, place.as_deref())
                    .map_err(|e| err(format!("`select`: {e}")))?;
                let no_procs = get(&keys!["ncpus", "procs"]).is_none();
                (s.asks_beyond_cores() || no_procs).then(|| Request::Select(Arc::new(s)))
            }
            None => None,
        };
        let request = match (
            num(&keys!["ncpus", "procs"])?,
            num(&keys!["nodect", "nnodes"])?,
            num(&keys!["ncores"])?,
        ) {
            _ if select.is_some() => select,
            (_, Some(n), Some(c)) if n >= 1.0 && c >= 1.0 => Some(Request::Nodes {
                nodes: counted(nodes, n)?,
                cores: counted("ncores", c)?,
            }),
            (Some(p), Some(n), None) if n >= 1.0 && p >= 1.0 => {
                let (p, n) = (counted(cpus, p)?, counted(nodes, n)?);
                if p % n != 0 {
                    return Err(err(format!(
                        "`{cpus}` {p} is not a whole number of cores on each of the `{nodes}` {n} nodes"
                    )));
                }
                Some(Request::Nodes {
                    nodes: n,
                    cores: p / n,
                })
            }
            (_, Some(n), None) if n >= 1.0 => Some(Request::Nodes {
                nodes: counted(nodes, n)?,
                cores: 1,
            }),
            (Some(p), _, _) if p >= 1.0 => Some(Request::Procs(counted(cpus, p)?)),
            _ => None,
        };
        let run = run.round() as i64;
        // A job that ran 0 seconds is kept (it started); one that ends before it started
        // is not a run.
        if run < 0 {
            self.w.report.drop_job(&id, "runtime < 0");
            return Ok(());
        }
        let Some(request) = request else {
            self.w.report.drop_job(&id, "no processors");
            return Ok(());
        };
        let (walltime, given) = match pbs(&keys!["walltime"], parse_time)? {
            Some(wt) if wt > 0.0 => (wt.round() as i64, true),
            // No requested time: the run time stands in (at least the 1 s a request is).
            _ => (run.max(1), false),
        };
        let mut resources = BTreeMap::new();
        for (k, v) in custom {
            match v {
                Field::Number(n) => {
                    resources.insert(k.to_string(), n.as_f64().unwrap_or(0.0));
                }
                _ => return Err(err(format!("resource `{k}` must be a number"))),
            }
        }
        let owner = text_field(&const { keys_of([fields::OWNER]) })?;
        let user = text_field(&const { keys_of(fields::USER) })?;
        // No user: the user part of `Job_Owner` (`ann@login1`), borrowed.
        let user = user
            .as_deref()
            .or_else(|| Some(owner.as_deref()?.split('@').next().unwrap_or_default()));
        let group = text_field(&const { keys_of(fields::GROUP) })?;
        let queue = text_field(&const { keys_of(fields::QUEUE) })?;
        let (account, qos) = (
            text_field(&const { keys_of(fields::ACCOUNT) })?,
            text_field(&const { keys_of(fields::QOS) })?,
        );
        let mut name = |s: Option<&str>, default: &Name| match s {
            Some(s) => self.names.get(s),
            None => default.clone(),
        };
        let (user, group, account, qos, queue) = (
            name(user, &self.unknown),
            name(group.as_deref(), &self.unknown),
            name(account.as_deref(), &self.empty),
            name(qos.as_deref(), &self.empty),
            name(queue.as_deref(), &self.default_queue),
        );
        let job = JobSpec {
            id: id.as_ref().into(),
            submit: submit.round() as i64,
            run,
            walltime,
            walltime_given: given,
            request: request.clone(),
            mem: pbs(&keys!["mem"], parse_size)?.unwrap_or(0.0),
            user,
            group,
            account,
            qos,
            queue,
            queue_priority: num(&keys!["queue_priority"])?.unwrap_or(0.0),
            resources,
            recorded_start: num(&keys!["start"])?.map(|s| s.round() as i64),
        };
        self.horizon.add(&job).map_err(|e| {
            let name = match e.field {
                JobField::Submit => "`submit`".to_string(),
                JobField::Run => "`run`".into(),
                JobField::Walltime => "`walltime`".into(),
                JobField::Start => "`start`".into(),
                JobField::Cores => match request {
                    Request::Nodes { .. } | Request::Select(_) => format!("`{nodes}` × `ncores`"),
                    Request::Procs(_) => format!("`{cpus}`"),
                },
            };
            err(format!("{name}: {}", e.reason))
        })?;
        self.w.push_kept(job);
        Ok(())
    }
}

/// The resources a [`SimJob`] holds in its own fields (the rest go to `resources`).
const RESOURCE_FIELDS: [Key; 7] = keys![
    "ncpus", "procs", "nodect", "nnodes", "ncores", "walltime", "mem",
];

/// The fields of one job entry that the simulator reads, as the parser meets them (the key
/// as written, the value; a later spelling of a field wins), and its custom resources. One
/// is reused for every entry of a list; other keys are skipped unparsed.
#[derive(Default)]
struct Entry<'a> {
    /// Whether the entry is an object.
    object: bool,
    fields: Vec<(Key, Field<'a>)>,
    /// Where each field was given last: its place in `fields` plus one (0: not given).
    last: [u32; FIELDS.len()],
    custom: Vec<(Cow<'a, str>, Field<'a>)>,
    /// `resources` or `Resource_List` when it was not an object.
    bad_resources: Option<&'static str>,
}

impl<'a> Entry<'a> {
    fn push(&mut self, k: Key, v: Field<'a>) {
        self.fields.push((k, v));
        // An entry holds fewer than 2^32 fields: it is in memory, at 32 bytes or more each.
        self.last[k.0 as usize] = self.fields.len() as u32;
    }
}

/// The fields a job entry may have, in one list: their names ([`FIELDS`], where a [`Key`] is
/// one by its place) and the look-up of a key's text ([`job_field`], comparisons with
/// constant names, which the compiler makes a few word compares each).
macro_rules! fields {
    ($($name:literal),+ $(,)?) => {
        const FIELDS: [&str; [$($name),+].len()] = [$($name),+];

        /// The field a job entry's key names, if it is one.
        fn job_field(key: &str) -> Option<Key> {
            let mut k = 0;
            $(
                if key == $name {
                    return Some(Key(k));
                }
                k += 1;
            )+
            let _ = k;
            None
        }
    };
}

fields![
    "id",
    "Job_Id",
    "job_id",
    "jobid",
    "submit",
    "qrank",
    "qtime",
    "run",
    "user",
    "euser",
    "Job_Owner",
    "group",
    "egroup",
    "account",
    "Account_Name",
    "qos",
    "queue",
    "queue_priority",
    "start",
    "ncpus",
    "procs",
    "nodect",
    "nnodes",
    "ncores",
    "walltime",
    "mem",
    "select",
    "place",
];

/// A field a job entry may have ([`FIELDS`]): an entry's fields are found by comparing
/// these, not their names' text (a look-up by name per field and entry was a seventh of
/// reading LANL-CM5 as JSON lines, in `memcmp`).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key(u8);

impl Key {
    /// The field named `name`; a name not in [`FIELDS`] does not compile (made in `const`
    /// blocks: [`keys!`]).
    const fn of(name: &str) -> Key {
        let mut k = 0;
        while k < FIELDS.len() {
            let f = FIELDS[k].as_bytes();
            let n = name.as_bytes();
            if f.len() == n.len() {
                let mut i = 0;
                while i < n.len() && f[i] == n[i] {
                    i += 1;
                }
                if i == n.len() {
                    return Key(k as u8);
                }
            }
            k += 1;
        }
        panic!("not a job entry's field")
    }

    fn name(self) -> &'static str {
        FIELDS[self.0 as usize]
    }
}

/// The [`Key`]s of the field table's spellings ([`crate::input::fields`]), made at compile
/// time (in `const` blocks: a spelling not in [`FIELDS`] does not compile).
const fn keys_of<const N: usize>(names: [&str; N]) -> [Key; N] {
    let mut out = [Key(0); N];
    let mut i = 0;
    while i < N {
        out[i] = Key::of(names[i]);
        i += 1;
    }
    out
}

/// The [`Key`]s of field names, made at compile time: `keys!["ncpus", "procs"]`.
macro_rules! keys {
    ($($name:literal),+ $(,)?) => {
        [$(const { Key::of($name) }),+]
    };
}
use keys;

/// A key of a job entry, told apart as it is parsed (no copy of its text is made but for a
/// flat key that may be a custom resource).
enum EntryKey<'de> {
    /// A field the simulator reads ([`job_field`]).
    Field(Key),
    /// `resources` or `Resource_List`.
    Resources(&'static str),
    /// A flat key that is no field, PBS keyword or PBS job attribute: a custom resource when
    /// its value is a number.
    Flat(Cow<'de, str>),
    /// Any other key: its value is skipped.
    Other,
}

struct EntryKeySeed;

impl<'de> serde::de::DeserializeSeed<'de> for EntryKeySeed {
    type Value = EntryKey<'de>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<EntryKey<'de>, D::Error> {
        d.deserialize_str(self)
    }
}

impl EntryKeySeed {
    /// The key, `flat` giving a custom resource's name its text (borrowed where it can be).
    fn key<'de>(key: &str, flat: impl FnOnce() -> Cow<'de, str>) -> EntryKey<'de> {
        match key {
            "resources" => EntryKey::Resources("resources"),
            "Resource_List" => EntryKey::Resources("Resource_List"),
            _ => match job_field(key) {
                Some(k) => EntryKey::Field(k),
                None if Keyword::from_name(key).is_some() || is_pbs_job_attribute(key) => {
                    EntryKey::Other
                }
                None => EntryKey::Flat(flat()),
            },
        }
    }
}

impl<'de> serde::de::Visitor<'de> for EntryKeySeed {
    type Value = EntryKey<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<EntryKey<'de>, E> {
        Ok(EntryKeySeed::key(key, || Cow::Borrowed(key)))
    }
    fn visit_str<E>(self, key: &str) -> Result<EntryKey<'de>, E> {
        Ok(EntryKeySeed::key(key, || Cow::Owned(key.to_string())))
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for &mut Entry<'de> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.object = false;
        self.fields.clear();
        self.last = [0; FIELDS.len()];
        self.custom.clear();
        self.bad_resources = None;
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for &mut Entry<'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a job object")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.object = true;
        while let Some(key) = map.next_key_seed(EntryKeySeed)? {
            if let EntryKey::Resources(list) = key {
                match map.next_value::<Field<'de>>()? {
                    Field::Map(rs) => {
                        for (rk, rv) in rs {
                            match job_field(&rk) {
                                Some(r)
                                    if NOT_VALUES.contains(&r) || RESOURCE_FIELDS.contains(&r) =>
                                {
                                    self.push(r, rv)
                                }
                                _ => self.custom.push((rk, rv)),
                            }
                        }
                    }
                    _ => self.bad_resources = Some(list),
                }
            } else if let EntryKey::Field(k) = key {
                self.push(k, map.next_value()?);
            } else if let EntryKey::Flat(name) = key {
                // A number, or a string holding one, is a custom resource; any other value is
                // no formula value (as `eval`/`rank` read it).
                match map.next_value::<Field<'de>>()? {
                    Field::Number(n) => self.custom.push((name, Field::Number(n))),
                    Field::Str(t) => {
                        if let Some(n) =
                            parse_plain_number(&t).and_then(serde_json::Number::from_f64)
                        {
                            self.custom.push((name, Field::Number(n)));
                        }
                    }
                    _ => {}
                }
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(())
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
}
