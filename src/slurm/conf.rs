//! A `slurm.conf` reader with Slurm 22.05's syntax and typed values for what jobsort (and, later,
//! the simulator) reads: every `Priority*` setting, `NodeName` and `PartitionName` lines,
//! `SchedulerType` and the backfill knobs of `SchedulerParameters`.
//!
//! The syntax is `src/common/parse_config.c`'s:
//! * `#` starts a comment unless an odd number of `\` precede it (`_strip_comments`); a line
//!   ending in an odd number of `\` (trailing blanks allowed) continues on the next one
//!   (`_strip_continuation`); then `\x` becomes `x` (`_strip_escapes`). A continued line is
//!   reported at its first line, as `s_p_parse_file` counts.
//! * Keys match `[[:alnum:]_.]+` case-insensitively (`_conf_hashtbl_lookup`: `xstrcasecmp`);
//!   a value is `"quoted with blanks"` or a run of non-blanks (`keyvalue_pattern`).
//! * One `Key=Value` per line, except the record keys (`NodeName`, `PartitionName`,
//!   `FrontendName`, `NodeSet`, `DownNodes`, `SlurmctldHost`) whose line carries the record's
//!   own keys; anything else left on a line is "Parse error in file F line N".
//! * An unknown key is an error: slurmctld logs "Parsing error at unrecognized key" and does
//!   not start (`s_p_parse_line`, `_parse_next_key`). We report it as an error with file:line.
//! * `Include FILE` (case-insensitive) reads FILE in place, relative to the including file's
//!   directory, with `%c` replaced by the lower-cased `ClusterName` (`_parse_include_directive`,
//!   `_parse_for_format`). A key given twice keeps the later value.
//!
//! Values are typed as `src/common/read_config.c` (`_validate_and_set_defaults`,
//! `_parse_nodename`, `_parse_partitionname`) reads them, with its defaults.

use crate::input::hostlist::expand_hostlist;
use crate::input::text::{MAX_CONFIG, escaped, read_text_at_most};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// An error in a `slurm.conf`, with where it is: `file:line: message`, or `file: message` for
/// the file as a whole (line 0: it cannot be read, say).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {}", escaped(file), if *line == 0 { String::new() } else { format!(":{line}") }, escaped(message))]
pub struct ConfError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// Where a setting came from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    pub file: String,
    pub line: usize,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// `PriorityFlags`, as `read_config.c` reads them: each flag is a case-insensitive
/// *substring* of the value (`xstrcasestr`), so `NO_NORMAL_ALL` sets the four NO_NORMAL flags.
/// Fair Tree is on unless `DEPTH_OBLIVIOUS` or `NO_FAIR_TREE` is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PriorityFlags {
    pub accrue_always: bool,
    /// `SMALL_RELATIVE_TO_TIME` (`PRIORITY_FLAGS_SIZE_RELATIVE`).
    pub small_relative_to_time: bool,
    pub calculate_running: bool,
    pub depth_oblivious: bool,
    pub fair_tree: bool,
    pub incr_only: bool,
    pub max_tres: bool,
    pub no_normal_assoc: bool,
    pub no_normal_part: bool,
    pub no_normal_qos: bool,
    pub no_normal_tres: bool,
}

impl Default for PriorityFlags {
    fn default() -> PriorityFlags {
        PriorityFlags::parse("")
    }
}

impl PriorityFlags {
    /// The flags of a `PriorityFlags=` value.
    pub fn parse(value: &str) -> PriorityFlags {
        let v = value.to_ascii_uppercase();
        let has = |flag: &str| v.contains(flag);
        let depth_oblivious = has("DEPTH_OBLIVIOUS");
        let all = has("NO_NORMAL_ALL");
        PriorityFlags {
            accrue_always: has("ACCRUE_ALWAYS"),
            small_relative_to_time: has("SMALL_RELATIVE_TO_TIME"),
            calculate_running: has("CALCULATE_RUNNING"),
            depth_oblivious,
            fair_tree: !depth_oblivious && !has("NO_FAIR_TREE"),
            incr_only: has("INCR_ONLY"),
            max_tres: has("MAX_TRES"),
            no_normal_assoc: all || has("NO_NORMAL_ASSOC"),
            no_normal_part: all || has("NO_NORMAL_PART"),
            no_normal_qos: all || has("NO_NORMAL_QOS"),
            no_normal_tres: all || has("NO_NORMAL_TRES"),
        }
    }
}

/// `PriorityUsageResetPeriod`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResetPeriod {
    #[default]
    None,
    Now,
    Daily,
    Weekly,
    Monthly,
    Quarterly,
    Yearly,
}

/// A duration of `time_str2mins` (`PriorityMaxAge`, `MaxTime`, ...): whole minutes, or
/// `INFINITE` (`-1`, `INFINITE`, `UNLIMITED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Minutes {
    Finite(u32),
    Infinite,
}

impl Minutes {
    /// Slurm's uint32 of it (`INFINITE` is 0xffffffff).
    pub fn as_u32(self) -> u32 {
        match self {
            Minutes::Finite(m) => m,
            Minutes::Infinite => u32::MAX,
        }
    }
}

/// The `PriorityWeight*` settings (uint32 each, default 0; TRES weights are doubles).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Weights {
    pub age: u32,
    pub assoc: u32,
    pub fairshare: u32,
    pub job_size: u32,
    pub partition: u32,
    pub qos: u32,
    /// `PriorityWeightTRES`: `(TRES name as written, weight)`; names compare
    /// case-insensitively (`CPU`, `Mem`, `GRES/gpu`, ...).
    pub tres: Vec<(String, f64)>,
}

/// Every `Priority*` setting, with `read_config.c`'s defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct PrioritySettings {
    /// `priority/basic` (default) or `priority/multifactor`.
    pub priority_type: String,
    /// In file order.
    pub weights: Weights,
    /// `PriorityMaxAge` in seconds (`time_str2mins(..) * 60` into a uint32, as read_config.c
    /// stores it; default 7 days).
    pub max_age: u32,
    pub favor_small: bool,
    pub flags: PriorityFlags,
    /// Seconds; 0 disables decay (default 7 days).
    pub decay_half_life: u32,
    /// Seconds (default 5 minutes).
    pub calc_period: u32,
    pub usage_reset_period: ResetPeriod,
    pub site_factor_plugin: String,
    pub site_factor_parameters: Option<String>,
    /// `PriorityParameters` (free text for the plugin).
    pub parameters: Option<String>,
}

impl Default for PrioritySettings {
    fn default() -> PrioritySettings {
        PrioritySettings {
            priority_type: "priority/basic".into(),
            weights: Weights::default(),
            max_age: DEFAULT_PRIORITY_DECAY,
            favor_small: false,
            flags: PriorityFlags::default(),
            decay_half_life: DEFAULT_PRIORITY_DECAY,
            calc_period: 300,
            usage_reset_period: ResetPeriod::None,
            site_factor_plugin: "site_factor/none".into(),
            site_factor_parameters: None,
            parameters: None,
        }
    }
}

/// `DEFAULT_PRIORITY_DECAY` (`read_config.h`): 7 days in seconds.
const DEFAULT_PRIORITY_DECAY: u32 = 7 * 24 * 3600;

/// One generic resource of a node's `Gres=` (`gpu:tesla:4`, `mps:100`, `gpu:2(S:0-1)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gres {
    pub name: String,
    pub kind: Option<String>,
    pub count: u64,
}

/// One node, after `NodeName=DEFAULT` values and host-list expansion.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeConf {
    pub name: String,
    /// `CPUs=` (alias `Procs=`), else boards × sockets × cores × threads, as slurmctld derives
    /// it (`_build_single_nodeline_info`).
    pub cpus: u32,
    pub boards: u32,
    pub sockets: u32,
    pub cores_per_socket: u32,
    pub threads_per_core: u32,
    /// `RealMemory=` in MB (default 1).
    pub real_memory: u64,
    /// `CoreSpecCount=`: cores kept for the system (default 0).
    pub core_spec_count: u32,
    /// `CPUSpecList=` as written (its CPUs are not counted out: see `cpus_efctv`).
    pub cpu_spec_list: Option<String>,
    /// The CPUs slurmctld counts for the cluster and partitions (`cpus_efctv`,
    /// `node_conf.c`): `cpus − CoreSpecCount × tpc`, where `tpc` (the threads a core
    /// schedules) is 1 when the node has at least as many cores as CPUs, else ThreadsPerCore.
    pub cpus_efctv: u32,
    pub gres: Vec<Gres>,
    pub weight: u32,
    pub state: Option<String>,
    pub features: Option<String>,
    pub at: Location,
}

