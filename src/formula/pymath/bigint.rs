//! The arbitrary-precision integer under Python's `int` (`Objects/longobject.c`): a sign and
//! a magnitude of 32-bit limbs, with the operations a formula can reach. Results are bounded
//! by [`MAX_BITS`]; an operation that would exceed it reports [`TooLarge`] instead of
//! computing (Python would compute it, however long it takes).

use std::cmp::Ordering;

/// The largest magnitude jobsort computes, in bits (2^65536 is far beyond a double's range,
/// so a larger int can only matter through `//` or `%` bringing it back).
pub const MAX_BITS: u64 = 1 << 16;

/// The result would have more than [`MAX_BITS`] bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge;

/// An integer of any size up to [`MAX_BITS`] bits. Zero is never negative.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct BigInt {
    neg: bool,
    /// Little-endian limbs, no trailing zero limb (zero is empty).
    mag: Vec<u32>,
}

fn normalize(mut v: Vec<u32>) -> Vec<u32> {
    while v.last() == Some(&0) {
        v.pop();
    }
    v
}

fn mag_cmp(a: &[u32], b: &[u32]) -> Ordering {
    if a.len() != b.len() {
        return a.len().cmp(&b.len());
    }
    for (x, y) in a.iter().rev().zip(b.iter().rev()) {
        if x != y {
            return x.cmp(y);
        }
    }
    Ordering::Equal
}

fn mag_add(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(a.len() + 1);
    let mut carry = 0u64;
    for (i, &x) in a.iter().enumerate() {
        let s = u64::from(x) + u64::from(b.get(i).copied().unwrap_or(0)) + carry;
        out.push(s as u32);
        carry = s >> 32;
    }
    if carry != 0 {
        out.push(carry as u32);
    }
    out
}

/// `a - b` for `a >= b`.
fn mag_sub(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0i64;
    for (i, &x) in a.iter().enumerate() {
        let mut d = i64::from(x) - i64::from(b.get(i).copied().unwrap_or(0)) - borrow;
        borrow = 0;
        if d < 0 {
            d += 1 << 32;
            borrow = 1;
        }
        out.push(d as u32);
    }
    normalize(out)
}

fn mag_mul(a: &[u32], b: &[u32]) -> Vec<u32> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut out = vec![0u32; a.len() + b.len()];
    for (i, &x) in a.iter().enumerate() {
        let mut carry = 0u64;
        for (j, &y) in b.iter().enumerate() {
            let t = u64::from(x) * u64::from(y) + u64::from(out[i + j]) + carry;
            out[i + j] = t as u32;
            carry = t >> 32;
        }
        out[i + b.len()] = carry as u32;
    }
    normalize(out)
}

fn mag_shl(a: &[u32], bits: u32, extra_limb: bool) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + 1);
    let mut carry = 0u32;
    for &x in a {
        if bits == 0 {
            out.push(x);
        } else {
            out.push((x << bits) | carry);
            carry = x >> (32 - bits);
        }
    }
    if extra_limb {
        out.push(carry);
    }
    out
}

