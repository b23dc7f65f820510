//! A job as its accounting records give it ([`PbsJob`]), and the [`JobSpec`] of the job the
//! simulator runs from it (the rules are in the module doc of `pbs_accounting`).

use super::record::same;
use super::request::{
    Chunk, HostCores, NodeSpec, PlaceSpec, each_exec_host, each_exec_vnode, parse_exec_host,
    parse_exec_vnode, parse_nodes, parse_place, parse_select, select_request, select_shape,
};
use crate::input::units::{digits, parse_plain_number, parse_size, parse_time};
use crate::workload::{JobId, JobSpec, Name, Names, Request, Select, count};
use rustc_hash::{FxHashMap, FxHasher};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Where a record is: the file as named in errors and its 1-based line.
#[derive(Debug, Clone, Copy)]
pub struct Where<'a> {
    pub file: &'a str,
    pub line: usize,
}

/// An array job's part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayRole {
    /// `123[]`: the array job itself.
    Parent,
    /// `123[k]`: one subjob.
    Subjob(u64),
}

/// How a job's records end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Its `E` record.
    Ended,
    /// `D` before any start.
    DeletedQueued,
    /// `A` before any start.
    AbortedQueued,
    /// Still queued at the end of the logs.
    QueuedAtEnd,
    /// Started and without an `E` at the end of the logs.
    RunningAtEnd,
}

/// A job as its records give it (each later record's values replace the earlier ones).
#[derive(Debug, Clone, PartialEq)]
pub struct PbsJob {
    /// The id as first written (with its server suffix when it had one).
    pub id: JobId,
    pub array: Option<ArrayRole>,
    /// `array_indices` of an array parent (`1-10:2`).
    pub array_indices: Option<String>,
    /// The names a workload's jobs share (one text each: [`crate::workload::Names`]).
    pub user: Option<Name>,
    pub group: Option<Name>,
    pub account: Option<Name>,
    pub project: Option<Name>,
    pub queue: Option<Name>,
    pub jobname: Option<String>,
    /// Epoch seconds: created, entered the current queue, became eligible (`etime=0`: not).
    pub ctime: Option<i64>,
    pub qtime: Option<i64>,
    pub etime: Option<i64>,
    /// `eligible_time` (seconds of eligible wait) when the server accrues it.
    pub eligible_time: Option<i64>,
    /// The last run's start and end (epoch seconds).
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub exit_status: Option<i64>,
    /// `run_count` as logged (0 when no record gave it).
    pub run_count: u32,
    /// `S`/`T` records seen, and `R` records (runs lost to a rerun).
    pub starts: u32,
    pub reruns: u32,
    /// A `D` or `A` came while it ran.
    pub deleted_while_running: bool,
    /// Every `Resource_List.<r>` value as written (the resources' names shared).
    pub resource_list: BTreeMap<Name, String>,
    pub exec_vnode: Option<String>,
    pub exec_host: Option<String>,
    pub fate: Fate,
}

impl PbsJob {
    pub(super) fn new(id: &str, array: Option<ArrayRole>) -> PbsJob {
        PbsJob {
            id: id.into(),
            array,
            array_indices: None,
            user: None,
            group: None,
            account: None,
            project: None,
            queue: None,
            jobname: None,
            ctime: None,
            qtime: None,
            etime: None,
            eligible_time: None,
            start: None,
            end: None,
            exit_status: None,
            run_count: 0,
            starts: 0,
            reruns: 0,
            deleted_while_running: false,
            resource_list: BTreeMap::new(),
            exec_vnode: None,
            exec_host: None,
            fate: Fate::QueuedAtEnd,
        }
    }

    /// `Resource_List.select`, parsed.
    pub fn select(&self) -> Result<Option<Vec<Chunk>>, String> {
        self.parsed("select", parse_select)
    }

    /// `Resource_List.place`, parsed.
    pub fn place(&self) -> Result<Option<PlaceSpec>, String> {
        self.parsed("place", parse_place)
    }

