//! Every `f32` ratio through `jobsort::fairshare::pow2`, one lane and four lanes, against the C
//! library's `pow(2, -ratio)`: the whole domain of PBS's `fairshare_factor`. Too slow for
//! `cargo test` (about a minute in release):
//!
//! ```sh
//! cargo run --release -p jobsort-tools --bin pow2_exhaustive
//! ```
//!
//! Exits with status 1 and prints the first mismatches when any lane differs.

use jobsort::fairshare::pow2::{libm_pow, pow2, pow2_in_place};

fn main() {
    const LAST: u64 = 0x7f80_0000; // +infinity
    const CHUNK: u64 = 1 << 16;
    let (mut checked, mut mismatches) = (0u64, 0u64);
    let mut four = Vec::with_capacity(CHUNK as usize);
    let mut start = 0;
    while start <= LAST {
        let end = (start + CHUNK).min(LAST + 1);
        let ys: Vec<f64> = (start..end)
            .map(|b| -(f32::from_bits(b as u32) as f64))
            .collect();
        four.clear();
        four.extend_from_slice(&ys);
        pow2_in_place(&mut four);
        for (k, &y) in ys.iter().enumerate() {
            let want = libm_pow(2.0, y).to_bits();
            let (one, lanes) = (pow2(y).to_bits(), four[k].to_bits());
            checked += 1;
            if one != want || lanes != want {
                mismatches += 1;
                if mismatches <= 10 {
                    println!(
                        "ratio bits {:#010x}: libm {want:#018x}, one lane {one:#018x}, four lanes {lanes:#018x}",
                        start + k as u64
                    );
                }
            }
        }
        start = end;
    }
    println!("{checked} f32 ratios checked, {mismatches} mismatches");
    if mismatches > 0 {
        std::process::exit(1);
    }
}