/// One partition, after `PartitionName=DEFAULT` values.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionConf {
    pub name: String,
    /// Node names (expanded; `ALL` is every node).
    pub nodes: Vec<String>,
    /// `PriorityJobFactor` (default 1; the legacy `Priority=` sets it and the tier).
    pub priority_job_factor: u16,
    pub priority_tier: u16,
    pub max_time: Minutes,
    pub default_time: Option<Minutes>,
    pub default: bool,
    pub state: Option<String>,
    pub qos: Option<String>,
    /// `TRESBillingWeights=`: the weights of the billing TRES (units applied: memory per
    /// MB), as written.
    pub billing_weights: Option<Vec<(String, f64)>>,
    /// `OverSubscribe=` and `DefCpuPerGPU=` as written (what they do to a pending job's job
    /// size is not modelled: `multifactor::not_modelled` says so).
    pub over_subscribe: Option<String>,
    pub def_cpu_per_gpu: Option<String>,
    pub at: Location,
}

/// `SchedulerParameters`: the backfill knobs typed (`src/plugins/sched/backfill/backfill.c`
/// defaults), every entry also kept in order in `entries`.
#[derive(Debug, Clone, PartialEq)]
pub struct SchedulerParameters {
    /// Seconds between backfill cycles (−1 disables backfill).
    pub bf_interval: i64,
    /// Minutes of planning window.
    pub bf_window: u32,
    /// Seconds of plan granularity.
    pub bf_resolution: u32,
    pub bf_max_job_test: u32,
    pub bf_continue: bool,
    /// Seconds per cycle; `None` = bf_interval.
    pub bf_max_time: Option<u32>,
    pub bf_min_prio_reserve: u32,
    pub bf_max_job_user: Option<u32>,
    pub bf_busy_nodes: bool,
    pub bf_window_linear: Option<u32>,
    pub bf_yield_interval: Option<u32>,
    /// Every `name[=value]` of the list, in order.
    pub entries: Vec<(String, Option<String>)>,
}

impl Default for SchedulerParameters {
    fn default() -> SchedulerParameters {
        SchedulerParameters {
            bf_interval: 30,
            bf_window: 1440,
            bf_resolution: 60,
            bf_max_job_test: 500,
            bf_continue: false,
            bf_max_time: None,
            bf_min_prio_reserve: 0,
            bf_max_job_user: None,
            bf_busy_nodes: false,
            bf_window_linear: None,
            bf_yield_interval: None,
            entries: Vec::new(),
        }
    }
}

/// A read `slurm.conf`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SlurmConf {
    pub cluster_name: Option<String>,
    pub priority: PrioritySettings,
    /// `sched/backfill` (default) or `sched/builtin`.
    pub scheduler_type: String,
    pub scheduler_parameters: SchedulerParameters,
    /// `AccountingStorageTRES` (the TRES slurmctld tracks beyond cpu, mem, energy, node,
    /// billing, fs/disk, vmem, pages).
    pub accounting_storage_tres: Option<String>,
    pub nodes: Vec<NodeConf>,
    pub partitions: Vec<PartitionConf>,
    /// Every other setting by its canonical (Slurm's) spelling: raw value and where.
    pub settings: BTreeMap<String, (String, Location)>,
    /// Files read through `Include`, in order.
    pub includes: Vec<PathBuf>,
}

impl SlurmConf {
    /// Read `path` and the files it includes.
    pub fn load(path: &Path) -> Result<SlurmConf, ConfError> {
        let mut reader = Reader::default();
        reader.file(path, 0)?;
        reader.finish()
    }

    /// Read a `slurm.conf`'s text (`file` names it in errors). `Include` lines read files
    /// relative to `file`'s directory.
    pub fn parse(text: &str, file: &str) -> Result<SlurmConf, ConfError> {
        let mut reader = Reader::default();
        reader.text(text, Path::new(file), 0)?;
        reader.finish()
    }

    /// The partition named `name` (case-sensitive, as Slurm's `find_part_record`).
    pub fn partition(&self, name: &str) -> Option<&PartitionConf> {
        self.partitions.iter().find(|p| p.name == name)
    }

    /// The `Default=YES` partition (the last one marked, as slurmctld keeps it), else none.
    pub fn default_partition(&self) -> Option<&PartitionConf> {
        self.partitions.iter().rev().find(|p| p.default)
    }

    /// The node named `name`.
    pub fn node(&self, name: &str) -> Option<&NodeConf> {
        self.nodes.iter().find(|n| n.name == name)
    }

    /// A setting's raw value by name (any case), for the settings not typed here.
    pub fn setting(&self, name: &str) -> Option<&str> {
        let canonical = canonical_key(TOP_KEYS, name)?;
        self.settings.get(canonical).map(|(v, _)| v.as_str())
    }
}

/// The top-level keys of Slurm 22.05 (`read_config.c: slurm_conf_options`), record keys
/// excepted.
#[rustfmt::skip]
const TOP_KEYS: &[&str] = &[
    "AccountingStorageTRES", "AccountingStorageEnforce", "AccountingStorageExternalHost",
    "AccountingStorageHost", "AccountingStorageBackupHost", "AccountingStorageLoc",
    "AccountingStorageParameters", "AccountingStoragePass", "AccountingStoragePort",
    "AccountingStorageType", "AccountingStorageUser", "AccountingStoreFlags",
    "AccountingStoreJobComment", "AcctGatherEnergyType", "AcctGatherNodeFreq",
    "AcctGatherProfileType", "AcctGatherInterconnectType", "AcctGatherInfinibandType",
    "AcctGatherFilesystemType", "AllowSpecResourcesUsage", "AuthAltTypes", "AuthAltParameters",
    "AuthInfo", "AuthType", "BackupAddr", "BackupController", "BatchStartTimeout",
    "BcastExclude", "BcastParameters", "BurstBufferParameters", "BurstBufferType",
    "CoreSpecPlugin", "CliFilterPlugins", "ClusterName", "CommunicationParameters",
    "CompleteWait", "ControlAddr", "ControlMachine", "CpuFreqDef", "CpuFreqGovernors",
    "CredType", "CryptoType", "DebugFlags", "DefCPUPerGPU", "DefMemPerCPU", "DefMemPerGPU",
    "DefMemPerNode", "DependencyParameters", "DisableRootJobs", "EioTimeout",
    "EnforcePartLimits", "Epilog", "EpilogMsgTime", "EpilogSlurmctld", "ExtSensorsType",
    "ExtSensorsFreq", "FairShareDampeningFactor", "FastSchedule", "FederationParameters",
    "FirstJobId", "GetEnvTimeout", "GresTypes", "GroupUpdateForce", "GroupUpdateTime",
    "GpuFreqDef", "HealthCheckInterval", "HealthCheckNodeState", "HealthCheckProgram",
    "InteractiveStepOptions", "InactiveLimit", "JobAcctGatherType", "JobAcctGatherFrequency",
    "JobAcctGatherParams", "JobCompHost", "JobCompLoc", "JobCompParams", "JobCompPass",
    "JobCompPort", "JobCompType", "JobContainerType", "JobCompUser", "JobCredentialPrivateKey",
    "JobCredentialPublicCertificate", "JobFileAppend", "JobRequeue", "JobSubmitPlugins",
    "KeepAliveTime", "KillOnBadExit", "KillWait", "LaunchParameters", "LaunchType", "Licenses",
    "LogTimeFormat", "MailDomain", "MailProg", "MaxArraySize", "MaxDBDMsgs", "MaxJobCount",
    "MaxNodeCount", "MaxJobId", "MaxMemPerCPU", "MaxMemPerNode", "MaxStepCount",
    "MaxTasksPerNode", "MCSParameters", "MCSPlugin", "MessageTimeout", "MinJobAge",
    "MpiDefault", "MpiParams", "NodeFeaturesPlugins", "OverTimeLimit", "PluginDir",
    "PlugStackConfig", "PowerParameters", "PowerPlugin", "PreemptMode", "PreemptType",
    "PreemptExemptTime", "PrEpParameters", "PrEpPlugins", "PriorityDecayHalfLife",
    "PriorityCalcPeriod", "PriorityFavorSmall", "PriorityMaxAge", "PriorityParameters",
    "PriorityUsageResetPeriod", "PriorityType", "PriorityFlags", "PrioritySiteFactorParameters",
    "PrioritySiteFactorPlugin", "PriorityWeightAge", "PriorityWeightAssoc",
    "PriorityWeightFairshare", "PriorityWeightJobSize", "PriorityWeightPartition",
    "PriorityWeightQOS", "PriorityWeightTRES", "PrivateData", "ProctrackType", "Prolog",
    "PrologSlurmctld", "PrologEpilogTimeout", "PrologFlags", "PropagatePrioProcess",
    "PropagateResourceLimitsExcept", "PropagateResourceLimits", "RebootProgram",
    "ReconfigFlags", "RequeueExit", "RequeueExitHold", "ResumeFailProgram", "ResumeProgram",
    "ResumeRate", "ResumeTimeout", "ResvEpilog", "ResvOverRun", "ResvProlog", "ReturnToService",
    "RoutePlugin", "SallocDefaultCommand", "SbcastParameters", "SchedulerAuth",
    "SchedulerParameters", "SchedulerTimeSlice", "SchedulerType", "ScronParameters",
    "SelectType", "SelectTypeParameters", "SlurmUser", "SlurmdUser", "SlurmctldAddr",
    "SlurmctldDebug", "SlurmctldLogFile", "SlurmctldPidFile", "SlurmctldPlugstack",
    "SlurmctldPort", "SlurmctldPrimaryOffProg", "SlurmctldPrimaryOnProg",
    "SlurmctldSyslogDebug", "SlurmctldTimeout", "SlurmctldParameters", "SlurmdDebug",
    "SlurmdLogFile", "SlurmdParameters", "SlurmdPidFile", "SlurmdPort", "SlurmdSpoolDir",
    "SlurmdSyslogDebug", "SlurmdTimeout", "SlurmSchedLogFile", "SlurmSchedLogLevel",
    "SrunEpilog", "SrunProlog", "SrunPortRange", "StateSaveLocation", "SuspendExcNodes",
    "SuspendExcParts", "SuspendProgram", "SuspendRate", "SuspendTime", "SuspendTimeout",
    "SwitchParameters", "SwitchType", "TaskEpilog", "TaskProlog", "TaskPlugin",
    "TaskPluginParam", "TCPTimeout", "TmpFS", "TopologyParam", "TopologyPlugin", "TrackWCKey",
    "TreeWidth", "UnkillableStepProgram", "UnkillableStepTimeout", "UsePAM", "VSizeFactor",
    "WaitTime", "X11Parameters",
];

