//! The value syntax of `sacct --parsable2` output (Slurm 22.05), each read as sacct writes
//! it. Sources: `src/common/parse_time.c` (`slurm_make_time_str`, `time_str2secs`,
//! `mins2time_str`), `src/sacct/print.c` (`PRINT_STATE`, `PRINT_TIMELIMIT`),
//! `src/common/slurmdb_defs.c` (TRES strings), `src/common/slurm_protocol_api.c`
//! (`convert_num_unit2`, memory units).

use crate::input::units::days_from_civil;

/// A time stamp column (`Submit`, `Eligible`, `Start`, `End`): seconds since the epoch, or
/// `None` for `Unknown` (0 or INFINITE: the start of a pending job, the end of a running one),
/// `None` (NO_VAL) and an empty field. sacct prints `%FT%T` in local time
/// (`slurm_make_time_str`); `utc_offset` is that zone's offset east of UTC in seconds.
pub fn time_stamp(s: &str, utc_offset: i64) -> Result<Option<i64>, String> {
    if s.is_empty() || s == "Unknown" || s == "None" {
        return Ok(None);
    }
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0i64, |v, &d| v * 10 + (d - b'0') as i64))
    };
    let parsed = (b.len() == 19
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':')
        .then(|| {
            Some((
                digits(0..4)?,
                digits(5..7)?,
                digits(8..10)?,
                digits(11..13)?,
                digits(14..16)?,
                digits(17..19)?,
            ))
        })
        .flatten();
    let bad = || {
        format!(
            "`{s}` is not a time (expected YYYY-MM-DDTHH:MM:SS, `Unknown` or `None`: dump with \
             SLURM_TIME_FORMAT unset or `standard`)"
        )
    };
    let (y, mo, d, h, mi, se) = parsed.ok_or_else(bad)?;
    let days_in_month = match mo {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        _ => return Err(bad()),
    };
    if d < 1 || d > days_in_month || h > 23 || mi > 59 || se > 60 {
        return Err(bad());
    }
    Ok(Some(
        days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + se - utc_offset,
    ))
}

/// A UTC offset as `UTC`, `Z` or `±HH:MM` (also `±HHMM`, `±HH`): seconds east of UTC.
pub fn utc_offset(s: &str) -> Result<i64, String> {
    if s.eq_ignore_ascii_case("utc") || s == "Z" {
        return Ok(0);
    }
    let bad = || format!("`{s}` is not a UTC offset (expected UTC or ±HH:MM, e.g. -05:00)");
    let (sign, rest) = match s.as_bytes().first() {
        Some(b'+') => (1, &s[1..]),
        Some(b'-') => (-1, &s[1..]),
        _ => return Err(bad()),
    };
    let b = rest.as_bytes();
    let two = |i: usize| -> Option<i64> {
        let d = b.get(i..i + 2)?;
        d.iter()
            .all(u8::is_ascii_digit)
            .then(|| ((d[0] - b'0') * 10 + (d[1] - b'0')) as i64)
    };
    let (h, m) = match b.len() {
        2 => (two(0), Some(0)),
        4 => (two(0), two(2)),
        5 if b[2] == b':' => (two(0), two(3)),
        _ => (None, None),
    };
    let (Some(h), Some(m)) = (h, m) else {
        return Err(bad());
    };
    if h > 14 || m > 59 {
        return Err(bad());
    }
    Ok(sign * (h * 3600 + m * 60))
}

/// A `Timelimit` (or any Slurm duration): seconds, or `None` for no limit of the job's own
/// (`UNLIMITED`/`INFINITE`/`-1`, `Partition_Limit`, empty). The forms of `time_str2secs`:
/// `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M`, `D-H:M:S`; sacct itself writes `[D-]HH:MM:SS`
/// (`mins2time_str`).
pub fn duration(s: &str) -> Result<Option<i64>, String> {
    if s.is_empty()
        || s == "Partition_Limit"
        || s == "-1"
        || s.eq_ignore_ascii_case("UNLIMITED")
        || s.eq_ignore_ascii_case("INFINITE")
    {
        return Ok(None);
    }
    let bad = || {
        format!(
            "`{s}` is not a time limit (expected [D-]HH:MM:SS, MM:SS, M, UNLIMITED or \
             Partition_Limit)"
        )
    };
    let number = |p: &str| -> Result<i64, String> {
        if p.is_empty() || p.len() > 9 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        p.parse().map_err(|_| bad())
    };
    let (days, clock) = match s.split_once('-') {
        Some((d, rest)) => (Some(number(d)?), rest),
        None => (None, s),
    };
    let parts = clock
        .split(':')
        .map(number)
        .collect::<Result<Vec<_>, _>>()?;
    let secs = match (days, parts.as_slice()) {
        (Some(d), [h]) => d * 86_400 + h * 3600,
        (Some(d), [h, m]) => d * 86_400 + h * 3600 + m * 60,
        (Some(d), [h, m, sec]) => d * 86_400 + h * 3600 + m * 60 + sec,
        (None, [m]) => m * 60,
        (None, [m, sec]) => m * 60 + sec,
        (None, [h, m, sec]) => h * 3600 + m * 60 + sec,
        _ => return Err(bad()),
    };
    Ok(Some(secs))
}

