//! PBS Pro / OpenPBS (and Torque) accounting logs as a workload and as a real schedule.
//!
//! Input: one file, several, or a directory (`$PBS_HOME/server_priv/accounting/`, its files
//! taken in name order, which is date order for PBS's `YYYYMMDD` names), each plain or gzip
//! (told by its magic bytes). Lines stream through a reused buffer; a job's state lives from
//! its first record to its end, so memory follows the jobs, not the records.
//!
//! Each line is `MM/DD/YYYY HH:MM:SS;T;ID;MESSAGE`. The prefix is the server's local time
//! with no zone (ambiguous around a DST change): it is checked for its shape and used for
//! nothing else. Every time comes from the epoch keys of the message (`ctime`, `qtime`,
//! `etime`, `start`, `end`).
//!
//! Records joined per job (the id without its server suffix, so `6.srv` and `6` are one):
//! - `Q` queued (again on each local queue move), `S` started, `T` restarted from a checkpoint
//!   (written instead of `S`), `R` rerun (the run ends there, the job is queued again), `E`
//!   ended. S and E repeat Q's attributes, so a job may start with any of them; an `E` whose
//!   job has no `S` in the logs (it started before them) is the job, as E carries `start`.
//! - `D` deleted, `A` aborted: before a start the job ends there ("deleted before it
//!   started", "aborted before it started": counted, not simulated); while running the `E`
//!   follows.
//! - Array parents `123[]` are counted, not simulated: their subjobs `123[4]` are the jobs.
//! - Every other record type is counted by type as a record skipped, not a job
//!   ([`LoadReport::records_skipped`]: `record type L (floating licences)`).
//! - At the end of the logs, jobs still queued or running are counted.
//!
//! A job becomes a [`SimJob`]: submit = `qtime` (the time it entered the queue it ran from;
//! `ctime` when the record has no `qtime`), recorded start = `start` of its last run, run =
//! `end − start`, walltime and mem from `Resource_List`, user, group, account, queue; the numeric
//! (plain number, size or duration) custom `Resource_List` members go to
//! [`SimJob::resources`]. What a [`SimJob`] has no field for (eligible time, exit status,
//! run count, project, `select`, `place`, the allocation) is on [`PbsJob`].
//!
//! The request: Torque's `nodes=N:ppn=P` is N nodes of P cores (several `+` parts with
//! different `ppn`: their cores anywhere). Otherwise `ncpus` over `nodect` chunks; a chunk is
//! on one host, so one chunk or `place=pack` is one node of `ncpus` cores, `place=scatter`
//! with equal chunks is `nodect` nodes of `ncpus / nodect` cores, and anything else (`free`,
//! `vscatter`, unequal chunks) is `ncpus` cores anywhere. A record with no `ncpus` takes the
//! cores it held (`exec_vnode`, else `exec_host`).
//!
//! The cluster: logs have no machine header; its size is derived from the allocations, as
//! many nodes as hosts in `exec_vnode` / `exec_host` (vnodes `host[N]` are their host), each
//! with the most cores in use at once on any one host ([`Workload::machine_derived`] says so).
//!
//! Bad records are an error at `file:line` by default; with [`ReadOptions::lenient`] they
//! are skipped (a bad attribute alone: the record's other values are kept) and counted under
//! their reason. A bad record that ends its job without a run is a dropped job
//! ([`LoadReport::dropped`]): `E without a start`, `E without an end`, `end before start`
//! and `start before qtime` (clock skew), and a finished job's bad value (`bad attribute
//! value`). Any other is a record skipped ([`LoadReport::records_skipped`]), its job, if
//! any, kept: `truncated last line` (no newline: PBS ends every record with one), `not an
//! accounting record`, `unknown record type`, `bad job id`, `bad attribute` / `bad
//! attribute value` / `unknown attribute` (the key is in the message), `duplicate record`
//! (a job's record repeated), `record after the job ended`. So jobs read are always the
//! jobs kept plus the jobs dropped.

mod job;
mod join;
mod record;
mod request;

