//! `jobsort::formula::pymath::vector` against the C library, one lane and four lanes:
//! - `exp` and `log` of every `f32` (all 2^32 bit patterns, as doubles), then as many random
//!   doubles (every mantissa bit in play);
//! - `pow(x, y)` for 2^32 pairs: `x` every `f32` bit pattern, `y` a random double scaled so
//!   that `|y log x|` sweeps the whole main path and past it, half of them with
//!   full-precision `x` too.
//!
//! Too slow for `cargo test` (several minutes in release; one core):
//!
//! ```sh
//! cargo run --release -p jobsort-tools --bin vecmath_exhaustive            # everything
//! cargo run --release -p jobsort-tools --bin vecmath_exhaustive -- exp 8   # exp, 2^32 / 8 of each kind
//! ```
//!
//! Prints per function the inputs checked and the mismatches (the first ten in full); exits
//! with status 1 on any mismatch. The unit tests check that the port, not the C library
//! fallback, answers nearly all of such inputs.

use jobsort::formula::pymath::vector::{VecFn, four, one, usable};

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Checks `(x, y)` pairs four at a time; counts mismatches.
struct Tally {
    f: VecFn,
    checked: u64,
    mismatches: u64,
    quad: Vec<(f64, f64)>,
}

impl Tally {
    fn push(&mut self, x: f64, y: f64) {
        self.quad.push((x, y));
        if self.quad.len() == 4 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let q = std::mem::take(&mut self.quad);
        let mut xs = [1.0; 4];
        let mut ys = [1.0; 4];
        for (l, &(x, y)) in q.iter().enumerate() {
            (xs[l], ys[l]) = (x, y);
        }
        let lanes = four(self.f, xs, ys);
        for (l, &(x, y)) in q.iter().enumerate() {
            let want = self.f.libm(x, y);
            let got1 = one(self.f, x, y);
            self.checked += 1;
            let same = |v: f64| v.to_bits() == want.to_bits() || (v.is_nan() && want.is_nan());
            if !same(got1) || !same(lanes[l]) {
                self.mismatches += 1;
                if self.mismatches <= 10 {
                    println!(
                        "{:?}({x:e} [{:#018x}], {y:e} [{:#018x}]): libm {:#018x}, one lane {:#018x}, four lanes {:#018x}",
                        self.f,
                        x.to_bits(),
                        y.to_bits(),
                        want.to_bits(),
                        got1.to_bits(),
                        lanes[l].to_bits()
                    );
                }
            }
        }
        self.quad = q;
        self.quad.clear();
    }
}

fn run(f: VecFn, divisor: u64) -> u64 {
    let mut t = Tally {
        f,
        checked: 0,
        mismatches: 0,
        quad: Vec::with_capacity(4),
    };
    let n = (1u64 << 32) / divisor;
    let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ f as u64;
    for i in 0..n {
        let b = i * divisor;
        let single = f32::from_bits(b as u32) as f64;
        let r = xorshift(&mut seed);
        match f {
            VecFn::Exp | VecFn::Log => {
                t.push(single, 0.0);
                // A double near the same magnitude with random low bits.
                t.push(
                    f64::from_bits(single.to_bits() ^ (r & 0x000f_ffff_ffff_ffff)),
                    0.0,
                );
            }
            VecFn::Pow => {
                // |y| up to about 2^11 / |log2 x|, both signs: through overflow and underflow.
                let unit = (r >> 11) as f64 / (1u64 << 53) as f64;
                let lg = single.abs().log2().abs().max(1e-3);
                let y = (unit - 0.5) * 2200.0 / lg;
                if i % 2 == 0 {
                    t.push(single, y);
                } else {
                    let x = f64::from_bits(single.to_bits() ^ (r.rotate_left(7) & 0x1fff_ffff));
                    t.push(x, y);
                }
            }
        }
    }
    t.flush();
    println!(
        "{f:?}: {} inputs checked, {} mismatches",
        t.checked, t.mismatches
    );
    t.mismatches
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only = args.first().map(String::as_str);
    let divisor: u64 = args.get(1).and_then(|d| d.parse().ok()).unwrap_or(1);
    if !usable() {
        println!("this CPU lacks FMA or AVX2: every lane is the C library's; nothing to check");
        return;
    }
    let mut bad = 0;
    for (name, f) in [
        ("exp", VecFn::Exp),
        ("log", VecFn::Log),
        ("pow", VecFn::Pow),
    ] {
        if only.is_none_or(|o| o == name) {
            bad += run(f, divisor.max(1));
        }
    }
    if bad > 0 {
        std::process::exit(1);
    }
}
