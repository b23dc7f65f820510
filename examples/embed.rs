//! A toy scheduler that embeds jobsort: it compiles the site's `job_sort_formula` once, keeps
//! its queue as a columnar [`JobTable`], and every scheduling cycle updates the table in
//! place, evaluates, reports per-job errors, ranks, and starts the best job.
//!
//! ```text
//! cargo run --example embed
//! ```

use jobsort::rank::{RankOptions, Threshold, TieBreak, rank};
use jobsort::{Catalog, Formula, JobTable, ResourceType};
use std::error::Error;

/// The site's formula: fairshare first, then size, then waiting time, plus a custom
/// resource.
const FORMULA: &str = "pow(2, -(fairshare_tree_usage/fairshare_perc)) * 1000 \
                       + ncpus + eligible_time / 3600 + 10 * gpu_hours";

/// Seconds between scheduling cycles.
const CYCLE: f64 = 600.0;

fn main() -> Result<(), Box<dyn Error>> {
    // Compile once: PBS's names plus the site's custom resource.
    let catalog = Catalog::pbs().with_resource("gpu_hours", ResourceType::Float);
    let formula = Formula::compile(FORMULA, &catalog)
        .map_err(|d| format!("the formula does not compile:\n{d}"))?;
    for d in formula.diagnostics() {
        let severity = format!("{:?}", d.severity).to_lowercase();
        let (start, end) = (d.span.start, d.span.end);
        println!("{severity}[{}] at {start}..{end}: {}", d.code, d.message);
    }

    // The queue. Each job belongs to a fairshare entity (its share and usage are per job
    // here, as a scheduler passes them); `carol` has no shares, so her jobs err (0/0) and
    // get 0, as in PBS.
    let ids = ["1.pbs", "2.pbs", "3.pbs", "4.pbs", "5.pbs", "6.pbs"];
    let entity = ["alice", "bob", "alice", "carol", "dave", "bob"];
    let submit = [100.0, 110.0, 120.0, 130.0, 140.0, 150.0];
    let share = |e: &str| match e {
        "alice" => 0.4,
        "bob" => 0.4,
        "dave" => 0.2,
        _ => 0.0,
    };
    let mut usage = [
        ("alice", 0.30),
        ("bob", 0.10),
        ("carol", 0.0),
        ("dave", 0.05),
    ];
    let n = ids.len();
    let mut table = JobTable::new(n)
        .with_column("ncpus", vec![4.0, 16.0, 2.0, 8.0, 1.0, 32.0])?
        .with_column("gpu_hours", vec![0.0, 0.0, 1.5, 0.0, 4.0, 0.0])?
        .with_column("eligible_time", vec![0.0; n])?
        .with_column("fairshare_perc", entity.iter().map(|e| share(e)).collect())?
        .with_column("fairshare_tree_usage", vec![0.0; n])?;
    let mut started = vec![false; n];

    for cycle in 1..=4 {
        // Update the table in place: waiting jobs accrue eligible time, usage comes from the
        // (here: toy) fairshare tree.
        let eligible = table
            .column_mut("eligible_time")
            .ok_or("no eligible_time column")?;
        for (t, &running) in eligible.iter_mut().zip(&started) {
            if !running {
                *t += CYCLE;
            }
        }
        let tree_usage = table
            .column_mut("fairshare_tree_usage")
            .ok_or("no usage column")?;
        for (u, e) in tree_usage.iter_mut().zip(entity) {
            *u = usage
                .iter()
                .find(|(name, _)| *name == e)
                .map_or(0.0, |(_, u)| *u);
        }

        // Evaluate every job with the formula compiled before the loop.
        let evaluation = formula.evaluate(&table);
        println!("cycle {cycle}:");
        for i in 0..n {
            if let Some(e) = evaluation.error(i) {
                println!("  {} ({}): {e}; value 0", ids[i], entity[i]);
            }
        }

        // Rank: value descending, ties by submission order; value <= 0 is not runnable.
        let options = RankOptions {
            threshold: Some(Threshold::new(0.0)?),
            top: None,
        };
        let ranked = rank(
            &evaluation.values,
            TieBreak {
                submit: Some(&submit),
                ..TieBreak::default()
            },
            &options,
        );
        let queued: Vec<_> = ranked.iter().filter(|r| !started[r.index]).collect();
        for r in &queued {
            let mark = if r.runnable {
                ""
            } else {
                "  (under threshold)"
            };
            println!(
                "  {:>6} {:<6} {:>10.3}{mark}",
                ids[r.index], entity[r.index], r.value
            );
        }

        // Start the best runnable job; its entity's usage grows.
        if let Some(best) = queued.iter().find(|r| r.runnable) {
            started[best.index] = true;
            let ncpus = table.column("ncpus").map_or(0.0, |c| c[best.index]);
            if let Some((_, u)) = usage
                .iter_mut()
                .find(|(name, _)| *name == entity[best.index])
            {
                *u = (*u + ncpus / 100.0).min(1.0);
            }
            println!("  start {}", ids[best.index]);
        }
    }
    Ok(())
}
