//! Figures as SVG, drawn with plotters: line charts (the reproductions'
//! figures), CDFs on a log delay axis (fridges, Fig. 3 of the paper) and a
//! period's DBM buckets over the true bandwidth (Uyeda et al., Fig. 5).

use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One curve: label, colour, dashed, points (x, y).
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Line colour.
    pub colour: RGBColor,
    /// Drawn dashed.
    pub dashed: bool,
    /// Points in drawing order.
    pub points: Vec<(f64, f64)>,
}

/// The colours of successive series.
pub const PALETTE: [RGBColor; 6] = [
    RGBColor(0x1f, 0x5f, 0xbf),
    RGBColor(0xd0, 0x30, 0x20),
    RGBColor(0xe0, 0x8a, 0x00),
    RGBColor(0x2a, 0x9d, 0x4a),
    RGBColor(0x7b, 0x3f, 0xb0),
    RGBColor(0x55, 0x55, 0x55),
];

impl Series {
    /// A solid series in the `i`-th palette colour.
    pub fn new(i: usize, label: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self { label: label.into(), colour: PALETTE[i % PALETTE.len()], dashed: false, points }
    }

    /// Its line style.
    fn style(&self) -> ShapeStyle {
        ShapeStyle { color: self.colour.to_rgba(), filled: false, stroke_width: 2 }
    }

    /// Whether its points are marked (solid lines of a few points: the measured ones).
    fn marked(&self) -> bool {
        !self.dashed && self.points.len() <= 40
    }

    /// The same series with only the points for which `keep` holds.
    fn keeping(&self, keep: impl Fn((f64, f64)) -> bool) -> Self {
        Self {
            label: self.label.clone(),
            colour: self.colour,
            dashed: self.dashed,
            points: self.points.iter().copied().filter(|&p| keep(p)).collect(),
        }
    }
}

/// The axes of a line chart.
pub struct Axes<'a> {
    /// Caption above the chart.
    pub title: &'a str,
    /// X axis description.
    pub x: &'a str,
    /// Y axis description.
    pub y: &'a str,
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis (points at or below zero are left out).
    pub log_y: bool,
}

fn err(e: impl std::fmt::Display) -> String {
    format!("cannot draw the figure: {e}")
}

/// The span of `v` with a margin, never empty.
fn span(v: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (lo, hi) = v
        .filter(|x| x.is_finite() && (!log || *x > 0.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
    if !lo.is_finite() {
        return if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        (lo / 1.2, (hi * 1.2).max(lo * 2.0))
    } else {
        let pad = ((hi - lo) * 0.05).max(if hi == 0.0 { 1.0 } else { hi.abs() * 0.05 });
        (lo - pad, hi + pad)
    }
}

fn draw_series<'a, DB: DrawingBackend + 'a, X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    series: &[Series],
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    for s in series {
        let style = s.style();
        let pts = s.points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite());
        if s.dashed {
            chart.draw_series(DashedLineSeries::new(pts, 6, 4, style)).map_err(err)?;
        } else {
            chart.draw_series(LineSeries::new(pts.clone(), style).point_size(0)).map_err(err)?;
            if s.marked() {
                chart.draw_series(pts.map(|p| Circle::new(p, 3, style.filled()))).map_err(err)?;
            }
        }
    }
    Ok(())
}

/// Width in pixels of the legend beside a line chart: room for the longest label.
fn legend_width(series: &[Series]) -> u32 {
    let chars = series.iter().map(|s| s.label.chars().count()).max().unwrap_or(0) as u32;
    (chars * 6 + 44).clamp(120, 320)
}

/// The legend of a line chart, in its own panel beside the plot so that it
/// never hides a curve: each series' line (dashed if it is), marker and label.
fn side_legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, series: &[Series]) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let font = ("sans-serif", 13).into_font().color(&BLACK);
    for (i, s) in series.iter().enumerate() {
        let y = 48 + 22 * i as i32;
        let style = s.style();
        if s.dashed {
            for x in [6, 18] {
                area.draw(&PathElement::new(vec![(x, y), (x + 8, y)], style)).map_err(err)?;
            }
        } else {
            area.draw(&PathElement::new(vec![(6, y), (30, y)], style)).map_err(err)?;
            if s.marked() {
                area.draw(&Circle::new((18, y), 3, style.filled())).map_err(err)?;
            }
        }
        area.draw(&Text::new(s.label.clone(), (38, y - 7), font.clone())).map_err(err)?;
    }
    Ok(())
}

