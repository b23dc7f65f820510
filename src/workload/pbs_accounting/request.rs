//! The structured values of a job record: `Resource_List.select` chunks and `place`
//! (OpenPBS `doc/man1/pbs_resources.7B`), Torque's `Resource_List.nodes`, and the
//! allocation in `exec_vnode` / `exec_host` (`doc/man1/pbs_job_attributes.7B`), read exactly
//! as written.

use super::record::{find_byte, split_on};
use crate::input::units::parse_size;
use crate::model::place::{Arrangement, Place as Placement, Sharing};
use crate::workload::{Select, SelectPart};

/// One `select` chunk: `N:r=v:r=v` (`N` defaults to 1), resources in their written order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub count: u32,
    pub resources: Vec<(String, String)>,
}

/// `place=arrangement[:sharing][:group=resource]`, each part as written; a part not given is
/// `None` (PBS's defaults are `free` and `shared`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlaceSpec {
    /// `free`, `pack`, `scatter` or `vscatter`.
    pub arrangement: Option<String>,
    /// `excl`, `shared` or `exclhost`.
    pub sharing: Option<String>,
    /// The resource of `group=resource`.
    pub group: Option<String>,
}

/// One `+` part of Torque's `Resource_List.nodes`: `N[:ppn=P][:property...]` or a host
/// name with the same suffixes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSpec {
    /// The node count (1 for a named host).
    pub count: u32,
    /// The host, when the part names one instead of a count.
    pub host: Option<String>,
    /// Processors per node (`ppn`, 1 when not given).
    pub ppn: u32,
    /// The other parts (`gpus=1`, features such as `avx`), as written.
    pub properties: Vec<String>,
}

/// The cores a job held on one host (vnodes `host[N]` are counted as their host).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostCores {
    pub host: String,
    pub cores: u32,
}

fn whole(s: &str, what: &str) -> Result<u32, String> {
    s.parse()
        .map_err(|_| format!("{what} `{s}` is not a whole number"))
}

/// Parse a `select` specification.
pub fn parse_select(s: &str) -> Result<Vec<Chunk>, String> {
    let mut chunks = Vec::new();
    each_chunk(s, |count, resources| {
        let resources = resources
            .map(|(r, v)| (r.to_string(), v.to_string()))
            .collect();
        chunks.push(Chunk { count, resources });
    })?;
    Ok(chunks)
}

/// What a job's request needs of a `select`: its chunks in all, and whether every chunk asks
/// for the same resources (as [`parse_select`] would find them), without building the list.
pub(super) fn select_shape(s: &str) -> Result<(u32, bool), String> {
    let (mut count, mut equal, mut first) = (0u32, true, None);
    each_chunk(s, |n, resources| {
        count = count.saturating_add(n);
        let text = resources.text;
        equal &= *first.get_or_insert(text) == text;
    })?;
    Ok((count, equal))
}

/// A chunk's `r=v` resources, checked: the text after its count, split on `:`.
#[derive(Clone)]
struct Resources<'a> {
    text: &'a str,
}

impl<'a> Iterator for Resources<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        if self.text.is_empty() {
            return None;
        }
        let (part, rest) = self.text.split_once(':').unwrap_or((self.text, ""));
        self.text = rest;
        part.split_once('=')
    }
}

/// Each chunk of a `select`, its count and its resources, every `r=v` checked first.
fn each_chunk<'a>(s: &'a str, mut chunk: impl FnMut(u32, Resources<'a>)) -> Result<(), String> {
    for text in s.split('+') {
        let mut parts = text.split(':');
        let first = parts.next().unwrap_or_default();
        let (count, first, resources) = match first.parse::<u32>() {
            Ok(n) => (n, None, text[first.len()..].strip_prefix(':').unwrap_or("")),
            Err(_) => (1, Some(first), text),
        };
        for p in first.into_iter().chain(parts) {
            if p.split_once('=').is_none_or(|(r, _)| r.is_empty()) {
                return Err(format!("chunk `{text}`: `{p}` is not resource=value"));
            }
        }
        chunk(count, Resources { text: resources });
    }
    Ok(())
}

