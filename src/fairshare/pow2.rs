//! `pow(2, y)` with the bits of glibc's `pow`, which is what OpenPBS and Slurm call.
//!
//! Both compute their fairshare factor in C as `pow(2, -(ratio))`. In Rust, `2f64.powf(y)`
//! does not reliably call `pow`: LLVM rewrites `pow(2.0, y)` to `exp2(y)` in optimised
//! builds, and glibc's `exp2` and `pow` differ in the last bit for about 0.07% of inputs
//! (157,745 of the 218,103,808 `f32` ratios in [2^-20, 64)). So the factor depends on the
//! build profile unless something forces a real `pow`.
//!
//! [`pow2`] gives glibc's `pow(2, y)` bit for bit:
//! - On x86-64 Linux with glibc, when the CPU has FMA and AVX2, glibc runs its FMA build of
//!   `pow` (the ARM optimized-routines algorithm since glibc 2.28). For base 2 the logarithm
//!   part is a constant pair, and the rest is done here with the same operations in the same
//!   order, FMA for FMA, as that build's machine code: 4.0 ns a call against 13.4 ns for
//!   libm's `pow` (and 3.2 ns for `exp2`). [`pow2_in_place`] does four lanes at a time with
//!   AVX2, each lane the same operations.
//! - Everywhere else, and for arguments outside the main path (|y| < 2^-65, |y| >= 2^63,
//!   results that overflow or underflow, NaN), it calls the C library's `pow`.
//!
//! Tests compare it with the C library's `pow` over sampled `f32` ratios and random
//! doubles; `cargo run --release --example pow2_exhaustive` covers every `f32` ratio (the
//! whole domain of the PBS factor), one lane and four lanes against libm.
//! One gap: glibc can be told to pick its SSE2 build (`GLIBC_TUNABLES` hwcaps masks); a
//! process started that way gets the FMA bits from here and the SSE2 bits from C.

/// The C library's `pow`, never rewritten to `exp2` (the base is opaque to the optimiser).
#[inline]
pub fn libm_pow(x: f64, y: f64) -> f64 {
    std::hint::black_box(x).powf(y)
}

/// `pow(2, y)`, bit for bit as glibc computes it (see the module docs).
#[inline]
pub fn pow2(y: f64) -> f64 {
    if y == 0.0 {
        return 1.0; // C's pow(x, ±0) is 1 for every x (a zero usage: common)
    }
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    if fma::usable() {
        // SAFETY: the CPU has FMA and AVX2 (checked just above).
        if let Some(v) = unsafe { fma::pow2(y) } {
            return v;
        }
    }
    libm_pow(2.0, y)
}

/// [`pow2`] of every element, in place. Each `pow` is a chain of about ten dependent
/// floating-point operations: one tight loop over many lets the CPU overlap the chains
/// (measured: 5.1 against 7.5 ns per fairshare factor, divisions included).
pub fn pow2_in_place(ys: &mut [f64]) {
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    if fma::usable() {
        // SAFETY: the CPU has FMA and AVX2 (checked just above).
        unsafe { fma::pow2_in_place(ys) };
        return;
    }
    for y in ys {
        *y = pow2(*y);
    }
}

#[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
mod fma {
    use std::arch::x86_64::*;
    use std::sync::atomic::{AtomicU8, Ordering};

    /// 0: not checked yet, 1: usable, 2: not.
    static USABLE: AtomicU8 = AtomicU8::new(0);

