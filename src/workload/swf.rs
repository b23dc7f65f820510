//! Standard Workload Format (SWF 2.2) reader: plain or gzip, header metadata, replay
//! conventions of `data/traces/README.md`:
//!
//! - processors: field 5 when > 0, else field 8; none → dropped (`"no processors"`);
//! - run time (field 4) ≤ 0 or missing → dropped (`"runtime <= 0"`);
//! - requested time (field 9) missing → the run time; a job never runs past a given
//!   requested time (killed there);
//! - requested memory (field 10, KB per processor) × processors → `mem` (KB), 0 when missing;
//! - user N (field 12) → entity `u<N>`, group N (field 13) → `g<N>`, queue N (field 15) →
//!   `q<N>`; a non-numeric user field (AleaNG's `user_A`) is taken as the name;
//! - recorded start = submit + wait (field 3) when the wait is known.
//!
//! Times may be written as decimals; they are rounded to whole seconds. A kept job whose
//! times or size are out of the simulator's range ([`super::check_job`]: times up
//! to 2^53 s, at most `u32::MAX` processors; run times that add up past what `i64` seconds
//! hold, [`Horizon`]) is an error naming the line and the field.
//!
//! A bad line stops the read at `file:line: reason`; with [`ReadOptions::lenient`] it is
//! skipped and counted as a site's log counts one ([`super::reject`]): a data
//! line as a job read and dropped under `bad record: <kind>`, a header whose value is not a
//! number as a record skipped (`bad header`).

use super::{
    BadRecord, Horizon, JobField, JobSpec, MachineHint, Name, Names, ReadOptions, Request,
    TraceText, Workload, WorkloadError, count as count_of, reject,
};
use super::{JobNumbers, plain_digits};
use crate::input::text::{MAX_CONFIG, read_text_at_most};
use crate::input::units::digit_bytes;
use crate::model::Machine;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::path::Path;

/// Load an SWF file (gzip transparently). Also reads an AleaNG `<file>.machines` beside it
/// for the machine size when the header has none.
pub fn load_swf(path: &Path) -> Result<Workload, WorkloadError> {
    let mut text = TraceText::open(path)?;
    let mut w = read_swf(&mut text, &path.display().to_string())?;
    w.name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    w.sha256 = text.sha256();
    if w.machine.nodes.is_none()
        && let Some(m) = machines_beside(path)?
    {
        w.machine = m;
    }
    Ok(w)
}

/// The machine of an AleaNG `<path>.machines` file, when there is one.
pub fn machines_beside(path: &Path) -> Result<Option<MachineHint>, WorkloadError> {
    let mut m = path.as_os_str().to_owned();
    m.push(".machines");
    let m = Path::new(&m);
    if !m.exists() {
        return Ok(None);
    }
    // There is one: read up to a configuration file's bound, its errors said.
    let file = m.display().to_string();
    let text = read_text_at_most(m, MAX_CONFIG).map_err(|message| WorkloadError::Io {
        file: file.clone(),
        message,
    })?;
    parse_machines(&text, &file).map(Some)
}

/// The size of an AleaNG `.machines` file (read by the one reader of that format,
/// [`Machine::parse_aleang`]): its nodes, and their CPUs when every node type has the same
/// (a machine of several node types, or with memory and GPUs to place, is `--machine FILE`).
pub fn parse_machines(text: &str, file: &str) -> Result<MachineHint, WorkloadError> {
    let m = Machine::parse_aleang(text, file).map_err(|e| match e.line {
        Some(line) => WorkloadError::Line {
            file: e.file,
            line,
            reason: e.reason,
        },
        None => WorkloadError::Io {
            file: e.file,
            message: e.reason,
        },
    })?;
    let mut cores = m.types().iter().map(|t| t.amounts[0]);
    let first = cores.next();
    if cores.any(|c| Some(c) != first) {
        return Err(WorkloadError::Io {
            file: file.into(),
            message: "node types with different CPUs per node: give the file as --machine \
                      FILE (a .machines file beside a trace sets only nodes x cores)"
                .into(),
        });
    }
    Ok(MachineHint {
        nodes: Some(m.nodes()),
        cores: first.map(|c| u32::try_from(c).unwrap_or(u32::MAX)),
    })
}

/// Parse SWF text. `file` names the source in errors (`file:line: reason`).
///
/// One pass over the bytes: the fields of a line are byte ranges of the text (no allocation
/// per field), whole numbers are read digit by digit (anything else — decimals, exponents —
/// by `str::parse`, whose value they equal), and a user, group or queue is made into its name
/// once per distinct field text and copied from there. A line with a byte outside ASCII is
/// split as text (Unicode white space), as every line was before.
pub fn parse_swf(text: &str, file: &str) -> Result<Workload, WorkloadError> {
    parse_swf_with(text, file, ReadOptions::default())
}

/// [`parse_swf`], bad lines strict or counted (`options`).
pub fn parse_swf_with(
    text: &str,
    file: &str,
    options: ReadOptions,
) -> Result<Workload, WorkloadError> {
    let mut reader = SwfReader::new(file, text.len(), options);
    reader.lines(text)?;
    Ok(reader.finish())
}