/// A `TimelimitRaw`: minutes, or the words of [`duration`].
pub fn raw_minutes(s: &str) -> Result<Option<i64>, String> {
    match duration(s)? {
        // A bare number is minutes in both forms.
        Some(_) if s.bytes().all(|b| b.is_ascii_digit()) => {
            Ok(Some(s.parse::<i64>().map_err(|e| e.to_string())? * 60))
        }
        Some(_) => Err(format!("`{s}` is not a number of minutes")),
        None => Ok(None),
    }
}

/// A whole count (`NNodes`, `NCPUS`, `ReqCPUS`, `UID`): `None` when empty.
pub fn whole(s: &str) -> Result<Option<u64>, String> {
    if s.is_empty() {
        return Ok(None);
    }
    s.parse()
        .map(Some)
        .map_err(|_| format!("`{s}` is not a whole number"))
}

/// A memory amount as sacct prints it: a number (maybe with two decimals, `1.50G`) and a unit
/// letter of `K M G T P` (powers of 1024; no letter = megabytes, Slurm's unit), in KB.
pub fn memory_kb(s: &str) -> Result<f64, String> {
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let bad = || format!("`{s}` is not a memory size (expected a number and K, M, G, T or P)");
    let n: f64 = num.parse().map_err(|_| bad())?;
    let kb = match unit {
        "K" | "k" => 1.0,
        "" | "M" | "m" => 1024.0,
        "G" | "g" => 1024.0 * 1024.0,
        "T" | "t" => 1024.0f64.powi(3),
        "P" | "p" => 1024.0f64.powi(4),
        _ => return Err(bad()),
    };
    Ok(n * kb)
}

/// `ReqMem`: 22.05 prints the job's total (`16G`, from ReqTRES); up to 20.11 a per-node
/// (`48000Mn`) or per-CPU (`3000Mc`) amount (`[S2011] src/sacct/print.c`, changed in 21.08).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ReqMem {
    Total(f64),
    PerNode(f64),
    PerCpu(f64),
}

impl ReqMem {
    pub fn parse(s: &str) -> Result<Option<ReqMem>, String> {
        if s.is_empty() {
            return Ok(None);
        }
        let (body, kind) = match s.as_bytes()[s.len() - 1] {
            b'n' => (&s[..s.len() - 1], ReqMem::PerNode as fn(f64) -> ReqMem),
            b'c' => (&s[..s.len() - 1], ReqMem::PerCpu as fn(f64) -> ReqMem),
            _ => (s, ReqMem::Total as fn(f64) -> ReqMem),
        };
        memory_kb(body).map(|kb| Some(kind(kb)))
    }

    /// The job's total in KB for `nodes` nodes and `cpus` CPUs.
    pub fn total_kb(self, nodes: u64, cpus: u64) -> f64 {
        match self {
            ReqMem::Total(kb) => kb,
            ReqMem::PerNode(kb) => kb * nodes as f64,
            ReqMem::PerCpu(kb) => kb * cpus as f64,
        }
    }
}

/// The TRES a simulator reads from `ReqTRES` / `AllocTRES`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tres {
    pub cpu: Option<u64>,
    pub node: Option<u64>,
    /// KB.
    pub mem: Option<f64>,
    /// `gres/gpu` (the untyped total; typed `gres/gpu:a100` entries are parts of it).
    pub gpu: Option<u64>,
}

