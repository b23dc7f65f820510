//! The main paths of glibc 2.36's `exp`, `log` and `pow` as its FMA builds run them
//! (`sysdeps/x86_64/fpu/multiarch/e_{exp,log,pow}-fma.c`, which compile
//! `sysdeps/ieee754/dbl-64/e_{exp,log,pow}.c` with `-mfma -mavx2`), written once over
//! [`Lanes`]: the same operations in the same order, an FMA wherever that build has one.
//!
//! GCC contracts `a * b + c` into one FMA when the product has no other use (and
//! `__FP_FAST_FMA` selects the explicit `__builtin_fma` branches), so the C expression tree
//! decides the grouping: `tail + r + r2 * (C2 + r * C3)` is `fma(r2, fma(r, C3, C2), tail + r)`.
//! The exhaustive check `vecmath_exhaustive` (`tools/`) and the tests check every function against
//! the C library bit for bit.
//!
//! Each function returns the lanes' values and a mask of the lanes on the main path (bit `i`
//! for lane `i`); the other lanes' values are meaningless and the caller computes them with
//! the C library. The main path excludes every input glibc treats specially (zero, negative,
//! subnormal, infinite and NaN arguments, `log` near 1, results that may overflow or underflow,
//! `|y|` outside `[2^-65, 2^63)` in `pow`), so on it the result is a finite normal number and
//! sets no `errno`.

use super::data::*;
use super::lanes::Lanes;

/// `(double) ((int64_t) tmp >> 52)`: the 12-bit exponent field of `tmp`, sign-extended, as a
/// double (exact; AVX2 has no 64-bit integer conversion, so through `0x1.8p52`).
#[inline(always)]
unsafe fn exponent_as_double<L: Lanes>(tmp: L::I) -> L {
    // SAFETY: the caller's (the lane operations' precondition).
    unsafe {
        let t = L::shr::<52>(tmp);
        // 0x1.8p52 + k with k = (t ^ 0x800) - 0x800.
        let biased = L::iadd(
            L::isplat(0x4337_ffff_ffff_f800),
            L::ixor(t, L::isplat(0x800)),
        );
        L::from_bits(biased).sub(L::splat(EXP_SHIFT))
    }
}

/// `-v` (a sign flip, as C's unary minus: `0.0 - v` would turn `-0` into `+0`).
#[inline(always)]
unsafe fn neg<L: Lanes>(v: L) -> L {
    // SAFETY: the caller's.
    unsafe { L::from_bits(L::ixor(v.bits(), L::isplat(1 << 63))) }
}

/// `e_pow.c`'s `log_inline`: `log(x)` as a head and a tail, for `ix` the bits of a positive
/// normal `x`.
#[inline(always)]
pub(super) unsafe fn log_inline<L: Lanes>(ix: L::I) -> (L, L) {
    // SAFETY: the caller's; the table indices are below 4 * 128.
    unsafe {
        let s = L::splat;
        let a = POW_LOG_POLY;
        let tmp = L::isub(ix, L::isplat(0x3fe6_9555_0000_0000)); // OFF
        let i4 = L::shl::<2>(L::iand(L::shr::<45>(tmp), L::isplat(127)));
        let kd = exponent_as_double::<L>(tmp);
        let iz = L::isub(ix, L::iand(tmp, L::isplat(0xfff << 52)));
        let z = L::from_bits(iz);
        let invc = L::from_bits(L::gather(&POW_LOG_TAB, i4));
        let logc = L::from_bits(L::gather(&POW_LOG_TAB, L::iadd(i4, L::isplat(2))));
        let logctail = L::from_bits(L::gather(&POW_LOG_TAB, L::iadd(i4, L::isplat(3))));
        let r = z.fma(invc, s(-1.0));
        let t1 = kd.fma(s(POW_LOG_LN2_HI), logc);
        let t2 = t1.add(r);
        let lo1 = kd.fma(s(POW_LOG_LN2_LO), logctail);
        let lo2 = t1.sub(t2).add(r);
        let ar = s(a[0]).mul(r);
        let ar2 = r.mul(ar);
        let ar3 = r.mul(ar2);
        let hi = t2.add(ar2);
        let lo3 = ar.fma(r, neg(ar2));
        let lo4 = t2.sub(hi).add(ar2);
        let p = ar2.fma(
            ar2.fma(r.fma(s(a[6]), s(a[5])), r.fma(s(a[4]), s(a[3]))),
            r.fma(s(a[2]), s(a[1])),
        );
        let lo = ar3.fma(p, lo1.add(lo2).add(lo3).add(lo4));
        let y = hi.add(lo);
        let tail = hi.sub(y).add(lo);
        (y, tail)
    }
}

