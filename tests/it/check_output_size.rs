//! `jobsort check`'s output grows linearly with the formula: a message quotes a shortened
//! snippet of the source (`hazards::snippet`), never the whole prefix of a chain, so a long
//! `a // a // ...` chain (one warning per link) does not print the square of its length.

use jobsort::Catalog;
use jobsort::formula::check::{CheckOptions, check};
use jobsort::formula::diag::{check_json, render};

/// The bytes of `check --format json` and of the text rendering for a chain of `n` links.
fn output_bytes(n: usize) -> (usize, usize, usize) {
    let src = vec!["ncpus"; n].join(" // ");
    let checked = check(&src, &Catalog::pbs(), &CheckOptions::default());
    assert!(checked.diagnostics.len() >= n - 1, "one warning per link");
    let json = check_json(checked.is_valid(), &checked.diagnostics, checked.range).to_string();
    let text = render(&src, "<formula>", &checked.diagnostics, false);
    (src.len(), json.len(), text.len())
}

#[test]
fn a_long_chain_prints_output_linear_in_its_length() {
    let (small_src, small_json, small_text) = output_bytes(500);
    let (big_src, big_json, big_text) = output_bytes(2000);
    assert!(big_src > 15_000);
    // Four times the formula, at most about four times the output (not sixteen).
    assert!(
        big_json * small_src < 5 * small_json * big_src / 4,
        "json: {small_json} bytes for {small_src}, {big_json} for {big_src}"
    );
    assert!(
        big_text * small_src < 5 * small_text * big_src / 4,
        "text: {small_text} bytes for {small_src}, {big_text} for {big_src}"
    );
    assert!(
        big_json < 200 * big_src,
        "{big_json} bytes of JSON for {big_src}"
    );
}