/// Truncating division of magnitudes (Knuth's algorithm D): `(a / b, a % b)`, `b` nonzero.
fn mag_divrem(a: &[u32], b: &[u32]) -> (Vec<u32>, Vec<u32>) {
    if mag_cmp(a, b) == Ordering::Less {
        return (Vec::new(), a.to_vec());
    }
    if b.len() == 1 {
        let d = u64::from(b[0]);
        let mut q = vec![0u32; a.len()];
        let mut r = 0u64;
        for i in (0..a.len()).rev() {
            let cur = (r << 32) | u64::from(a[i]);
            q[i] = (cur / d) as u32;
            r = cur % d;
        }
        return (normalize(q), normalize(vec![r as u32]));
    }
    let (m, n) = (a.len(), b.len());
    let s = b[n - 1].leading_zeros();
    let vn = mag_shl(b, s, false);
    let mut un = mag_shl(a, s, true);
    let mut q = vec![0u32; m - n + 1];
    let base = 1u64 << 32;
    for j in (0..=m - n).rev() {
        let num = (u64::from(un[j + n]) << 32) | u64::from(un[j + n - 1]);
        let mut qhat = num / u64::from(vn[n - 1]);
        let mut rhat = num % u64::from(vn[n - 1]);
        while qhat >= base
            || qhat * u64::from(vn[n - 2]) > ((rhat << 32) | u64::from(un[j + n - 2]))
        {
            qhat -= 1;
            rhat += u64::from(vn[n - 1]);
            if rhat >= base {
                break;
            }
        }
        // Multiply and subtract.
        let mut k: i64 = 0;
        for i in 0..n {
            let p = qhat * u64::from(vn[i]);
            let t = i64::from(un[i + j]) - k - (p & 0xffff_ffff) as i64;
            un[i + j] = t as u32;
            k = (p >> 32) as i64 - (t >> 32);
        }
        let t = i64::from(un[j + n]) - k;
        un[j + n] = t as u32;
        if t < 0 {
            // Subtracted too much: add back.
            qhat -= 1;
            let mut c = 0u64;
            for i in 0..n {
                let sum = u64::from(un[i + j]) + u64::from(vn[i]) + c;
                un[i + j] = sum as u32;
                c = sum >> 32;
            }
            un[j + n] = un[j + n].wrapping_add(c as u32);
        }
        q[j] = qhat as u32;
    }
    // The remainder is un[..n] shifted back.
    let mut r = vec![0u32; n];
    for i in 0..n {
        r[i] = if s == 0 {
            un[i]
        } else {
            (un[i] >> s) | (un[i + 1] << (32 - s))
        };
    }
    (normalize(q), normalize(r))
}

impl BigInt {
    pub fn zero() -> BigInt {
        BigInt::default()
    }

    fn from_parts(neg: bool, mag: Vec<u32>) -> BigInt {
        let mag = normalize(mag);
        BigInt {
            neg: neg && !mag.is_empty(),
            mag,
        }
    }

    fn checked(neg: bool, mag: Vec<u32>) -> Result<BigInt, TooLarge> {
        let b = BigInt::from_parts(neg, mag);
        if b.bit_length() > MAX_BITS {
            Err(TooLarge)
        } else {
            Ok(b)
        }
    }

    pub fn from_i64(v: i64) -> BigInt {
        let m = v.unsigned_abs();
        BigInt::from_parts(v < 0, vec![m as u32, (m >> 32) as u32])
    }

    /// The value of a finite, whole `f64` (`PyLong_FromDouble`); `None` otherwise.
    pub fn from_f64(x: f64) -> Option<BigInt> {
        if !x.is_finite() || x.fract() != 0.0 {
            return None;
        }
        if x == 0.0 {
            return Some(BigInt::zero());
        }
        let bits = x.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i64;
        let mant = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
        let e = exp - 1075;
        let base = BigInt::from_parts(false, vec![mant as u32, (mant >> 32) as u32]);
        let mag = if e >= 0 {
            base.shl(e as u64).mag
        } else {
            vec![(mant >> (-e)) as u32, ((mant >> (-e)) >> 32) as u32]
        };
        Some(BigInt::from_parts(x < 0.0, mag))
    }

    /// A decimal literal's value (digits, `_` between them).
    pub fn from_decimal(text: &str) -> Option<BigInt> {
        let mut mag: Vec<u32> = Vec::new();
        let mut any = false;
        for c in text.bytes() {
            if c == b'_' {
                continue;
            }
            if !c.is_ascii_digit() {
                return None;
            }
            any = true;
            let mut carry = u64::from(c - b'0');
            for limb in &mut mag {
                let t = u64::from(*limb) * 10 + carry;
                *limb = t as u32;
                carry = t >> 32;
            }
            if carry != 0 {
                mag.push(carry as u32);
            }
            if mag.len() as u64 * 32 > MAX_BITS + 32 {
                return None;
            }
        }
        any.then(|| BigInt::from_parts(false, mag))
    }

    /// The value as an `i64` when it fits.
    pub fn to_i64(&self) -> Option<i64> {
        if self.mag.len() > 2 {
            return None;
        }
        let m = u64::from(self.mag.first().copied().unwrap_or(0))
            | (u64::from(self.mag.get(1).copied().unwrap_or(0)) << 32);
        if self.neg {
            if m <= 1u64 << 63 {
                Some((m as i64).wrapping_neg())
            } else {
                None
            }
        } else {
            i64::try_from(m).ok()
        }
    }

