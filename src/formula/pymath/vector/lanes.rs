//! The operations glibc's FMA builds use, on one, two or four lanes: [`glibc`](super::glibc)
//! is written once over [`Lanes`] and each width runs exactly the same operations in each lane.
//!
//! Every method is `#[inline(always)]` and only sound where the CPU has FMA and AVX2: the
//! callers are `#[target_feature(enable = "fma,avx2")]` functions, into which all of this
//! inlines (so `f64::mul_add` is one `vfmadd`, never a call to `fma`).

use std::arch::x86_64::*;

/// A vector of `f64` lanes and its `u64` twin.
pub(super) trait Lanes: Copy {
    /// The same lanes as integers (bit patterns, indices, masks of all ones or all zeros).
    type I: Copy;

    unsafe fn load(p: *const f64) -> Self;
    unsafe fn store(self, p: *mut f64);
    unsafe fn splat(x: f64) -> Self;
    unsafe fn isplat(x: u64) -> Self::I;
    unsafe fn add(self, b: Self) -> Self;
    unsafe fn sub(self, b: Self) -> Self;
    unsafe fn mul(self, b: Self) -> Self;
    /// `self * b + c`, rounded once.
    unsafe fn fma(self, b: Self, c: Self) -> Self;
    unsafe fn bits(self) -> Self::I;
    unsafe fn from_bits(i: Self::I) -> Self;
    unsafe fn iadd(a: Self::I, b: Self::I) -> Self::I;
    unsafe fn isub(a: Self::I, b: Self::I) -> Self::I;
    unsafe fn iand(a: Self::I, b: Self::I) -> Self::I;
    unsafe fn ixor(a: Self::I, b: Self::I) -> Self::I;
    unsafe fn shl<const S: i32>(a: Self::I) -> Self::I;
    /// Logical shift right.
    unsafe fn shr<const S: i32>(a: Self::I) -> Self::I;
    /// `table[idx]` in each lane.
    ///
    /// # Safety
    /// Every index is in bounds.
    unsafe fn gather(table: &[u64], idx: Self::I) -> Self::I;
    /// All ones where `lo <= a < hi`, for lanes `a` below 2^63 seen as signed.
    unsafe fn within(a: Self::I, lo: u64, hi: u64) -> Self::I;
    /// Bit `i` set for each all-ones lane `i` of a mask.
    unsafe fn movemask(m: Self::I) -> u32;
}

impl Lanes for f64 {
    type I = u64;

    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self {
        // SAFETY: the caller's.
        unsafe { *p }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f64) {
        // SAFETY: the caller's.
        unsafe { *p = self }
    }
    #[inline(always)]
    unsafe fn splat(x: f64) -> Self {
        x
    }
    #[inline(always)]
    unsafe fn isplat(x: u64) -> u64 {
        x
    }
    #[inline(always)]
    unsafe fn add(self, b: Self) -> Self {
        self + b
    }
    #[inline(always)]
    unsafe fn sub(self, b: Self) -> Self {
        self - b
    }
    #[inline(always)]
    unsafe fn mul(self, b: Self) -> Self {
        self * b
    }
    #[inline(always)]
    unsafe fn fma(self, b: Self, c: Self) -> Self {
        self.mul_add(b, c)
    }
    #[inline(always)]
    unsafe fn bits(self) -> u64 {
        self.to_bits()
    }
    #[inline(always)]
    unsafe fn from_bits(i: u64) -> Self {
        f64::from_bits(i)
    }
    #[inline(always)]
    unsafe fn iadd(a: u64, b: u64) -> u64 {
        a.wrapping_add(b)
    }
    #[inline(always)]
    unsafe fn isub(a: u64, b: u64) -> u64 {
        a.wrapping_sub(b)
    }
    #[inline(always)]
    unsafe fn iand(a: u64, b: u64) -> u64 {
        a & b
    }
    #[inline(always)]
    unsafe fn ixor(a: u64, b: u64) -> u64 {
        a ^ b
    }
    #[inline(always)]
    unsafe fn shl<const S: i32>(a: u64) -> u64 {
        a << S
    }
    #[inline(always)]
    unsafe fn shr<const S: i32>(a: u64) -> u64 {
        a >> S
    }
    #[inline(always)]
    unsafe fn gather(table: &[u64], idx: u64) -> u64 {
        // SAFETY: the caller's.
        unsafe { *table.get_unchecked(idx as usize) }
    }
    #[inline(always)]
    unsafe fn within(a: u64, lo: u64, hi: u64) -> u64 {
        if (lo..hi).contains(&a) { !0 } else { 0 }
    }
    #[inline(always)]
    unsafe fn movemask(m: u64) -> u32 {
        (m & 1) as u32
    }
}

