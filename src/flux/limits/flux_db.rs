//! Loading limits from a flux-accounting SQLite database (`association_table`,
//! `queue_table`; schema of `create_db.py`, reference §2.1), opened read-only.
//!
//! Columns that an older schema lacks (`max_sched_jobs`, `max_cores`, the queue's sched
//! caps, ...) take flux's defaults; `username`, `bank` (association) and `queue` are
//! required. Inactive associations are loaded as inactive (their jobs are rejected).
//! The user's default bank is the `default_bank` column when it names one of the user's
//! banks, else the first row. Rows are read in `rowid` order.

use std::collections::HashSet;
use std::path::Path;

use rusqlite::{Connection, OpenFlags, types::ValueRef};

use super::assoc::{AssocLimits, QueueLimits};
use super::config::{AssocConfig, LimitsConfig, Options, QueueConfig, limit_or_default};
use super::error::LimitsFileError;

fn columns(conn: &Connection, at: &str, table: &str) -> Result<HashSet<String>, LimitsFileError> {
    let mut stmt = conn
        .prepare(&format!("PRAGMA table_info({table})"))
        .map_err(|e| LimitsFileError::new(at, e.to_string()))?;
    let names = stmt
        .query_map([], |r| r.get::<_, String>(1))
        .map_err(|e| LimitsFileError::new(at, e.to_string()))?
        .collect::<Result<HashSet<_>, _>>()
        .map_err(|e| LimitsFileError::new(at, e.to_string()))?;
    Ok(names)
}

/// A cell as text/integer/float, with a located error for anything else.
enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

fn cell(v: ValueRef<'_>) -> Cell {
    match v {
        ValueRef::Null => Cell::Null,
        ValueRef::Integer(i) => Cell::Int(i),
        ValueRef::Real(f) => Cell::Real(f),
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            Cell::Text(String::from_utf8_lossy(t).into_owned())
        }
    }
}

struct Row {
    at: String,
    cells: Vec<(String, Cell)>,
}

impl Row {
    fn get(&self, col: &str) -> Option<&Cell> {
        self.cells.iter().find(|(n, _)| n == col).map(|(_, c)| c)
    }

    fn text(&self, col: &str) -> Result<Option<String>, LimitsFileError> {
        match self.get(col) {
            None | Some(Cell::Null) => Ok(None),
            Some(Cell::Text(s)) => Ok(Some(s.clone())),
            Some(Cell::Int(i)) => Ok(Some(i.to_string())),
            Some(Cell::Real(f)) => Ok(Some(f.to_string())),
        }
    }

    fn int(&self, col: &str) -> Result<Option<i64>, LimitsFileError> {
        match self.get(col) {
            None | Some(Cell::Null) => Ok(None),
            Some(Cell::Int(i)) => Ok(Some(*i)),
            Some(Cell::Real(f)) if f.fract() == 0.0 && f.abs() < 9.0e15 => Ok(Some(*f as i64)),
            Some(Cell::Text(s)) => s.trim().parse().map(Some).map_err(|_| {
                LimitsFileError::new(
                    &self.at,
                    format!("column {col}: expected an integer, got {s:?}"),
                )
            }),
            Some(Cell::Real(f)) => Err(LimitsFileError::new(
                &self.at,
                format!("column {col}: expected an integer, got {f}"),
            )),
        }
    }

    fn real(&self, col: &str) -> Result<Option<f64>, LimitsFileError> {
        match self.get(col) {
            None | Some(Cell::Null) => Ok(None),
            Some(Cell::Int(i)) => Ok(Some(*i as f64)),
            Some(Cell::Real(f)) => Ok(Some(*f)),
            Some(Cell::Text(s)) => s.trim().parse().map(Some).map_err(|_| {
                LimitsFileError::new(
                    &self.at,
                    format!("column {col}: expected a number, got {s:?}"),
                )
            }),
        }
    }
}

fn read_rows(
    conn: &Connection,
    name: &str,
    table: &str,
    wanted: &[&str],
    required: &[&str],
) -> Result<Vec<Row>, LimitsFileError> {
    let at = format!("{name}: {table}");
    let have = columns(conn, &at, table)?;
    if have.is_empty() {
        return Err(LimitsFileError::new(
            at,
            "table not found (not a flux-accounting database?)",
        ));
    }
    if let Some(c) = required.iter().find(|c| !have.contains(**c)) {
        return Err(LimitsFileError::new(
            at,
            format!("required column {c} is missing"),
        ));
    }
    let cols: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|c| have.contains(*c))
        .collect();
    let sql = format!(
        "SELECT rowid, {} FROM {table} ORDER BY rowid",
        cols.join(", ")
    );
    let mut stmt = conn
        .prepare(&sql)
        .map_err(|e| LimitsFileError::new(&at, e.to_string()))?;
    let mut rows = stmt
        .query([])
        .map_err(|e| LimitsFileError::new(&at, e.to_string()))?;
    let mut out = Vec::new();
    while let Some(r) = rows
        .next()
        .map_err(|e| LimitsFileError::new(&at, e.to_string()))?
    {
        let rowid: i64 = r
            .get(0)
            .map_err(|e| LimitsFileError::new(&at, e.to_string()))?;
        let mut cells = Vec::with_capacity(cols.len());
        for (i, c) in cols.iter().enumerate() {
            let v = r
                .get_ref(i + 1)
                .map_err(|e| LimitsFileError::new(&at, e.to_string()))?;
            cells.push((c.to_string(), cell(v)));
        }
        out.push(Row {
            at: format!("{at} rowid {rowid}"),
            cells,
        });
    }
    Ok(out)
}