    /// Torque's `Resource_List.nodes`, parsed.
    pub fn nodes(&self) -> Result<Option<Vec<NodeSpec>>, String> {
        self.parsed("nodes", parse_nodes)
    }

    /// [`PbsJob::allocation`] piece by piece (host, cores; a host possibly more than once),
    /// without building the list.
    pub fn each_allocation(&self, piece: impl FnMut(&str, u32)) -> Result<(), String> {
        if let Some(v) = &self.exec_vnode {
            each_exec_vnode(v, piece).map_err(|e| format!("`exec_vnode`: {e}"))
        } else if let Some(h) = &self.exec_host {
            each_exec_host(h, piece).map_err(|e| format!("`exec_host`: {e}"))
        } else {
            Ok(())
        }
    }

    /// The cores it held per host: `exec_vnode`, else `exec_host` (empty when neither).
    pub fn allocation(&self) -> Result<Vec<HostCores>, String> {
        if let Some(v) = &self.exec_vnode {
            parse_exec_vnode(v).map_err(|e| format!("`exec_vnode`: {e}"))
        } else if let Some(h) = &self.exec_host {
            parse_exec_host(h).map_err(|e| format!("`exec_host`: {e}"))
        } else {
            Ok(vec![])
        }
    }

    fn parsed<T>(
        &self,
        r: &str,
        parse: fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, String> {
        parsed(&self.resource_list, r, parse)
    }

    /// What the simulator runs: `Ok(Err(reason))` when the job is not one it can run.
    /// Its `Resource_List` values are `rl` (the joiner's list, before they are a map);
    /// `selects` parses each distinct `select` once for the read.
    pub(super) fn sim_job(
        &self,
        rl: &Requests,
        cores_held: u64,
        selects: &mut Selects,
    ) -> Result<Result<JobSpec, &'static str>, String> {
        if self.array == Some(ArrayRole::Parent) {
            return Ok(Err("array parent (its subjobs are the jobs)"));
        }
        let (Some(start), Some(end)) = (self.start, self.end) else {
            return Ok(Err("E without a start"));
        };
        let Some(submit) = self.qtime.or(self.ctime) else {
            return Err("no `qtime` or `ctime`".into());
        };
        let run = end - start;
        // A job that ran 0 seconds is kept (it started); one that ends before it started
        // is not a run.
        if run < 0 {
            return Ok(Err("runtime < 0"));
        }
        let ncpus = whole(rl, "ncpus")?;
        let nodect = whole(rl, "nodect")?;
        // `select` and `place` as read once for every job that asks the same.
        let place_text = rl.requested("place");
        let shared = rl
            .requested("select")
            .map(|text| selects.get(text, place_text));
        let in_rl = |r: &str, e: &String| format!("`Resource_List.{r}`: {e}");
        // The chunks in all and whether they are alike: all a request needs of `select`.
        let select = match shared {
            Some(s) => Some(s.shape.as_ref().map_err(|e| in_rl("select", e))?),
            None => None,
        };
        let own_place;
        let place = match shared {
            Some(s) => s
                .place
                .as_ref()
                .map(|p| p.as_ref().map_err(|e| in_rl("place", e))),
            None => {
                own_place = parsed(rl, "place", parse_place)?;
                own_place.as_ref().map(Ok)
            }
        }
        .transpose()?;
        let request = if let Some(parts) = parsed(rl, "nodes", parse_nodes)? {
            let nodes: u32 = parts.iter().map(|p| p.count).sum();
            let cores: u64 = parts.iter().map(|p| p.count as u64 * p.ppn as u64).sum();
            if parts.iter().all(|p| p.ppn == parts[0].ppn) && nodes > 0 {
                Some(Request::Nodes {
                    nodes,
                    cores: parts[0].ppn,
                })
            } else {
                Some(Request::Procs(count(cores as f64).map_err(|e| e.reason)?))
            }
        } else if let Some(c) = ncpus.filter(|&c| c > 0) {
            let n = nodect.or(select.map(|&(chunks, _)| chunks)).unwrap_or(1);
            let arrangement = place.and_then(|p| p.arrangement.as_deref());
            let equal = select.is_none_or(|&(_, equal)| equal);
            if n <= 1 || arrangement == Some("pack") {
                Some(Request::Nodes { nodes: 1, cores: c })
            } else if arrangement == Some("scatter") && equal && c % n == 0 {
                Some(Request::Nodes {
                    nodes: n,
                    cores: c / n,
                })
            } else {
                Some(Request::Procs(c))
            }
        } else if cores_held > 0 {
            Some(Request::Procs(
                count(cores_held as f64).map_err(|e| e.reason)?,
            ))
        } else {
            None
        };
        // Chunks that ask for more than cores (memory, GPUs, a custom resource) or for
        // exclusive nodes are placed as written, and so is a `select` without
        // `ncpus` or an allocation; the others keep the shapes above, which a machine of
        // cores alone places as it always has.
        let chunks = match shared {
            Some(shared) => {
                let s = shared.parsed.as_ref().map_err(|e| in_rl("select", e))?;
                (s.asks_beyond_cores() || request.is_none() && s.total("ncpus") > 0)
                    .then(|| Request::Select(Arc::clone(s)))
            }
            None => None,
        };
        let Some(request) = chunks.or(request) else {
            return Ok(Err("no processors"));
        };
        let walltime = parsed(rl, "walltime", parse_time)?
            .map(|s| s.round() as i64)
            .filter(|&s| s > 0);
        let mem = parsed(rl, "mem", parse_size)?.unwrap_or(0.0);
        let mut resources = BTreeMap::new();
        for (r, v) in rl.iter() {
            const OWN: [&str; 8] = [
                "ncpus",
                "nodect",
                "walltime",
                "mem",
                "select",
                "place",
                "nodes",
                "neednodes",
            ];
            if OWN.contains(&r.as_str()) {
                continue;
            }
            if let Some(n) = numeric(v) {
                resources.insert(r.to_string(), n);
            }
        }
        Ok(Ok(JobSpec {
            id: self.id.clone(),
            submit,
            run,
            // No requested time: the run time stands in (at least the 1 s a request is).
            walltime: walltime.unwrap_or(run.max(1)),
            walltime_given: walltime.is_some(),
            request,
            mem,
            user: self.user.clone().unwrap_or_else(|| "unknown".into()),
            group: self.group.clone().unwrap_or_else(|| "unknown".into()),
            account: self.account.clone().unwrap_or_default(),
            qos: "".into(),
            queue: self.queue.clone().unwrap_or_else(|| "default".into()),
            queue_priority: 0.0,
            resources,
            recorded_start: Some(start),
        }))
    }
}

