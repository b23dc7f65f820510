//! Opaque handles: each handle type is a `repr(C)` struct whose first field is a `u64` tag,
//! checked on every use and cleared when the handle is freed, so a handle of one kind passed
//! where another is expected is [`JobsortStatus::WrongHandle`] instead of misbehaviour.

use super::status::{Failure, JobsortStatus};

/// A handle type of the C ABI.
///
/// # Safety
/// Implementors are `repr(C)` structs whose first field is a `u64` holding [`Handle::TAG`]
/// while the handle is live, and are only ever created by `Box::into_raw`.
pub(super) unsafe trait Handle {
    /// The tag of a live handle of this kind.
    const TAG: u64;
    /// Its name in messages (`"formula"` gives "not a live jobsort formula handle").
    const KIND: &'static str;
}

/// Check that `p` is a live handle of kind `T`, reading the tag before any reference to `T`
/// is formed (so a handle of another kind is never viewed as this one).
///
/// # Safety
/// `p` is NULL or points to a live jobsort handle (every handle type is `repr(C)` with the
/// `u64` tag first, so the read is valid for any of them).
unsafe fn check_handle<T: Handle>(p: *const T, what: &str) -> Result<(), Failure> {
    if p.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: see above.
    if unsafe { p.cast::<u64>().read() } != T::TAG {
        return Err(Failure::new(
            JobsortStatus::WrongHandle,
            format!("`{what}` is not a live jobsort {} handle", T::KIND),
        ));
    }
    Ok(())
}

/// The handle behind `p`, after checking it.
///
/// # Safety
/// `p` is NULL or points to a live jobsort handle.
pub(super) unsafe fn handle_ref<'a, T: Handle>(p: *const T, what: &str) -> Result<&'a T, Failure> {
    // SAFETY: caller contract; after the check `p` is a live `T`.
    unsafe {
        check_handle(p, what)?;
        Ok(&*p)
    }
}

/// The handle behind `p` for changing it, after checking it.
///
/// # Safety
/// As [`handle_ref`], and no other reference to the handle is in use.
pub(super) unsafe fn handle_mut<'a, T: Handle>(
    p: *mut T,
    what: &str,
) -> Result<&'a mut T, Failure> {
    // SAFETY: caller contract; after the check `p` is a live `T`.
    unsafe {
        check_handle(p, what)?;
        Ok(&mut *p)
    }
}

/// Free the handle behind `p` (NULL is a no-op): check it, clear its tag, drop it.
///
/// # Safety
/// `p` is NULL or a live jobsort handle that nothing uses any more.
pub(super) unsafe fn free_handle<T: Handle>(p: *mut T, what: &str) -> Result<(), Failure> {
    if p.is_null() {
        return Ok(());
    }
    // SAFETY: caller contract; the check rejects other handle kinds.
    unsafe { check_handle(p, what) }?;
    // SAFETY: a live `T`, created by `Box::into_raw` (the `Handle` contract), freed once
    // (caller contract); the tag is its first field.
    unsafe {
        p.cast::<u64>().write(0);
        drop(Box::from_raw(p));
    }
    Ok(())
}
