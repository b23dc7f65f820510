//! `jobsort rank FORMULA --jobs FILE`: jobs in the order PBS would consider them — formula
//! value descending, ties by submission order then the id's sequence number — with `--threshold`, `--top` and
//! `--explain`. Under `--scheduler slurm --slurm-conf`, partitions' `PriorityTier` first
//! (higher first), as Slurm's scheduler sorts its queue, and `--explain` shows sprio's
//! breakdown (`sprio -l`: each weighted factor `%.0f`, SITE and NICE, the non-zero TRES).
//!
//! Of `qstat -f -F json` and `squeue --json` output only the jobs the scheduler sorts are
//! ranked (unless `--all`); the others follow the ranking with why (CSV: on stderr; JSON:
//! `not_ranked`).
//!
//! `rank --snapshot DIR` (instead of `--jobs`) is `rank_snapshot.rs`: the flags are here, so
//! `rank` has one set of them.

use super::output::{
    Out, OutputFormat, show_value, write_csv, write_json_list, write_not_ranked, write_table,
};
use super::prepared::{InputArgs, Prepared, Ties};
use super::queue_order_args::QueueOrderArgs;
use super::report::{Failure, Outcome};
use super::schedule_args::threshold_arg;
use super::site_args::Explained;
use super::site_args::WriteExplained;
use super::slurm_args::SlurmView;
use jobsort::formula::explain::Explanation;
use jobsort::jobs::units::value_json;
use jobsort::pbs::{Origin, PbsSite, Setting};
use jobsort::rank::{Moves, RankOptions, Ranked, Threshold, TieBreak, rank};
use jobsort::sim::scheduler::{QueueOrder, QueueOrderKind};
use jobsort::sim::settings;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
#[command(
    mut_arg("jobs", |a| a.required(false).required_unless_present("snapshot")),
    mut_args(with_snapshot)
)]
pub struct Args {
    #[command(flatten)]
    pub input: InputArgs,
    /// Rank the waiting jobs of a snapshot folder (contrib/capture/ makes one) instead of a
    /// job file: in the order `why` and `forecast` take them (the site's priority, or
    /// FORMULA), each with the limit that holds it now in the scheduler's words. Of the other
    /// flags only FORMULA (--formula, --file), --top, --explain and --format apply.
    #[arg(long, value_name = "DIR")]
    pub snapshot: Option<PathBuf>,
    /// Show only the first K jobs (selected without sorting the rest).
    #[arg(long, value_name = "K")]
    pub top: Option<usize>,
    /// Jobs whose value is <= T are not runnable (PBS job_sort_formula_threshold; a number,
    /// not NaN; default: the site's).
    #[arg(long, value_name = "T", allow_negative_numbers = true, value_parser = threshold_arg)]
    pub threshold: Option<Threshold>,
    /// PBS `fair_share`: break ties in formula value by the fairshare tree's most deserving
    /// entity (`compare_path`) before submission order. Needs `--resource-group` (on by
    /// itself when the site's sched_config has fair_share on).
    #[arg(long)]
    pub fair_share: bool,
    /// PBS `fairshare_enforce_no_shares`: with `fair_share` on, jobs of an entity with no
    /// share of the machine (0 shares on its path, or under `unknown` with `unknown_shares`
    /// 0) are never run: listed last, not runnable, "Job has zero shares for fairshare".
    /// Default: the site's sched_config, else true (PBS's shipped sched_config).
    #[arg(long, value_name = "BOOL", action = clap::ArgAction::Set)]
    pub fairshare_enforce_no_shares: Option<bool>,
    #[command(flatten)]
    pub queue_order: QueueOrderArgs,
    /// Show the value of each top-level term of the formula per job (under `--scheduler
    /// slurm --slurm-conf`: sprio's columns, the weighted factors).
    #[arg(long)]
    pub explain: bool,
    /// Rank the jobs by this formula too and show, beside each job, its rank and value under
    /// it and how far it moves (compiled like the formula, on the same jobs and settings).
    #[arg(
        long,
        value_name = "FORMULA",
        allow_hyphen_values = true,
        conflicts_with = "explain"
    )]
    pub compare: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: OutputFormat,
}

/// The flags `rank --snapshot` takes; every other flag is a usage error beside it.
const WITH_SNAPSHOT: [&str; 8] = [
    "snapshot",
    "formula",
    "formula_flag",
    "file",
    "top",
    "explain",
    "format",
    "help",
];

