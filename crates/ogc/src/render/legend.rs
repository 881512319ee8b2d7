//! Legend graphics: a polygon swatch for vector styles, a vertical ramp for raster styles.

use crate::layers::Legend;
use crate::render::vector::{PixelGeometry, VectorStyle};
use tiny_skia::{Paint, Pixmap, Rect, Transform};

/// Default legend size (WMS `LegendURL` width and height).
pub const SIZE: (u32, u32) = (20, 20);

/// The size a legend is drawn at when the client names none (and that the capabilities give):
/// a swatch is [`SIZE`], a colour ramp a bar tall enough to read its colours.
pub fn default_size(legend: &Legend) -> (u32, u32) {
    match legend {
        Legend::Ramp(stops) if stops.len() > 1 => (20, 120),
        _ => SIZE,
    }
}

/// Draws a legend of `width` × `height` pixels; `None` for a zero size.
pub fn draw(legend: &Legend, width: u32, height: u32) -> Option<Pixmap> {
    let mut p = Pixmap::new(width, height)?;
    let (w, h) = (width as f32, height as f32);
    match legend {
        Legend::Swatch { fill, stroke } => {
            let m = (w.min(h) * 0.15).max(1.0);
            let ring = vec![(m, m), (w - m, m), (w - m, h - m), (m, h - m), (m, m)];
            let g = PixelGeometry { polygons: vec![vec![ring]], ..PixelGeometry::default() };
            g.draw(
                &mut p,
                &VectorStyle { fill: *fill, stroke: *stroke, stroke_width: 1.5, point_radius: 4.0, labels: false },
            );
        }
        Legend::Ramp(stops) if !stops.is_empty() => {
            // Highest value at the top, as map legends read.
            let n = stops.len() as f32;
            for (k, (_, c)) in stops.iter().rev().enumerate() {
                let y0 = (k as f32 * h / n).floor();
                let y1 = ((k as f32 + 1.0) * h / n).ceil().min(h);
                let Some(rect) = Rect::from_xywh(0.0, y0, w, (y1 - y0).max(1.0)) else { continue };
                let mut paint = Paint::default();
                paint.set_color_rgba8(c[0], c[1], c[2], c[3]);
                p.fill_rect(rect, &paint, Transform::identity(), None);
            }
        }
        Legend::Ramp(_) => {}
    }
    Some(p)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A ramp's default legend is a bar tall enough to show its colours, highest on top; a
    /// swatch stays a small square.
    #[test]
    fn a_ramp_legend_is_a_bar_and_a_swatch_a_square() {
        let ramp = Legend::Ramp(vec![
            ("0".into(), [0, 0, 255, 255]),
            ("500".into(), [0, 255, 0, 255]),
            ("1000".into(), [255, 0, 0, 255]),
        ]);
        assert_eq!(default_size(&ramp), (20, 120));
        assert_eq!(default_size(&Legend::Swatch { fill: Some([1, 2, 3, 255]), stroke: None }), SIZE);
        let p = draw(&ramp, 20, 120).unwrap();
        let top = p.pixel(10, 1).unwrap().demultiply();
        let bottom = p.pixel(10, 118).unwrap().demultiply();
        assert_eq!((top.red(), top.blue()), (255, 0));
        assert_eq!((bottom.red(), bottom.blue()), (0, 255));
    }
}
