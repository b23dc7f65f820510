//! Slurm `sacct --parsable2` (`-P`) dumps as workloads (Slurm 22.05; facts and sources in
//! `shared/reference/scheduler_data.md` §2).
//!
//! A dump to read: `TZ=UTC sacct --allusers --parsable2 --allocations --duplicates
//! --format jobid,submit,start,end,state,timelimit,nnodes,ncpus,reqtres,alloctres,reqmem,user,
//! group,account,partition,qos,nodelist -S 2026-01-01 -E 2026-04-01 > sacct.txt`.
//!
//! - **Columns** come from the header line (`JobID|Submit|...`, any order, names as sacct's
//!   field table spells them, any case); other columns are skipped. A dump without a header
//!   (`--noheader`) needs them given ([`SacctOptions::fields`]; the preset `xdmod` is XDMoD's
//!   26 fields, [`XDMOD_FIELDS`]). `-p` (a `|` after the last field) is recognised from the
//!   header. A `|` inside the last column when it is `JobName` is taken as part of the name
//!   (sacct does not escape it, `print_fields_str`).
//! - **Rows**: one per job allocation (`-X`). Steps (`123.batch`, `123.extern`, `123.0`) are not
//!   jobs: counted as records skipped ([`LoadReport::records_skipped`]), not as jobs read.
//!   Array tasks (`123_4`) and het job components (`123+0`) are jobs of their own, by their
//!   `JobID`. Array tasks still pending as one record (`123_[1-3]`),
//!   `PENDING` jobs, jobs that ended without starting (`Start=Unknown`), and jobs still
//!   `RUNNING`/`SUSPENDED`/`RESIZING` (no end yet) are counted and not simulated; so are the
//!   earlier runs of a requeued job that `--duplicates` lists (`REQUEUED`, or `PREEMPTED` when
//!   the same id comes again: the later record is the job) and `REVOKED` federation siblings.
//! - **Times** (`Submit`, `Start`, `End`) are `YYYY-MM-DDTHH:MM:SS` in the local time of the
//!   machine that ran sacct (`slurm_make_time_str` calls `localtime_r`). They are read as UTC
//!   plus [`SacctOptions::utc_offset`] (default 0): take the dump with `TZ=UTC`, as XDMoD
//!   asks. A zone with summer time has no one offset, and its autumn hour is printed twice, so
//!   such a dump can show an end before its start (a bad record). `Unknown` and `None` are no
//!   time. The run time is `End − Start` (the time the allocation was held); the recorded start
//!   is `Start`. `Eligible` is not used (a job has one submit time in the simulator).
//! - **Sizes**: cores and nodes from `AllocTRES` (`cpu`, `node`), else `NCPUS`/`AllocCPUS` and
//!   `NNodes`, else `ReqTRES`, else `ReqCPUS`. Memory (KB) from `ReqTRES` `mem`, else `ReqMem`
//!   (the job's total in 22.05; `Mc` per CPU and `Mn` per node up to 20.11), else
//!   `AllocTRES`. GPUs (`gres/gpu` of AllocTRES, else ReqTRES) are the resource `ngpus`.
//!   `Timelimit` (`[D-]HH:MM:SS`, `MM:SS`, `UNLIMITED`, `Partition_Limit`) or `TimelimitRaw`
//!   (minutes) is the requested time; without one the run time stands in.
//! - **Shapes**, as `select/cons_tres` allocates them ([`slurm_request`]): the
//!   cores the same on every node, `nodes × cores`; GPUs that divide over the nodes, one
//!   chunk per node with its cores, GPUs and memory, scattered; cores that do not divide
//!   with per-node memory (`Mn`) or GPUs, chunks of `⌈cores/nodes⌉` and `⌊cores/nodes⌋`
//!   cores, scattered, each with its node's memory; else the cores placed anywhere. The
//!   memory of the other shapes is placed by the one rule ([`super::shape`]) on a machine
//!   with memory: per node for `nodes × cores` (a total over equal nodes is the per-node and
//!   the per-CPU request both), per CPU for cores anywhere. sacct's parsable fields give no
//!   tasks or CPUs per task of an allocation (`NTasks` is a step's; `--json` has them), so
//!   the shape is the allocation's CPUs over its nodes.
//! - **Entities**: user = `User` (else `UID`), group = `Group` (else `GID`), queue =
//!   `Partition` (empty: `default`; the partition is the job's queue), account = `Account`,
//!   qos = `QOS` (each empty when the dump has no such column or value: Slurm then uses the
//!   user's default account and that association's default QOS, which sacct would have
//!   printed).
//! - **Cluster size**: sacct has none. It is told from the jobs' `NodeList` (distinct nodes)
//!   and cores per node ([`Census`]), and said so in [`Workload::machine_derived`].
//! - **Bad records** (a truncated last line, a wrong number of columns, an unparsable value or
//!   time, a duplicated job id, an end before the start or a start before the submit) stop
//!   the read with `file:line: column NAME: reason`; with [`ReadOptions::lenient`] they are
//!   skipped and counted per reason. Every row that is not made a job is counted in
//!   [`LoadReport::dropped`] by why: `read = kept + dropped`.
//!
//! The dump is read line by line ([`read_sacct`] from any reader): memory grows with the jobs
//! kept, not the rows.