use job::Selects;
pub use job::{ArrayRole, Fate, PbsJob, Where};
pub use request::select_request;
pub use request::{
    Chunk, HostCores, NodeSpec, PlaceSpec, each_exec_host, each_exec_vnode, each_exec_vnode_piece,
};
pub use request::{parse_exec_host, parse_exec_vnode, parse_nodes, parse_place, parse_select};

pub(crate) use record::looks_like_record;

use super::site_log::{Held, peak_cores};
use super::{
    Horizon, JobField, LoadReport, MachineHint, ReadOptions, Workload, WorkloadError, hex, is_gzip,
};
use crate::input::text;
use join::{Bad, JobSink, Joined, Joiner};
use rustc_hash::FxHashMap;
use std::cell::Cell;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// The jobs the simulator runs, and the allocations the cluster size is derived from.
#[derive(Default)]
struct ToWorkload {
    w: Workload,
    horizon: Horizon,
    hosts: FxHashMap<String, u32>,
    /// The cores of every kept job on each of its hosts, from its start to its end.
    usage: Vec<Held>,
    selects: Selects,
}

impl JobSink for ToWorkload {
    fn job(&mut self, joined: Joined, _at: Option<&Where>) -> Result<(), Bad> {
        let Joined { job, requests } = joined;
        let reason = match job.fate {
            Fate::Ended => None,
            Fate::DeletedQueued => Some("deleted before it started"),
            Fate::AbortedQueued => Some("aborted before it started"),
            Fate::QueuedAtEnd => Some("queued at the end of the logs (never started)"),
            Fate::RunningAtEnd => Some("running at the end of the logs (no E record)"),
        };
        if let Some(r) = reason {
            self.w.report.drop_job(job.id.as_str(), r);
            return Ok(());
        }
        let bad = |e: String| Bad::new("bad attribute value", format!("job `{}`: {e}", job.id));
        // Pieces (host id, cores), a host possibly more than once: its cores add up.
        let mut pieces: Vec<(u32, u32)> = Vec::new();
        let hosts = &mut self.hosts;
        job.each_allocation(|host, cores| {
            let id = match hosts.get(host) {
                Some(&id) => id,
                None => {
                    let id = hosts.len() as u32;
                    hosts.insert(host.to_string(), id);
                    id
                }
            };
            pieces.push((id, cores));
        })
        .map_err(bad)?;
        let held: u64 = pieces.iter().map(|&(_, c)| c as u64).sum();
        let sim = match job
            .sim_job(&requests, held, &mut self.selects)
            .map_err(bad)?
        {
            Ok(sim) => sim,
            Err(reason) => {
                self.w.report.drop_job(job.id.as_str(), reason);
                return Ok(());
            }
        };
        self.horizon.add(&sim).map_err(|e| {
            let field = match e.field {
                JobField::Submit => "`qtime`",
                JobField::Run => "`end` - `start`",
                JobField::Walltime => "`Resource_List.walltime`",
                JobField::Start => "`start`",
                JobField::Cores => "the cores",
            };
            Bad::new(
                "bad attribute value",
                format!("job `{}`: {field}: {}", sim.id, e.reason),
            )
        })?;
        let (start, end) = (job.start.unwrap_or(0), job.end.unwrap_or(0));
        for (host, cores) in pieces {
            self.usage.push(Held {
                start,
                end,
                host,
                cores,
            });
        }
        self.w.push_kept(sim);
        Ok(())
    }
}

impl ToWorkload {
    fn finish(mut self, report: LoadReport) -> Workload {
        let kept = std::mem::take(&mut self.w.report);
        self.w.report = LoadReport {
            walltime_from_runtime: kept.walltime_from_runtime,
            killed_at_walltime: kept.killed_at_walltime,
            zero_runtime: kept.zero_runtime,
            ..report
        };
        self.w.report.add_dropped(kept);
        let peak = peak_cores(std::mem::take(&mut self.usage));
        if !self.hosts.is_empty() && peak > 0 {
            let cores = u32::try_from(peak).unwrap_or(u32::MAX);
            let nodes = u32::try_from(self.hosts.len()).unwrap_or(u32::MAX);
            self.w.machine = MachineHint {
                nodes: Some(nodes),
                cores: Some(cores),
            };
            let s = |n: u32| if n == 1 { "" } else { "s" };
            self.w.machine_derived = Some(format!(
                "{nodes} host{} in exec_vnode/exec_host, at most {cores} core{} in use at once \
                 on one",
                s(nodes),
                s(cores)
            ));
        }
        by_submit(&mut self.w.jobs);
        self.w.finish();
        self.w
    }
}

