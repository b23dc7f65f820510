//! `sacctmgr`'s parsable output (`-P`, `--parsable2`; or `-p`, `--parsable`, which ends every
//! line with a `|` too), the one table reader behind [`super::assoc`] (`sacctmgr show assoc`)
//! and [`super::qos`] (`sacctmgr show qos`).
//!
//! `print_fields_header` writes a first line of column titles and `print_fields_*` one line
//! per record, the fields `|`-separated (`src/common/print_fields.c`). The titles are
//! `_get_print_field`'s (`src/sacctmgr/common.c`), whatever the `format=` spelling: `MaxJobsPU`
//! for `MaxJobsPerUser`, `MaxTRESPerNode` for `MaxTRESPerN`, `Def QOS` for `DefaultQOS`.
//! An unset or unlimited number (`NO_VAL`, `INFINITE`) is an empty field
//! (`print_fields_uint`, `print_fields_time`); a TRES list is `name=count,...` with memory in
//! MB, a unit when it divides (`mem=500G`: `slurmdb_make_tres_string_from_simple`,
//! `convert_num_unit` from `UNIT_MEGA`); a time is `mins2time_str`'s `[days-]hh:mm:ss`.

use super::conf::{Minutes, time_str2mins};
use super::jobs::parse_tres_str;
use std::collections::BTreeMap;

/// An error in `sacctmgr` output, with the file and line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct SacctmgrError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// A `-P`/`-p` table: its column titles and rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub file: String,
    /// The header's line (1-based).
    pub header_line: usize,
    cols: Vec<String>,
    pub rows: Vec<Row>,
}

/// One record: its line (1-based) and fields, as many as the header's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub line: usize,
    fields: Vec<String>,
}

impl Table {
    /// Read sacctmgr's parsable output: a header, then one row per line (blank lines
    /// skipped); a row with fewer fields than the header is an error.
    pub fn parse(text: &str, file: &str) -> Result<Table, SacctmgrError> {
        let err = |line: usize, message: String| SacctmgrError {
            file: file.to_string(),
            line,
            message,
        };
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let Some((hl, header)) = lines.next() else {
            return Err(err(
                1,
                "empty: no header of column titles (sacctmgr -P prints one first)".into(),
            ));
        };
        let trailing = header.ends_with('|');
        let split = |l: &str| -> Vec<String> {
            let l = if trailing {
                l.strip_suffix('|').unwrap_or(l)
            } else {
                l
            };
            l.split('|').map(|f| f.trim().to_string()).collect()
        };
        let cols = split(header);
        let mut rows = Vec::new();
        for (i, line) in lines {
            let fields = split(line);
            if fields.len() < cols.len() {
                return Err(err(
                    i + 1,
                    format!("{} fields, the header has {}", fields.len(), cols.len()),
                ));
            }
            rows.push(Row {
                line: i + 1,
                fields,
            });
        }
        Ok(Table {
            file: file.to_string(),
            header_line: hl + 1,
            cols,
            rows,
        })
    }

    /// The column titled `title` (any case).
    pub fn col(&self, title: &str) -> Option<usize> {
        self.cols.iter().position(|c| c.eq_ignore_ascii_case(title))
    }

    /// An error at `line` of this table's file.
    pub fn err(&self, line: usize, message: impl Into<String>) -> SacctmgrError {
        SacctmgrError {
            file: self.file.clone(),
            line,
            message: message.into(),
        }
    }

    /// The rows without those of other clusters than `cluster` (when there is a `Cluster`
    /// column and a cluster is given).
    pub fn rows_of(&self, cluster: Option<&str>) -> impl Iterator<Item = &Row> {
        let c = self.col("Cluster");
        self.rows.iter().filter(move |r| match (c, cluster) {
            (Some(c), Some(want)) => {
                r.fields[c].is_empty() || r.fields[c].eq_ignore_ascii_case(want)
            }
            _ => true,
        })
    }