mod values;

use super::job::*;
use super::site_log::{BadRecord, Census, reject};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::io::BufRead;

/// The request of a job of `cpus` CPUs on `nodes` nodes (AllocTRES `node`, else NNodes)
/// with `gpus` GPUs (`gres/gpu`) and memory `mem` (ReqMem's shape; ReqTRES `mem` is a
/// total), as Slurm's `select/cons_tres` allocates it: on each node its CPUs, its share of
/// the GPUs and the memory that node holds for the job (`--mem` on every node,
/// `--mem-per-cpu` for each CPU allocated there, `sbatch(1)`).
///
/// - The CPUs the same on every node, no GPUs: `nodes × cores` (its memory is then placed
///   by the one rule, [`super::shape`]: `total / nodes` on each node, which is the
///   per-node and the per-CPU request exactly).
/// - GPUs that divide over the nodes: one chunk per node with its CPUs, GPUs and memory,
///   scattered (Slurm's nodes are distinct), so a machine with GPUs places it on nodes
///   with GPUs.
/// - CPUs that do not divide over the nodes (sacct does not say which node held how many:
///   they are taken as even as they go, `⌈cpus/nodes⌉` on the first `cpus mod nodes`
///   nodes) with per-node memory (`Mn`) or GPUs: chunks of each size, scattered, each node
///   with its memory (per node: the amount; per CPU or a total: its CPUs' share).
/// - Otherwise the CPUs placed anywhere (`Procs`; its memory, by the rule, per CPU); GPUs
///   that do not divide over the nodes are then not scheduled.
fn slurm_request(cpus: u32, nodes: Option<u32>, gpus: Option<u64>, mem: ReqMem) -> Request {
    use super::shape::{chunks, part};
    use crate::model::machine::{MEM, NCPUS, NGPUS};
    use crate::model::place::Arrangement;
    let Some(n) = nodes.filter(|&n| n > 0 && n <= cpus) else {
        return Request::Procs(cpus);
    };
    let (q, r) = (cpus / n, cpus % n);
    let gpus_per_node = gpus
        .filter(|&g| g > 0 && g % u64::from(n) == 0)
        .map(|g| g / u64::from(n));
    let per_node_mem = matches!(mem, ReqMem::PerNode(m) if m > 0.0);
    match (gpus_per_node, r) {
        (None, 0) => return Request::Nodes { nodes: n, cores: q },
        (None, _) if !per_node_mem => return Request::Procs(cpus),
        _ => {}
    }
    let mem_on = |cores: u32| {
        let kb = match mem {
            ReqMem::PerNode(m) => m,
            ReqMem::PerCpu(m) => m * f64::from(cores),
            ReqMem::Total(t) => t * f64::from(cores) / f64::from(cpus),
        };
        kb.max(0.0).ceil() as u64
    };
    let gpus = gpus_per_node.unwrap_or(0);
    let parts = [(r, q + 1), (n - r, q)]
        .into_iter()
        .filter(|&(count, _)| count > 0)
        .map(|(count, cores)| {
            part(
                count,
                &[
                    (NCPUS, u64::from(cores)),
                    (NGPUS, gpus),
                    (MEM, mem_on(cores)),
                ],
            )
        })
        .collect();
    chunks(parts, Arrangement::Scatter)
}
pub use values::{JobIdKind, JobState, ReqMem, Tres, duration, time_stamp, utc_offset};