/// The legend box of `chart` at `at`.
fn legend<'a, DB: DrawingBackend + 'a, X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    at: SeriesLabelPosition,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(at)
        .draw()
        .map_err(err)
}

/// Builds the chart on `root` with the ranges `$x` and `$y`, draws the mesh
/// and the series (one expansion per combination of linear and log axes).
macro_rules! chart_with {
    ($b:expr, $x:expr, $y:expr, $axes:expr, $series:expr, $x_fmt:expr) => {{
        let mut chart = $b.build_cartesian_2d($x, $y).map_err(err)?;
        chart
            .configure_mesh()
            .x_desc($axes.x)
            .y_desc($axes.y)
            .x_label_formatter($x_fmt)
            .x_labels(8)
            .y_labels(8)
            .draw()
            .map_err(err)?;
        draw_series(&mut chart, $series)?;
    }};
}

/// A logarithmic axis over `lo..hi`: ticks at powers of ten, or of two when
/// the span is under two decades (bucket counts, memory sizes), so that a
/// narrow axis still has several labels.
fn log_axis(lo: f64, hi: f64) -> LogCoord<f64> {
    let r = (lo..hi).log_scale();
    if hi / lo < 100.0 { r.base(2.0).into() } else { r.into() }
}

fn line_chart_on<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    axes: &Axes,
    series: &[Series],
    x_fmt: &dyn Fn(&f64) -> String,
) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(err)?;
    let (x0, x1) = span(series.iter().flat_map(|s| s.points.iter().map(|p| p.0)), axes.log_x);
    let (y0, y1) = span(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)), axes.log_y);
    let (w, _) = root.dim_in_pixel();
    let (plot, side) = root.split_horizontally(w.saturating_sub(legend_width(series)));
    side_legend(&side, series)?;
    let mut b = ChartBuilder::on(&plot);
    b.caption(axes.title, ("sans-serif", 18)).margin(12).x_label_area_size(42).y_label_area_size(64);
    match (axes.log_x, axes.log_y) {
        (false, false) => chart_with!(b, x0..x1, y0..y1, axes, series, x_fmt),
        (true, false) => chart_with!(b, log_axis(x0, x1), y0..y1, axes, series, x_fmt),
        (false, true) => chart_with!(b, x0..x1, log_axis(y0, y1), axes, series, x_fmt),
        (true, true) => chart_with!(b, log_axis(x0, x1), log_axis(y0, y1), axes, series, x_fmt),
    }
    root.present().map_err(err)
}

/// A line chart as SVG text.
pub fn line_chart(axes: &Axes, series: &[Series], x_fmt: &dyn Fn(&f64) -> String) -> Result<String, String> {
    let series: Vec<Series> =
        series.iter().map(|s| s.keeping(|(x, y)| (!axes.log_x || x > 0.0) && (!axes.log_y || y > 0.0))).collect();
    let series = &series[..];
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900 + legend_width(series), 520)).into_drawing_area();
        line_chart_on(root, axes, series, x_fmt)?;
    }
    Ok(svg)
}

/// Delays in ns as the CLI prints them (ns, µs, ms, s).
pub fn fmt_ns(t: f64) -> String {
    match t {
        t if t >= 1e9 => format!("{:.3} s", t / 1e9),
        t if t >= 1e6 => format!("{:.3} ms", t / 1e6),
        t if t >= 1e3 => format!("{:.3} us", t / 1e3),
        t => format!("{t:.0} ns"),
    }
}

/// CDFs on a log delay axis, as SVG: each series holds (delay ns, F).
/// The axis spans the curves' 0.1 % to 99.9 % quantiles, so no decade is empty.
pub fn cdf_chart(title: &str, series: &[Series]) -> Result<String, String> {
    let clipped: Vec<Series> =
        series.iter().map(|s| s.keeping(|(x, y)| x > 0.0 && (0.001..=0.999).contains(&y))).collect();
    let axes = Axes { title, x: "delay (log scale)", y: "fraction of delays ≤ x", log_x: true, log_y: false };
    line_chart(&axes, &clipped, &|x| fmt_ns(*x))
}

