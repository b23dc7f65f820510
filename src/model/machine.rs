//! The machine a simulation runs on: node types with counts, each node carrying cores,
//! memory, GPUs and any custom consumable resource.
//!
//! Nodes are numbered type by type in the order the types are given, so "node order" (first
//! fit) is the file's order. A resource a node type does not name is 0 on its nodes. The
//! resources are the consumables the simulator schedules, as PBS schedules only the
//! resources on the `resources:` line of `sched_config`: a request for a resource the machine
//! does not name is not checked.
//!
//! Three sources:
//! - the cluster file ([`Machine::parse`]): one line per node type, `key=value` words,
//!   `#` comments:
//!   ```text
//!   # 64 CPU nodes, then 8 GPU nodes
//!   count=64 ncpus=128 mem=512gb
//!   count=8  ncpus=64  mem=1tb ngpus=4 name=gpu scratch=2
//!   ```
//!   `count` (nodes of the type, default 1) and `ncpus` are required, `mem` is a PBS size
//!   (`512gb`; kept in KB, no unit = bytes), `ngpus` and every other key (a custom
//!   consumable) a whole number, `name` a label;
//! - an AleaNG `.machines` file ([`Machine::parse_aleang`]);
//! - `--nodes N --cores C [--mem M --gpus G]` ([`Machine::uniform`], [`Machine::with_per_node`]).

use crate::input::units::parse_size;
use std::fmt;
use std::path::Path;

/// The cores resource: always the machine's first.
pub const NCPUS: &str = "ncpus";
/// Memory, in KB.
pub const MEM: &str = "mem";
/// GPUs.
pub const NGPUS: &str = "ngpus";

/// Nodes of one kind: `count` of them, each with `amounts[i]` of the machine's resource `i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeType {
    pub name: String,
    pub count: u32,
    pub amounts: Vec<u64>,
}

/// A node type as [`Machine::from_types`] takes it: `(name, count, [(resource, amount)])`.
pub type TypeSpec = (String, u32, Vec<(String, u64)>);

/// Node types in node order, over one list of resource names (`ncpus` first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    names: Vec<String>,
    types: Vec<NodeType>,
}

/// A machine description that cannot be read: the file, the line when one is at fault, and
/// what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct MachineError {
    pub file: String,
    pub line: Option<usize>,
    pub reason: String,
}

impl fmt::Display for MachineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.file, self.reason),
            None => write!(f, "{}: {}", self.file, self.reason),
        }
    }
}

impl Machine {
    /// `nodes` nodes of `cores` cores each: today's cluster.
    pub fn uniform(nodes: u32, cores: u32) -> Machine {
        Machine {
            names: vec![NCPUS.to_string()],
            types: vec![NodeType {
                name: "node".into(),
                count: nodes,
                amounts: vec![u64::from(cores)],
            }],
        }
    }

    /// Node types, each `(name, count, resources)`; a type that does not name a resource
    /// has none of it. An error when a type gives no `ncpus`, names a resource twice, or
    /// the nodes number more than `u32::MAX`.
    pub fn from_types(types: Vec<TypeSpec>) -> Result<Machine, String> {
        let mut names = vec![NCPUS.to_string()];
        for (_, _, res) in &types {
            for (r, _) in res {
                if !names.contains(r) {
                    names.push(r.clone());
                }
            }
        }
        let mut nodes = 0u64;
        let mut out = Vec::with_capacity(types.len());
        for (name, count, res) in types {
            if !res.iter().any(|(r, _)| r == NCPUS) {
                return Err(format!("node type `{name}` gives no `{NCPUS}`"));
            }
            let mut amounts = vec![0; names.len()];
            let mut seen = vec![false; names.len()];
            for (r, v) in res {
                let i = names.iter().position(|n| *n == r).unwrap_or(0);
                if std::mem::replace(&mut seen[i], true) {
                    return Err(format!("node type `{name}` gives `{r}` twice"));
                }
                amounts[i] = v;
            }
            nodes += u64::from(count);
            out.push(NodeType {
                name,
                count,
                amounts,
            });
        }
        if nodes > u64::from(u32::MAX) {
            return Err(format!(
                "{nodes} nodes are more than the {} a machine may have",
                u32::MAX
            ));
        }
        Ok(Machine { names, types: out })
    }

