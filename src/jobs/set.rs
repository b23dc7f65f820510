//! Jobs by column ([`JobSet`]): what `rank` and `eval` hold, read straight from a file by the
//! loaders through a [`JobSetBuilder`], one job at a time.
//!
//! Per job that is: the id in one shared buffer ([`Texts`]), a 4-byte code each for user,
//! group, account and queue (the names themselves once each), the submission order, and one
//! `f64` per numeric column in the [`JobTable`] the evaluators read — no per-job map, no copy
//! of the values into a second table. A column a loader is told not to keep costs nothing.
//! Jobs of `qstat -f -F json` also carry their state (two bytes each, [`JobState`]): the
//! jobs PBS's scheduler would not sort are taken out with [`JobSet::take_not_ranked`].

use super::Job;
use super::load::{JobState, NotRanked};
use crate::fairshare::inputs::EntityKind;
use crate::table::{JobTable, Texts};
use rustc_hash::{FxHashMap, FxHashSet};

/// A job has no such name (user, group, ...).
const NONE: u32 = u32::MAX;

/// Names shared by many jobs (users, groups, accounts, queues), each held once.
#[derive(Debug, Clone, Default)]
struct Names {
    text: Texts,
    code: FxHashMap<String, u32>,
}

impl Names {
    fn code(&mut self, name: &str) -> u32 {
        if let Some(&c) = self.code.get(name) {
            return c;
        }
        let c = self.text.len() as u32;
        self.text.push(name);
        self.code.insert(name.to_string(), c);
        c
    }
}

/// One name per job as a code into [`Names`]; empty while no job has one.
#[derive(Debug, Clone, Default)]
struct Codes(Vec<u32>);

impl Codes {
    fn push(&mut self, row: usize, code: Option<u32>) {
        match code {
            None if self.0.is_empty() => {}
            None => self.0.push(NONE),
            Some(c) => {
                self.0.resize(row, NONE);
                self.0.push(c);
            }
        }
    }
    fn get(&self, i: usize) -> Option<u32> {
        self.0.get(i).copied().filter(|&c| c != NONE)
    }
}

/// Jobs as read from a file, by column.
#[derive(Debug, Clone, Default)]
pub struct JobSet {
    ids: Texts,
    names: Names,
    user: Codes,
    group: Codes,
    account: Codes,
    queue: Codes,
    /// `submit` / `qrank`; NaN where a job has none (read values are finite).
    submit: Vec<f64>,
    without_submit: usize,
    /// Each job's state (qstat output); empty while no job has one.
    states: Vec<Option<JobState>>,
    values: JobTable,
}

impl JobSet {
    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The id of job `i` (`i` < [`JobSet::len`]).
    pub fn id(&self, i: usize) -> &str {
        self.ids.get(i).unwrap_or_default()
    }

    /// Every job's id, for [`TieBreak::ids`](crate::rank::TieBreak).
    pub fn ids(&self) -> &Texts {
        &self.ids
    }

    fn name(&self, codes: &Codes, i: usize) -> Option<&str> {
        codes.get(i).and_then(|c| self.names.text.get(c as usize))
    }

    pub fn user(&self, i: usize) -> Option<&str> {
        self.name(&self.user, i)
    }

    pub fn group(&self, i: usize) -> Option<&str> {
        self.name(&self.group, i)
    }

    pub fn account(&self, i: usize) -> Option<&str> {
        self.name(&self.account, i)
    }

    pub fn queue(&self, i: usize) -> Option<&str> {
        self.name(&self.queue, i)
    }

    /// The submission order of job `i` (`submit` / `qrank`, `qtime` in qstat output).
    pub fn submit(&self, i: usize) -> Option<f64> {
        self.submit.get(i).copied().filter(|v| !v.is_nan())
    }

    /// Every job's submission order, when every job has one.
    pub fn submits(&self) -> Option<&[f64]> {
        (self.without_submit == 0).then_some(self.submit.as_slice())
    }

    /// The state of job `i`, when its file gives one (`qstat -f -F json`).
    pub fn state(&self, i: usize) -> Option<JobState> {
        self.states.get(i).copied().flatten()
    }

