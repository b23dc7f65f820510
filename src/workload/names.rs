//! A job's names without a heap string of its own: [`Name`] (a user, group or queue, one
//! shared text per distinct name of a workload, made by a [`Names`] table) and [`JobId`] (a
//! job's id, kept in the job itself when short, as every trace's ids are).

use rustc_hash::FxHashSet;
use std::sync::Arc;

/// A user, group or queue name: a shared text, so that the jobs of one entity hold one copy
/// between them (a [`Names`] table gives each distinct text once). Reads as a `&str`; equal,
/// ordered and hashed as its text. One pointer (8 bytes, where an `Arc<str>` is 16): a job
/// holds three. The empty name (a trace without accounts or QOS) holds no text, so copying
/// and dropping it touch no count.
#[derive(Clone)]
pub struct Name(Option<Arc<String>>);

impl Name {
    pub fn as_str(&self) -> &str {
        self.0.as_deref().map_or("", String::as_str)
    }

    /// Whether the two are one shared text (made once by a [`Names`]), not only equal.
    pub fn shares(&self, other: &Name) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The name as its shared text: equal and hashed as [`Name::shares`] has it (a pointer),
    /// not as the text (two equal names made apart are two keys).
    pub fn by_text_shared(&self) -> Shared<'_> {
        Shared(self)
    }

    /// The empty name (a trace without accounts or QOS).
    pub fn empty() -> &'static Name {
        static EMPTY: Name = Name(None);
        &EMPTY
    }
}

/// A [`Name`] keyed by its shared text ([`Name::by_text_shared`]): a hash of one pointer, for
/// numbering a workload's names without hashing their texts.
#[derive(Clone, Copy)]
pub struct Shared<'a>(pub &'a Name);

impl PartialEq for Shared<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.shares(other.0)
    }
}

impl Eq for Shared<'_> {}

impl std::hash::Hash for Shared<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0
            .0
            .as_ref()
            .map_or(std::ptr::null(), Arc::as_ptr)
            .hash(h)
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        if s.is_empty() {
            return Name(None);
        }
        Name(Some(Arc::new(s.to_string())))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        if s.is_empty() {
            return Name(None);
        }
        Name(Some(Arc::new(s)))
    }
}

impl From<Name> for String {
    fn from(n: Name) -> String {
        n.0.map(Arc::unwrap_or_clone).unwrap_or_default()
    }
}

/// The names of one workload (or one field of it), one [`Name`] per distinct text: a loader
/// asks for each job's user, group and queue here, so that a name is allocated once, not once
/// per job.
#[derive(Default, Debug, Clone)]
pub struct Names {
    known: FxHashSet<Name>,
}

impl Names {
    /// The name `s`, shared with every earlier job that had it.
    pub fn get(&mut self, s: &str) -> Name {
        if s.is_empty() {
            // One static text for every table: no look-up (a trace without accounts asks
            // for it twice a job).
            return Name::from(s);
        }
        match self.known.get(s) {
            Some(n) => n.clone(),
            None => self.add(Name::from(s)),
        }
    }

    /// [`Names::get`] for a text made for the purpose: kept when it is new.
    pub fn get_owned(&mut self, s: String) -> Name {
        match self.known.get(s.as_str()) {
            Some(n) => n.clone(),
            None => self.add(Name::from(s)),
        }
    }

    fn add(&mut self, n: Name) -> Name {
        self.known.insert(n.clone());
        n
    }
}

/// How many bytes of an id a [`JobId`] holds in itself.
const INLINE: usize = 22;

/// A job's id (SWF job number, PBS `123.server`, Slurm `123_4`): its text, held in the job
/// itself up to 22 bytes (every id of the archive's traces and of PBS, Slurm and Flux logs
/// of a usual server name), in one heap string of its own otherwise. Reads as a `&str`;
/// compares, orders and hashes as its text.
#[derive(Clone)]
pub struct JobId(Repr);

#[derive(Clone)]
enum Repr {
    /// `bytes[..len]`, UTF-8 (copied from a `&str`).
    Inline {
        len: u8,
        bytes: [u8; INLINE],
    },
    Heap(Box<str>),
}

impl JobId {
    pub fn as_str(&self) -> &str {
        match &self.0 {
            // The bytes were copied whole from a `str` (never cut), so they are UTF-8.
            Repr::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..*len as usize]).unwrap_or_default()
            }
            Repr::Heap(s) => s,
        }
    }
}

impl From<&str> for JobId {
    fn from(s: &str) -> JobId {
        if s.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            JobId(Repr::Inline {
                len: s.len() as u8,
                bytes,
            })
        } else {
            JobId(Repr::Heap(s.into()))
        }
    }
}

impl From<String> for JobId {
    fn from(s: String) -> JobId {
        if s.len() <= INLINE {
            JobId::from(s.as_str())
        } else {
            JobId(Repr::Heap(s.into_boxed_str()))
        }
    }
}