/// XDMoD's `sacct` fields (`ubccr/xdmod` `docs/resource-manager-slurm.md`), the columns of
/// its headerless dumps (`--sacct-fields xdmod`).
pub const XDMOD_FIELDS: &str = "jobid,jobidraw,cluster,partition,qos,account,group,gid,user,uid,\
submit,eligible,start,end,elapsed,exitcode,state,nnodes,ncpus,reqcpus,reqmem,reqtres,alloctres,\
timelimit,nodelist,jobname";

/// How to read a sacct dump beyond its text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SacctOptions {
    /// The columns of a dump without a header line, in order (sacct field names).
    pub fields: Option<Vec<String>>,
    /// The offset east of UTC, in seconds, of the zone sacct printed its times in.
    pub utc_offset: i64,
}

impl SacctOptions {
    /// The columns of a `--format`-style list (`jobid,submit,...`), or `xdmod` for
    /// [`XDMOD_FIELDS`].
    pub fn fields_of(list: &str) -> Vec<String> {
        let list = if list.eq_ignore_ascii_case("xdmod") {
            XDMOD_FIELDS
        } else {
            list
        };
        list.split(',').map(|f| f.trim().to_string()).collect()
    }
}

/// Parse a sacct dump held in memory (see the module doc). `file` names it in errors.
pub fn parse_sacct(
    text: &str,
    file: &str,
    read: ReadOptions,
    sacct: &SacctOptions,
) -> Result<Workload, WorkloadError> {
    let mut r = SacctReader::new(file, read, sacct);
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let (line, ended) = match line.strip_suffix('\n') {
            Some(l) => (l, true),
            None => (line, false),
        };
        r.line(i + 1, line.strip_suffix('\r').unwrap_or(line), ended)?;
    }
    r.finish()
}

/// Read a sacct dump line by line from `input` (see the module doc).
pub fn read_sacct(
    mut input: impl BufRead,
    file: &str,
    read: ReadOptions,
    sacct: &SacctOptions,
) -> Result<Workload, WorkloadError> {
    let mut r = SacctReader::new(file, read, sacct);
    let mut buf = String::new();
    let mut lineno = 0;
    loop {
        buf.clear();
        let n = input.read_line(&mut buf).map_err(|e| WorkloadError::Io {
            file: file.to_string(),
            message: format!("line {}: {e}", lineno + 1),
        })?;
        if n == 0 {
            break;
        }
        lineno += 1;
        let (line, ended) = match buf.strip_suffix('\n') {
            Some(l) => (l, true),
            None => (buf.as_str(), false),
        };
        r.line(lineno, line.strip_suffix('\r').unwrap_or(line), ended)?;
    }
    r.finish()
}

/// The columns the reader uses, as indices into [`COLUMNS`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    JobId,
    Submit,
    Start,
    End,
    State,
    Timelimit,
    TimelimitRaw,
    NNodes,
    NCpus,
    ReqCpus,
    ReqMem,
    ReqTres,
    AllocTres,
    User,
    Uid,
    Group,
    Gid,
    Partition,
    Account,
    Qos,
    NodeList,
    JobName,
}

const NCOLS: usize = Col::JobName as usize + 1;

