//! `jobsort forecast --format html` and `--plot`: the forecast as one static page a site can
//! publish (header, the queue as a sortable table, a Gantt chart of nodes × time, each user's
//! expected wait, the fairshare tree), and the Gantt chart alone as SVG.
//!
//! Both are built from `forecast --format json`'s document, nothing else: the page shows what
//! the JSON says and computes no forecast of its own. The page needs no network: its CSS,
//! its SVG and its little script (sorting the tables) are inline. Every text from the
//! snapshot (job ids, user names, queues, the scheduler's words) is escaped.

use super::output::span;
use jobsort::input::units::utc_text;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The most rows the chart draws; a site with more nodes gets nodes of equal occupancy
/// grouped into one row, then the first this many rows.
pub const MAX_ROWS: usize = 200;

/// Text for HTML or SVG (XML) content and attribute values: `& < > " '` as entities, and the
/// control characters XML forbids dropped.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn int_of(v: &Value, key: &str) -> Option<i64> {
    v.get(key).and_then(Value::as_i64)
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    match v.get(key) {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => vec![],
    }
}

/// A user as shown (a job with none: `?`).
fn user_of(v: &Value) -> String {
    str_of(v, "user").unwrap_or("?").to_string()
}

/// `2025-12-01 14:00` from unix seconds (UTC).
fn when(t: i64) -> String {
    let u = utc_text(t);
    format!("{} {}", &u[..10], &u[11..16])
}

/// The colours users get, in the order of their names; past the table, hues a golden angle
/// apart.
const PALETTE: [&str; 12] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f",
    "#17becf", "#bcbd22", "#2f4b7c", "#ff9da7",
];

struct Colours {
    of: BTreeMap<String, String>,
}

impl Colours {
    fn new(doc: &Value) -> Colours {
        let mut users: Vec<String> = list(doc, "running")
            .iter()
            .chain(list(doc, "jobs"))
            .map(user_of)
            .collect();
        users.sort();
        users.dedup();
        let of = users
            .into_iter()
            .enumerate()
            .map(|(i, u)| {
                let c = match PALETTE.get(i) {
                    Some(c) => c.to_string(),
                    None => format!("hsl({:.0}, 55%, 52%)", (i as f64 * 137.508) % 360.0),
                };
                (u, c)
            })
            .collect();
        Colours { of }
    }

    fn get(&self, user: &str) -> &str {
        self.of.get(user).map_or("#888888", String::as_str)
    }
}

/// One bar of the chart.
struct Bar {
    start: i64,
    end: i64,
    /// Running (solid) or forecast (dashed).
    running: bool,
    id: String,
    user: String,
    tip: String,
    /// The queue table's row, for a link from the page.
    row: Option<usize>,
    /// With `--history`: when the history says a running job ends.
    hint: Option<i64>,
}

/// One row of the chart: one node, or nodes with the same occupancy.
struct Row {
    names: Vec<String>,
    state: String,
    out: bool,
    /// Indices into the bars, and into the reservations.
    bars: Vec<usize>,
    resvs: Vec<usize>,
}

struct Resv {
    start: i64,
    end: i64,
    label: String,
    tip: String,
}

/// Everything the chart draws, gathered from the document.
struct Chart {
    now: i64,
    t0: i64,
    t1: i64,
    bars: Vec<Bar>,
    resvs: Vec<Resv>,
    rows: Vec<Row>,
    /// Lines under the chart: what it leaves out.
    notes: Vec<String>,
    /// A forecast with `--history`: its hints are drawn.
    history: bool,
    title: String,
}