/// `_nodename_options` (`read_config.c`).
#[rustfmt::skip]
const NODE_KEYS: &[&str] = &[
    "BcastAddr", "Boards", "CoreSpecCount", "CoresPerSocket", "CPUs", "CPUSpecList", "CpuBind",
    "Feature", "Features", "Gres", "MemSpecLimit", "NodeAddr", "NodeHostname", "Port", "Procs",
    "RealMemory", "Reason", "Sockets", "SocketsPerBoard", "State", "ThreadsPerCore", "TmpDisk",
    "TRESWeights", "Weight",
];

/// `_partition_options` (`read_config.c`).
#[rustfmt::skip]
const PARTITION_KEYS: &[&str] = &[
    "AllocNodes", "AllowAccounts", "AllowGroups", "AllowQos", "Alternate", "CpuBind",
    "DefCPUPerGPU", "DefMemPerCPU", "DefMemPerGPU", "DefMemPerNode", "Default", "DefaultTime",
    "DenyAccounts", "DenyQos", "DisableRootJobs", "ExclusiveUser", "GraceTime", "Hidden", "LLN",
    "MaxCPUsPerNode", "MaxMemPerCPU", "MaxMemPerNode", "MaxTime", "MaxNodes", "MinNodes",
    "Nodes", "OverSubscribe", "OverTimeLimit", "PreemptMode", "Priority", "PriorityJobFactor",
    "PriorityTier", "QOS", "RootOnly", "ReqResv", "ResumeTimeout", "SelectTypeParameters",
    "Shared", "State", "SuspendTime", "SuspendTimeout", "TRESBillingWeights",
];

/// `_frontend_options`, `_downnodes_options`, `_nodeset_options` (`read_config.c`); a
/// `SlurmctldHost` line has no keys of its own.
#[rustfmt::skip]
const FRONTEND_KEYS: &[&str] = &[
    "AllowGroups", "AllowUsers", "DenyGroups", "DenyUsers", "FrontendAddr", "Port", "Reason",
    "State",
];
const DOWNNODES_KEYS: &[&str] = &["Reason", "State"];
const NODESET_KEYS: &[&str] = &["Feature", "Nodes"];

/// The record keys: their line carries the record's own keys.
const RECORD_KEYS: &[(&str, &[&str])] = &[
    ("NodeName", NODE_KEYS),
    ("PartitionName", PARTITION_KEYS),
    ("FrontendName", FRONTEND_KEYS),
    ("NodeSet", NODESET_KEYS),
    ("DownNodes", DOWNNODES_KEYS),
    ("SlurmctldHost", &[]),
];

fn canonical_key(keys: &'static [&'static str], key: &str) -> Option<&'static str> {
    keys.iter().copied().find(|k| k.eq_ignore_ascii_case(key))
}

/// One `key=value` of a line (operators `+=`, `-=`, ... are accepted and read as `=`).
struct Pair<'a> {
    key: &'a str,
    value: String,
    rest: &'a str,
}

/// `keyvalue_pattern`: `^\s*([[:alnum:]_.]+)\s*([-*+/]?)=\s*(("([^"]*)")|([^\s]+))(\s|$)`.
fn next_pair(line: &str) -> Option<Pair<'_>> {
    let s = line.trim_start();
    let key_len = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(s.len());
    if key_len == 0 {
        return None;
    }
    let key = &s[..key_len];
    let mut rest = s[key_len..].trim_start();
    if let Some(r) = rest.strip_prefix(['-', '*', '+', '/']) {
        rest = r;
    }
    rest = rest.strip_prefix('=')?.trim_start();
    let (value, after) = if let Some(q) = rest.strip_prefix('"') {
        let end = q.find('"')?;
        (q[..end].to_string(), &q[end + 1..])
    } else {
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        if end == 0 {
            return None;
        }
        (rest[..end].to_string(), &rest[end..])
    };
    if !(after.is_empty() || after.starts_with(char::is_whitespace)) {
        return None;
    }
    Some(Pair {
        key,
        value,
        rest: after,
    })
}

/// The logical lines of a file: comments stripped, continuations joined, escapes removed;
/// each with the number of its first physical line.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut buf = String::new();
    let mut first = 0;
    for (i, raw) in text.lines().enumerate() {
        if buf.is_empty() {
            first = i + 1;
        }
        let line = strip_comment(raw);
        let trimmed = line.trim_end();
        let backslashes = trimmed.len() - trimmed.trim_end_matches('\\').len();
        if backslashes % 2 == 1 {
            buf.push_str(&trimmed[..trimmed.len() - 1]);
            continue;
        }
        buf.push_str(line);
        out.push((first, strip_escapes(&std::mem::take(&mut buf))));
    }
    if !buf.is_empty() {
        out.push((first, strip_escapes(&buf)));
    }
    out
}

/// `_strip_comments`: cut at a `#` preceded by an even number of backslashes.
fn strip_comment(line: &str) -> &str {
    let mut backslashes = 0;
    for (i, c) in line.char_indices() {
        match c {
            '#' if backslashes % 2 == 0 => return &line[..i],
            '\\' => backslashes += 1,
            _ => backslashes = 0,
        }
    }
    line
}