impl From<JobId> for String {
    fn from(id: JobId) -> String {
        match id.0 {
            Repr::Heap(s) => s.into(),
            Repr::Inline { .. } => id.as_str().to_string(),
        }
    }
}

/// What makes a text type (with `as_str` and `From<&str>`) read as a `&str`: equal, ordered
/// and hashed as its text (so maps keyed by it are looked up by `&str`), deref, borrow,
/// compare with `str`, `&str` and `String` either way round, print and serialise as the text.
macro_rules! reads_as_str {
    ($t:ty) => {
        impl PartialEq for $t {
            fn eq(&self, other: &$t) -> bool {
                self.as_str() == other.as_str()
            }
        }

        impl Eq for $t {}

        impl PartialOrd for $t {
            fn partial_cmp(&self, other: &$t) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }

        impl Ord for $t {
            fn cmp(&self, other: &$t) -> std::cmp::Ordering {
                self.as_str().cmp(other.as_str())
            }
        }

        impl std::hash::Hash for $t {
            fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
                self.as_str().hash(h)
            }
        }

        impl std::ops::Deref for $t {
            type Target = str;
            fn deref(&self) -> &str {
                self.as_str()
            }
        }

        impl std::borrow::Borrow<str> for $t {
            fn borrow(&self) -> &str {
                self.as_str()
            }
        }

        impl AsRef<str> for $t {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }

        impl Default for $t {
            fn default() -> $t {
                <$t>::from("")
            }
        }

        impl From<&$t> for String {
            fn from(t: &$t) -> String {
                t.as_str().to_string()
            }
        }

        impl PartialEq<str> for $t {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<&str> for $t {
            fn eq(&self, other: &&str) -> bool {
                self.as_str() == *other
            }
        }

        impl PartialEq<String> for $t {
            fn eq(&self, other: &String) -> bool {
                self.as_str() == other.as_str()
            }
        }

        impl PartialEq<$t> for String {
            fn eq(&self, other: &$t) -> bool {
                self.as_str() == other.as_str()
            }
        }

        impl PartialEq<$t> for &str {
            fn eq(&self, other: &$t) -> bool {
                *self == other.as_str()
            }
        }

        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::fmt::Debug for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(self.as_str(), f)
            }
        }

        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

reads_as_str!(Name);
reads_as_str!(JobId);

/// The digits of a whole number without leading zeros (`0` itself, `17`; not `017`, `-1`,
/// `1.0`), as a number below `limit`: the one text that number is written as.
pub(crate) fn plain_digits(s: &str, limit: usize) -> Option<usize> {
    let b = s.as_bytes();
    if b.len() > 9 || (b.first() == Some(&b'0') && b.len() > 1) {
        return None;
    }
    let v = crate::input::units::digits(s)? as usize;
    (v < limit).then_some(v)
}

/// The job ids a reader has seen, as texts (a duplicate is an error: SWF job numbers, JSON
/// ids): those written as plain digits below 2^24 in a bit set (one text per number), the
/// others by hash.
#[derive(Default)]
pub(crate) struct JobNumbers {
    bits: Vec<u64>,
    other: FxHashSet<Box<str>>,
}

impl JobNumbers {
    /// Whether `s` is new.
    pub(crate) fn insert(&mut self, s: &str) -> bool {
        let Some(n) = plain_digits(s, 1 << 24) else {
            return !self.other.contains(s) && self.other.insert(s.into());
        };
        let (word, bit) = (n / 64, 1u64 << (n % 64));
        if word >= self.bits.len() {
            self.bits.resize(word + 1, 0);
        }
        let new = self.bits[word] & bit == 0;
        self.bits[word] |= bit;
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_shared_per_text() {
        let mut names = Names::default();
        let a = names.get("alice");
        let b = names.get_owned("alice".to_string());
        assert!(a.shares(&b));
        assert!(!a.shares(&names.get("bob")));
        assert!(!a.shares(&Name::from("alice")), "equal, made apart");
        assert_eq!(
            (a.as_str(), format!("{a}"), format!("{a:?}")),
            ("alice", "alice".into(), "\"alice\"".into())
        );
    }

    #[test]
    fn ids_read_back_as_their_text_short_or_long() {
        for s in [
            "",
            "1",
            "123.pbs-server-01.example",
            "1234567890123456789012",
            "ünïcode_ïd",
            "12345678901234567890123",
        ] {
            let id = JobId::from(s);
            assert_eq!((id.as_str(), id.to_string()), (s, s.to_string()));
            assert_eq!(id, JobId::from(s.to_string()));
            let inline = matches!(id.0, Repr::Inline { .. });
            assert_eq!(inline, s.len() <= INLINE, "{s}");
        }
        let (ten, nine) = (JobId::from("10"), JobId::from("9"));
        assert!(ten < nine, "ordered as text");
        assert_eq!(std::mem::size_of::<JobId>(), 24);
        assert_eq!(std::mem::size_of::<Name>(), 8);
    }
}
