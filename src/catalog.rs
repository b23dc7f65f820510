//! The schema formulas and job loaders both read: the names a formula may use, and the
//! [`Input`] a name resolves to. A catalog is one scheduler's ([`Scheduler`]):
//! - **PBS** (the default): PBS's special keywords, PBS's built-in resources, and custom
//!   resources declared with `--resource NAME:TYPE` or a PBS `resourcedef` file;
//! - **Slurm**: the factors of `priority/multifactor` as sprio shows them (`age`, `assoc`,
//!   `fairshare`, `jobsize`, `partition`, `qos`, one `tres_*` per TRES, `site`, `nice`; see
//!   [`crate::slurm::multifactor`]);
//! - **flux**: the factors of flux-accounting's `mf_priority` (`fairshare`, `queue_factor`,
//!   `bank_factor`, `urgency`; see [`crate::flux::mf_priority`]).
//!
//! Scheduler factors are built-in resources with their value ranges, so sema, the hazard
//! analysis and the evaluators treat them as any other input.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// A PBS resource type (`resourcedef` `type=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResourceType {
    Long,
    Float,
    /// Sizes; formulas see kilobytes.
    Size,
    /// Durations; formulas see seconds.
    Time,
    Boolean,
    String,
    StringArray,
}

impl ResourceType {
    /// Whether PBS passes the resource to the formula (numeric types only; PBS 15125 otherwise).
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            ResourceType::Long | ResourceType::Float | ResourceType::Size | ResourceType::Time
        )
    }
    pub fn name(self) -> &'static str {
        match self {
            ResourceType::Long => "long",
            ResourceType::Float => "float",
            ResourceType::Size => "size",
            ResourceType::Time => "time",
            ResourceType::Boolean => "boolean",
            ResourceType::String => "string",
            ResourceType::StringArray => "string_array",
        }
    }
}

impl fmt::Display for ResourceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Error for an unknown resource type name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown resource type `{0}` (expected long, float, size, time, boolean, string or string_array)"
)]
pub struct UnknownResourceType(pub String);

impl FromStr for ResourceType {
    type Err = UnknownResourceType;
    fn from_str(s: &str) -> Result<ResourceType, UnknownResourceType> {
        Ok(match s.trim().to_ascii_lowercase().as_str() {
            "long" | "int" | "integer" | "short" | "ll" => ResourceType::Long,
            "float" => ResourceType::Float,
            "size" => ResourceType::Size,
            "time" | "duration" => ResourceType::Time,
            "boolean" | "bool" => ResourceType::Boolean,
            "string" => ResourceType::String,
            "string_array" => ResourceType::StringArray,
            _ => return Err(UnknownResourceType(s.to_string())),
        })
    }
}

/// PBS's special formula keywords (`src/include/pbs_share.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Keyword {
    EligibleTime,
    QueuePriority,
    JobPriority,
    AccrueType,
    /// Also spelled `fair_share_perc` (deprecated; [`Keyword::from_name`] accepts both).
    FairsharePerc,
    FairshareTreeUsage,
    FairshareFactor,
}

impl Keyword {
    pub const ALL: [Keyword; 7] = [
        Keyword::EligibleTime,
        Keyword::QueuePriority,
        Keyword::JobPriority,
        Keyword::AccrueType,
        Keyword::FairsharePerc,
        Keyword::FairshareTreeUsage,
        Keyword::FairshareFactor,
    ];