/// `_strip_escapes`: `\x` becomes `x`.
fn strip_escapes(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `time_str2secs`: `days-hours:minutes:seconds`, `hours:minutes:seconds`,
/// `minutes[:seconds]`, `days-hours[:minutes]`; `-1`, `INFINITE`, `UNLIMITED` are infinite.
/// `None` for an invalid string (Slurm's NO_VAL).
pub fn time_str2secs(s: &str) -> Option<Option<i64>> {
    let s = s.trim();
    if s == "-1" || s.eq_ignore_ascii_case("INFINITE") || s.eq_ignore_ascii_case("UNLIMITED") {
        return Some(None);
    }
    if s.is_empty()
        || !s
            .chars()
            .all(|c| c.is_ascii_digit() || c == '-' || c == ':')
        || s.matches('-').count() > 1
        || s.matches(':').count() > 2
        || s.starts_with(['-', ':'])
    {
        return None;
    }
    let num = |t: &str| -> Option<i64> {
        if t.is_empty() {
            Some(0)
        } else {
            t.parse::<i64>().ok()
        }
    };
    let secs = if let Some((d, hms)) = s.split_once('-') {
        let mut f = hms.split(':');
        let h = num(f.next().unwrap_or(""))?;
        let m = num(f.next().unwrap_or(""))?;
        let sec = num(f.next().unwrap_or(""))?;
        num(d)? * 86400 + h * 3600 + m * 60 + sec
    } else {
        let f: Vec<&str> = s.split(':').collect();
        match f.as_slice() {
            [h, m, sec] => num(h)? * 3600 + num(m)? * 60 + num(sec)?,
            [m, sec] => num(m)? * 60 + num(sec)?,
            [m] => num(m)? * 60,
            _ => return None,
        }
    };
    Some(Some(secs))
}

/// `time_str2mins`: [`time_str2secs`] rounded up to whole minutes.
pub fn time_str2mins(s: &str) -> Option<Minutes> {
    Some(match time_str2secs(s)? {
        None => Minutes::Infinite,
        Some(secs) => Minutes::Finite(u32::try_from((secs + 59) / 60).ok()?),
    })
}

/// `gpu:4`, `gpu:tesla:2(S:0-1)`, `mps:1K` (`gres.c`: counts take K, M, G, T, P suffixes).
fn parse_gres(value: &str) -> Result<Vec<Gres>, String> {
    let mut out = Vec::new();
    for item in split_outside_parens(value) {
        let item = item.split('(').next().unwrap_or("").trim();
        if item.is_empty() || item.eq_ignore_ascii_case("(null)") {
            continue;
        }
        let parts: Vec<&str> = item.split(':').collect();
        let (name, kind, count) = match parts.as_slice() {
            [name] => (*name, None, "1"),
            [name, c] if c.starts_with(|ch: char| ch.is_ascii_digit()) => (*name, None, *c),
            [name, kind] => (*name, Some(*kind), "1"),
            [name, kind, c] => (*name, Some(*kind), *c),
            _ => return Err(format!("bad Gres `{item}`")),
        };
        let count = parse_count(count).ok_or_else(|| format!("bad Gres count in `{item}`"))?;
        out.push(Gres {
            name: name.to_string(),
            kind: kind.map(str::to_string),
            count,
        });
    }
    Ok(out)
}

fn split_outside_parens(list: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in list.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    parts
}

fn parse_count(s: &str) -> Option<u64> {
    let (digits, mult) = match s.chars().last()?.to_ascii_uppercase() {
        'K' => (&s[..s.len() - 1], 1u64 << 10),
        'M' => (&s[..s.len() - 1], 1 << 20),
        'G' => (&s[..s.len() - 1], 1 << 30),
        'T' => (&s[..s.len() - 1], 1 << 40),
        'P' => (&s[..s.len() - 1], 1 << 50),
        _ => (s, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

/// `s_p_handle_boolean` (`parse_value.c`): YES/UP/TRUE/1 and NO/DOWN/FALSE/0, any case.
fn parse_bool(s: &str) -> Option<bool> {
    match s.to_ascii_lowercase().as_str() {
        "yes" | "up" | "true" | "1" => Some(true),
        "no" | "down" | "false" | "0" => Some(false),
        _ => None,
    }
}

/// A record line's keys (canonical spelling → value, where).
type Record = BTreeMap<&'static str, String>;

#[derive(Default)]
struct Reader {
    settings: BTreeMap<&'static str, (String, Location)>,
    nodes: Vec<(String, Record, Location)>,
    partitions: Vec<(String, Record, Location)>,
    includes: Vec<PathBuf>,
    /// The files being read, outermost first, each with the line of the `Include` it is
    /// reading (0 while none): a file that includes one of them is a cycle.
    open: Vec<(PathBuf, String, usize)>,
}

impl Reader {
    /// Read a file, at most [`MAX_CONFIG`] bytes of it (slurm.conf given as `/dev/zero` is
    /// an error, not a read that never ends).
    fn file(&mut self, path: &Path, depth: usize) -> Result<(), ConfError> {
        let text = read_text_at_most(path, MAX_CONFIG).map_err(|message| ConfError {
            file: path.display().to_string(),
            line: 0,
            message,
        })?;
        self.text(&text, path, depth)
    }

    /// An included file: a regular file (a FIFO or a device could block or never end, and
    /// slurm.conf's includes are files), not one of the files including it.
    fn include(&mut self, target: &Path, depth: usize) -> Result<(), ConfError> {
        let whole = |message: String| ConfError {
            file: target.display().to_string(),
            line: 0,
            message,
        };
        let meta = std::fs::metadata(target).map_err(|e| whole(format!("cannot read: {e}")))?;
        if !meta.is_file() {
            return Err(whole(format!(
                "not a regular file ({}): Include reads files",
                file_kind(&meta)
            )));
        }
        let key = std::fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
        if let Some(first) = self.open.iter().position(|(p, _, _)| *p == key) {
            let chain: Vec<String> = self.open[first..]
                .iter()
                .map(|(_, file, line)| format!("{file}:{line}"))
                .collect();
            return Err(whole(format!(
                "Include cycle: {} includes {} again",
                chain.join(" includes "),
                target.display()
            )));
        }
        self.file(target, depth)
    }

    fn text(&mut self, text: &str, path: &Path, depth: usize) -> Result<(), ConfError> {
        let file = path.display().to_string();
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.open.push((key, file.clone(), 0));
        let read = self.lines(text, path, &file, depth);
        self.open.pop();
        read
    }

    fn lines(
        &mut self,
        text: &str,
        path: &Path,
        file: &str,
        depth: usize,
    ) -> Result<(), ConfError> {
        for (line_no, line) in logical_lines(text) {
            let at = Location {
                file: file.to_string(),
                line: line_no,
            };
            let err = |message: String| ConfError {
                file: file.to_string(),
                line: line_no,
                message,
            };
            if line.trim().is_empty() {
                continue;
            }
            if let Some(target) = include_target(&line) {
                if depth >= 16 {
                    return Err(err("Include nested more than 16 deep".into()));
                }
                let target = self.include_path(target, path).map_err(&err)?;
                self.includes.push(target.clone());
                if let Some(open) = self.open.last_mut() {
                    open.2 = line_no;
                }
                // An error in the included file is its own, at its line, with the chain of
                // includes once; a file that cannot be read is the `Include` line's.
                self.include(&target, depth + 1).map_err(|e| match e.line {
                    0 => err(format!("Include {}: {}", target.display(), e.message)),
                    _ if e.message.contains(INCLUDED_FROM) => e,
                    _ => {
                        let chain: Vec<String> = self
                            .open
                            .iter()
                            .rev()
                            .map(|(_, file, line)| format!("{file}:{line}"))
                            .collect();
                        ConfError {
                            message: format!(
                                "{} ({INCLUDED_FROM} {})",
                                e.message,
                                chain.join(", ")
                            ),
                            ..e
                        }
                    }
                })?;
                continue;
            }
            let Some(pair) = next_pair(&line) else {
                return Err(err(format!("Parse error: \"{}\"", line.trim())));
            };
            if let Some(&(record, keys)) = RECORD_KEYS
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(pair.key))
            {
                let fields = record_fields(pair.rest, keys, record).map_err(&err)?;
                match record {
                    "NodeName" => self.nodes.push((pair.value, fields, at)),
                    "PartitionName" => self.partitions.push((pair.value, fields, at)),
                    _ => {}
                }
                continue;
            }
            let Some(key) = canonical_key(TOP_KEYS, pair.key) else {
                return Err(err(format!(
                    "unrecognized key `{}` (slurmctld does not start with it: \
                     \"Parsing error at unrecognized key\")",
                    pair.key
                )));
            };
            if !pair.rest.trim().is_empty() {
                return Err(err(format!(
                    "Parse error: \"{}\" after {key}= (one setting per line)",
                    pair.rest.trim()
                )));
            }
            self.settings.insert(key, (pair.value, at));
        }
        Ok(())
    }

    /// `_parse_for_format` and `_add_full_path`.
    fn include_path(&self, target: &str, from: &Path) -> Result<PathBuf, String> {
        let mut name = target.to_string();
        if name.contains("%c") {
            let Some((cluster, _)) = self.settings.get("ClusterName") else {
                return Err(format!(
                    "Include {target}: `%c` needs ClusterName set before it"
                ));
            };
            name = name.replace("%c", &cluster.to_ascii_lowercase());
        }
        let p = PathBuf::from(&name);
        Ok(if p.is_absolute() {
            p
        } else {
            from.parent().unwrap_or(Path::new("")).join(p)
        })
    }

    fn finish(self) -> Result<SlurmConf, ConfError> {
        let mut conf = SlurmConf {
            scheduler_type: "sched/backfill".into(),
            includes: self.includes,
            ..SlurmConf::default()
        };
        let get = |k: &str| self.settings.get(k);
        let bad = |k: &str, (v, at): &(String, Location), why: &str| ConfError {
            file: at.file.clone(),
            line: at.line,
            message: format!("bad value \"{v}\" for {k}: {why}"),
        };
        let uint = |k: &str| -> Result<Option<u32>, ConfError> {
            match get(k) {
                None => Ok(None),
                Some(e) => {
                    e.0.parse::<u32>()
                        .map(Some)
                        .map_err(|_| bad(k, e, "expected an integer 0..4294967295"))
                }
            }
        };
        // time_str2mins(..) * 60 into slurm_conf's uint32 (INFINITE wraps as Slurm's does).
        let minutes_as_secs = |k: &str, default: u32| -> Result<u32, ConfError> {
            match get(k) {
                None => Ok(default),
                Some(e) => match time_str2mins(&e.0) {
                    Some(m) => Ok(m.as_u32().wrapping_mul(60)),
                    None => Err(bad(k, e, "expected a time such as 7-0, 60 or 1:00:00")),
                },
            }
        };
        let p = &mut conf.priority;
        if let Some((v, _)) = get("PriorityType") {
            p.priority_type = v.clone();
        }
        p.weights.age = uint("PriorityWeightAge")?.unwrap_or(0);
        p.weights.assoc = uint("PriorityWeightAssoc")?.unwrap_or(0);
        p.weights.fairshare = uint("PriorityWeightFairshare")?.unwrap_or(0);
        p.weights.job_size = uint("PriorityWeightJobSize")?.unwrap_or(0);
        p.weights.partition = uint("PriorityWeightPartition")?.unwrap_or(0);
        p.weights.qos = uint("PriorityWeightQOS")?.unwrap_or(0);
        if let Some(e) = get("PriorityWeightTRES") {
            p.weights.tres =
                parse_tres_weights(&e.0).map_err(|m| bad("PriorityWeightTRES", e, &m))?;
        }
        p.max_age = minutes_as_secs("PriorityMaxAge", DEFAULT_PRIORITY_DECAY)?;
        p.decay_half_life = minutes_as_secs("PriorityDecayHalfLife", DEFAULT_PRIORITY_DECAY)?;
        if let Some(e) = get("PriorityCalcPeriod") {
            p.calc_period = match time_str2mins(&e.0) {
                Some(Minutes::Finite(m)) if m >= 1 => m * 60,
                _ => return Err(bad("PriorityCalcPeriod", e, "at least one minute")),
            };
        }
        if let Some(e) = get("PriorityFavorSmall") {
            p.favor_small =
                parse_bool(&e.0).ok_or_else(|| bad("PriorityFavorSmall", e, "YES or NO"))?;
        }
        if let Some((v, _)) = get("PriorityFlags") {
            p.flags = PriorityFlags::parse(v);
        }
        if let Some(e) = get("PriorityUsageResetPeriod") {
            p.usage_reset_period = match e.0.to_ascii_lowercase().as_str() {
                "none" => ResetPeriod::None,
                "now" => ResetPeriod::Now,
                "daily" => ResetPeriod::Daily,
                "weekly" => ResetPeriod::Weekly,
                "monthly" => ResetPeriod::Monthly,
                "quarterly" => ResetPeriod::Quarterly,
                "yearly" => ResetPeriod::Yearly,
                _ => {
                    return Err(bad(
                        "PriorityUsageResetPeriod",
                        e,
                        "NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY",
                    ));
                }
            };
        } else if p.decay_half_life == 0 {
            let (_, at) = get("PriorityDecayHalfLife").cloned().unwrap_or_default();
            return Err(ConfError {
                file: at.file,
                line: at.line,
                message: "PriorityDecayHalfLife=0 needs a PriorityUsageResetPeriod \
                          (read_config.c refuses it: usage would never decrease)"
                    .into(),
            });
        }
        if let Some((v, _)) = get("PrioritySiteFactorPlugin") {
            p.site_factor_plugin = v.clone();
        }
        p.site_factor_parameters = get("PrioritySiteFactorParameters").map(|(v, _)| v.clone());
        p.parameters = get("PriorityParameters").map(|(v, _)| v.clone());
        if let Some((v, _)) = get("SchedulerType") {
            conf.scheduler_type = v.clone();
        }
        if let Some(e) = get("SchedulerParameters") {
            conf.scheduler_parameters =
                parse_scheduler_parameters(&e.0).map_err(|m| bad("SchedulerParameters", e, &m))?;
        }
        conf.cluster_name = get("ClusterName").map(|(v, _)| v.clone());
        conf.accounting_storage_tres = get("AccountingStorageTRES").map(|(v, _)| v.clone());

        let mut node_default = Record::new();
        for (names, fields, at) in &self.nodes {
            if names.eq_ignore_ascii_case("DEFAULT") {
                node_default.extend(fields.clone());
                continue;
            }
            let mut f = node_default.clone();
            f.extend(fields.clone());
            let err = |m: String| ConfError {
                file: at.file.clone(),
                line: at.line,
                message: m,
            };
            let expanded = expand_hostlist(names).map_err(|m| err(format!("NodeName={m}")))?;
            let node = node_conf(&f, at).map_err(err)?;
            for name in expanded {
                conf.nodes.push(NodeConf {
                    name,
                    ..node.clone()
                });
            }
        }
        let mut part_default = Record::new();
        for (name, fields, at) in &self.partitions {
            if name.eq_ignore_ascii_case("DEFAULT") {
                part_default.extend(fields.clone());
                continue;
            }
            let mut f = part_default.clone();
            f.extend(fields.clone());
            let part = partition_conf(name, &f, at, &conf.nodes).map_err(|m| ConfError {
                file: at.file.clone(),
                line: at.line,
                message: m,
            })?;
            conf.partitions.push(part);
        }
        conf.settings = self
            .settings
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        Ok(conf)
    }
}

/// What an error in an included file says of the files that include it.
const INCLUDED_FROM: &str = "included from";

/// What a file that is not a regular file is, for messages.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

/// `Include FILE` (`_parse_include_directive`): the word `include` in any case, then blanks.
fn include_target(line: &str) -> Option<&str> {
    let head = line.get(..7)?;
    if !head.eq_ignore_ascii_case("include") {
        return None;
    }
    let rest = &line[7..];
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    rest.split_whitespace().next()
}

/// The keys of a record line after its first `Key=Value`.
fn record_fields(
    mut rest: &str,
    keys: &'static [&'static str],
    record: &str,
) -> Result<Record, String> {
    let mut fields = Record::new();
    while !rest.trim().is_empty() {
        let Some(pair) = next_pair(rest) else {
            return Err(format!(
                "Parse error: \"{}\" in a {record} line",
                rest.trim()
            ));
        };
        let Some(key) = canonical_key(keys, pair.key) else {
            return Err(format!(
                "unrecognized key `{}` in a {record} line (slurmctld does not start with it)",
                pair.key
            ));
        };
        fields.insert(key, pair.value);
        rest = pair.rest;
    }
    Ok(fields)
}

fn node_conf(f: &Record, at: &Location) -> Result<NodeConf, String> {
    let num = |k: &str, default: u32| -> Result<u32, String> {
        f.get(k).map_or(Ok(default), |v| {
            v.parse::<u32>()
                .map_err(|_| format!("bad value \"{v}\" for {k}: expected an integer"))
        })
    };
    let boards = num("Boards", 1)?;
    let threads = num("ThreadsPerCore", 1)?;
    let cores = num("CoresPerSocket", 1)?;
    let sockets = match (f.get("Sockets"), f.get("SocketsPerBoard")) {
        (Some(_), _) => num("Sockets", 1)?,
        (None, Some(_)) => num("SocketsPerBoard", 1)? * boards,
        (None, None) => 1,
    };
    let cpus = if f.contains_key("CPUs") {
        num("CPUs", 1)?
    } else if f.contains_key("Procs") {
        num("Procs", 1)?
    } else {
        sockets * cores * threads
    };
    let real_memory = match f.get("RealMemory") {
        None => 1,
        Some(v) => v
            .parse::<u64>()
            .map_err(|_| format!("bad value \"{v}\" for RealMemory: expected megabytes"))?,
    };
    let gres = match f.get("Gres") {
        None => Vec::new(),
        Some(v) => parse_gres(v)?,
    };
    let core_spec_count = num("CoreSpecCount", 0)?;
    // node_conf.c: `tpc` is 1 when the node schedules cores (no more CPUs than cores), else
    // its threads per core; cpus_efctv = cpus - core_spec_cnt * tpc.
    let tpc = if sockets.saturating_mul(cores) >= cpus {
        1
    } else {
        threads
    };
    let cpus_efctv = cpus.saturating_sub(core_spec_count.saturating_mul(tpc));
    Ok(NodeConf {
        name: String::new(),
        cpus,
        boards,
        sockets,
        cores_per_socket: cores,
        threads_per_core: threads,
        real_memory,
        core_spec_count,
        cpu_spec_list: f.get("CPUSpecList").cloned(),
        cpus_efctv,
        gres,
        weight: num("Weight", 1)?,
        state: f.get("State").cloned(),
        features: f.get("Features").or(f.get("Feature")).cloned(),
        at: at.clone(),
    })
}

fn partition_conf(
    name: &str,
    f: &Record,
    at: &Location,
    nodes: &[NodeConf],
) -> Result<PartitionConf, String> {
    let u16_of = |k: &str| -> Result<Option<u16>, String> {
        f.get(k).map_or(Ok(None), |v| match v.parse::<u16>() {
            Ok(n) if n <= 65533 => Ok(Some(n)),
            _ => Err(format!("bad value \"{v}\" for {k}: expected 0..65533")),
        })
    };
    // The legacy Priority= sets both; the specific keys win (read_config.c).
    let legacy = u16_of("Priority")?;
    let priority_job_factor = u16_of("PriorityJobFactor")?.or(legacy).unwrap_or(1);
    let priority_tier = u16_of("PriorityTier")?.or(legacy).unwrap_or(1);
    let time = |k: &str| -> Result<Option<Minutes>, String> {
        f.get(k).map_or(Ok(None), |v| {
            time_str2mins(v)
                .map(Some)
                .ok_or_else(|| format!("bad value \"{v}\" for {k}: expected a time"))
        })
    };
    let max_time = time("MaxTime")?.unwrap_or(Minutes::Infinite);
    let default_time = time("DefaultTime")?;
    let default = match f.get("Default") {
        None => false,
        Some(v) => parse_bool(v).ok_or_else(|| format!("bad value \"{v}\" for Default"))?,
    };
    let node_names = match f.get("Nodes") {
        None => Vec::new(),
        Some(v) if v.eq_ignore_ascii_case("ALL") => nodes.iter().map(|n| n.name.clone()).collect(),
        Some(v) => expand_hostlist(v).map_err(|m| format!("Nodes={m}"))?,
    };
    for n in &node_names {
        if !nodes.iter().any(|node| &node.name == n) {
            return Err(format!(
                "partition {name}: node {n} is not defined by a NodeName line before it"
            ));
        }
    }
    Ok(PartitionConf {
        name: name.to_string(),
        nodes: node_names,
        priority_job_factor,
        priority_tier,
        max_time,
        default_time,
        default,
        state: f.get("State").cloned(),
        qos: f.get("QOS").cloned(),
        over_subscribe: f.get("OverSubscribe").cloned(),
        def_cpu_per_gpu: f.get("DefCPUPerGPU").cloned(),
        billing_weights: match f.get("TRESBillingWeights") {
            None => None,
            Some(v) => Some(
                parse_tres_weights(v)
                    .map_err(|m| format!("bad value \"{v}\" for TRESBillingWeights: {m}"))?,
            ),
        },
        at: at.clone(),
    })
}

/// `PriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000` (`slurm_get_tres_weight_array`:
/// `strtod` weights, negative allowed).
pub fn parse_tres_weights(value: &str) -> Result<Vec<(String, f64)>, String> {
    value
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|item| {
            let (name, w) = item
                .split_once('=')
                .ok_or_else(|| format!("`{item}` is not TRES=WEIGHT"))?;
            let w = w.trim();
            // `_tres_weight_item`: strtod, then a unit after the number divides the weight by
            // it in the TRES's base unit (memory counts in MB: `Mem=0.25G` is 0.25 per GB,
            // 0.25/1024 per MB; `get_convert_unit_val`).
            let split = w
                .find(|c: char| c.is_ascii_alphabetic() && !matches!(c, 'e' | 'E'))
                .unwrap_or(w.len());
            let (number, unit) = w.split_at(split);
            let mut weight: f64 = number
                .parse()
                .map_err(|_| format!("`{w}` is not a number in `{item}`"))?;
            if let Some(u) = unit.chars().next() {
                const UNITS: &str = "KMGTP";
                let Some(power) = UNITS.find(u.to_ascii_uppercase()) else {
                    return Err(format!(
                        "`{unit}` is not a unit (K, M, G, T, P) in `{item}`"
                    ));
                };
                // The base unit: MB for memory, none for the others.
                let base = if name.trim().eq_ignore_ascii_case("mem") {
                    1
                } else {
                    -1
                };
                let steps = power as i32 - base;
                if steps > 0 {
                    weight /= 1024f64.powi(steps);
                }
            }
            Ok((name.trim().to_string(), weight))
        })
        .collect()
}

impl SchedulerParameters {
    /// The backfill knobs the simulation honours. A value out of Slurm's range is Slurm's
    /// default, as `backfill.c: _load_config` takes it (after logging "Invalid
    /// SchedulerParameters ...").
    pub fn sim_knobs(&self) -> crate::model::SlurmBackfill {
        let d = crate::model::SlurmBackfill::default();
        let within = |v: u32, lo: u32, hi: u32, default: u32| {
            if (lo..=hi).contains(&v) { v } else { default }
        };
        crate::model::SlurmBackfill {
            bf_max_job_test: within(self.bf_max_job_test, 1, 1_000_000, d.bf_max_job_test),
            bf_window: within(self.bf_window, 1, 43_200, d.bf_window),
            bf_resolution: within(self.bf_resolution, 1, 3600, d.bf_resolution),
        }
    }
}

fn parse_scheduler_parameters(value: &str) -> Result<SchedulerParameters, String> {
    let mut p = SchedulerParameters::default();
    for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, v) = match item.split_once('=') {
            Some((n, v)) => (n.trim(), Some(v.trim())),
            None => (item, None),
        };
        let int = |what: &str| -> Result<i64, String> {
            v.and_then(|s| s.parse::<i64>().ok())
                .ok_or_else(|| format!("`{item}`: {what} needs an integer value"))
        };
        let uint = |what: &str| -> Result<u32, String> {
            u32::try_from(int(what)?).map_err(|_| format!("`{item}`: out of range"))
        };
        match name.to_ascii_lowercase().as_str() {
            "bf_interval" => p.bf_interval = int(name)?,
            "bf_window" => p.bf_window = uint(name)?,
            "bf_resolution" => p.bf_resolution = uint(name)?,
            "bf_max_job_test" => p.bf_max_job_test = uint(name)?,
            "bf_continue" => p.bf_continue = true,
            "bf_max_time" => p.bf_max_time = Some(uint(name)?),
            "bf_min_prio_reserve" => p.bf_min_prio_reserve = uint(name)?,
            "bf_max_job_user" => p.bf_max_job_user = Some(uint(name)?),
            "bf_busy_nodes" => p.bf_busy_nodes = true,
            "bf_window_linear" => p.bf_window_linear = Some(uint(name)?),
            "bf_yield_interval" => p.bf_yield_interval = Some(uint(name)?),
            _ => {}
        }
        p.entries.push((name.to_string(), v.map(str::to_string)));
    }
    Ok(p)
}

