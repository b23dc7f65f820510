//! `qmgr -c 'print server'` and `qmgr -c 'print sched'` output: custom resources, queues and
//! their attributes, server and scheduler attributes (`src/cmds/qmgr.c`, `MGR_CMD_PRINT`).
//!
//! The printed form, which this reader takes (and hand-written files in the same syntax):
//! `create resource R`, `set resource R type = T`, `create queue Q`, `set queue Q attr =
//! value`, `set server attr = value`, `set sched [NAME] attr = value`; a list value goes on as
//! `attr += value` lines; values with a space, comma or quote are in `"..."` (or `'...'`);
//! `#` lines are comments. `qmgr -c '...'` around a command and the short verbs (`s`, `c`) are
//! accepted too. Attribute names are case-insensitive in qmgr; they are kept lower-cased.

use super::{Origin, Setting};
use crate::catalog::ResourceType;
use std::collections::BTreeMap;

/// The attributes of one object, lower-cased name → value as printed (unquoted; list values
/// joined with `,`).
pub type Attributes = BTreeMap<String, Setting<String>>;

/// What a `print server` (and `print sched`) output sets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Qmgr {
    pub server: Attributes,
    /// Scheduler attributes; `set sched NAME ...` of a multisched site go under NAME.
    pub sched: BTreeMap<String, Attributes>,
    pub queues: BTreeMap<String, Attributes>,
    /// Custom resources (`create resource`, with `set resource R type = ...`; PBS's default
    /// type is long).
    pub resources: BTreeMap<String, Setting<ResourceType>>,
    /// The nodes of `qmgr -c 'print node @default'` (`create node N`, `set node N attr =
    /// value`), in the order the output lists them.
    pub nodes: Vec<QmgrNode>,
}

/// One node (vnode) of `print node` output.
#[derive(Debug, Clone, PartialEq)]
pub struct QmgrNode {
    pub name: String,
    /// Where the node first appears.
    pub origin: Origin,
    pub attributes: Attributes,
}

/// A line the reader cannot take: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct QmgrError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// The default scheduler's name in [`Qmgr::sched`].
pub const DEFAULT_SCHED: &str = "default";

impl Qmgr {
    /// A server attribute.
    pub fn server_attr(&self, name: &str) -> Option<&Setting<String>> {
        self.server.get(name)
    }
    /// An attribute of the default scheduler.
    pub fn sched_attr(&self, name: &str) -> Option<&Setting<String>> {
        self.sched.get(DEFAULT_SCHED)?.get(name)
    }
    /// A queue's attribute.
    pub fn queue_attr(&self, queue: &str, name: &str) -> Option<&Setting<String>> {
        self.queues.get(queue)?.get(name)
    }

    /// The attributes of node `name`, added (first seen at `origin`) when it is new.
    fn node(&mut self, name: &str, origin: &Origin) -> &mut Attributes {
        // `print node` lists a node's lines together: the last node is the usual one.
        let last = self.nodes.len().checked_sub(1);
        let found = last
            .filter(|&i| self.nodes[i].name == name)
            .or_else(|| self.nodes.iter().position(|n| n.name == name));
        let i = match found {
            Some(i) => i,
            None => {
                self.nodes.push(QmgrNode {
                    name: name.to_string(),
                    origin: origin.clone(),
                    attributes: Attributes::new(),
                });
                self.nodes.len() - 1
            }
        };
        &mut self.nodes[i].attributes
    }
}

/// The prefix of the node attributes a machine is made of.
const AVAILABLE: &str = "resources_available.";

