//! Tidy: the architecture rules the compiler does not check (after rust-analyzer's `tidy.rs`).
//!
//! Every `src/**/*.rs` file is parsed with `syn`; `#[cfg(test)]` items are left out (tests may
//! reach anywhere). The rules, each listed in ARCHITECTURE.md:
//! - every top-level module has a layer ([`LAYERS`], one ordered list), and uses only the
//!   layers below its own: the formula compiler never uses `jobs` or `sim`, a scheduler's
//!   folder never the simulator, the fairshare trees never the job rows or the ranker, ...;
//! - only `src/formula/jit/` uses cranelift, only `src/formula/diag.rs` ariadne, only the
//!   binary (`src/bin/`) clap and indicatif;
//! - the library never prints (`print!`, `println!`, `eprint!`, `eprintln!`, `dbg!`,
//!   `std::io::stdout`/`stderr`);
//! - the file-level import graph is a DAG, in the library, the binary and the Python
//!   package's native module (`python/src`). A `use` or a path
//!   in code is an edge to the file that defines what it names; `pub use` re-exports are seen
//!   through (they are a module's surface, not a dependency of its code).
//!
//! - the integration tests are two binaries and this file (`tests/it/`, `tests/memory/`,
//!   `tests/tidy.rs`): a new file directly in `tests/` would be one more to build and link.
//!
//! And one rule of wording: code, tests, docs and examples name no work item by number (the
//! word `issue` or `stop` and a number); they say what the behaviour is and why.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// One parsed source file of a crate.
struct SourceFile {
    /// Relative to the repository, e.g. `src/formula/ir.rs`.
    path: String,
    /// Its module path inside its crate (`["formula", "ir"]`).
    module: Vec<String>,
    ast: syn::File,
}

/// A use of something: where it is (file and line) and the path it names.
#[derive(Debug, Clone)]
struct Reference {
    line: usize,
    /// Absolute inside the crate (first segment not `crate`), or external (`@cranelift_codegen`).
    path: Vec<String>,
    reexport: bool,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The files of one crate: the library (`src/` without `src/bin/`) or the binary.
fn crate_files(root: &Path) -> Vec<SourceFile> {
    let base = repo();
    let mut paths = Vec::new();
    rust_files(root, &mut paths);
    paths
        .into_iter()
        .filter(|p| !(root.ends_with("src") && p.starts_with(root.join("bin"))))
        .map(|p| {
            let rel = p.strip_prefix(root).unwrap();
            let mut module: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                module.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                module.pop();
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            SourceFile {
                path: p
                    .strip_prefix(&base)
                    .or_else(|_| p.strip_prefix(root.parent().unwrap()))
                    .unwrap()
                    .display()
                    .to_string(),
                module,
                ast,
            }
        })
        .collect()
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// Collects the references and the printing of one file.
struct Collector<'a> {
    /// The module being visited: the file's, plus any inline `mod x { }` around the item.
    module: Vec<String>,
    /// Child modules of this file's module (`use ir::Span` inside `formula/mod.rs`).
    children: &'a BTreeSet<String>,
    refs: Vec<Reference>,
    prints: Vec<(usize, String)>,
}

impl Collector<'_> {
    /// The absolute form of a path that starts with `crate`, `super`, `self` or a child module;
    /// `@name` for an external crate; `None` for anything else (std, locals, prelude).
    fn absolute(&self, segments: &[String]) -> Option<Vec<String>> {
        let first = segments.first()?;
        let mut out: Vec<String> = match first.as_str() {
            "crate" => Vec::new(),
            "self" => self.module.clone(),
            "super" => {
                let mut m = self.module.clone();
                let mut rest = segments;
                while rest.first().is_some_and(|s| s == "super") {
                    m.pop();
                    rest = &rest[1..];
                }
                m.extend(rest.iter().cloned());
                return Some(m);
            }
            s if self.children.contains(s) => {
                let mut m = self.module.clone();
                m.push(s.to_string());
                m.extend(segments[1..].iter().cloned());
                return Some(m);
            }
            "std" | "core" | "alloc" | "Self" => return None,
            s if s.chars().next().is_some_and(|c| c.is_ascii_lowercase()) && segments.len() > 1 => {
                return Some(vec![format!("@{s}")]);
            }
            _ => return None,
        };
        out.extend(segments[1..].iter().cloned());
        Some(out)
    }