/// The nodes a `slurm.conf` describes when they are all of one size (nodes of several sizes
/// are node types: [`SlurmConf::node_types`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UniformNodes {
    pub nodes: u32,
    /// CPUs per node (`CPUs=`, else boards × sockets × cores × threads).
    pub cpus: u32,
    /// The first `NodeName` line.
    pub at: Location,
}

impl SlurmConf {
    /// The nodes of the `NodeName` lines when they are all of one size and CPUs are all they
    /// count (`None` without a line): nodes of different CPU counts, and nodes with GRES or
    /// consumable memory, are an error that says so, and are node types instead
    /// ([`SlurmConf::node_types`]).
    pub fn machine(&self) -> Result<Option<UniformNodes>, ConfError> {
        let Some(first) = self.nodes.first() else {
            return Ok(None);
        };
        // Nodes with GRES, or memory that jobs consume: more than CPUs to count, so node
        // types even when all are alike (counting CPUs alone dropped them without a word).
        let more = if self.nodes.iter().any(|n| !n.gres.is_empty()) {
            Some("GRES")
        } else if self.memory_is_consumable() {
            Some("memory (SelectTypeParameters)")
        } else {
            None
        };
        if let Some(what) = more {
            return Err(ConfError {
                file: first.at.file.clone(),
                line: first.at.line,
                message: format!("nodes with {what}: not CPUs alone (they are node types)"),
            });
        }
        // Each size: its CPU count, how many nodes, the first line giving it.
        let mut sizes: Vec<(u32, u32, &Location)> = Vec::new();
        for n in &self.nodes {
            match sizes.iter_mut().find(|s| s.0 == n.cpus) {
                Some(s) => s.1 += 1,
                None => sizes.push((n.cpus, 1, &n.at)),
            }
        }
        if sizes.len() > 1 {
            let each: Vec<String> = sizes
                .iter()
                .map(|(cpus, count, at)| format!("{count} with {cpus} CPUs (line {})", at.line))
                .collect();
            return Err(ConfError {
                file: first.at.file.clone(),
                line: first.at.line,
                message: format!(
                    "nodes of different sizes: {}: not one node size (they are node types)",
                    each.join(", ")
                ),
            });
        }
        let nodes = u32::try_from(self.nodes.len()).map_err(|_| ConfError {
            file: first.at.file.clone(),
            line: first.at.line,
            message: "more nodes than the simulator holds".into(),
        })?;
        Ok(Some(UniformNodes {
            nodes,
            cpus: first.cpus,
            at: first.at.clone(),
        }))
    }