fn gather(doc: &Value) -> Chart {
    let now = int_of(doc, "taken_at").unwrap_or(0);
    let mut bars = Vec::new();
    let mut on: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for r in list(doc, "running") {
        let (Some(start), Some(end)) = (int_of(r, "start"), int_of(r, "planned_end")) else {
            continue;
        };
        let id = str_of(r, "id").unwrap_or("?").to_string();
        let user = user_of(r);
        let nodes = strings(r, "nodes");
        let tip = format!(
            "{id} ({user}, {}): running since {} UTC, planned end {} UTC{}{}; on {}",
            strings(r, "queue").join(","),
            when(start),
            when(end),
            if end < now {
                " (past it: drawn to the snapshot)"
            } else {
                ""
            },
            int_of(r, "model_end")
                .map(|m| format!(", {} UTC by the history", when(m)))
                .unwrap_or_default(),
            nodes.join(", ")
        );
        for n in &nodes {
            on.entry(n.clone()).or_default().push(bars.len());
        }
        bars.push(Bar {
            start,
            // A job past its planned end still holds its nodes at the snapshot.
            end: end.max(now),
            running: true,
            id,
            user,
            tip,
            row: None,
            hint: int_of(r, "model_end"),
        });
    }
    for j in list(doc, "jobs") {
        let Some(start) = int_of(j, "start") else {
            continue;
        };
        let end = int_of(j, "end");
        let id = str_of(j, "id").unwrap_or("?").to_string();
        let user = user_of(j);
        let nodes = strings(j, "nodes");
        let rank = int_of(j, "rank").map(|r| r as usize);
        let tip = format!(
            "{id} ({user}, {}), rank {}: forecast start {} UTC{}, end {}; on {}",
            strings(j, "queue").join(","),
            rank.map_or("-".into(), |r| r.to_string()),
            when(start),
            if start <= now { " (now)" } else { "" },
            end.map_or("open".into(), |e| format!("{} UTC", when(e))),
            nodes.join(", ")
        );
        for n in &nodes {
            on.entry(n.clone()).or_default().push(bars.len());
        }
        bars.push(Bar {
            start: start.max(now),
            end: end.unwrap_or(i64::MAX),
            running: false,
            id,
            user,
            tip,
            row: rank,
            hint: None,
        });
    }
    // The time span: the snapshot to the last end of a job; reservations that begin
    // inside it stretch it by at most a quarter.
    let last = bars
        .iter()
        .map(|b| b.end)
        .filter(|&e| e != i64::MAX)
        .max()
        .unwrap_or(now)
        .max(now + 3600);
    let mut t1 = last;
    let mut resvs = Vec::new();
    let mut resv_on: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut beyond = Vec::new();
    for r in list(doc, "reservations") {
        let (Some(start), Some(end)) = (int_of(r, "start"), int_of(r, "end")) else {
            continue;
        };
        let id = str_of(r, "id").unwrap_or("?");
        let name = str_of(r, "name").unwrap_or(id);
        if start >= last || end <= now {
            if start >= last {
                beyond.push(format!("{name} ({})", when(start)));
            }
            continue;
        }
        t1 = t1.max(end.min(last + (last - now) / 4));
        let nodes = strings(r, "nodes");
        for n in &nodes {
            resv_on.entry(n.clone()).or_default().push(resvs.len());
        }
        resvs.push(Resv {
            start,
            end,
            label: format!("reservation {name}"),
            tip: format!(
                "reservation {id} ({name}): {} to {} UTC on {}",
                when(start),
                when(end),
                nodes.join(", ")
            ),
        });
    }
    let t0 = now - (t1 - now) / 12;
    for b in &mut bars {
        b.end = b.end.min(t1);
    }
    let mut notes = Vec::new();
    if !beyond.is_empty() {
        notes.push(format!(
            "after the chart's end: reservation {}",
            beyond.join(", reservation ")
        ));
    }
    let unplaced = list(doc, "jobs")
        .iter()
        .filter(|j| int_of(j, "start").is_none())
        .count();
    if unplaced > 0 {
        notes.push(format!(
            "{unplaced} waiting {} no forecast start (held, never fits, or not within the \
             plan's 30 days): not drawn",
            if unplaced == 1 {
                "job has"
            } else {
                "jobs have"
            }
        ));
    }
    // One row per node; past MAX_ROWS nodes, nodes with the same bars, reservations and
    // state share one row.
    let nodes = list(doc, "nodes");
    let mut rows: Vec<Row> = nodes
        .iter()
        .map(|n| {
            let name = str_of(n, "name").unwrap_or("?").to_string();
            let state = str_of(n, "state").unwrap_or("").to_string();
            Row {
                out: matches!(state.as_str(), "down" | "offline"),
                state: str_of(n, "state_text").unwrap_or(&state).to_string(),
                bars: on.remove(&name).unwrap_or_default(),
                resvs: resv_on.remove(&name).unwrap_or_default(),
                names: vec![name],
            }
        })
        .collect();
    if rows.len() > MAX_ROWS {
        let total = rows.len();
        let mut grouped: Vec<Row> = Vec::new();
        let mut index: BTreeMap<(Vec<usize>, Vec<usize>, String), usize> = BTreeMap::new();
        for r in rows {
            let key = (r.bars.clone(), r.resvs.clone(), r.state.clone());
            match index.get(&key) {
                Some(&g) => grouped[g].names.extend(r.names),
                None => {
                    index.insert(key, grouped.len());
                    grouped.push(r);
                }
            }
        }
        notes.push(format!(
            "{total} nodes: nodes with the same jobs, reservations and state share a row \
             ({} rows)",
            grouped.len()
        ));
        if grouped.len() > MAX_ROWS {
            let hidden: usize = grouped[MAX_ROWS..].iter().map(|r| r.names.len()).sum();
            notes.push(format!(
                "the first {MAX_ROWS} rows are drawn; {} more rows ({hidden} nodes) are not",
                grouped.len() - MAX_ROWS
            ));
            grouped.truncate(MAX_ROWS);
        }
        rows = grouped;
    }
    let title = format!(
        "{} snapshot of {} UTC: running jobs and the forecast, node by node",
        str_of(doc, "scheduler").unwrap_or("?"),
        when(now)
    );
    Chart {
        now,
        t0,
        t1,
        bars,
        resvs,
        rows,
        notes,
        history: doc.get("model").is_some_and(|m| !m.is_null()),
        title,
    }
}

/// A step between time ticks that gives at most `most` ticks over `span` seconds.
fn tick_step(span: i64, most: i64) -> i64 {
    const STEPS: [i64; 15] = [
        60, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 345600, 604800,
        1209600,
    ];
    STEPS
        .iter()
        .copied()
        .find(|s| span / s <= most)
        .unwrap_or(2419200)
}

/// Black or white, whichever reads better on `#rrggbb` (other colours: black).
fn ink_on(colour: &str) -> &'static str {
    let hex = colour.strip_prefix('#').filter(|h| h.len() == 6);
    let Some(h) = hex else {
        return "#111";
    };
    let c = |i: usize| i64::from_str_radix(&h[i..i + 2], 16).unwrap_or(0) as f64;
    let y = 0.299 * c(0) + 0.587 * c(2) + 0.114 * c(4);
    if y < 140.0 { "#fff" } else { "#111" }
}