    /// Deprecated spellings PBS still accepts, and the keyword each one means.
    pub const DEPRECATED_ALIASES: [(&'static str, Keyword); 1] =
        [("fair_share_perc", Keyword::FairsharePerc)];

    /// The keyword's name, which is also the job-table column holding its value.
    pub fn name(self) -> &'static str {
        match self {
            Keyword::EligibleTime => "eligible_time",
            Keyword::QueuePriority => "queue_priority",
            Keyword::JobPriority => "job_priority",
            Keyword::AccrueType => "accrue_type",
            Keyword::FairsharePerc => "fairshare_perc",
            Keyword::FairshareTreeUsage => "fairshare_tree_usage",
            Keyword::FairshareFactor => "fairshare_factor",
        }
    }

    /// The keyword `name` means, deprecated aliases included.
    pub fn from_name(name: &str) -> Option<Keyword> {
        Keyword::ALL
            .iter()
            .copied()
            .find(|k| k.name() == name)
            .or_else(|| {
                Keyword::DEPRECATED_ALIASES
                    .iter()
                    .find(|(alias, _)| *alias == name)
                    .map(|&(_, k)| k)
            })
    }

    /// Whether the value comes from the fairshare tree (rounded to 6 decimals in PBS).
    pub fn is_fairshare(self) -> bool {
        matches!(
            self,
            Keyword::FairsharePerc | Keyword::FairshareTreeUsage | Keyword::FairshareFactor
        )
    }

    /// The values PBS can give it, for the hazard analysis (SPEC §1.6).
    pub fn domain(self) -> (f64, f64) {
        match self {
            Keyword::EligibleTime => (0.0, f64::INFINITY),
            Keyword::QueuePriority => (-1024.0, 1023.0),
            Keyword::JobPriority => (-1024.0, 1023.0),
            Keyword::AccrueType => (0.0, 4.0),
            Keyword::FairsharePerc | Keyword::FairshareTreeUsage | Keyword::FairshareFactor => {
                (0.0, 1.0)
            }
        }
    }
}

impl fmt::Display for Keyword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a name in a formula refers to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NameRef {
    Keyword(Keyword),
    Resource(ResourceType),
}

/// A value a formula reads from each job, resolved once by sema: a keyword, or a numeric
/// resource with its type. It is read from the job-table column [`Input::column`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Input {
    Keyword(Keyword),
    Resource { name: String, ty: ResourceType },
}

impl Input {
    /// The canonical name (a deprecated keyword alias is already resolved).
    pub fn name(&self) -> &str {
        match self {
            Input::Keyword(k) => k.name(),
            Input::Resource { name, .. } => name,
        }
    }

    /// The job-table column that holds the value: the canonical name.
    pub fn column(&self) -> &str {
        self.name()
    }

    pub fn keyword(&self) -> Option<Keyword> {
        match self {
            Input::Keyword(k) => Some(*k),
            Input::Resource { .. } => None,
        }
    }

    /// Whether the value comes from the fairshare tree (rounded to 6 decimals in PBS).
    pub fn is_fairshare(&self) -> bool {
        self.keyword().is_some_and(Keyword::is_fairshare)
    }
}

impl From<Keyword> for Input {
    fn from(k: Keyword) -> Input {
        Input::Keyword(k)
    }
}

/// An input equals the name of its column (`inputs() == ["ncpus", "walltime"]`).
impl PartialEq<str> for Input {
    fn eq(&self, name: &str) -> bool {
        self.column() == name
    }
}