impl Qmgr {
    /// The machine of the nodes' `resources_available` (`print node @default` output):
    /// `ncpus`, `mem` (a PBS size, kept in KB), `ngpus`, and each custom resource of a
    /// numeric type (`long`, `float` as a whole number, `size` in KB) a node gives; the
    /// nodes in the order listed, consecutive nodes of equal resources one node type named
    /// after its first node. `None` when the output lists no node. An error names the line:
    /// a node without `resources_available.ncpus`, or a value that is not a whole amount.
    pub fn machine(&self) -> Result<Option<crate::model::Machine>, QmgrError> {
        use crate::model::machine::{MEM, NCPUS, NGPUS};
        if self.nodes.is_empty() {
            return Ok(None);
        }
        let at = |o: &Origin, message: String| {
            let (file, line) = match o {
                Origin::File { file, line } => (file.clone(), *line),
                other => (other.to_string(), 0),
            };
            QmgrError {
                file,
                line,
                message,
            }
        };
        // (name, count, resources) of each node type met.
        type NodeType = (String, u32, Vec<(String, u64)>);
        let mut types: Vec<NodeType> = Vec::new();
        for n in &self.nodes {
            let mut res = Vec::new();
            for (attr, v) in &n.attributes {
                let Some(r) = attr.strip_prefix(AVAILABLE) else {
                    continue;
                };
                let size = match r {
                    NCPUS | NGPUS => false,
                    MEM => true,
                    _ => match self.resources.get(r).map(|t| t.value) {
                        Some(ResourceType::Size) => true,
                        Some(ResourceType::Long | ResourceType::Float) => false,
                        _ => continue, // strings, booleans, built-ins such as host, arch
                    },
                };
                let amount = if size {
                    crate::input::units::parse_size(&v.value).map(|kb| kb as u64)
                } else {
                    v.value
                        .trim()
                        .parse::<u64>()
                        .map_err(|_| format!("`{}` is not a whole number", v.value))
                };
                let amount = amount
                    .map_err(|e| at(&v.origin, format!("node {} {AVAILABLE}{r}: {e}", n.name)))?;
                res.push((r.to_string(), amount));
            }
            if !res.iter().any(|(r, _)| r == NCPUS) {
                return Err(at(
                    &n.origin,
                    format!("node {}: no {AVAILABLE}{NCPUS}", n.name),
                ));
            }
            match types.last_mut() {
                Some((_, count, last)) if *last == res => *count += 1,
                _ => types.push((n.name.clone(), 1, res)),
            }
        }
        crate::model::Machine::from_types(types)
            .map(Some)
            .map_err(|e| at(&self.nodes[0].origin, e))
    }
}

/// Strip `qmgr -c '...'` around a command.
fn unwrap_qmgr(line: &str) -> &str {
    let s = line.trim();
    let Some(rest) = s.strip_prefix("qmgr") else {
        return s;
    };
    let Some(rest) = rest.trim_start().strip_prefix("-c") else {
        return s;
    };
    unquote(rest.trim())
}

/// One level of matching quotes off a value.
fn unquote(s: &str) -> &str {
    let s = s.trim();
    for q in ['"', '\''] {
        if s.len() >= 2 && s.starts_with(q) && s.ends_with(q) {
            return &s[1..s.len() - 1];
        }
    }
    s
}