/// Two lanes (the JIT's f64x2 step): AVX2's 128-bit forms.
impl Lanes for __m128d {
    type I = __m128i;

    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self {
        // SAFETY: the caller's.
        unsafe { _mm_loadu_pd(p) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f64) {
        // SAFETY: the caller's.
        unsafe { _mm_storeu_pd(p, self) }
    }
    #[inline(always)]
    unsafe fn splat(x: f64) -> Self {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_set1_pd(x) }
    }
    #[inline(always)]
    unsafe fn isplat(x: u64) -> __m128i {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_set1_epi64x(x as i64) }
    }
    #[inline(always)]
    unsafe fn add(self, b: Self) -> Self {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_add_pd(self, b) }
    }
    #[inline(always)]
    unsafe fn sub(self, b: Self) -> Self {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_sub_pd(self, b) }
    }
    #[inline(always)]
    unsafe fn mul(self, b: Self) -> Self {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_mul_pd(self, b) }
    }
    #[inline(always)]
    unsafe fn fma(self, b: Self, c: Self) -> Self {
        // SAFETY: FMA is usable (the module's precondition).
        unsafe { _mm_fmadd_pd(self, b, c) }
    }
    #[inline(always)]
    unsafe fn bits(self) -> __m128i {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_castpd_si128(self) }
    }
    #[inline(always)]
    unsafe fn from_bits(i: __m128i) -> Self {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_castsi128_pd(i) }
    }
    #[inline(always)]
    unsafe fn iadd(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_add_epi64(a, b) }
    }
    #[inline(always)]
    unsafe fn isub(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_sub_epi64(a, b) }
    }
    #[inline(always)]
    unsafe fn iand(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_and_si128(a, b) }
    }
    #[inline(always)]
    unsafe fn ixor(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_xor_si128(a, b) }
    }
    #[inline(always)]
    unsafe fn shl<const S: i32>(a: __m128i) -> __m128i {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_slli_epi64::<S>(a) }
    }
    #[inline(always)]
    unsafe fn shr<const S: i32>(a: __m128i) -> __m128i {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_srli_epi64::<S>(a) }
    }
    #[inline(always)]
    unsafe fn gather(table: &[u64], idx: __m128i) -> __m128i {
        // SAFETY: AVX2 is usable; the indices are in bounds (the caller's).
        unsafe { _mm_i64gather_epi64::<8>(table.as_ptr() as *const i64, idx) }
    }
    #[inline(always)]
    unsafe fn within(a: __m128i, lo: u64, hi: u64) -> __m128i {
        // SAFETY: SSE4.2 comes with AVX2.
        unsafe {
            let above = _mm_cmpgt_epi64(a, _mm_set1_epi64x(lo as i64 - 1));
            let below = _mm_cmpgt_epi64(_mm_set1_epi64x(hi as i64), a);
            _mm_and_si128(above, below)
        }
    }
    #[inline(always)]
    unsafe fn movemask(m: __m128i) -> u32 {
        // SAFETY: SSE2 is baseline on x86-64.
        unsafe { _mm_movemask_pd(_mm_castsi128_pd(m)) as u32 }
    }
}