    pub fn is_zero(&self) -> bool {
        self.mag.is_empty()
    }
    pub fn is_negative(&self) -> bool {
        self.neg
    }
    pub fn is_odd(&self) -> bool {
        self.mag.first().is_some_and(|l| l & 1 == 1)
    }

    /// The number of bits of the magnitude (`int.bit_length()`).
    pub fn bit_length(&self) -> u64 {
        match self.mag.last() {
            None => 0,
            Some(top) => (self.mag.len() as u64 - 1) * 32 + u64::from(32 - top.leading_zeros()),
        }
    }

    fn bit(&self, i: u64) -> bool {
        let limb = (i / 32) as usize;
        self.mag.get(limb).is_some_and(|l| (l >> (i % 32)) & 1 == 1)
    }

    /// Whether any bit of the magnitude below bit `i` is set.
    fn any_below(&self, i: u64) -> bool {
        let limb = (i / 32) as usize;
        if self.mag[..limb.min(self.mag.len())].iter().any(|&l| l != 0) {
            return true;
        }
        let r = i % 32;
        r != 0
            && self
                .mag
                .get(limb)
                .is_some_and(|l| l & ((1u32 << r) - 1) != 0)
    }

    /// The magnitude's bits `[lo, lo + 64)` as a `u64`.
    fn bits_at(&self, lo: u64) -> u64 {
        let mut v = 0u64;
        for k in 0..64 {
            if self.bit(lo + k) {
                v |= 1 << k;
            }
        }
        v
    }

    pub fn neg(&self) -> BigInt {
        BigInt::from_parts(!self.neg, self.mag.clone())
    }
    pub fn abs(&self) -> BigInt {
        BigInt::from_parts(false, self.mag.clone())
    }

    fn shl(&self, bits: u64) -> BigInt {
        let limbs = (bits / 32) as usize;
        let mut mag = vec![0u32; limbs];
        mag.extend(mag_shl(&self.mag, (bits % 32) as u32, true));
        BigInt::from_parts(self.neg, mag)
    }

    /// The magnitude shifted right by `bits` (truncating).
    fn shr_mag(&self, bits: u64) -> BigInt {
        let limbs = (bits / 32) as usize;
        if limbs >= self.mag.len() {
            return BigInt::zero();
        }
        let s = (bits % 32) as u32;
        let src = &self.mag[limbs..];
        let mut out = Vec::with_capacity(src.len());
        for i in 0..src.len() {
            let lo = src[i] >> s;
            let hi = if s == 0 {
                0
            } else {
                src.get(i + 1).map_or(0, |h| h << (32 - s))
            };
            out.push(lo | hi);
        }
        BigInt::from_parts(false, out)
    }

    pub fn add(&self, other: &BigInt) -> Result<BigInt, TooLarge> {
        if self.neg == other.neg {
            return BigInt::checked(self.neg, mag_add(&self.mag, &other.mag));
        }
        match mag_cmp(&self.mag, &other.mag) {
            Ordering::Equal => Ok(BigInt::zero()),
            Ordering::Greater => BigInt::checked(self.neg, mag_sub(&self.mag, &other.mag)),
            Ordering::Less => BigInt::checked(other.neg, mag_sub(&other.mag, &self.mag)),
        }
    }

    pub fn sub(&self, other: &BigInt) -> Result<BigInt, TooLarge> {
        self.add(&other.neg())
    }

    pub fn mul(&self, other: &BigInt) -> Result<BigInt, TooLarge> {
        if self.bit_length() + other.bit_length() > MAX_BITS + 1 {
            return Err(TooLarge);
        }
        BigInt::checked(self.neg != other.neg, mag_mul(&self.mag, &other.mag))
    }

    /// Python's `divmod`: the floor quotient and the remainder with the divisor's sign.
    /// `None` for a zero divisor.
    pub fn divmod(&self, other: &BigInt) -> Option<(BigInt, BigInt)> {
        if other.is_zero() {
            return None;
        }
        let (q, r) = mag_divrem(&self.mag, &other.mag);
        let mut q = BigInt::from_parts(self.neg != other.neg, q);
        let mut r = BigInt::from_parts(self.neg, r);
        if !r.is_zero() && r.neg != other.neg {
            // Neither can exceed the operands' size: no bound is hit.
            q = q.sub(&BigInt::from_i64(1)).unwrap_or_default();
            r = r.add(other).unwrap_or_default();
        }
        Some((q, r))
    }