    /// The machine of the `NodeName` lines as node types (`None` without one), for a
    /// multi-resource simulation: consecutive nodes of one size (CPUs,
    /// `RealMemory` in MB, each `Gres` count; `gres/gpu` as `ngpus`) are one type, in the
    /// order slurmctld considers nodes for a job: by `Weight`, lowest first, then as
    /// configured (`slurm.conf(5)`, Weight).
    ///
    /// Memory is a node resource only when `SelectTypeParameters` makes it consumable
    /// (`CR_Memory`, `CR_CPU_Memory`, `CR_Core_Memory`, `CR_Socket_Memory`; `cons_tres.html`):
    /// with `CR_CPU` or `CR_Core` slurmctld does not count memory, and jobs' memory requests
    /// do not keep them from starting. Without the setting the nodes are taken as CPUs (and
    /// Gres) alone, `CR_CPU`'s meaning; a site whose Slurm counts memory by default names it.
    pub fn node_types(&self) -> Result<Option<crate::model::Machine>, ConfError> {
        use crate::model::machine::{MEM, NCPUS, NGPUS};
        let Some(first) = self.nodes.first() else {
            return Ok(None);
        };
        let memory = self.memory_is_consumable();
        let mut nodes: Vec<&NodeConf> = self.nodes.iter().collect();
        nodes.sort_by_key(|n| n.weight);
        let size = |n: &NodeConf| -> Vec<(String, u64)> {
            let mut r = vec![(NCPUS.to_string(), u64::from(n.cpus))];
            if memory {
                r.push((MEM.to_string(), n.real_memory.saturating_mul(1024)));
            }
            for g in &n.gres {
                let name = if g.name == "gpu" {
                    NGPUS
                } else {
                    g.name.as_str()
                };
                match r.iter_mut().find(|(k, _)| k == name) {
                    Some((_, v)) => *v = v.saturating_add(g.count),
                    None => r.push((name.to_string(), g.count)),
                }
            }
            r
        };
        let mut types: Vec<crate::model::machine::TypeSpec> = Vec::new();
        for n in nodes {
            let s = size(n);
            match types.last_mut() {
                Some((_, count, last)) if *last == s => *count += 1,
                _ => types.push((n.name.clone(), 1, s)),
            }
        }
        crate::model::Machine::from_types(types)
            .map(Some)
            .map_err(|message| ConfError {
                file: first.at.file.clone(),
                line: first.at.line,
                message,
            })
    }