    fn add(&mut self, line: usize, segments: &[String], reexport: bool) {
        if let Some(path) = self.absolute(segments) {
            self.refs.push(Reference {
                line,
                path,
                reexport,
            });
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree, reexport: bool) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree, reexport);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let line = n.ident.span().start().line;
                if n.ident == "self" {
                    let p = prefix.clone();
                    self.add(line, &p, reexport);
                } else {
                    prefix.push(n.ident.to_string());
                    let p = prefix.clone();
                    self.add(line, &p, reexport);
                    prefix.pop();
                }
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                let p = prefix.clone();
                self.add(r.ident.span().start().line, &p, reexport);
                prefix.pop();
            }
            syn::UseTree::Glob(g) => {
                let p = prefix.clone();
                self.add(g.star_token.span.start().line, &p, reexport);
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t, reexport);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Enum(e) => &e.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Macro(m) => &m.attrs,
            _ => &[],
        };
        if is_cfg_test(attrs) {
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.module.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.module.pop();
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let reexport = !matches!(u.vis, syn::Visibility::Inherited);
        self.use_tree(&mut Vec::new(), &u.tree, reexport);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 1 {
            let line = p.segments[0].ident.span().start().line;
            if segments[..2] == ["std", "io"]
                && matches!(
                    segments.get(2).map(String::as_str),
                    Some("stdout" | "stderr")
                )
            {
                self.prints.push((line, segments.join("::")));
            }
            self.add(line, &segments, false);
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if let Some(name) = m.path.get_ident() {
            let name = name.to_string();
            if matches!(
                name.as_str(),
                "print" | "println" | "eprint" | "eprintln" | "dbg"
            ) {
                self.prints.push((name_line(&m.path), format!("{name}!")));
            }
        }
        syn::visit::visit_macro(self, m);
    }
}

fn name_line(p: &syn::Path) -> usize {
    p.segments[0].ident.span().start().line
}

/// One crate, analysed: per file its references and prints.
struct Analysis {
    files: Vec<SourceFile>,
    refs: Vec<Vec<Reference>>,
    prints: Vec<Vec<(usize, String)>>,
    /// module path → file index.
    modules: BTreeMap<Vec<String>, usize>,
}

fn analyse(root: &Path) -> Analysis {
    let files = crate_files(root);
    let modules: BTreeMap<Vec<String>, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.module.clone(), i))
        .collect();
    let mut refs = Vec::new();
    let mut prints = Vec::new();
    for f in &files {
        let children: BTreeSet<String> = modules
            .keys()
            .filter(|m| m.len() == f.module.len() + 1 && m.starts_with(&f.module))
            .map(|m| m.last().unwrap().clone())
            .collect();
        let mut c = Collector {
            module: f.module.clone(),
            children: &children,
            refs: Vec::new(),
            prints: Vec::new(),
        };
        c.visit_file(&f.ast);
        refs.push(c.refs);
        prints.push(c.prints);
    }
    Analysis {
        files,
        refs,
        prints,
        modules,
    }
}

impl Analysis {
    /// The file that defines what `path` names, seeing through `pub use` re-exports.
    fn resolve(&self, path: &[String], depth: usize) -> Option<usize> {
        if path.first().is_some_and(|s| s.starts_with('@')) {
            return None;
        }
        let (len, &file) = (0..=path.len())
            .rev()
            .find_map(|n| self.modules.get(&path[..n]).map(|f| (n, f)))?;
        let rest = &path[len..];
        if depth < 8
            && let Some(name) = rest.first()
        {
            for r in &self.refs[file] {
                if r.reexport && r.path.last() == Some(name) && r.path.as_slice() != path {
                    let mut target = r.path.clone();
                    target.extend(rest[1..].iter().cloned());
                    return self.resolve(&target, depth + 1);
                }
            }
        }
        Some(file)
    }

    /// File-level edges (from, to) → the first line that makes each.
    fn edges(&self) -> BTreeMap<(usize, usize), usize> {
        let mut edges = BTreeMap::new();
        for (from, refs) in self.refs.iter().enumerate() {
            for r in refs.iter().filter(|r| !r.reexport) {
                if let Some(to) = self.resolve(&r.path, 0)
                    && to != from
                {
                    edges.entry((from, to)).or_insert(r.line);
                }
            }
        }
        edges
    }