const WIDTH: f64 = 1200.0;
const LEFT: f64 = 170.0;
const RIGHT: f64 = 24.0;
const LANE: f64 = 17.0;
const ROW_MAX: f64 = 70.0;
/// DejaVu Sans at 11 px: the widest digit is under 7 px.
const CHAR_W: f64 = 6.8;

/// The Gantt chart as SVG: a document that stands alone (`<svg>` with its namespace), or,
/// `inline`, the element the page holds (HTML needs no namespace; bars of waiting jobs link
/// to the queue table's rows).
pub fn gantt_svg(doc: &Value, inline: bool) -> String {
    let links = inline;
    let c = gather(doc);
    let colours = Colours::new(doc);
    let plot_w = WIDTH - LEFT - RIGHT;
    let span = (c.t1 - c.t0).max(1) as f64;
    let x = |t: i64| LEFT + (t.clamp(c.t0, c.t1) - c.t0) as f64 / span * plot_w;
    let top = 70.0;
    // Lanes: bars that overlap in time on one row go one under the other.
    let mut layout: Vec<(Vec<(usize, usize)>, usize)> = Vec::with_capacity(c.rows.len());
    for r in &c.rows {
        let mut bars = r.bars.clone();
        bars.sort_by_key(|&b| (c.bars[b].start, c.bars[b].end));
        let mut lane_end: Vec<i64> = Vec::new();
        let mut placed = Vec::with_capacity(bars.len());
        for b in bars {
            let bar = &c.bars[b];
            let lane = match lane_end.iter().position(|&e| e <= bar.start) {
                Some(l) => l,
                None => {
                    lane_end.push(0);
                    lane_end.len() - 1
                }
            };
            lane_end[lane] = bar.end;
            placed.push((b, lane));
        }
        layout.push((placed, lane_end.len().max(1)));
    }
    let row_h = |lanes: usize| (lanes as f64 * LANE).min(ROW_MAX) + 6.0;
    let rows_h: f64 = layout.iter().map(|(_, l)| row_h(*l)).sum();
    // The legend: users, then the keys.
    let mut legend: Vec<(String, String)> = colours
        .of
        .iter()
        .map(|(u, c)| (u.clone(), c.clone()))
        .collect();
    let legend_rows = {
        let mut rows = 1;
        let mut at = LEFT;
        for (u, _) in &legend {
            let w = 24.0 + u.chars().count() as f64 * CHAR_W + 16.0;
            if at + w > WIDTH - RIGHT {
                rows += 1;
                at = LEFT;
            }
            at += w;
        }
        rows
    };
    let legend_top = top + rows_h + 16.0;
    let keys_top = legend_top + legend_rows as f64 * 20.0 + 6.0;
    let notes_top = keys_top + if c.history { 46.0 } else { 26.0 };
    let height = notes_top + c.notes.len() as f64 * 16.0 + 8.0;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg{} width=\"{WIDTH}\" height=\"{height:.0}\" viewBox=\"0 0 {WIDTH} {height:.0}\" \
         font-family=\"DejaVu Sans, Verdana, sans-serif\" font-size=\"11\" role=\"img\" \
         aria-label=\"{}\">",
        if inline {
            ""
        } else {
            " xmlns=\"http://www.w3.org/2000/svg\""
        },
        esc(&c.title)
    );
    s.push_str(
        "<defs><pattern id=\"out\" width=\"8\" height=\"8\" patternUnits=\"userSpaceOnUse\" \
         patternTransform=\"rotate(45)\"><rect width=\"8\" height=\"8\" fill=\"#eeeeee\"/>\
         <line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"8\" stroke=\"#bbbbbb\" stroke-width=\"3\"/>\
         </pattern><pattern id=\"resv\" width=\"10\" height=\"10\" \
         patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(-45)\">\
         <rect width=\"10\" height=\"10\" fill=\"#efe7f7\"/><line x1=\"0\" y1=\"0\" x2=\"0\" \
         y2=\"10\" stroke=\"#c9b3e0\" stroke-width=\"4\"/></pattern></defs>",
    );
    let _ = write!(
        s,
        "<rect width=\"{WIDTH}\" height=\"{height:.0}\" fill=\"#ffffff\"/>\
         <text x=\"{LEFT}\" y=\"20\" font-size=\"14\" font-weight=\"bold\" fill=\"#222\">{}</text>",
        esc(&c.title)
    );
    // Time axis and grid.
    let step = tick_step(c.t1 - c.t0, (plot_w / 95.0) as i64);
    let mut t = (c.t0 + step - 1).div_euclid(step) * step;
    let mut last_day = String::new();
    let bottom = top + rows_h;
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"40\" text-anchor=\"end\" fill=\"#555\">UTC</text>",
        LEFT - 8.0
    );
    while t <= c.t1 {
        let u = utc_text(t);
        let xt = x(t);
        let _ = write!(
            s,
            "<line x1=\"{xt:.1}\" y1=\"{:.1}\" x2=\"{xt:.1}\" y2=\"{bottom:.1}\" stroke=\"#dddddd\"/>\
             <text x=\"{xt:.1}\" y=\"56\" text-anchor=\"middle\" fill=\"#333\">{}</text>",
            top - 8.0,
            &u[11..16]
        );
        if u[..10] != last_day {
            let _ = write!(
                s,
                "<text x=\"{xt:.1}\" y=\"40\" text-anchor=\"middle\" fill=\"#555\">{}</text>",
                &u[..10]
            );
            last_day = u[..10].to_string();
        }
        t += step;
    }
    // Rows.
    let mut y = top;
    for (k, (r, (placed, lanes))) in c.rows.iter().zip(&layout).enumerate() {
        let h = row_h(*lanes);
        let bg = if r.out {
            "url(#out)"
        } else if k % 2 == 0 {
            "#f7f7f7"
        } else {
            "#ffffff"
        };
        let label = match r.names.len() {
            1 => r.names[0].clone(),
            n => format!("{} +{} alike", r.names[0], n - 1),
        };
        let label = if label.chars().count() > 24 {
            format!("{}…", label.chars().take(23).collect::<String>())
        } else {
            label
        };
        let names_tip = if r.names.len() > 40 {
            format!(
                "{} and {} more",
                r.names[..40].join(", "),
                r.names.len() - 40
            )
        } else {
            r.names.join(", ")
        };
        let _ = write!(
            s,
            "<g><title>{}: {}</title><rect x=\"{LEFT}\" y=\"{y:.1}\" width=\"{plot_w:.1}\" \
             height=\"{h:.1}\" fill=\"{bg}\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" \
             fill=\"{}\">{}</text>",
            esc(&names_tip),
            esc(&r.state),
            LEFT - 8.0,
            y + h / 2.0 + 4.0,
            if r.out { "#999" } else { "#222" },
            esc(&label)
        );
        if r.out {
            let _ = write!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#777\" font-style=\"italic\">{}</text>",
                LEFT + 6.0,
                y + h / 2.0 + 4.0,
                esc(&r.state)
            );
        }
        s.push_str("</g>");
        for &v in &r.resvs {
            let rv = &c.resvs[v];
            let (x0, x1) = (x(rv.start), x(rv.end));
            let _ = write!(
                s,
                "<g><title>{}</title><rect x=\"{x0:.1}\" y=\"{y:.1}\" width=\"{:.1}\" \
                 height=\"{h:.1}\" fill=\"url(#resv)\" stroke=\"#9b7bc4\"/>",
                esc(&rv.tip),
                (x1 - x0).max(1.0)
            );
            if x1 - x0 > rv.label.chars().count() as f64 * CHAR_W + 8.0 {
                let _ = write!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#5b3d85\">{}</text>",
                    x0 + 4.0,
                    y + h - 5.0,
                    esc(&rv.label)
                );
            }
            s.push_str("</g>");
        }
        let lane_h = ((h - 6.0) / *lanes as f64).min(LANE);
        for &(b, lane) in placed {
            let bar = &c.bars[b];
            let (x0, x1) = (x(bar.start), x(bar.end));
            let w = (x1 - x0).max(1.5);
            let by = y + 3.0 + lane as f64 * lane_h;
            let bh = (lane_h - 2.0).max(1.0);
            let colour = colours.get(&bar.user);
            let (open, close) = match (links, bar.row) {
                (true, Some(r)) if !bar.running => (format!("<a href=\"#q{r}\">"), "</a>"),
                _ => (String::new(), ""),
            };
            let _ = write!(s, "{open}<g><title>{}</title>", esc(&bar.tip));
            if bar.running {
                let _ = write!(
                    s,
                    "<rect x=\"{x0:.1}\" y=\"{by:.1}\" width=\"{w:.1}\" height=\"{bh:.1}\" \
                     rx=\"2\" fill=\"{colour}\" stroke=\"#333333\" stroke-width=\"0.5\"/>"
                );
            } else {
                let _ = write!(
                    s,
                    "<rect x=\"{x0:.1}\" y=\"{by:.1}\" width=\"{w:.1}\" height=\"{bh:.1}\" \
                     rx=\"2\" fill=\"{colour}\" fill-opacity=\"0.35\" stroke=\"{colour}\" \
                     stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>"
                );
            }
            if bh >= 10.0 && w > bar.id.chars().count() as f64 * CHAR_W + 6.0 {
                let ink = if bar.running { ink_on(colour) } else { "#111" };
                let _ = write!(
                    s,
                    "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{ink}\">{}</text>",
                    x0 + 3.0,
                    by + bh / 2.0 + 4.0,
                    esc(&bar.id)
                );
            }
            // The history's word on where a running job ends. (Where a waiting job starts by
            // it is the table's: a mark outside the job's bar would sit on another's.)
            match bar.hint {
                Some(t) if c.history && t >= c.t0 && t < bar.end => {
                    let xh = x(t);
                    let _ = write!(
                        s,
                        "<line x1=\"{xh:.1}\" y1=\"{:.1}\" x2=\"{xh:.1}\" y2=\"{:.1}\" \
                         stroke=\"#111\" stroke-width=\"2.5\"/>",
                        by - 1.0,
                        by + bh + 1.0
                    );
                }
                _ => {}
            }
            let _ = write!(s, "</g>{close}");
        }
        y += h;
    }
    // The snapshot's instant.
    let xn = x(c.now);
    let _ = write!(
        s,
        "<line x1=\"{xn:.1}\" y1=\"{:.1}\" x2=\"{xn:.1}\" y2=\"{bottom:.1}\" stroke=\"#d62728\" \
         stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#d62728\" \
         font-weight=\"bold\">now</text>",
        top - 6.0,
        xn + 4.0,
        top - 2.0
    );
    let _ = write!(
        s,
        "<rect x=\"{LEFT}\" y=\"{top}\" width=\"{plot_w:.1}\" height=\"{rows_h:.1}\" \
         fill=\"none\" stroke=\"#999999\"/>"
    );
    // Legend: a swatch per user.
    let _ = write!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#555\">users</text>",
        LEFT - 8.0,
        legend_top + 12.0
    );
    let (mut lx, mut ly) = (LEFT, legend_top);
    for (u, colour) in legend.drain(..) {
        let w = 24.0 + u.chars().count() as f64 * CHAR_W + 16.0;
        if lx + w > WIDTH - RIGHT && lx > LEFT {
            lx = LEFT;
            ly += 20.0;
        }
        let _ = write!(
            s,
            "<rect x=\"{lx:.1}\" y=\"{ly:.1}\" width=\"18\" height=\"14\" rx=\"2\" \
             fill=\"{colour}\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#222\">{}</text>",
            lx + 24.0,
            ly + 11.0,
            esc(&u)
        );
        lx += w;
    }
    // The keys.
    let ky = keys_top;
    let _ = write!(
        s,
        "<rect x=\"{LEFT}\" y=\"{ky:.1}\" width=\"34\" height=\"14\" rx=\"2\" fill=\"#888888\" \
         stroke=\"#333333\" stroke-width=\"0.5\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#222\">running \
         (to its planned end: start + walltime)</text>\
         <rect x=\"{:.1}\" y=\"{ky:.1}\" width=\"34\" height=\"14\" rx=\"2\" fill=\"#888888\" \
         fill-opacity=\"0.35\" stroke=\"#888888\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" fill=\"#222\">forecast</text>\
         <rect x=\"{:.1}\" y=\"{ky:.1}\" width=\"34\" height=\"14\" fill=\"url(#resv)\" \
         stroke=\"#9b7bc4\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#222\">reservation</text>\
         <rect x=\"{:.1}\" y=\"{ky:.1}\" width=\"34\" height=\"14\" fill=\"url(#out)\"/>\
         <text x=\"{:.1}\" y=\"{:.1}\" fill=\"#222\">node out of service</text>",
        LEFT + 40.0,
        ky + 11.0,
        LEFT + 330.0,
        LEFT + 370.0,
        ky + 11.0,
        LEFT + 450.0,
        LEFT + 490.0,
        ky + 11.0,
        LEFT + 600.0,
        LEFT + 640.0,
        ky + 11.0,
    );
    if c.history {
        let ky = ky + 20.0;
        let _ = write!(
            s,
            "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#111\" \
             stroke-width=\"2.5\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#222\">where the \
             history (--history) says a running job ends; the table has each waiting job's \
             start by it</text>",
            LEFT + 17.0,
            ky,
            LEFT + 17.0,
            ky + 14.0,
            LEFT + 40.0,
            ky + 11.0,
        );
    }
    for (k, n) in c.notes.iter().enumerate() {
        let _ = write!(
            s,
            "<text x=\"{LEFT}\" y=\"{:.1}\" fill=\"#555\">{}</text>",
            notes_top + 12.0 + k as f64 * 16.0,
            esc(n)
        );
    }
    s.push_str("</svg>");
    s
}