/// A job's `Resource_List` values as its records give them (a later value replaces an
/// earlier one), in the order first written. Records repeat them in one order, so the n-th
/// of a record is looked for at n first: one compare, where a map of names takes several.
/// The resources' names are shared ([`Names`]); the values are spans of one text per job
/// (two allocations a job, not one per value), a replaced value's bytes left in it.
#[derive(Default)]
pub struct Requests {
    /// Each resource and its value's span in `text`.
    list: Vec<(Name, usize, usize)>,
    text: String,
}

impl Requests {
    fn value(&self, span: (usize, usize)) -> &str {
        &self.text[span.0..span.1]
    }

    /// The values in the order first written.
    pub fn iter(&self) -> impl Iterator<Item = (&Name, &str)> {
        self.list.iter().map(|(r, a, b)| (r, self.value((*a, *b))))
    }

    pub(super) fn set(&mut self, nth: usize, r: &str, v: &str, names: &mut Names) {
        let at = match self.list.get(nth) {
            Some((k, ..)) if same(k, r) => Some(nth),
            _ => self.list.iter().position(|(k, ..)| same(k, r)),
        };
        if let Some(i) = at {
            let (_, a, b) = self.list[i];
            if same(self.value((a, b)), v) {
                return;
            }
        }
        if self.text.capacity() == 0 {
            // Room for a usual job's values (a select, a place, a few numbers).
            self.text.reserve(96);
        }
        let a = self.text.len();
        self.text.push_str(v);
        let span = (a, self.text.len());
        match at {
            Some(i) => (self.list[i].1, self.list[i].2) = span,
            None => {
                if self.list.capacity() == 0 {
                    self.list.reserve(8);
                }
                self.list.push((names.get(r), span.0, span.1))
            }
        }
    }
}

