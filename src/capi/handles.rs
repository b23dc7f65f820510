//! Opaque handles: a handle is not an address but a number — the object's slot in one table
//! of the process, the slot's generation, and the kind of object — so no call ever reads
//! memory through a handle it was given. The table is a vector of slots under a mutex; a
//! call looks its handle up there (a lock, a bounds check, two comparisons) and takes a
//! counted reference to the object, which keeps the object alive until the call returns even
//! if another thread frees the handle meanwhile.
//!
//! Freeing a handle empties its slot and advances the slot's generation, so the freed handle
//! never matches again, not even once the slot holds a new object: use after free and double
//! free are [`JobsortStatus::WrongHandle`] ("... it was freed"), never another object's
//! results. A slot whose generation would wrap is retired, so no handle value is ever issued
//! twice. A handle of another kind, or any other value (a forged or stale pointer, an object
//! of the caller's own), is `WrongHandle` too.

use super::status::{Failure, JobsortStatus};
use std::any::Any;
use std::sync::{Arc, Mutex, PoisonError};

/// What a handle refers to; its code is the handle's low byte. The codes are odd, so no
/// address of an aligned object (a pointer from `malloc`, a stack array) reads as a handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Kind {
    Catalog = 0x4b,
    Formula = 0x4d,
    Diagnostics = 0x4f,
}

impl Kind {
    fn from_code(code: usize) -> Option<Kind> {
        [Kind::Catalog, Kind::Formula, Kind::Diagnostics]
            .into_iter()
            .find(|k| *k as usize == code)
    }

    /// Its name in messages ("not a live jobsort formula handle").
    fn name(self) -> &'static str {
        match self {
            Kind::Catalog => "catalog",
            Kind::Formula => "formula",
            Kind::Diagnostics => "diagnostics",
        }
    }
}

/// An object the C ABI hands out by handle.
pub(super) trait Handle: Any + Send + Sync {
    const KIND: Kind;
}

/// The handle's layout, low bits first: the kind (8 bits), the slot, the generation.
const KIND_BITS: u32 = 8;
const SLOT_BITS: u32 = if usize::BITS >= 64 { 24 } else { 12 };
const GENERATION_BITS: u32 = usize::BITS - KIND_BITS - SLOT_BITS;
/// At most this many handles are live at once.
const SLOTS: usize = 1 << SLOT_BITS;
/// The last generation a slot may take; past it the slot is retired.
const LAST_GENERATION: usize = (1 << GENERATION_BITS) - 1;

fn encode(kind: Kind, slot: usize, generation: usize) -> usize {
    (generation << (KIND_BITS + SLOT_BITS)) | (slot << KIND_BITS) | kind as usize
}

/// A handle's kind code, slot and generation.
fn decode(handle: usize) -> (usize, usize, usize) {
    (
        handle & ((1 << KIND_BITS) - 1),
        (handle >> KIND_BITS) & (SLOTS - 1),
        handle >> (KIND_BITS + SLOT_BITS),
    )
}

struct Slot {
    /// The generation of the slot's object, or of its next one while it is empty.
    generation: usize,
    kind: Kind,
    object: Option<Arc<dyn Any + Send + Sync>>,
}

struct Table {
    slots: Vec<Slot>,
    /// Empty slots to reuse, most recently freed last.
    free: Vec<usize>,
}

/// What is wrong with `handle` as a live handle of kind `want`, once looked up.
fn wrong(what: &str, want: Kind, why: &str) -> Failure {
    Failure::new(
        JobsortStatus::WrongHandle,
        format!("`{what}` is not a live jobsort {} handle{why}", want.name()),
    )
}

impl Table {
    const fn new() -> Table {
        Table {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }

    /// The object behind `handle` if it is a live handle of kind `want`, else why not.
    fn get(
        &self,
        handle: usize,
        want: Kind,
        what: &str,
    ) -> Result<&Arc<dyn Any + Send + Sync>, Failure> {
        let (code, index, generation) = decode(handle);
        let (Some(kind), Some(slot)) = (Kind::from_code(code), self.slots.get(index)) else {
            return Err(wrong(what, want, ""));
        };
        let current = generation == slot.generation;
        if generation > slot.generation || (current && kind != slot.kind) {
            // Never issued.
            return Err(wrong(what, want, ""));
        }
        match (&slot.object, kind == want) {
            (Some(object), true) if current => Ok(object),
            (Some(_), false) if current => Err(wrong(
                what,
                want,
                &format!(" (it is a {} handle)", kind.name()),
            )),
            (_, true) => Err(wrong(what, want, ": it was freed")),
            (_, false) => Err(wrong(
                what,
                want,
                &format!(" (it is a freed {} handle)", kind.name()),
            )),
        }
    }

    /// Put `object` in a slot: its handle.
    fn insert(&mut self, kind: Kind, object: Arc<dyn Any + Send + Sync>) -> Result<usize, Failure> {
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                let index = self.slots.len();
                if index == SLOTS {
                    return Err(Failure::new(
                        JobsortStatus::OutOfMemory,
                        format!("{SLOTS} jobsort handles are live (or retired): free some first"),
                    ));
                }
                self.slots
                    .try_reserve(1)
                    .map_err(|_| Failure::out_of_memory("a handle"))?;
                self.slots.push(Slot {
                    generation: 0,
                    kind,
                    object: None,
                });
                index
            }
        };
        let slot = &mut self.slots[index];
        slot.kind = kind;
        slot.object = Some(object);
        Ok(encode(kind, index, slot.generation))
    }

    /// Empty the slot of the live handle `handle` of kind `want`, for good: its object.
    fn remove(
        &mut self,
        handle: usize,
        want: Kind,
        what: &str,
    ) -> Result<Option<Arc<dyn Any + Send + Sync>>, Failure> {
        self.get(handle, want, what)?;
        let (_, index, _) = decode(handle);
        let slot = &mut self.slots[index];
        let object = slot.object.take();
        if slot.generation < LAST_GENERATION {
            slot.generation += 1;
            self.free.push(index);
        }
        Ok(object)
    }
}

