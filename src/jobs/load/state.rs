//! Job states as `qstat -f -F json` gives them, and which jobs PBS's scheduler sorts.
//!
//! The scheduler (OpenPBS `src/scheduler/job_info.cpp: query_jobs_chunk` and
//! `resource_resv.cpp: in_runnable_state`) reads every job of a queue and sorts only those in
//! a runnable state: `Q`; `S` with substate 45 (suspended by the scheduler itself, to be
//! resumed); an array parent `123[]` in `Q` or `B` while it has queued subjobs
//! (`array_indices_remaining`: the scheduler runs the next one when the parent's turn comes).
//! A subjob `123[4]` that is not running, exiting or suspended is ignored ("Subjob found in
//! undesirable state"): its parent stands for it. Every other job is listed with why it is
//! not ranked. State letters: `pbs_ifl.h`/`job.h` (`JOB_STATE_LTR_*`), meanings: `qstat(1B)`.

/// One job's state as read: the state letter and what else decides whether it is sorted,
/// in two bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JobState {
    letter: u8,
    flags: u8,
}

/// The array parent `123[]`.
const ARRAY_PARENT: u8 = 1;
/// A subjob `123[4]`.
const SUBJOB: u8 = 1 << 1;
/// The parent has subjobs still queued (`array_indices_remaining` is not `-`).
const QUEUED_SUBJOBS: u8 = 1 << 2;
/// `substate` 45: suspended by the scheduler (`SUSP_BY_SCHED_SUBSTATE`, `data_types.h`).
const SUSPENDED_BY_SCHEDULER: u8 = 1 << 3;
/// `Hold_Types` letters (`qhold(1B)`): user, other (operator/manager), system, bad password.
const HOLD_USER: u8 = 1 << 4;
const HOLD_OTHER: u8 = 1 << 5;
const HOLD_SYSTEM: u8 = 1 << 6;
const HOLD_PASSWORD: u8 = 1 << 7;

/// The state letters PBS writes (`JOB_STATE_LTR_*`).
const LETTERS: &str = "BEFHMQRSTUWX";

/// What a qstat job object says about its state: the attributes the scheduler reads.
#[derive(Debug, Default)]
pub(super) struct StateFields {
    pub(super) job_state: Option<String>,
    pub(super) substate: Option<String>,
    pub(super) hold_types: Option<String>,
    /// `array`: `True` on an array parent.
    pub(super) array: bool,
    pub(super) array_indices_remaining: Option<String>,
    /// `array_id`: on a subjob, its parent's id.
    pub(super) array_id: Option<String>,
}

impl StateFields {
    /// Keep `key` when it is one of the state attributes.
    pub(super) fn read(&mut self, key: &str, value: &serde_json::Value) {
        let text = || match value {
            serde_json::Value::String(s) => Some(s.clone()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            serde_json::Value::Bool(b) => Some(b.to_string()),
            _ => None,
        };
        match key {
            "job_state" => self.job_state = text(),
            "substate" => self.substate = text(),
            "Hold_Types" => self.hold_types = text(),
            // qstat prints booleans as `True`/`False`.
            "array" => self.array = text().is_some_and(|t| t.eq_ignore_ascii_case("true")),
            "array_indices_remaining" => self.array_indices_remaining = text(),
            "array_id" => self.array_id = text(),
            _ => {}
        }
    }

    /// The state, `Ok(None)` when the job gives no `job_state`; an error names the letter.
    pub(super) fn state(&self, id: &str) -> Result<Option<JobState>, String> {
        let Some(text) = &self.job_state else {
            return Ok(None);
        };
        let letter = match text.trim().as_bytes() {
            [b] if LETTERS.as_bytes().contains(b) => *b,
            _ => {
                return Err(format!(
                    "`{text}` is no PBS job state (one of {})",
                    LETTERS
                        .chars()
                        .map(String::from)
                        .collect::<Vec<_>>()
                        .join(" ")
                ));
            }
        };
        // `123[]` (parent) and `123[4]` (subjob): `pbs_ifl.h` job id forms.
        let bracket = id.find('[').map(|i| &id[i..]);
        let mut flags = 0;
        if self.array || bracket.is_some_and(|b| b.starts_with("[]")) {
            flags |= ARRAY_PARENT;
        } else if self.array_id.is_some() || bracket.is_some() {
            flags |= SUBJOB;
        }
        if self
            .array_indices_remaining
            .as_deref()
            .is_some_and(|r| !matches!(r.trim(), "" | "-"))
        {
            flags |= QUEUED_SUBJOBS;
        }
        if self.substate.as_deref().map(str::trim) == Some("45") {
            flags |= SUSPENDED_BY_SCHEDULER;
        }
        for c in self.hold_types.as_deref().unwrap_or_default().chars() {
            flags |= match c {
                'u' => HOLD_USER,
                'o' => HOLD_OTHER,
                's' => HOLD_SYSTEM,
                'p' => HOLD_PASSWORD,
                _ => 0,
            };
        }
        Ok(Some(JobState { letter, flags }))
    }
}

impl JobState {
    /// The state letter (`Q`, `R`, `H`, ...).
    pub fn letter(self) -> char {
        char::from(self.letter)
    }