    /// `self ** exp` for `exp >= 0`.
    pub fn pow(&self, exp: &BigInt) -> Result<BigInt, TooLarge> {
        debug_assert!(!exp.neg);
        if exp.is_zero() {
            return Ok(BigInt::from_i64(1));
        }
        if self.is_zero() {
            return Ok(BigInt::zero());
        }
        if self.mag == [1] {
            return Ok(if self.neg && exp.is_odd() {
                self.clone()
            } else {
                BigInt::from_i64(1)
            });
        }
        // |self| >= 2: the result has at least `exp + 1` bits.
        let e = exp
            .to_i64()
            .filter(|&e| (e as u64) < MAX_BITS)
            .ok_or(TooLarge)? as u64;
        if (self.bit_length() - 1).saturating_mul(e) > MAX_BITS {
            return Err(TooLarge);
        }
        let mut result = BigInt::from_i64(1);
        let mut base = self.clone();
        let mut k = e;
        loop {
            if k & 1 == 1 {
                result = result.mul(&base)?;
            }
            k >>= 1;
            if k == 0 {
                break;
            }
            base = base.mul(&base)?;
        }
        Ok(result)
    }

    /// `(m, e)` with the magnitude ≈ `m · 2^e`, `m` in `[2^52, 2^53]` correctly rounded (half
    /// to even) to 53 bits; `None` for zero.
    fn rounded_mantissa(&self) -> Option<(u64, i64)> {
        let nb = self.bit_length();
        if nb == 0 {
            return None;
        }
        if nb <= 53 {
            return Some((self.bits_at(0), 0));
        }
        // The top 64 bits and whether anything below them is set.
        let (hi, lo_bit) = if nb <= 64 {
            (self.bits_at(0) << (64 - nb), 0)
        } else {
            (self.bits_at(nb - 64), nb - 64)
        };
        let sticky = nb > 64 && self.any_below(lo_bit);
        let mut mant = hi >> 11;
        let round = hi & 0x7ff;
        if round > 0x400 || (round == 0x400 && (sticky || mant & 1 == 1)) {
            mant += 1;
        }
        Some((mant, nb as i64 - 53))
    }

    /// `PyLong_AsDouble`: correctly rounded; `None` when it overflows a double.
    pub fn to_f64(&self) -> Option<f64> {
        let Some((mant, e)) = self.rounded_mantissa() else {
            return Some(0.0);
        };
        let (mant, e) = if mant == 1 << 53 {
            (1u64 << 52, e + 1)
        } else {
            (mant, e)
        };
        if e + 53 > 1024 {
            return None;
        }
        let v = mant as f64 * 2f64.powi(e as i32);
        Some(if self.neg { -v } else { v })
    }

    /// `_PyLong_Frexp` of the magnitude: `(m, e)` with `m` in `[0.5, 1)` rounded to 53 bits and
    /// the magnitude ≈ `m · 2^e`. `None` for zero.
    pub fn frexp(&self) -> Option<(f64, i64)> {
        let (mant, e) = self.rounded_mantissa()?;
        let nb = self.bit_length() as i64;
        if nb <= 53 {
            // Exact: scale to [0.5, 1).
            return Some((mant as f64 / 2f64.powi(nb as i32), nb));
        }
        if mant == 1 << 53 {
            Some((0.5, e + 54))
        } else {
            Some((mant as f64 / 2f64.powi(53), e + 53))
        }
    }