/// [`parse_swf`] of a trace's text as it is decoded, a piece at a time: the text is never
/// held whole (a gzip trace that expands to 1 GiB takes what its jobs take).
pub fn read_swf<R: std::io::Read>(
    text: &mut TraceText<R>,
    file: &str,
) -> Result<Workload, WorkloadError> {
    read_swf_with(text, file, ReadOptions::default())
}

/// [`read_swf`], bad lines strict or counted (`options`).
pub fn read_swf_with<R: std::io::Read>(
    text: &mut TraceText<R>,
    file: &str,
    options: ReadOptions,
) -> Result<Workload, WorkloadError> {
    let mut reader = SwfReader::new(file, text.size_hint(), options);
    while let Some(lines) = text.next_lines()? {
        if let Err(e) = reader.lines(lines) {
            return Err(text.drain(e));
        }
        text.fault_ahead(&reader.w.jobs);
    }
    Ok(reader.finish())
}

impl SwfReader<'_> {
    /// Read whole lines (the last may lack its line end), numbered on from the lines before.
    fn lines(&mut self, text: &str) -> Result<(), WorkloadError> {
        let bytes = text.as_bytes();
        let mut pos = 0;
        let mut spans = [(0usize, 0usize); 18];
        while pos < bytes.len() {
            self.line += 1;
            let lineno = self.line;
            let start = pos;
            let (count, i, ascii) = match split_words(bytes, pos, &mut spans) {
                Some((count, i)) => (count, i, true),
                None => split_bytes(bytes, pos, &mut spans),
            };
            pos = i + 1;
            if !ascii {
                let r = self.text_line(lineno, &text[start..i]);
                self.bad(r)?;
                continue;
            }
            if count == 0 {
                continue;
            }
            let first = spans[0].0;
            if bytes[first] == b';' {
                let r = self.header(lineno, &text[first + 1..i]);
                self.bad(r)?;
                continue;
            }
            let r = self.job(lineno, text, &spans[..count.min(18)], count);
            self.bad(r)?;
        }
        Ok(())
    }

    /// A line's outcome: a bad line is the error, or with `--lenient` counted (a data line as
    /// a dropped job, its kind the reason; a header as a record skipped).
    #[inline]
    fn bad(&mut self, r: Result<(), Bad>) -> Result<(), WorkloadError> {
        match r {
            Ok(()) => Ok(()),
            Err(Bad::Job(b)) => reject(b, self.options, self.file, &mut self.w.report),
            Err(Bad::Header(_)) if self.options.lenient => {
                self.w.report.skip_record("bad header");
                Ok(())
            }
            Err(Bad::Header(b)) => Err(b.error(self.file)),
        }
    }
}

/// The fields of the line from `pos`: their spans (the first 18), how many there are, where
/// the line ends (its line feed, or the end of the text), whether it is all ASCII. Fields are
/// split at ASCII white space as `str::split_whitespace` splits them.
fn split_bytes(bytes: &[u8], pos: usize, spans: &mut [(usize, usize); 18]) -> (usize, usize, bool) {
    let mut i = pos;
    let mut count = 0;
    let mut ascii = true;
    loop {
        while i < bytes.len() && CLASS[bytes[i] as usize] == SPACE {
            i += 1;
        }
        if i == bytes.len() || bytes[i] == b'\n' {
            break;
        }
        let s = i;
        while i < bytes.len() && CLASS[bytes[i] as usize] >= TEXT {
            ascii &= CLASS[bytes[i] as usize] == TEXT;
            i += 1;
        }
        if count < spans.len() {
            spans[count] = (s, i);
        }
        count += 1;
    }
    (count, i, ascii)
}

/// [`split_bytes`] eight bytes at a time, for a line of printable ASCII (`!` to DEL) split by
/// spaces, as trace lines are: `Some((count, end))`, or `None` for any other line (a tab, a
/// carriage return, a control byte or one outside ASCII before its line feed, or a line that
/// reaches within eight bytes of the end of the text), which [`split_bytes`] reads instead.
#[inline]
fn split_words(
    bytes: &[u8],
    pos: usize,
    spans: &mut [(usize, usize); 18],
) -> Option<(usize, usize)> {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = ONES << 7;
    // The high bit of each byte of `w` that equals `b` (exact: no carry crosses a byte).
    let equal = |w: u64, b: u8| {
        let x = w ^ (ONES * u64::from(b));
        !(((x & !HIGH) + !HIGH) | x) & HIGH
    };
    let mut i = pos;
    // Fields begun, and ended.
    let (mut opened, mut count) = (0, 0);
    // Whether the byte before this word is in a field.
    let mut open = false;
    loop {
        let word: [u8; 8] = bytes.get(i..i + 8)?.try_into().ok()?;
        let w = u64::from_le_bytes(word);
        let space = equal(w, b' ');
        let line_feed = equal(w, b'\n');
        // `!` to DEL: below 0x80, and 0x21 or more.
        let printable = ((w & !HIGH) + ONES * (0x80 - 0x21)) & !w & HIGH;
        // The bytes of this line in the word: up to its line feed, if the word has it.
        let line = match line_feed {
            0 => HIGH,
            lf => HIGH & ((lf & lf.wrapping_neg()) - 1),
        };
        if !(printable | space) & line != 0 {
            return None;
        }
        let field = printable & line;
        let before = (field << 8) | if open { 1 << 7 } else { 0 };
        let starts = field & !before;
        // A field ends at a space or at the line feed (the first byte past `line`).
        let ends = !field & before & (line | (line << 8) | (1 << 7));
        // Starts and ends alternate: the k-th of each is the k-th field's.
        let mut bits = starts;
        while bits != 0 {
            if opened < spans.len() {
                spans[opened].0 = i + (bits.trailing_zeros() / 8) as usize;
            }
            opened += 1;
            bits &= bits - 1;
        }
        let mut bits = ends;
        while bits != 0 {
            if count < spans.len() {
                spans[count].1 = i + (bits.trailing_zeros() / 8) as usize;
            }
            count += 1;
            bits &= bits - 1;
        }
        if line_feed != 0 {
            return Some((count, i + (line_feed.trailing_zeros() / 8) as usize));
        }
        open = field >> 63 != 0;
        i += 8;
    }
}

