//! Slurm's `priority/multifactor`, exactly as 22.05 computes it
//! (`src/plugins/priority/multifactor/priority_multifactor.c`): the factors of a job
//! ([`Multifactor::factors`], `set_priority_factors`), the integer priority
//! ([`Multifactor::priority`], `_get_priority_internal`), what `sprio -l` / `sprio -n` print
//! ([`Multifactor::sprio`]), and the same weighted sum as a formula in the Slurm catalog
//! ([`Multifactor::formula`]) whose value is that priority.

use super::conf::{Minutes, SlurmConf, Weights};
use crate::catalog::Catalog;

/// `NICE_OFFSET` (`slurm/slurm.h`): nice and site factors are stored with it added.
pub const NICE_OFFSET: i64 = 0x8000_0000;

/// The column of the priority slurmctld stored before (`squeue --json`'s `priority`), which
/// the priority under `PriorityFlags=INCR_ONLY` does not fall below.
pub const STORED_PRIORITY: &str = "stored_priority";

/// `FLOAT_MULT` (`src/common/pack.c`): `packdouble` sends `val * FLOAT_MULT` and
/// `unpackdouble` divides it back, so sprio sees each weighted factor after that round trip.
const FLOAT_MULT: f64 = 1_000_000.0;

/// The inputs of one job that `set_priority_factors` reads, in Slurm's units.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct JobInputs {
    /// The job's partition (its `part_ptr`).
    pub partition: Option<String>,
    /// `details->accrue_time` (Unix seconds); `None` or 0: no age yet.
    pub accrue_time: Option<i64>,
    /// `details->min_nodes`.
    pub min_nodes: u32,
    /// The CPU count job size uses: `total_cpus`, else `max_cpus`, else `min_cpus`.
    pub cpus: u32,
    /// A pending job that asks for whole nodes (`--exclusive`): the select plugin's test at
    /// submission set its `total_cpus` to its nodes' CPUs, which job size then uses
    /// ([`Multifactor::factors`]).
    pub whole_node: bool,
    /// A pending job's `--cpus-per-gpu` (`cpus_per_tres`), 0 when unset: the select
    /// plugin's test set its `total_cpus` to at least this many per GPU.
    pub cpus_per_gpu: u32,
    /// `time_limit` in minutes; `None` is NO_VAL (the partition's MaxTime is used).
    pub time_limit: Option<u32>,
    /// The job's QOS priority (`qos_ptr->priority`).
    pub qos_priority: u32,
    /// The association factor, already normalised (`assoc->usage->priority_norm`), or the
    /// raw association priority under `NO_NORMAL_ASSOC`.
    pub assoc: f64,
    /// The association's fairshare factor (Fair Tree `fs_factor`, or classic
    /// `2^(-usage_efctv/shares_norm)`): [`crate::fairshare::slurm`] computes it.
    pub fairshare: f64,
    /// `nice` without NICE_OFFSET (`--nice`).
    pub nice: i64,
    /// The site factor without NICE_OFFSET.
    pub site: i64,
    /// Requested (or allocated) TRES counts by Slurm name (`cpu`, `mem` in MB, `node`,
    /// `gres/gpu`, ...), any case.
    pub tres: Vec<(String, u64)>,
}

/// A job's factors before weighting, as `set_priority_factors` leaves them
/// (`priority_factors_object_t`), and the formula column each one is.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Factors {
    pub age: f64,
    pub assoc: f64,
    pub fairshare: f64,
    pub jobsize: f64,
    pub partition: f64,
    pub qos: f64,
    /// Per TRES of `PriorityWeightTRES`, in its order.
    pub tres: Vec<f64>,
    /// Without NICE_OFFSET.
    pub site: i64,
    /// Without NICE_OFFSET.
    pub nice: i64,
}

/// A partition as the multifactor plugin sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionPrio {
    pub name: String,
    pub priority_job_factor: u16,
    /// `PriorityTier`: the scheduler orders jobs by it before their priority
    /// (`job_scheduler.c: sort_job_queue2`).
    pub priority_tier: u16,
    /// `norm_priority` (`slurmctld/read_config.c: _reset_part_prio`).
    pub norm_priority: f64,
    pub max_time: Minutes,
    /// `part_ptr->tres_cnt` for the TRES of `PriorityWeightTRES`, in its order.
    pub tres_totals: Vec<u64>,
    /// `TRESBillingWeights`, in slurmctld's TRES order.
    pub billing_weights: Option<Vec<(String, f64)>>,
    /// Its nodes' CPUs (`cpus_efctv`) in the order the select plugin takes whole nodes:
    /// by `Weight`, then as slurm.conf lists them.
    pub node_cpus: Vec<u32>,
}

/// One row of `sprio`: the weighted factors as sprio receives them, and its PRIORITY.
#[derive(Debug, Clone, PartialEq)]
pub struct SprioRow {
    /// Each factor times its weight (site and nice as they are).
    pub weighted: Factors,
    /// `get_priority_from_factors` (`src/sprio/print.c`): the sum clamped to ≥ 1.
    pub priority: f64,
}

/// The multifactor plugin's configuration: weights, flags, the cluster's totals and the
/// normalising maxima.
#[derive(Debug, Clone, PartialEq)]
pub struct Multifactor {
    /// The TRES weights in slurmctld's TRES order ([`tres_order`]), which is the order the
    /// TRES are summed and sprio lists them.
    pub weights: Weights,
    /// Seconds.
    pub max_age: u32,
    pub favor_small: bool,
    pub small_relative_to_time: bool,
    pub no_normal_part: bool,
    pub no_normal_qos: bool,
    pub no_normal_tres: bool,
    /// `PriorityFlags=INCR_ONLY`: the stored priority never decreases
    /// (`decay_apply_weighted_factors`); [`Multifactor::formula`] is then the larger of the
    /// priority computed now and the stored one (the `stored_priority` column).
    pub incr_only: bool,
    /// `PriorityFlags=MAX_TRES`: billing is the largest weighted node TRES (cpu, mem, node,
    /// GRES) plus the sum of the others ([`tres_weighted`]).
    pub max_tres: bool,
    /// `node_record_count`.
    pub node_count: u32,
    /// `cluster_cpus`: the sum of the nodes' CPUs.
    pub cluster_cpus: u32,
    /// The largest QOS priority (`g_qos_max_priority`).
    pub max_qos_priority: u32,
    pub partitions: Vec<PartitionPrio>,
}