/// sacct's field names (`src/sacct/sacct.c`, `fields[]`) of the columns read. `AllocCPUS` is
/// `NCPUS` under another name (both `PRINT_ALLOC_CPUS`).
const COLUMNS: [(&str, Col); 23] = [
    ("JobID", Col::JobId),
    ("Submit", Col::Submit),
    ("Start", Col::Start),
    ("End", Col::End),
    ("State", Col::State),
    ("Timelimit", Col::Timelimit),
    ("TimelimitRaw", Col::TimelimitRaw),
    ("NNodes", Col::NNodes),
    ("NCPUS", Col::NCpus),
    ("AllocCPUS", Col::NCpus),
    ("ReqCPUS", Col::ReqCpus),
    ("ReqMem", Col::ReqMem),
    ("ReqTRES", Col::ReqTres),
    ("AllocTRES", Col::AllocTres),
    ("User", Col::User),
    ("UID", Col::Uid),
    ("Group", Col::Group),
    ("GID", Col::Gid),
    ("Partition", Col::Partition),
    ("Account", Col::Account),
    ("QOS", Col::Qos),
    ("NodeList", Col::NodeList),
    ("JobName", Col::JobName),
];

/// A dump's layout: where each column read is, how many there are, their names.
#[derive(Debug)]
struct Layout {
    at: [Option<usize>; NCOLS],
    names: Vec<String>,
    /// `-p`: every line ends in a `|`.
    trailing_bar: bool,
}

impl Layout {
    fn new(names: Vec<String>, trailing_bar: bool) -> Result<Layout, String> {
        let mut at = [None; NCOLS];
        for (i, n) in names.iter().enumerate() {
            if let Some((_, c)) = COLUMNS
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(n))
            {
                at[*c as usize].get_or_insert(i);
            }
        }
        let missing: Vec<&str> = [
            ("JobID", Col::JobId),
            ("Submit", Col::Submit),
            ("Start", Col::Start),
            ("End", Col::End),
            ("State", Col::State),
        ]
        .iter()
        .filter(|(_, c)| at[*c as usize].is_none())
        .map(|(n, _)| *n)
        .collect();
        if !missing.is_empty() {
            return Err(format!("no {} column", missing.join(", ")));
        }
        let sizes = [Col::AllocTres, Col::NCpus, Col::ReqTres, Col::ReqCpus];
        if sizes.iter().all(|c| at[*c as usize].is_none()) {
            return Err(
                "no column of cores (AllocTRES, NCPUS, AllocCPUS, ReqTRES or ReqCPUS)".into(),
            );
        }
        Ok(Layout {
            at,
            names,
            trailing_bar,
        })
    }

    /// The column as the dump spells it (else as sacct does).
    fn name(&self, c: Col) -> &str {
        match self.at[c as usize] {
            Some(i) => &self.names[i],
            None => COLUMNS
                .iter()
                .find(|(_, k)| *k == c)
                .map_or("?", |(n, _)| n),
        }
    }
}

/// What a data row is: a job's (kept or dropped, counted in [`LoadReport::read`]) or a job
/// step's (a record of a job's allocation, not a job: [`LoadReport::records_skipped`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Row {
    Job,
    Step,
}

/// The reason an earlier run of a requeued job is not a job.
const REQUEUED: &str = "requeued run (the later record is the job)";

/// A job kept: where it came from.
#[derive(Debug, Clone, Copy)]
struct Kept {
    line: usize,
    index: usize,
    preempted: bool,
}

/// Whether a line is a header: it names the `JobID` or `JobIDRaw` column (a row never does).
fn is_header(line: &str) -> bool {
    line.split('|')
        .any(|f| f.eq_ignore_ascii_case("JobID") || f.eq_ignore_ascii_case("JobIDRaw"))
}

/// The state of one read.
struct SacctReader<'a> {
    file: &'a str,
    read: ReadOptions,
    sacct: &'a SacctOptions,
    layout: Option<Layout>,
    /// The byte ranges of the current line's fields.
    spans: Vec<(usize, usize)>,
    w: Workload,
    /// Job id → the line it was kept from, its index in the jobs, whether it was PREEMPTED.
    seen: FxHashMap<String, Kept>,
    /// Jobs (indices) a later record of the same id replaced.
    replaced: Vec<usize>,
    horizon: Horizon,
    census: Census,
    /// The users', groups' and partitions' names, one text each.
    names: Names,
}

impl<'a> SacctReader<'a> {
    fn new(file: &'a str, read: ReadOptions, sacct: &'a SacctOptions) -> Self {
        SacctReader {
            file,
            read,
            sacct,
            layout: None,
            spans: Vec::new(),
            w: Workload::default(),
            seen: FxHashMap::default(),
            replaced: Vec::new(),
            horizon: Horizon::default(),
            census: Census::default(),
            names: Names::default(),
        }
    }

