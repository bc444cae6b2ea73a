//! The PNG plot of ns per motion against N: one line per executor (solid, circles) and its
//! same-run floor (thin, squares), log–log. Drawn with plotters' in-memory bitmap backend;
//! labels come from the built-in pixel font ([`crate::font`]), the PNG encoder is `image`'s.

use std::error::Error;
use std::path::Path;

use plotters::prelude::*;

use crate::font;

/// One line of the plot.
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Line color.
    pub color: RGBColor,
    /// Whether this is a floor (thin line, square markers).
    pub floor: bool,
    /// `(N, ns per motion)` points, N ascending.
    pub points: Vec<(f64, f64)>,
}

/// Plot width in pixels.
pub const WIDTH: u32 = 880;
/// Plot height in pixels.
pub const HEIGHT: u32 = 520;
const TEXT: RGBColor = RGBColor(40, 40, 40);
const GRID: RGBColor = RGBColor(225, 225, 225);
const AXIS: RGBColor = RGBColor(120, 120, 120);

fn boxed<E: std::fmt::Display>(e: E) -> Box<dyn Error> {
    e.to_string().into()
}

/// Draws `text` with its top left at `(x, y)` in pixels, each font pixel `scale`² pixels.
fn label<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    text: &str,
    (x, y): (i32, i32),
    scale: i32,
    color: &RGBColor,
) -> Result<(), Box<dyn Error>> {
    let mut result = Ok(());
    font::for_each_pixel(text, |px, py| {
        for dy in 0..scale {
            for dx in 0..scale {
                if result.is_ok() {
                    result = area
                        .draw_pixel((x + px * scale + dx, y + py * scale + dy), color)
                        .map_err(boxed);
                }
            }
        }
    });
    result
}

/// `1`, `2`, `5` × powers of ten within `lo..=hi` (decades only when the range spans more
/// than two decades).
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let decades_only = hi / lo > 300.0;
    let mut out = Vec::new();
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = decade * m;
            if (m == 1.0 || !decades_only) && v >= lo && v <= hi {
                out.push(v);
            }
        }
        decade *= 10.0;
    }
    out
}

/// A short form of a count: `1K`, `10K`, `1M`, `2500`.
#[must_use]
pub fn short_count(n: f64) -> String {
    let n = n.round() as u64;
    if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{}M", n / 1_000_000)
    } else if n >= 1_000 && n.is_multiple_of(1_000) {
        format!("{}K", n / 1_000)
    } else {
        n.to_string()
    }
}

fn short_value(v: f64) -> String {
    if v >= 1.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').to_string()
    }
}

/// Renders the plot into an RGB buffer of [`WIDTH`] × [`HEIGHT`].
pub fn render(title: &str, series: &[Series]) -> Result<Vec<u8>, Box<dyn Error>> {
    let points = || series.iter().flat_map(|s| s.points.iter().copied());
    let positive = |v: &f64| v.is_finite() && *v > 0.0;
    let xs: Vec<f64> = points().map(|p| p.0).filter(positive).collect();
    let ys: Vec<f64> = points().map(|p| p.1).filter(positive).collect();
    if xs.is_empty() || ys.is_empty() {
        return Err("nothing to plot".into());
    }
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let (x_lo, x_hi) = (min(&xs) / 1.6, max(&xs) * 1.6);
    let (y_lo, y_hi) = (min(&ys) / 1.6, max(&ys) * 1.6);

    let mut buffer = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut buffer, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(boxed)?;
        let (left, right, top, bottom): (i32, i32, i32, i32) = (90, 250, 70, 60);
        let mut chart = ChartBuilder::on(&root)
            .margin_left(left)
            .margin_right(right)
            .margin_top(top)
            .margin_bottom(bottom)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(boxed)?;

        // Grid and tick labels.
        let x_ticks: Vec<f64> = {
            let mut v = xs.clone();
            v.sort_by(f64::total_cmp);
            v.dedup();
            v
        };
        for &x in &x_ticks {
            let top_px = chart.backend_coord(&(x, y_hi));
            let bottom_px = chart.backend_coord(&(x, y_lo));
            root.draw(&PathElement::new(vec![top_px, bottom_px], GRID))
                .map_err(boxed)?;
            let text = short_count(x);
            label(
                &root,
                &text,
                (bottom_px.0 - font::text_width(&text), bottom_px.1 + 8),
                2,
                &TEXT,
            )?;
        }
        for y in ticks(y_lo, y_hi) {
            let left_px = chart.backend_coord(&(x_lo, y));
            let right_px = chart.backend_coord(&(x_hi, y));
            root.draw(&PathElement::new(vec![left_px, right_px], GRID))
                .map_err(boxed)?;
            let text = short_value(y);
            label(
                &root,
                &text,
                (left_px.0 - 8 - 2 * font::text_width(&text), left_px.1 - 7),
                2,
                &TEXT,
            )?;
        }
        // Axes.
        let origin = chart.backend_coord(&(x_lo, y_lo));
        let x_end = chart.backend_coord(&(x_hi, y_lo));
        let y_end = chart.backend_coord(&(x_lo, y_hi));
        root.draw(&PathElement::new(
            vec![y_end, origin, x_end],
            AXIS.stroke_width(2),
        ))
        .map_err(boxed)?;

        // Series.
        for s in series {
            let pts: Vec<(f64, f64)> = s
                .points
                .iter()
                .copied()
                .filter(|(x, y)| positive(x) && positive(y))
                .collect();
            let width = if s.floor { 1 } else { 3 };
            chart
                .draw_series(LineSeries::new(pts.clone(), s.color.stroke_width(width)))
                .map_err(boxed)?;
            if s.floor {
                for p in &pts {
                    let (px, py) = chart.backend_coord(p);
                    root.draw(&Rectangle::new(
                        [(px - 3, py - 3), (px + 3, py + 3)],
                        s.color.filled(),
                    ))
                    .map_err(boxed)?;
                }
            } else {
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 5, s.color.filled())))
                    .map_err(boxed)?;
            }
        }

        // Titles.
        label(&root, title, (left, 12), 2, &TEXT)?;
        let x_title = "N (MOTIONS)";
        label(
            &root,
            x_title,
            (
                (origin.0 + x_end.0) / 2 - font::text_width(x_title),
                HEIGHT as i32 - 24,
            ),
            2,
            &TEXT,
        )?;
        label(&root, "NS/MOTION", (8, top - 22), 2, &TEXT)?;

        // Legend.
        let lx = WIDTH as i32 - right + 20;
        for (i, s) in series.iter().enumerate() {
            let ly = top + 10 + i as i32 * 26;
            let width = if s.floor { 1 } else { 3 };
            root.draw(&PathElement::new(
                vec![(lx, ly + 7), (lx + 30, ly + 7)],
                s.color.stroke_width(width),
            ))
            .map_err(boxed)?;
            label(&root, &s.label, (lx + 38, ly), 2, &TEXT)?;
        }
        root.present().map_err(boxed)?;
    }
    Ok(buffer)
}

/// Renders the plot and writes it as a PNG to `path`.
pub fn write_png(path: &Path, title: &str, series: &[Series]) -> Result<(), Box<dyn Error>> {
    let rgb = render(title, series)?;
    let image = image::RgbImage::from_raw(WIDTH, HEIGHT, rgb).ok_or("plot buffer size")?;
    image.save_with_format(path, image::ImageFormat::Png)?;
    Ok(())
}