/// Four lanes: AVX2.
impl Lanes for __m256d {
    type I = __m256i;

    #[inline(always)]
    unsafe fn load(p: *const f64) -> Self {
        // SAFETY: the caller's; AVX is usable.
        unsafe { _mm256_loadu_pd(p) }
    }
    #[inline(always)]
    unsafe fn store(self, p: *mut f64) {
        // SAFETY: the caller's; AVX is usable.
        unsafe { _mm256_storeu_pd(p, self) }
    }
    #[inline(always)]
    unsafe fn splat(x: f64) -> Self {
        // SAFETY: AVX is usable.
        unsafe { _mm256_set1_pd(x) }
    }
    #[inline(always)]
    unsafe fn isplat(x: u64) -> __m256i {
        // SAFETY: AVX is usable.
        unsafe { _mm256_set1_epi64x(x as i64) }
    }
    #[inline(always)]
    unsafe fn add(self, b: Self) -> Self {
        // SAFETY: AVX is usable.
        unsafe { _mm256_add_pd(self, b) }
    }
    #[inline(always)]
    unsafe fn sub(self, b: Self) -> Self {
        // SAFETY: AVX is usable.
        unsafe { _mm256_sub_pd(self, b) }
    }
    #[inline(always)]
    unsafe fn mul(self, b: Self) -> Self {
        // SAFETY: AVX is usable.
        unsafe { _mm256_mul_pd(self, b) }
    }
    #[inline(always)]
    unsafe fn fma(self, b: Self, c: Self) -> Self {
        // SAFETY: FMA is usable.
        unsafe { _mm256_fmadd_pd(self, b, c) }
    }
    #[inline(always)]
    unsafe fn bits(self) -> __m256i {
        // SAFETY: AVX is usable.
        unsafe { _mm256_castpd_si256(self) }
    }
    #[inline(always)]
    unsafe fn from_bits(i: __m256i) -> Self {
        // SAFETY: AVX is usable.
        unsafe { _mm256_castsi256_pd(i) }
    }
    #[inline(always)]
    unsafe fn iadd(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: AVX2 is usable.
        unsafe { _mm256_add_epi64(a, b) }
    }
    #[inline(always)]
    unsafe fn isub(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: AVX2 is usable.
        unsafe { _mm256_sub_epi64(a, b) }
    }
    #[inline(always)]
    unsafe fn iand(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: AVX2 is usable.
        unsafe { _mm256_and_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn ixor(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: AVX2 is usable.
        unsafe { _mm256_xor_si256(a, b) }
    }
    #[inline(always)]
    unsafe fn shl<const S: i32>(a: __m256i) -> __m256i {
        // SAFETY: AVX2 is usable.
        unsafe { _mm256_slli_epi64::<S>(a) }
    }
    #[inline(always)]
    unsafe fn shr<const S: i32>(a: __m256i) -> __m256i {
        // SAFETY: AVX2 is usable.
        unsafe { _mm256_srli_epi64::<S>(a) }
    }
    #[inline(always)]
    unsafe fn gather(table: &[u64], idx: __m256i) -> __m256i {
        // SAFETY: AVX2 is usable; the indices are in bounds (the caller's).
        unsafe { _mm256_i64gather_epi64::<8>(table.as_ptr() as *const i64, idx) }
    }
    #[inline(always)]
    unsafe fn within(a: __m256i, lo: u64, hi: u64) -> __m256i {
        // SAFETY: AVX2 is usable.
        unsafe {
            let above = _mm256_cmpgt_epi64(a, _mm256_set1_epi64x(lo as i64 - 1));
            let below = _mm256_cmpgt_epi64(_mm256_set1_epi64x(hi as i64), a);
            _mm256_and_si256(above, below)
        }
    }
    #[inline(always)]
    unsafe fn movemask(m: __m256i) -> u32 {
        // SAFETY: AVX is usable.
        unsafe { _mm256_movemask_pd(_mm256_castsi256_pd(m)) as u32 }
    }
}