    fn has(self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// Whether PBS's scheduler sorts this job (`in_runnable_state`, and the subjob filter of
    /// `query_jobs_chunk`).
    pub fn is_sorted(self) -> bool {
        self.not_sorted_because("").is_none()
    }

    /// Why the scheduler does not sort job `id` in this state, `None` when it does.
    pub fn not_sorted_because(self, id: &str) -> Option<String> {
        let letter = self.letter;
        if self.has(SUBJOB) && !matches!(letter, b'R' | b'E' | b'S' | b'U') {
            return Some(match letter {
                b'X' => "subjob finished or deleted".into(),
                _ => format!(
                    "queued subjob: PBS sorts its array parent {}",
                    parent_of(id)
                ),
            });
        }
        if self.has(ARRAY_PARENT) && matches!(letter, b'Q' | b'B') {
            return (!self.has(QUEUED_SUBJOBS))
                .then(|| "array parent with no queued subjob left".to_string());
        }
        match letter {
            b'Q' => None,
            b'S' if self.has(SUSPENDED_BY_SCHEDULER) => None,
            _ => Some(self.plain_reason()),
        }
    }

    /// The reason a job in this state is not sorted, by its letter (`qstat(1B)`).
    fn plain_reason(self) -> String {
        match self.letter {
            b'R' => "running".into(),
            b'E' => "exiting after having run".into(),
            b'H' => self.held(),
            b'W' => "waiting for its execution time (qsub -a)".into(),
            b'T' => "in transit to a new location".into(),
            b'S' => "suspended".into(),
            b'U' => "suspended: workstation busy (cycle harvesting)".into(),
            b'B' => "array job with subjobs running".into(),
            b'F' => "finished".into(),
            b'M' => "moved to another server".into(),
            b'X' => "subjob finished or deleted".into(),
            b'Q' => "queued".into(),
            _ => "in an unknown state".into(),
        }
    }

    /// `held: user and system holds`: which holds (`Hold_Types`) the job has.
    fn held(self) -> String {
        let names: Vec<&str> = [
            (HOLD_USER, "user"),
            (HOLD_OTHER, "operator"),
            (HOLD_SYSTEM, "system"),
            (HOLD_PASSWORD, "bad password"),
        ]
        .into_iter()
        .filter(|&(flag, _)| self.has(flag))
        .map(|(_, name)| name)
        .collect();
        match names.split_last() {
            None => "held".into(),
            Some((last, [])) => format!("held: {last} hold"),
            Some((last, rest)) => format!("held: {} and {last} holds", rest.join(", ")),
        }
    }
}

/// `104[].srv` for subjob `104[4].srv`.
fn parent_of(id: &str) -> String {
    match (id.find('['), id.find(']')) {
        (Some(open), Some(close)) if open < close => {
            format!("{}[]{}", &id[..open], &id[close + 1..])
        }
        _ => "`[]`".to_string(),
    }
}

/// A job the scheduler would not sort: its id, its state as the file gives it (`H`,
/// `RUNNING`) and why it is not ranked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotRanked {
    pub id: String,
    pub state: String,
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(id: &str, f: StateFields) -> JobState {
        f.state(id).unwrap().unwrap()
    }

    fn letter(l: &str) -> StateFields {
        StateFields {
            job_state: Some(l.into()),
            ..StateFields::default()
        }
    }

    #[test]
    fn what_the_scheduler_sorts() {
        assert!(state("1.s", letter("Q")).is_sorted());
        for (l, why) in [
            ("R", "running"),
            ("E", "exiting after having run"),
            ("H", "held"),
            ("W", "waiting for its execution time (qsub -a)"),
            ("T", "in transit to a new location"),
            ("S", "suspended"),
            ("F", "finished"),
            ("M", "moved to another server"),
        ] {
            assert_eq!(
                state("1.s", letter(l)).not_sorted_because("1.s").as_deref(),
                Some(why)
            );
        }
        // Suspended by the scheduler (substate 45): in_runnable_state's `is_susp_sched`.
        let s = StateFields {
            substate: Some("45".into()),
            ..letter("S")
        };
        assert!(state("1.s", s).is_sorted());
        let held = StateFields {
            hold_types: Some("us".into()),
            ..letter("H")
        };
        assert_eq!(
            state("1.s", held).not_sorted_because("1.s").as_deref(),
            Some("held: user and system holds")
        );
        assert_eq!(
            letter("Z").state("1.s").unwrap_err(),
            "`Z` is no PBS job state (one of B E F H M Q R S T U W X)"
        );
        assert_eq!(StateFields::default().state("1.s"), Ok(None));
    }

    #[test]
    fn arrays_as_in_runnable_state() {
        // A parent in Q or B is sorted while it has queued subjobs, whatever else it says.
        for l in ["Q", "B"] {
            let parent = StateFields {
                array: true,
                array_indices_remaining: Some("4-10".into()),
                ..letter(l)
            };
            assert!(state("12[].s", parent).is_sorted(), "{l}");
            let done = StateFields {
                array_indices_remaining: Some("-".into()),
                ..letter(l)
            };
            assert_eq!(
                state("12[].s", done).not_sorted_because("1.s").as_deref(),
                Some("array parent with no queued subjob left")
            );
        }
        let held = StateFields {
            array: true,
            array_indices_remaining: Some("1-3".into()),
            hold_types: Some("u".into()),
            ..letter("H")
        };
        assert_eq!(
            state("12[].s", held).not_sorted_because("1.s").as_deref(),
            Some("held: user hold")
        );
        // Subjobs: query_jobs_chunk keeps running/exiting/suspended ones, which are not sorted
        // either; a queued one is its parent's.
        assert_eq!(
            state("12[3].s", letter("Q"))
                .not_sorted_because("12[3].s")
                .as_deref(),
            Some("queued subjob: PBS sorts its array parent 12[].s")
        );
        assert_eq!(
            state("12[3].s", letter("R"))
                .not_sorted_because("1.s")
                .as_deref(),
            Some("running")
        );
        assert_eq!(
            state("12[3].s", letter("X"))
                .not_sorted_because("1.s")
                .as_deref(),
            Some("subjob finished or deleted")
        );
    }
}