/// Loads associations and queues from a flux-accounting database.
pub fn load_flux_db(path: &Path) -> Result<LimitsConfig, LimitsFileError> {
    let name = path.display().to_string();
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(|e| LimitsFileError::new(&name, format!("cannot open database: {e}")))?;

    let qrows = read_rows(
        &conn,
        &name,
        "queue_table",
        &[
            "queue",
            "priority",
            "max_running_jobs",
            "max_nodes_per_assoc",
            "max_sched_jobs",
            "max_sched_nodes_per_assoc",
            "max_sched_cores_per_assoc",
        ],
        &["queue"],
    )?;
    let d = QueueLimits::default();
    let mut queues = Vec::new();
    let mut qnames = HashSet::new();
    for r in qrows {
        let Some(qname) = r.text("queue")? else {
            return Err(LimitsFileError::new(&r.at, "queue is NULL"));
        };
        if !qnames.insert(qname.clone()) {
            return Err(LimitsFileError::new(
                &r.at,
                format!("duplicate queue {qname:?}"),
            ));
        }
        queues.push(QueueConfig {
            name: qname,
            limits: QueueLimits {
                priority: limit_or_default(r.int("priority")?, d.priority),
                max_running_jobs: limit_or_default(r.int("max_running_jobs")?, d.max_running_jobs),
                max_nodes_per_assoc: limit_or_default(
                    r.int("max_nodes_per_assoc")?,
                    d.max_nodes_per_assoc,
                ),
                max_sched_jobs: limit_or_default(r.int("max_sched_jobs")?, d.max_sched_jobs),
                max_sched_nodes_per_assoc: limit_or_default(
                    r.int("max_sched_nodes_per_assoc")?,
                    d.max_sched_nodes_per_assoc,
                ),
                max_sched_cores_per_assoc: limit_or_default(
                    r.int("max_sched_cores_per_assoc")?,
                    d.max_sched_cores_per_assoc,
                ),
            },
        });
    }

    let arows = read_rows(
        &conn,
        &name,
        "association_table",
        &[
            "username",
            "userid",
            "bank",
            "default_bank",
            "active",
            "fairshare",
            "max_running_jobs",
            "max_active_jobs",
            "max_nodes",
            "max_cores",
            "queues",
            "max_sched_jobs",
        ],
        &["username", "bank"],
    )?;
    let d = AssocLimits::default();
    let mut associations: Vec<AssocConfig> = Vec::new();
    let mut keys = HashSet::new();
    let mut default_named: Vec<(String, String)> = Vec::new();
    for r in arows {
        let (Some(user), Some(bank)) = (r.text("username")?, r.text("bank")?) else {
            return Err(LimitsFileError::new(&r.at, "username or bank is NULL"));
        };
        if !keys.insert((user.clone(), bank.clone())) {
            return Err(LimitsFileError::new(
                &r.at,
                format!("duplicate association {user}/{bank}"),
            ));
        }
        if let Some(db) = r.text("default_bank")? {
            default_named.push((user.clone(), db));
        }
        let queue_list: Vec<String> = r
            .text("queues")?
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        associations.push(AssocConfig {
            userid: r.int("userid")?.unwrap_or(65534),
            fairshare: r.real("fairshare")?.unwrap_or(0.5),
            default_bank: false,
            limits: AssocLimits {
                max_running_jobs: limit_or_default(r.int("max_running_jobs")?, d.max_running_jobs),
                max_active_jobs: limit_or_default(r.int("max_active_jobs")?, d.max_active_jobs),
                max_nodes: limit_or_default(r.int("max_nodes")?, d.max_nodes),
                max_cores: limit_or_default(r.int("max_cores")?, d.max_cores),
                max_sched_jobs: limit_or_default(r.int("max_sched_jobs")?, d.max_sched_jobs),
                queues: queue_list,
                active: r.int("active")?.unwrap_or(1) != 0,
            },
            user,
            bank,
        });
    }
    for (user, db) in default_named {
        if let Some(a) = associations
            .iter_mut()
            .find(|a| a.user == user && a.bank == db)
        {
            a.default_bank = true;
        }
    }
    Ok(LimitsConfig {
        options: Options::default(),
        associations,
        queues,
    })
}