    fn line(&mut self, lineno: usize, line: &str, ended: bool) -> Result<(), WorkloadError> {
        if line.trim().is_empty() {
            return Ok(());
        }
        let layout = match self.layout.take() {
            Some(l) => l,
            None => {
                let header = is_header(line);
                let (names, bar) = if header {
                    let bar = line.ends_with('|');
                    let body = if bar { &line[..line.len() - 1] } else { line };
                    (body.split('|').map(str::to_string).collect(), bar)
                } else if let Some(f) = &self.sacct.fields {
                    (f.clone(), false)
                } else {
                    let n = line.split('|').count();
                    let hint = if n == 26 {
                        " (its 26 columns are those of XDMoD's dump: `--sacct-fields xdmod`)"
                    } else {
                        ""
                    };
                    return Err(WorkloadError::Line {
                        file: self.file.into(),
                        line: lineno,
                        reason: format!(
                            "no header line (`JobID|Submit|...`): give the {n} columns with \
                             --sacct-fields{hint}"
                        ),
                    });
                };
                let layout = Layout::new(names, bar).map_err(|e| WorkloadError::Line {
                    file: self.file.into(),
                    line: lineno,
                    reason: if header {
                        format!("the header has {e}")
                    } else {
                        format!("--sacct-fields: {e}")
                    },
                })?;
                if header {
                    self.layout = Some(layout);
                    return Ok(());
                }
                layout
            }
        };
        let result = self.row(&layout, lineno, line, ended);
        self.layout = Some(layout);
        match result {
            Ok(Row::Job) => {
                self.w.report.read += 1;
                Ok(())
            }
            Ok(Row::Step) => Ok(()),
            Err(bad) => {
                self.w.report.read += 1;
                reject(bad, self.read, self.file, &mut self.w.report)
            }
        }
    }

    /// One data row: a kept job, a counted skip, or a bad record.
    fn row(
        &mut self,
        layout: &Layout,
        lineno: usize,
        line: &str,
        ended: bool,
    ) -> Result<Row, BadRecord> {
        let spans = &mut self.spans;
        spans.clear();
        let mut at = 0;
        for field in line.split('|') {
            spans.push((at, at + field.len()));
            at += field.len() + 1;
        }
        if layout.trailing_bar && spans.len() > 1 && spans.last().is_some_and(|(s, e)| s == e) {
            spans.pop();
        }
        let (found, expected) = (spans.len(), layout.names.len());
        let job_name_last = layout.at[Col::JobName as usize] == Some(expected - 1);
        if found == expected || found > expected && job_name_last {
            let spans = std::mem::take(&mut self.spans);
            let result = self.job(layout, lineno, line, &spans);
            self.spans = spans;
            result
        } else if !ended && found < expected {
            Err(BadRecord::new(
                lineno,
                "truncated last line",
                format!(
                    "the last line has no line feed and {found} of the {expected} columns: the \
                     file was cut short"
                ),
            ))
        } else {
            Err(BadRecord::new(
                lineno,
                "wrong number of columns",
                format!("{found} columns, expected {expected}"),
            ))
        }
    }

