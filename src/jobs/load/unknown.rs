//! Fields no formula reads: PBS job attributes are known and skipped; anything else is
//! reported once per name, with the closest known name.

use crate::catalog::Catalog;
use crate::formula::sema::suggest;

/// A field no formula can read (usually a misspelling): where it first appears, in how many
/// jobs, and the closest known name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    /// The field as written, with its `Resource_List.` / `resources.` prefix if any.
    pub field: String,
    /// `file: $[0].ncpu`, `file:3` or `file:2: column `walltme``.
    pub location: String,
    /// Jobs that have it.
    pub jobs: usize,
    /// The closest keyword, resource or identity field, when one is close.
    pub suggestion: Option<String>,
}

impl std::fmt::Display for UnknownField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: `{}` is no PBS keyword, resource or job attribute and is not read",
            self.location, self.field
        )?;
        if self.jobs > 1 {
            write!(f, " ({} jobs have it)", self.jobs)?;
        }
        match &self.suggestion {
            Some(s) => write!(f, "; did you mean `{s}`?"),
            None => write!(f, " (declare a custom resource with --resource NAME:TYPE)"),
        }
    }
}

/// The identity fields a job file may carry (besides keywords and resources).
const IDENTITY_FIELDS: &[&str] = &["id", "user", "group", "account", "queue", "submit"];

/// The unknown fields of a file, one entry per name.
#[derive(Default)]
pub(in crate::jobs) struct Unknown {
    pub(in crate::jobs) fields: Vec<UnknownField>,
}

impl Unknown {
    /// Count `field` (as written) of one job; `location` is computed on first sight.
    pub(super) fn record(
        &mut self,
        field: &str,
        bare: &str,
        location: impl FnOnce() -> String,
        catalog: &Catalog,
    ) {
        if let Some(f) = self.fields.iter_mut().find(|f| f.field == field) {
            f.jobs += 1;
            return;
        }
        let known = catalog.names().chain(IDENTITY_FIELDS.iter().copied());
        self.fields.push(UnknownField {
            field: field.to_string(),
            location: location(),
            jobs: 1,
            suggestion: suggest(bare, known).map(str::to_string),
        });
    }
}
