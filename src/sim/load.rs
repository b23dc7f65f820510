//! Loading a workload file, the reader chosen by its name.

use super::swf::load_swf;
use super::workload::{Workload, WorkloadError, parse_json_jobs, read_text};
use std::path::Path;

/// Load a workload by extension: `.json`/`.jsonl` → JSON job list, anything else → SWF.
pub fn load_workload(path: &Path) -> Result<Workload, WorkloadError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.trim_end_matches(".gz");
    if stem.ends_with(".json") || stem.ends_with(".jsonl") {
        let (text, sha) = read_text(path)?;
        let mut w = parse_json_jobs(&text, &path.display().to_string())?;
        w.name = name;
        w.sha256 = sha;
        Ok(w)
    } else {
        load_swf(path)
    }
}