static TABLE: Mutex<Table> = Mutex::new(Table::new());

/// The table. Nothing panics while holding it, but a poisoned lock is still a usable table.
fn table() -> std::sync::MutexGuard<'static, Table> {
    TABLE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A new handle for `object`.
pub(super) fn new_handle<T: Handle>(object: T) -> Result<*mut T, Failure> {
    let object: Arc<dyn Any + Send + Sync> = Arc::new(object);
    Ok(table().insert(T::KIND, object)? as *mut T)
}

/// The object behind `p`, checked to be a live handle of kind `T`; the reference keeps it
/// alive until it is dropped.
pub(super) fn handle_ref<T: Handle>(p: *const T, what: &str) -> Result<Arc<T>, Failure> {
    if p.is_null() {
        return Err(Failure::null(what));
    }
    let object = Arc::clone(table().get(p as usize, T::KIND, what)?);
    object.downcast::<T>().map_err(|_| {
        wrong(
            what,
            T::KIND,
            " (internal error: its slot holds another type)",
        )
    })
}

/// Free the handle `p` (NULL is a no-op): its slot is emptied and the handle never matches
/// again. The object goes when the last call still using it returns.
pub(super) fn free_handle<T: Handle>(p: *mut T, what: &str) -> Result<(), Failure> {
    if p.is_null() {
        return Ok(());
    }
    let object = table().remove(p as usize, T::KIND, what)?;
    // Dropped without the table's lock (a formula's code is released here).
    drop(object);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(r: Result<impl Sized, Failure>) -> String {
        r.err().map(|f| f.message().to_string()).unwrap_or_default()
    }

    #[test]
    fn a_freed_handle_never_matches_again_even_in_a_reused_slot() {
        let mut t = Table::new();
        let a = t.insert(Kind::Formula, Arc::new(1u32)).unwrap_or_default();
        assert!(t.get(a, Kind::Formula, "f").is_ok());
        assert!(t.remove(a, Kind::Formula, "f").is_ok());
        // The slot is reused at once, under a new generation.
        let b = t.insert(Kind::Formula, Arc::new(2u32)).unwrap_or_default();
        assert_eq!(decode(a).1, decode(b).1);
        assert_ne!(a, b);
        assert_eq!(
            message(t.get(a, Kind::Formula, "f")),
            "`f` is not a live jobsort formula handle: it was freed"
        );
        assert_eq!(
            message(t.remove(a, Kind::Formula, "f")),
            "`f` is not a live jobsort formula handle: it was freed"
        );
        assert_eq!(
            message(t.get(a, Kind::Catalog, "c")),
            "`c` is not a live jobsort catalog handle (it is a freed formula handle)"
        );
        let object = t.get(b, Kind::Formula, "f").ok().cloned();
        assert_eq!(
            object.and_then(|o| o.downcast::<u32>().ok()).as_deref(),
            Some(&2)
        );
    }

    #[test]
    fn other_kinds_and_other_values_are_not_handles() {
        let mut t = Table::new();
        let a = t.insert(Kind::Formula, Arc::new(())).unwrap_or_default();
        assert_eq!(
            message(t.get(a, Kind::Catalog, "c")),
            "`c` is not a live jobsort catalog handle (it is a formula handle)"
        );
        let local = 0u64;
        let never_issued = encode(Kind::Formula, decode(a).1, decode(a).2 + 1);
        for h in [&local as *const u64 as usize, 8, usize::MAX, never_issued] {
            assert_eq!(
                message(t.get(h, Kind::Formula, "f")),
                "`f` is not a live jobsort formula handle"
            );
        }
    }

    #[test]
    fn a_slot_at_its_last_generation_is_retired() {
        let mut t = Table::new();
        let a = t.insert(Kind::Formula, Arc::new(())).unwrap_or_default();
        t.slots[0].generation = LAST_GENERATION;
        let a_last = encode(Kind::Formula, 0, LAST_GENERATION);
        assert!(t.get(a, Kind::Formula, "f").is_err());
        assert!(t.remove(a_last, Kind::Formula, "f").is_ok());
        let b = t.insert(Kind::Formula, Arc::new(())).unwrap_or_default();
        assert_eq!(decode(b).1, 1);
        assert!(t.get(a_last, Kind::Formula, "f").is_err());
    }

    #[test]
    fn the_layout_holds_every_slot_and_generation() {
        for (slot, generation) in [(0, 0), (SLOTS - 1, LAST_GENERATION), (5, 7)] {
            let h = encode(Kind::Diagnostics, slot, generation);
            assert_eq!(decode(h), (Kind::Diagnostics as usize, slot, generation));
        }
    }
}