/// Sort jobs by submit time, ties in the order given, as [`Workload::finish`] would: they
/// come in end order, near their submit order but seldom in it. Sorting their keys (16
/// bytes) and then moving each job once costs less than a stable sort of the jobs (several
/// moves of each), and its scratch space is the keys, not half the jobs.
fn by_submit(jobs: &mut [super::SimJob]) {
    if jobs.is_sorted_by_key(|j| j.submit) {
        return;
    }
    // order[k]: the index of the job that goes to position k (the index breaks ties).
    let mut keys: Vec<(i64, usize)> = jobs.iter().map(|j| j.submit).zip(0..).collect();
    keys.sort_unstable();
    let mut order: Vec<usize> = keys.into_iter().map(|(_, i)| i).collect();
    // Each cycle of the permutation by swaps, each position marked done once it holds
    // its job.
    for start in 0..order.len() {
        let mut at = start;
        while order[at] != at {
            let from = order[at];
            order[at] = at;
            if from == start {
                break;
            }
            jobs.swap(at, from);
            at = from;
        }
    }
}

/// Every job, whatever its fate, in the order they finished (then the open ones by id).
#[derive(Default)]
struct Collect(Vec<PbsJob>);

impl JobSink for Collect {
    fn job(&mut self, job: Joined, _at: Option<&Where>) -> Result<(), Bad> {
        self.0.push(job.into_job());
        Ok(())
    }
}

/// How much of the input has been read: stored (compressed) bytes so far.
pub type Progress<'a> = &'a mut dyn FnMut(u64);

/// The files of an accounting log argument: a directory's regular files in name order, or
/// the file itself.
pub fn accounting_files(path: &Path) -> Result<Vec<PathBuf>, WorkloadError> {
    let io = |e: std::io::Error| WorkloadError::Io {
        file: path.display().to_string(),
        message: e.to_string(),
    };
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(io)? {
        let entry = entry.map_err(io)?;
        if entry.file_type().map_err(io)?.is_file() {
            files.push(entry.path());
        }
    }
    files.sort();
    Ok(files)
}

/// A reader that hashes and counts the stored bytes going through it.
struct Stored<'a, R> {
    inner: R,
    sha: &'a mut sha2::Sha256,
    bytes: &'a Cell<u64>,
}

impl<R: Read> Read for Stored<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use sha2::Digest;
        let n = self.inner.read(buf)?;
        self.sha.update(&buf[..n]);
        self.bytes.set(self.bytes.get() + n as u64);
        Ok(n)
    }
}

/// The lines of one input as they stream by: numbered, checked for their newline and for
/// UTF-8, and handed to the joiner in place (no copy of a line, no allocation per line).
struct Lines<'a> {
    file: &'a str,
    line: usize,
    tick: &'a mut dyn FnMut(),
}

