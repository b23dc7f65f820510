//! Comparison plots (plotters, SVG backend): wait CDF per formula, queue length over time,
//! and what changes between formulas: each user's mean wait against the first formula's (the
//! users whose waits change most); with one formula, delivered vs target share per entity. Rendered to a string; the caller writes the file.
//!
//! PNG output ([`render_png`]) rasterises that same SVG with `resvg` (pure Rust). Text is
//! drawn with DejaVu Sans bundled in the binary (the `dejavu` crate), so a PNG has its labels
//! on any machine, fonts installed or not, and the same inputs give the same PNG bytes.

use super::metrics::WaitChange;
use super::run::RunResult;
use plotters::prelude::*;

/// One run's label and results for the plots.
pub struct PlotRun<'a> {
    pub label: String,
    pub result: &'a RunResult,
    /// Each user's mean-wait change from the first run, largest first (`None`: the first run).
    pub wait_change: Option<&'a [WaitChange]>,
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

fn color(i: usize) -> RGBColor {
    COLORS[i % COLORS.len()]
}

/// Render the three panels as one SVG document. With `recorded`, the wait CDF also draws the
/// trace's recorded schedule (black, dashed: `sim --fidelity`), over the jobs it started.
pub fn render_svg(
    runs: &[PlotRun<'_>],
    jobs: &[crate::workload::SimJob],
    recorded: bool,
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, 1500)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let panels = root.split_evenly((3, 1));
        wait_cdf(&panels[0], runs, jobs, recorded).map_err(|e| e.to_string())?;
        queue_length(&panels[1], runs).map_err(|e| e.to_string())?;
        if runs.iter().any(|r| r.wait_change.is_some()) {
            wait_changes(&panels[2], runs).map_err(|e| e.to_string())?;
        } else {
            shares(&panels[2], runs).map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// Rasterise an SVG document (as produced by [`render_svg`]) to PNG bytes at its own size.
///
/// `sans-serif` (the family plotters asks for) and every other family resolve to the bundled
/// DejaVu Sans; no system font is consulted.
pub fn render_png(svg: &str) -> Result<Vec<u8>, String> {
    use resvg::{tiny_skia, usvg};
    let mut db = usvg::fontdb::Database::new();
    db.load_font_data(dejavu::sans::regular().to_vec());
    db.load_font_data(dejavu::sans::bold().to_vec());
    let family = "DejaVu Sans";
    db.set_sans_serif_family(family);
    db.set_serif_family(family);
    db.set_monospace_family(family);
    db.set_cursive_family(family);
    db.set_fantasy_family(family);
    let opt = usvg::Options {
        font_family: family.to_string(),
        fontdb: std::sync::Arc::new(db),
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_str(svg, &opt).map_err(|e| format!("SVG to PNG: {e}"))?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| format!("SVG to PNG: bad size {}x{}", size.width(), size.height()))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap
        .encode_png()
        .map_err(|e| format!("PNG encoding: {e}"))
}

type Area<'a, 'b> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type PResult = Result<(), Box<dyn std::error::Error + 'static>>;

fn boxed<E: std::error::Error + Send + Sync + 'static>(
    e: E,
) -> Box<dyn std::error::Error + 'static> {
    Box::new(e)
}

/// The legend box every panel draws (white, bordered, default corner).
fn draw_legend<'a, 'b: 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, CT>,
) -> PResult {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(boxed)?;
    Ok(())
}