/// Each flag `rank --snapshot` does not take conflicts with `--snapshot` (`--jobs` among
/// them: the usage error names both).
fn with_snapshot(a: clap::Arg) -> clap::Arg {
    if WITH_SNAPSHOT.contains(&a.get_id().as_str()) {
        a
    } else {
        a.conflicts_with("snapshot")
    }
}

/// The settings in effect, each flag winning over the site's: the threshold, whether
/// fair_share is on and whether fairshare_enforce_no_shares applies, and the order of the
/// queues (PBS `by_queue`).
struct Settings {
    threshold: Option<Threshold>,
    fair_share: bool,
    enforce_no_shares: bool,
    queue_order: Option<QueueOrder>,
    /// PBS `round_robin` (sched_config): each queue's Priority when it is on.
    round_robin: Option<BTreeMap<String, i64>>,
}

fn site_settings(
    args: &Args,
    site: Option<&PbsSite>,
    explained: &mut Explained,
) -> Result<Settings, Failure> {
    let threshold = match settings::threshold(args.threshold.map(|t| t.value()), site)? {
        Some(s) => Some(Setting::new(
            Threshold::new(s.value).map_err(|e| Failure::invalid(format!("{}: {e}", s.origin)))?,
            s.origin,
        )),
        None => None,
    };
    match &threshold {
        Some(t) => explained.add(
            "job_sort_formula_threshold",
            show_value(t.value.value()),
            &t.origin,
        ),
        None => explained.add("job_sort_formula_threshold", "none", &Origin::Default),
    }
    let site_fair_share = site
        .and_then(|s| s.sched_config.as_ref())
        .and_then(|c| c.fair_share.clone());
    let fair_share = match (args.fair_share, site_fair_share) {
        (true, _) => Setting::new(true, Origin::Flag("--fair-share".into())),
        (false, Some(s)) => s,
        (false, None) => Setting::default_value(false),
    };
    explained.add_setting("fair_share", &fair_share);
    let site_enforce = site
        .and_then(|s| s.sched_config.as_ref())
        .and_then(|c| c.fairshare_enforce_no_shares.clone());
    let enforce = match (args.fairshare_enforce_no_shares, site_enforce) {
        (Some(v), _) => Setting::new(v, Origin::Flag("--fairshare-enforce-no-shares".into())),
        (None, Some(s)) => s,
        (None, None) => Setting::default_value(true),
    };
    explained.add_setting("fairshare_enforce_no_shares", &enforce);
    let queue_order = args.queue_order.resolve(site, None, explained)?;
    let round_robin = match site
        .and_then(|s| s.sched_config.as_ref())
        .and_then(|c| c.round_robin.as_ref())
    {
        Some(rr) if rr.value => Some(args.queue_order.priorities(site)?),
        _ => None,
    };
    Ok(Settings {
        threshold: threshold.map(|t| t.value),
        fair_share: fair_share.value,
        enforce_no_shares: fair_share.value && enforce.value,
        queue_order,
        round_robin,
    })
}

