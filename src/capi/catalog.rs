//! The catalog handle: the names a formula may use (PBS keywords, built-in and custom
//! resources).

use super::args::str_arg;
use super::handles::{Handle, free_handle, handle_mut};
use super::status::{Failure, JobsortStatus, guard, guard_status};
use crate::catalog::{Catalog, ResourceType};
use std::ffi::c_char;
use std::ptr;

/// The names a formula may use: PBS's keywords and built-in resources, plus custom
/// resources. Opaque; create with [`jobsort_catalog_new`], free with [`jobsort_catalog_free`].
#[repr(C)]
pub struct JobsortCatalog {
    tag: u64,
    pub(super) catalog: Catalog,
}

// SAFETY: `repr(C)` with the tag first; created only by `Box::into_raw`.
unsafe impl Handle for JobsortCatalog {
    const TAG: u64 = 0x6a6f_6273_6361_7401; // "jobscat\x01"
    const KIND: &'static str = "catalog";
}

impl JobsortCatalog {
    /// The catalog behind the handle.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }
}

/// A new catalog holding PBS's keywords and built-in resources (`ncpus`, `walltime`, `mem`,
/// ...). Returns `NULL` only on an internal error (see `jobsort_last_error`).
#[unsafe(no_mangle)]
pub extern "C" fn jobsort_catalog_new() -> *mut JobsortCatalog {
    guard("jobsort_catalog_new", ptr::null_mut(), || {
        Ok(Box::into_raw(Box::new(JobsortCatalog {
            tag: JobsortCatalog::TAG,
            catalog: Catalog::pbs(),
        })))
    })
}

/// Declare (or redeclare) a custom resource `name` of type `type_name` (`"long"`, `"float"`,
/// `"size"`, `"time"`, `"boolean"`, `"string"` or `"string_array"`; only the first four may
/// be used in a formula). `name` must be an identifier (`[A-Za-z_][A-Za-z0-9_]*`).
///
/// # Safety
/// `catalog` is NULL or a live handle; `name` and `type_name` are NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_catalog_add_resource(
    catalog: *mut JobsortCatalog,
    name: *const c_char,
    type_name: *const c_char,
) -> JobsortStatus {
    guard_status("jobsort_catalog_add_resource", || {
        // SAFETY: caller contract.
        let catalog = unsafe { handle_mut(catalog, "catalog") }?;
        let name = unsafe { str_arg(name, "name") }?;
        let type_name = unsafe { str_arg(type_name, "type_name") }?;
        if !is_identifier(name) {
            return Err(Failure::new(
                JobsortStatus::InvalidArgument,
                format!("resource name `{name}` is not an identifier ([A-Za-z_][A-Za-z0-9_]*)"),
            ));
        }
        let ty: ResourceType = type_name
            .parse()
            .map_err(|e| Failure::new(JobsortStatus::UnknownResourceType, format!("{e}")))?;
        catalog.catalog.add_resource(name, ty);
        Ok(())
    })
}

/// Free a catalog. `NULL` is a no-op. Formulas compiled with it stay valid.
///
/// # Safety
/// `catalog` is NULL or a live catalog handle, not used again afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn jobsort_catalog_free(catalog: *mut JobsortCatalog) {
    // SAFETY: caller contract.
    guard("jobsort_catalog_free", (), || unsafe {
        free_handle(catalog, "catalog")
    })
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
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
                (*c).catalog().resource_type("foo"),
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
                "jobsort_column_count: `formula` is not a live jobsort formula handle"
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
