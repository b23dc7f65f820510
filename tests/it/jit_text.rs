//! Text-level agreement: formulas compiled through the front end (`Formula::compile_with`),
//! evaluated by the JIT and by the interpreter, bit for bit, with and without `--compat pbs`.
//! Formulas: every accepted formula of `tests/data/cases/openpbs.json` plus hand-picked ones
//! covering short-circuits, chained comparisons, errors and every function family.

use jobsort::formula::{CompileOptions, Engine, Formula};
use jobsort::{Catalog, JobTable, ResourceType};

const EDGE: [f64; 14] = [
    0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -7.5, 1e300, -1e300, 5e-324, 1e-310, 100.0, 1023.0,
];

fn formulas() -> Vec<(String, Vec<(String, String)>)> {
    let path = crate::common::OPENPBS;
    let text = std::fs::read_to_string(path).expect("conformance cases");
    let cases: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let mut out = Vec::new();
    for c in cases.as_array().expect("a list") {
        if c["kind"] != "formula_accept" {
            continue;
        }
        let Some(f) = c["input"]["formula"].as_str() else {
            continue;
        };
        let custom = c["input"]["custom_resources"]
            .as_object()
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("float").to_string()))
                    .collect()
            })
            .unwrap_or_default();
        out.push((f.to_string(), custom));
    }
    for f in [
        "pow(2, -(fairshare_tree_usage/fairshare_perc))",
        "walltime/ncpus if ncpus > 0 else 0",
        "ncpus > 0 and walltime/ncpus",
        "0 < ncpus <= mem < walltime / (ncpus - 1)",
        "not ncpus or 1/mem",
        "ncpus ** 2 + mem % 3 - walltime // 7",
        "ncpus ** -0.5 + (-ncpus) ** 0.5",
        "sqrt(ncpus) + log(mem) + log(walltime, 2) + log10(ncpus) + log2(mem) + exp(ncpus)",
        "floor(ncpus / 3) + ceil(mem) + trunc(-walltime) + round(ncpus / 2) + round(mem, 2)",
        "fmod(ncpus, mem) + copysign(ncpus, -mem) + hypot(ncpus, mem, walltime) + atan2(ncpus, mem)",
        "min(ncpus, mem, walltime) * max(ncpus, 0) + abs(-mem) + fabs(walltime)",
        "sin(ncpus) + cos(mem) + tan(walltime) + asin(ncpus) + acos(mem) + atan(walltime)",
        "sinh(ncpus) + cosh(mem) + tanh(walltime) + expm1(ncpus) + log1p(mem)",
        "degrees(ncpus) + radians(mem) + pi * e + tau",
        "(ncpus * 1 + mem / 1) - (walltime - 0) + (ncpus * mem + ncpus * mem)",
        "queue_priority + job_priority * 1000 + eligible_time / 3600 + fairshare_factor",
    ] {
        out.push((f.to_string(), vec![]));
    }
    out
}

