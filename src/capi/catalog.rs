//! The catalog handle: the names a formula may use (PBS keywords, built-in and custom
//! resources).

use super::args::str_arg;
use super::handles::{Handle, Kind, free_handle, handle_ref, new_handle};
use super::status::{Failure, JobsortStatus, guard, guard_status};
use crate::catalog::{Catalog, NameRef, ResourceType, valid_resource_name};
use crate::formula::ir::{self, Func};
use crate::formula::lexer;
use crate::formula::sema::PYTHON_MATH_NAMES;
use std::ffi::c_char;
use std::ptr;
use std::sync::{PoisonError, RwLock, RwLockReadGuard};

/// The names a formula may use: PBS's keywords and built-in resources, plus custom
/// resources. Opaque: create with [`jobsort_catalog_new`], free with [`jobsort_catalog_free`];
/// a `JobsortCatalog *` is a handle (see the module's documentation), never an address to
/// read.
pub struct JobsortCatalog {
    /// Written by `jobsort_catalog_add_resource`, read by compilations.
    catalog: RwLock<Catalog>,
}

impl Handle for JobsortCatalog {
    const KIND: Kind = Kind::Catalog;
}

impl JobsortCatalog {
    /// The catalog, for a compilation.
    pub(super) fn read(&self) -> RwLockReadGuard<'_, Catalog> {
        self.catalog.read().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A new catalog holding PBS's keywords and built-in resources (`ncpus`, `walltime`, `mem`,
/// ...). Returns `NULL` only on an internal error (see `jobsort_last_error`).
#[unsafe(no_mangle)]
pub extern "C" fn jobsort_catalog_new() -> *mut JobsortCatalog {
    guard("jobsort_catalog_new", ptr::null_mut(), || {
        new_handle(JobsortCatalog {
            catalog: RwLock::new(Catalog::pbs()),
        })
    })
}

/// Declare (or redeclare) a custom resource `name` of type `type_name` (`"long"`, `"float"`,
/// `"size"`, `"time"`, `"boolean"`, `"string"` or `"string_array"`; only the first four may
/// be used in a formula). `name` must be an identifier (`[A-Za-z_][A-Za-z0-9_]*`) that a
/// formula can read: not a keyword of the formula language or of Python (`if`, `lambda`), a
/// function or constant of the language (`sqrt`, `pi`), another name of Python's math
/// module (`gamma`: PBS looks those up before the resources) or a PBS keyword
/// (`eligible_time`). A built-in resource (`ncpus`) keeps its type: declaring it again with
/// its own type changes nothing, with another fails. Each refusal is
/// `JOBSORT_STATUS_INVALID_ARGUMENT`, with the reason in `jobsort_last_error`.
///
/// # Safety
/// `catalog` may be any value (it is checked); `name` and `type_name` are NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_catalog_add_resource(
    catalog: *mut JobsortCatalog,
    name: *const c_char,
    type_name: *const c_char,
) -> JobsortStatus {
    guard_status("jobsort_catalog_add_resource", || {
        let catalog = handle_ref(catalog, "catalog")?;
        // SAFETY: caller contract.
        let name = unsafe { str_arg(name, "name") }?;
        let type_name = unsafe { str_arg(type_name, "type_name") }?;
        if !valid_resource_name(name) {
            return Err(Failure::new(
                JobsortStatus::InvalidArgument,
                format!("resource name `{name}` is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"),
            ));
        }
        let ty: ResourceType = type_name
            .parse()
            .map_err(|e| Failure::new(JobsortStatus::UnknownResourceType, format!("{e}")))?;
        let mut catalog = catalog
            .catalog
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(def) = catalog.resource(name).filter(|d| d.builtin) {
            if def.ty == ty {
                return Ok(());
            }
            return Err(refused(
                name,
                format!(
                    "`{name}` is a built-in resource of type {}, which cannot change",
                    def.ty
                ),
            ));
        }
        if let Some(why) = unreadable(name, &catalog) {
            return Err(refused(name, why));
        }
        catalog.add_resource(name, ty);
        Ok(())
    })
}

/// Free a catalog. `NULL` is a no-op. Formulas compiled with it stay valid; the handle is
/// refused from then on (`JOBSORT_STATUS_WRONG_HANDLE`).
///
/// # Safety
/// None: `catalog` may be any value (it is checked).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_catalog_free(catalog: *mut JobsortCatalog) {
    guard("jobsort_catalog_free", (), || {
        free_handle(catalog, "catalog")
    })
}