    /// Which of `titles` the table has no column for (a `format=` that left them out: what
    /// they say is unknown, not unset).
    pub fn lacking(&self, titles: &[&'static str]) -> Vec<&'static str> {
        titles
            .iter()
            .copied()
            .filter(|t| self.col(t).is_none())
            .collect()
    }

    /// A row's `Priority` (empty: none), as sacctmgr prints a `uint32`.
    pub fn priority(&self, row: &Row) -> Result<Option<u32>, SacctmgrError> {
        match self.get(row, self.col("Priority")) {
            "" => Ok(None),
            s => s.parse::<u32>().map(Some).map_err(|_| {
                self.err(
                    row.line,
                    format!("Priority `{s}` is not a priority (0..4294967295)"),
                )
            }),
        }
    }

    /// Field `col` of `row` (empty when the column is not there).
    pub fn get<'a>(&self, row: &'a Row, col: Option<usize>) -> &'a str {
        col.map_or("", |c| row.fields[c].as_str())
    }

    /// A count column (`GrpJobs`, `MaxJobsPU`): `None` when empty (unset, unlimited).
    pub fn count(&self, row: &Row, title: &str) -> Result<Option<u64>, SacctmgrError> {
        match self.get(row, self.col(title)) {
            "" => Ok(None),
            s => s
                .parse()
                .map(Some)
                .map_err(|_| self.err(row.line, format!("{title} `{s}` is not a count"))),
        }
    }

    /// A TRES column (`GrpTRES`, `MaxTRESPU`): lower-case TRES names (`cpu`, `mem`, `node`,
    /// `billing`, `gres/gpu`) and counts, memory in MB.
    pub fn tres(&self, row: &Row, title: &str) -> Result<BTreeMap<String, u64>, SacctmgrError> {
        let s = self.get(row, self.col(title));
        Ok(parse_tres_str(s)
            .map_err(|m| self.err(row.line, format!("{title} `{s}`: {m}")))?
            .into_iter()
            .collect())
    }

    /// A time column (`MaxWall`) in minutes: `None` when empty or unlimited.
    pub fn minutes(&self, row: &Row, title: &str) -> Result<Option<u32>, SacctmgrError> {
        match self.get(row, self.col(title)) {
            "" => Ok(None),
            s => match time_str2mins(s) {
                Some(Minutes::Finite(m)) => Ok(Some(m)),
                Some(Minutes::Infinite) => Ok(None),
                None => Err(self.err(
                    row.line,
                    format!("{title} `{s}` is not a time ([days-]hours:minutes:seconds)"),
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsable_and_parsable2_read_alike_and_bad_values_name_their_line() {
        let p2 = "Name|GrpJobs|GrpTRES|MaxWall\nnormal|4|cpu=64,mem=500G|1-00:00:00\nlow|||\n";
        let p1 = "Name|GrpJobs|GrpTRES|MaxWall|\nnormal|4|cpu=64,mem=500G|1-00:00:00|\nlow||||\n";
        for text in [p2, p1] {
            let t = Table::parse(text, "q.txt").unwrap();
            let (normal, low) = (&t.rows[0], &t.rows[1]);
            assert_eq!(t.count(normal, "GrpJobs"), Ok(Some(4)));
            assert_eq!(t.count(low, "grpjobs"), Ok(None));
            assert_eq!(
                t.tres(normal, "GrpTRES").unwrap(),
                BTreeMap::from([("cpu".to_string(), 64), ("mem".to_string(), 500 * 1024)])
            );
            assert_eq!(t.minutes(normal, "MaxWall"), Ok(Some(1440)));
            assert_eq!(t.minutes(low, "MaxWall"), Ok(None));
            // A column the table lacks reads as empty.
            assert_eq!(t.count(normal, "MaxJobsPU"), Ok(None));
        }
        let t = Table::parse("Name|GrpTRES|GrpJobs\nx|cpu=abc|\ny||two\n", "q.txt").unwrap();
        assert_eq!(
            t.tres(&t.rows[0], "GrpTRES").unwrap_err().to_string(),
            "q.txt:2: GrpTRES `cpu=abc`: `abc` is not a count in `cpu=abc`"
        );
        assert_eq!(
            t.count(&t.rows[1], "GrpJobs").unwrap_err().to_string(),
            "q.txt:3: GrpJobs `two` is not a count"
        );
        assert_eq!(
            Table::parse("A|B\nx\n", "a.txt").unwrap_err().to_string(),
            "a.txt:2: 1 fields, the header has 2"
        );
    }
}