/// A bad line of a trace: a data line (a job read), or a header line.
enum Bad {
    Job(BadRecord),
    Header(BadRecord),
}

/// What a byte is to the line splitter: white space as `str::split_whitespace` has it (of
/// ASCII), the line feed, an ASCII byte of a field, or a byte outside ASCII.
const SPACE: u8 = 0;
const LINE_FEED: u8 = 1;
const TEXT: u8 = 2;
const NOT_ASCII: u8 = 3;
const CLASS: [u8; 256] = {
    let mut c = [TEXT; 256];
    let mut b = 0x80;
    while b < 256 {
        c[b] = NOT_ASCII;
        b += 1;
    }
    c[b' ' as usize] = SPACE;
    c[b'\t' as usize] = SPACE;
    c[0x0b] = SPACE;
    c[0x0c] = SPACE;
    c[b'\r' as usize] = SPACE;
    c[b'\n' as usize] = LINE_FEED;
    c
};

/// A number field: a whole number written in at most 18 digits (every value a trace holds) is
/// read digit by digit — to the same `f64` as `str::parse`, both rounding the exact value to
/// the nearest — anything else by `str::parse`; not a finite number → `None`.
#[inline]
fn number(s: &str) -> Option<f64> {
    whole_number(s.as_bytes()).or_else(|| parsed(s))
}

/// [`number`]'s slow path: `str::parse`, finite values only.
fn parsed(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// [`number`]'s fast path, of a field's bytes: `-?` and 1 to 18 digits, or `None`.
#[inline]
fn whole_number(b: &[u8]) -> Option<f64> {
    let (negative, body) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    if body.len() > 18 {
        return None;
    }
    let v = digit_bytes(body)? as f64;
    Some(if negative { -v } else { v })
}

/// `v` rounded to the nearest whole number (halves away from 0) as `i64`, saturating: `v.round()
/// as i64` without the call to `round` when `v` is whole already (as trace times are).
#[inline]
fn whole(v: f64) -> i64 {
    let i = v as i64;
    if i as f64 == v { i } else { v.round() as i64 }
}

/// The state of one SWF read: the workload so far, the header's machine size, the job numbers
/// seen, and the entity names made so far (by field text).
struct SwfReader<'a> {
    file: &'a str,
    options: ReadOptions,
    /// Lines read so far.
    line: usize,
    w: Workload,
    max_procs: Option<u32>,
    max_nodes: Option<u32>,
    seen: JobNumbers,
    horizon: Horizon,
    users: FieldNames,
    groups: FieldNames,
    queues: FieldNames,
    /// The names of all three fields (`unknown` is one text for users and groups).
    names: Names,
    /// The empty name (every SWF job's account and QOS), looked up once: a look-up per job
    /// was 14% of a whole `jobsort sim` of LANL-CM5 (`perf`: `Names::get`'s `memcmp`).
    empty: Name,
}

impl<'a> SwfReader<'a> {
    fn new(file: &'a str, text_len: usize, options: ReadOptions) -> Self {
        // About 90 bytes a line in the archive's traces; a guess no bigger than what the
        // text can hold, and a small one at that (the jobs grow by doubling, which for big
        // vectors moves pages, not bytes): a trace of mostly comments reserves little.
        let lines = (text_len / 90).min(1 << 12);
        let mut w = Workload::default();
        w.jobs.reserve(lines);
        let mut names = Names::default();
        SwfReader {
            file,
            options,
            line: 0,
            w,
            max_procs: None,
            max_nodes: None,
            seen: JobNumbers::default(),
            horizon: Horizon::default(),
            users: FieldNames::default(),
            groups: FieldNames::default(),
            queues: FieldNames::default(),
            empty: names.get(""),
            names,
        }
    }