const STYLE: &str = "\
:root{color-scheme:light}\
body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;\
margin:0 auto;padding:1rem 1.5rem 3rem;max-width:1260px;color:#222;background:#fff;\
line-height:1.4}\
h1{font-size:1.5rem;margin:.5rem 0}h2{font-size:1.2rem;margin:2rem 0 .5rem;\
border-bottom:1px solid #ddd;padding-bottom:.2rem}\
dl.about{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.5rem 0}\
dl.about dt{color:#555}dl.about dd{margin:0}\
nav a{margin-right:1rem}\
.chart{overflow-x:auto;border:1px solid #eee}\
.chart svg{display:block}\
table{border-collapse:collapse;font-size:.9rem;width:100%}\
th,td{padding:.3rem .5rem;border-bottom:1px solid #e5e5e5;text-align:left;vertical-align:top}\
th{background:#f2f2f2;position:sticky;top:0;white-space:nowrap}\
table.sortable th{cursor:pointer}\
table.sortable th::after{content:' \\2195';color:#aaa}\
th[aria-sort=ascending]::after{content:' \\2191';color:#222}\
th[aria-sort=descending]::after{content:' \\2193';color:#222}\
tbody tr:nth-child(even){background:#fafafa}\
tbody tr:target{background:#fff3c4}\
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
td.when,td.id{white-space:nowrap}\
td.holds{min-width:15rem}td.nodes{white-space:nowrap;font-size:.85rem}\
.wide{overflow-x:auto}\
.terms{margin:0;padding:0;list-style:none;font-size:.8rem;color:#444;min-width:12rem}\
.terms li{display:flex;gap:.5em}.terms .tv{flex:0 0 4.5em;text-align:right;\
font-variant-numeric:tabular-nums;color:#222}.terms code{font-size:.8rem}\
.sw{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;margin-right:.35rem;\
vertical-align:-.1rem}\
.muted{color:#777}.says{color:#555;font-size:.85rem}\
.note{background:#f6f6f6;border-left:4px solid #bbb;padding:.4rem .8rem}\
tr.waits td:first-child{font-weight:bold}\
";

/// Sorts a table by a column on a click (or Enter) on its heading: by the cell's `data-k`
/// when it has one, else its text; numbers as numbers; empty keys last either way. A link
/// `#sort-TABLEID-COLUMN-asc|desc` sorts on load. `data-sort-ready` on `<html>` says how
/// many tables it made sortable.
const SCRIPT: &str = r#"(function () {
  function key(td) {
    var k = td.getAttribute("data-k");
    return k === null ? td.textContent.trim() : k;
  }
  function sortBy(table, col, asc) {
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) heads[i].removeAttribute("aria-sort");
    heads[col].setAttribute("aria-sort", asc ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      if (x === "" || y === "") return (x === "") - (y === "");
      var nx = Number(x), ny = Number(y);
      var c = !isNaN(nx) && !isNaN(ny) ? nx - ny : x.localeCompare(y);
      return asc ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      function go() { sortBy(table, col, th.getAttribute("aria-sort") !== "ascending"); }
      th.addEventListener("click", go);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); }
      });
    });
  });
  var m = /^#sort-([A-Za-z][\w-]*)-(\d+)-(asc|desc)$/.exec(location.hash);
  if (m) {
    var t = document.getElementById(m[1]);
    if (t && t.tHead && +m[2] < t.tHead.rows[0].cells.length) sortBy(t, +m[2], m[3] === "asc");
  }
  document.documentElement.setAttribute("data-sort-ready", String(tables.length));
})();"#;

