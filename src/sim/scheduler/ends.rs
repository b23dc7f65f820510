//! The running jobs' ends, in time order, for the plain loop: a binary heap while few jobs run,
//! and a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the shortest
//! path problem", 1990) once many do, over simulated time, which never goes back.
//!
//! The radix heap: every end kept is at or after `now`, the last time at which ends were taken
//! (no later than the round being decided); an end goes into the bucket of the highest digit
//! (2 bits) in which it differs from `now` and of its value there (bucket 0: equal to `now`).
//! A push is one bucket's push; moving `now` on to the earliest end empties the one bucket that
//! holds it into the buckets before it; the ends at `now` are bucket 0's. Each end moves at
//! most once per digit, where a binary heap of a big machine's thousands of running jobs sifts
//! every end through a dozen levels (`BinaryHeap::pop` was a fifth of plain EASY's core on
//! LLNL-Atlas). The earliest end, which a round's time needs before `now` may move, is each
//! bucket's least end, kept as ends come in. With a few dozen jobs running (LANL-CM5's 32-core
//! jobs on 1,024 cores) the moves cost more than a small heap's sifting, so a machine of at
//! most [`MANY`] cores keeps a binary heap (`docs/perf.md`).
//!
//! Ends at the same time come out in no particular order: the plain loop takes them all
//! before it decides a round.
//!
//! (The `radix-heap` crate's queue has no peek: finding the earliest end moves its top there,
//! after which a job started before that time and ending sooner cannot be pushed.)

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A machine of more cores than this keeps its running jobs' ends in [`Buckets`], a smaller
/// one in a [`Heap`]: as many jobs as cores can run at once.
pub(super) const MANY: u64 = 4096;

/// The running jobs' ends, each with a value (its cores, or its index), taken in time order
/// round by round.
pub(super) trait Ends<V> {
    /// No running job, before any round.
    fn new() -> Self;
    /// A job ending at `end`, which is not before the round's time.
    fn push(&mut self, end: i64, value: V);
    /// The earliest end, if a job is running.
    fn earliest(&self) -> Option<i64>;
    /// The round at `t`: no later than the earliest end, and the ends of the rounds before
    /// all taken ([`Ends::take_now`]). The ends at `t` are then `take_now`'s.
    fn advance(&mut self, t: i64);
    /// A job ending at the round's time, taken out.
    fn take_now(&mut self) -> Option<V>;
    /// The running jobs' ends and values, in no order.
    fn for_each(&self, f: impl FnMut(i64, V));
}

/// The ends in a binary heap, for a machine on which few jobs run at once.
pub(super) struct Heap<V> {
    /// The round being decided.
    round: i64,
    heap: BinaryHeap<Reverse<(i64, V)>>,
}

impl<V: Copy + Ord> Ends<V> for Heap<V> {
    fn new() -> Self {
        Heap {
            round: i64::MIN,
            heap: BinaryHeap::new(),
        }
    }

    #[inline]
    fn push(&mut self, end: i64, value: V) {
        debug_assert!(end >= self.round, "an end before the round's time");
        self.heap.push(Reverse((end, value)));
    }

    #[inline]
    fn earliest(&self) -> Option<i64> {
        self.heap.peek().map(|Reverse((e, _))| *e)
    }

    #[inline]
    fn advance(&mut self, t: i64) {
        debug_assert!(t >= self.round, "time goes back");
        debug_assert!(self.earliest().is_none_or(|e| e >= t), "an end passed over");
        self.round = t;
    }

    #[inline]
    fn take_now(&mut self) -> Option<V> {
        match self.heap.peek() {
            Some(&Reverse((e, v))) if e == self.round => {
                self.heap.pop();
                Some(v)
            }
            _ => None,
        }
    }

    fn for_each(&self, mut f: impl FnMut(i64, V)) {
        self.heap.iter().for_each(|&Reverse((e, v))| f(e, v));
    }
}

/// The radix heap's digit: 2 bits, 4 digits a level, 32 levels in a `u64` (1 bit a level
/// moved each end more often, 4 bits made the buckets to look through more: `docs/perf.md`,
/// measured).
const DIGIT: u32 = 2;
const RADIX: usize = 1 << DIGIT;
const LEVELS: usize = (u64::BITS / DIGIT) as usize;
/// Bucket 0 for the ends at `now`, then one per level and digit.
const BUCKETS: usize = 1 + LEVELS * RADIX;
/// Words of the mask of buckets that hold ends.
const WORDS: usize = BUCKETS.div_ceil(64);

/// The ends in a radix heap, for a machine on which many jobs run at once.
pub(super) struct Buckets<V> {
    /// As [`key`], the time of the last round that took ends: no end kept is earlier.
    now: u64,
    buckets: Box<[Vec<(u64, V)>; BUCKETS]>,
    /// Each bucket's earliest end (`u64::MAX` when it is empty).
    least: Box<[u64; BUCKETS]>,
    /// Bit `b % 64` of word `b / 64` set when bucket `b` holds an end.
    filled: [u64; WORDS],
}

/// `t` as an unsigned key in the same order (the sign bit flipped), so that two times' highest
/// differing digit orders them.
#[inline]
fn key(t: i64) -> u64 {
    (t as u64) ^ (1 << 63)
}

/// The time of key `k`.
#[inline]
fn time(k: u64) -> i64 {
    (k ^ (1 << 63)) as i64
}

/// The bucket of key `k` when the round's key is `now` (`k >= now`): 0 when they are equal,
/// else by the highest digit in which they differ (its level) and `k`'s value there. A bucket
/// of a lower level, or of the same level and a lower digit, holds earlier ends only.
#[inline]
fn bucket(k: u64, now: u64) -> usize {
    let x = k ^ now;
    if x == 0 {
        return 0;
    }
    let level = (u64::BITS - 1 - x.leading_zeros()) / DIGIT;
    let digit = (k >> (level * DIGIT)) as usize & (RADIX - 1);
    1 + level as usize * RADIX + digit
}