fn refused(name: &str, why: String) -> Failure {
    Failure::new(
        JobsortStatus::InvalidArgument,
        format!("cannot declare a resource {name}: {why}"),
    )
}

/// Why a formula could never read a resource called `name`, if it could not. PBS evaluates
/// a formula with `eval(formula, resources, locals())` (`formula_evaluate`, OpenPBS
/// `src/scheduler/job_info.cpp`): a keyword is never a name, and the names bound in
/// `locals()` — `from math import *` — are found before the resources.
fn unreadable(name: &str, catalog: &Catalog) -> Option<String> {
    if lexer::keyword(name).is_some() {
        return Some(format!(
            "`{name}` is a keyword of the formula language, never a name"
        ));
    }
    if lexer::unsupported_word(name).is_some() {
        return Some(format!(
            "`{name}` is a Python keyword (PBS evaluates a formula as Python), never a name"
        ));
    }
    if Func::from_name(name).is_some() {
        return Some(format!(
            "`{name}` is a function of the formula language: a formula naming it means the \
             function"
        ));
    }
    if ir::CONSTANTS.iter().any(|(c, _)| *c == name) {
        return Some(format!(
            "`{name}` is a constant of the formula language: a formula naming it means the \
             constant"
        ));
    }
    if PYTHON_MATH_NAMES.contains(&name) {
        return Some(format!(
            "`{name}` is a name of Python's math module, which PBS looks up before the \
             resources: a PBS formula could not read the resource"
        ));
    }
    if let Some(NameRef::Keyword(_)) = catalog.lookup(name) {
        return Some(format!(
            "`{name}` is a PBS keyword (a value the scheduler computes), not a resource"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capi::status::{jobsort_last_status, last_error};
    use crate::capi::{jobsort_column_count, jobsort_diagnostics_free, jobsort_free};

    #[test]
    fn catalog_arguments_are_checked() {
        let c = jobsort_catalog_new();
        assert!(!c.is_null());
        // SAFETY: live handle, NUL-terminated strings, NULLs checked by the callee.
        unsafe {
            assert_eq!(
                jobsort_catalog_add_resource(c, c"foo".as_ptr(), c"float".as_ptr()),
                JobsortStatus::Ok
            );
            assert_eq!(last_error(), "");
            assert_eq!(
                handle_ref(c, "catalog")
                    .ok()
                    .and_then(|c| c.read().resource_type("foo")),
                Some(ResourceType::Float)
            );
            assert_eq!(
                jobsort_catalog_add_resource(c, c"foo".as_ptr(), c"complex".as_ptr()),
                JobsortStatus::UnknownResourceType
            );
            assert!(
                last_error()
                    .starts_with("jobsort_catalog_add_resource: unknown resource type `complex`")
            );
            assert_eq!(
                jobsort_catalog_add_resource(c, c"1x".as_ptr(), c"long".as_ptr()),
                JobsortStatus::InvalidArgument
            );
            assert_eq!(
                jobsort_catalog_add_resource(c, ptr::null(), c"long".as_ptr()),
                JobsortStatus::NullArgument
            );
            assert_eq!(last_error(), "jobsort_catalog_add_resource: `name` is NULL");
            assert_eq!(jobsort_last_status(), JobsortStatus::NullArgument);
            let bad_utf8 = [b'a', 0xff, 0];
            assert_eq!(
                jobsort_catalog_add_resource(c, bad_utf8.as_ptr().cast(), c"long".as_ptr()),
                JobsortStatus::InvalidUtf8
            );
            assert_eq!(
                last_error(),
                "jobsort_catalog_add_resource: `name` is not valid UTF-8 (invalid byte at offset 1)"
            );
            // A catalog is not a formula.
            let mut count = 0;
            assert_eq!(
                jobsort_column_count(c.cast(), &mut count),
                JobsortStatus::WrongHandle
            );
            assert_eq!(
                last_error(),
                "jobsort_column_count: `formula` is not a live jobsort formula handle (it is a \
                 catalog handle)"
            );
            jobsort_free(c.cast());
            assert_eq!(jobsort_last_status(), JobsortStatus::WrongHandle);
            jobsort_catalog_free(c);
            jobsort_catalog_free(ptr::null_mut());
            jobsort_free(ptr::null_mut());
            jobsort_diagnostics_free(ptr::null_mut());
        }
    }
}