impl PartialEq<&str> for Input {
    fn eq(&self, name: &&str) -> bool {
        self.column() == *name
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// PBS's built-in resources and their types (`master_resc_def_all.xml`).
const BUILTIN_RESOURCES: &[(&str, ResourceType)] = {
    use ResourceType::*;
    &[
        ("cput", Time),
        ("pcput", Time),
        ("walltime", Time),
        ("soft_walltime", Time),
        ("min_walltime", Time),
        ("max_walltime", Time),
        ("mem", Size),
        ("file", Size),
        ("pmem", Size),
        ("vmem", Size),
        ("pvmem", Size),
        ("accelerator_memory", Size),
        ("hbmem", Size),
        ("ncpus", Long),
        ("naccelerators", Long),
        ("nodect", Long),
        ("nchunk", Long),
        ("mpiprocs", Long),
        ("ompthreads", Long),
        ("cpupercent", Long),
        ("nice", Long),
        ("hpm", Long),
        ("ssinodes", Long),
        ("start_time", Long),
        ("pcap_node", Long),
        ("pcap_accelerator", Long),
        ("energy", Float),
        ("accelerator", Boolean),
        ("select", String),
        ("place", String),
        ("nodes", String),
        ("arch", String),
        ("vntype", StringArray),
        ("nodemask", String),
        ("host", String),
        ("vnode", String),
        ("resc", StringArray),
        ("software", String),
        ("site", String),
        ("exec_vnode", String),
        ("pe_mask", String),
        ("partition", String),
        ("aoe", StringArray),
        ("eoe", String),
        ("preempt_targets", StringArray),
        ("accelerator_model", String),
        ("accelerator_group", String),
        ("pstate", String),
        ("pgov", String),
    ]
};

/// A resource known to the catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceDef {
    pub name: String,
    pub ty: ResourceType,
    /// The declared range of values, if any (custom resources default to unbounded).
    pub domain: (f64, f64),
    /// True for PBS's built-ins.
    pub builtin: bool,
}

/// Whose priority a catalog describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Scheduler {
    /// PBS `job_sort_formula`: keywords and resources.
    #[default]
    Pbs,
    /// Slurm `priority/multifactor` factors.
    Slurm,
    /// flux-accounting `mf_priority` factors.
    Flux,
}

impl Scheduler {
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Pbs => "pbs",
            Scheduler::Slurm => "slurm",
            Scheduler::Flux => "flux",
        }
    }
}

impl fmt::Display for Scheduler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Slurm's `NICE_OFFSET` range for `nice` and `site` (`scontrol update SiteFactor=`:
/// ±2147483645, `slurm.h`).
const SLURM_SIGNED: (f64, f64) = (-2_147_483_645.0, 2_147_483_645.0);

/// Slurm's multifactor factors (`priority_multifactor.c: set_priority_factors`) with their
/// ranges: normalised factors are in [0, 1].
const SLURM_FACTORS: &[(&str, ResourceType, (f64, f64))] = &[
    ("age", ResourceType::Float, (0.0, 1.0)),
    ("assoc", ResourceType::Float, (0.0, 1.0)),
    ("fairshare", ResourceType::Float, (0.0, 1.0)),
    ("jobsize", ResourceType::Float, (0.0, 1.0)),
    ("partition", ResourceType::Float, (0.0, 1.0)),
    ("qos", ResourceType::Float, (0.0, 1.0)),
    ("site", ResourceType::Long, SLURM_SIGNED),
    ("nice", ResourceType::Long, SLURM_SIGNED),
];

/// Slurm's built-in TRES (`TRES_ARRAY_*`, `src/common/slurmdb_defs.h`) as factor columns.
const SLURM_TRES: &[&str] = &[
    "tres_cpu",
    "tres_mem",
    "tres_energy",
    "tres_node",
    "tres_billing",
    "tres_fs_disk",
    "tres_vmem",
    "tres_pages",
];

/// flux-accounting's `mf_priority` factors (`priority_calculation`; `flux account jobs`
/// columns FSFACTOR, QFACT, BANKFACT, URGENCY): the association's fairshare in [0, 1], its
/// queue's integer priority, its bank's priority, and the job's urgency (0 = hold,
/// 16 = default, 31 = expedite; RFC 30). `queue` alone would be a job's queue name.
const FLUX_FACTORS: &[(&str, ResourceType, (f64, f64))] = &[
    ("fairshare", ResourceType::Float, (0.0, 1.0)),
    (
        "queue_factor",
        ResourceType::Long,
        (-2_147_483_648.0, 2_147_483_647.0),
    ),
    (
        "bank_factor",
        ResourceType::Float,
        (f64::NEG_INFINITY, f64::INFINITY),
    ),
    ("urgency", ResourceType::Long, (0.0, 31.0)),
];

/// The set of names a formula is checked against.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    scheduler: Scheduler,
    resources: BTreeMap<String, ResourceDef>,
}