/// The formula column of a TRES: `tres_` and its name lower-cased, `/` as `_`
/// (`GRES/gpu` → `tres_gres_gpu`).
pub fn tres_column(name: &str) -> String {
    let mut col = String::from("tres_");
    col.extend(name.chars().map(|c| match c {
        c if c.is_ascii_alphanumeric() => c.to_ascii_lowercase(),
        _ => '_',
    }));
    col
}

/// slurmctld's TRES order (`TRES_ARRAY_*`: cpu, mem, energy, node, billing, fs/disk, vmem,
/// pages; then the `AccountingStorageTRES` ones as listed; `src/common/assoc_mgr.c`): the
/// index of `name` (any case), names not listed last.
pub fn tres_order(name: &str, accounting_storage_tres: Option<&str>) -> usize {
    const BUILTIN: [&str; 8] = [
        "cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages",
    ];
    let lower = name.to_ascii_lowercase();
    if let Some(i) = BUILTIN.iter().position(|b| *b == lower) {
        return i;
    }
    let extra = accounting_storage_tres.unwrap_or("");
    extra
        .split(',')
        .map(|t| t.trim().to_ascii_lowercase())
        .filter(|t| !BUILTIN.contains(&t.as_str()))
        .position(|t| t == lower)
        .map_or(usize::MAX, |i| BUILTIN.len() + i)
}

/// A partition's total of one TRES (`_calc_part_tres`: the sum of its nodes' `tres_cnt`):
/// `cpu` the nodes' `cpus_efctv`, `mem` their RealMemory (MB), `node` their count, `gres/NAME`
/// (or `gres/NAME:TYPE`) their Gres; other TRES 0.
fn part_count(nodes: &[&crate::slurm::conf::NodeConf], name: &str) -> u64 {
    let name = name.to_ascii_lowercase();
    match name.as_str() {
        "cpu" => nodes.iter().map(|n| u64::from(n.cpus_efctv)).sum(),
        "mem" => nodes.iter().map(|n| n.real_memory).sum(),
        "node" => nodes.len() as u64,
        other => match other.strip_prefix("gres/") {
            Some(g) => nodes
                .iter()
                .flat_map(|n| &n.gres)
                .filter(|x| {
                    x.name.eq_ignore_ascii_case(g)
                        || x.kind
                            .as_ref()
                            .is_some_and(|k| format!("{}:{k}", x.name).eq_ignore_ascii_case(g))
                })
                .map(|x| x.count)
                .sum(),
            None => 0,
        },
    }
}

/// `assoc_mgr_tres_weighted` (`src/common/assoc_mgr.c`): each TRES count times its billing
/// weight, in slurmctld's TRES order (`weights` sorted so), `billing` itself skipped; under
/// `MAX_TRES` the node TRES (cpu, mem, node, any `gres/`) give their largest, the others their
/// sum, and billing is that largest plus the sum; without it, the sum of all.
pub fn tres_weighted(
    count: impl Fn(&str) -> u64,
    weights: &[(String, f64)],
    max_tres: bool,
) -> f64 {
    let (mut node, mut global) = (0.0f64, 0.0f64);
    for (name, w) in weights {
        let lower = name.to_ascii_lowercase();
        if lower == "billing" {
            continue;
        }
        let value = count(&lower) as f64 * w;
        let node_tres =
            matches!(lower.as_str(), "cpu" | "mem" | "node") || lower.starts_with("gres/");
        if max_tres && node_tres {
            node = node.max(value);
        } else {
            global += value;
        }
    }
    node + global
}