impl Tres {
    /// `type[/name]=count` joined by `,` (`billing=4,cpu=4,gres/gpu=2,mem=16G,node=1`); other
    /// TRES (billing, energy, licences, bb/...) are skipped. A count of `NONE` (INFINITE) is
    /// no value. Empty for a pending job's AllocTRES.
    pub fn parse(s: &str) -> Result<Tres, String> {
        let mut t = Tres::default();
        if s.is_empty() {
            return Ok(t);
        }
        for item in s.split(',') {
            let Some((name, value)) = item.split_once('=') else {
                return Err(format!(
                    "`{item}` is not a TRES (expected type[/name]=count)"
                ));
            };
            if value == "NONE" {
                continue;
            }
            let count = || {
                value
                    .parse::<u64>()
                    .map_err(|_| format!("TRES `{name}`: `{value}` is not a whole number"))
            };
            match name {
                "cpu" => t.cpu = Some(count()?),
                "node" => t.node = Some(count()?),
                "gres/gpu" => t.gpu = Some(count()?),
                "mem" => t.mem = Some(memory_kb(value).map_err(|e| format!("TRES mem: {e}"))?),
                _ => {}
            }
        }
        Ok(t)
    }

    pub fn is_empty(&self) -> bool {
        *self == Tres::default()
    }
}

/// A job's `State` as sacct prints it: the base name, and for `CANCELLED by <uid>` the uid
/// (`print.c: PRINT_STATE`). Names from `sacct.1` "JOB STATE CODES"; a name truncated by a
/// fixed width (`CANCELLED+`) is refused (a `-P` dump never truncates).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobState {
    BootFail,
    Cancelled,
    Completed,
    Deadline,
    Failed,
    NodeFail,
    OutOfMemory,
    Pending,
    Preempted,
    Running,
    Requeued,
    Resizing,
    Revoked,
    Suspended,
    Timeout,
}

impl JobState {
    pub fn parse(s: &str) -> Result<JobState, String> {
        let base = match s.split_once(" by ") {
            Some((base, uid)) if base == "CANCELLED" => {
                if uid.is_empty() || !uid.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(format!("`{s}`: `{uid}` is not a numeric uid"));
                }
                base
            }
            _ => s,
        };
        Ok(match base {
            "BOOT_FAIL" => JobState::BootFail,
            "CANCELLED" => JobState::Cancelled,
            "COMPLETED" => JobState::Completed,
            "DEADLINE" => JobState::Deadline,
            "FAILED" => JobState::Failed,
            "NODE_FAIL" => JobState::NodeFail,
            "OUT_OF_MEMORY" => JobState::OutOfMemory,
            "PENDING" => JobState::Pending,
            "PREEMPTED" => JobState::Preempted,
            "RUNNING" => JobState::Running,
            "REQUEUED" => JobState::Requeued,
            "RESIZING" => JobState::Resizing,
            "REVOKED" => JobState::Revoked,
            "SUSPENDED" => JobState::Suspended,
            "TIMEOUT" => JobState::Timeout,
            _ => return Err(format!("`{s}` is not a job state of sacct")),
        })
    }

    /// Whether a job in this state has still to end (it has no end time yet).
    pub fn is_active(self) -> bool {
        matches!(
            self,
            JobState::Pending | JobState::Running | JobState::Suspended | JobState::Resizing
        )
    }
}

/// What a `JobID` names (`slurmdb_get_job_id_str`, `log_build_step_id_str`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobIdKind {
    /// A job, an array task `123_4`, or a het component `123+0`.
    Job,
    /// A step: `123.batch`, `123.extern`, `123.0`, `123+0.1`.
    Step,
    /// Array tasks still pending, as one record: `123_[1-3,9%2]`.
    PendingArray,
}