impl Default for Catalog {
    fn default() -> Catalog {
        Catalog::pbs()
    }
}

impl Catalog {
    /// PBS's keywords and built-in resources.
    pub fn pbs() -> Catalog {
        let resources = BUILTIN_RESOURCES
            .iter()
            .map(|&(name, ty)| {
                (
                    name.to_string(),
                    ResourceDef {
                        name: name.to_string(),
                        ty,
                        domain: (0.0, f64::INFINITY),
                        builtin: true,
                    },
                )
            })
            .collect();
        Catalog {
            scheduler: Scheduler::Pbs,
            resources,
        }
    }

    /// Slurm's multifactor factors and its built-in TRES (normalised); add the site's other
    /// TRES with [`Catalog::add_slurm_tres`].
    pub fn slurm() -> Catalog {
        let mut c = Catalog::factors(Scheduler::Slurm, SLURM_FACTORS);
        for name in SLURM_TRES {
            c.add_slurm_tres(name, true);
        }
        c
    }

    /// flux-accounting's `mf_priority` factors.
    pub fn flux() -> Catalog {
        Catalog::factors(Scheduler::Flux, FLUX_FACTORS)
    }

    /// The catalog of `scheduler` (PBS: built-ins only).
    pub fn of(scheduler: Scheduler) -> Catalog {
        match scheduler {
            Scheduler::Pbs => Catalog::pbs(),
            Scheduler::Slurm => Catalog::slurm(),
            Scheduler::Flux => Catalog::flux(),
        }
    }

    fn factors(scheduler: Scheduler, factors: &[(&str, ResourceType, (f64, f64))]) -> Catalog {
        let resources = factors
            .iter()
            .map(|&(name, ty, domain)| {
                let def = ResourceDef {
                    name: name.to_string(),
                    ty,
                    domain,
                    builtin: true,
                };
                (name.to_string(), def)
            })
            .collect();
        Catalog {
            scheduler,
            resources,
        }
    }

    /// Declare a Slurm TRES factor column (`tres_gres_gpu`): in [0, 1] when normalised,
    /// the raw count (0 or more) under `PriorityFlags=NO_NORMAL_TRES`.
    pub fn add_slurm_tres(&mut self, column: &str, normalised: bool) {
        let domain = if normalised {
            (0.0, 1.0)
        } else {
            (0.0, f64::INFINITY)
        };
        self.resources.insert(
            column.to_string(),
            ResourceDef {
                name: column.to_string(),
                ty: ResourceType::Float,
                domain,
                builtin: true,
            },
        );
    }

    /// Whose priority the catalog describes.
    pub fn scheduler(&self) -> Scheduler {
        self.scheduler
    }

    /// Declare (or redeclare) a custom resource. Custom numeric resources may be negative.
    pub fn add_resource(&mut self, name: &str, ty: ResourceType) {
        self.resources.insert(
            name.to_string(),
            ResourceDef {
                name: name.to_string(),
                ty,
                domain: (f64::NEG_INFINITY, f64::INFINITY),
                builtin: false,
            },
        );
    }

    /// Builder form of [`Catalog::add_resource`].
    pub fn with_resource(mut self, name: &str, ty: ResourceType) -> Catalog {
        self.add_resource(name, ty);
        self
    }

    pub fn resource(&self, name: &str) -> Option<&ResourceDef> {
        self.resources.get(name)
    }

    /// The type of a resource, if the catalog knows it.
    pub fn resource_type(&self, name: &str) -> Option<ResourceType> {
        self.resources.get(name).map(|r| r.ty)
    }

    /// What `name` refers to (keywords first, as PBS builds its dict; PBS's keywords are
    /// only PBS's).
    pub fn lookup(&self, name: &str) -> Option<NameRef> {
        if self.scheduler == Scheduler::Pbs
            && let Some(k) = Keyword::from_name(name)
        {
            return Some(NameRef::Keyword(k));
        }
        self.resource_type(name).map(NameRef::Resource)
    }