/// A start as a table cell: `data-k` the time (empty when none), the text when and how soon.
fn start_cell(start: Option<i64>, now: i64) -> String {
    match start {
        Some(t) if t <= now => format!(
            "<td class=\"when\" data-k=\"{t}\">now <span class=\"muted\">(next cycle)</span></td>"
        ),
        Some(t) => format!(
            "<td class=\"when\" data-k=\"{t}\">{}<br><span class=\"muted\">in {}</span></td>",
            when(t),
            span(t - now)
        ),
        None => "<td class=\"when muted\" data-k=\"\">not within 30 days</td>".to_string(),
    }
}

fn median(v: &mut [i64]) -> Option<i64> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2
    })
}

fn wait_cell(w: Option<i64>) -> String {
    match w {
        Some(0) => "<td class=\"num\" data-k=\"0\">none: starts now</td>".to_string(),
        Some(w) => format!("<td class=\"num\" data-k=\"{w}\">{}</td>", span(w)),
        None => "<td class=\"num muted\" data-k=\"\">-</td>".to_string(),
    }
}

/// A number as a table shows it: whole numbers as `show_value` prints them, others to three
/// or four significant decimals (the whole value is in the cell's `title` or `data-k`).
fn short_num(v: f64) -> String {
    if !v.is_finite() || (v == v.trunc() && v.abs() < 1e15) {
        return super::output::show_value(v);
    }
    let a = v.abs();
    let digits = if a >= 100.0 {
        2
    } else if a >= 1.0 {
        3
    } else {
        (2 - a.log10().floor() as i64).clamp(3, 12) as usize
    };
    let t = format!("{v:.digits$}");
    let t = t.trim_end_matches('0');
    t.strip_suffix('.')
        .map_or(t.to_string(), |t| format!("{t}.0"))
}