    /// Python's `int / int` (`long_true_divide`), correctly rounded. `Err(true)` for a zero
    /// divisor, `Err(false)` when the quotient overflows a double.
    pub fn true_div(&self, other: &BigInt) -> Result<f64, bool> {
        if other.is_zero() {
            return Err(true);
        }
        let negate = self.neg != other.neg;
        let sign = |v: f64| if negate { -v } else { v };
        if self.is_zero() {
            return Ok(sign(0.0));
        }
        let (a_bits, b_bits) = (self.bit_length() as i64, other.bit_length() as i64);
        if a_bits <= 53 && b_bits <= 53 {
            // Both exact in a double: one correctly rounded division.
            let (da, db) = (self.bits_at(0) as f64, other.bits_at(0) as f64);
            return Ok(sign(da / db));
        }
        const DBL_MANT_DIG: i64 = 53;
        const DBL_MIN_EXP: i64 = -1021;
        const DBL_MAX_EXP: i64 = 1024;
        let diff = a_bits - b_bits;
        if diff > DBL_MAX_EXP {
            return Err(false);
        }
        if diff < DBL_MIN_EXP - DBL_MANT_DIG - 1 {
            return Ok(sign(0.0));
        }
        let shift = diff.max(DBL_MIN_EXP) - DBL_MANT_DIG - 2;
        let mut inexact = false;
        let a = self.abs();
        let x = if shift <= 0 {
            a.shl((-shift) as u64)
        } else {
            inexact = a.any_below(shift as u64);
            a.shr_mag(shift as u64)
        };
        let (q, r) = mag_divrem(&x.mag, &other.mag);
        if !r.is_empty() {
            inexact = true;
        }
        let q = BigInt::from_parts(false, q);
        let x_bits = q.bit_length() as i64;
        let extra_bits = x_bits.max(DBL_MIN_EXP - shift) - DBL_MANT_DIG;
        let mut x = q.bits_at(0); // at most 56 bits
        let mask = 1u64 << (extra_bits - 1);
        let low = x | u64::from(inexact);
        if low & mask != 0 && low & (3 * mask - 1) != 0 {
            x += mask;
        }
        x &= !(2 * mask - 1);
        let dx = x as f64;
        if shift + x_bits >= DBL_MAX_EXP
            && (shift + x_bits > DBL_MAX_EXP || dx == 2f64.powi(x_bits as i32))
        {
            return Err(false);
        }
        // ldexp(dx, shift) in two exact steps (the result is representable).
        let s1 = shift / 2;
        let v = dx * 2f64.powi(s1 as i32) * 2f64.powi((shift - s1) as i32);
        Ok(sign(v))
    }

    /// Compare with a float exactly (`float_richcompare`); `None` when `x` is NaN.
    pub fn cmp_f64(&self, x: f64) -> Option<Ordering> {
        if x.is_nan() {
            return None;
        }
        if x.is_infinite() {
            return Some(if x > 0.0 {
                Ordering::Less
            } else {
                Ordering::Greater
            });
        }
        let fl = x.floor();
        let whole = BigInt::from_f64(fl).unwrap_or_default();
        Some(match self.cmp(&whole) {
            Ordering::Equal if fl != x => Ordering::Less,
            o => o,
        })
    }

    /// Python's `round(self, ndigits)` for `ndigits < 0` (`long_round`: half to even).
    pub fn round_neg_digits(&self, ndigits: i64) -> Result<BigInt, TooLarge> {
        let k = ndigits.unsigned_abs();
        // 10^k > 2|self| makes the result 0.
        if k > self.bit_length() / 3 + 2 {
            return Ok(BigInt::zero());
        }
        let ten_k = BigInt::from_i64(10).pow(&BigInt::from_i64(k as i64))?;
        let Some((mut q, r)) = self.divmod(&ten_k) else {
            return Ok(BigInt::zero());
        };
        let twice = r.add(&r)?;
        match twice.cmp(&ten_k) {
            Ordering::Greater => q = q.add(&BigInt::from_i64(1))?,
            Ordering::Equal if q.is_odd() => q = q.add(&BigInt::from_i64(1))?,
            _ => {}
        }
        q.mul(&ten_k)
    }
}

impl Ord for BigInt {
    fn cmp(&self, other: &BigInt) -> Ordering {
        match (self.neg, other.neg) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => mag_cmp(&self.mag, &other.mag),
            (true, true) => mag_cmp(&other.mag, &self.mag),
        }
    }
}