#[test]
fn jit_equals_interp_on_formulas_from_text() {
    let mut compiled = 0;
    for (formula, custom) in formulas() {
        let mut catalog = Catalog::pbs();
        for (name, ty) in &custom {
            catalog.add_resource(
                name,
                ty.parse::<ResourceType>().unwrap_or(ResourceType::Float),
            );
        }
        for compat_pbs in [false, true] {
            let opts = |engine| CompileOptions {
                engine,
                compat_pbs,
                deny_warnings: false,
            };
            let Ok(jit) = Formula::compile_with(&formula, &catalog, &opts(Engine::Jit)) else {
                continue; // rejected by the checker (e.g. `ncpus=1`): nothing to evaluate
            };
            let interp = Formula::compile_with(&formula, &catalog, &opts(Engine::Interp))
                .expect("same formula compiles for both engines");
            // Under --compat pbs a formula whose values or errors Python ints can change is
            // evaluated by the interpreter (note N0902); the outputs must still agree.
            let int_model = jit.diagnostics().iter().any(|d| d.code == "N0902");
            assert!(!int_model || compat_pbs, "{formula}");
            let engine = if int_model {
                Engine::Interp
            } else {
                Engine::Jit
            };
            assert_eq!(jit.engine(), engine, "{formula}");
            compiled += 1;
            // Every combination of edge values over the first two inputs, others cycling.
            let k = jit.inputs().len();
            let n = EDGE.len() * EDGE.len();
            let mut table = JobTable::new(n);
            for (j, name) in jit.inputs().iter().enumerate() {
                let col: Vec<f64> = (0..n)
                    .map(|i| match j {
                        0 => EDGE[i % EDGE.len()],
                        1 => EDGE[i / EDGE.len()],
                        _ => EDGE[(i * (j + 3)) % EDGE.len()],
                    })
                    .collect();
                table.set_column(name.column(), col).expect("length n");
            }
            let a = jit.evaluate(&table);
            let b = interp.evaluate(&table);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                a.errors, b.errors,
                "{formula} (compat {compat_pbs}, {k} inputs)"
            );
            assert_eq!(
                bits(&a.values),
                bits(&b.values),
                "{formula} (compat {compat_pbs})"
            );
            // And the one-job path.
            for i in [0, n / 2, n - 1] {
                let row: Vec<f64> = jit
                    .inputs()
                    .iter()
                    .map(|c| table.column(c.column()).map_or(0.0, |c| c[i]))
                    .collect();
                let one = jit.eval_one(&row);
                assert_eq!(
                    one.map(f64::to_bits),
                    a.error(i).map_or(Ok(a.values[i].to_bits()), Err),
                    "{formula} job {i}"
                );
            }
        }
    }
    assert!(compiled >= 40, "only {compiled} formulas compiled");
}

/// Formulas calling `pow`, `exp` and `log` run in the SIMD loop in blocks: each call once per
/// block of jobs over its operands stored by a pass before it (at most 8 calls), or on each
/// step's four jobs (more). Over 1003 jobs (whole blocks, a shorter one, the scalar tail) with
/// edge values and errors anywhere, the values and first errors are the interpreter's.
#[test]
fn simd_calls_in_blocks_equal_interp() {
    let catalog = Catalog::pbs();
    let n = 1003;
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for formula in [
        "exp(ncpus) + log(mem) * walltime ** ncpus if ncpus < mem else pow(2, walltime)",
        "ncpus > 0 and log(ncpus) / (mem - 1) + exp(walltime) / mem",
        "pow(2, -(fairshare_tree_usage/fairshare_perc)) * 1000 + ncpus * 0.5 + eligible_time/3600",
        // Eight calls, the most staged: 6 KiB of call regions, a frame of more than a page.
        "exp(ncpus) + exp(-mem) + log(walltime) + log(ncpus) + ncpus ** 0.5 + mem ** 2 \
         + pow(2, -walltime) + pow(walltime, ncpus)",
        // Nine calls: each on the step's four jobs.
        "exp(-ncpus) + exp(mem / walltime) + log(ncpus) + log(mem) + log(walltime) \
         + ncpus ** 0.5 + mem ** 1.5 + walltime ** 0.25 + pow(2, ncpus)",
    ] {
        let opts = |engine| CompileOptions {
            engine,
            compat_pbs: false,
            deny_warnings: false,
        };
        let jit = Formula::compile_with(formula, &catalog, &opts(Engine::Jit)).expect("compiles");
        let interp =
            Formula::compile_with(formula, &catalog, &opts(Engine::Interp)).expect("compiles");
        let mut table = JobTable::new(n);
        for c in jit.inputs() {
            let col: Vec<f64> = (0..n)
                .map(|_| {
                    let r = next();
                    match r % 8 {
                        0 => EDGE[(r >> 8) as usize % EDGE.len()],
                        1 => -((r >> 11) as f64) / (1u64 << 50) as f64,
                        _ => ((r >> 11) as f64) / (1u64 << 45) as f64,
                    }
                })
                .collect();
            table.set_column(c.column(), col).expect("length n");
        }
        let a = jit.evaluate(&table);
        let b = interp.evaluate(&table);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(a.errors, b.errors, "{formula}");
        assert_eq!(bits(&a.values), bits(&b.values), "{formula}");
        let failed = a.errors.iter().filter(|&&e| e != 0).count();
        assert!(failed > 10 && failed < n - 10, "{formula}: {failed} errors");
        if jobsort::formula::pymath::vector::usable() {
            assert!(jit.is_simd(), "{formula}");
        }
    }
}