/// A JSON value as a table shows it: integers as written, other numbers short, a number in
/// a string (a term's value) too, other text as is.
fn value_text(v: &Value) -> String {
    match v {
        Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
        Value::Number(n) => n.as_f64().map_or_else(|| n.to_string(), short_num),
        Value::String(s) => s.parse::<f64>().map_or_else(|_| s.clone(), short_num),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// The whole page: one HTML document, everything inline.
pub fn page(doc: &Value) -> String {
    let now = int_of(doc, "taken_at").unwrap_or(0);
    let sched = str_of(doc, "scheduler").unwrap_or("?");
    let jobs = list(doc, "jobs");
    let running = list(doc, "running");
    let colours = Colours::new(doc);
    let model = doc.get("model").filter(|m| !m.is_null());
    let mut h = String::with_capacity(64 * 1024);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"generator\" content=\"jobsort {}\">\
         <title>{} queue forecast, {} UTC</title><style>{STYLE}</style></head><body>\n",
        env!("CARGO_PKG_VERSION"),
        esc(sched),
        when(now)
    );
    // Header.
    let placed = jobs.iter().filter(|j| int_of(j, "start").is_some()).count();
    let _ = write!(
        h,
        "<header><h1>{} queue forecast: snapshot of {} UTC</h1>\
         <p>{} waiting ({} with a forecast start), {} running, {}, {}.</p>\
         <dl class=\"about\"><dt>scheduler</dt><dd>{}</dd><dt>snapshot taken</dt><dd>{}</dd>\
         <dt>dispatch policy</dt><dd>{}</dd><dt>queue ordered by</dt><dd>{}</dd>\
         <dt>assumption</dt><dd>{}</dd>",
        esc(sched),
        when(now),
        jobs.len(),
        placed,
        running.len(),
        plural(list(doc, "nodes").len(), "node"),
        plural(list(doc, "reservations").len(), "reservation"),
        esc(sched),
        esc(&utc_text(now)),
        esc(str_of(doc, "policy").unwrap_or("?")),
        esc(str_of(doc, "ordered_by").unwrap_or("?")),
        esc(str_of(doc, "assumption").unwrap_or("?")),
    );
    if let Some(m) = model {
        let _ = write!(
            h,
            "<dt>history model</dt><dd>{} ({} jobs, {} users; {:.0}% of the walltime overall)\
             </dd>",
            esc(str_of(m, "what").unwrap_or("")),
            int_of(m, "jobs").unwrap_or(0),
            int_of(m, "users").unwrap_or(0),
            m.get("overall_ratio")
                .and_then(Value::as_f64)
                .unwrap_or(0.0)
                * 100.0
        );
    }
    let missing = strings(doc, "missing");
    h.push_str("<dt>missing parts</dt><dd>");
    if missing.is_empty() {
        h.push_str("none");
    } else {
        h.push_str("<ul>");
        for m in &missing {
            let _ = write!(h, "<li>{}</li>", esc(m));
        }
        h.push_str("</ul>");
    }
    h.push_str(
        "</dd></dl><nav><a href=\"#chart\">nodes over time</a><a href=\"#queue\">the queue</a>\
         <a href=\"#waits\">expected wait by user</a><a href=\"#fairshare\">fairshare</a></nav>\
         </header>\n",
    );
    // The chart.
    let _ = writeln!(
        h,
        "<section id=\"chart\"><h2>Nodes over time</h2><p>One row per node: running jobs \
         until their planned end, then the forecast (dashed) and reservations (hatched). \
         Hover a bar for the job; a forecast bar links to its row below.</p>\
         <div class=\"chart\">{}</div></section>",
        gantt_svg(doc, true)
    );
    // The queue.
    let history = model.is_some();
    let _ = write!(
        h,
        "<section id=\"queue\"><h2>The queue</h2><p>In the order the scheduler takes the \
         waiting jobs. Click a heading to sort.</p>\
         <div class=\"wide\"><table id=\"queue-table\" class=\"sortable\"><thead><tr>\
         <th>rank</th><th>id</th><th>user</th><th>queue</th><th>forecast start</th>{}\
         <th>what holds it now</th><th>priority</th><th>its terms</th><th>nodes</th></tr>\
         </thead><tbody>",
        if history {
            "<th>start by the history</th>"
        } else {
            ""
        }
    );
    for j in jobs {
        let rank = int_of(j, "rank").unwrap_or(0);
        let id = str_of(j, "id").unwrap_or("?");
        let user = user_of(j);
        let value = j.get("value").unwrap_or(&Value::Null);
        let mut terms = String::new();
        for t in list(j, "terms") {
            let v = t.get("value").unwrap_or(&Value::Null);
            let _ = write!(
                terms,
                "<li><span class=\"tv\" title=\"{}\">{}</span> <code>{}</code></li>",
                esc(v.as_str().unwrap_or("")),
                esc(&value_text(v)),
                esc(str_of(t, "term").unwrap_or("")),
            );
        }
        let computed = match (
            j.get("computed_value").and_then(Value::as_f64),
            value.as_f64(),
        ) {
            (Some(c), Some(v)) if (c - v).abs() > 0.5 => format!(
                "<div class=\"says\">jobsort: {}</div>",
                super::output::show_value(c)
            ),
            _ => String::new(),
        };
        let mut holds = esc(str_of(j, "plain").unwrap_or(""));
        if let Some(at) = int_of(j, "planned_at") {
            let _ = write!(
                holds,
                "<div class=\"says\">a top job: the scheduler holds nodes for it from {} UTC\
                 </div>",
                when(at)
            );
        }
        if let Some(r) = str_of(j, "scheduler_says") {
            let _ = write!(
                holds,
                "<div class=\"says\">{} says: {}</div>",
                esc(sched),
                esc(r)
            );
        }
        let nodes = strings(j, "nodes");
        let nodes_text = if nodes.len() <= 3 {
            nodes.join(", ")
        } else {
            format!("{}, {} +{}", nodes[0], nodes[1], nodes.len() - 2)
        };
        let _ = write!(
            h,
            "\n<tr id=\"q{rank}\"><td class=\"num\">{rank}</td><td class=\"id\">{}</td>\
             <td data-k=\"{}\"><span class=\"sw\" style=\"background:{}\"></span>{}</td>\
             <td>{}</td>{}",
            esc(id),
            esc(&user),
            colours.get(&user),
            esc(&user),
            esc(&strings(j, "queue").join(",")),
            start_cell(int_of(j, "start"), now),
        );
        if history {
            h.push_str(&start_cell(int_of(j, "model_start"), now));
        }
        let _ = write!(
            h,
            "<td class=\"holds\">{holds}</td><td class=\"num\" data-k=\"{}\" title=\"{}\">{}\
             {computed}</td><td><ul class=\"terms\">{terms}</ul></td>\
             <td class=\"nodes\" data-k=\"{}\" title=\"{}\">{}</td></tr>",
            value.as_f64().map(|v| v.to_string()).unwrap_or_default(),
            value.as_f64().map(|v| v.to_string()).unwrap_or_default(),
            esc(&value_text(value)),
            nodes.len(),
            esc(&nodes.join(", ")),
            esc(&nodes_text)
        );
    }
    h.push_str("</tbody></table></div></section>\n");
    // Each user's expected wait.
    #[derive(Default)]
    struct Waits {
        running: usize,
        waiting: usize,
        waits: Vec<i64>,
        model: Vec<i64>,
    }
    let mut by: BTreeMap<String, Waits> = BTreeMap::new();
    for r in running {
        by.entry(user_of(r)).or_default().running += 1;
    }
    for j in jobs {
        let w = by.entry(user_of(j)).or_default();
        w.waiting += 1;
        if let Some(s) = int_of(j, "start") {
            w.waits.push((s - now).max(0));
        }
        if let Some(s) = int_of(j, "model_start") {
            w.model.push((s - now).max(0));
        }
    }
    let _ = write!(
        h,
        "<section id=\"waits\"><h2>Expected wait by user</h2><p>Over each user's waiting \
         jobs: forecast start minus the snapshot's time. Jobs without a forecast start \
         (held, never fit, or not within 30 days) are counted apart.</p>\
         <table id=\"waits-table\" class=\"sortable\"><thead><tr><th>user</th><th>running</th>\
         <th>waiting</th><th>median wait</th><th>longest wait</th>{}<th>no forecast start</th>\
         </tr></thead><tbody>",
        if history {
            "<th>median wait by the history</th>"
        } else {
            ""
        }
    );
    for (u, w) in &mut by {
        let n = w.waits.len();
        let max = w.waits.iter().copied().max();
        let med = median(&mut w.waits);
        let _ = write!(
            h,
            "\n<tr{}><td data-k=\"{}\"><span class=\"sw\" style=\"background:{}\"></span>{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td>{}{}",
            if w.waiting > 0 {
                " class=\"waits\""
            } else {
                ""
            },
            esc(u),
            colours.get(u),
            esc(u),
            w.running,
            w.waiting,
            wait_cell(med),
            wait_cell(max),
        );
        if history {
            h.push_str(&wait_cell(median(&mut w.model)));
        }
        let _ = write!(h, "<td class=\"num\">{}</td></tr>", w.waiting - n);
    }
    h.push_str("</tbody></table></section>\n");
    // Fairshare.
    h.push_str("<section id=\"fairshare\"><h2>Fairshare</h2>");
    let fs = doc.get("fairshare").unwrap_or(&Value::Null);
    let entities = list(fs, "entities");
    if let Some(n) = str_of(fs, "note") {
        let _ = write!(h, "<p class=\"note\">{}</p>", esc(n));
    }
    if entities.is_empty() {
        h.push_str(
            "<p>What the snapshot has instead: each user's running and waiting jobs, in the \
             table above, and the priority terms of each waiting job in the queue.</p>",
        );
    } else {
        let _ = write!(
            h,
            "<p>The tree from {} ({} algorithm), root first; users with waiting jobs in bold. \
             A lower <em>tree usage</em> (usage over share, along the path from the root) \
             ranks first.</p><table id=\"fairshare-table\"><thead><tr><th>entity</th>\
             <th>shares</th><th>share of the tree</th><th>usage</th><th>tree usage</th>\
             <th>factor</th><th>waiting jobs</th></tr></thead><tbody>",
            esc(&strings(fs, "files").join(" and ")),
            esc(str_of(fs, "algorithm").unwrap_or("?"))
        );
        let parent: BTreeMap<&str, &str> = entities
            .iter()
            .filter_map(|e| Some((str_of(e, "name")?, str_of(e, "parent")?)))
            .collect();
        for e in entities {
            let name = str_of(e, "name").unwrap_or("?");
            let mut depth = 0;
            let mut at = name;
            while let Some(p) = parent.get(at) {
                depth += 1;
                if depth > 64 {
                    break;
                }
                at = if *p == "root" { "TREEROOT" } else { p };
            }
            let waiting = by.get(name).map_or(0, |w| w.waiting);
            let perc = e
                .get("fairshare_perc")
                .and_then(Value::as_f64)
                .map(|p| format!("{:.2}%", p * 100.0))
                .unwrap_or_else(|| "-".into());
            let _ = write!(
                h,
                "\n<tr{}><td style=\"padding-left:{:.1}rem\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{perc}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                if waiting > 0 { " class=\"waits\"" } else { "" },
                0.5 + depth as f64 * 1.2,
                esc(name),
                esc(&value_text(e.get("shares").unwrap_or(&Value::Null))),
                esc(&value_text(e.get("usage").unwrap_or(&Value::Null))),
                esc(&value_text(
                    e.get("fairshare_tree_usage").unwrap_or(&Value::Null)
                )),
                esc(&value_text(
                    e.get("fairshare_factor").unwrap_or(&Value::Null)
                )),
                if waiting > 0 {
                    waiting.to_string()
                } else {
                    String::new()
                }
            );
        }
        h.push_str("</tbody></table>");
    }
    h.push_str("</section>\n");
    let _ = writeln!(
        h,
        "<footer><p class=\"muted\">Made by jobsort {} (<code>jobsort forecast --format \
         html</code>) from a snapshot of the site; a static page, no network needed.</p>\
         </footer><script>{SCRIPT}</script></body></html>",
        env!("CARGO_PKG_VERSION")
    );
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn escapes_markup_and_drops_control_characters() {
        assert_eq!(
            esc("<script>a&b\"'\u{1}</script>"),
            "&lt;script&gt;a&amp;b&quot;&#39;&lt;/script&gt;"
        );
    }

    #[test]
    fn ticks_stay_few() {
        assert_eq!(tick_step(4 * 3600, 10), 1800);
        assert_eq!(tick_step(30 * 86400, 10), 345600);
    }

    #[test]
    fn many_nodes_of_equal_occupancy_share_rows() {
        let nodes: Vec<Value> = (0..500)
            .map(|i| json!({"name": format!("n{i:03}"), "state": "free", "state_text": "free"}))
            .collect();
        let busy: Vec<String> = (0..300).map(|i| format!("n{i:03}")).collect();
        let doc = json!({
            "scheduler": "PBS", "taken_at": 1000, "nodes": nodes,
            "running": [{"id": "1", "user": "u", "start": 0, "planned_end": 5000, "nodes": busy}],
            "jobs": [], "reservations": [],
        });
        let c = gather(&doc);
        assert_eq!(c.rows.len(), 2);
        assert_eq!(c.rows[0].names.len(), 300);
        assert!(
            c.notes.iter().any(|n| n.contains("500 nodes")),
            "{:?}",
            c.notes
        );
        let svg = gantt_svg(&doc, false);
        assert!(svg.contains("n000 +299 alike"));
    }
}