    /// Whether glibc picks its FMA `pow`: FMA and AVX2 usable (glibc's ifunc selector).
    #[inline]
    pub fn usable() -> bool {
        match USABLE.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => {
                let ok = std::arch::is_x86_feature_detected!("fma")
                    && std::arch::is_x86_feature_detected!("avx2");
                USABLE.store(if ok { 1 } else { 2 }, Ordering::Relaxed);
                ok
            }
        }
    }

    /// `log(2)` as glibc's `log_inline` returns it, head and tail. For `x = 2` its table
    /// entry has `invc = 1`, `logc = logctail = 0`, so `r = 0` and every polynomial term
    /// vanishes: the pair is `Ln2hi + Ln2lo` and its rounding error.
    const LN2_HI: f64 = f64::from_bits(0x3fe62e42fefa3800); // 0x1.62e42fefa3800p-1
    const LN2_LO: f64 = f64::from_bits(0x3d2ef35793c76730); // 0x1.ef35793c76730p-45
    const LOG2_HI: f64 = LN2_HI + LN2_LO;
    const LOG2_LO: f64 = (LN2_HI - LOG2_HI) + LN2_LO;

    // `__exp_data` (EXP_TABLE_BITS = 7).
    const INV_LN2_N: f64 = f64::from_bits(0x40671547652b82fe);
    const NEG_LN2_HI_N: f64 = f64::from_bits(0xbf762e42fefa0000);
    const NEG_LN2_LO_N: f64 = f64::from_bits(0xbd0cf79abc9e3b3a);
    const C2: f64 = f64::from_bits(0x3fdffffffffffdbd);
    const C3: f64 = f64::from_bits(0x3fc555555555543c);
    const C4: f64 = f64::from_bits(0x3fa55555cf172b91);
    const C5: f64 = f64::from_bits(0x3f81111167a4d017);
    const SHIFT: f64 = f64::from_bits(0x4338000000000000); // 0x1.8p52

    /// [`super::pow2_in_place`] with FMA and AVX2: four at a time ([`pow2_x4`]), the rest
    /// and the lanes off the main path one at a time.
    #[target_feature(enable = "fma,avx2")]
    pub unsafe fn pow2_in_place(ys: &mut [f64]) {
        let mut quads = ys.chunks_exact_mut(4);
        for q in &mut quads {
            let y = [q[0], q[1], q[2], q[3]];
            // SAFETY: this function's own precondition; `q` has four elements.
            let on_path = unsafe {
                let (v, on_path) = pow2_x4(_mm256_loadu_pd(y.as_ptr()));
                _mm256_storeu_pd(q.as_mut_ptr(), v);
                on_path
            };
            if on_path != 0b1111 {
                for lane in (0..4).filter(|l| on_path & (1 << l) == 0) {
                    q[lane] = super::pow2(y[lane]);
                }
            }
        }
        for y in quads.into_remainder() {
            // SAFETY: this function's own precondition.
            *y = unsafe { pow2(*y) }.unwrap_or_else(|| super::pow2(*y));
        }
    }

    /// [`pow2`] in each of four lanes: the same operations, lane by lane (so the same bits),
    /// and a mask of the lanes on the main path (bit `i` for lane `i`); the others' values
    /// are meaningless.
    #[target_feature(enable = "fma,avx2")]
    fn pow2_x4(y: __m256d) -> (__m256d, i32) {
        let pd = _mm256_set1_pd;
        let within = |top: __m256i, lo: i64, hi: i64| {
            // lo <= top < hi, for 0 <= top <= 0x7ff.
            let above = _mm256_cmpgt_epi64(top, _mm256_set1_epi64x(lo - 1));
            let below = _mm256_cmpgt_epi64(_mm256_set1_epi64x(hi), top);
            _mm256_and_si256(above, below)
        };
        let top12 = |x: __m256d| {
            let bits = _mm256_srli_epi64::<52>(_mm256_castpd_si256(x));
            _mm256_and_si256(bits, _mm256_set1_epi64x(0x7ff))
        };
        let y_ok = within(top12(y), 0x3be, 0x43e);
        let ehi = _mm256_mul_pd(y, pd(LOG2_HI));
        let elo = _mm256_fmadd_pd(y, pd(LOG2_LO), _mm256_fmsub_pd(pd(LOG2_HI), y, ehi));
        let e_ok = within(top12(ehi), 0x3c9, 0x408);
        let kd = _mm256_fmadd_pd(ehi, pd(INV_LN2_N), pd(SHIFT));
        let ki = _mm256_castpd_si256(kd);
        let kd = _mm256_sub_pd(kd, pd(SHIFT));
        let r = _mm256_fmadd_pd(
            kd,
            pd(NEG_LN2_LO_N),
            _mm256_fmadd_pd(kd, pd(NEG_LN2_HI_N), ehi),
        );
        let r = _mm256_add_pd(elo, r);
        let idx = _mm256_slli_epi64::<1>(_mm256_and_si256(ki, _mm256_set1_epi64x(127)));
        let base = TAB.as_ptr() as *const i64;
        // SAFETY: every index is at most 2 * 127 + 1 < TAB.len().
        let (tail, sbits) = unsafe {
            (
                _mm256_castsi256_pd(_mm256_i64gather_epi64::<8>(base, idx)),
                _mm256_i64gather_epi64::<8>(base.add(1), idx),
            )
        };
        let scale = _mm256_castsi256_pd(_mm256_add_epi64(sbits, _mm256_slli_epi64::<45>(ki)));
        let r2 = _mm256_mul_pd(r, r);
        let tmp = _mm256_fmadd_pd(
            _mm256_fmadd_pd(r, pd(C3), pd(C2)),
            r2,
            _mm256_add_pd(tail, r),
        );
        let tmp = _mm256_fmadd_pd(
            _mm256_fmadd_pd(r, pd(C5), pd(C4)),
            _mm256_mul_pd(r2, r2),
            tmp,
        );
        let v = _mm256_fmadd_pd(tmp, scale, scale);
        let ok = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_and_si256(y_ok, e_ok)));
        (v, ok)
    }

    /// `pow(2, y)` on glibc's main path, `None` off it. Each `mul_add` is one FMA instruction
    /// where glibc's FMA build has one (GCC contracts `a * b + c` there).
    #[target_feature(enable = "fma,avx2")]
    pub unsafe fn pow2(y: f64) -> Option<f64> {
        // pow: |y| in [2^-65, 2^63).
        let topy = (y.to_bits() >> 52) as u32 & 0x7ff;
        if topy.wrapping_sub(0x3be) >= 0x80 {
            return None;
        }
        // y * log(2) as a head and a tail.
        let ehi = y * LOG2_HI;
        let elo = y.mul_add(LOG2_LO, LOG2_HI.mul_add(y, -ehi));
        // exp_inline: |ehi| in [2^-54, 512).
        let abstop = (ehi.to_bits() >> 52) as u32 & 0x7ff;
        if abstop.wrapping_sub(0x3c9) >= 0x3f {
            return None;
        }
        let kd = ehi.mul_add(INV_LN2_N, SHIFT);
        let ki = kd.to_bits();
        let kd = kd - SHIFT;
        let r = kd.mul_add(NEG_LN2_LO_N, kd.mul_add(NEG_LN2_HI_N, ehi));
        let r = elo + r;
        let idx = 2 * (ki % 128) as usize;
        let top = ki << 45;
        let tail = f64::from_bits(TAB[idx]);
        let scale = f64::from_bits(TAB[idx + 1].wrapping_add(top));
        let r2 = r * r;
        let tmp = r.mul_add(C3, C2).mul_add(r2, tail + r);
        let tmp = r.mul_add(C5, C4).mul_add(r2 * r2, tmp);
        Some(tmp.mul_add(scale, scale))
    }

    /// `__exp_data.tab`: for k in 0..128, the tail `(2^(k/128) - H) / H` and
    /// `bits(H) - k * 2^52 / 128`, with `H` = 2^(k/128) rounded to nearest (each value
    /// rounded to nearest from the exact one; checked against the table in libm).
    #[rustfmt::skip]
    static TAB: [u64; 256] = [
    0x0000000000000000, 0x3ff0000000000000, 0x3c9b3b4f1a88bf6e, 0x3feff63da9fb3335,
    0xbc7160139cd8dc5d, 0x3fefec9a3e778061, 0xbc905e7a108766d1, 0x3fefe315e86e7f85,
    0x3c8cd2523567f613, 0x3fefd9b0d3158574, 0xbc8bce8023f98efa, 0x3fefd06b29ddf6de,
    0x3c60f74e61e6c861, 0x3fefc74518759bc8, 0x3c90a3e45b33d399, 0x3fefbe3ecac6f383,
    0x3c979aa65d837b6d, 0x3fefb5586cf9890f, 0x3c8eb51a92fdeffc, 0x3fefac922b7247f7,
    0x3c3ebe3d702f9cd1, 0x3fefa3ec32d3d1a2, 0xbc6a033489906e0b, 0x3fef9b66affed31b,
    0xbc9556522a2fbd0e, 0x3fef9301d0125b51, 0xbc5080ef8c4eea55, 0x3fef8abdc06c31cc,
    0xbc91c923b9d5f416, 0x3fef829aaea92de0, 0x3c80d3e3e95c55af, 0x3fef7a98c8a58e51,
    0xbc801b15eaa59348, 0x3fef72b83c7d517b, 0xbc8f1ff055de323d, 0x3fef6af9388c8dea,
    0x3c8b898c3f1353bf, 0x3fef635beb6fcb75, 0xbc96d99c7611eb26, 0x3fef5be084045cd4,
    0x3c9aecf73e3a2f60, 0x3fef54873168b9aa, 0xbc8fe782cb86389d, 0x3fef4d5022fcd91d,
    0x3c8a6f4144a6c38d, 0x3fef463b88628cd6, 0x3c807a05b0e4047d, 0x3fef3f49917ddc96,
    0x3c968efde3a8a894, 0x3fef387a6e756238, 0x3c875e18f274487d, 0x3fef31ce4fb2a63f,
    0x3c80472b981fe7f2, 0x3fef2b4565e27cdd, 0xbc96b87b3f71085e, 0x3fef24dfe1f56381,
    0x3c82f7e16d09ab31, 0x3fef1e9df51fdee1, 0xbc3d219b1a6fbffa, 0x3fef187fd0dad990,
    0x3c8b3782720c0ab4, 0x3fef1285a6e4030b, 0x3c6e149289cecb8f, 0x3fef0cafa93e2f56,
    0x3c834d754db0abb6, 0x3fef06fe0a31b715, 0x3c864201e2ac744c, 0x3fef0170fc4cd831,
    0x3c8fdd395dd3f84a, 0x3feefc08b26416ff, 0xbc86a3803b8e5b04, 0x3feef6c55f929ff1,
    0xbc924aedcc4b5068, 0x3feef1a7373aa9cb, 0xbc9907f81b512d8e, 0x3feeecae6d05d866,
    0xbc71d1e83e9436d2, 0x3feee7db34e59ff7, 0xbc991919b3ce1b15, 0x3feee32dc313a8e5,
    0x3c859f48a72a4c6d, 0x3feedea64c123422, 0xbc9312607a28698a, 0x3feeda4504ac801c,
    0xbc58a78f4817895b, 0x3feed60a21f72e2a, 0xbc7c2c9b67499a1b, 0x3feed1f5d950a897,
    0x3c4363ed60c2ac11, 0x3feece086061892d, 0x3c9666093b0664ef, 0x3feeca41ed1d0057,
    0x3c6ecce1daa10379, 0x3feec6a2b5c13cd0, 0x3c93ff8e3f0f1230, 0x3feec32af0d7d3de,
    0x3c7690cebb7aafb0, 0x3feebfdad5362a27, 0x3c931dbdeb54e077, 0x3feebcb299fddd0d,
    0xbc8f94340071a38e, 0x3feeb9b2769d2ca7, 0xbc87deccdc93a349, 0x3feeb6daa2cf6642,
    0xbc78dec6bd0f385f, 0x3feeb42b569d4f82, 0xbc861246ec7b5cf6, 0x3feeb1a4ca5d920f,
    0x3c93350518fdd78e, 0x3feeaf4736b527da, 0x3c7b98b72f8a9b05, 0x3feead12d497c7fd,
    0x3c9063e1e21c5409, 0x3feeab07dd485429, 0x3c34c7855019c6ea, 0x3feea9268a5946b7,
    0x3c9432e62b64c035, 0x3feea76f15ad2148, 0xbc8ce44a6199769f, 0x3feea5e1b976dc09,
    0xbc8c33c53bef4da8, 0x3feea47eb03a5585, 0xbc845378892be9ae, 0x3feea34634ccc320,
    0xbc93cedd78565858, 0x3feea23882552225, 0x3c5710aa807e1964, 0x3feea155d44ca973,
    0xbc93b3efbf5e2228, 0x3feea09e667f3bcd, 0xbc6a12ad8734b982, 0x3feea012750bdabf,
    0xbc6367efb86da9ee, 0x3fee9fb23c651a2f, 0xbc80dc3d54e08851, 0x3fee9f7df9519484,
    0xbc781f647e5a3ecf, 0x3fee9f75e8ec5f74, 0xbc86ee4ac08b7db0, 0x3fee9f9a48a58174,
    0xbc8619321e55e68a, 0x3fee9feb564267c9, 0x3c909ccb5e09d4d3, 0x3feea0694fde5d3f,
    0xbc7b32dcb94da51d, 0x3feea11473eb0187, 0x3c94ecfd5467c06b, 0x3feea1ed0130c132,
    0x3c65ebe1abd66c55, 0x3feea2f336cf4e62, 0xbc88a1c52fb3cf42, 0x3feea427543e1a12,
    0xbc9369b6f13b3734, 0x3feea589994cce13, 0xbc805e843a19ff1e, 0x3feea71a4623c7ad,
    0xbc94d450d872576e, 0x3feea8d99b4492ed, 0x3c90ad675b0e8a00, 0x3feeaac7d98a6699,
    0x3c8db72fc1f0eab4, 0x3feeace5422aa0db, 0xbc65b6609cc5e7ff, 0x3feeaf3216b5448c,
    0x3c7bf68359f35f44, 0x3feeb1ae99157736, 0xbc93091fa71e3d83, 0x3feeb45b0b91ffc6,
    0xbc5da9b88b6c1e29, 0x3feeb737b0cdc5e5, 0xbc6c23f97c90b959, 0x3feeba44cbc8520f,
    0xbc92434322f4f9aa, 0x3feebd829fde4e50, 0xbc85ca6cd7668e4b, 0x3feec0f170ca07ba,
    0x3c71affc2b91ce27, 0x3feec49182a3f090, 0x3c6dd235e10a73bb, 0x3feec86319e32323,
    0xbc87c50422622263, 0x3feecc667b5de565, 0x3c8b1c86e3e231d5, 0x3feed09bec4a2d33,
    0xbc91bbd1d3bcbb15, 0x3feed503b23e255d, 0x3c90cc319cee31d2, 0x3feed99e1330b358,
    0x3c8469846e735ab3, 0x3feede6b5579fdbf, 0xbc82dfcd978e9db4, 0x3feee36bbfd3f37a,
    0x3c8c1a7792cb3387, 0x3feee89f995ad3ad, 0xbc907b8f4ad1d9fa, 0x3feeee07298db666,
    0xbc55c3d956dcaeba, 0x3feef3a2b84f15fb, 0xbc90a40e3da6f640, 0x3feef9728de5593a,
    0xbc68d6f438ad9334, 0x3feeff76f2fb5e47, 0xbc91eee26b588a35, 0x3fef05b030a1064a,
    0x3c74ffd70a5fddcd, 0x3fef0c1e904bc1d2, 0xbc91bdfbfa9298ac, 0x3fef12c25bd71e09,
    0x3c736eae30af0cb3, 0x3fef199bdd85529c, 0x3c8ee3325c9ffd94, 0x3fef20ab5fffd07a,
    0x3c84e08fd10959ac, 0x3fef27f12e57d14b, 0x3c63cdaf384e1a67, 0x3fef2f6d9406e7b5,
    0x3c676b2c6c921968, 0x3fef3720dcef9069, 0xbc808a1883ccb5d2, 0x3fef3f0b555dc3fa,
    0xbc8fad5d3ffffa6f, 0x3fef472d4a07897c, 0xbc900dae3875a949, 0x3fef4f87080d89f2,
    0x3c74a385a63d07a7, 0x3fef5818dcfba487, 0xbc82919e2040220f, 0x3fef60e316c98398,
    0x3c8e5a50d5c192ac, 0x3fef69e603db3285, 0x3c843a59ac016b4b, 0x3fef7321f301b460,
    0xbc82d52107b43e1f, 0x3fef7c97337b9b5f, 0xbc892ab93b470dc9, 0x3fef864614f5a129,
    0x3c74b604603a88d3, 0x3fef902ee78b3ff6, 0x3c83c5ec519d7271, 0x3fef9a51fbc74c83,
    0xbc8ff7128fd391f0, 0x3fefa4afa2a490da, 0xbc8dae98e223747d, 0x3fefaf482d8e67f1,
    0x3c8ec3bc41aa2008, 0x3fefba1bee615a27, 0x3c842b94c3a9eb32, 0x3fefc52b376bba97,
    0x3c8a64a931d185ee, 0x3fefd0765b6e4540, 0xbc8e37bae43be3ed, 0x3fefdbfdad9cbe14,
    0x3c77893b4d91cd9d, 0x3fefe7c1819e90d8, 0x3c5305c14160cc89, 0x3feff3c22b8f71f1,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(y: f64) {
        let (got, want) = (pow2(y), libm_pow(2.0, y));
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "pow(2, {y:e}) = {want:e}, pow2 gave {got:e}"
        );
    }

    /// The comparisons below test the port, not libm against itself: on this kind of machine
    /// the main path answers for nearly every input.
    #[test]
    #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
    fn the_port_answers_on_fma_machines() {
        if !fma::usable() {
            return; // pow2 is libm's pow here
        }
        let ys: Vec<f64> = (1..10_000).map(|i| -(i as f64) * 0.0731).collect();
        // SAFETY: FMA and AVX2 are usable (checked above).
        let answered = ys.iter().filter(|&&y| unsafe { fma::pow2(y) }.is_some());
        assert!(answered.count() > 9_900);
    }

    #[test]
    fn in_place_is_one_at_a_time() {
        let mut ys: Vec<f64> = (0..5000).map(|i| -(i as f64) * 0.173 + 3.0).collect();
        ys.extend([
            0.0,
            -0.0,
            1e-300,
            2000.0,
            -2000.0,
            f64::NAN,
            f64::NEG_INFINITY,
        ]);
        let want: Vec<u64> = ys.iter().map(|&y| libm_pow(2.0, y).to_bits()).collect();
        pow2_in_place(&mut ys);
        let got: Vec<u64> = ys.iter().map(|v| v.to_bits()).collect();
        assert_eq!(got, want);
    }

    /// Ratios where glibc's `exp2` (what `2f64.powf` becomes in release builds) differs from
    /// its `pow`: `pow2` gives `pow`'s bits.
    #[test]
    fn gives_pow_not_exp2() {
        for r in [
            f32::from_bits(0x3591_ffd9), // 0x1.23ffb2p-20
            f32::from_bits(0x35bc_3fed), // 0x1.787fdap-20
            f32::from_bits(0x3610_78ee), // 0x1.20f1dcp-19
        ] {
            let y = -(r as f64);
            same(y);
            #[cfg(all(target_arch = "x86_64", target_os = "linux", target_env = "gnu"))]
            assert_ne!(
                pow2(y).to_bits(),
                std::hint::black_box(y).exp2().to_bits(),
                "{r:e}"
            );
        }
    }

    /// The PBS factor's inputs are `-(f32 ratio)`: every 997th `f32` bit pattern, both signs.
    #[test]
    fn matches_libm_on_sampled_f32_ratios() {
        for b in (0..=0x7f80_0000u32).step_by(997) {
            let r = f32::from_bits(b) as f64;
            same(-r);
            same(r);
        }
    }

    /// Slurm's factor takes any double: random exponents over the whole main path and past it.
    #[test]
    fn matches_libm_on_random_doubles() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..400_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let unit = (x >> 11) as f64 / (1u64 << 53) as f64;
            same((unit - 0.5) * 2200.0);
            same(f64::from_bits(x));
        }
        for y in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1e-300,
            -1e-20,
            511.9,
            512.0,
            1023.9,
            1024.0,
            -1074.0,
            -1075.0,
            -1080.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ] {
            same(y);
        }
    }
}