impl<'a> Lines<'a> {
    /// Where the next line is; the progress ticks every few thousand lines.
    fn next(&mut self) -> Where<'a> {
        self.line += 1;
        if self.line.is_multiple_of(8192) {
            (self.tick)();
        }
        Where {
            file: self.file,
            line: self.line,
        }
    }

    /// Every complete line of `block` (the bytes up to its last newline); returns the length
    /// used.
    fn complete(
        &mut self,
        block: &[u8],
        joiner: &mut Joiner,
        sink: &mut dyn JobSink,
    ) -> Result<usize, WorkloadError> {
        let mut from = 0;
        for nl in memchr::memchr_iter(b'\n', block) {
            self.one(&block[from..nl], joiner, sink)?;
            from = nl + 1;
        }
        Ok(from)
    }

    fn one(
        &mut self,
        mut text: &[u8],
        joiner: &mut Joiner,
        sink: &mut dyn JobSink,
    ) -> Result<(), WorkloadError> {
        let at = self.next();
        if let [rest @ .., b'\r'] = text {
            text = rest;
        }
        match std::str::from_utf8(text) {
            Ok(text) => joiner.line(text, &at, sink),
            Err(e) => joiner.bad(
                &at,
                Bad::new(
                    "not an accounting record",
                    format!("not UTF-8 text (byte {})", e.valid_up_to()),
                ),
            ),
        }
    }

    /// What is left after the last newline: a truncated last line when there is anything.
    fn rest(&mut self, rest: &[u8], joiner: &mut Joiner) -> Result<(), WorkloadError> {
        if rest.is_empty() {
            return Ok(());
        }
        let at = self.next();
        joiner.bad(
            &at,
            Bad::new(
                "truncated last line",
                "truncated last line (no newline at its end: PBS ends every record \
                 with one; was the file still being written?)",
            ),
        )
    }
}

/// The block size lines are read in: a line longer than this grows the buffer.
const BLOCK: usize = 1 << 20;

/// Stream one input's lines into the joiner; `tick` is called every few thousand lines.
fn stream(
    reader: &mut dyn Read,
    file: &str,
    joiner: &mut Joiner,
    sink: &mut dyn JobSink,
    tick: &mut dyn FnMut(),
) -> Result<(), WorkloadError> {
    let mut lines = Lines {
        file,
        line: 0,
        tick,
    };
    let mut buf = vec![0u8; BLOCK];
    // buf[..filled] holds bytes read and not yet used (the start of a line).
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            buf.resize(2 * buf.len(), 0);
        }
        let n = match reader.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(WorkloadError::Io {
                    file: file.into(),
                    message: e.to_string(),
                });
            }
        };
        if n == 0 {
            return lines.rest(&buf[..filled], joiner);
        }
        // Only the new bytes can hold a newline: the kept start of a line has none.
        let new = filled;
        filled += n;
        if let Some(at) = text::nul_at(&buf[new..filled]).map(|i| new + i) {
            // The lines before it are read; the NUL is the error, at once (an accounting
            // file that is `/dev/zero` never ends).
            let start = memchr::memrchr(b'\n', &buf[..at]).map_or(0, |i| i + 1);
            lines.complete(&buf[..start], joiner, sink)?;
            return Err(WorkloadError::Column {
                file: file.into(),
                line: lines.line + 1,
                column: at - start + 1,
                reason: text::NUL_BYTE.into(),
            });
        }
        let used = match memchr::memrchr(b'\n', &buf[new..filled]) {
            Some(last) => lines.complete(&buf[..new + last + 1], joiner, sink)?,
            None => 0,
        };
        buf.copy_within(used..filled, 0);
        filled -= used;
        if filled > text::MAX_LINE {
            return Err(WorkloadError::Line {
                file: file.into(),
                line: lines.line + 1,
                reason: format!(
                    "a line longer than {} MiB: no PBS accounting record is this long (is \
                     this a text file?)",
                    text::MAX_LINE >> 20
                ),
            });
        }
    }
}

/// Stream one input (plain or gzip, told by its first bytes) into the joiner. Bytes in
/// memory (`whole`) are split in place, with no copy.
fn stream_any(
    mut r: impl BufRead,
    whole: Option<&[u8]>,
    file: &str,
    joiner: &mut Joiner,
    sink: &mut dyn JobSink,
    tick: &mut dyn FnMut(),
) -> Result<(), WorkloadError> {
    let head = r.fill_buf().map_err(|e| WorkloadError::Io {
        file: file.into(),
        message: e.to_string(),
    })?;
    if is_gzip(head) {
        let mut d = flate2::bufread::MultiGzDecoder::new(r);
        stream(&mut d, file, joiner, sink, tick).map_err(|e| match e {
            WorkloadError::Io { file, message } => WorkloadError::Io {
                file,
                message: format!("gzip: {message}"),
            },
            e => e,
        })
    } else if let Some(bytes) = whole {
        let mut lines = Lines {
            file,
            line: 0,
            tick,
        };
        let used = lines.complete(bytes, joiner, sink)?;
        lines.rest(&bytes[used..], joiner)
    } else {
        stream(&mut r, file, joiner, sink, tick)
    }
}