/// What of `conf` the multifactor factors here do not follow, each naming its setting and
/// where: the caller warns (or refuses) with them.
pub fn not_modelled(conf: &SlurmConf) -> Vec<String> {
    let mut out = Vec::new();
    for part in &conf.partitions {
        for (name, _) in part.billing_weights.iter().flatten() {
            let lower = name.to_ascii_lowercase();
            if !matches!(lower.as_str(), "cpu" | "mem" | "node" | "billing")
                && !lower.starts_with("gres/")
            {
                out.push(format!(
                    "{}:{}: TRESBillingWeights of partition {}: the TRES {name} is counted \
                     as 0 (only cpu, mem, node and gres/ TRES are counted), so its billing \
                     may differ from Slurm's",
                    part.at.file, part.at.line, part.name
                ));
            }
        }
    }
    // A pending job's job size counts the CPUs the select plugin's submission test gives it
    // (`total_cpus`); jobsort follows `--exclusive` and `--cpus-per-gpu`, not a partition
    // that makes every job exclusive or a default CPUs-per-GPU.
    for part in &conf.partitions {
        if part
            .over_subscribe
            .as_deref()
            .is_some_and(|v| v.to_ascii_uppercase().starts_with("EXCLUSIVE"))
        {
            out.push(format!(
                "{}:{}: OverSubscribe=EXCLUSIVE of partition {} is not modelled: its pending \
                 jobs' job size counts the CPUs they ask, not their nodes' (Slurm's select \
                 test gives them whole nodes), so job size factors may differ from Slurm's",
                part.at.file, part.at.line, part.name
            ));
        }
        if part.def_cpu_per_gpu.is_some() {
            out.push(format!(
                "{}:{}: DefCpuPerGPU of partition {} is not modelled: a pending GPU job's job \
                 size counts the CPUs it asks, so job size factors may differ from Slurm's",
                part.at.file, part.at.line, part.name
            ));
        }
    }
    if let Some((_, at)) = conf.settings.get("DefCPUPerGPU") {
        out.push(format!(
            "{}:{}: DefCpuPerGPU is not modelled: a pending GPU job's job size counts the CPUs \
             it asks, so job size factors may differ from Slurm's",
            at.file, at.line
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for n in &conf.nodes {
        if n.cpu_spec_list.is_some() && seen.insert((n.at.file.clone(), n.at.line)) {
            out.push(format!(
                "{}:{}: CPUSpecList is not modelled: its CPUs are not taken out of the \
                 cluster's and partitions' CPU counts (cpus_efctv), so job size and TRES \
                 factors may differ from Slurm's (CoreSpecCount is)",
                n.at.file, n.at.line
            ));
        }
    }
    out
}

impl Multifactor {
    /// From a `slurm.conf` and the largest QOS priority (QOS live in the accounting
    /// database, not in slurm.conf: `sacctmgr show qos format=name,priority`).
    pub fn from_conf(conf: &SlurmConf, max_qos_priority: u32) -> Multifactor {
        let p = &conf.priority;
        let ast = conf.accounting_storage_tres.as_deref();
        let mut weights = p.weights.clone();
        weights.tres.sort_by_key(|(name, _)| tres_order(name, ast));
        let part_max = conf
            .partitions
            .iter()
            .map(|q| q.priority_job_factor)
            .max()
            .unwrap_or(0);
        let partitions = conf
            .partitions
            .iter()
            .map(|part| {
                let nodes: Vec<_> = part.nodes.iter().filter_map(|n| conf.node(n)).collect();
                let billing_weights = part.billing_weights.as_ref().map(|w| {
                    let mut w = w.clone();
                    w.sort_by_key(|(name, _)| tres_order(name, ast));
                    w
                });
                // partition_mgr.c, _calc_part_tres: the billing total is the partition's
                // TRES weighted by its TRESBillingWeights (assoc_mgr_tres_weighted, into the
                // uint64 tres_cnt), its CPUs without them.
                let billing = match &billing_weights {
                    Some(w) => tres_weighted(|n| part_count(&nodes, n), w, p.flags.max_tres) as u64,
                    None => part_count(&nodes, "cpu"),
                };
                let tres_totals = weights
                    .tres
                    .iter()
                    .map(|(name, _)| {
                        if name.eq_ignore_ascii_case("billing") {
                            billing
                        } else {
                            part_count(&nodes, name)
                        }
                    })
                    .collect();
                // By weight, then in slurmctld's node table order (slurm.conf's NodeName
                // lines), not the partition's Nodes= order.
                let mut by_weight: Vec<(u32, usize, u32)> = conf
                    .nodes
                    .iter()
                    .enumerate()
                    .filter(|(_, n)| part.nodes.contains(&n.name))
                    .map(|(i, n)| (n.weight, i, n.cpus_efctv))
                    .collect();
                by_weight.sort_unstable();
                PartitionPrio {
                    node_cpus: by_weight.into_iter().map(|(_, _, c)| c).collect(),
                    name: part.name.clone(),
                    priority_job_factor: part.priority_job_factor,
                    priority_tier: part.priority_tier,
                    norm_priority: if part_max == 0 {
                        0.0
                    } else {
                        f64::from(part.priority_job_factor) / f64::from(part_max)
                    },
                    max_time: part.max_time,
                    tres_totals,
                    billing_weights,
                }
            })
            .collect();
        Multifactor {
            weights,
            max_age: p.max_age,
            favor_small: p.favor_small,
            small_relative_to_time: p.flags.small_relative_to_time,
            no_normal_part: p.flags.no_normal_part,
            no_normal_qos: p.flags.no_normal_qos,
            no_normal_tres: p.flags.no_normal_tres,
            incr_only: p.flags.incr_only,
            max_tres: p.flags.max_tres,
            node_count: conf.nodes.len() as u32,
            // controller.c, set_cluster_tres: `cluster_cpus += node_ptr->cpus_efctv`.
            cluster_cpus: conf.nodes.iter().map(|n| n.cpus_efctv).sum(),
            max_qos_priority,
            partitions,
        }
    }

    pub fn partition(&self, name: &str) -> Option<&PartitionPrio> {
        self.partitions.iter().find(|p| p.name == name)
    }

    /// The formula columns of the TRES factors, in `PriorityWeightTRES` order.
    pub fn tres_columns(&self) -> Vec<String> {
        self.weights
            .tres
            .iter()
            .map(|(n, _)| tres_column(n))
            .collect()
    }

    /// The Slurm catalog with this configuration's TRES columns.
    pub fn catalog(&self) -> Catalog {
        let mut c = Catalog::slurm();
        for col in self.tres_columns() {
            c.add_slurm_tres(&col, !self.no_normal_tres);
        }
        if self.incr_only {
            c.add_resource(STORED_PRIORITY, crate::catalog::ResourceType::Long);
        }
        c
    }

    /// The job's factors at `now` (Unix seconds), as `set_priority_factors` sets them. Only
    /// factors with a non-zero weight are computed, as there.
    pub fn factors(&self, job: &JobInputs, now: i64) -> Factors {
        let part = job.partition.as_deref().and_then(|p| self.partition(p));
        let mut f = Factors {
            site: job.site,
            nice: job.nice,
            ..Factors::default()
        };
        if self.weights.age != 0 {
            f.age = self.age(job.accrue_time, now);
        }
        if self.weights.fairshare != 0 {
            f.fairshare = job.fairshare;
        }
        if self.weights.job_size != 0 {
            f.jobsize = self.job_size(job, part);
        }
        if let Some(part) = part
            && part.priority_job_factor != 0
            && self.weights.partition != 0
        {
            f.partition = if self.no_normal_part {
                f64::from(part.priority_job_factor)
            } else {
                part.norm_priority
            };
        }
        if self.weights.assoc != 0 {
            f.assoc = job.assoc;
        }
        if job.qos_priority != 0 && self.weights.qos != 0 {
            f.qos = if self.no_normal_qos {
                f64::from(job.qos_priority)
            } else if self.max_qos_priority == 0 {
                0.0
            } else {
                // assoc_mgr.c: _set_qos_norm_priority.
                f64::from(job.qos_priority) / f64::from(self.max_qos_priority)
            };
        }
        let count = |name: &str| {
            job.tres
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|&(_, v)| v)
        };
        // The job's billing TRES when not given (squeue gives slurmctld's): its TRES weighted
        // by its partition's TRESBillingWeights into the uint64 tres_req_cnt, its CPUs
        // without them (assoc_mgr_tres_weighted).
        let billing = count("billing").unwrap_or_else(|| {
            match part.and_then(|p| p.billing_weights.as_ref()) {
                Some(w) => tres_weighted(|n| count(n).unwrap_or(0), w, self.max_tres) as u64,
                None => count("cpu").unwrap_or(0),
            }
        });
        f.tres = self
            .weights
            .tres
            .iter()
            .enumerate()
            .map(|(i, (name, _))| {
                let value = if name.eq_ignore_ascii_case("billing") {
                    billing
                } else {
                    count(name).unwrap_or(0)
                };
                let total = part
                    .and_then(|p| p.tres_totals.get(i).copied())
                    .unwrap_or(0);
                if self.no_normal_tres {
                    value as f64
                } else if value != 0 && total != 0 {
                    value as f64 / total as f64
                } else {
                    0.0
                }
            })
            .collect();
        f
    }

    /// The age factor at `now` of a job accruing since `accrue_time` (`None` or 0: no age
    /// yet), as `set_priority_factors` computes it: `uint32_t diff = start_time -
    /// accrue_time` when `start_time` is later, then `diff / max_age`, 1 from `max_age` on.
    pub fn age(&self, accrue_time: Option<i64>, now: i64) -> f64 {
        let Some(accrue) = accrue_time.filter(|&a| a != 0) else {
            return 0.0;
        };
        let diff = if now > accrue {
            (now - accrue) as u32
        } else {
            0
        };
        if diff < self.max_age {
            f64::from(diff) / f64::from(self.max_age)
        } else {
            1.0
        }
    }

    /// The CPU count `set_priority_factors` takes for job size: `total_cpus` when set, which
    /// for a pending job is the select plugin's guess from its test at submission
    /// (`job_allocate` → `select_nodes`, test only; `cons_common/job_test.c: _job_test` sets
    /// `total_cpus` before it stops for a mode other than run-now): the sum of the nodes'
    /// `cpus_efctv` for a job that takes whole nodes (`whole_node`), else the CPUs it would
    /// allocate, which `--cpus-per-gpu` raises to that many per GPU. squeue shows a pending
    /// job's `min_cpus` (`pack_job` ignores `total_cpus` while it is pending), so these two
    /// are rebuilt here; the nodes are the partition's first `min_nodes` by weight and
    /// order.
    pub fn job_size_cpus(&self, job: &JobInputs, part: Option<&PartitionPrio>) -> u32 {
        let mut cpus = job.cpus;
        if job.whole_node
            && let Some(p) = part
        {
            let whole: u32 = p.node_cpus.iter().take(job.min_nodes.max(1) as usize).sum();
            cpus = cpus.max(whole);
        }
        if job.cpus_per_gpu != 0 {
            let gpus = job
                .tres
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case("gres/gpu"))
                .map_or(0, |&(_, v)| v);
            let per_gpu = u64::from(job.cpus_per_gpu).saturating_mul(gpus);
            cpus = cpus.max(u32::try_from(per_gpu).unwrap_or(u32::MAX));
        }
        cpus
    }

    /// `set_priority_factors`' job size, in its order of operations.
    fn job_size(&self, job: &JobInputs, part: Option<&PartitionPrio>) -> f64 {
        let (nodes, cpus) = (self.node_count, self.cluster_cpus);
        let (n, c) = (f64::from(nodes), f64::from(cpus));
        let job_cpus = self.job_size_cpus(job, part);
        let js = if self.small_relative_to_time {
            let mut js = f64::from(job.min_nodes) * c / n;
            if f64::from(job_cpus) > js {
                js = f64::from(job_cpus);
            }
            let time_limit = match (job.time_limit, part) {
                (Some(t), _) => t,
                (None, Some(p)) => p.max_time.as_u32(),
                (None, None) => 1,
            };
            js /= f64::from(time_limit);
            js /= c;
            if self.favor_small { 1.0 - js } else { js }
        } else if self.favor_small {
            // uint32 arithmetic, as Slurm's `node_record_count - min_nodes`.
            let mut js = f64::from(nodes.wrapping_sub(job.min_nodes)) / n;
            if job_cpus != 0 {
                js += f64::from(cpus.wrapping_sub(job_cpus)) / c;
                js /= 2.0;
            }
            js
        } else {
            let mut js = f64::from(job.min_nodes) / n;
            if job_cpus != 0 {
                js += f64::from(job_cpus) / c;
                js /= 2.0;
            }
            js
        };
        // NaN (no nodes) compares false both ways and stays NaN in Slurm too; we give 0.
        if js.is_nan() || js < 0.0 {
            0.0
        } else if js > 1.0 {
            1.0
        } else {
            js
        }
    }

    /// The weighted factors, each `factor * (double)weight` as `_get_priority_internal`
    /// multiplies them, and the TRES sum as `_get_tres_prio_weighted` adds it.
    fn weighted(&self, f: &Factors) -> ([f64; 6], Vec<f64>, f64) {
        let w = [
            f.age * f64::from(self.weights.age),
            f.assoc * f64::from(self.weights.assoc),
            f.fairshare * f64::from(self.weights.fairshare),
            f.jobsize * f64::from(self.weights.job_size),
            f.partition * f64::from(self.weights.partition),
            f.qos * f64::from(self.weights.qos),
        ];
        let tres: Vec<f64> = f
            .tres
            .iter()
            .zip(&self.weights.tres)
            .map(|(t, (_, wt))| t * wt)
            .collect();
        let tres_sum = tres.iter().fold(0.0, |s, t| s + t);
        (w, tres, tres_sum)
    }

    /// The job's priority as slurmctld stores it (`_get_priority_internal`): the double sum
    /// of the weighted factors, plus site, minus nice; below 1 it is 1 (0 is for held jobs);
    /// above 2^32 − 1 it is 2^32 − 1; then truncated to uint32.
    pub fn priority(&self, f: &Factors) -> u32 {
        let (w, _, tres) = self.weighted(f);
        let p = w[0] + w[1] + w[2] + w[3] + w[4] + w[5] + tres + f.site as f64 - f.nice as f64;
        let p = if p < 1.0 { 1.0 } else { p };
        // `(uint64_t) priority`, then the 32-bit clamp, then `(uint32_t)`.
        let t = p as u64;
        if t > 0xffff_ffff { u32::MAX } else { t as u32 }
    }

    /// What sprio shows for the job: each weighted factor after the wire's `packdouble`
    /// round trip, and PRIORITY as `get_priority_from_factors` sums them (TRES last, only
    /// the non-zero ones; no upper clamp). `sprio -l` prints the factors `%.0f` and
    /// PRIORITY `%lld` of this value; `sprio -n` prints factor / weight (`%.7lf`) and
    /// PRIORITY / 4294967295 (`%16.14f`).
    pub fn sprio(&self, f: &Factors) -> SprioRow {
        let wire = |x: f64| (x * FLOAT_MULT) / FLOAT_MULT;
        let (w, tres, _) = self.weighted(f);
        let [age, assoc, fairshare, jobsize, partition, qos] = w.map(wire);
        let tres: Vec<f64> = tres.into_iter().map(wire).collect();
        let mut priority =
            age + assoc + fairshare + jobsize + partition + qos + f.site as f64 - f.nice as f64;
        for t in tres.iter().filter(|t| **t != 0.0) {
            priority += t;
        }
        SprioRow {
            weighted: Factors {
                age,
                assoc,
                fairshare,
                jobsize,
                partition,
                qos,
                tres,
                site: f.site,
                nice: f.nice,
            },
            priority: if priority < 1.0 { 1.0 } else { priority },
        }
    }

    /// The priority slurmctld stores as a formula: [`Multifactor::formula_computed`], and
    /// under `INCR_ONLY` the larger of it and `stored_priority` (the priority stored before:
    /// `decay_apply_weighted_factors` keeps `job_ptr->priority` when the new one is not
    /// higher; 0 when not known).
    pub fn formula(&self) -> String {
        let computed = self.formula_computed();
        if self.incr_only {
            format!("max({STORED_PRIORITY}, {computed})")
        } else {
            computed
        }
    }

    /// The weighted sum as a formula in the Slurm catalog, in `_get_priority_internal`'s
    /// order of additions (zero weights left out: adding 0.0 changes no sum), with its clamps
    /// and truncation, so its value is [`Multifactor::priority`] bit for bit.
    pub fn formula_computed(&self) -> String {
        let term = |w: u32, name: &str| (w != 0).then(|| format!("{w} * {name}"));
        let mut terms: Vec<String> = [
            term(self.weights.age, "age"),
            term(self.weights.assoc, "assoc"),
            term(self.weights.fairshare, "fairshare"),
            term(self.weights.job_size, "jobsize"),
            term(self.weights.partition, "partition"),
            term(self.weights.qos, "qos"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let tres: Vec<String> = self
            .weights
            .tres
            .iter()
            .filter(|(_, w)| *w != 0.0)
            .map(|(name, w)| format!("{} * {}", number(*w), tres_column(name)))
            .collect();
        match tres.len() {
            0 => {}
            1 => terms.push(tres[0].clone()),
            _ => terms.push(format!("({})", tres.join(" + "))),
        }
        terms.push("site".into());
        let sum = format!("{} - nice", terms.join(" + "));
        format!("trunc(min(4294967295, max(1, {sum})))")
    }
}

/// A weight as the formula writes it: the shortest text that reads back as the same double.
fn number(w: f64) -> String {
    let s = format!("{w}");
    if w < 0.0 { format!("({s})") } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::Formula;
    use crate::table::JobTable;

    fn conf(extra: &str) -> SlurmConf {
        let text = format!(
            "PriorityType=priority/multifactor\n\
             NodeName=n[1-4] CPUs=16 RealMemory=64000 Gres=gpu:4\n\
             PartitionName=batch Nodes=ALL Default=YES PriorityJobFactor=10 MaxTime=2-0\n\
             PartitionName=short Nodes=n[1-2] PriorityJobFactor=3 MaxTime=120\n{extra}"
        );
        SlurmConf::parse(&text, "slurm.conf").unwrap()
    }

    #[test]
    fn factors_as_set_priority_factors() {
        // priority_multifactor.c, set_priority_factors: age = diff / max_age (capped at 1),
        // favour-large job size = (min_nodes/N + cpus/C) / 2, partition = job factor / max.
        let m = Multifactor::from_conf(
            &conf(
                "PriorityWeightAge=1000\nPriorityWeightJobSize=1000\n\
                 PriorityWeightPartition=1000\nPriorityWeightQOS=1000\nPriorityMaxAge=1-0\n",
            ),
            40,
        );
        assert_eq!((m.node_count, m.cluster_cpus), (4, 64));
        let job = JobInputs {
            partition: Some("short".into()),
            accrue_time: Some(1_000_000),
            min_nodes: 1,
            cpus: 8,
            qos_priority: 10,
            ..JobInputs::default()
        };
        let f = m.factors(&job, 1_000_000 + 21_600);
        assert_eq!(f.age, 0.25);
        assert_eq!(f.jobsize, (1.0 / 4.0 + 8.0 / 64.0) / 2.0);
        assert_eq!(f.partition, 3.0 / 10.0);
        assert_eq!(f.qos, 10.0 / 40.0);
        // Past PriorityMaxAge the age factor is 1; an accrue time in the future gives 0.
        assert_eq!(m.factors(&job, 1_000_000 + 200_000).age, 1.0);
        assert_eq!(m.factors(&job, 999_000).age, 0.0);
        // 250 + 187.5 + 300 + 250 = 987.5, truncated.
        assert_eq!(m.priority(&f), 987);
    }

    #[test]
    fn core_specialisation_counts_effective_cpus() {
        // node_conf.c: cpus_efctv = cpus - core_spec_cnt * tpc (tpc = ThreadsPerCore when the
        // node has more CPUs than cores, else 1); controller.c set_cluster_tres sums
        // cpus_efctv into cluster_cpus and the nodes' TRES cpu, which _calc_part_tres sums per
        // partition. Four nodes of 2 sockets × 5 cores × 2 threads = 20 CPUs, CoreSpecCount=2:
        // 20 - 2·2 = 16 each, 64 in all (80 without it).
        let text = "PriorityType=priority/multifactor\nPriorityWeightJobSize=1000\n\
                    PriorityWeightTRES=CPU=1000\n\
                    NodeName=n[1-4] Sockets=2 CoresPerSocket=5 ThreadsPerCore=2 \
                    CoreSpecCount=2\nPartitionName=batch Nodes=ALL\n";
        let conf = SlurmConf::parse(text, "slurm.conf").unwrap();
        assert_eq!((conf.nodes[0].cpus, conf.nodes[0].cpus_efctv), (20, 16));
        let m = Multifactor::from_conf(&conf, 0);
        assert_eq!(m.cluster_cpus, 64);
        let job = JobInputs {
            partition: Some("batch".into()),
            min_nodes: 1,
            cpus: 2,
            tres: vec![("cpu".into(), 2)],
            ..JobInputs::default()
        };
        let f = m.factors(&job, 0);
        // (1/4 + 2/64) / 2 = 0.140625 (0.1375 over 80 CPUs); cpu 2/64.
        assert_eq!(f.jobsize, (0.25 + 2.0 / 64.0) / 2.0);
        assert_eq!(f.tres, [2.0 / 64.0]);
        // A node that schedules cores (CPUs = cores): one CPU per specialised core.
        let cores = SlurmConf::parse(
            "NodeName=a CPUs=10 Sockets=2 CoresPerSocket=5 ThreadsPerCore=2 CoreSpecCount=3\n",
            "slurm.conf",
        )
        .unwrap();
        assert_eq!(cores.nodes[0].cpus_efctv, 7);
        // CPUSpecList is not counted out: said, naming the line.
        let list = SlurmConf::parse("NodeName=a CPUs=8 CPUSpecList=0,1\n", "s.conf").unwrap();
        let w = not_modelled(&list);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("s.conf:1: CPUSpecList is not modelled"),
            "{w:?}"
        );
    }

    #[test]
    fn partition_exclusivity_and_default_cpus_per_gpu_are_said_not_modelled() {
        // A pending job's job size counts the CPUs the select plugin's submission test gives
        // it (total_cpus): a partition with OverSubscribe=EXCLUSIVE gives every job whole
        // nodes, DefCpuPerGPU a GPU job that many CPUs per GPU. Neither is followed: said,
        // naming the line, never a silent difference.
        let text = "NodeName=a CPUs=8
                    PartitionName=ex Nodes=a OverSubscribe=EXCLUSIVE
                    PartitionName=gp Nodes=a DefCpuPerGPU=4
                    PartitionName=plain Nodes=a OverSubscribe=NO
";
        let conf = SlurmConf::parse(text, "s.conf").unwrap();
        let w = not_modelled(&conf);
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].starts_with("s.conf:2: OverSubscribe=EXCLUSIVE of partition ex"));
        assert!(w[1].starts_with("s.conf:3: DefCpuPerGPU of partition gp"));
        let global = SlurmConf::parse(
            "DefCpuPerGPU=2
NodeName=a CPUs=8
",
            "g.conf",
        )
        .unwrap();
        let w = not_modelled(&global);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].starts_with("g.conf:1: DefCpuPerGPU is not modelled"));
    }

    #[test]
    fn billing_tres_weighted_as_slurmctld() {
        // partition_mgr.c _calc_part_tres: the partition's billing total is
        // assoc_mgr_tres_weighted (assoc_mgr.c) of its TRES with its TRESBillingWeights, into
        // the uint64 tres_cnt; the job's billing likewise from its TRES. `Mem=0.25G` is 0.25
        // per GB (_tres_weight_item: the weight divided by the unit in MB, 1024).
        // Partition: 64 CPUs·1 + 256000 MB·0.25/1024 (62.5) + 16 GPUs·2 (32) = 158.5 → 158.
        // Job (8 CPUs, 32000 MB, 2 GPUs): 8 + 7.8125 + 4 = 19.8125 → 19; factor 19/158.
        let weights = "PriorityWeightTRES=billing=1000\nAccountingStorageTRES=gres/gpu\n";
        let billing = "TRESBillingWeights=CPU=1.0,Mem=0.25G,GRES/gpu=2.0";
        let text = |flags: &str| {
            format!(
                "PriorityType=priority/multifactor\n{weights}{flags}\
                 NodeName=n[1-4] CPUs=16 RealMemory=64000 Gres=gpu:4\n\
                 PartitionName=batch Nodes=ALL {billing}\n\
                 PartitionName=plain Nodes=ALL\n"
            )
        };
        let job = |part: &str| JobInputs {
            partition: Some(part.into()),
            tres: vec![
                ("cpu".into(), 8),
                ("mem".into(), 32000),
                ("gres/gpu".into(), 2),
            ],
            ..JobInputs::default()
        };
        let m = Multifactor::from_conf(&SlurmConf::parse(&text(""), "s").unwrap(), 0);
        assert_eq!(m.partition("batch").unwrap().tres_totals, [158]);
        let f = m.factors(&job("batch"), 0);
        assert_eq!(f.tres, [19.0 / 158.0]);
        // Without weights billing is the CPU count (the job's 8 of the partition's 64).
        assert_eq!(m.factors(&job("plain"), 0).tres, [8.0 / 64.0]);
        // A billing slurmctld gave (squeue's tres_req_str) is used as given.
        let mut given = job("batch");
        given.tres.push(("billing".into(), 40));
        assert_eq!(m.factors(&given, 0).tres, [40.0 / 158.0]);
        // MAX_TRES: the largest of the node TRES (cpu, mem, node, GRES) plus the rest:
        // partition max(64, 62.5, 32) = 64, job max(8, 7.8125, 4) = 8.
        let m = Multifactor::from_conf(
            &SlurmConf::parse(&text("PriorityFlags=MAX_TRES\n"), "s").unwrap(),
            0,
        );
        assert_eq!(m.partition("batch").unwrap().tres_totals, [64]);
        assert_eq!(m.factors(&job("batch"), 0).tres, [8.0 / 64.0]);
        assert_eq!(m.priority(&m.factors(&job("batch"), 0)), 125);
    }

    #[test]
    fn job_size_variants() {
        let job = |nodes, cpus, limit| JobInputs {
            partition: Some("batch".into()),
            min_nodes: nodes,
            cpus,
            time_limit: limit,
            ..JobInputs::default()
        };
        // PriorityFavorSmall: ((N - nodes)/N + (C - cpus)/C) / 2.
        let small = Multifactor::from_conf(
            &conf("PriorityWeightJobSize=1\nPriorityFavorSmall=YES\n"),
            0,
        );
        assert_eq!(
            small.factors(&job(1, 16, None), 0).jobsize,
            (0.75 + 0.75) / 2.0
        );
        // SMALL_RELATIVE_TO_TIME: max(nodes*C/N, cpus) / minutes / C; the partition's
        // MaxTime when the job has no limit.
        let rel = Multifactor::from_conf(
            &conf("PriorityWeightJobSize=1\nPriorityFlags=SMALL_RELATIVE_TO_TIME\n"),
            0,
        );
        assert_eq!(
            rel.factors(&job(1, 4, Some(2)), 0).jobsize,
            16.0 / 2.0 / 64.0
        );
        assert_eq!(
            rel.factors(&job(2, 4, None), 0).jobsize,
            32.0 / 2880.0 / 64.0
        );
        let both = Multifactor::from_conf(
            &conf(
                "PriorityWeightJobSize=1\nPriorityFlags=SMALL_RELATIVE_TO_TIME\n\
                 PriorityFavorSmall=YES\n",
            ),
            0,
        );
        assert_eq!(both.factors(&job(1, 4, Some(2)), 0).jobsize, 1.0 - 0.125);
        // More nodes than the cluster has: clamped to [0, 1].
        assert_eq!(small.factors(&job(9, 0, None), 0).jobsize, 1.0);
    }

    #[test]
    fn priority_clamps_and_truncates_as_get_priority_internal() {
        let m = Multifactor::from_conf(&conf("PriorityWeightQOS=4294967295\n"), 1);
        let f = |qos: f64, site: i64, nice: i64| Factors {
            qos,
            site,
            nice,
            ..Factors::default()
        };
        assert_eq!(m.priority(&f(0.0, 0, 0)), 1, "0 is reserved for held jobs");
        assert_eq!(m.priority(&f(0.0, 5, 100)), 1);
        assert_eq!(m.priority(&f(0.0, 7, -3)), 10, "a negative nice raises it");
        assert_eq!(m.priority(&f(1.0, 1000, 0)), u32::MAX, "clamped to 32 bits");
    }

    #[test]
    fn tres_factors_per_partition_totals() {
        // _get_tres_factors: requested count / the partition's total of that TRES.
        let m = Multifactor::from_conf(
            &conf("PriorityWeightTRES=GRES/gpu=3000,Mem=2000,CPU=1000\n"),
            0,
        );
        // Summed and listed in slurmctld's TRES order, not as written.
        assert_eq!(m.tres_columns(), ["tres_cpu", "tres_mem", "tres_gres_gpu"]);
        let job = JobInputs {
            partition: Some("short".into()),
            tres: vec![
                ("cpu".into(), 8),
                ("mem".into(), 32000),
                ("gres/gpu".into(), 2),
            ],
            ..JobInputs::default()
        };
        let f = m.factors(&job, 0);
        assert_eq!(f.tres, [8.0 / 32.0, 32000.0 / 128000.0, 2.0 / 8.0]);
        assert_eq!(m.priority(&f), 250 + 500 + 750);
    }

    #[test]
    fn formula_evaluates_to_the_priority() {
        let m = Multifactor::from_conf(
            &conf(
                "PriorityWeightAge=1000\nPriorityWeightFairshare=10000\n\
                 PriorityWeightJobSize=1234\nPriorityWeightPartition=1000\n\
                 PriorityWeightQOS=777\nPriorityWeightTRES=CPU=0.5,GRES/gpu=-3\n",
            ),
            7,
        );
        let text = m.formula();
        assert_eq!(
            text,
            "trunc(min(4294967295, max(1, 1000 * age + 10000 * fairshare + 1234 * jobsize + \
             1000 * partition + 777 * qos + (0.5 * tres_cpu + (-3) * tres_gres_gpu) + site - nice)))"
        );
        let formula = Formula::compile(&text, &m.catalog()).unwrap();
        let mut jobs = Vec::new();
        for i in 0..200u32 {
            let job = JobInputs {
                partition: Some(if i % 3 == 0 { "short" } else { "batch" }.into()),
                accrue_time: Some(1_000_000 - i64::from(i) * 3001),
                min_nodes: 1 + i % 4,
                cpus: 1 + (i * 7) % 64,
                qos_priority: i % 8,
                fairshare: f64::from(i) / 199.0,
                nice: i64::from(i % 5) * 37 - 50,
                site: i64::from(i % 3) * 11,
                tres: vec![
                    ("cpu".into(), u64::from(i % 64)),
                    ("gres/gpu".into(), u64::from(i % 5)),
                ],
                ..JobInputs::default()
            };
            jobs.push(m.factors(&job, 1_000_000));
        }
        let col = |g: &dyn Fn(&Factors) -> f64| jobs.iter().map(g).collect::<Vec<f64>>();
        let table = JobTable::new(jobs.len())
            .with_column("age", col(&|f| f.age))
            .unwrap()
            .with_column("fairshare", col(&|f| f.fairshare))
            .unwrap()
            .with_column("jobsize", col(&|f| f.jobsize))
            .unwrap()
            .with_column("partition", col(&|f| f.partition))
            .unwrap()
            .with_column("qos", col(&|f| f.qos))
            .unwrap()
            .with_column("tres_cpu", col(&|f| f.tres[0]))
            .unwrap()
            .with_column("tres_gres_gpu", col(&|f| f.tres[1]))
            .unwrap()
            .with_column("site", col(&|f| f.site as f64))
            .unwrap()
            .with_column("nice", col(&|f| f.nice as f64))
            .unwrap();
        let values = formula.evaluate(&table).values;
        for (f, v) in jobs.iter().zip(values) {
            assert_eq!(v, f64::from(m.priority(f)), "{f:?}");
        }
    }

    #[test]
    fn incr_only_keeps_the_stored_priority() {
        // priority_multifactor.c, decay_apply_weighted_factors: `if (((flags &
        // PRIORITY_FLAGS_INCR_ONLY) == 0) || (job_ptr->priority < new_prio))
        // job_ptr->priority = new_prio;` — the stored priority is the larger one.
        let m = Multifactor::from_conf(
            &conf("PriorityWeightAge=1000\nPriorityFlags=INCR_ONLY\nPriorityMaxAge=1-0\n"),
            0,
        );
        let text = m.formula();
        assert_eq!(
            text,
            "max(stored_priority, trunc(min(4294967295, max(1, 1000 * age + site - nice))))"
        );
        let formula = Formula::compile(&text, &m.catalog()).unwrap();
        // Age 0.5 → 500: a stored 700 stays; a stored 300 (or none, 0) becomes 500.
        let table = JobTable::new(3)
            .with_column("age", vec![0.5, 0.5, 0.5])
            .unwrap()
            .with_column("stored_priority", vec![700.0, 300.0, 0.0])
            .unwrap()
            .with_column("site", vec![0.0; 3])
            .unwrap()
            .with_column("nice", vec![0.0; 3])
            .unwrap();
        assert_eq!(formula.evaluate(&table).values, [700.0, 500.0, 500.0]);
        // Without the flag the priority is the one computed now.
        let plain = Multifactor::from_conf(&conf("PriorityWeightAge=1000\n"), 0);
        assert!(!plain.formula().contains("stored_priority"));
    }

    #[test]
    fn sprio_sees_the_wire_round_trip() {
        // pack.c: packdouble sends val * 1e6, unpackdouble divides by 1e6; sprio's PRIORITY
        // adds the TRES last and has no upper clamp (print.c: get_priority_from_factors).
        let m = Multifactor::from_conf(&conf("PriorityWeightAge=3\nPriorityMaxAge=7\n"), 0);
        let f = Factors {
            age: 0.1,
            nice: 2,
            ..Factors::default()
        };
        let row = m.sprio(&f);
        assert_eq!(row.weighted.age, (0.1 * 3.0 * 1e6) / 1e6);
        assert_eq!(row.priority, 1.0);
        let f = Factors {
            age: 1.0,
            site: 100,
            ..Factors::default()
        };
        assert_eq!(m.sprio(&f).priority, 103.0);
        assert_eq!(m.priority(&f), 103);
    }

    /// A pending job's CPUs for job size: `total_cpus` as the select plugin's submission test
    /// leaves it (`cons_common/job_test.c: _job_test`: the nodes' `cpus_efctv` for a whole-node
    /// job; the allocation, which `--cpus-per-gpu` raises, otherwise), not squeue's
    /// `min_cpus`. Live Slurm 22.05 (g1: 16 CPUs and 4 GPUs, c1: 8 CPUs; partitions gpu = g1,
    /// all = c1,g1; SMALL_RELATIVE_TO_TIME, PriorityFavorSmall, PriorityWeightJobSize=100000):
    /// sprio's JOBSIZE was 96667 for `-p gpu --exclusive -t 20` (16 CPUs: 1 − 16/20/24),
    /// 97778 for `-p gpu --gpus=4 --cpus-per-gpu=4 -t 30` and for `-p all --exclusive -t 30`
    /// (16 CPUs: g1, first in the node table though the partition lists c1 first), where
    /// squeue's 1 CPU gave 97500 and 98333.
    #[test]
    fn pending_job_size_takes_the_select_test_cpus() {
        let c = SlurmConf::parse(
            "PriorityType=priority/multifactor\nPriorityWeightJobSize=100000\n\
             PriorityFavorSmall=YES\nPriorityFlags=SMALL_RELATIVE_TO_TIME\n\
             NodeName=g1 CPUs=16 RealMemory=64000 Gres=gpu:4\nNodeName=c1 CPUs=8 RealMemory=32000\n\
             PartitionName=cpu Nodes=c1 Default=YES\nPartitionName=gpu Nodes=g1 MaxTime=120\n\
             PartitionName=all Nodes=c1,g1 MaxTime=600\n",
            "slurm.conf",
        )
        .unwrap();
        let m = Multifactor::from_conf(&c, 0);
        let js = |part: &str, limit: u32, whole_node: bool, cpus_per_gpu: u32, gpus: u64| {
            let job = JobInputs {
                partition: Some(part.into()),
                min_nodes: 1,
                cpus: 1,
                time_limit: Some(limit),
                whole_node,
                cpus_per_gpu,
                tres: vec![("gres/gpu".into(), gpus)],
                ..JobInputs::default()
            };
            (m.factors(&job, 0).jobsize * 100000.0) as i64
        };
        assert_eq!(js("gpu", 20, true, 0, 0), 96666);
        assert_eq!(js("gpu", 30, false, 4, 4), 97777);
        assert_eq!(js("all", 30, true, 0, 0), 97777);
        // Without them: max(min_nodes × 24 / 2, 1) = 12 CPUs.
        assert_eq!(js("gpu", 20, false, 0, 0), 97500);
        assert_eq!(js("all", 30, false, 0, 4), 98333);
    }
}