/// One period's DBM buckets (first, last + 1, bits per ns) as filled rectangles
/// over the true bandwidth's steps at Δ (start, bits per ns), time in ms from
/// `t0`, as SVG.
pub fn buckets_chart(
    title: &str,
    t0: u64,
    period: u64,
    truth: &[(u64, u64, f64)],
    buckets: &[(u64, u64, f64)],
) -> Result<String, String> {
    let ms = |t: u64| (t.saturating_sub(t0)) as f64 / 1e6;
    let ymax = truth.iter().chain(buckets).map(|b| b.2).fold(1e-9, f64::max) * 1.05;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, 520)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .margin_right(32)
            .x_label_area_size(42)
            .y_label_area_size(64)
            .build_cartesian_2d(0.0..ms(t0 + period), 0.0..ymax)
            .map_err(err)?;
        chart.configure_mesh().x_desc("time in the period (ms)").y_desc("Gb/s").draw().map_err(err)?;
        let blue = PALETTE[0];
        chart
            .draw_series(buckets.iter().map(|&(a, b, y)| {
                Rectangle::new(
                    [(ms(a), 0.0), (ms(b), y)],
                    ShapeStyle { color: blue.mix(0.35), filled: true, stroke_width: 0 },
                )
            }))
            .map_err(err)?
            .label(format!("{} DBM buckets", buckets.len()))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 18, y + 5)], blue.mix(0.35).filled()));
        let grey = RGBColor(0x88, 0x88, 0x88);
        let steps: Vec<(f64, f64)> = truth.iter().flat_map(|&(a, b, y)| [(ms(a), y), (ms(b), y)]).collect();
        chart
            .draw_series(LineSeries::new(steps, grey.stroke_width(1)))
            .map_err(err)?
            .label("true bandwidth at Δ")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], grey));
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Checks before a long run that a figure can be written to `path`.
pub fn check_path(path: &Path) -> Result<(), String> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !dir.is_dir() {
        return Err(format!("--plot {}: the folder does not exist", path.display()));
    }
    if path.file_name().is_none() {
        return Err(format!("--plot {}: not a file name", path.display()));
    }
    Ok(())
}

/// Writes `svg` to `path` atomically (no half-written figure).
pub fn write(path: &Path, svg: &str) -> Result<(), String> {
    check_path(path)?;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().expect("checked").to_string_lossy();
    crate::output::write_atomic(dir, &name, svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_chart_holds_every_series_and_its_labels() {
        let s = vec![
            Series::new(0, "one bank", vec![(0.001, 1.0), (0.01, 2.0), (0.1, 4.0)]),
            Series::new(1, "two banks", vec![(0.001, 0.5), (0.01, 1.0), (0.1, 1.5)]),
        ];
        let svg =
            line_chart(&Axes { title: "error vs loss", x: "loss", y: "error %", log_x: true, log_y: true }, &s, &|x| {
                format!("{x}")
            })
            .unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        for text in ["error vs loss", "one bank", "two banks", "loss", "error %"] {
            assert!(svg.contains(text), "{text} missing");
        }
        assert!(svg.matches("<polyline").count() >= 2, "{svg}");
    }

    #[test]
    fn a_cdf_axis_spans_the_quantiles_only() {
        let pts: Vec<(f64, f64)> = (1..=1000).map(|i| (i as f64 * 1000.0, i as f64 / 1000.0)).collect();
        let svg = cdf_chart("delays", &[Series::new(0, "truth", pts)]).unwrap();
        // 1 us .. 1 ms: tick labels in us and ms, none in seconds.
        assert!(svg.contains(" us") && svg.contains(" ms") && !svg.contains(" s<"), "{svg}");
    }

    #[test]
    fn buckets_are_rectangles_over_the_truth() {
        let truth = vec![(0, 1_000_000, 2.0), (1_000_000, 2_000_000, 6.0)];
        let buckets = vec![(0, 1_500_000, 3.0), (1_500_000, 2_000_000, 6.0)];
        let svg = buckets_chart("period 0", 0, 2_000_000, &truth, &buckets).unwrap();
        assert!(svg.contains("2 DBM buckets") && svg.contains("true bandwidth"), "{svg}");
        assert!(svg.matches("<rect").count() >= 3, "{svg}");
    }
}
