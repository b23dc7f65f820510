//! The columnar job table: one contiguous `f64` column per name, built once per cycle (or
//! updated in place) and streamed over by the evaluators; and [`Texts`], a column of strings
//! in one buffer (job ids), which the ranker reads for its last tie-break.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::catalog::Input;

/// Jobs as columns. Every column has [`JobTable::len`] values; a column the table does not
/// hold reads as all zeros (PBS: a job that did not request a resource has 0).
#[derive(Debug, Clone, Default)]
pub struct JobTable {
    len: usize,
    columns: BTreeMap<String, Vec<f64>>,
    zeros: OnceLock<Vec<f64>>,
}

/// A column whose length differs from the table's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column `{name}` has {got} values but the table has {expected} jobs")]
pub struct ColumnLengthMismatch {
    pub name: String,
    pub expected: usize,
    pub got: usize,
}

impl JobTable {
    /// An empty table of `len` jobs (no columns yet).
    pub fn new(len: usize) -> JobTable {
        JobTable {
            len,
            columns: BTreeMap::new(),
            zeros: OnceLock::new(),
        }
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Add or replace a column.
    pub fn set_column(&mut self, name: &str, values: Vec<f64>) -> Result<(), ColumnLengthMismatch> {
        if values.len() != self.len {
            return Err(ColumnLengthMismatch {
                name: name.to_string(),
                expected: self.len,
                got: values.len(),
            });
        }
        self.columns.insert(name.to_string(), values);
        Ok(())
    }

    /// Builder form of [`JobTable::set_column`].
    pub fn with_column(
        mut self,
        name: &str,
        values: Vec<f64>,
    ) -> Result<JobTable, ColumnLengthMismatch> {
        self.set_column(name, values)?;
        Ok(self)
    }

    pub fn column(&self, name: &str) -> Option<&[f64]> {
        self.columns.get(name).map(Vec::as_slice)
    }

    /// Mutable access for updating values in place between scheduling cycles.
    pub fn column_mut(&mut self, name: &str) -> Option<&mut [f64]> {
        self.columns.get_mut(name).map(Vec::as_mut_slice)
    }

    /// Column names, in order.
    pub fn column_names(&self) -> impl Iterator<Item = &str> {
        self.columns.keys().map(String::as_str)
    }

    /// The columns of `inputs` ([`Input::column`]), in that order; absent ones are a shared
    /// all-zero column.
    pub fn bind(&self, inputs: &[Input]) -> Vec<&[f64]> {
        inputs
            .iter()
            .map(|input| match self.columns.get(input.column()) {
                Some(c) => c.as_slice(),
                None => self.zeros.get_or_init(|| vec![0.0; self.len]).as_slice(),
            })
            .collect()
    }
}

/// A column of strings held in one buffer: the text of all of them, and where each ends. Job
/// ids are kept this way (a few bytes each, one allocation for all), not as a `String` each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Texts {
    text: String,
    ends: Vec<usize>,
}

impl Texts {
    pub fn new() -> Texts {
        Texts::default()
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len());
    }

    /// The `i`th string, `None` past the end.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(&self.text[start..end])
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.len()).map(|i| &self.text[if i == 0 { 0 } else { self.ends[i - 1] }..self.ends[i]])
    }

    /// Drop spare capacity (after the last [`Texts::push`]).
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

impl<S: AsRef<str>> FromIterator<S> for Texts {
    fn from_iter<I: IntoIterator<Item = S>>(iter: I) -> Texts {
        let mut t = Texts::new();
        for s in iter {
            t.push(s.as_ref());
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ResourceType;

    #[test]
    fn absent_columns_read_as_zero_and_lengths_are_checked() {
        let t = JobTable::new(3)
            .with_column("ncpus", vec![1.0, 2.0, 3.0])
            .unwrap();
        let resource = |name: &str, ty| Input::Resource {
            name: name.to_string(),
            ty,
        };
        let cols = t.bind(&[
            resource("ncpus", ResourceType::Long),
            resource("mem", ResourceType::Size),
        ]);
        assert_eq!(cols[0], &[1.0, 2.0, 3.0]);
        assert_eq!(cols[1], &[0.0, 0.0, 0.0]);
        assert!(JobTable::new(2).with_column("x", vec![1.0]).is_err());
    }

    #[test]
    fn texts_hold_strings_in_one_buffer() {
        let t: Texts = ["12.srv", "", "b"].into_iter().collect();
        assert_eq!(t.len(), 3);
        assert_eq!(
            (t.get(0), t.get(1), t.get(2), t.get(3)),
            (Some("12.srv"), Some(""), Some("b"), None)
        );
        assert_eq!(t.iter().collect::<Vec<_>>(), ["12.srv", "", "b"]);
    }
}
