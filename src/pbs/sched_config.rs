//! `sched_priv/sched_config`, read as OpenPBS's scheduler reads it (`src/scheduler/parse.cpp`,
//! `parse_config`; `misc.cpp`, `skip_line`; `prime.cpp`, `is_prime_time`).
//!
//! The rules, from that code:
//! - A line whose first non-blank character is `#` or `*`, or that is blank, is skipped.
//! - `name[:] value [prime_option]`: the name runs to the first blank or `:`; the value and the
//!   prime option are words, each maybe quoted with `"` or `'` (`scan`).
//! - Names are case-sensitive (`strcmp`). A value is `true`/`false` in any case, or a number
//!   when it starts with a digit (`strtol`); any other word counts as a number of −1, which
//!   boolean settings take as true (`num ? 1 : 0`).
//! - The prime option is `prime`, `non_prime`, `all` (the default) or `none`, lower or upper
//!   case: `prime` and `non_prime` set the value for that part of the week only, `none` for
//!   neither. Without a `holidays` file with a `YEAR` line every moment is prime time
//!   (`is_prime_time`), so the prime-time value is the one in effect; [`SchedConfig`] keeps
//!   that one and says so in a note when the two differ.
//! - An error (unknown name, bad value) is logged as `Error reading line N: ...` and the line
//!   is skipped; obsolete names are logged too. PBS goes on; so does this reader, and every
//!   such line becomes a [`Note`] the command line prints.

use super::{Note, Origin, Setting};
use crate::fairshare::inputs::EntityKind;

/// The `sched_config` settings a simulation or a ranking uses, each with the line that set it
/// (`None`: PBS's code default, `config::config()` in `parse.cpp`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SchedConfig {
    pub strict_ordering: Option<Setting<bool>>,
    pub by_queue: Option<Setting<bool>>,
    pub round_robin: Option<Setting<bool>>,
    pub fair_share: Option<Setting<bool>>,
    pub fairshare_usage_res: Option<Setting<String>>,
    pub fairshare_entity: Option<Setting<EntityKind>>,
    /// Seconds.
    pub fairshare_decay_time: Option<Setting<i64>>,
    /// As written (PBS narrows it to a C `float`; the decay does too).
    pub fairshare_decay_factor: Option<Setting<f64>>,
    pub unknown_shares: Option<Setting<i64>>,
    pub fairshare_enforce_no_shares: Option<Setting<bool>>,
    pub preemptive_sched: Option<Setting<bool>>,
    /// `job_sort_key` lines in order (`"resource HIGH|LOW"`).
    pub job_sort_key: Vec<Setting<String>>,
    /// What PBS would have logged, and settings this reader keeps but nothing simulates.
    pub notes: Vec<Note>,
}

/// The names `parse_config` accepts besides those [`SchedConfig`] keeps; they are read (no
/// note) but change nothing jobsort computes.
const OTHER_NAMES: &[&str] = &[
    "update_comments",
    "backfill_prime",
    "prime_exempt_anytime_queues",
    "allow_aoe_calendar",
    "prime_spill",
    "resv_confirm_ignore",
    "resources",
    "dedicated_prefix",
    "primetime_prefix",
    "nonprimetime_prefix",
    "smp_cluster_dist",
    "node_sort_key",
    "server_dyn_res",
    "peer_queue",
    "preempt_attempts",
    "max_job_check",
    "provision_policy",
];

/// The kept settings `parse_config` gives separate prime and non-prime values.
const PRIME_AWARE: &[&str] = &[
    "strict_ordering",
    "by_queue",
    "round_robin",
    "fair_share",
    "preemptive_sched",
    "job_sort_key",
];