    /// Whether slurm.conf asks for `priority/multifactor` (then its weights rank the jobs
    /// when no formula is given, in `rank`, `eval` and `sim` alike).
    pub fn is_multifactor(&self) -> bool {
        self.priority
            .priority_type
            .eq_ignore_ascii_case("priority/multifactor")
    }

    /// Whether `SelectTypeParameters` makes memory a consumable resource (`CR_Memory` or a
    /// `CR_*_Memory`, in any case, among its comma-separated options).
    pub fn memory_is_consumable(&self) -> bool {
        self.settings
            .get("SelectTypeParameters")
            .is_some_and(|(v, _)| {
                v.split(',').any(|o| {
                    let o = o.trim().to_ascii_lowercase();
                    o.starts_with("cr_") && o.ends_with("memory")
                })
            })
    }

    /// The dispatch policy of `SchedulerType` (`slurm.conf(5)`): `sched/builtin` starts jobs
    /// in priority order and stops at the first that cannot start (strict FIFO);
    /// `sched/backfill` (the default) also starts a lower-priority job when that does not
    /// delay the expected start of any higher-priority one — every blocked job keeps its
    /// reservation (conservative backfill) within `bf_max_job_test`, `bf_window` and
    /// `bf_resolution` ([`crate::model::Policy::Slurm`]). `None` for the location: Slurm's
    /// default.
    pub fn sim_policy(&self) -> Result<(crate::model::Policy, Option<Location>), ConfError> {
        use crate::model::Policy;
        let at = self.settings.get("SchedulerType").map(|(_, at)| at.clone());
        match self.scheduler_type.to_ascii_lowercase().as_str() {
            "sched/builtin" => Ok((Policy::Strict, at)),
            "sched/backfill" => Ok((Policy::Slurm(self.scheduler_parameters.sim_knobs()), at)),
            other => {
                let at = at.unwrap_or_default();
                Err(ConfError {
                    file: at.file,
                    line: at.line,
                    message: format!(
                        "SchedulerType={other} is not simulated (sched/builtin or sched/backfill)"
                    ),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Node types in slurmctld's order, lowest `Weight` first, then as configured:
    /// `RealMemory` in MB as KB, `gres/gpu` as `ngpus`, other Gres by name.
    #[test]
    fn node_types_by_weight_with_memory_and_gres() {
        let c = SlurmConf::parse(
            "SelectTypeParameters=CR_Core_Memory\n\
             NodeName=g[1-2] CPUs=16 RealMemory=2000 Gres=gpu:a100:4 Weight=10\n\
             NodeName=c[1-3] CPUs=64 RealMemory=1000 Weight=1\n\
             NodeName=c4 CPUs=64 RealMemory=1000 Gres=nvme:1 Weight=1\n",
            "s.conf",
        )
        .unwrap();
        let m = c.node_types().unwrap().unwrap();
        assert_eq!(m.names(), ["ncpus", "mem", "nvme", "ngpus"]);
        let types: Vec<_> = m
            .types()
            .iter()
            .map(|t| (t.name.as_str(), t.count, t.amounts.clone()))
            .collect();
        assert_eq!(
            types,
            [
                ("c1", 3, vec![64, 1000 * 1024, 0, 0]),
                ("c4", 1, vec![64, 1000 * 1024, 1, 0]),
                ("g1", 2, vec![16, 2000 * 1024, 0, 4]),
            ]
        );
        let none = SlurmConf::parse("PartitionName=a Nodes=ALL\n", "s.conf").unwrap();
        assert_eq!(none.node_types().unwrap(), None);
    }

    /// Memory is a node resource only where slurmctld counts it (`cons_tres.html`:
    /// `CR_Core_Memory` "Core and Memory as consumable resources"; `CR_Core` cores alone).
    #[test]
    fn memory_is_a_node_resource_only_when_select_type_parameters_count_it() {
        let nodes = "NodeName=a[1-2] CPUs=8 RealMemory=4000\nNodeName=b1 CPUs=4 RealMemory=8000\n";
        let names = |params: &str| {
            let c = SlurmConf::parse(&format!("{params}{nodes}"), "s.conf").unwrap();
            c.node_types().unwrap().unwrap().names().to_vec()
        };
        for counted in [
            "SelectTypeParameters=CR_Core_Memory\n",
            "SelectTypeParameters=CR_CPU_Memory,CR_ONE_TASK_PER_CORE\n",
            "SelectTypeParameters=cr_socket_memory\n",
            "SelectTypeParameters=CR_Memory\n",
        ] {
            assert_eq!(names(counted), ["ncpus", "mem"], "{counted}");
        }
        for cores in [
            "",
            "SelectTypeParameters=CR_Core\n",
            "SelectTypeParameters=CR_CPU\n",
        ] {
            assert_eq!(names(cores), ["ncpus"], "{cores}");
        }
    }

    #[test]
    fn the_machine_and_policy_for_the_simulator() {
        let c = SlurmConf::parse(
            "SchedulerType=sched/builtin\nNodeName=n[1-4] CPUs=8\nPartitionName=all Nodes=n[1-4]\n",
            "s.conf",
        )
        .unwrap();
        let m = c.machine().unwrap().unwrap();
        assert_eq!(
            (m.nodes, m.cpus, m.at.to_string()),
            (4, 8, "s.conf:2".to_string())
        );
        let (policy, at) = c.sim_policy().unwrap();
        assert_eq!(policy, crate::model::Policy::Strict);
        assert_eq!(at.map(|a| a.to_string()).as_deref(), Some("s.conf:1"));
        // sched/backfill, Slurm's default: its backfill with the default knobs, from no line.
        let c = SlurmConf::parse("NodeName=a,b Sockets=2 CoresPerSocket=4\n", "s.conf").unwrap();
        assert_eq!(
            c.sim_policy().unwrap(),
            (crate::model::Policy::Slurm(Default::default()), None)
        );
        // Knobs from SchedulerParameters; one out of Slurm's range is its default
        // (`backfill.c: _load_config`).
        let k = SlurmConf::parse(
            "SchedulerParameters=bf_window=90,bf_resolution=0,bf_max_job_test=20\n",
            "s.conf",
        )
        .unwrap();
        let knobs = crate::model::SlurmBackfill {
            bf_max_job_test: 20,
            bf_window: 90,
            bf_resolution: 60,
        };
        assert_eq!(
            k.sim_policy().unwrap().0,
            crate::model::Policy::Slurm(knobs)
        );
        assert_eq!(
            c.machine().unwrap().map(|m| (m.nodes, m.cpus)),
            Some((2, 8))
        );
        let c = SlurmConf::parse(
            "NodeName=a[1-3] CPUs=32\nNodeName=b[1-2] CPUs=64\n",
            "s.conf",
        )
        .unwrap();
        assert_eq!(
            c.machine().unwrap_err().to_string(),
            "s.conf:1: nodes of different sizes: 3 with 32 CPUs (line 1), 2 with 64 CPUs \
             (line 2): not one node size (they are node types)"
        );
        assert_eq!(SlurmConf::parse("", "s.conf").unwrap().machine(), Ok(None));
        let c = SlurmConf::parse("SchedulerType=sched/gang\n", "s.conf").unwrap();
        assert_eq!(
            c.sim_policy().unwrap_err().to_string(),
            "s.conf:1: SchedulerType=sched/gang is not simulated (sched/builtin or sched/backfill)"
        );
    }

    #[test]
    fn syntax_as_parse_config_reads_it() {
        // parse_config.c: comments unless escaped, continuation with an odd number of
        // backslashes, case-insensitive keys, quoted values with blanks.
        let text = "ClusterName=Alpha # the cluster\n\
                    priorityweightage=1000\n\
                    PriorityFlags=\"SMALL_RELATIVE_TO_TIME, MAX_TRES\"\n\
                    PriorityWeightTRES=CPU=1000,\\\nMem=2000\n\
                    MailProg=/bin/mail\\#x\n\
                    NodeName=n[01-03] CPUs=8 RealMemory=1000\n";
        let c = SlurmConf::parse(text, "slurm.conf").unwrap();
        assert_eq!(c.cluster_name.as_deref(), Some("Alpha"));
        assert_eq!(c.priority.weights.age, 1000);
        assert!(c.priority.flags.small_relative_to_time && c.priority.flags.max_tres);
        assert_eq!(
            c.priority.weights.tres,
            vec![("CPU".to_string(), 1000.0), ("Mem".to_string(), 2000.0)]
        );
        assert_eq!(c.setting("mailprog"), Some("/bin/mail#x"));
        let names: Vec<&str> = c.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, ["n01", "n02", "n03"]);
    }

    #[test]
    fn errors_say_file_and_line() {
        let e = SlurmConf::parse("ClusterName=a\n\nPriorityWeigthAge=1\n", "s.conf").unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("s.conf", 3));
        assert!(
            e.message.contains("unrecognized key `PriorityWeigthAge`"),
            "{e}"
        );
        // A continued line is reported at its first line.
        let e = SlurmConf::parse("ClusterName=a\nPriorityMaxAge=\\\nsoon\n", "s").unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        let e = SlurmConf::parse("ClusterName=a PriorityWeightAge=1\n", "s").unwrap_err();
        assert!(e.message.contains("one setting per line"), "{e}");
        // Continuation joins the text as it is: blanks after the break end the value.
        let e = SlurmConf::parse("PriorityWeightTRES=CPU=1,\\\n  Mem=2\n", "s").unwrap_err();
        assert!(
            e.message.contains("\"Mem=2\" after PriorityWeightTRES="),
            "{e}"
        );
        let e = SlurmConf::parse("NodeName=n1 Cpus=2 Colour=red\n", "s").unwrap_err();
        assert!(e.message.contains("`Colour` in a NodeName line"), "{e}");
        let e = SlurmConf::parse("PartitionName=p Nodes=n9\n", "s").unwrap_err();
        assert!(e.message.contains("node n9 is not defined"), "{e}");
        let e = SlurmConf::parse("PriorityWeightQOS=-1\n", "s").unwrap_err();
        assert!(e.message.contains("PriorityWeightQOS"), "{e}");
    }

    #[test]
    fn defaults_are_read_configs() {
        let c = SlurmConf::parse("", "s").unwrap();
        let p = &c.priority;
        assert_eq!(p.priority_type, "priority/basic");
        assert_eq!(p.max_age, 7 * 86400);
        assert_eq!(p.calc_period, 300);
        assert!(p.flags.fair_tree && !p.flags.no_normal_part);
        assert_eq!(c.scheduler_type, "sched/backfill");
        assert_eq!(c.scheduler_parameters.bf_window, 1440);
    }

    #[test]
    fn time_strings_as_time_str2mins() {
        // parse_time.c: minutes, minutes:seconds, hours:minutes:seconds, days-hours[:m[:s]].
        assert_eq!(time_str2mins("7-0"), Some(Minutes::Finite(7 * 1440)));
        assert_eq!(time_str2mins("90"), Some(Minutes::Finite(90)));
        assert_eq!(
            time_str2mins("1:30"),
            Some(Minutes::Finite(2)),
            "rounded up"
        );
        assert_eq!(time_str2mins("1:00:00"), Some(Minutes::Finite(60)));
        assert_eq!(time_str2mins("1-12"), Some(Minutes::Finite(36 * 60)));
        assert_eq!(time_str2mins("UNLIMITED"), Some(Minutes::Infinite));
        assert_eq!(time_str2mins("soon"), None);
    }

    #[test]
    fn priority_flags_are_substrings() {
        let f = PriorityFlags::parse("no_normal_all,DEPTH_OBLIVIOUS");
        assert!(f.no_normal_assoc && f.no_normal_part && f.no_normal_qos && f.no_normal_tres);
        assert!(f.depth_oblivious && !f.fair_tree);
        assert!(!PriorityFlags::parse("NO_FAIR_TREE").fair_tree);
    }

    #[test]
    fn nodes_partitions_and_defaults() {
        let text = "NodeName=DEFAULT Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=64000\n\
                    NodeName=c[1-2] Gres=gpu:a100:4,mps:1K\n\
                    NodeName=big CPUs=128\n\
                    PartitionName=DEFAULT MaxTime=1-0\n\
                    PartitionName=batch Nodes=ALL Default=YES PriorityJobFactor=10\n\
                    PartitionName=gpu Nodes=c[1-2] Priority=3 MaxTime=UNLIMITED\n\
                    SchedulerParameters=bf_continue,bf_window=2880,bf_resolution=300,defer\n";
        let c = SlurmConf::parse(text, "s").unwrap();
        assert_eq!(c.nodes.len(), 3);
        assert_eq!(c.node("c1").unwrap().cpus, 32);
        assert_eq!(c.node("big").unwrap().cpus, 128);
        assert_eq!(c.node("c2").unwrap().gres[1].count, 1024);
        assert_eq!(c.node("c2").unwrap().gres[0].kind.as_deref(), Some("a100"));
        let batch = c.partition("batch").unwrap();
        assert_eq!((batch.nodes.len(), batch.priority_job_factor), (3, 10));
        assert_eq!(batch.max_time, Minutes::Finite(1440));
        let gpu = c.partition("gpu").unwrap();
        assert_eq!((gpu.priority_job_factor, gpu.priority_tier), (3, 3));
        assert_eq!(gpu.max_time, Minutes::Infinite);
        assert_eq!(c.default_partition().unwrap().name, "batch");
        let s = &c.scheduler_parameters;
        assert!(s.bf_continue);
        assert_eq!(
            (s.bf_window, s.bf_resolution, s.bf_interval),
            (2880, 300, 30)
        );
        assert_eq!(s.entries.last(), Some(&("defer".to_string(), None)));
    }

    #[test]
    fn include_follows_relative_to_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("prio-alpha.conf"), "PriorityWeightQOS=7\n").unwrap();
        let main = dir.path().join("slurm.conf");
        std::fs::write(&main, "ClusterName=Alpha\ninclude prio-%c.conf\n").unwrap();
        let c = SlurmConf::load(&main).unwrap();
        assert_eq!(c.priority.weights.qos, 7);
        assert_eq!(c.includes, [dir.path().join("prio-alpha.conf")]);
        std::fs::write(&main, "Include missing.conf\n").unwrap();
        let e = SlurmConf::load(&main).unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.message.contains("cannot read"), "{e}");
    }