/// `exp(x + xtail)` on `exp_inline`'s (and `__exp`'s) main path, `|x|` in `[2^-54, 512)`,
/// and the mask of the lanes there. `xtail` is `None` for `__exp`, which has no `r += xtail`.
#[inline(always)]
unsafe fn exp_main<L: Lanes>(x: L, xtail: Option<L>) -> (L, L::I) {
    // SAFETY: the caller's; the table indices are below 2 * 128.
    unsafe {
        let s = L::splat;
        let abstop = L::iand(L::shr::<52>(x.bits()), L::isplat(0x7ff));
        let ok = L::within(abstop, 0x3c9, 0x408);
        let kd = x.fma(s(EXP_INV_LN2_N), s(EXP_SHIFT));
        let ki = kd.bits();
        let kd = kd.sub(s(EXP_SHIFT));
        let r = kd.fma(s(EXP_NEG_LN2_LO_N), kd.fma(s(EXP_NEG_LN2_HI_N), x));
        let r = match xtail {
            Some(t) => r.add(t),
            None => r,
        };
        let idx = L::shl::<1>(L::iand(ki, L::isplat(127)));
        let top = L::shl::<45>(ki);
        let tail = L::from_bits(L::gather(&EXP_TAB, idx));
        let sbits = L::iadd(L::gather(&EXP_TAB, L::iadd(idx, L::isplat(1))), top);
        let r2 = r.mul(r);
        let c = EXP_POLY;
        let tmp = r2.fma(r.fma(s(c[1]), s(c[0])), tail.add(r));
        let tmp = r2.mul(r2).fma(r.fma(s(c[3]), s(c[2])), tmp);
        let scale = L::from_bits(sbits);
        (tmp.fma(scale, scale), ok)
    }
}

/// `pow(x, y)` for `x` with `log_inline(x) = (hi, lo)`, after `__pow`'s checks on `x`:
/// `ehi + elo = y log(x)`, then `exp_inline`. Returns the values and the lanes' mask.
#[inline(always)]
pub(super) unsafe fn pow_from_log<L: Lanes>(hi: L, lo: L, y: L) -> (L, L::I) {
    // SAFETY: the caller's.
    unsafe {
        let topy = L::iand(L::shr::<52>(y.bits()), L::isplat(0x7ff));
        let y_ok = L::within(topy, 0x3be, 0x43e);
        let ehi = y.mul(hi);
        let elo = y.fma(lo, y.fma(hi, neg(ehi)));
        let (v, e_ok) = exp_main(ehi, Some(elo));
        (v, L::iand(y_ok, e_ok))
    }
}

/// `pow(x, y)` where `x` is positive and normal, else off the path.
#[inline(always)]
pub(super) unsafe fn pow<L: Lanes>(x: L, y: L) -> (L, u32) {
    // SAFETY: the caller's.
    unsafe {
        let ix = x.bits();
        let x_ok = L::within(L::shr::<52>(ix), 0x001, 0x7ff);
        let (hi, lo) = log_inline::<L>(ix);
        let (v, ok) = pow_from_log(hi, lo, y);
        (v, L::movemask(L::iand(x_ok, ok)))
    }
}

/// `exp(x)`.
#[inline(always)]
pub(super) unsafe fn exp<L: Lanes>(x: L) -> (L, u32) {
    // SAFETY: the caller's.
    unsafe {
        let (v, ok) = exp_main(x, None);
        (v, L::movemask(ok))
    }
}

/// `log(x)` for positive normal `x` outside `[1 - 2^-4, 1 + 0x1.09p-4)` (glibc's separate
/// polynomial near 1 is off the path).
#[inline(always)]
pub(super) unsafe fn log<L: Lanes>(x: L) -> (L, u32) {
    // SAFETY: the caller's; the table indices are below 2 * 128.
    unsafe {
        let s = L::splat;
        let ix = x.bits();
        let normal = L::within(L::shr::<48>(ix), 0x0010, 0x7ff0);
        let near_one = L::within(ix, 0x3fee_0000_0000_0000, 0x3ff1_0900_0000_0000);
        let ok = L::iand(normal, L::ixor(near_one, L::isplat(!0)));
        let tmp = L::isub(ix, L::isplat(0x3fe6_0000_0000_0000)); // OFF
        let i2 = L::shl::<1>(L::iand(L::shr::<45>(tmp), L::isplat(127)));
        let kd = exponent_as_double::<L>(tmp);
        let iz = L::isub(ix, L::iand(tmp, L::isplat(0xfff << 52)));
        let invc = L::from_bits(L::gather(&LOG_TAB, i2));
        let logc = L::from_bits(L::gather(&LOG_TAB, L::iadd(i2, L::isplat(1))));
        let z = L::from_bits(iz);
        let r = z.fma(invc, s(-1.0));
        let w = kd.fma(s(LOG_LN2_HI), logc);
        let hi = w.add(r);
        let lo = kd.fma(s(LOG_LN2_LO), w.sub(hi).add(r));
        let r2 = r.mul(r);
        let a = LOG_POLY;
        let p = r2.fma(r.fma(s(a[4]), s(a[3])), r.fma(s(a[2]), s(a[1])));
        let y = r.mul(r2).fma(p, r2.fma(s(a[0]), lo)).add(hi);
        (y, L::movemask(ok))
    }
}