/// Obsolete names (`parse.cpp` logs `Obsolete config name X[, instead use Y]`).
const OBSOLETE: &[(&str, Option<&str>)] = &[
    ("strict_fifo", Some("strict_ordering")),
    (
        "help_starving_jobs",
        Some("use eligible_time in job_sort_formula"),
    ),
    ("max_starve", Some("use eligible_time in job_sort_formula")),
    ("backfill", Some("server's backfill_depth=0")),
    ("sort_queues", None),
    ("node_group_key", Some("nothing - set via qmgr")),
    ("log_filter", Some("nothing - set log_events via qmgr")),
    ("preempt_queue_prio", Some("nothing - set via qmgr")),
    ("preempt_prio", Some("nothing - set via qmgr")),
    ("preempt_order", Some("nothing - set via qmgr")),
    ("preempt_sort", Some("nothing - set via qmgr")),
    ("sort_nodes", Some("node_sort_key")),
    (
        "half_life",
        Some("fairshare_decay_time and fairshare_decay_factor instead"),
    ),
];

// PBS's own words for the periods (`prime`, `non_prime`, `all`, `none`).
#[allow(clippy::enum_variant_names)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prime {
    Prime,
    NonPrime,
    All,
    None,
}

impl Prime {
    /// Whether the value holds in prime time, the time in effect without a holidays file.
    fn in_prime(self) -> bool {
        matches!(self, Prime::Prime | Prime::All)
    }
}

/// `scan`: the next word of `s` after blanks (and `target`), or a quoted string; the rest.
fn scan(s: &str, target: char) -> Option<(&str, &str)> {
    let s = s.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == target);
    let mut chars = s.char_indices();
    let (_, first) = chars.next()?;
    if first == '"' || first == '\'' {
        let body = &s[1..];
        return Some(match body.find(first) {
            Some(end) => (&body[..end], &body[end + 1..]),
            None => (body, ""),
        });
    }
    let end = s
        .find(|c: char| c.is_ascii_whitespace() || c == target)
        .unwrap_or(s.len());
    Some((&s[..end], s.get(end + 1..).unwrap_or("")))
}

/// `strtol` of a value that starts with a digit, as `parse_config` reads numbers (leading
/// digits; the rest ignored). Other words are −1.
fn number(value: &str) -> i64 {
    if value.eq_ignore_ascii_case("true") {
        return 1;
    }
    if value.eq_ignore_ascii_case("false") {
        return 0;
    }
    if !value.starts_with(|c: char| c.is_ascii_digit()) {
        return -1;
    }
    let digits = value
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(value.len());
    value[..digits].parse().unwrap_or(i64::MAX)
}

/// A PBS time value (`res_to_num` with `is_time`): `[[HH:]MM:]SS`. A bare number is read but
/// is not a time: PBS logs `Invalid time` and keeps the number (the assignment comes first).
fn time_value(value: &str) -> Option<(i64, bool)> {
    let parts: Vec<&str> = value.split(':').collect();
    if parts.len() > 3 || parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let mut secs: i64 = 0;
    for p in &parts {
        let v: i64 = p.parse().ok()?;
        secs = secs.checked_mul(60)?.checked_add(v)?;
    }
    Some((secs, parts.len() > 1))
}

impl SchedConfig {
    /// `fairshare_enforce_no_shares` as the site sets it, else PBS's shipped `true`.
    pub fn enforce_no_shares(&self) -> Setting<bool> {
        self.fairshare_enforce_no_shares
            .clone()
            .unwrap_or(Setting::new(true, Origin::Default))
    }

    /// Whether PBS never runs a job whose entity has no share: `fair_share` on and
    /// `fairshare_enforce_no_shares` on (`query_jobs` in OpenPBS
    /// `src/scheduler/job_info.cpp`: NEVER_RUN, "Job has zero shares for fairshare").
    pub fn never_runs_zero_shares(&self) -> bool {
        self.fair_share.as_ref().is_some_and(|s| s.value) && self.enforce_no_shares().value
    }
}