/// Read accounting logs ([`accounting_files`] of each path, in the order given) as a
/// workload. `progress` hears the stored bytes read so far, now and then. The workload's
/// SHA-256 is that of the stored bytes of every file, one after the other.
pub fn read_pbs_accounting(
    paths: &[PathBuf],
    options: ReadOptions,
    mut progress: Option<Progress<'_>>,
) -> Result<Workload, WorkloadError> {
    use sha2::Digest;
    let mut sha = sha2::Sha256::new();
    let bytes = Cell::new(0u64);
    let mut joiner = Joiner::new(options.lenient);
    let mut sink = ToWorkload::default();
    let mut tick = || {
        if let Some(p) = progress.as_mut() {
            p(bytes.get())
        }
    };
    for path in paths {
        for f in accounting_files(path)? {
            let name = f.display().to_string();
            let file = std::fs::File::open(&f).map_err(|e| WorkloadError::Io {
                file: name.clone(),
                message: e.to_string(),
            })?;
            let stored = Stored {
                inner: file,
                sha: &mut sha,
                bytes: &bytes,
            };
            let r = BufReader::with_capacity(1 << 16, stored);
            stream_any(r, None, &name, &mut joiner, &mut sink, &mut tick)?;
        }
    }
    tick();
    let report = joiner.finish(&mut sink)?;
    let mut w = sink.finish(report);
    w.name = match paths {
        [one] => one
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        _ => format!("{} accounting logs", paths.len()),
    };
    w.sha256 = hex(&sha.finalize());
    Ok(w)
}

/// An accounting log's bytes as stored (plain or gzip) as a workload; `file` names it in
/// errors. The caller sets the name and SHA-256.
pub fn parse_pbs_accounting(
    bytes: &[u8],
    file: &str,
    options: ReadOptions,
) -> Result<Workload, WorkloadError> {
    let mut joiner = Joiner::new(options.lenient);
    let mut sink = ToWorkload::default();
    stream_any(bytes, Some(bytes), file, &mut joiner, &mut sink, &mut || {})?;
    let report = joiner.finish(&mut sink)?;
    Ok(sink.finish(report))
}