pub fn run(args: Args, out: &mut Out) -> Outcome {
    if args.input.explain_config {
        let mut resolved = args.input.resolve()?;
        site_settings(&args, resolved.site.as_ref(), &mut resolved.explained)?;
        resolved.explained.write(out)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut p = Prepared::comparing(&args.input, Ties::Fail, args.compare.as_deref())?;
    let Settings {
        threshold,
        fair_share,
        enforce_no_shares,
        queue_order,
        round_robin,
    } = site_settings(&args, p.resolved.site.as_ref(), &mut Explained::default())?;
    // Each term compiled like the formula (same engine and `--compat`), over the same columns;
    // under Slurm with its slurm.conf, sprio's weighted factors instead.
    // Slurm's scheduler takes partitions' PriorityTier before the priority
    // (`job_scheduler.c: sort_job_queue2`): each job's tier, when the tiers differ.
    // The tiers are the simulator's (`QueueOrder`, Slurm's kind: one tier per PriorityTier,
    // higher first, a partition slurm.conf does not list at the default 1): one definition.
    let tiers: Option<Vec<u32>> = p.slurm.as_ref().and_then(|view| {
        let queues: Vec<&str> = (0..p.jobs.len())
            .map(|i| p.jobs.queue(i).unwrap_or(""))
            .collect();
        let priorities = queues
            .iter()
            .filter_map(|q| {
                let part = view.multifactor.partition(q)?;
                Some((q.to_string(), i64::from(part.priority_tier)))
            })
            .collect();
        let order = QueueOrder {
            kind: QueueOrderKind::Slurm,
            priorities,
        };
        let tiers = order.tiers_of(&queues);
        tiers.iter().any(|&t| t != tiers[0]).then_some(tiers)
    });
    let sprio_view = p.slurm.take().filter(|_| args.explain);
    let sprio = sprio_view.as_ref();
    let explanation = (args.explain && sprio.is_none()).then(|| Explanation::new(&p.compiled));
    let by_term = explanation
        .as_ref()
        .map(|e| e.evaluate(p.jobs.table()))
        .unwrap_or_default();
    // The order reads the values, submission order and ids only: the jobs' columns can go.
    p.jobs.drop_values();
    let ids = p.jobs.ids();
    // Submission order: the jobs' `submit`/`qrank` when every job has one, else input order.
    let ties = TieBreak {
        fair_share: None,
        submit: p.jobs.submits(),
        ids: Some(ids),
    };
    let options = RankOptions {
        threshold,
        top: None,
    };
    // With fair_share and fairshare_enforce_no_shares: the jobs PBS never runs.
    let mut zero_shares: Vec<bool> = Vec::new();
    // The order within the queues (and over all of them without by_queue): value, then the
    // tie-breaks; computed whole when the queues or the jobs that never run regroup it.
    let queue_tiers: Option<Vec<u32>> = queue_order.as_ref().map(|o| {
        let queues: Vec<&str> = (0..p.jobs.len())
            .map(|i| p.jobs.queue(i).unwrap_or(""))
            .collect();
        o.tiers_of(&queues)
    });
    let fair_share_ranks = if fair_share {
        let ranks = match &p.fairshare {
            Some(tree) => p.resolved.fairshare.entity_kind().and_then(|kind| {
                if enforce_no_shares {
                    zero_shares = tree.zero_share_jobs(&p.jobs, kind)?.unwrap_or_default();
                }
                tree.fair_share_ranks(&p.jobs, kind)
            }),
            None => Err("--fair-share needs a fairshare tree (--resource-group FILE)".to_string()),
        };
        match ranks {
            Ok(Some(ranks)) => Some(ranks),
            Ok(None) => {
                return Err(Failure::usage(
                    "--fair-share applies to the PBS algorithm only",
                ));
            }
            Err(e) => return Err(Failure::usage(e)),
        }
    } else {
        None
    };
    let ties = TieBreak {
        fair_share: fair_share_ranks.as_deref(),
        ..ties
    };
    let regroup = queue_tiers.is_some() || round_robin.is_some() || zero_shares.contains(&true);
    let queues: Vec<&str> = if regroup {
        (0..p.jobs.len())
            .map(|i| p.jobs.queue(i).unwrap_or(""))
            .collect()
    } else {
        Vec::new()
    };
    // The order of the jobs by `values`, the first `top` of it: one definition for the
    // formula and the one it is compared with.
    let order = |values: &[f64], top: Option<usize>| -> Vec<Ranked> {
        // With tiers or regrouping the whole order is needed before the first K are taken.
        let whole = RankOptions {
            top: if tiers.is_some() || regroup {
                None
            } else {
                top
            },
            ..options
        };
        let ranked = if regroup {
            // PBS with by_queue takes the queues one after another (`next_job`), each sorted
            // on its own (`sort_jobs`); cmp_sort puts the jobs that can run before those that
            // cannot (NEVER_RUN from query_jobs). Stable: each part keeps the order above.
            jobsort::pbs::order::queue_order(
                rank(values, ties, &whole),
                queue_tiers.as_deref(),
                &zero_shares,
                round_robin.as_ref().map(|r| (r, queues.as_slice())),
            )
        } else {
            rank(values, ties, &whole)
        };
        let mut ranked = match &tiers {
            Some(tiers) => {
                // A stable sort keeps the value order (and its tie-breaks) within a tier.
                let mut ranked = ranked;
                ranked.sort_by_key(|r| tiers[r.index]);
                ranked
            }
            None => ranked,
        };
        ranked.truncate(top.unwrap_or(usize::MAX));
        ranked
    };
    // Under `--compare`: both whole orders side by side, and each job's place, value and
    // runnability under the second formula. The first formula's whole order is ranked once
    // and its first K shown; without `--compare` only the first K are selected.
    let (ranked, compared) = match &p.compared {
        Some(c) => {
            let indices = |r: &[Ranked]| r.iter().map(|r| r.index).collect::<Vec<_>>();
            let mut a = order(&p.evaluation.values, None);
            let b = order(&c.evaluation.values, None);
            let moves = Moves::new(&indices(&a), &indices(&b))
                .ok_or_else(|| Failure::invalid("the two orders do not hold the same jobs"))?;
            let mut runnable = vec![false; b.len()];
            for r in &b {
                runnable[r.index] = r.runnable;
            }
            a.truncate(args.top.unwrap_or(usize::MAX));
            let compare = Compare {
                formula: c.source.as_str(),
                values: &c.evaluation.values,
                errors: &c.evaluation,
                runnable,
                moves,
            };
            (a, Some(compare))
        }
        None => (order(&p.evaluation.values, args.top), None),
    };

    let source = p.compiled.source();
    let term_names: Vec<String> = match sprio {
        Some(_) => SPRIO_COLUMNS.iter().map(|c| c.to_string()).collect(),
        None => explanation
            .iter()
            .flat_map(Explanation::terms)
            .map(|t| {
                let text = source.get(t.span.start..t.span.end).unwrap_or("?").trim();
                if t.sign < 0.0 {
                    format!("-({text})")
                } else {
                    text.to_string()
                }
            })
            .collect(),
    };
    let term_values = |index: usize| -> Vec<Cell> {
        match sprio {
            Some(view) => sprio_row(view, index),
            None => by_term
                .iter()
                .map(|t| Cell::Value(t.error(index).is_none().then(|| t.values[index])))
                .collect(),
        }
    };
    let reason = |job: &Ranked| -> Option<String> {
        if zero_shares.get(job.index) == Some(&true) {
            // PBS's text for NO_FAIRSHARES (`translate_fail_code`, `src/scheduler/job_info.cpp`).
            return Some("Job has zero shares for fairshare".to_string());
        }
        (!job.runnable).then(|| {
            format!(
                "under threshold: value <= {}",
                show_value(threshold.map_or(0.0, Threshold::value))
            )
        })
    };

    match args.format {
        OutputFormat::Json => write_json_list(
            out,
            "order",
            ranked.len(),
            |r| {
                let job = &ranked[r];
                let mut obj = serde_json::json!({
                    "rank": r + 1,
                    "id": p.jobs.id(job.index),
                    "value": value_json(job.value),
                    "runnable": job.runnable,
                    "reason": reason(job),
                    "error": p.evaluation.error(job.index).map(|e| e.message()),
                });
                if let Some(c) = &compared {
                    obj["compare"] = c.job_json(job.index);
                }
                if args.explain {
                    let terms: Vec<serde_json::Value> = term_names
                        .iter()
                        .zip(term_values(job.index))
                        .map(|(name, v)| {
                            let v = match v {
                                Cell::Value(v) => v.map_or(serde_json::Value::Null, value_json),
                                Cell::Text(t) => serde_json::json!(t),
                            };
                            serde_json::json!({ "term": name, "value": v })
                        })
                        .collect();
                    obj["terms"] = serde_json::Value::Array(terms);
                }
                obj
            },
            p.not_ranked.as_deref(),
            compared.as_ref().map(Compare::summary_json),
        )?,
        OutputFormat::Table | OutputFormat::Csv => {
            let mut header: Vec<&str> = vec!["rank", "id", "value", "runnable", "reason"];
            header.extend(term_names.iter().map(String::as_str));
            let mut right = vec![true, false, true, false, false];
            right.extend(term_names.iter().map(|_| true));
            if compared.is_some() {
                header.extend(Compare::HEADER);
                right.extend(Compare::HEADER.map(|_| true));
            }
            let row = |r: usize| {
                let job = &ranked[r];
                let why = reason(job)
                    .or_else(|| {
                        p.evaluation
                            .error(job.index)
                            .map(|e| format!("error: {}", e.message()))
                    })
                    .unwrap_or_default();
                let mut row = vec![
                    (r + 1).to_string(),
                    p.jobs.id(job.index).to_string(),
                    show_value(job.value),
                    if job.runnable { "yes" } else { "no" }.to_string(),
                    why,
                ];
                row.extend(term_values(job.index).into_iter().map(|v| match v {
                    Cell::Value(Some(v)) => show_value(v),
                    Cell::Value(None) => "error".into(),
                    Cell::Text(text) => text,
                }));
                if let Some(c) = &compared {
                    row.extend(c.cells(job.index, args.format == OutputFormat::Csv));
                }
                row
            };
            let not_ranked = p.not_ranked.as_deref().unwrap_or_default();
            if args.format == OutputFormat::Csv {
                write_csv(out, &header, ranked.len(), row)?;
                // A diagnostic: lost, not an error, when stderr cannot be written.
                let _ =
                    write_not_ranked(&mut std::io::stderr(), p.jobs.len(), "ranked", not_ranked);
            } else {
                write_table(out, &header, &right, ranked.len(), row)?;
                if let Some(c) = &compared {
                    writeln!(out, "\n{}", c.summary())?;
                }
                write_not_ranked(out, p.jobs.len(), "ranked", not_ranked)?;
            }
        }
    }
    out.flush()?;
    p.report_errors();
    Ok(ExitCode::SUCCESS)
}

/// The second formula of `--compare`: its values, its order and the moves from the first.
struct Compare<'a> {
    formula: &'a str,
    values: &'a [f64],
    errors: &'a jobsort::Evaluation,
    /// By job index: runnable under the second formula's order (its threshold).
    runnable: Vec<bool>,
    moves: Moves,
}