/// A job's `Resource_List` values by name: its map ([`PbsJob::resource_list`]), or the
/// joiner's list of them in the order written (a job has a handful: a look along it costs
/// less than building a map).
trait Requested {
    fn requested(&self, r: &str) -> Option<&str>;
}

impl Requested for BTreeMap<Name, String> {
    fn requested(&self, r: &str) -> Option<&str> {
        self.get(r).map(String::as_str)
    }
}

impl Requested for Requests {
    fn requested(&self, r: &str) -> Option<&str> {
        self.iter().find(|(k, _)| same(k, r)).map(|(_, v)| v)
    }
}

/// `Resource_List.<r>` parsed, `None` when not given.
fn parsed<T>(
    list: &(impl Requested + ?Sized),
    r: &str,
    parse: fn(&str) -> Result<T, String>,
) -> Result<Option<T>, String> {
    list.requested(r)
        .map(|v| parse(v).map_err(|e| format!("`Resource_List.{r}`: {e}")))
        .transpose()
}

/// `Resource_List.<r>` as a whole number.
fn whole(list: &(impl Requested + ?Sized), r: &str) -> Result<Option<u32>, String> {
    parsed(list, r, |v| {
        digits(v)
            .map(|n| n as f64)
            .or_else(|| v.parse::<f64>().ok())
            .filter(|n| n.fract() == 0.0 && *n >= 0.0)
            .ok_or_else(|| format!("`{v}` is not a whole number"))
            .and_then(|n| count(n).map_err(|e| e.reason))
    })
}

/// Each distinct `select` and `place` of a read, parsed once and shared by every job that
/// asks the same: a site's jobs ask in a few shapes, and a parse costs a few allocations.
/// Keyed by the texts' hash; the texts are compared.
#[derive(Default)]
pub(super) struct Selects(FxHashMap<u64, Vec<SharedSelect>>);

/// One `select` and `place` as read: each parse's answer, an error included (the job that
/// asks it gives the error where it would have parsed it).
struct SharedSelect {
    select: Box<str>,
    place_text: Option<Box<str>>,
    /// [`select_shape`]: the chunks in all and whether they are alike.
    shape: Result<(u32, bool), String>,
    /// [`parse_place`], when there is a `place`.
    place: Option<Result<PlaceSpec, String>>,
    /// [`select_request`]: the chunks as the simulator places them.
    parsed: Result<Arc<Select>, String>,
}

impl Selects {
    fn get(&mut self, select: &str, place: Option<&str>) -> &SharedSelect {
        let mut h = FxHasher::default();
        (select, place).hash(&mut h);
        let alike = self.0.entry(h.finish()).or_default();
        let found = alike
            .iter()
            .position(|s| *s.select == *select && s.place_text.as_deref() == place);
        let at = found.unwrap_or_else(|| {
            alike.push(SharedSelect {
                select: select.into(),
                place_text: place.map(Into::into),
                shape: select_shape(select),
                place: place.map(parse_place),
                parsed: select_request(select, place).map(Arc::new),
            });
            alike.len() - 1
        });
        &alike[at]
    }
}

/// A resource value as the number a formula sees (`res_to_num`): a plain number, a
/// duration in seconds, or a size in KB; `None` for text.
fn numeric(v: &str) -> Option<f64> {
    if let Some(n) = parse_plain_number(v) {
        return Some(n);
    }
    let digit_first = v.bytes().next().is_some_and(|b| b.is_ascii_digit());
    if !digit_first {
        return None;
    }
    if v.contains(':') {
        parse_time(v).ok()
    } else {
        parse_size(v).ok()
    }
}