/// Parse a `place` specification.
pub fn parse_place(s: &str) -> Result<PlaceSpec, String> {
    let mut p = PlaceSpec::default();
    for part in s.split(':') {
        let slot = match part {
            "free" | "pack" | "scatter" | "vscatter" => &mut p.arrangement,
            "excl" | "shared" | "exclhost" => &mut p.sharing,
            _ => match part.strip_prefix("group=") {
                Some(r) if !r.is_empty() => {
                    p.group = Some(r.to_string());
                    continue;
                }
                _ => return Err(format!("`{part}` is not a placement")),
            },
        };
        if slot.replace(part.to_string()).is_some() {
            return Err(format!("`{s}` gives two placements of one kind"));
        }
    }
    Ok(p)
}

/// What a multi-resource machine places for `select` and `place`: each chunk's
/// consumable amounts, `ncpus` 1 where a chunk does not say (the server's
/// `default_chunk.ncpus = 1`, as `qmgr -c 'print server'` shows on a new server), `mem` and
/// any other size in KB ([`parse_size`]), whole numbers as counts; a value that is neither
/// (`host=n1`, `arch=linux`) is not a consumable and is left out. `place` gives the
/// arrangement and sharing (PBS's defaults `free` and `shared`); `group=` is not simulated.
pub fn select_request(select: &str, place: Option<&str>) -> Result<Select, String> {
    let mut parts = Vec::new();
    let mut bad = None;
    each_chunk(select, |count, resources| {
        let mut res: Vec<(String, u64)> = Vec::new();
        for (r, v) in resources {
            let amount = match v.parse::<u64>() {
                Ok(n) => n,
                // A size (`8gb`), else text: no amount.
                Err(_) if v.starts_with(|c: char| c.is_ascii_digit()) => match parse_size(v) {
                    Ok(kb) => kb as u64,
                    Err(e) => {
                        bad.get_or_insert(format!("chunk resource `{r}`: {e}"));
                        continue;
                    }
                },
                Err(_) => continue,
            };
            res.push((r.to_string(), amount));
        }
        if !res.iter().any(|(r, _)| r == "ncpus") {
            res.insert(0, ("ncpus".to_string(), 1));
        }
        parts.push(SelectPart {
            count,
            resources: res,
        });
    })?;
    if let Some(e) = bad {
        return Err(e);
    }
    let mut placement = Placement::default();
    if let Some(p) = place.map(parse_place).transpose()? {
        placement.arrangement = match p.arrangement.as_deref() {
            Some("pack") => Arrangement::Pack,
            Some("scatter") => Arrangement::Scatter,
            Some("vscatter") => Arrangement::VScatter,
            _ => Arrangement::Free,
        };
        placement.sharing = match p.sharing.as_deref() {
            Some("excl") => Sharing::Excl,
            Some("exclhost") => Sharing::ExclHost,
            _ => Sharing::Shared,
        };
    }
    Ok(Select {
        parts,
        place: placement,
    })
}

/// Parse Torque's `nodes` specification.
pub fn parse_nodes(s: &str) -> Result<Vec<NodeSpec>, String> {
    s.split('+')
        .map(|part| {
            let mut it = part.split(':');
            let first = it.next().unwrap_or_default();
            if first.is_empty() {
                return Err(format!("`{part}` has no node count or host"));
            }
            let (count, host) = match first.parse::<u32>() {
                Ok(n) => (n, None),
                Err(_) => (1, Some(first.to_string())),
            };
            let mut spec = NodeSpec {
                count,
                host,
                ppn: 1,
                properties: vec![],
            };
            for p in it {
                match p.strip_prefix("ppn=") {
                    Some(n) => spec.ppn = whole(n, "ppn")?,
                    None => spec.properties.push(p.to_string()),
                }
            }
            Ok(spec)
        })
        .collect()
}