impl Compare<'_> {
    const HEADER: [&'static str; 4] = ["rank B", "value B", "runnable B", "move"];

    /// The move: in a table `up 3`, `down 2` or `=`; in CSV the places up (negative: down).
    fn shift_text(&self, index: usize, csv: bool) -> String {
        match self.moves.shift(index) {
            k if csv => k.to_string(),
            0 => "=".into(),
            k if k > 0 => format!("up {k}"),
            k => format!("down {}", -k),
        }
    }

    fn value(&self, index: usize) -> Option<f64> {
        self.errors
            .error(index)
            .is_none()
            .then(|| self.values[index])
    }

    fn cells(&self, index: usize, csv: bool) -> [String; 4] {
        [
            (self.moves.second[index] + 1).to_string(),
            self.value(index).map_or("error".into(), show_value),
            if self.runnable[index] { "yes" } else { "no" }.into(),
            self.shift_text(index, csv),
        ]
    }

    fn job_json(&self, index: usize) -> serde_json::Value {
        serde_json::json!({
            "rank": self.moves.second[index] + 1,
            "value": self.value(index).map_or(serde_json::Value::Null, value_json),
            "runnable": self.runnable[index],
            "error": self.errors.error(index).map(|e| e.message()),
            "move": self.moves.shift(index),
        })
    }

    fn summary_json(&self) -> (&'static str, serde_json::Value) {
        (
            "compare",
            serde_json::json!({
                "formula": self.formula,
                "jobs": self.moves.first.len(),
                "moved": self.moves.moved,
                "swapped_pairs": self.moves.swapped_pairs,
                "kendall_tau": self.moves.kendall_tau,
            }),
        )
    }

    /// One line under the table: what B is, how many jobs move, how alike the orders are.
    fn summary(&self) -> String {
        let n = self.moves.first.len();
        format!(
            "B = `{}`: {} of {n} {} move; Kendall's tau between the orders {:.3} (1: the same \
             order, -1: reversed)",
            self.formula,
            self.moves.moved,
            if n == 1 { "job" } else { "jobs" },
            self.moves.kendall_tau
        )
    }
}

