//! Map rendering: vector features rasterised with anti-aliasing (tiny-skia), raster layers taken
//! from the raster engine, layers composed in request order over the background, and the result
//! encoded as PNG (32-bit or 8-bit paletted) or JPEG. Everything here is CPU work for a blocking
//! thread.

pub mod encode;
pub mod legend;
pub mod text;
pub mod vector;

pub use encode::{encode, ImageFormat};

use tiny_skia::{Pixmap, PixmapPaint, PremultipliedColorU8, Transform};

/// A pixmap from straight (not premultiplied) RGBA pixels; `None` for a bad size.
pub fn pixmap_from_rgba(rgba: &[u8], width: u32, height: u32) -> Option<Pixmap> {
    let mut p = Pixmap::new(width, height)?;
    if rgba.len() != p.data().len() {
        return None;
    }
    for (px, s) in p.pixels_mut().iter_mut().zip(rgba.chunks_exact(4)) {
        let a = u16::from(s[3]);
        let m = |c: u8| ((u16::from(c) * a + 127) / 255) as u8;
        *px = PremultipliedColorU8::from_rgba(m(s[0]), m(s[1]), m(s[2]), s[3])
            .unwrap_or(PremultipliedColorU8::TRANSPARENT);
    }
    Some(p)
}

/// Straight RGBA pixels of a pixmap.
pub fn rgba_of(p: &Pixmap) -> Vec<u8> {
    let mut out = p.data().to_vec();
    // Opaque and empty pixels (most of a map) are the same premultiplied or not.
    for px in out.chunks_exact_mut(4) {
        let a = u16::from(px[3]);
        if a != 0 && a != 255 {
            for c in &mut px[..3] {
                *c = ((u16::from(*c) * 255 + a / 2) / a).min(255) as u8;
            }
        }
    }
    out
}

/// A blank canvas: transparent, or filled with `background` (straight RGB).
pub fn canvas(width: u32, height: u32, background: Option<[u8; 3]>) -> Option<Pixmap> {
    let mut p = Pixmap::new(width, height)?;
    if let Some([r, g, b]) = background {
        p.fill(tiny_skia::Color::from_rgba8(r, g, b, 255));
    }
    Some(p)
}

/// Draws `layer` over `canvas` (source over).
pub fn compose(canvas: &mut Pixmap, layer: &Pixmap) {
    canvas.draw_pixmap(0, 0, layer.as_ref(), &PixmapPaint::default(), Transform::identity(), None);
}

/// The layers drawn in order over a canvas of `width` × `height`, transparent or filled with
/// `background`. A lone layer on a transparent canvas is the map itself (no compositing pass).
pub fn compose_all(width: u32, height: u32, background: Option<[u8; 3]>, mut layers: Vec<Pixmap>) -> Option<Pixmap> {
    if background.is_none() && layers.len() == 1 {
        let only = layers.pop()?;
        if only.width() == width && only.height() == height {
            return Some(only);
        }
        layers.push(only);
    }
    let mut canvas = canvas(width, height, background)?;
    for layer in &layers {
        compose(&mut canvas, layer);
    }
    Some(canvas)
}

/// Parses `0xRRGGBB` (WMS `BGCOLOR`), `#RRGGBB` or `RRGGBB`.
pub fn parse_rgb(text: &str) -> Option<[u8; 3]> {
    let t = text.trim();
    let hex = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).or_else(|| t.strip_prefix('#')).unwrap_or(t);
    if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let v = u32::from_str_radix(hex, 16).ok()?;
    Some([(v >> 16) as u8, (v >> 8) as u8, v as u8])
}