impl JobIdKind {
    pub fn of(id: &str) -> Result<JobIdKind, String> {
        let digits_at = |s: &str| !s.is_empty() && s.as_bytes()[0].is_ascii_digit();
        if !digits_at(id) {
            return Err(format!("`{id}` is not a Slurm job id"));
        }
        Ok(if id.contains('.') {
            JobIdKind::Step
        } else if id.contains("_[") {
            JobIdKind::PendingArray
        } else {
            JobIdKind::Job
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_stamps_as_slurm_make_time_str_prints_them() {
        // 2015-06-26T13:57:00 UTC = 1435327020 (date -u -d 2015-06-26T13:57:00 +%s).
        assert_eq!(
            time_stamp("2015-06-26T13:57:00", 0),
            Ok(Some(1_435_327_020))
        );
        assert_eq!(
            time_stamp("2015-06-26T13:57:00", -5 * 3600),
            Ok(Some(1_435_327_020 + 5 * 3600))
        );
        assert_eq!(
            time_stamp("2016-02-29T00:00:00", 0),
            Ok(Some(1_456_704_000))
        );
        for none in ["Unknown", "None", ""] {
            assert_eq!(time_stamp(none, 0), Ok(None));
        }
        for bad in [
            "2015-06-26 13:57:00",
            "2015-02-29T00:00:00",
            "2015-06-26T24:00:00",
            "06/26-13:57:00",
            "2015-06-26T13:57",
        ] {
            assert!(time_stamp(bad, 0).is_err(), "{bad}");
        }
    }

    #[test]
    fn utc_offsets() {
        assert_eq!(utc_offset("UTC"), Ok(0));
        assert_eq!(utc_offset("-05:00"), Ok(-18_000));
        assert_eq!(utc_offset("+0530"), Ok(19_800));
        assert_eq!(utc_offset("+01"), Ok(3600));
        for bad in [
            "EST", "5:00", "+5:00", "+25:00", "+05:60", "+1:", "+", "-0é", "+12:3",
        ] {
            assert!(utc_offset(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_as_time_str2secs_reads_them() {
        assert_eq!(duration("3-00:00:00"), Ok(Some(3 * 86_400)));
        assert_eq!(duration("14:20:00"), Ok(Some(14 * 3600 + 20 * 60)));
        // Without a day field, two parts are M:S and one is minutes (time_str2secs).
        assert_eq!(duration("10:30"), Ok(Some(630)));
        assert_eq!(duration("90"), Ok(Some(5400)));
        assert_eq!(duration("1-12"), Ok(Some(86_400 + 12 * 3600)));
        assert_eq!(duration("1-12:30"), Ok(Some(86_400 + 12 * 3600 + 1800)));
        for none in ["UNLIMITED", "Partition_Limit", "INFINITE", "-1", ""] {
            assert_eq!(duration(none), Ok(None), "{none}");
        }
        for bad in ["1:2:3:4", "x", "1-", "-5", "1:-2"] {
            assert!(duration(bad).is_err(), "{bad}");
        }
        assert_eq!(raw_minutes("860"), Ok(Some(860 * 60)));
        assert_eq!(raw_minutes("UNLIMITED"), Ok(None));
        assert!(raw_minutes("14:20:00").is_err());
    }

    #[test]
    fn memory_and_req_mem() {
        assert_eq!(memory_kb("3000M"), Ok(3000.0 * 1024.0));
        assert_eq!(memory_kb("1.50G"), Ok(1.5 * 1024.0 * 1024.0));
        assert_eq!(memory_kb("16G"), Ok(16.0 * 1024.0 * 1024.0));
        assert!(memory_kb("16X").is_err());
        // Pre-21.08 suffixes: per CPU and per node.
        assert_eq!(
            ReqMem::parse("3000Mc"),
            Ok(Some(ReqMem::PerCpu(3000.0 * 1024.0)))
        );
        assert_eq!(
            ReqMem::parse("48000Mn").unwrap().unwrap().total_kb(3, 36),
            3.0 * 48000.0 * 1024.0
        );
        assert_eq!(ReqMem::parse("0n"), Ok(Some(ReqMem::PerNode(0.0))));
        assert_eq!(ReqMem::parse("16G"), Ok(Some(ReqMem::Total(16777216.0))));
        assert_eq!(ReqMem::parse(""), Ok(None));
    }

    #[test]
    fn tres_strings() {
        let t =
            Tres::parse("billing=36,cpu=36,gres/gpu=2,gres/gpu:a100=2,mem=48000M,node=3").unwrap();
        assert_eq!(
            t,
            Tres {
                cpu: Some(36),
                node: Some(3),
                mem: Some(48000.0 * 1024.0),
                gpu: Some(2)
            }
        );
        assert_eq!(Tres::parse(""), Ok(Tres::default()));
        assert_eq!(Tres::parse("cpu=NONE").unwrap().cpu, None);
        assert!(Tres::parse("cpu").is_err());
        assert!(Tres::parse("cpu=1.5").is_err());
    }

    #[test]
    fn states_and_ids() {
        assert_eq!(
            JobState::parse("CANCELLED by 102216"),
            Ok(JobState::Cancelled)
        );
        assert_eq!(JobState::parse("OUT_OF_MEMORY"), Ok(JobState::OutOfMemory));
        assert!(JobState::parse("CANCELLED+").is_err());
        assert!(JobState::parse("CANCELLED by x").is_err());
        assert!(JobState::parse("COMPLETED by 5").is_err());
        assert_eq!(JobIdKind::of("4103947_100"), Ok(JobIdKind::Job));
        assert_eq!(JobIdKind::of("123+1"), Ok(JobIdKind::Job));
        assert_eq!(JobIdKind::of("123.batch"), Ok(JobIdKind::Step));
        assert_eq!(JobIdKind::of("123+0.extern"), Ok(JobIdKind::Step));
        assert_eq!(JobIdKind::of("123_[1-3,9%2]"), Ok(JobIdKind::PendingArray));
        assert!(JobIdKind::of("JobID").is_err());
    }
}