/// The host of a vnode: PBS names the vnodes of a multi-vnode host `host[N]`.
fn host_of(vnode: &str) -> &str {
    match vnode.strip_suffix(']').and_then(|v| v.rsplit_once('[')) {
        Some((host, n)) if !host.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => vnode,
    }
}

fn add(hosts: &mut Vec<HostCores>, host: &str, cores: u32) {
    match hosts.iter_mut().find(|h| h.host == host) {
        Some(h) => h.cores += cores,
        None => hosts.push(HostCores {
            host: host.to_string(),
            cores,
        }),
    }
}

/// The cores per host of `exec_vnode`: `(vn:ncpus=4:mem=..)+(vn2:ncpus=4)`, a chunk split
/// over vnodes written `(a:..+b:..)`; a vnode piece without `ncpus` holds none.
pub fn parse_exec_vnode(s: &str) -> Result<Vec<HostCores>, String> {
    let mut hosts = Vec::new();
    each_exec_vnode(s, |h, c| add(&mut hosts, h, c))?;
    Ok(hosts)
}

/// [`parse_exec_vnode`]'s pieces one by one (host, cores), a host possibly more than once.
pub fn each_exec_vnode(s: &str, mut held: impl FnMut(&str, u32)) -> Result<(), String> {
    each_exec_vnode_piece(s, |vnode, resources| {
        let mut cores = 0;
        for &(r, v) in resources {
            if r == "ncpus" {
                cores = whole(v, "ncpus")?;
            }
        }
        held(host_of(vnode), cores);
        Ok(())
    })
}

/// `exec_vnode`'s (or a reservation's `resv_nodes`') pieces one by one: the vnode as written
/// (`host[2]` stays itself) and its `resource=value` pairs in their written order, a vnode
/// possibly more than once. `piece` may refuse a value; its error is the walk's.
pub fn each_exec_vnode_piece(
    s: &str,
    mut piece: impl FnMut(&str, &[(&str, &str)]) -> Result<(), String>,
) -> Result<(), String> {
    let mut rest = s;
    let mut resources = Vec::new();
    while !rest.is_empty() {
        let inner = rest.strip_prefix('(').and_then(|r| {
            find_byte(r.as_bytes(), b')').map(|close| (&r[..close], &r[close + 1..]))
        });
        let Some((chunk, after)) = inner else {
            return Err(format!("`{rest}` is not a `(vnode:resource=value)` chunk"));
        };
        for part in split_on(chunk, b'+') {
            let mut it = split_on(part, b':');
            let vnode = it.next().unwrap_or_default();
            if vnode.is_empty() {
                return Err(format!("`({chunk})` has a piece without a vnode"));
            }
            resources.clear();
            // A part without `=` is passed with an empty value, for the caller to judge
            // (the accounting reader has always passed over it).
            resources.extend(it.map(|r| r.split_once('=').unwrap_or((r, ""))));
            piece(vnode, &resources)?;
        }
        rest = match after.strip_prefix('+') {
            Some(r) if !r.is_empty() => r,
            Some(_) => return Err(format!("`{s}` ends in `+`")),
            None if after.is_empty() => after,
            None => return Err(format!("`{after}` follows a chunk without a `+`")),
        };
    }
    Ok(())
}

/// The cores per host of `exec_host`: PBS `host/N*C` (C CPUs, 1 when omitted) and Torque
/// `host/N`, `host/A-B` or `host/A,B-C` (one CPU per slot).
pub fn parse_exec_host(s: &str) -> Result<Vec<HostCores>, String> {
    let mut hosts = Vec::new();
    each_exec_host(s, |h, c| add(&mut hosts, h, c))?;
    Ok(hosts)
}

