//! Any bytes through the whole front end (lex, parse, sema, hazards) and the renderer: must
//! never panic, and every diagnostic span must lie inside the source.
#![no_main]

use jobsort::Catalog;
use jobsort::formula::check::{CheckOptions, check};
use jobsort::formula::diag::render;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let src = String::from_utf8_lossy(data);
    let catalog = Catalog::pbs();
    for compat_pbs in [false, true] {
        let c = check(
            &src,
            &catalog,
            &CheckOptions {
                compat_pbs,
                deny_warnings: compat_pbs,
            },
        );
        for d in &c.diagnostics {
            assert!(d.span.start <= d.span.end && d.span.end <= src.len());
        }
        assert_eq!(c.is_valid(), c.ir.is_some());
        let _ = render(&src, "<fuzz>", &c.diagnostics, false);
    }
});