fn wait_cdf(
    area: &Area<'_, '_>,
    runs: &[PlotRun<'_>],
    jobs: &[crate::workload::SimJob],
    recorded: bool,
) -> PResult {
    let mut max_w: f64 = 1.0;
    let mut waits = |starts: &mut dyn Iterator<Item = Option<i64>>| {
        let mut w: Vec<f64> = jobs
            .iter()
            .zip(starts)
            .filter_map(|(j, s)| s.map(|s| ((s - j.submit) as f64 / 3600.0) + 1.0 / 3600.0))
            .collect();
        w.sort_by(f64::total_cmp);
        if let Some(&m) = w.last() {
            max_w = max_w.max(m);
        }
        w
    };
    let curves: Vec<Vec<f64>> = runs
        .iter()
        .map(|r| waits(&mut r.result.outcome.start.iter().copied()))
        .collect();
    let real = recorded.then(|| waits(&mut jobs.iter().map(|j| j.recorded_start())));
    let mut chart = ChartBuilder::on(area)
        .caption("Wait time CDF per formula", ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d((1.0 / 3600.0..max_w * 1.1).log_scale(), 0.0..1.0)
        .map_err(boxed)?;
    chart
        .configure_mesh()
        .x_desc("wait (hours, log scale; +1 s)")
        .y_desc("fraction of jobs")
        .draw()
        .map_err(boxed)?;
    for (k, (r, w)) in runs.iter().zip(&curves).enumerate() {
        let c = color(k);
        chart
            .draw_series(LineSeries::new(cdf_points(w), c.stroke_width(2)))
            .map_err(boxed)?
            .label(r.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    if let Some(w) = &real {
        let style = BLACK.stroke_width(2);
        chart
            .draw_series(DashedLineSeries::new(cdf_points(w), 6, 4, style))
            .map_err(boxed)?
            .label("recorded")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    draw_legend(&mut chart)
}

/// A sorted sample's empirical CDF, thinned to about 2000 points (the last one kept).
fn cdf_points(w: &[f64]) -> Vec<(f64, f64)> {
    let n = w.len().max(1) as f64;
    let step = (w.len() / 2000).max(1);
    w.iter()
        .enumerate()
        .filter(|(i, _)| i % step == 0 || *i + 1 == w.len())
        .map(|(i, &x)| (x, (i + 1) as f64 / n))
        .collect()
}

fn queue_length(area: &Area<'_, '_>, runs: &[PlotRun<'_>]) -> PResult {
    let t0 = runs
        .iter()
        .filter_map(|r| r.result.outcome.series.first().map(|p| p.time))
        .min()
        .unwrap_or(0);
    let t1 = runs
        .iter()
        .filter_map(|r| r.result.outcome.series.last().map(|p| p.time))
        .max()
        .unwrap_or(1)
        .max(t0 + 1);
    let qmax = runs
        .iter()
        .flat_map(|r| r.result.outcome.series.iter().map(|p| p.queued))
        .max()
        .unwrap_or(1)
        .max(1);
    let days = |t: i64| (t - t0) as f64 / 86400.0;
    let mut chart = ChartBuilder::on(area)
        .caption("Queue length over time", ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..days(t1), 0.0..qmax as f64 * 1.05)
        .map_err(boxed)?;
    chart
        .configure_mesh()
        .x_desc("days since first event")
        .y_desc("queued jobs")
        .draw()
        .map_err(boxed)?;
    for (k, r) in runs.iter().enumerate() {
        let s = &r.result.outcome.series;
        // At most ~3000 points: the maximum of each bucket, so peaks stay visible.
        let bucket = (s.len() / 3000).max(1);
        let pts: Vec<(f64, f64)> = s
            .chunks(bucket)
            .map(|c| {
                let m = c.iter().map(|p| p.queued).max().unwrap_or(0);
                (days(c[0].time), m as f64)
            })
            .collect();
        let c = color(k);
        chart
            .draw_series(LineSeries::new(pts, c.stroke_width(1)))
            .map_err(boxed)?
            .label(r.label.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    draw_legend(&mut chart)
}

fn shares(area: &Area<'_, '_>, runs: &[PlotRun<'_>]) -> PResult {
    let m = runs
        .iter()
        .flat_map(|r| r.result.shares.iter().flat_map(|s| [s.target, s.delivered]))
        .fold(0.0f64, f64::max)
        .max(1e-3)
        * 1.05;
    let mut chart = ChartBuilder::on(area)
        .caption("Delivered vs target share per entity", ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(55)
        .build_cartesian_2d(0.0..m, 0.0..m)
        .map_err(boxed)?;
    chart
        .configure_mesh()
        .x_desc("target share")
        .y_desc("delivered share")
        .draw()
        .map_err(boxed)?;
    chart
        .draw_series(LineSeries::new(vec![(0.0, 0.0), (m, m)], BLACK.mix(0.4)))
        .map_err(boxed)?;
    for (k, r) in runs.iter().enumerate() {
        let c = color(k);
        chart
            .draw_series(
                r.result
                    .shares
                    .iter()
                    .map(|s| Circle::new((s.target, s.delivered), 3, c.filled())),
            )
            .map_err(boxed)?
            .label(r.label.clone())
            .legend(move |(x, y)| Circle::new((x + 10, y), 3, c.filled()));
    }
    draw_legend(&mut chart)
}

/// The users the wait-change panel shows: the most changed of any run.
const USERS_SHOWN: usize = 15;

/// Each user's mean-wait change (hours) under each formula against the first, as bars: the
/// users whose mean wait changes most under any formula, largest first.
fn wait_changes(area: &Area<'_, '_>, runs: &[PlotRun<'_>]) -> PResult {
    let first = runs.first().map_or("", |r| r.label.as_str()).to_string();
    // Each user's largest change under any run, then the users by it.
    let mut largest: Vec<(&str, f64)> = Vec::new();
    for r in runs {
        for c in r.wait_change.into_iter().flatten() {
            match largest.iter_mut().find(|(n, _)| *n == c.name) {
                Some((_, m)) => *m = m.max(c.change.abs()),
                None => largest.push((c.name.as_str(), c.change.abs())),
            }
        }
    }
    largest.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    largest.truncate(USERS_SHOWN);
    let users: Vec<&str> = largest.iter().map(|(n, _)| *n).collect();
    let change = |r: &PlotRun<'_>, user: &str| -> f64 {
        r.wait_change
            .into_iter()
            .flatten()
            .find(|c| c.name == user)
            .map_or(0.0, |c| c.change / 3600.0)
    };
    let all = || {
        runs.iter()
            .flat_map(|r| users.iter().map(move |u| change(r, u)))
    };
    let top = all().fold(0.0f64, f64::max);
    let bottom = all().fold(0.0f64, f64::min);
    let pad = (top - bottom).max(1e-3) * 0.08;
    let (bottom, top) = (bottom - pad, top + pad);
    let n = users.len().max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("Mean wait per user against {first} (most changed users)"),
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(60)
        .y_label_area_size(65)
        .build_cartesian_2d(0.0..n as f64, bottom..top)
        .map_err(boxed)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_label_formatter(&|_| String::new())
        .y_desc("change in mean wait (hours; + waits longer)")
        .draw()
        .map_err(boxed)?;
    // Each user's name under the middle of its bars (the axis's own labels fall on round
    // numbers, not on the groups).
    let style = TextStyle::from(("sans-serif", 13).into_font()).pos(
        plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        ),
    );
    let (left, upper) = area.get_base_pixel();
    for (u, name) in users.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(u as f64 + 0.5, bottom));
        let (x, y) = (x - left, y - upper);
        let short: String = if name.chars().count() > 9 {
            name.chars().take(8).chain(['~']).collect()
        } else {
            name.to_string()
        };
        area.draw(&Text::new(short, (x, y + 6), style.clone()))
            .map_err(boxed)?;
    }
    chart
        .draw_series(LineSeries::new(
            vec![(0.0, 0.0), (n as f64, 0.0)],
            BLACK.mix(0.6),
        ))
        .map_err(boxed)?;
    let others: Vec<(usize, &PlotRun<'_>)> = runs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.wait_change.is_some())
        .collect();
    let width = 0.8 / others.len().max(1) as f64;
    for (slot, (k, r)) in others.iter().enumerate() {
        let c = color(*k);
        chart
            .draw_series(users.iter().enumerate().map(|(u, name)| {
                let x0 = u as f64 + 0.1 + slot as f64 * width;
                let v = change(r, name);
                Rectangle::new([(x0, 0.0), (x0 + width * 0.9, v)], c.filled())
            }))
            .map_err(boxed)?
            .label(r.label.clone())
            .legend(move |(x, y)| Rectangle::new([(x + 5, y - 4), (x + 15, y + 4)], c.filled()));
    }
    draw_legend(&mut chart)
}