    /// A file that includes itself, or one of the files including it, is a cycle, said once
    /// with the chain of files (each once): it was 16 levels of nested messages, 4.9 MB.
    #[test]
    fn an_include_cycle_is_said_once() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("slurm.conf");
        std::fs::write(&main, "ClusterName=a\nInclude slurm.conf\n").unwrap();
        let e = SlurmConf::load(&main).unwrap_err().to_string();
        let m = main.display();
        assert_eq!(
            e,
            format!("{m}:2: Include {m}: Include cycle: {m}:2 includes {m} again")
        );
        let b = dir.path().join("b.conf");
        std::fs::write(&main, "Include b.conf\n").unwrap();
        std::fs::write(&b, "PriorityWeightAge=1\n\nInclude slurm.conf\n").unwrap();
        let e = SlurmConf::load(&main).unwrap_err().to_string();
        let bb = b.display();
        assert_eq!(
            e,
            format!(
                "{bb}:3: Include {m}: Include cycle: {m}:1 includes {bb}:3 includes {m} again (included from {m}:1)"
            )
        );
        // An error deep in a chain names the chain once, innermost first.
        std::fs::write(&b, "Include c.conf\n").unwrap();
        std::fs::write(dir.path().join("c.conf"), "Bogus=1\n").unwrap();
        let e = SlurmConf::load(&main).unwrap_err().to_string();
        assert!(
            e.ends_with(&format!("(included from {bb}:1, {m}:1)")),
            "{e}"
        );
        assert!(e.len() < 400, "{e}");
    }

    /// An included FIFO or device is an error naming it (it could block, or never end), and
    /// slurm.conf itself is read up to a bound (`/dev/zero` is an error, not a read for ever).
    #[test]
    fn includes_are_regular_files_and_reads_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("slurm.conf");
        let fifo = dir.path().join("fifo.conf");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        std::fs::write(&main, "Include fifo.conf\n").unwrap();
        let e = SlurmConf::load(&main).unwrap_err().to_string();
        assert!(
            e.ends_with("fifo.conf: not a regular file (a FIFO): Include reads files"),
            "{e}"
        );
        std::fs::write(&main, "Include /dev/zero\n").unwrap();
        let e = SlurmConf::load(&main).unwrap_err().to_string();
        assert!(
            e.ends_with("Include /dev/zero: not a regular file (a device): Include reads files"),
            "{e}"
        );
        let e = SlurmConf::load(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "/dev/zero: longer than 64 MiB (the most this file may hold)"
        );
    }

    #[test]
    fn hostlists() {
        assert_eq!(
            expand_hostlist("r[1-2]n[08-09],x").unwrap(),
            ["r1n08", "r1n09", "r2n08", "r2n09", "x"]
        );
        assert!(expand_hostlist("n[3-1]").is_err());
        assert!(expand_hostlist("n[1-2").is_err());
    }
}