/// Parse a `sched_config` text; `file` names it in origins and notes.
pub fn parse_sched_config(text: &str, file: &str) -> SchedConfig {
    let mut c = SchedConfig::default();
    // Prime-time and non-prime values of the settings kept, to note when they differ.
    let mut non_prime: Vec<(String, String, usize)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let origin = Origin::File {
            file: file.to_string(),
            line,
        };
        let note = |msg: String| Note {
            origin: origin.clone(),
            message: msg,
        };
        let trimmed = raw.trim_start();
        if trimmed.is_empty() || trimmed.starts_with(['#', '*']) {
            continue;
        }
        let Some((name, rest)) = scan(raw, ':') else {
            continue;
        };
        let Some((value, rest)) = scan(rest, ' ') else {
            c.notes.push(note(format!(
                "Error reading line {line}: Config line invalid (PBS skips it)"
            )));
            continue;
        };
        let prime = match scan(rest, ' ').map(|(p, _)| p) {
            None => Prime::All,
            Some("prime" | "PRIME") => Prime::Prime,
            Some("non_prime" | "NON_PRIME") => Prime::NonPrime,
            Some("all" | "ALL") => Prime::All,
            Some("none" | "NONE") => Prime::None,
            Some(p) => {
                // PBS logs the error and still applies the value to all times.
                c.notes.push(note(format!(
                    "Error reading line {line}: Invalid prime keyword: {p}"
                )));
                Prime::All
            }
        };
        let num = number(value);
        let boolean = |n: i64| n != 0;
        if let Some(&(_, instead)) = OBSOLETE.iter().find(|(n, _)| *n == name) {
            // PBS's words, without its doubled "use" for the hints that start with one.
            c.notes.push(note(match instead {
                Some(i) if i.starts_with("use ") || i.starts_with("nothing") => {
                    format!("Obsolete config name {name}: {i}")
                }
                Some(i) => format!("Obsolete config name {name}, instead use {i}"),
                None => format!("Obsolete config name {name}"),
            }));
            continue;
        }
        // A setting with prime and non-prime values: kept when it holds in prime time.
        let keep = !PRIME_AWARE.contains(&name) || prime.in_prime();
        if !keep && prime == Prime::NonPrime {
            non_prime.push((name.to_string(), value.to_string(), line));
        }
        let set_bool = |slot: &mut Option<Setting<bool>>| {
            if keep {
                *slot = Some(Setting::new(boolean(num), origin.clone()));
            }
        };
        match name {
            "strict_ordering" => set_bool(&mut c.strict_ordering),
            "by_queue" => set_bool(&mut c.by_queue),
            "round_robin" => set_bool(&mut c.round_robin),
            "fair_share" => set_bool(&mut c.fair_share),
            "preemptive_sched" => set_bool(&mut c.preemptive_sched),
            "fairshare_enforce_no_shares" => {
                // No prime option in parse.cpp: it always applies.
                c.fairshare_enforce_no_shares = Some(Setting::new(boolean(num), origin.clone()))
            }
            "unknown_shares" => c.unknown_shares = Some(Setting::new(num, origin.clone())),
            "fairshare_usage_res" => {
                c.fairshare_usage_res = Some(Setting::new(value.to_string(), origin.clone()))
            }
            "fairshare_entity" => {
                let kind = match value {
                    "euser" => Some(EntityKind::Euser),
                    "egroup" => Some(EntityKind::Egroup),
                    "Account_Name" => Some(EntityKind::Account),
                    "queue" => Some(EntityKind::Queue),
                    "egroup:euser" => Some(EntityKind::EgroupEuser),
                    _ => None,
                };
                match kind {
                    Some(k) => c.fairshare_entity = Some(Setting::new(k, origin.clone())),
                    None => c.notes.push(note(format!(
                        "Error reading line {line}: fairshare_entity {value} is erroneous (or \
                         deprecated); PBS keeps it and then matches no entity: jobsort keeps \
                         the default euser"
                    ))),
                }
            }
            "fairshare_decay_time" => match time_value(value) {
                Some((secs, is_time)) => {
                    if !is_time {
                        c.notes.push(note(format!(
                            "Error reading line {line}: Invalid time {value} (PBS logs it and \
                             uses {secs} s anyway; write it as HH:MM:SS)"
                        )));
                    }
                    c.fairshare_decay_time = Some(Setting::new(secs, origin.clone()));
                }
                None => c.notes.push(note(format!(
                    "Error reading line {line}: Invalid time {value} (not used)"
                ))),
            },
            "fairshare_decay_factor" => match value.parse::<f64>() {
                // `strtod` then a `float` check: 0 < f < 1.
                Ok(f) if (f as f32) > 0.0 && (f as f32) < 1.0 => {
                    c.fairshare_decay_factor = Some(Setting::new(f, origin.clone()))
                }
                Ok(f) => c.notes.push(note(format!(
                    "Error reading line {line}: fairshare_decay_factor: Invalid value: {f}.  \
                     Valid values are between 0 and 1. (PBS keeps 0.5)"
                ))),
                Err(_) => c.notes.push(note(format!(
                    "Error reading line {line}: Invalid fairshare_decay_factor (PBS keeps 0.5)"
                ))),
            },
            "job_sort_key" => {
                let mut words = value.split_ascii_whitespace();
                let ok = matches!(
                    (words.next(), words.next()),
                    (
                        Some(_),
                        Some("high" | "HIGH" | "High" | "low" | "LOW" | "Low")
                    )
                );
                if !ok {
                    c.notes.push(note(format!(
                        "Error reading line {line}: Invalid job_sort_key"
                    )));
                } else if keep {
                    c.job_sort_key
                        .push(Setting::new(value.to_string(), origin.clone()));
                }
            }
            // It changes which nodes a job fits, which the simulation does not follow: say so.
            "resource_unset_infinite" => c.notes.push(note(
                "resource_unset_infinite is not simulated: a simulated node's unset resource is \
                 zero, as PBS's scheduler takes it without this setting (check.cpp, \
                 find_check_resource with UNSET_RES_ZERO)"
                    .to_string(),
            )),
            n if OTHER_NAMES.contains(&n) => {}
            _ => c.notes.push(note(format!(
                "Error reading line {line}: Unknown config parameter `{name}` (PBS skips it)"
            ))),
        }
    }
    for (name, value, line) in non_prime {
        let prime_value = match name.as_str() {
            "strict_ordering" => &c.strict_ordering,
            "by_queue" => &c.by_queue,
            "round_robin" => &c.round_robin,
            "fair_share" => &c.fair_share,
            "preemptive_sched" => &c.preemptive_sched,
            _ => &None,
        };
        let same = match name.as_str() {
            "job_sort_key" => c.job_sort_key.iter().any(|k| k.value == value),
            _ => prime_value.as_ref().map(|s| s.value) == Some(number(&value) != 0),
        };
        if same {
            continue; // the same in both parts of the week
        }
        c.notes.push(Note {
            origin: Origin::File {
                file: file.to_string(),
                line,
            },
            message: format!(
                "{name}: {value} holds in non-prime time only; without prime-time switching \
                 (no holidays file, as PBS then runs: all prime time) the prime-time value is \
                 in effect"
            ),
        });
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each note as `origin: message`.
    fn notes_of(c: &SchedConfig) -> Vec<String> {
        c.notes
            .iter()
            .map(|n| format!("{}: {}", n.origin, n.message))
            .collect()
    }

    fn line_of(s: &Option<Setting<bool>>) -> Option<(bool, usize)> {
        s.as_ref().map(|s| match &s.origin {
            Origin::File { line, .. } => (s.value, *line),
            _ => panic!("not from the file"),
        })
    }

    #[test]
    fn the_shipped_file_reads_as_pbs_reads_it() {
        // Lines as in OpenPBS's shipped `src/scheduler/pbs_sched_config`.
        let text = "\
# This is the config file for the scheduling policy
round_robin: False\tall
by_queue: True\t\tprime
by_queue: True\t\tnon_prime
strict_ordering: false\tALL
help_starving_jobs:\ttrue\tALL
max_starve: 24:00:00
backfill_prime:\tfalse\tALL
fair_share: false\tALL
fairshare_usage_res: cput
fairshare_entity: euser
fairshare_decay_time: 24:00:00
fairshare_decay_factor: 0.5
resources: \"ncpus, mem, arch, host, vnode, aoe, eoe\"
smp_cluster_dist: pack
preemptive_sched: true\tALL
";
        let c = parse_sched_config(text, "sched_config");
        assert_eq!(line_of(&c.strict_ordering), Some((false, 5)));
        assert_eq!(line_of(&c.by_queue), Some((true, 3)));
        assert_eq!(line_of(&c.fair_share), Some((false, 9)));
        assert_eq!(
            c.fairshare_decay_time.as_ref().map(|s| s.value),
            Some(86_400)
        );
        assert_eq!(
            c.fairshare_decay_factor.as_ref().map(|s| s.value),
            Some(0.5)
        );
        assert_eq!(
            c.fairshare_entity.as_ref().map(|s| s.value),
            Some(EntityKind::Euser)
        );
        // The obsolete names are logged, nothing else.
        let msgs: Vec<&str> = c.notes.iter().map(|n| n.message.as_str()).collect();
        assert_eq!(
            msgs,
            [
                "Obsolete config name help_starving_jobs: use eligible_time in job_sort_formula",
                "Obsolete config name max_starve: use eligible_time in job_sort_formula",
            ]
        );
    }

    #[test]
    fn values_read_as_parse_config_reads_them() {
        let c = parse_sched_config(
            "strict_ordering yes\nfair_share TRUE none\nround_robin: 0\n\
             by_queue: true prime\nby_queue: false non_prime\n\
             fairshare_decay_time: 3600\nunknown_shares: 10 all\n\
             fairshare_decay_factor: 1.0\nfairshare_entity: user\nbogus: 1\n\
             job_sort_key: \"ncpus HIGH\" ALL\njob_sort_key: \"mem sideways\"\n",
            "sc",
        );
        // `yes` is neither true nor false nor a number: −1, which is true.
        assert_eq!(line_of(&c.strict_ordering), Some((true, 1)));
        // `none`: applies to neither part of the week.
        assert_eq!(c.fair_share, None);
        assert_eq!(line_of(&c.round_robin), Some((false, 3)));
        // A bare number is logged as an invalid time, and used.
        assert_eq!(c.fairshare_decay_time.as_ref().map(|s| s.value), Some(3600));
        assert_eq!(c.unknown_shares.as_ref().map(|s| s.value), Some(10));
        assert_eq!(c.fairshare_decay_factor, None);
        assert_eq!(c.fairshare_entity, None);
        assert_eq!(c.job_sort_key.len(), 1);
        let msgs = notes_of(&c);
        assert_eq!(msgs.len(), 6, "{msgs:#?}");
        assert!(msgs[0].starts_with("sc:6: Error reading line 6: Invalid time 3600"));
        assert!(
            msgs[1].starts_with(
                "sc:8: Error reading line 8: fairshare_decay_factor: Invalid value: 1."
            )
        );
        assert!(
            msgs[2].starts_with("sc:9: Error reading line 9: fairshare_entity user is erroneous")
        );
        assert_eq!(
            msgs[3],
            "sc:10: Error reading line 10: Unknown config parameter `bogus` (PBS skips it)"
        );
        assert_eq!(
            msgs[4],
            "sc:12: Error reading line 12: Invalid job_sort_key"
        );
        // by_queue differs between prime (true, in effect) and non-prime time.
        assert!(msgs[5].starts_with("sc:5: by_queue: false holds in non-prime time only"));
        assert_eq!(line_of(&c.by_queue), Some((true, 4)));
    }

    #[test]
    fn resource_unset_infinite_is_noted_as_not_simulated() {
        // PBS (check.cpp, find_check_resource): a node's unset numeric resource is zero when
        // the fit is checked, unless sched_config names it in resource_unset_infinite. The
        // simulated nodes take the zero; the setting is noted, not silently read.
        let c = parse_sched_config(
            "resource_unset_infinite: mem\nprime_spill: 01:00:00\n",
            "sc",
        );
        let msgs = notes_of(&c);
        assert_eq!(msgs.len(), 1, "{msgs:#?}");
        assert!(
            msgs[0].starts_with("sc:1: resource_unset_infinite is not simulated"),
            "{msgs:#?}"
        );
    }

    #[test]
    fn scan_takes_words_and_quoted_strings() {
        assert_eq!(scan("  name: value", ':'), Some(("name", " value")));
        assert_eq!(scan(" 'a b' c", ' '), Some(("a b", " c")));
        assert_eq!(scan("\"open", ' '), Some(("open", "")));
        assert_eq!(scan("   ", ' '), None);
        assert_eq!(number("12abc"), 12);
        assert_eq!(number("FALSE"), 0);
        assert_eq!(number("-3"), -1);
    }
}