/// One `--explain` cell: a term's value (`None`: its evaluation failed), or sprio's text.
enum Cell {
    Value(Option<f64>),
    Text(String),
}

/// `sprio -l`'s factor columns (`src/sprio/sprio.c`: `%.10Y %.10S %.10A %.10B %.10F %.10J
/// %.10P %.10Q %.11N %.20T` after JOBID, PARTITION, USER).
const SPRIO_COLUMNS: [&str; 9] = [
    "SITE",
    "AGE",
    "ASSOC",
    "FAIRSHARE",
    "JOBSIZE",
    "PARTITION",
    "QOS",
    "NICE",
    "TRES",
];

/// One job's sprio columns: weighted factors as sprio prints them (`%.0f` of the value it
/// receives), SITE and NICE without NICE_OFFSET, and TRES as `name=value` for the non-zero
/// ones (`print.c: _print_tres_weighted`).
fn sprio_row(view: &SlurmView, index: usize) -> Vec<Cell> {
    let m = &view.multifactor;
    let row = m.sprio(&view.factors[index]).weighted;
    let whole = |x: f64| Cell::Text(format!("{x:.0}"));
    let tres: Vec<String> = m
        .weights
        .tres
        .iter()
        .zip(&row.tres)
        .filter(|(_, v)| **v != 0.0)
        .map(|((name, _), v)| format!("{}={v:.0}", name.to_ascii_lowercase()))
        .collect();
    vec![
        Cell::Text(row.site.to_string()),
        whole(row.age),
        whole(row.assoc),
        whole(row.fairshare),
        whole(row.jobsize),
        whole(row.partition),
        whole(row.qos),
        Cell::Text(row.nice.to_string()),
        Cell::Text(tres.join(",")),
    ]
}