impl PartialOrd for BigInt {
    fn partial_cmp(&self, other: &BigInt) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for BigInt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_zero() {
            return f.write_str("0");
        }
        let mut digits = Vec::new();
        let mut cur = self.abs();
        let ten9 = BigInt::from_i64(1_000_000_000);
        while !cur.is_zero() {
            let (q, r) = mag_divrem(&cur.mag, &ten9.mag);
            let r = r.first().copied().unwrap_or(0);
            cur = BigInt::from_parts(false, q);
            if cur.is_zero() {
                digits.push(format!("{r}"));
            } else {
                digits.push(format!("{r:09}"));
            }
        }
        if self.neg {
            f.write_str("-")?;
        }
        for d in digits.iter().rev() {
            f.write_str(d)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(s: &str) -> BigInt {
        match s.strip_prefix('-') {
            Some(rest) => BigInt::from_decimal(rest).unwrap().neg(),
            None => BigInt::from_decimal(s).unwrap(),
        }
    }

    /// CPython 3.11 `Objects/longobject.c` (`long_add`, `long_mul`, `l_divmod`, `long_pow`).
    #[test]
    fn arithmetic_against_values_python_prints() {
        // Python 3.11: 3**100, divmod(±7**40, ±13**9), (2**70 + 1) * (2**70 - 1).
        let three = BigInt::from_i64(3);
        assert_eq!(
            three.pow(&BigInt::from_i64(100)).unwrap().to_string(),
            "515377520732011331036461129765621272702107522001"
        );
        let a = BigInt::from_i64(7).pow(&BigInt::from_i64(40)).unwrap();
        let b = BigInt::from_i64(13).pow(&BigInt::from_i64(9)).unwrap();
        let dm = |x: &BigInt, y: &BigInt| {
            let (q, r) = x.divmod(y).unwrap();
            (q.to_string(), r.to_string())
        };
        let s = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(dm(&a, &b), s("600387207067924637402063", "5706817502"));
        assert_eq!(
            dm(&a.neg(), &b.neg()),
            s("600387207067924637402063", "-5706817502")
        );
        assert_eq!(
            dm(&a.neg(), &b),
            s("-600387207067924637402064", "4897681871")
        );
        assert_eq!(
            dm(&a, &b.neg()),
            s("-600387207067924637402064", "-4897681871")
        );
        let (q, r) = big("-7").divmod(&big("2")).unwrap();
        assert_eq!((q.to_i64(), r.to_i64()), (Some(-4), Some(1)));
        let p = big("1180591620717411303425")
            .mul(&big("1180591620717411303423"))
            .unwrap();
        assert_eq!(p.to_string(), "1393796574908163946345982392040522594123775");
    }

    /// `PyLong_AsDouble` (`Objects/longobject.c`, through `_PyLong_Frexp`): half to even,
    /// OverflowError from 2^1024 - 2^970 up.
    #[test]
    fn conversions_round_half_to_even() {
        // float(2**53 + 1) == 2**53, float(2**53 + 3) == 2**53 + 4.
        let two53 = BigInt::from_i64(1 << 53);
        assert_eq!(
            two53.add(&BigInt::from_i64(1)).unwrap().to_f64(),
            Some(9007199254740992.0)
        );
        assert_eq!(
            two53.add(&BigInt::from_i64(3)).unwrap().to_f64(),
            Some(9007199254740996.0)
        );
        // 16**256 == 2**1024 overflows; 15**256 does not.
        let p = BigInt::from_i64(16).pow(&BigInt::from_i64(256)).unwrap();
        assert_eq!(p.to_f64(), None);
        let p = BigInt::from_i64(15).pow(&BigInt::from_i64(256)).unwrap();
        assert_eq!(p.to_f64(), Some(1.200500425311841e301));
        // 2**1024 - 2**970 rounds up to 2**1024: overflow; one less does not.
        let two = BigInt::from_i64(2);
        let edge = two
            .pow(&BigInt::from_i64(1024))
            .unwrap()
            .sub(&two.pow(&BigInt::from_i64(970)).unwrap())
            .unwrap();
        assert_eq!(edge.to_f64(), None);
        assert_eq!(
            edge.sub(&BigInt::from_i64(1)).unwrap().to_f64(),
            Some(f64::MAX)
        );
        assert_eq!(BigInt::from_f64(1e300).unwrap().to_f64(), Some(1e300));
        assert_eq!(BigInt::from_f64(-0.0), Some(BigInt::zero()));
        assert_eq!(BigInt::from_f64(0.5), None);
    }

    /// `long_true_divide` (`Objects/longobject.c`).
    #[test]
    fn true_division_is_correctly_rounded() {
        // Python 3.11: 10**30 / 3 == 3.333333333333333e+29, (2**1100) / (2**1099 + 1) == 2.0,
        // 2**10000 / 3 raises OverflowError, 1 / 10**400 == 0.0, -1 / 10**400 == -0.0.
        let ten = BigInt::from_i64(10);
        let t30 = ten.pow(&BigInt::from_i64(30)).unwrap();
        assert_eq!(t30.true_div(&BigInt::from_i64(3)), Ok(3.333333333333333e29));
        let two = BigInt::from_i64(2);
        let a = two.pow(&BigInt::from_i64(1100)).unwrap();
        let b = two
            .pow(&BigInt::from_i64(1099))
            .unwrap()
            .add(&BigInt::from_i64(1))
            .unwrap();
        assert_eq!(a.true_div(&b), Ok(2.0));
        let huge = two.pow(&BigInt::from_i64(10000)).unwrap();
        assert_eq!(huge.true_div(&BigInt::from_i64(3)), Err(false));
        assert_eq!(BigInt::from_i64(1).true_div(&BigInt::zero()), Err(true));
        let t400 = ten.pow(&BigInt::from_i64(400)).unwrap();
        let z = BigInt::from_i64(-1).true_div(&t400).unwrap();
        assert!(z == 0.0 && z.is_sign_negative());
        // Python 3.11: 7**400 / 3**700 == 11332.812459844516.
        let n = BigInt::from_i64(7).pow(&BigInt::from_i64(400)).unwrap();
        let d = BigInt::from_i64(3).pow(&BigInt::from_i64(700)).unwrap();
        let q = n.true_div(&d).unwrap();
        assert_eq!(q, 11332.812459844516);
    }

    /// `float_richcompare` (`Objects/floatobject.c`): an int against a float, exactly.
    #[test]
    fn comparison_with_floats_is_exact() {
        let v = BigInt::from_i64((1 << 53) + 1);
        assert_eq!(v.cmp_f64(9007199254740992.0), Some(Ordering::Greater));
        assert_eq!(BigInt::from_i64(2).cmp_f64(2.5), Some(Ordering::Less));
        assert_eq!(BigInt::from_i64(-3).cmp_f64(-2.5), Some(Ordering::Less));
        assert_eq!(BigInt::from_i64(-2).cmp_f64(-2.5), Some(Ordering::Greater));
        assert_eq!(BigInt::from_i64(3).cmp_f64(f64::NAN), None);
        assert_eq!(
            BigInt::from_i64(3).cmp_f64(f64::INFINITY),
            Some(Ordering::Less)
        );
    }

    /// `long_round` (`Objects/longobject.c`, `_PyLong_DivmodNear`).
    #[test]
    fn round_with_negative_digits_is_half_to_even() {
        // Python: round(1250, -2) == 1200, round(1350, -2) == 1400, round(-50, -2) == 0,
        // round(-51, -2) == -100, round(5, -400) == 0.
        let r = |v: i64, n: i64| {
            BigInt::from_i64(v)
                .round_neg_digits(n)
                .unwrap()
                .to_i64()
                .unwrap()
        };
        assert_eq!(r(1250, -2), 1200);
        assert_eq!(r(1350, -2), 1400);
        assert_eq!(r(-50, -2), 0);
        assert_eq!(r(-51, -2), -100);
        assert_eq!(r(5, -400), 0);
    }

    /// jobsort's own bound ([`MAX_BITS`]); `long_pow` (`Objects/longobject.c`) for ±1.
    #[test]
    fn results_beyond_the_bound_are_refused() {
        let two = BigInt::from_i64(2);
        assert_eq!(two.pow(&BigInt::from_i64(1 << 20)), Err(TooLarge));
        assert!(two.pow(&BigInt::from_i64(60000)).is_ok());
        assert_eq!(
            BigInt::from_i64(1)
                .pow(&BigInt::from_i64(1 << 40))
                .unwrap()
                .to_i64(),
            Some(1)
        );
        assert_eq!(
            BigInt::from_i64(-1)
                .pow(&BigInt::from_i64(3))
                .unwrap()
                .to_i64(),
            Some(-1)
        );
    }
}
