//! Radix passes: the digit just below a slice's common key prefix, bucket boundaries, and a
//! stable LSD sort over key bytes.

/// Where the keys of a slice differ: `(shift, base)` so that `(key >> shift) - base` is a
/// `bits`-bit digit just below their common prefix; `None` when all keys are equal.
pub(super) fn digit_plan(keys: impl Iterator<Item = u64>, bits: u32) -> Option<(u32, u64)> {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for k in keys {
        lo = lo.min(k);
        hi = hi.max(k);
    }
    let diff = lo ^ hi;
    if diff == 0 {
        return None;
    }
    let top = 63 - diff.leading_zeros();
    let shift = top.saturating_sub(bits - 1);
    Some((shift, lo >> shift))
}

/// Prefix sums of the digit histogram: bucket `d` is `starts[d] .. starts[d + 1]`.
pub(super) fn bucket_starts(digits: impl Iterator<Item = usize>, bits: u32) -> Vec<usize> {
    let mut starts = vec![0usize; (1 << bits) + 1];
    for d in digits {
        starts[d + 1] += 1;
    }
    for d in 0..(1 << bits) {
        starts[d + 1] += starts[d];
    }
    starts
}

/// Stable LSD radix sort over `bytes` key bytes (byte 0 least significant). Histograms for
/// every byte come from one pass; a byte with a single value everywhere is skipped.
pub(super) fn radix_sort<T: Copy>(
    items: &mut Vec<T>,
    bytes: usize,
    byte: impl Fn(&T, usize) -> u8,
) {
    let n = items.len();
    if n < 2 {
        return;
    }
    let mut counts = vec![[0usize; 256]; bytes];
    for it in items.iter() {
        for (b, c) in counts.iter_mut().enumerate() {
            c[byte(it, b) as usize] += 1;
        }
    }
    let mut buf: Vec<T> = items.clone();
    for (b, c) in counts.iter().enumerate() {
        if c.contains(&n) {
            continue;
        }
        let mut offsets = [0usize; 256];
        let mut sum = 0;
        for (o, &x) in offsets.iter_mut().zip(c.iter()) {
            *o = sum;
            sum += x;
        }
        for it in items.iter() {
            let d = byte(it, b) as usize;
            buf[offsets[d]] = *it;
            offsets[d] += 1;
        }
        std::mem::swap(items, &mut buf);
    }
}