/// [`parse_exec_host`]'s parts one by one (host, cores), a host possibly more than once.
pub fn each_exec_host(s: &str, mut part_cores: impl FnMut(&str, u32)) -> Result<(), String> {
    for part in s.split('+') {
        let Some((host, slots)) = part.rsplit_once('/').filter(|(h, _)| !h.is_empty()) else {
            return Err(format!("`{part}` is not host/slot"));
        };
        let cores = match slots.split_once('*') {
            Some((slot, c)) => {
                whole(slot, "slot")?;
                whole(c, "CPU count")?
            }
            None => {
                let mut n = 0u32;
                for range in slots.split(',') {
                    n += match range.split_once('-') {
                        Some((a, b)) => {
                            let (a, b) = (whole(a, "slot")?, whole(b, "slot")?);
                            if b < a {
                                return Err(format!("slot range `{range}` runs backwards"));
                            }
                            b - a + 1
                        }
                        None => {
                            whole(range, "slot")?;
                            1
                        }
                    };
                }
                n
            }
        };
        part_cores(host, cores);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hc(host: &str, cores: u32) -> HostCores {
        HostCores {
            host: host.into(),
            cores,
        }
    }

    /// `qsub.1B`'s example shape: two chunks of 4 CPUs, 8 GB and a GPU, then one of 1 CPU.
    #[test]
    fn select_and_place_give_the_request_placed() {
        const GB: u64 = 1024 * 1024;
        let s =
            select_request("2:ncpus=4:mem=8gb:ngpus=1+1:ncpus=1", Some("scatter:excl")).unwrap();
        let part = |count, res: &[(&str, u64)]| SelectPart {
            count,
            resources: res.iter().map(|&(r, v)| (r.to_string(), v)).collect(),
        };
        assert_eq!(
            s.parts,
            [
                part(2, &[("ncpus", 4), ("mem", 8 * GB), ("ngpus", 1)]),
                part(1, &[("ncpus", 1)])
            ]
        );
        assert_eq!(
            s.place,
            Placement {
                arrangement: Arrangement::Scatter,
                sharing: Sharing::Excl
            }
        );
        assert_eq!(
            (s.total("ncpus"), s.total("mem"), s.total("ngpus")),
            (9, 16 * GB, 2)
        );
        // No `ncpus`: one (default_chunk); text values are not consumables; no place: free,
        // shared.
        let s = select_request("3:mem=2gb:host=n01:mpiprocs=2", None).unwrap();
        assert_eq!(
            s.parts,
            [part(3, &[("ncpus", 1), ("mem", 2 * GB), ("mpiprocs", 2)])]
        );
        assert_eq!(s.place, Placement::default());
        assert_eq!(
            select_request("1:ncpus=2", Some("pack:exclhost"))
                .unwrap()
                .place,
            Placement {
                arrangement: Arrangement::Pack,
                sharing: Sharing::ExclHost
            }
        );
        assert_eq!(
            select_request("1:ncpus=2:mem=4zb", None),
            Err("chunk resource `mem`: `4zb` has an unknown size unit `zb` (use b, kb, mb, gb, tb, pb or w, kw, mw, gw, tw)".into())
        );
        assert!(select_request("1:ncpus=2", Some("spread")).is_err());
    }

    #[test]
    fn select_and_place_are_read_as_written() {
        assert_eq!(
            parse_select("5:ncpus=13").unwrap(),
            [Chunk {
                count: 5,
                resources: vec![("ncpus".into(), "13".into())]
            }]
        );
        let c = parse_select("ncpus=2:mem=4gb+2:ncpus=8:ngpus=1").unwrap();
        assert_eq!((c[0].count, c[0].resources.len()), (1, 2));
        assert_eq!(c[1].resources[1], ("ngpus".into(), "1".into()));
        assert!(parse_select("2:ncpus").is_err());
        assert_eq!(
            parse_place("scatter:excl").unwrap(),
            PlaceSpec {
                arrangement: Some("scatter".into()),
                sharing: Some("excl".into()),
                group: None
            }
        );
        assert_eq!(
            parse_place("pack:group=switch").unwrap().group.as_deref(),
            Some("switch")
        );
        assert!(parse_place("scatter:pack").is_err());
        assert!(parse_place("spread").is_err());
    }

    #[test]
    fn the_select_shape_is_what_the_parsed_chunks_say() {
        for s in [
            "5:ncpus=13",
            "2:ncpus=4+ncpus=4",
            "2:ncpus=4+1:ncpus=4:mem=1gb",
            "ncpus=2:mem=4gb+2:ncpus=8:ngpus=1",
            "3",
            "3+1:ncpus=1",
            "1:ncpus=2+1:ncpus=2+4:ncpus=2",
            // Bad: every error is parse_select's.
            "",
            "2:",
            "2::ncpus=1",
            "2:ncpus",
            "ncpus=1+",
            "=1",
        ] {
            let want = parse_select(s).map(|c| {
                let count = c.iter().map(|c| c.count).sum::<u32>();
                (count, c.iter().all(|ch| ch.resources == c[0].resources))
            });
            assert_eq!(select_shape(s), want, "{s}");
        }
        assert_eq!(select_shape("2:ncpus=4+ncpus=4"), Ok((3, true)));
        assert_eq!(select_shape("3+1:ncpus=1"), Ok((4, false)));
    }

    #[test]
    fn torque_nodes_count_hosts_and_ppn() {
        let n = parse_nodes("1:ppn=28:gpus=1:default+n07:ppn=2").unwrap();
        assert_eq!(
            n,
            [
                NodeSpec {
                    count: 1,
                    host: None,
                    ppn: 28,
                    properties: vec!["gpus=1".into(), "default".into()]
                },
                NodeSpec {
                    count: 1,
                    host: Some("n07".into()),
                    ppn: 2,
                    properties: vec![]
                }
            ]
        );
        assert!(parse_nodes("2:ppn=x").is_err());
    }

    #[test]
    fn allocations_sum_cores_per_host() {
        // The real sample's split chunk: two vnodes of one host in one pair of parentheses.
        assert_eq!(
            parse_exec_vnode(
                "([hostname_2][1]:mem=190000128kb:ngpus=2:ncpus=24+[hostname_2][0]:ngpus=2:ncpus=24)"
            )
            .unwrap(),
            [hc("[hostname_2]", 48)]
        );
        assert_eq!(
            parse_exec_vnode("(c1:ncpus=13)+(c2:ncpus=13)").unwrap(),
            [hc("c1", 13), hc("c2", 13)]
        );
        assert!(parse_exec_vnode("(c1:ncpus=13)c2").is_err());
        assert!(parse_exec_vnode("(c1:ncpus=13)+").is_err());
        assert_eq!(
            parse_exec_host("c1/0*13+c2/0*13").unwrap(),
            [hc("c1", 13), hc("c2", 13)]
        );
        // Torque: one CPU per slot, slots listed or as ranges.
        assert_eq!(
            parse_exec_host("i02n33/1+i02n33/0+i02n32/0").unwrap(),
            [hc("i02n33", 2), hc("i02n32", 1)]
        );
        assert_eq!(
            parse_exec_host("c1/0-3+c2/0-7,9").unwrap(),
            [hc("c1", 4), hc("c2", 9)]
        );
        assert!(parse_exec_host("c1").is_err());
        assert!(parse_exec_host("c1/3-1").is_err());
    }

    #[test]
    fn exec_vnode_pieces_keep_the_vnode_and_every_resource() {
        // doc/man1/pbs_job_attributes.7B, exec_vnode: `(vnode:res=value...)+...`, a chunk
        // over several vnodes `(a:..+b:..)`; a reservation's resv_nodes has the same form.
        let mut seen = Vec::new();
        each_exec_vnode_piece(
            "(n1[0]:ncpus=2:mem=1gb+n1[1]:ncpus=2)+(n2:ngpus=1)",
            |vn, res| {
                seen.push(format!("{vn} {res:?}"));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(
            seen,
            [
                r#"n1[0] [("ncpus", "2"), ("mem", "1gb")]"#,
                r#"n1[1] [("ncpus", "2")]"#,
                r#"n2 [("ngpus", "1")]"#
            ]
        );
        let refused = each_exec_vnode_piece("(n1:ncpus=x)", |_, _| Err("no".into()));
        assert_eq!(refused, Err("no".to_string()));
    }
}