    /// Every import cycle, as a list of `file:line → file` steps.
    fn cycles(&self) -> Vec<String> {
        let edges = self.edges();
        let n = self.files.len();
        let mut adj = vec![Vec::new(); n];
        for &(a, b) in edges.keys() {
            adj[a].push(b);
        }
        strongly_connected(&adj)
            .into_iter()
            .filter(|c| c.len() > 1)
            .map(|component| {
                let set: BTreeSet<usize> = component.iter().copied().collect();
                let mut steps: Vec<String> = edges
                    .iter()
                    .filter(|((a, b), _)| set.contains(a) && set.contains(b))
                    .map(|((a, b), line)| {
                        format!("{}:{line} -> {}", self.files[*a].path, self.files[*b].path)
                    })
                    .collect();
                steps.sort();
                steps.join("\n    ")
            })
            .collect()
    }

    /// `file:line: what` for every reference to an external crate in a file `allowed` refuses.
    fn external_uses(&self, krate: &str, allowed: impl Fn(&str) -> bool) -> Vec<String> {
        let key = format!("@{krate}");
        let mut out = Vec::new();
        for (i, refs) in self.refs.iter().enumerate() {
            if allowed(&self.files[i].path) {
                continue;
            }
            if let Some(r) = refs.iter().find(|r| r.path[0] == key) {
                out.push(format!("{}:{}: uses {krate}", self.files[i].path, r.line));
            }
        }
        out
    }
}