    /// Whether any job has a state (the file says which jobs the scheduler sorts).
    pub fn has_states(&self) -> bool {
        !self.states.is_empty()
    }

    /// Take out the jobs PBS's scheduler would not sort ([`JobState::is_sorted`]), in input
    /// order, each with its state and why; the jobs left keep their order. Jobs without a
    /// state stay.
    pub fn take_not_ranked(&mut self) -> Vec<NotRanked> {
        let not_ranked: Vec<(usize, JobState, String)> = (0..self.len())
            .filter_map(|i| {
                let state = self.state(i)?;
                state
                    .not_sorted_because(self.id(i))
                    .map(|why| (i, state, why))
            })
            .collect();
        if not_ranked.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(not_ranked.len());
        let mut keep = vec![true; self.len()];
        for (i, state, reason) in not_ranked {
            keep[i] = false;
            out.push(NotRanked {
                id: self.id(i).to_string(),
                state: state.letter().to_string(),
                reason,
            });
        }
        self.retain(&keep);
        out
    }

    /// Keep the jobs `keep` marks, in order.
    fn retain(&mut self, keep: &[bool]) {
        let kept = |i: &usize| keep[*i];
        let rows: Vec<usize> = (0..self.len()).filter(kept).collect();
        let mut ids = Texts::new();
        for &i in &rows {
            ids.push(self.id(i));
        }
        for codes in [
            &mut self.user,
            &mut self.group,
            &mut self.account,
            &mut self.queue,
        ] {
            if !codes.0.is_empty() {
                codes.0 = rows.iter().map(|&i| codes.0[i]).collect();
            }
        }
        self.submit = rows.iter().map(|&i| self.submit[i]).collect();
        self.without_submit = self.submit.iter().filter(|v| v.is_nan()).count();
        if !self.states.is_empty() {
            self.states = rows.iter().map(|&i| self.states[i]).collect();
        }
        let mut values = JobTable::new(rows.len());
        for name in self.values.column_names() {
            let column = self.values.column(name).unwrap_or_default();
            values
                .set_column(name, rows.iter().map(|&i| column[i]).collect())
                .expect("one value per job kept");
        }
        self.values = values;
        self.ids = ids;
    }

    /// The numeric values: one column per name any job has (absent values are 0).
    pub fn table(&self) -> &JobTable {
        &self.values
    }

    /// Free the numeric columns (after the last evaluation); the identities stay.
    pub fn drop_values(&mut self) {
        self.values = JobTable::new(self.len());
    }

    /// The value `name` of job `i`: `None` when no job has that column.
    pub fn value(&self, i: usize, name: &str) -> Option<f64> {
        self.values.column(name).and_then(|c| c.get(i).copied())
    }

    /// Add or replace a column (every job's value).
    pub fn set_column(
        &mut self,
        name: &str,
        values: Vec<f64>,
    ) -> Result<(), crate::table::ColumnLengthMismatch> {
        self.values.set_column(name, values)
    }

    /// The fairshare entity of job `i` (PBS `fairshare_entity`), or an error naming the
    /// missing field.
    pub fn entity(&self, i: usize, kind: EntityKind) -> Result<String, String> {
        let need = |v: Option<&str>, field: &str| {
            v.map(str::to_string).ok_or_else(|| {
                format!(
                    "job {} has no `{field}` (needed for its fairshare entity)",
                    self.id(i)
                )
            })
        };
        Ok(match kind {
            EntityKind::Euser => need(self.user(i), "user")?,
            EntityKind::Egroup => need(self.group(i), "group")?,
            EntityKind::Account => need(self.account(i), "account")?,
            EntityKind::Queue => need(self.queue(i), "queue")?,
            EntityKind::EgroupEuser => format!(
                "{}:{}",
                need(self.group(i), "group")?,
                need(self.user(i), "user")?
            ),
        })
    }
}