    /// A line holding a byte outside ASCII, as text.
    fn text_line(&mut self, lineno: usize, line: &str) -> Result<(), Bad> {
        let line = line.trim();
        if line.is_empty() {
            return Ok(());
        }
        if let Some(h) = line.strip_prefix(';') {
            return self.header(lineno, h);
        }
        // The fields' byte ranges in `line`, as the ASCII path has them.
        let spans: Vec<(usize, usize)> = line
            .split_whitespace()
            .map(|f| {
                let s = f.as_ptr() as usize - line.as_ptr() as usize;
                (s, s + f.len())
            })
            .collect();
        self.job(lineno, line, &spans[..spans.len().min(18)], spans.len())
    }

    /// A header line after its `;`: `Label: value` (a label without spaces) is kept, and
    /// `MaxProcs`, `MaxNodes` and `UnixStartTime` read; any other comment is skipped.
    fn header(&mut self, lineno: usize, h: &str) -> Result<(), Bad> {
        let Some((label, value)) = h.split_once(':') else {
            return Ok(());
        };
        let label = label.trim();
        let value = value.trim();
        if label.is_empty() || label.contains(' ') {
            return Ok(());
        }
        let bad = |what: &str| {
            Bad::Header(BadRecord::new(
                lineno,
                "bad header",
                format!("header `{label}`: {what}"),
            ))
        };
        match label {
            "MaxProcs" => {
                self.max_procs = Some(value.parse::<u32>().map_err(|_| bad("not an integer"))?)
            }
            "MaxNodes" => {
                self.max_nodes = Some(value.parse::<u32>().map_err(|_| bad("not an integer"))?)
            }
            "UnixStartTime" => {
                self.w.unix_start_time =
                    Some(value.parse::<i64>().map_err(|_| bad("not an integer"))?)
            }
            _ => {}
        }
        self.w.header.push((label.to_string(), value.to_string()));
        Ok(())
    }

    /// A data line: `spans` are the byte ranges in `text` of its first 18 fields, `count`
    /// how many it has. Only the fields read are made into text (the number fields are read
    /// from their bytes).
    fn job(
        &mut self,
        lineno: usize,
        text: &str,
        spans: &[(usize, usize)],
        count: usize,
    ) -> Result<(), Bad> {
        let bad =
            |kind: &'static str, reason: String| Bad::Job(BadRecord::new(lineno, kind, reason));
        // Every data line is a job read: kept, or dropped with its reason.
        self.w.report.read += 1;
        if count != 18 {
            return Err(bad(
                "wrong number of fields",
                format!("expected 18 fields, found {count}"),
            ));
        }
        // Field `k` (from 1) as text, and as a number.
        let field = |k: usize| {
            let (s, e) = spans[k - 1];
            &text[s..e]
        };
        let num = |k: usize| -> Result<f64, Bad> {
            let (s, e) = spans[k - 1];
            whole_number(&text.as_bytes()[s..e])
                .or_else(|| parsed(field(k)))
                .ok_or_else(|| {
                    bad(
                        "not a number",
                        format!(
                            "field {k} ({}) is not a number: `{}`",
                            FIELD_NAMES[k - 1],
                            field(k)
                        ),
                    )
                })
        };
        let id = field(1);
        if number(id).is_none() && id.parse::<f64>().is_err() {
            return Err(bad(
                "not a number",
                format!("field 1 (job number) is not a number: `{id}`"),
            ));
        }
        if !self.seen.insert(id) {
            return Err(bad(
                "duplicate job number",
                format!("duplicate job number {id}"),
            ));
        }
        let submit = num(2)?;
        if submit < 0.0 {
            return Err(bad(
                "negative submit time",
                format!("field 2 (submit time) is negative: {submit}"),
            ));
        }
        let wait = num(3)?;
        let run = whole(num(4)?);
        let alloc = num(5)?;
        let req_procs = num(8)?;
        let req_time = num(9)?;
        let req_mem = num(10)?;
        let queue = num(15)?;
        // SWF 2.2 (the Parallel Workloads Archive's definition, `swf.html`): a field the log
        // does not have is -1, and processors are integers; another negative value, or a
        // fraction of a processor, is no value of its field (it was read as "missing", and
        // 2.7 processors as 3).
        for (k, v, whole) in [
            (5, alloc, true),
            (8, req_procs, true),
            (9, req_time, false),
            (10, req_mem, false),
        ] {
            if v < 0.0 && v != -1.0 {
                return Err(bad(
                    "out of range",
                    format!(
                        "field {k} ({}) is {v}: a negative value other than -1 (SWF's \
                         \"missing\")",
                        FIELD_NAMES[k - 1]
                    ),
                ));
            }
            if whole && v.fract() != 0.0 {
                return Err(bad(
                    "not a whole number",
                    format!(
                        "field {k} ({}) is {v}: processors are whole numbers",
                        FIELD_NAMES[k - 1]
                    ),
                ));
            }
        }
        let procs = if alloc > 0.0 { alloc } else { req_procs };
        if run <= 0 {
            self.w.report.drop_job(id, "runtime <= 0");
            return Ok(());
        }
        if procs < 1.0 {
            self.w.report.drop_job(id, "no processors");
            return Ok(());
        }
        let procs = count_of(procs).map_err(|e| {
            let k = if alloc > 0.0 { 5 } else { 8 };
            bad(
                "out of range",
                format!("field {k} ({}): {}", FIELD_NAMES[k - 1], e.reason),
            )
        })?;
        let (walltime, given) = if req_time > 0.0 {
            (whole(req_time), true)
        } else {
            (run, false)
        };
        let submit = whole(submit);
        let job = JobSpec {
            id: id.into(),
            submit,
            run,
            walltime,
            walltime_given: given,
            request: Request::Procs(procs),
            mem: if req_mem > 0.0 {
                req_mem * procs as f64
            } else {
                0.0
            },
            user: self
                .users
                .name(field(12), &mut self.names, || entity(field(12), "u")),
            group: self
                .groups
                .name(field(13), &mut self.names, || entity(field(13), "g")),
            account: self.empty.clone(),
            qos: self.empty.clone(),
            queue: self.queues.name(field(15), &mut self.names, || {
                if queue >= 0.0 {
                    format!("q{}", queue as i64)
                } else {
                    "default".into()
                }
            }),
            queue_priority: 0.0,
            resources: BTreeMap::new(),
            recorded_start: (wait >= 0.0).then(|| submit.saturating_add(whole(wait))),
        };
        self.horizon.add(&job).map_err(|e| {
            let k = match e.field {
                JobField::Submit => 2,
                JobField::Start => 3,
                JobField::Run => 4,
                JobField::Walltime => 9,
                JobField::Cores if alloc > 0.0 => 5,
                JobField::Cores => 8,
            };
            bad(
                "out of range",
                format!("field {k} ({}): {}", FIELD_NAMES[k - 1], e.reason),
            )
        })?;
        self.w.push_kept(job);
        Ok(())
    }