impl<V: Copy> Buckets<V> {
    #[inline]
    fn put(&mut self, k: u64, value: V) {
        let b = bucket(k, self.now);
        self.buckets[b].push((k, value));
        self.least[b] = self.least[b].min(k);
        self.filled[b / 64] |= 1 << (b % 64);
    }

    /// The first bucket that holds an end.
    #[inline]
    fn first(&self) -> Option<usize> {
        let w = self.filled.iter().position(|&w| w != 0)?;
        Some(w * 64 + self.filled[w].trailing_zeros() as usize)
    }
}

impl<V: Copy> Ends<V> for Buckets<V> {
    fn new() -> Self {
        Buckets {
            now: 0,
            buckets: Box::new(std::array::from_fn(|_| Vec::new())),
            least: Box::new([u64::MAX; BUCKETS]),
            filled: [0; WORDS],
        }
    }

    #[inline]
    fn push(&mut self, end: i64, value: V) {
        let k = key(end);
        debug_assert!(k >= self.now, "an end before the round's time");
        self.put(k, value);
    }

    #[inline]
    fn earliest(&self) -> Option<i64> {
        self.first().map(|b| time(self.least[b]))
    }

    #[inline]
    fn advance(&mut self, t: i64) {
        let k = key(t);
        // `now` moves only to a time with ends, the earliest: the bucket that holds it. A
        // round of submits alone moves nothing (every end then stays as far from `now` as
        // it was pushed, and moves down less often).
        let Some(b) = self.first() else {
            return; // no job running
        };
        if b == 0 || self.least[b] != k {
            return; // the ends at `now` still to take, or none at `t`
        }
        self.now = k;
        // The bucket's ends share with `t` the digits down to its level's and now differ
        // lower down, or not at all; the buckets before it are empty (their ends would be
        // before `t`), and those after it keep their level and digit.
        let mut moving = std::mem::take(&mut self.buckets[b]);
        self.least[b] = u64::MAX;
        self.filled[b / 64] &= !(1 << (b % 64));
        for &(k, v) in &moving {
            self.put(k, v);
        }
        moving.clear();
        self.buckets[b] = moving;
    }

    #[inline]
    fn take_now(&mut self) -> Option<V> {
        let v = self.buckets[0].pop().map(|(_, v)| v);
        if self.buckets[0].is_empty() {
            self.least[0] = u64::MAX;
            self.filled[0] &= !1;
        }
        v
    }

    fn for_each(&self, mut f: impl FnMut(i64, V)) {
        for (b, bucket) in self.buckets.iter().enumerate() {
            if self.filled[b / 64] & (1 << (b % 64)) != 0 {
                bucket.iter().for_each(|&(k, v)| f(time(k), v));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    /// Rounds as the plain loop has them, against `std`'s binary heap: each round's time is the
    /// earliest end or the next submit (earlier ones jump ahead of ends), every end at it is
    /// taken, and jobs start then with runs of 0 to far, many at equal ends; times negative
    /// and near `i64`'s ends too; few jobs running at once, and thousands.
    #[test]
    fn rounds_take_the_ends_a_binary_heap_gives() {
        rounds::<Heap<u32>>();
        rounds::<Buckets<u32>>();
    }

    fn rounds<Q: Ends<u32>>() {
        // (seed, first submit, time scale, most jobs a submit)
        for (seed, base, spread, burst) in [
            (1u64, 0i64, 100u64, 4),
            (2, -5_000, 10_000, 4),
            (3, 1 << 40, 1 << 20, 4),
            (4, -(1 << 62), 1 << 61, 4),
            (5, i64::MAX - (1 << 40), 1 << 30, 4),
            (6, 7, 3, 4),
            (7, 0, 100_000, 300),
            (8, -(1 << 40), 1 << 20, 200),
        ] {
            let mut x = seed;
            let mut next = |m: u64| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 33) % m.max(1)
            };
            let mut ends = Q::new();
            let mut heap: BinaryHeap<Reverse<(i64, u32)>> = BinaryHeap::new();
            let mut submit = base;
            let mut id = 0;
            let mut rounds = 0;
            while rounds < 3000 {
                let earliest = heap.peek().map(|Reverse((e, _))| *e);
                assert_eq!(ends.earliest(), earliest, "seed {seed}");
                let t = earliest.map_or(submit, |e| e.min(submit));
                ends.advance(t);
                let mut got: Vec<u32> = std::iter::from_fn(|| ends.take_now()).collect();
                let mut want = Vec::new();
                while let Some(&Reverse((e, j))) = heap.peek()
                    && e == t
                {
                    heap.pop();
                    want.push(j);
                }
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want, "seed {seed} at {t}");
                if t == submit {
                    for _ in 0..=next(burst) {
                        let run = match next(4) {
                            0 => 0,
                            1 => next(8) as i64,
                            _ => next(spread) as i64,
                        };
                        let e = t.saturating_add(run);
                        ends.push(e, id);
                        heap.push(Reverse((e, id)));
                        id += 1;
                    }
                    submit = submit.saturating_add(1 + next(spread / 2) as i64);
                }
                let mut all: Vec<(i64, u32)> = Vec::new();
                ends.for_each(|e, v| all.push((e, v)));
                let mut kept: Vec<(i64, u32)> = heap.iter().map(|Reverse(p)| *p).collect();
                all.sort_unstable();
                kept.sort_unstable();
                assert_eq!(all, kept, "seed {seed}");
                rounds += 1;
            }
        }
    }
}