    /// The input `name` reads, if it names a keyword or a numeric resource.
    pub fn input(&self, name: &str) -> Option<Input> {
        match self.lookup(name)? {
            NameRef::Keyword(k) => Some(Input::Keyword(k)),
            NameRef::Resource(ty) if ty.is_numeric() => Some(Input::Resource {
                name: name.to_string(),
                ty,
            }),
            NameRef::Resource(_) => None,
        }
    }

    /// Every resource, in name order.
    pub fn resources(&self) -> impl Iterator<Item = &ResourceDef> {
        self.resources.values()
    }

    /// Every name a formula could mean (keywords and resources), for "did you mean".
    pub fn names(&self) -> impl Iterator<Item = &str> {
        let keywords: &[Keyword] = if self.scheduler == Scheduler::Pbs {
            &Keyword::ALL
        } else {
            &[]
        };
        keywords
            .iter()
            .map(|k| k.name())
            .chain(self.resources.keys().map(String::as_str))
    }
}

/// An error in a resource declaration, with where it is (`file:line: message`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct ResourceDefError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// Whether `name` can be a custom resource name a formula can refer to.
pub fn valid_resource_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Parse one `--resource NAME:TYPE` argument (e.g. `foo:float`).
pub fn parse_resource_arg(arg: &str) -> Result<(String, ResourceType), String> {
    let Some((name, ty)) = arg.split_once(':') else {
        return Err(format!(
            "`{arg}` is not NAME:TYPE (e.g. `foo:float`; types: long, float, size, time, boolean, string, string_array)"
        ));
    };
    let name = name.trim();
    if !valid_resource_name(name) {
        return Err(format!(
            "`{name}` is not a valid resource name (letters, digits and `_`, not starting with a digit)"
        ));
    }
    let ty: ResourceType = ty.parse().map_err(|e: UnknownResourceType| e.to_string())?;
    Ok((name.to_string(), ty))
}

/// Parse a PBS `resourcedef` file: one resource per line, `NAME type=TYPE [flag=FLAGS]`,
/// `#` comments and blank lines ignored. `file` names the file in error messages.
pub fn parse_resourcedef(
    text: &str,
    file: &str,
) -> Result<Vec<(String, ResourceType)>, ResourceDefError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let err = |message: String| ResourceDefError {
            file: file.to_string(),
            line: i + 1,
            message,
        };
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let name = words.next().unwrap_or("");
        if name.contains('=') {
            return Err(err(format!(
                "expected a resource name first, found `{name}` (format: NAME type=TYPE [flag=FLAGS])"
            )));
        }
        if !valid_resource_name(name) {
            return Err(err(format!(
                "`{name}` is not a valid resource name (letters, digits and `_`, not starting with a digit)"
            )));
        }
        let mut ty = None;
        for w in words {
            let Some((key, value)) = w.split_once('=') else {
                return Err(err(format!(
                    "expected KEY=VALUE, found `{w}` (format: NAME type=TYPE [flag=FLAGS])"
                )));
            };
            match key.to_ascii_lowercase().as_str() {
                "type" => {
                    ty = Some(
                        value
                            .parse::<ResourceType>()
                            .map_err(|e| err(e.to_string()))?,
                    )
                }
                "flag" => {
                    if let Some(c) = value.chars().find(|c| !"nhqfmirp".contains(*c)) {
                        return Err(err(format!(
                            "unknown flag `{c}` in `flag={value}` (PBS flags: n h q f m i r p)"
                        )));
                    }
                }
                _ => {
                    return Err(err(format!(
                        "unknown key `{key}` (a resourcedef line has `type=` and `flag=`)"
                    )));
                }
            }
        }
        let Some(ty) = ty else {
            return Err(err(format!(
                "resource `{name}` has no `type=` (e.g. `{name} type=long`)"
            )));
        };
        out.push((name.to_string(), ty));
    }
    Ok(out)
}