/// Tarjan's strongly connected components (iterative).
fn strongly_connected(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adj.len();
    let (mut index, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on_stack, mut stack, mut out) = (vec![false; n], Vec::new(), Vec::new());
    let mut next = 0;
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0usize)];
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if *k == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = adj[v].get(*k) {
                *k += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                loop {
                    let w = stack.pop().unwrap();
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

fn library() -> Analysis {
    analyse(&repo().join("src"))
}

fn binary() -> Analysis {
    analyse(&repo().join("src/bin/jobsort"))
}

fn fail_if_any(rule: &str, violations: Vec<String>) {
    assert!(
        violations.is_empty(),
        "{rule}:\n  {}",
        violations.join("\n  ")
    );
}

/// The library's top-level modules, bottom up, a layer a line: a module uses only the modules
/// of the layers below its own, never another of its layer nor one above. Every top-level
/// module is listed (a new one fails [`every_top_level_module_has_a_layer`] until it is), so
/// this list is the architecture's one statement of who may use whom; ARCHITECTURE.md's
/// "Layers" repeats it in words.
const LAYERS: &[&[&str]] = &[
    // The schema: keywords, resources and their types; the columns a formula reads.
    &["catalog"],
    &["table"],
    // What every reader of a site's files shares: formats, units, host lists; and the one
    // atomic writer of the files jobsort produces.
    &["input", "files"],
    // The formula compiler and its evaluators.
    &["formula"],
    // The one job order and the fairshare trees: each alone.
    &["rank", "fairshare"],
    // The C ABI, over formula and rank only (the lean library embedders link).
    &["capi"],
    // The vocabulary the readers, the schedulers' folders and the simulator share: the
    // machine, `place=`, dispatch policies.
    &["model"],
    // Traces and site logs (SWF, JSON job lists, sacct, Flux, PBS accounting) into jobs.
    &["workload"],
    // Job rows: job files (and every workload format) into columns, their fairshare values.
    &["jobs"],
    // Each scheduler's own rules: configuration, priority, limits, its jobs' outputs, and its
    // model in simulated time.
    &["pbs", "slurm", "flux"],
    // Simulation, recording, replay, metrics.
    &["sim"],
    // A site's snapshot run forward: why each job waits and when it starts.
    &["forecast"],
];

/// The layer of a top-level module (its index in [`LAYERS`]).
fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level modules of an analysed library that [`LAYERS`] does not list.
fn unlisted_modules(lib: &Analysis) -> Vec<String> {
    let mut seen = BTreeSet::new();
    for f in &lib.files {
        if let Some(top) = f.module.first()
            && layer_of(top).is_none()
            && seen.insert(top.clone())
        {
            seen.insert(top.clone());
        }
    }
    seen.into_iter()
        .map(|m| format!("src/{m}: a top-level module with no layer in tests/tidy.rs LAYERS"))
        .collect()
}

fn layer_violations(lib: &Analysis) -> Vec<String> {
    let mut bad = Vec::new();
    for (i, f) in lib.files.iter().enumerate() {
        let Some(top) = f.module.first() else {
            continue;
        };
        let Some(layer) = layer_of(top) else {
            continue;
        };
        for r in &lib.refs[i] {
            // Seen through re-exports: `crate::JobTable` is wherever it is defined.
            let Some(target) = lib.resolve(&r.path, 0) else {
                continue;
            };
            let Some(used) = lib.files[target].module.first() else {
                continue;
            };
            if used == top {
                continue;
            }
            // An unlisted module is reported by `unlisted_modules`; using it is not a layer
            // violation on top of that.
            if layer_of(used).is_some_and(|l| l >= layer) {
                bad.push(format!(
                    "{}:{}: uses crate::{} ({top} may use only the layers below it)",
                    f.path,
                    r.line,
                    r.path.join("::")
                ));
            }
        }
    }
    bad
}

#[test]
fn every_top_level_module_has_a_layer() {
    fail_if_any(
        "a top-level module is in no layer",
        unlisted_modules(&library()),
    );
}

#[test]
fn each_layer_uses_only_the_layers_below_it() {
    fail_if_any(
        "a module uses a layer it must not",
        layer_violations(&library()),
    );
}

#[test]
fn heavy_dependencies_stay_in_their_module() {
    let lib = library();
    let mut bad = Vec::new();
    for krate in [
        "cranelift_codegen",
        "cranelift_frontend",
        "cranelift_module",
        "cranelift_jit",
        "cranelift_native",
    ] {
        bad.extend(lib.external_uses(krate, |p| p.starts_with("src/formula/jit")));
    }
    bad.extend(lib.external_uses("ariadne", |p| p == "src/formula/diag.rs"));
    for krate in ["clap", "indicatif"] {
        bad.extend(lib.external_uses(krate, |_| false));
    }
    fail_if_any("a dependency used outside the module that owns it", bad);
}

#[test]
fn the_library_never_prints() {
    let lib = library();
    let bad: Vec<String> = lib
        .files
        .iter()
        .zip(&lib.prints)
        .flat_map(|(f, prints)| {
            prints
                .iter()
                .map(move |(line, what)| format!("{}:{line}: {what}", f.path))
        })
        .collect();
    fail_if_any("the library prints (only src/bin/ may)", bad);
}

#[test]
fn the_file_import_graph_is_a_dag() {
    let mut cycles = library().cycles();
    cycles.extend(binary().cycles());
    cycles.extend(analyse(&repo().join("python/src")).cycles());
    fail_if_any("import cycles (library, binary, Python module)", cycles);
}

/// Where a reference to a work item by number starts in `text`: the word `issue` or `stop`
/// (any case, `-s` too) and a number after spaces, a hyphen or `#`, or on the next line after
/// a comment's leader (`//`, `///`, `//!`, `#`, `*`, `>`), so a reference wrapped in a doc
/// comment is found too. Returns the 1-based line of each and the text from the word on.
fn numbered_references(text: &str) -> Vec<(usize, String)> {
    let b = text.as_bytes();
    let word = |i: usize| {
        b.get(i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        let len = [&b"issue"[..], b"stop"]
            .iter()
            .find(|w| rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w))
            .map(|w| w.len());
        let Some(mut j) = len.filter(|_| i == 0 || !word(i - 1)).map(|n| i + n) else {
            i += 1;
            continue;
        };
        if b.get(j).is_some_and(|c| c.eq_ignore_ascii_case(&b's')) {
            j += 1;
        }
        let blank = |j: &mut usize| {
            while matches!(b.get(*j), Some(b' ' | b'\t')) {
                *j += 1;
            }
        };
        let start = j;
        blank(&mut j);
        if b.get(j) == Some(&b'-') && j == start {
            j += 1;
        } else if b.get(j) == Some(&b'\n') || b[j..].starts_with(b"\r\n") {
            j += if b[j] == b'\r' { 2 } else { 1 };
            blank(&mut j);
            while matches!(b.get(j), Some(b'/' | b'!' | b'#' | b'*' | b'>')) {
                j += 1;
            }
            blank(&mut j);
        }
        if b.get(j) == Some(&b'#') {
            j += 1;
        }
        let digits = b[j.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if j > start && digits > 0 && !word(j + digits) {
            let line = text[..i].matches('\n').count() + 1;
            let end = j + digits;
            out.push((line, text[i..end].replace(['\n', '\r'], " ")));
            i = end;
        } else {
            i += 1;
        }
    }
    out
}

/// Every file under `dir`, sorted (caches and hidden folders left out).
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy();
        if name.starts_with('.') || name == "__pycache__" || name == "target" {
            continue;
        }
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The files whose words the rule covers: the sources, the tests' Rust files (not their data),
/// the Python package, `contrib/`, `docs/`, the README and ARCHITECTURE.md, the benches,
/// examples and developer tools.
fn worded_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [
        "src",
        "python/src",
        "python/jobsort",
        "python/tests",
        "contrib",
        "docs",
        "benches",
        "examples",
        "tools",
    ] {
        files_under(&root.join(dir), &mut out);
    }
    let mut tests = Vec::new();
    files_under(&root.join("tests"), &mut tests);
    out.extend(tests.into_iter().filter(|p| {
        !p.starts_with(root.join("tests/data")) && p.extension().is_some_and(|e| e == "rs")
    }));
    out.extend(["README.md", "ARCHITECTURE.md"].map(|f| root.join(f)));
    out
}

/// `file:line: text` for every numbered reference in the covered files under `root`; files
/// that are not UTF-8 text are skipped.
fn numbered_reference_offenders(root: &Path) -> Vec<String> {
    let mut bad = Vec::new();
    for p in worded_files(root) {
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let rel = p.strip_prefix(root).unwrap_or(&p).display().to_string();
        for (line, what) in numbered_references(&text) {
            bad.push(format!("{rel}:{line}: {what}"));
        }
    }
    bad
}

#[test]
fn no_issue_or_stop_numbers() {
    fail_if_any(
        "a work item named by number (say what the behaviour is and why instead)",
        numbered_reference_offenders(&repo()),
    );
}

/// The wording rule must be able to fail, and must not fail on the plain words.
#[test]
fn numbered_references_are_caught() {
    let (issue, stop) = ("Issue", "stop");
    let planted = format!(
        "fn f() {{}}\n/// {issue} 18 item 4: a heading\n/// node types: {}\n///   15) and more\n\
         ## Faults off ({stop} 34, {} 19)\nthe {stop}-33 pair, {}S #7\n",
        issue.to_lowercase(),
        issue.to_lowercase(),
        stop.to_uppercase(),
    );
    let found = numbered_references(&planted);
    let lines: Vec<usize> = found.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [2, 3, 5, 5, 6, 6], "{found:?}");
    assert_eq!(found[1].1, format!("{} ///   15", issue.to_lowercase()));
    let fine = format!(
        "the scan {stop}s at 3 jobs; {stop} the run after 2 s; session_id=4; tissue 5;\n\
         an {}_15 name; {stop}s\nwhen 3 more; {}d 12 times; {stop} 3x\n",
        issue.to_lowercase(),
        issue.to_lowercase(),
    );
    let none = numbered_references(&fine);
    assert!(none.is_empty(), "{none:?} in {fine}");

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (file, text) in [
        ("src/a.rs", format!("// {issue} 15\n")),
        ("tests/b.rs", format!("\n// {stop} 33\n")),
        ("tests/data/c.rs", format!("// {issue} 15\n")),
        ("tests/d.txt", format!("{issue} 15\n")),
        ("docs/e.md", format!("# x ({stop} 30)\n")),
        ("README.md", format!("{issue} 1\n")),
        ("other/f.rs", format!("// {issue} 15\n")),
    ] {
        let p = root.join(file);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    std::fs::write(root.join("docs/g.bin"), [0xff, 0xfe, b'1']).unwrap();
    assert_eq!(
        numbered_reference_offenders(root),
        [
            format!("src/a.rs:1: {issue} 15"),
            format!("docs/e.md:1: {stop} 30"),
            format!("tests/b.rs:2: {stop} 33"),
            format!("README.md:1: {issue} 1"),
        ]
    );
}

/// The test binaries: every test is a module of `tests/it/` (or, measuring memory, of
/// `tests/memory/`), so that `cargo test` builds and links two, with this file a third.
const TEST_BINARIES: [&str; 3] = ["tests/it/main.rs", "tests/memory/main.rs", "tests/tidy.rs"];

/// The test targets cargo finds in `root/tests` (a `.rs` file directly in it, a folder with
/// a `main.rs`) that are not [`TEST_BINARIES`].
fn extra_test_binaries(root: &Path) -> Vec<String> {
    let mut entries: Vec<_> = std::fs::read_dir(root.join("tests"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    let mut bad = Vec::new();
    for p in entries {
        let target = if p.is_dir() { p.join("main.rs") } else { p };
        if !target.is_file() || target.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = target.strip_prefix(root).unwrap().display().to_string();
        if !TEST_BINARIES.contains(&rel.as_str()) {
            bad.push(format!(
                "{rel}: a test binary of its own (make it a module of tests/it/: `mod NAME;` in \
                 tests/it/main.rs)"
            ));
        }
    }
    bad
}

#[test]
fn the_integration_tests_are_two_binaries() {
    fail_if_any(
        "a test file outside the test binaries",
        extra_test_binaries(&repo()),
    );
}

/// The checks above must be able to fail: a planted violation of each is caught.
#[test]
fn tidy_catches_planted_violations() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("formula")).unwrap();
    std::fs::create_dir_all(src.join("sim")).unwrap();
    std::fs::create_dir_all(src.join("slurm")).unwrap();
    std::fs::write(
        src.join("lib.rs"),
        "pub mod formula;\npub mod gadgets;\npub mod sim;\npub mod slurm;\n",
    )
    .unwrap();
    std::fs::write(src.join("slurm/mod.rs"), "use crate::sim::Thing;\n").unwrap();
    std::fs::write(src.join("gadgets.rs"), "pub struct Gadget;\n").unwrap();
    std::fs::write(
        src.join("formula/mod.rs"),
        "pub mod a;\npub mod b;\nuse crate::sim::Thing;\nfn f() { println!(\"x\"); let _ = cranelift_codegen::ir::Type; }\n",
    )
    .unwrap();
    std::fs::write(
        src.join("formula/a.rs"),
        "use super::b::B;\npub struct A;\n",
    )
    .unwrap();
    std::fs::write(
        src.join("formula/b.rs"),
        "use super::a::A;\npub struct B;\n",
    )
    .unwrap();
    std::fs::write(
        src.join("sim/mod.rs"),
        "pub use inner::Thing;\nmod inner { pub struct Thing; }\n#[cfg(test)]\nmod tests { fn t() { println!(\"fine in tests\"); } }\n",
    )
    .unwrap();
    let a = analyse(&src);
    let cycles = a.cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(cycles[0].contains("src/formula/a.rs") && cycles[0].contains("src/formula/b.rs"));
    let prints: Vec<_> = a.prints.iter().flatten().collect();
    assert_eq!(prints.len(), 1, "{prints:?}");
    assert_eq!(
        a.external_uses("cranelift_codegen", |p| p.contains("formula/jit"))
            .len(),
        1
    );
    let layers = layer_violations(&a);
    assert_eq!(layers.len(), 2, "{layers:?}");
    assert!(layers[0].starts_with("src/formula/mod.rs:3: uses crate::sim::Thing"));
    // A scheduler's folder reaching up into the simulator.
    assert!(
        layers[1].starts_with("src/slurm/mod.rs:1: uses crate::sim::Thing"),
        "{layers:?}"
    );
    assert_eq!(
        unlisted_modules(&a),
        ["src/gadgets: a top-level module with no layer in tests/tidy.rs LAYERS"]
    );
    // A test file beside the binaries, and a folder that is one more binary; data is none.
    let tests = dir.path().join("tests");
    for f in [
        "it/main.rs",
        "it/a.rs",
        "stray.rs",
        "suite/main.rs",
        "data/x.rs",
        "notes.md",
    ] {
        std::fs::create_dir_all(tests.join(f).parent().unwrap()).unwrap();
        std::fs::write(tests.join(f), "").unwrap();
    }
    let extra = extra_test_binaries(dir.path());
    assert_eq!(extra.len(), 2, "{extra:?}");
    assert!(extra[0].starts_with("tests/stray.rs: a test binary of its own"));
    assert!(extra[1].starts_with("tests/suite/main.rs: a test binary of its own"));
}