    /// The same machine with `amount` of `resource` on every node (`--mem`, `--gpus`),
    /// replacing what a type gave.
    pub fn with_per_node(mut self, resource: &str, amount: u64) -> Machine {
        let i = match self.index(resource) {
            Some(i) => i,
            None => {
                self.names.push(resource.to_string());
                for t in &mut self.types {
                    t.amounts.push(0);
                }
                self.names.len() - 1
            }
        };
        for t in &mut self.types {
            t.amounts[i] = amount;
        }
        self
    }

    /// Read a machine file: AleaNG's format when the name ends in `.machines`, else the
    /// cluster format.
    pub fn read(path: &Path) -> Result<Machine, MachineError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| MachineError {
            file: file.clone(),
            line: None,
            reason: e.to_string(),
        })?;
        if path.extension().is_some_and(|e| e == "machines") {
            Machine::parse_aleang(&text, &file)
        } else {
            Machine::parse(&text, &file)
        }
    }

    /// Parse the cluster format (module docs). `file` names the source in errors.
    pub fn parse(text: &str, file: &str) -> Result<Machine, MachineError> {
        let mut types = Vec::new();
        let mut lines = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or_default().trim();
            if line.is_empty() {
                continue;
            }
            let bad = |reason: String| MachineError {
                file: file.into(),
                line: Some(i + 1),
                reason,
            };
            let (mut count, mut name, mut res) = (None, None, Vec::new());
            for word in line.split_whitespace() {
                let Some((k, v)) = word.split_once('=').filter(|(k, _)| !k.is_empty()) else {
                    return Err(bad(format!("`{word}` is not key=value")));
                };
                match k {
                    "count" => {
                        let n = whole(v).map_err(|e| bad(format!("`count`: {e}")))?;
                        let n = u32::try_from(n)
                            .map_err(|_| bad(format!("`count`: {n} is more than {}", u32::MAX)))?;
                        if count.replace(n).is_some() {
                            return Err(bad("`count` given twice".into()));
                        }
                    }
                    "name" if !v.is_empty() => name = Some(v.to_string()),
                    MEM => {
                        let kb = parse_size(v).map_err(|e| bad(format!("`{MEM}`: {e}")))?;
                        res.push((k.to_string(), kb as u64));
                    }
                    _ => {
                        let n = whole(v).map_err(|e| bad(format!("`{k}`: {e}")))?;
                        res.push((k.to_string(), n));
                    }
                }
            }
            let name = name.unwrap_or_else(|| format!("type{}", types.len() + 1));
            types.push((name, count.unwrap_or(1), res));
            lines.push(i + 1);
        }
        if types.is_empty() {
            return Err(MachineError {
                file: file.into(),
                line: None,
                reason: "no node types (expected lines such as `count=64 ncpus=128 mem=512gb`)"
                    .into(),
            });
        }
        // Errors of one type name its line; the node total, the file.
        for (t, &line) in types.iter().zip(&lines) {
            Machine::from_types(vec![t.clone()]).map_err(|reason| MachineError {
                file: file.into(),
                line: Some(line),
                reason,
            })?;
        }
        Machine::from_types(types).map_err(|reason| MachineError {
            file: file.into(),
            line: None,
            reason,
        })
    }

    /// Parse an AleaNG `.machines` file as `MachineLoader.createGridResources` reads it
    /// (`[ALEA] src/xklusac/environment/MachineLoader.java`): whitespace-separated
    /// `id name nodes cpus_per_node pe_rating ram description gpus_per_node` per line, lines
    /// with `;` in the first field skipped. RAM is KB, or GB when below 10240 (AleaNG's
    /// rule); a line of four or five fields gives cores only. Each line is a node type
    /// (AleaNG runs a job within one line's cluster; here jobs may span types).
    pub fn parse_aleang(text: &str, file: &str) -> Result<Machine, MachineError> {
        let mut types = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let f: Vec<&str> = line.split_whitespace().collect();
            if f.is_empty() || f[0].contains(';') || f[0].starts_with('#') {
                continue;
            }
            let bad = |reason: String| MachineError {
                file: file.into(),
                line: Some(i + 1),
                reason,
            };
            if f.len() < 4 {
                return Err(bad(
                    "expected `id name nodes cpus_per_node [pe_rating ram description gpus]`"
                        .into(),
                ));
            }
            let field = |k: usize, what: &str| {
                whole(f[k]).map_err(|e| bad(format!("field {} ({what}): {e}", k + 1)))
            };
            let nodes = field(2, "nodes")?;
            let nodes = u32::try_from(nodes)
                .map_err(|_| bad(format!("{nodes} nodes are more than {}", u32::MAX)))?;
            let mut res = vec![(NCPUS.to_string(), field(3, "CPUs per node")?)];
            if f.len() > 5 {
                let ram = field(5, "RAM")?;
                let kb = if ram < 1024 * 10 {
                    ram * 1024 * 1024
                } else {
                    ram
                };
                res.push((MEM.to_string(), kb));
            }
            if f.len() > 7 {
                res.push((NGPUS.to_string(), field(7, "GPUs per node")?));
            }
            types.push((f[1].to_string(), nodes, res));
        }
        if types.is_empty() {
            return Err(MachineError {
                file: file.into(),
                line: None,
                reason: "no machine lines".into(),
            });
        }
        Machine::from_types(types).map_err(|reason| MachineError {
            file: file.into(),
            line: None,
            reason,
        })
    }

    /// The machine in the cluster format, one line per node type, which [`Machine::parse`]
    /// reads back to the same machine (`mem` in KB).
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for t in &self.types {
            out.push_str(&format!(
                "count={} name={} {}\n",
                t.count,
                t.name,
                self.resources_text(t)
            ));
        }
        out
    }

    /// A node type's resources in the cluster format: `ncpus=4 mem=8388608kb ngpus=1`.
    pub fn resources_text(&self, t: &NodeType) -> String {
        let words: Vec<String> = self
            .names
            .iter()
            .zip(&t.amounts)
            .map(|(r, v)| {
                let unit = if r == MEM { "kb" } else { "" };
                format!("{r}={v}{unit}")
            })
            .collect();
        words.join(" ")
    }

    /// The resource names, `ncpus` first.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The index of a resource.
    pub fn index(&self, resource: &str) -> Option<usize> {
        self.names.iter().position(|n| n == resource)
    }

    /// The node types, in node order.
    pub fn types(&self) -> &[NodeType] {
        &self.types
    }

    /// Nodes in all.
    pub fn nodes(&self) -> u32 {
        // `from_types` bounds the sum.
        self.types.iter().map(|t| t.count).sum()
    }

    /// The machine's total of resource `i`.
    pub fn total(&self, i: usize) -> u64 {
        self.types
            .iter()
            .map(|t| u64::from(t.count) * t.amounts[i])
            .sum()
    }

    /// `(nodes, cores per node)` when this is today's cluster: cores only, every node the
    /// same size.
    pub fn cores_only(&self) -> Option<(u32, u32)> {
        if self.names.len() != 1 {
            return None;
        }
        let cores = self.types.first().map_or(0, |t| t.amounts[0]);
        let cores = u32::try_from(cores).ok()?;
        self.types
            .iter()
            .all(|t| t.amounts[0] == u64::from(cores))
            .then(|| (self.nodes(), cores))
    }
}