impl Catalog {
    /// Declare every resource of a PBS `resourcedef` file's text (see [`parse_resourcedef`]).
    pub fn add_resourcedef(&mut self, text: &str, file: &str) -> Result<(), ResourceDefError> {
        for (name, ty) in parse_resourcedef(text, file)? {
            self.add_resource(&name, ty);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_and_custom_resources() {
        let c = Catalog::pbs().with_resource("foo", ResourceType::Float);
        assert_eq!(c.resource_type("walltime"), Some(ResourceType::Time));
        assert_eq!(c.resource_type("foo"), Some(ResourceType::Float));
        assert_eq!(
            c.lookup("fairshare_perc"),
            Some(NameRef::Keyword(Keyword::FairsharePerc))
        );
        assert_eq!(
            c.lookup("fair_share_perc"),
            Some(NameRef::Keyword(Keyword::FairsharePerc))
        );
        assert_eq!(c.lookup("fair_share_factor"), None);
        assert_eq!(
            c.input("foo"),
            Some(Input::Resource {
                name: "foo".to_string(),
                ty: ResourceType::Float
            })
        );
        assert_eq!(
            c.input("fair_share_perc").unwrap().column(),
            "fairshare_perc"
        );
        assert_eq!(c.input("accelerator"), None);
        assert!(!c.resource_type("accelerator").unwrap().is_numeric());
    }

    #[test]
    fn resourcedef_files() {
        let text = "# site resources\nfoo type=float\nbar  type=long flag=nh # comment\n\nbaz type=string\n";
        let defs = parse_resourcedef(text, "resourcedef").unwrap();
        assert_eq!(
            defs,
            vec![
                ("foo".to_string(), ResourceType::Float),
                ("bar".to_string(), ResourceType::Long),
                ("baz".to_string(), ResourceType::String),
            ]
        );
        let e = parse_resourcedef("foo type=long\nbar type=wat\n", "rd").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(
            e.to_string()
                .starts_with("rd:2: unknown resource type `wat`"),
            "{e}"
        );
        let e = parse_resourcedef("foo flag=h\n", "rd").unwrap_err();
        assert!(e.to_string().contains("no `type=`"), "{e}");
        let e = parse_resourcedef("foo type=long color=red\n", "rd").unwrap_err();
        assert!(e.to_string().contains("unknown key `color`"), "{e}");
    }

    #[test]
    fn scheduler_catalogs() {
        let slurm = Catalog::slurm();
        assert_eq!(slurm.scheduler(), Scheduler::Slurm);
        assert_eq!(slurm.resource("age").unwrap().domain, (0.0, 1.0));
        assert_eq!(slurm.resource_type("nice"), Some(ResourceType::Long));
        assert!(slurm.input("tres_cpu").is_some());
        // PBS's names are not Slurm's.
        assert_eq!(slurm.lookup("fairshare_perc"), None);
        assert_eq!(slurm.lookup("ncpus"), None);
        assert!(!slurm.names().any(|n| n == "eligible_time"));
        let mut with_gpu = slurm.clone();
        with_gpu.add_slurm_tres("tres_gres_gpu", false);
        assert_eq!(
            with_gpu.resource("tres_gres_gpu").unwrap().domain,
            (0.0, f64::INFINITY)
        );
        let flux = Catalog::flux();
        assert_eq!(flux.resource("urgency").unwrap().domain, (0.0, 31.0));
        assert_eq!(flux.lookup("age"), None);
        assert_eq!(Catalog::of(Scheduler::Pbs), Catalog::pbs());
    }

    #[test]
    fn resource_args() {
        assert_eq!(
            parse_resource_arg("paws:float"),
            Ok(("paws".to_string(), ResourceType::Float))
        );
        assert!(parse_resource_arg("paws").is_err());
        assert!(parse_resource_arg("1x:long").is_err());
        assert!(parse_resource_arg("x:complex").is_err());
    }
}