    fn job(
        &mut self,
        layout: &Layout,
        lineno: usize,
        line: &str,
        spans: &[(usize, usize)],
    ) -> Result<Row, BadRecord> {
        let get = |c: Col| {
            layout.at[c as usize].map_or("", |i| {
                let (s, e) = spans[i];
                &line[s..e]
            })
        };
        let bad = |c: Col, kind: &'static str, detail: String| {
            BadRecord::new(lineno, kind, detail).in_column(layout.name(c))
        };
        let value = |c: Col, e: String| bad(c, "unparsable value", e);
        let time = |c: Col| {
            time_stamp(get(c), self.sacct.utc_offset).map_err(|e| bad(c, "unparsable time", e))
        };
        let whole = |c: Col| values::whole(get(c)).map_err(|e| value(c, e));
        let id = get(Col::JobId);
        match JobIdKind::of(id).map_err(|e| value(Col::JobId, e))? {
            JobIdKind::Step => {
                self.w.report.skip_record("job step (not a job)");
                return Ok(Row::Step);
            }
            JobIdKind::PendingArray => {
                self.w
                    .report
                    .drop_job(id, "pending array tasks (never started)");
                return Ok(Row::Job);
            }
            JobIdKind::Job => {}
        }
        let state_text = get(Col::State);
        let state = JobState::parse(state_text).map_err(|e| value(Col::State, e))?;
        let submit = time(Col::Submit)?;
        let start = time(Col::Start)?;
        let end = time(Col::End)?;
        let skip = match state {
            JobState::Pending => Some("pending (never started)"),
            JobState::Running | JobState::Suspended | JobState::Resizing => {
                Some("running (not ended)")
            }
            JobState::Requeued => Some(REQUEUED),
            JobState::Revoked => Some("revoked (a federated sibling)"),
            _ if start.is_none() => Some("never started (ended before it ran)"),
            _ => None,
        };
        if let Some(reason) = skip {
            self.w.report.drop_job(id, reason);
            return Ok(Row::Job);
        }
        let (Some(start), Some(submit)) = (start, submit) else {
            return Err(bad(
                Col::Submit,
                "missing time",
                format!("a job that ran ({state_text}) has no submit time"),
            ));
        };
        let end = end.ok_or_else(|| {
            bad(
                Col::End,
                "missing time",
                format!("a job that ended ({state_text}) has no end time"),
            )
        })?;
        if end < start {
            return Err(bad(
                Col::End,
                "end before start",
                format!("{} is before the start {}", get(Col::End), get(Col::Start)),
            ));
        }
        if start < submit {
            return Err(bad(
                Col::Start,
                "start before submit",
                format!(
                    "{} is before the submit {}",
                    get(Col::Start),
                    get(Col::Submit)
                ),
            ));
        }
        let alloc = Tres::parse(get(Col::AllocTres)).map_err(|e| value(Col::AllocTres, e))?;
        let req = Tres::parse(get(Col::ReqTres)).map_err(|e| value(Col::ReqTres, e))?;
        let ncpus = whole(Col::NCpus)?.filter(|&c| c > 0);
        let req_cpus = whole(Col::ReqCpus)?.filter(|&c| c > 0);
        let nnodes = whole(Col::NNodes)?.filter(|&n| n > 0);
        let (cpus, cpus_col) = match (alloc.cpu, ncpus, req.cpu, req_cpus) {
            (Some(c), ..) if c > 0 => (c, Col::AllocTres),
            (_, Some(c), ..) => (c, Col::NCpus),
            (_, _, Some(c), _) if c > 0 => (c, Col::ReqTres),
            (.., Some(c)) => (c, Col::ReqCpus),
            _ => (0, Col::NCpus),
        };
        let nodes = alloc.node.or(nnodes).or(req.node).filter(|&n| n > 0);
        let run = end - start;
        // A job that ran 0 seconds is kept (it started); one that ends before it started
        // is not a run.
        if run < 0 {
            self.w.report.drop_job(id, "runtime < 0");
            return Ok(Row::Job);
        }
        if cpus == 0 {
            self.w.report.drop_job(id, "no processors");
            return Ok(Row::Job);
        }
        let too_many = |what: u64| {
            bad(
                cpus_col,
                "out of range",
                format!("{what} is more than the {} a job may ask for", u32::MAX),
            )
        };
        let cores = u32::try_from(cpus).map_err(|_| too_many(cpus))?;
        let nodes_u32 = nodes
            .map(|n| u32::try_from(n).map_err(|_| too_many(n)))
            .transpose()?;
        let req_mem = ReqMem::parse(get(Col::ReqMem));
        let mem = match (req.mem, &req_mem) {
            (Some(kb), _) => kb,
            (None, Ok(Some(m))) => m.total_kb(nodes.unwrap_or(1), req_cpus.unwrap_or(cpus)),
            (None, Ok(None)) => alloc.mem.unwrap_or(0.0),
            (None, Err(e)) => return Err(value(Col::ReqMem, e.clone())),
        };
        // ReqMem's per-node or per-CPU form says the shape; else the total is what is known.
        let shape = match req_mem {
            Ok(Some(m @ (ReqMem::PerNode(_) | ReqMem::PerCpu(_)))) => m,
            _ => ReqMem::Total(mem),
        };
        let request = slurm_request(cores, nodes_u32, alloc.gpu.or(req.gpu), shape);
        let limit = match layout.at[Col::Timelimit as usize] {
            Some(_) => duration(get(Col::Timelimit)).map_err(|e| value(Col::Timelimit, e))?,
            None => values::raw_minutes(get(Col::TimelimitRaw))
                .map_err(|e| value(Col::TimelimitRaw, e))?,
        };
        let (walltime, walltime_given) = match limit {
            Some(l) if l > 0 => (l, true),
            // No requested time: the run time stands in (at least the 1 s a request is).
            _ => (run.max(1), false),
        };
        let mut resources = BTreeMap::new();
        if let Some(g) = alloc.gpu.or(req.gpu).filter(|&g| g > 0) {
            resources.insert("ngpus".to_string(), g as f64);
        }
        let name = |a: Col, b: Col, default: &'static str| {
            let v = get(a);
            let v = if v.is_empty() { get(b) } else { v };
            if v.is_empty() { default } else { v }
        };
        // A preempted and requeued job's run is logged PREEMPTED, and the job comes again
        // under its id (`_job_requeue_op`, `src/slurmctld/job_mgr.c`; `--duplicates` shows it).
        let earlier = match self.seen.get(id) {
            Some(k) if k.preempted => Some(k.index),
            Some(k) => {
                return Err(bad(
                    Col::JobId,
                    "duplicate job id",
                    format!("job `{id}` again (first on line {})", k.line),
                ));
            }
            None => None,
        };
        let job = JobSpec {
            id: id.into(),
            submit,
            run,
            walltime,
            walltime_given,
            request,
            mem,
            user: self.names.get(name(Col::User, Col::Uid, "unknown")),
            group: self.names.get(name(Col::Group, Col::Gid, "unknown")),
            account: self.names.get(get(Col::Account)),
            qos: self.names.get(get(Col::Qos)),
            queue: self
                .names
                .get(name(Col::Partition, Col::Partition, "default")),
            queue_priority: 0.0,
            resources,
            recorded_start: Some(start),
        };
        self.horizon.add(&job).map_err(|e| {
            let c = match e.field {
                JobField::Submit => Col::Submit,
                JobField::Run | JobField::Start => Col::Start,
                JobField::Walltime => Col::Timelimit,
                JobField::Cores => cpus_col,
            };
            bad(c, "out of range", e.reason)
        })?;
        let nodelist = get(Col::NodeList);
        if !nodelist.is_empty() && nodelist != "None assigned" {
            self.census
                .hosts(nodelist, (start, end), cpus)
                .map_err(|e| value(Col::NodeList, e))?;
        }
        if let Some(index) = earlier {
            self.replaced.push(index);
            self.w.report.drop_job(id, REQUEUED);
        }
        let kept = Kept {
            line: lineno,
            index: self.w.jobs.len(),
            preempted: state == JobState::Preempted,
        };
        self.seen.insert(job.id.to_string(), kept);
        self.w.push_kept(job);
        Ok(Row::Job)
    }

    fn finish(mut self) -> Result<Workload, WorkloadError> {
        if !self.replaced.is_empty() {
            self.replaced.sort_unstable();
            let mut replaced = std::mem::take(&mut self.replaced).into_iter().peekable();
            let mut i = 0;
            self.w.jobs.retain(|_| {
                let gone = replaced.next_if_eq(&i).is_some();
                i += 1;
                !gone
            });
            let jobs = std::mem::take(&mut self.w.jobs);
            let report = &mut self.w.report;
            (report.walltime_from_runtime, report.killed_at_walltime) = (0, 0);
            for job in jobs {
                self.w.push_kept(job);
            }
        }
        let (machine, note) = self.census.machine("NodeList, AllocTRES/NCPUS");
        self.w.machine = machine;
        self.w.machine_derived = note;
        self.w.finish();
        Ok(self.w)
    }
}

#[cfg(test)]
mod tests;