    fn finish(mut self) -> Workload {
        self.w.machine = match (self.max_nodes, self.max_procs) {
            (Some(n), Some(p)) if n > 0 && p >= n && p % n == 0 => MachineHint {
                nodes: Some(n),
                cores: Some(p / n),
            },
            (Some(n), _) if n > 0 => MachineHint {
                nodes: Some(n),
                cores: Some(1),
            },
            (None, Some(p)) if p > 0 => MachineHint {
                nodes: Some(p),
                cores: Some(1),
            },
            _ => MachineHint::default(),
        };
        self.w.finish();
        self.w
    }
}

/// The user or group named by an SWF field: a negative number is `unknown`, another number
/// `N` is `<prefix>N`, anything else (AleaNG's `user_A`) the text itself.
fn entity(s: &str, prefix: &str) -> String {
    match s.parse::<f64>() {
        Ok(v) if v < 0.0 => "unknown".to_string(),
        Ok(v) => format!("{prefix}{}", v as i64),
        Err(_) => s.to_string(),
    }
}

/// The names made from one SWF field (user, group, queue), by the field's text: made once per
/// distinct text and shared by its jobs. The field is an id (`3`, `-1`), so the ids below
/// 10,000 are looked up by index, other texts by hash.
#[derive(Default)]
struct FieldNames {
    /// `-1` at 0, the id `N` at `N + 1`.
    small: Vec<Option<Name>>,
    other: FxHashMap<Box<str>, Name>,
}

impl FieldNames {
    /// The name of field text `s`: `make` gives it the first time, and `names` (shared by the
    /// workload's fields) makes it one shared text.
    fn name(&mut self, s: &str, names: &mut Names, make: impl FnOnce() -> String) -> Name {
        let slot = if s == "-1" {
            Some(0)
        } else {
            plain_digits(s, 10_000).map(|n| n + 1)
        };
        match slot {
            Some(k) => {
                if k >= self.small.len() {
                    self.small.resize(k + 1, None);
                }
                self.small[k]
                    .get_or_insert_with(|| names.get_owned(make()))
                    .clone()
            }
            None => match self.other.get(s) {
                Some(name) => name.clone(),
                None => self
                    .other
                    .entry(s.into())
                    .or_insert_with(|| names.get_owned(make()))
                    .clone(),
            },
        }
    }
}

