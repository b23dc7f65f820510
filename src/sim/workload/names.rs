//! A job's names without a heap string of its own: [`Name`] (a user, group or queue, one
//! shared text per distinct name of a workload, made by a [`Names`] table) and [`JobId`] (a
//! job's id, kept in the job itself when short, as every trace's ids are).

use rustc_hash::FxHashSet;
use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A user, group or queue name: a shared text, so that the jobs of one entity hold one copy
/// between them (a [`Names`] table gives each distinct text once). Reads as a `&str`. One
/// pointer (8 bytes, where an `Arc<str>` is 16): a job holds three.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Name(Arc<String>);

impl Name {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the two are one shared text (made once by a [`Names`]), not only equal.
    pub fn shares(&self, other: &Name) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Name {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name(Arc::new(s.to_string()))
    }
}

impl From<String> for Name {
    fn from(s: String) -> Name {
        Name(Arc::new(s))
    }
}

impl From<&Name> for String {
    fn from(n: &Name) -> String {
        n.as_str().to_string()
    }
}

impl From<Name> for String {
    fn from(n: Name) -> String {
        n.as_str().to_string()
    }
}

impl Default for Name {
    fn default() -> Name {
        Name::from("")
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for Name {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Name {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Name {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Name> for String {
    fn eq(&self, other: &Name) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Name> for &str {
    fn eq(&self, other: &Name) -> bool {
        *self == other.as_str()
    }
}

impl serde::Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
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
        match self.known.get(s) {
            Some(n) => n.clone(),
            None => {
                let n = Name::from(s);
                self.known.insert(n.clone());
                n
            }
        }
    }

    /// The name `s` made into a [`Name`] only when it is not known yet.
    pub fn get_owned(&mut self, s: String) -> Name {
        match self.known.get(s.as_str()) {
            Some(n) => n.clone(),
            None => {
                let n = Name::from(s);
                self.known.insert(n.clone());
                n
            }
        }
    }
}

/// How many bytes of an id a [`JobId`] holds in itself.
const INLINE: usize = 22;

/// A job's id (SWF job number, PBS `123.server`, Slurm `123_4`): its text, held in the job
/// itself up to 22 bytes (every id of the archive's traces and of PBS, Slurm and Flux logs
/// of a usual server name), in one heap string of its own otherwise. Reads as a `&str`.
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

impl From<&JobId> for String {
    fn from(id: &JobId) -> String {
        id.as_str().to_string()
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

impl Default for JobId {
    fn default() -> JobId {
        JobId::from("")
    }
}

impl Deref for JobId {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for JobId {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for JobId {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for JobId {
    fn eq(&self, other: &JobId) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for JobId {}

impl PartialOrd for JobId {
    fn partial_cmp(&self, other: &JobId) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for JobId {
    fn cmp(&self, other: &JobId) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl std::hash::Hash for JobId {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_str().hash(h)
    }
}

impl PartialEq<str> for JobId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for JobId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for JobId {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<JobId> for String {
    fn eq(&self, other: &JobId) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<JobId> for &str {
    fn eq(&self, other: &JobId) -> bool {
        *self == other.as_str()
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl serde::Serialize for JobId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
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
        assert!(JobId::from("10") < JobId::from("9"), "ordered as text");
        assert_eq!(std::mem::size_of::<JobId>(), 24);
        assert_eq!(std::mem::size_of::<Name>(), 8);
    }
}