/// Every job of an accounting log's bytes as its records give it, whatever its fate: the
/// ended and deleted ones in the order they ended, then those still open by id. The report
/// counts what is not a job (`read`: jobs seen; `records_skipped`: other record types and,
/// when lenient, bad records whose job is kept; `dropped`: when lenient, jobs dropped for
/// a bad record).
pub fn pbs_accounting_jobs(
    bytes: &[u8],
    file: &str,
    options: ReadOptions,
) -> Result<(Vec<PbsJob>, LoadReport), WorkloadError> {
    let mut joiner = Joiner::new(options.lenient);
    let mut sink = Collect::default();
    stream_any(bytes, Some(bytes), file, &mut joiner, &mut sink, &mut || {})?;
    let report = joiner.finish(&mut sink)?;
    Ok((sink.0, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    const C: &str = "user=u group=g queue=q ctime=100 qtime=100 etime=100";

    /// A job's Q, S and E records.
    fn job(id: &str, extra: &str) -> String {
        format!(
            "01/01/2024 00:00:00;Q;{id};{C} Resource_List.ncpus=1 {extra}\n\
             01/01/2024 00:00:00;S;{id};{C} start=110 exec_host=a/0 Resource_List.ncpus=1\n\
             01/01/2024 00:00:00;E;{id};{C} start=110 exec_host=a/0 Resource_List.ncpus=1 \
             end=170 Exit_status=0 run_count=1\n"
        )
    }

    /// A reader handing out at most `step` bytes a call, as a pipe or a decoder may.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn streamed(bytes: &[u8], step: usize, lenient: bool) -> Result<Vec<PbsJob>, WorkloadError> {
        let mut joiner = Joiner::new(lenient);
        let mut sink = Collect::default();
        let mut r = Trickle { bytes, step };
        stream(&mut r, "acct", &mut joiner, &mut sink, &mut || {})?;
        joiner.finish(&mut sink)?;
        Ok(sink.0)
    }

    #[test]
    fn lines_split_across_reads_and_longer_than_a_block_read_whole() {
        // A job name of 2 MB: its Q record is longer than the block lines are read in.
        let long = format!("jobname={}", "x".repeat(2 * BLOCK));
        let text = job("1.s", "") + &job("2.s", &long) + &job("3.s", "");
        let (whole, _) = pbs_accounting_jobs(text.as_bytes(), "acct", ReadOptions::default())
            .expect("the log reads");
        assert_eq!(whole.len(), 3);
        assert_eq!(whole[1].jobname.as_ref().map(String::len), Some(2 * BLOCK));
        for step in [1, 7, 4096, BLOCK + 3, usize::MAX] {
            let jobs = streamed(text.as_bytes(), step.min(text.len()).max(1), false).unwrap();
            assert_eq!(jobs, whole, "{step} bytes a read");
        }
        // The last line cut short is found whatever the reads.
        let cut = &text[..text.len() - 1];
        for step in [1, 13, usize::MAX] {
            let e = streamed(cut.as_bytes(), step.min(cut.len()), false).unwrap_err();
            assert!(
                e.to_string().starts_with("acct:9: truncated last line"),
                "{e}"
            );
        }
        // A CRLF line is the same record.
        let crlf = job("1.s", "").replace('\n', "\r\n");
        assert_eq!(streamed(crlf.as_bytes(), 5, false).unwrap(), whole[..1]);
    }

    /// A job whose E record ends it in the second it started (a job that failed at once)
    /// started and held its core: it is kept with run 0 and counted, not dropped.
    /// An accounting log that never ends (`/dev/zero`, a link to it in the accounting
    /// folder) is an error at its first NUL byte, not a read that holds it all; a NUL after
    /// whole records is at its line and column.
    #[test]
    fn a_nul_byte_is_an_error_at_once() {
        let e = read_pbs_accounting(&[PathBuf::from("/dev/zero")], ReadOptions::default(), None)
            .unwrap_err();
        assert_eq!(e.to_string(), "/dev/zero:1:1: a NUL byte: this is not text");
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("20260101");
        let text = format!("{}ab\0cd\n", job("1.s", ""));
        std::fs::write(&log, &text).unwrap();
        let e = read_pbs_accounting(std::slice::from_ref(&log), ReadOptions::default(), None)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}:4:3: a NUL byte: this is not text", log.display())
        );
    }

    #[test]
    fn a_job_that_ran_0_seconds_is_kept() {
        let zero = job("2.s", "").replace("end=170", "end=110");
        let text = job("1.s", "") + &zero;
        let w = parse_pbs_accounting(text.as_bytes(), "acct", ReadOptions::default()).unwrap();
        let runs: Vec<(&str, i64, i64)> = w
            .jobs
            .iter()
            .map(|j| (j.id.as_str(), j.run, j.walltime))
            .collect();
        assert_eq!(runs, [("1.s", 60, 60), ("2.s", 0, 1)]);
        assert_eq!(
            (w.report.read, w.report.kept, w.report.zero_runtime),
            (2, 2, 1)
        );
        assert!(w.report.dropped.is_empty(), "{:?}", w.report.dropped);
    }

    #[test]
    fn an_ended_id_is_told_from_a_new_one_by_its_exact_text() {
        let late = |id: &str| format!("01/01/2024 00:00:00;E;{id};{C} start=110 end=170\n");
        for (first, again) in [
            ("7.s", "7"),
            ("7[3].s", "7[3].t"),
            ("7[].s", "7[]"),
            ("x7.s", "x7"),
            ("99999999999999999999.s", "99999999999999999999"),
        ] {
            let text = job(first, "") + &late(again);
            let (jobs, report) =
                pbs_accounting_jobs(text.as_bytes(), "acct", ReadOptions { lenient: true })
                    .unwrap();
            assert_eq!(jobs.len(), 1, "{first} then {again}");
            assert_eq!(report.records_skipped["record after the job ended"], 1);
        }
        // Ids that are numbers alike but written otherwise are other jobs.
        for (first, other) in [("7.s", "07"), ("7[3].s", "7[03]"), ("7[3].s", "73")] {
            let text = job(first, "") + &job(other, "");
            let (jobs, _) =
                pbs_accounting_jobs(text.as_bytes(), "acct", ReadOptions::default()).unwrap();
            assert_eq!(jobs.len(), 2, "{first} and {other}");
        }
    }

    #[test]
    fn jobs_sort_by_submit_with_ties_in_the_order_given() {
        // Each job's id is its place as given: submit times with ties, cycles of any length.
        let text = job("0.s", "");
        let one = parse_pbs_accounting(text.as_bytes(), "a", ReadOptions::default())
            .unwrap()
            .jobs
            .remove(0);
        let mut state = 7u64;
        let mut jobs: Vec<_> = (0..500)
            .map(|i| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let mut j = one.clone();
                j.id = format!("{i}.s").as_str().into();
                j.submit = (state >> 33) as i64 % 40;
                j
            })
            .collect();
        let mut expected = jobs.clone();
        expected.sort_by_key(|j| j.submit);
        by_submit(&mut jobs);
        assert_eq!(jobs, expected);
        // Sorted already, and the trivial cases.
        by_submit(&mut jobs);
        assert_eq!(jobs, expected);
        by_submit(&mut jobs[..1]);
        by_submit(&mut []);
    }

    #[test]
    fn the_peak_counts_an_end_before_a_start_at_the_same_second() {
        let held = |start, end, host, cores| Held {
            start,
            end,
            host,
            cores,
        };
        // Host 0: 4 cores from 0 to 10, then 4 from 10 (the first ended): 4 at most. Host 1:
        // 3 cores from 5 to 20 and 2 from 8 to 9 and 2 from 19 to 30: 5.
        let usage = vec![
            held(10, 20, 0, 4),
            held(0, 10, 0, 4),
            held(5, 20, 1, 3),
            held(8, 9, 1, 2),
            held(19, 30, 1, 2),
        ];
        assert_eq!(peak_cores(usage.clone()), 5);
        assert_eq!(peak_cores(usage[..2].to_vec()), 4);
        assert_eq!(peak_cores(vec![held(0, 10, 0, 4), held(9, 20, 0, 4)]), 8);
        assert_eq!(peak_cores(vec![]), 0);
        // A job of no length holds its cores with the others starting in its second, not
        // with the ones ending then, whatever the order the jobs come in.
        let zero = vec![held(0, 10, 0, 4), held(10, 10, 0, 2), held(10, 15, 0, 1)];
        assert_eq!(peak_cores(zero.clone()), 4);
        let mut zero = zero;
        zero.push(held(10, 12, 0, 3));
        assert_eq!(peak_cores(zero.clone()), 6);
        zero.reverse();
        assert_eq!(peak_cores(zero), 6);
    }

    #[test]
    fn the_peak_is_the_most_held_at_any_start_on_any_host() {
        // The definition, second by second: at a holding's start `t` a host holds what began
        // by `t` and ends after it, or began and ended at `t`.
        let reference = |usage: &[Held]| {
            let at = |h: &Held, t: i64| h.start <= t && (h.end > t || h.end == t && h.start == t);
            usage
                .iter()
                .map(|h| {
                    let on = usage.iter().filter(|g| g.host == h.host && at(g, h.start));
                    on.map(|g| i64::from(g.cores)).sum::<i64>()
                })
                .max()
                .unwrap_or(0)
        };
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for case in 0..300 {
            let (hosts, times) = (1 + next(6), 1 + next(30));
            let usage: Vec<Held> = (0..next(40))
                .map(|_| {
                    let start = next(times) as i64;
                    Held {
                        start,
                        end: start + next(8) as i64,
                        // Hosts not all used, not in order.
                        host: (next(hosts) * 3 % 7) as u32,
                        cores: 1 + next(4) as u32,
                    }
                })
                .collect();
            assert_eq!(
                peak_cores(usage.clone()),
                reference(&usage),
                "case {case}: {usage:?}"
            );
        }
    }
}