/// Parse `print server` / `print sched` output; `file` names it in origins and errors.
pub fn parse_qmgr(text: &str, file: &str) -> Result<Qmgr, QmgrError> {
    let mut q = Qmgr::default();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |message: String| QmgrError {
            file: file.to_string(),
            line,
            message,
        };
        let s = unwrap_qmgr(raw);
        if s.is_empty() || s.starts_with('#') {
            continue;
        }
        let origin = Origin::File {
            file: file.to_string(),
            line,
        };
        let mut words = s.splitn(2, char::is_whitespace);
        let verb = words.next().unwrap_or("").to_ascii_lowercase();
        let rest = words.next().unwrap_or("").trim_start();
        let (object, rest) = rest
            .split_once(char::is_whitespace)
            .map(|(o, r)| (o.to_ascii_lowercase(), r.trim_start()))
            .unwrap_or((rest.to_ascii_lowercase(), ""));
        let object = match object.as_str() {
            "s" | "server" => "server",
            "q" | "queue" => "queue",
            "sched" => "sched",
            "r" | "resource" => "resource",
            "n" | "node" | "nodes" => "node",
            "h" | "hook" => "hook",
            "pbshook" => "hook",
            _ => {
                return Err(err(format!(
                    "`{s}`: expected `create`/`set` of a server, sched, queue, resource or node"
                )));
            }
        };
        match verb.as_str() {
            "c" | "create" => {
                let name = rest.split_whitespace().next().unwrap_or("");
                if name.is_empty() {
                    return Err(err(format!("`{s}`: create without a name")));
                }
                match object {
                    "queue" => {
                        q.queues.entry(name.to_string()).or_default();
                    }
                    "resource" => {
                        q.resources.insert(
                            name.to_string(),
                            Setting::new(ResourceType::Long, origin.clone()),
                        );
                    }
                    "node" => {
                        q.node(name, &origin);
                    }
                    _ => {} // hooks: nothing the simulator reads
                }
            }
            "s" | "set" => {
                // `set server ATTR op VALUE`; `set queue|resource NAME ATTR op VALUE`;
                // `set sched [NAME] ATTR op VALUE`.
                // The first `=` ends the attribute (values may hold `=`); `+=` appends.
                let Some((head, value)) = rest.split_once('=') else {
                    return Err(err(format!("`{s}`: expected `attribute = value`")));
                };
                let (head, append) = match head.strip_suffix('+') {
                    Some(h) => (h, true),
                    None => (head, false),
                };
                let value = unquote(value).to_string();
                let head: Vec<&str> = head.split_whitespace().collect();
                let (target, attr) = match (object, head.as_slice()) {
                    ("server", [a]) => (None, *a),
                    ("sched", [a]) => (Some(DEFAULT_SCHED), *a),
                    ("sched" | "queue" | "resource" | "node" | "hook", [n, a]) => (Some(*n), *a),
                    _ => {
                        return Err(err(format!(
                            "`{s}`: expected `set {object}{} ATTRIBUTE = VALUE`",
                            if object == "server" { "" } else { " NAME" }
                        )));
                    }
                };
                let attr = attr.to_ascii_lowercase();
                let attrs = match (object, target) {
                    ("server", _) => &mut q.server,
                    ("sched", Some(n)) => q.sched.entry(n.to_string()).or_default(),
                    ("queue", Some(n)) => q.queues.entry(n.to_string()).or_default(),
                    ("resource", Some(n)) => {
                        if attr == "type" {
                            let ty: ResourceType = value.parse().map_err(
                                |e: crate::catalog::UnknownResourceType| {
                                    err(format!("resource {n}: {e}"))
                                },
                            )?;
                            q.resources
                                .insert(n.to_string(), Setting::new(ty, origin.clone()));
                        }
                        continue;
                    }
                    ("node", Some(n)) => q.node(n, &origin),
                    _ => continue, // hook attributes
                };
                match attrs.get_mut(&attr) {
                    Some(old) if append => {
                        old.value.push(',');
                        old.value.push_str(&value);
                    }
                    _ => {
                        attrs.insert(attr, Setting::new(value, origin));
                    }
                }
            }
            _ => {
                return Err(err(format!(
                    "`{s}`: not a qmgr command this reader takes (create, set)"
                )));
            }
        }
    }
    Ok(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRINT: &str = r#"#
# Create resources and set their properties.
#
#
# Create and define resource ngpus
#
create resource ngpus
set resource ngpus type = long
set resource ngpus flag = hn
create resource scratch
set resource scratch type = size
#
# Create queues and set their attributes.
#
#
# Create and define queue workq
#
create queue workq
set queue workq queue_type = Execution
set queue workq Priority = 100
set queue workq enabled = True
#
# Create and define queue express
#
create queue express
set queue express queue_type = Execution
set queue express Priority = 150
set queue express backfill_depth = 3
#
# Set server attributes.
#
set server scheduling = True
set server job_sort_formula = "pow(2, -(fairshare_tree_usage/fairshare_perc)) * 1000 + ncpus * 0.5"
set server acl_hosts = a
set server acl_hosts += b
set server backfill_depth = 2
set server eligible_time_enable = True
"#;

    /// `print node` output: consecutive vnodes of equal `resources_available` are one node
    /// type (named after the first), in the order listed; a custom `size` resource in KB,
    /// a string one (`arch`) and the server's `host`/`vnode` not resources at all.
    #[test]
    fn the_nodes_resources_available_are_the_machine() {
        let text = "create resource scratch\nset resource scratch type = size\n\
                    create resource color\nset resource color type = string\n\
                    create node a1\nset node a1 resources_available.ncpus = 4\n\
                    set node a1 resources_available.mem = 8gb\n\
                    set node a1 resources_available.color = red\n\
                    create node a2\nset node a2 resources_available.ncpus = 4\n\
                    set node a2 resources_available.mem = 8gb\n\
                    create node g1\nset node g1 resources_available.ncpus = 16\n\
                    set node g1 resources_available.ngpus = 2\n\
                    set node g1 resources_available.scratch = 1tb\n\
                    create node a3\nset node a3 resources_available.ncpus = 4\n\
                    set node a3 resources_available.mem = 8gb\n";
        let q = parse_qmgr(text, "n").unwrap();
        assert_eq!(q.nodes.len(), 4);
        let m = q.machine().unwrap().unwrap();
        assert_eq!(m.nodes(), 4);
        let t = m.types();
        let names: Vec<(&str, u32)> = t.iter().map(|t| (t.name.as_str(), t.count)).collect();
        assert_eq!(names, [("a1", 2), ("g1", 1), ("a3", 1)]);
        let text = m.to_text();
        assert!(text.contains("mem=8388608kb"), "{text}");
        assert!(text.contains("scratch=1073741824"), "{text}");
        assert!(!text.contains("color"), "{text}");
        assert_eq!(
            parse_qmgr("set server scheduling = True\n", "s")
                .unwrap()
                .machine()
                .unwrap(),
            None
        );
    }

    #[test]
    fn print_server_output_reads() {
        let q = parse_qmgr(PRINT, "qmgr.txt").unwrap();
        assert_eq!(
            q.server_attr("job_sort_formula").map(|s| s.value.as_str()),
            Some("pow(2, -(fairshare_tree_usage/fairshare_perc)) * 1000 + ncpus * 0.5")
        );
        assert_eq!(q.server_attr("acl_hosts").unwrap().value, "a,b");
        assert_eq!(q.server_attr("backfill_depth").unwrap().value, "2");
        assert_eq!(q.queue_attr("workq", "priority").unwrap().value, "100");
        assert_eq!(
            q.queue_attr("express", "backfill_depth").unwrap().value,
            "3"
        );
        assert_eq!(q.resources["ngpus"].value, ResourceType::Long);
        assert_eq!(q.resources["scratch"].value, ResourceType::Size);
        assert_eq!(
            q.server_attr("job_sort_formula")
                .unwrap()
                .origin
                .to_string(),
            "qmgr.txt:33"
        );
    }

    #[test]
    fn sched_attributes_and_qmgr_c_wrappers() {
        let q = parse_qmgr(
            "set sched job_sort_formula_threshold = 10\n\
             qmgr -c 'set sched sc1 job_sort_formula_threshold = 3'\n\
             s server job_sort_formula=walltime\n",
            "x",
        )
        .unwrap();
        assert_eq!(
            q.sched_attr("job_sort_formula_threshold").unwrap().value,
            "10"
        );
        assert_eq!(q.sched["sc1"]["job_sort_formula_threshold"].value, "3");
        assert_eq!(q.server_attr("job_sort_formula").unwrap().value, "walltime");
    }

    #[test]
    fn lines_it_cannot_take_say_where() {
        let e = parse_qmgr("set server scheduling = True\nlist server\n", "q").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().starts_with("q:2: `list server`"), "{e}");
        let e = parse_qmgr("set server scheduling True\n", "q").unwrap_err();
        assert!(e.message.contains("attribute = value"), "{e}");
        let e = parse_qmgr("set resource r type = colour\n", "q").unwrap_err();
        assert!(e.message.contains("unknown resource type"), "{e}");
    }
}