impl JobSet {
    /// The jobs as rows, each with every column of the set as a value (a column is 0 for a
    /// job that did not give it), for code that works job by job on small lists (Slurm's and
    /// flux's factors).
    pub fn rows(&self) -> Vec<Job> {
        let names: Vec<&str> = self.values.column_names().collect();
        (0..self.len())
            .map(|i| Job {
                id: self.id(i).to_string(),
                user: self.user(i).map(str::to_string),
                group: self.group(i).map(str::to_string),
                account: self.account(i).map(str::to_string),
                queue: self.queue(i).map(str::to_string),
                submit: self.submit(i),
                values: names
                    .iter()
                    .filter_map(|n| self.value(i, n).map(|v| (n.to_string(), v)))
                    .collect(),
            })
            .collect()
    }
}

impl FromIterator<Job> for JobSet {
    fn from_iter<I: IntoIterator<Item = Job>>(jobs: I) -> JobSet {
        let mut b = JobSetBuilder::new(None);
        for job in jobs {
            b.push(&job);
        }
        b.finish()
    }
}

/// The identity fields of the job being read (reused from job to job).
#[derive(Debug, Default)]
pub(crate) struct RowIdentity {
    pub(crate) id: String,
    pub(crate) user: Option<String>,
    pub(crate) group: Option<String>,
    pub(crate) account: Option<String>,
    pub(crate) queue: Option<String>,
    pub(crate) submit: Option<f64>,
    pub(crate) state: Option<JobState>,
}

/// Builds a [`JobSet`] one job at a time: [`push`](Self::push) a whole job (the loaders fill
/// each job in place: `begin`, its identity and values, `end`).
#[derive(Debug)]
pub struct JobSetBuilder {
    set: JobSet,
    /// The numeric columns so far, by name; each has a value for every job begun.
    columns: Vec<(String, Vec<f64>)>,
    column_of: FxHashMap<String, usize>,
    /// Only these columns are kept (`None`: all).
    keep: Option<FxHashSet<String>>,
    pub(crate) row: RowIdentity,
}

impl JobSetBuilder {
    /// A builder keeping the numeric columns `keep` names (all when `None`); the values of
    /// the others are still read (and checked) by the loaders, only not stored.
    pub fn new(keep: Option<&[&str]>) -> JobSetBuilder {
        JobSetBuilder {
            set: JobSet::default(),
            columns: Vec::new(),
            column_of: FxHashMap::default(),
            keep: keep.map(|k| k.iter().map(|s| s.to_string()).collect()),
            row: RowIdentity::default(),
        }
    }