fn whole(v: &str) -> Result<u64, String> {
    v.parse()
        .map_err(|_| format!("`{v}` is not a whole number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: u64 = 1024 * 1024;

    #[test]
    fn the_cluster_format_gives_node_types_in_order() {
        let text = "# CPU nodes, then GPU nodes\n\
                    count=64 ncpus=128 mem=512gb\n\
                    \n\
                    count=8 ncpus=64 mem=1tb ngpus=4 name=gpu scratch=2 # the big ones\n";
        let m = Machine::parse(text, "site.cluster").unwrap();
        assert_eq!(m.names(), ["ncpus", "mem", "ngpus", "scratch"]);
        assert_eq!(m.nodes(), 72);
        assert_eq!(m.types()[0].amounts, vec![128, 512 * GB, 0, 0]);
        assert_eq!(m.types()[0].name, "type1");
        assert_eq!(Machine::parse(&m.to_text(), "again").unwrap(), m);
        assert_eq!(m.types()[1].name, "gpu");
        assert_eq!(m.types()[1].amounts, vec![64, 1024 * GB, 4, 2]);
        assert_eq!(m.total(2), 32);
        assert_eq!(m.cores_only(), None);
        // Cores only and one size: today's cluster.
        let m = Machine::parse("count=4 ncpus=8\ncount=2 ncpus=8", "f").unwrap();
        assert_eq!(m.cores_only(), Some((6, 8)));
        assert_eq!(Machine::uniform(6, 8).cores_only(), Some((6, 8)));
        let m = Machine::parse("count=4 ncpus=8\ncount=2 ncpus=4", "f").unwrap();
        assert_eq!(m.cores_only(), None);
    }

    #[test]
    fn cluster_format_errors_say_file_and_line() {
        let err = |t: &str| Machine::parse(t, "c.txt").unwrap_err().to_string();
        assert_eq!(
            err("count=2 ncpus=4\ncount=two ncpus=4"),
            "c.txt:2: `count`: `two` is not a whole number"
        );
        assert_eq!(err("\n\nncpus=4 mem"), "c.txt:3: `mem` is not key=value");
        assert_eq!(
            err("count=3 mem=4gb"),
            "c.txt:1: node type `type1` gives no `ncpus`"
        );
        assert_eq!(
            err("ncpus=4 ncpus=8"),
            "c.txt:1: node type `type1` gives `ncpus` twice"
        );
        assert!(
            err("ncpus=4 mem=4zb").starts_with("c.txt:1: `mem`: `4zb` has an unknown size unit")
        );
        assert_eq!(
            err("# nothing\n"),
            "c.txt: no node types (expected lines such as `count=64 ncpus=128 mem=512gb`)"
        );
        assert_eq!(
            err("count=4294967295 ncpus=1\ncount=1 ncpus=1"),
            "c.txt: 4294967296 nodes are more than the 4294967295 a machine may have"
        );
    }

    /// The AleaNG validation runs' machine: `36 fer 5 2 1 256 6.6 8` is 5 nodes of 2 CPUs,
    /// 256 GB (below 10240, so GB) and 8 GPUs.
    #[test]
    fn aleang_machines_read_as_machine_loader_does() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/traces/aleang-pbs-validation/NGI_CZ_journal_PBSstrict3.swf.machines");
        let m = Machine::read(&path).unwrap();
        assert_eq!(m.names(), ["ncpus", "mem", "ngpus"]);
        assert_eq!(m.types().len(), 1);
        assert_eq!(m.types()[0].name, "fer");
        assert_eq!(m.types()[0].count, 5);
        assert_eq!(m.types()[0].amounts, vec![2, 256 * GB, 8]);
        // RAM of 10240 or more is KB already; `;` lines are skipped; four fields: cores.
        let m = Machine::parse_aleang(
            "; id name nodes cpus\n0 a 2 4 1 20000 x 0\n1 b 3 8\n",
            "x.machines",
        )
        .unwrap();
        assert_eq!(m.types()[0].amounts, vec![4, 20000, 0]);
        assert_eq!(m.types()[1].amounts, vec![8, 0, 0]);
        assert_eq!(m.nodes(), 5);
        assert_eq!(
            Machine::parse_aleang("0 a 2\n", "x.machines")
                .unwrap_err()
                .to_string(),
            "x.machines:1: expected `id name nodes cpus_per_node [pe_rating ram description gpus]`"
        );
        assert_eq!(
            Machine::parse_aleang("0 a 2 c\n", "x.machines")
                .unwrap_err()
                .to_string(),
            "x.machines:1: field 4 (CPUs per node): `c` is not a whole number"
        );
    }

    #[test]
    fn flags_add_a_resource_to_every_node() {
        let m = Machine::uniform(4, 16)
            .with_per_node(MEM, 64 * GB)
            .with_per_node(NGPUS, 2);
        assert_eq!(m.names(), ["ncpus", "mem", "ngpus"]);
        assert_eq!(m.types()[0].amounts, vec![16, 64 * GB, 2]);
        assert_eq!(m.total(1), 256 * GB);
        let m = m.with_per_node(NGPUS, 1);
        assert_eq!(m.types()[0].amounts, vec![16, 64 * GB, 1]);
    }
}