const FIELD_NAMES: [&str; 18] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user",
    "group",
    "executable",
    "queue",
    "partition",
    "preceding job",
    "think time",
];

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "; MaxNodes: 4\n; MaxProcs: 8\n; UnixStartTime: 1000\n\
1 0 5 100 2 -1 -1 2 200 -1 1 3 7 -1 1 -1 -1 -1\n\
2 10 -1 50 -1 -1 -1 4 -1 16 1 4 7 -1 -1 -1 -1 -1\n\
3 20 0 0 1 -1 -1 1 10 -1 1 3 7 -1 1 -1 -1 -1\n\
4 30 0 10 -1 -1 -1 -1 10 -1 1 3 7 -1 1 -1 -1 -1\n\
5 40 0 30 1 -1 -1 1 20 -1 1 3 7 -1 1 -1 -1 -1\n";

    #[test]
    fn header_fields_conventions_and_drop_reasons() {
        let w = parse_swf(SMALL, "t.swf").unwrap();
        assert_eq!(
            w.machine,
            MachineHint {
                nodes: Some(4),
                cores: Some(2)
            }
        );
        assert_eq!(w.unix_start_time, Some(1000));
        assert_eq!(w.jobs.len(), 3);
        let j1 = &w.jobs[0];
        assert_eq!(
            (j1.user.as_str(), j1.group.as_str(), j1.queue.as_str()),
            ("u3", "g7", "q1")
        );
        assert_eq!(j1.recorded_start(), Some(5));
        let j2 = &w.jobs[1];
        assert_eq!(j2.request, Request::Procs(4)); // field 5 missing → field 8
        assert_eq!((j2.walltime, j2.walltime_given()), (50, false)); // requested time missing → runtime
        assert_eq!(j2.mem, 64.0);
        assert_eq!(j2.recorded_start(), None);
        assert_eq!(w.jobs[2].effective_run(), 20); // killed at its requested time
        assert_eq!(w.report.dropped["runtime <= 0"], 1);
        assert_eq!(w.report.dropped["no processors"], 1);
        assert_eq!(
            (
                w.report.read,
                w.report.kept,
                w.report.walltime_from_runtime,
                w.report.killed_at_walltime
            ),
            (5, 3, 1, 1)
        );
    }

    #[test]
    fn bad_lines_say_file_and_line() {
        let e = parse_swf("; MaxProcs: 4\n1 0 0 10 1\n", "x.swf").unwrap_err();
        assert_eq!(e.to_string(), "x.swf:2: expected 18 fields, found 5");
        let e =
            parse_swf("\n1 0 0 ten 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n", "x.swf").unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.swf:2: field 4 (run time) is not a number: `ten`"
        );
        let e = parse_swf("; MaxProcs: many\n", "x.swf").unwrap_err();
        assert_eq!(e.to_string(), "x.swf:1: header `MaxProcs`: not an integer");
    }

    /// A `.machines` file beside a trace that is `/dev/zero` (or any file that is not one)
    /// is an error naming it, read up to a bound; it was read for ever, or taken as none.
    #[test]
    fn a_machines_file_beside_a_trace_is_read_up_to_a_bound() {
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("t.swf");
        assert_eq!(machines_beside(&trace), Ok(None));
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("t.swf.machines")).unwrap();
        let e = machines_beside(&trace).unwrap_err().to_string();
        assert!(
            e.ends_with("t.swf.machines: longer than 64 MiB (the most this file may hold)"),
            "{e}"
        );
    }

    #[test]
    fn values_outside_a_fields_domain_are_errors_or_counted() {
        let line = |f: [&str; 4]| {
            format!(
                "1 0 0 10 {} -1 -1 {} {} {} 1 1 1 -1 1 -1 -1 -1\n",
                f[0], f[1], f[2], f[3]
            )
        };
        let err = |f| parse_swf(&line(f), "t.swf").unwrap_err().to_string();
        assert_eq!(
            err(["-5", "1", "-1", "-1"]),
            "t.swf:1: field 5 (allocated processors) is -5: a negative value other than -1 \
             (SWF's \"missing\")"
        );
        assert_eq!(
            err(["-1", "2.7", "-1", "-1"]),
            "t.swf:1: field 8 (requested processors) is 2.7: processors are whole numbers"
        );
        assert!(
            err(["1", "-1", "-5", "-1"]).starts_with("t.swf:1: field 9 (requested time) is -5")
        );
        assert!(
            err(["1", "-1", "-1", "-5"]).starts_with("t.swf:1: field 10 (requested memory) is -5")
        );
        // -1 is missing; a fractional time or memory is a value.
        let w = parse_swf(&line(["-1", "4", "30.5", "1.5"]), "t.swf").unwrap();
        assert_eq!(
            (w.jobs[0].walltime, w.jobs[0].request.total_cores()),
            (31, 4)
        );
        // Lenient: skipped, counted under its kind.
        let text = [
            line(["-5", "1", "-1", "-1"]),
            line(["1", "1", "-1", "-1"]).replacen('1', "2", 1),
        ]
        .concat();
        let w = parse_swf_with(&text, "t.swf", ReadOptions { lenient: true }).unwrap();
        assert_eq!(w.jobs.len(), 1);
        assert_eq!(w.report.dropped.get("bad record: out of range"), Some(&1));
    }

    #[test]
    fn lenient_counts_each_bad_line_and_keeps_the_rest() {
        let job =
            |id: &str, run: &str| format!("{id} 0 0 {run} 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n");
        let text = [
            "; MaxProcs: many\n".to_string(),
            "; MaxNodes: 4\n".to_string(),
            job("1", "10"),
            "2 0 0 10 1\n".to_string(),
            job("3", "ten"),
            job("1", "10"),
            job("x", "10"),
            job("4", "0"),
            "5 -3 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n".to_string(),
            job("6", "20"),
            // Cut short (a file still being written): its fields are too few.
            "7 0 0 1".to_string(),
        ]
        .concat();
        // Strict: the first bad line is the error, as before.
        let e = parse_swf(&text, "x.swf").unwrap_err();
        assert_eq!(e.to_string(), "x.swf:1: header `MaxProcs`: not an integer");
        let lenient = ReadOptions { lenient: true };
        let w = parse_swf_with(&text, "x.swf", lenient).unwrap();
        let ids: Vec<&str> = w.jobs.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(ids, ["1", "6"]);
        let r = &w.report;
        // Every data line is a job read: kept or dropped, each with its reason.
        assert_eq!(r.read, 9);
        assert_eq!(r.read, w.jobs.len() + r.dropped_total());
        let dropped: Vec<(&str, usize)> = r.dropped.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(
            dropped,
            [
                ("bad record: duplicate job number", 1),
                ("bad record: negative submit time", 1),
                ("bad record: not a number", 2),
                ("bad record: wrong number of fields", 2),
                ("runtime <= 0", 1),
            ]
        );
        let skipped: Vec<(&str, usize)> = r
            .records_skipped
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        assert_eq!(skipped, [("bad header", 1)]);
        // Read in pieces, the same.
        let mut input = TraceText::new(text.as_bytes(), "x.swf", text.len()).unwrap();
        let w2 = read_swf_with(&mut input, "x.swf", lenient).unwrap();
        assert_eq!(format!("{:?}", w2.report), format!("{:?}", w.report));
    }

    #[test]
    fn numbers_read_as_str_parse_reads_them() {
        let parse = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite());
        for s in [
            "0",
            "-0",
            "17",
            "-1",
            "00012",
            "123456789012345678",
            "1234567890123456789",
            "9007199254740993",
            "99999999999999999999",
            "1.5",
            "1e3",
            "+4",
            "-",
            "",
            "--1",
            "1-",
            "inf",
            "NaN",
            "0x1",
        ] {
            assert_eq!(
                number(s).map(f64::to_bits),
                parse(s).map(f64::to_bits),
                "{s}"
            );
        }
        for v in [0.0, 2.0, -3.0, 2.5, -2.5, 0.49, 1e300, -1e300, 9.3e18] {
            assert_eq!(whole(v), v.round() as i64, "{v}");
        }
    }

    proptest::proptest! {
        /// Eight bytes at a time, a line splits as byte by byte, wherever it starts and
        /// ends in the words; a line the word splitter does not take is one with a byte it
        /// leaves to the byte splitter, or one near the end of the text.
        #[test]
        fn lines_split_by_words_as_by_bytes(
            picks in proptest::collection::vec(0usize..12, 0..120),
            from in 0usize..9,
        ) {
            const BYTES: [u8; 12] = [b' ', b' ', b'\n', b'1', b'-', b';', b'x', b'\t', b'\r', 0x01, 0x7f, 0xc3];
            let text: Vec<u8> = picks.iter().map(|&k| BYTES[k]).collect();
            let mut pos = from.min(text.len());
            while pos < text.len() {
                let (mut a, mut b) = ([(0, 0); 18], [(0, 0); 18]);
                let (count, end, ascii) = split_bytes(&text, pos, &mut a);
                if let Some((n, e)) = split_words(&text, pos, &mut b) {
                    proptest::prop_assert_eq!((n, e, true), (count, end, ascii));
                    proptest::prop_assert_eq!(&a[..count.min(18)], &b[..n.min(18)]);
                } else {
                    let line = &text[pos..end];
                    proptest::prop_assert!(
                        end + 8 > text.len()
                            || line.iter().any(|&c| c != b' ' && !(0x21..=0x7f).contains(&c)),
                        "{:?}", line
                    );
                }
                pos = end + 1;
            }
        }

        #[test]
        fn whole_numbers_read_as_str_parse_reads_them(s in "-?[0-9]{1,20}") {
            proptest::prop_assert_eq!(
                number(&s).map(f64::to_bits),
                s.parse::<f64>().ok().map(f64::to_bits)
            );
        }
    }

    #[test]
    fn job_numbers_are_texts_and_lines_outside_ascii_split_on_unicode_space() {
        let line = |id: &str| format!("{id} 0 0 10 1 -1 -1 1 -1 -1 1 3 1 -1 -1 -1 -1 -1\n");
        let w = parse_swf(&(line("1") + &line("01") + &line("1.0")), "t.swf").unwrap();
        assert_eq!(w.jobs.len(), 3);
        let e = parse_swf(&(line("7") + &line("8") + &line("7")), "t.swf").unwrap_err();
        assert_eq!(e.to_string(), "t.swf:3: duplicate job number 7");
        // A no-break space separates fields as `str::split_whitespace` has it; vertical tab
        // and carriage return are white space too.
        let nbsp = "1\u{a0}0 0 10 1 -1 -1 1 -1 -1 1 3 1 -1 -1 -1 -1 -1\n";
        let w = parse_swf(nbsp, "t.swf").unwrap();
        assert_eq!((w.jobs[0].id.as_str(), w.jobs[0].run), ("1", 10));
        let w = parse_swf(
            "2 0 0 10 1 -1 -1 1 -1 -1 1 3 1 -1 -1 -1 -1 -1\x0b\r\n",
            "t.swf",
        )
        .unwrap();
        assert_eq!(w.jobs[0].user, "u3");
        // Users, groups and queues named once per field text: `3`, `03` and `3.0` are u3.
        let text: String = ["3", "03", "3.0", "-1", "-2", "user_A", "12345"]
            .iter()
            .enumerate()
            .map(|(i, u)| format!("{i} 0 0 10 1 -1 -1 1 -1 -1 1 {u} {u} -1 -1 -1 -1 -1\n"))
            .collect();
        let w = parse_swf(&text, "t.swf").unwrap();
        let users: Vec<&str> = w.jobs.iter().map(|j| j.user.as_str()).collect();
        assert_eq!(
            users,
            ["u3", "u3", "u3", "unknown", "unknown", "user_A", "u12345"]
        );
        assert_eq!(w.jobs[3].group, "unknown");
        // One text per name for the whole trace: `3` and `03` are one `u3`, and `unknown` is
        // one text for the users and the groups.
        assert!(w.jobs[0].user.shares(&w.jobs[1].user));
        assert!(w.jobs[0].user.shares(&w.jobs[2].user));
        assert!(w.jobs[3].user.shares(&w.jobs[4].group));
        assert!(w.jobs[0].queue.shares(&w.jobs[6].queue));
    }

    #[test]
    fn a_trace_read_in_pieces_fails_as_the_text_read_whole() {
        use crate::workload::decode_text;
        // Decoded on the reader's thread, and on its own thread ahead of it (as files are):
        // the same jobs, the same error, the same hash of the stored bytes.
        let read = |bytes: &[u8]| {
            let mut text = TraceText::new(bytes, "t", bytes.len()).unwrap();
            let here = read_swf(&mut text, "t").map_err(|e| e.to_string());
            let owned = std::io::Cursor::new(bytes.to_vec());
            let mut ahead = TraceText::new(owned, "t", bytes.len()).unwrap().ahead();
            let there = read_swf(&mut ahead, "t").map_err(|e| e.to_string());
            assert_eq!(
                here.as_ref().map(|w| &w.jobs),
                there.as_ref().map(|w| &w.jobs)
            );
            assert_eq!(text.sha256(), ahead.sha256());
            here
        };
        let gzip = |bytes: &[u8]| {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            std::io::Write::write_all(&mut gz, bytes).unwrap();
            gz.finish().unwrap()
        };
        // Several pieces (a piece is about 256 KiB): the line numbers run on across them.
        let pad = format!(";{}\n", "x".repeat(99)).repeat(3000);
        let job = |n: u32| format!("{n} 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n");
        let good = format!("{pad}{}{pad}{}", job(1), job(2));
        let w = read(good.as_bytes()).unwrap();
        assert_eq!(w.jobs, parse_swf(&good, "t").unwrap().jobs);
        assert_eq!(w.jobs.len(), 2);
        let bad = format!("{pad}{}{pad}", job(1).replace(" 10 ", " ten "));
        let e = read(bad.as_bytes()).unwrap_err();
        assert!(e.starts_with("t:3001: field 4 (run time)"), "{e}");
        // Text after it that is not UTF-8 is the error, as when the text was checked first.
        let mut not_utf8 = format!("{bad}{pad}").into_bytes();
        not_utf8.extend_from_slice(b"\xff\n");
        let whole = String::from_utf8(not_utf8.clone()).unwrap_err();
        assert_eq!(
            read(&not_utf8).unwrap_err(),
            format!("t: not UTF-8 text: {whole}")
        );
        assert_eq!(
            decode_text(not_utf8.clone(), "t").unwrap_err().to_string(),
            format!("t: not UTF-8 text: {whole}")
        );
        assert_eq!(
            read(&gzip(&not_utf8)).unwrap_err(),
            format!("t: not UTF-8 text: {whole}")
        );
        // A gzip stream cut short after both: its error wins.
        let gz = gzip(&not_utf8);
        let e = read(&gz[..gz.len() - 12]).unwrap_err();
        assert!(e.starts_with("t: gzip: "), "{e}");
        assert_eq!(
            e,
            decode_text(gz[..gz.len() - 12].to_vec(), "t")
                .unwrap_err()
                .to_string()
        );
    }

    #[test]
    fn machines_file() {
        let m = parse_machines("36\tfer\t5\t2\t1\t256\t6.6\t8\n", "m").unwrap();
        assert_eq!(
            m,
            MachineHint {
                nodes: Some(5),
                cores: Some(2)
            }
        );
        // Node types of one CPU count add their nodes; of several, the machine is --machine's.
        let two = parse_machines("0 a 4 8\n1 b 2 8 1 64\n", "m").unwrap();
        assert_eq!((two.nodes, two.cores), (Some(6), Some(8)));
        let e = parse_machines("0 a 4 8\n1 b 2 16\n", "x.machines").unwrap_err();
        assert!(
            e.to_string().starts_with(
                "x.machines: node types with different CPUs per node: give the file as --machine"
            ),
            "{e}"
        );
        let e = parse_machines("0 a 4\n", "x.machines").unwrap_err();
        assert!(e.to_string().starts_with("x.machines:1: expected"), "{e}");
    }
}