    /// Jobs ended so far.
    pub fn len(&self) -> usize {
        self.set.len()
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Start the next job: no identity, every value 0.
    pub(crate) fn begin(&mut self) {
        let RowIdentity {
            id,
            user,
            group,
            account,
            queue,
            submit,
            state,
        } = &mut self.row;
        id.clear();
        (*user, *group, *account, *queue, *submit) = (None, None, None, None, None);
        *state = None;
        for (_, c) in &mut self.columns {
            c.push(0.0);
        }
    }

    /// Set value `name` of the job begun (a later value of the same name replaces it).
    pub(crate) fn set(&mut self, name: &str, value: f64) {
        if self.keep.as_ref().is_some_and(|k| !k.contains(name)) {
            return;
        }
        let i = match self.column_of.get(name) {
            Some(&i) => i,
            None => {
                let i = self.columns.len();
                self.columns
                    .push((name.to_string(), vec![0.0; self.set.len() + 1]));
                self.column_of.insert(name.to_string(), i);
                i
            }
        };
        if let Some(v) = self.columns[i].1.last_mut() {
            *v = value;
        }
    }

    /// End the job begun: its identity goes into the columns.
    pub(crate) fn end(&mut self) {
        let s = &mut self.set;
        let row = s.len();
        s.ids.push(&self.row.id);
        for (codes, name) in [
            (&mut s.user, &self.row.user),
            (&mut s.group, &self.row.group),
            (&mut s.account, &self.row.account),
            (&mut s.queue, &self.row.queue),
        ] {
            codes.push(row, name.as_deref().map(|n| s.names.code(n)));
        }
        s.submit.push(self.row.submit.unwrap_or(f64::NAN));
        s.without_submit += usize::from(self.row.submit.is_none());
        match self.row.state {
            None if s.states.is_empty() => {}
            state => {
                s.states.resize(row, None);
                s.states.push(state);
            }
        }
    }

    /// Add a whole job.
    pub fn push(&mut self, job: &Job) {
        self.begin();
        self.row.id.push_str(&job.id);
        self.row.user.clone_from(&job.user);
        self.row.group.clone_from(&job.group);
        self.row.account.clone_from(&job.account);
        self.row.queue.clone_from(&job.queue);
        self.row.submit = job.submit;
        for (name, &v) in &job.values {
            self.set(name, v);
        }
        self.end();
    }

    /// An id two of the jobs ended so far have (the smallest such id).
    pub(crate) fn repeated_id(&self) -> Option<String> {
        let ids = &self.set.ids;
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_unstable_by(|&a, &b| ids.get(a).cmp(&ids.get(b)));
        order
            .windows(2)
            .map(|w| (ids.get(w[0]), ids.get(w[1])))
            .find(|(a, b)| a == b)
            .and_then(|(a, _)| a.map(str::to_string))
    }

    /// Forget every job (a JSON document whose later `Jobs` replaces what was read).
    pub(crate) fn clear(&mut self) {
        *self = JobSetBuilder {
            keep: self.keep.take(),
            ..JobSetBuilder::new(None)
        };
    }

    /// The jobs read.
    pub fn finish(self) -> JobSet {
        let mut set = self.set;
        let n = set.len();
        set.ids.shrink_to_fit();
        for codes in [
            &mut set.user,
            &mut set.group,
            &mut set.account,
            &mut set.queue,
        ] {
            if !codes.0.is_empty() {
                codes.0.resize(n, NONE);
                codes.0.shrink_to_fit();
            }
        }
        set.submit.shrink_to_fit();
        if !set.states.is_empty() {
            set.states.resize(n, None);
            set.states.shrink_to_fit();
        }
        set.values = JobTable::new(n);
        for (name, mut column) in self.columns {
            // A job begun and not ended (an error stopped the loader) leaves one value more.
            column.truncate(n);
            column.shrink_to_fit();
            set.values
                .set_column(&name, column)
                .expect("every column has a value for every job");
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_hold_what_rows_held() {
        let mut a = Job::new("a").with("ncpus", 4.0);
        a.user = Some("ann".into());
        a.submit = Some(3.0);
        let mut b = Job::new("b").with("mem", 8.0);
        b.user = Some("bob".into());
        b.group = Some("g".into());
        let mut c = Job::new("c");
        c.user = Some("ann".into());
        let set: JobSet = [a, b, c].into_iter().collect();
        assert_eq!(set.len(), 3);
        assert_eq!((set.id(0), set.id(2)), ("a", "c"));
        assert_eq!(set.user(2), Some("ann"));
        assert_eq!(
            (set.group(0), set.group(1), set.group(2)),
            (None, Some("g"), None)
        );
        assert_eq!(set.account(1), None);
        assert_eq!(set.table().column("ncpus"), Some(&[4.0, 0.0, 0.0][..]));
        assert_eq!(set.table().column("mem"), Some(&[0.0, 8.0, 0.0][..]));
        assert_eq!((set.submit(0), set.submit(1)), (Some(3.0), None));
        assert_eq!(set.submits(), None);
        assert_eq!(
            set.entity(1, EntityKind::EgroupEuser).as_deref(),
            Ok("g:bob")
        );
        assert_eq!(
            set.entity(0, EntityKind::Egroup).unwrap_err(),
            "job a has no `group` (needed for its fairshare entity)"
        );
    }

    #[test]
    fn only_the_columns_kept_are_stored() {
        let mut b = JobSetBuilder::new(Some(&["ncpus"][..]));
        b.push(&Job::new("a").with("ncpus", 1.0).with("mem", 2.0));
        let set = b.finish();
        assert_eq!(set.table().column_names().collect::<Vec<_>>(), ["ncpus"]);
    }
}
