//! Image encodings: PNG with 8-bit RGBA samples, PNG with an 8-bit palette (exact when the map
//! has at most 256 colours, otherwise a popularity palette over 4-bit-per-channel buckets), and
//! baseline JPEG over an opaque background.

use std::collections::HashMap;

/// An output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    Png,
    Png8,
    Jpeg,
}

impl ImageFormat {
    /// The formats offered, with their MIME types as advertised.
    pub const OFFERED: &'static [(&'static str, ImageFormat)] = &[
        ("image/png", ImageFormat::Png),
        ("image/png; mode=8bit", ImageFormat::Png8),
        ("image/jpeg", ImageFormat::Jpeg),
    ];

    /// Reads a `FORMAT` value (`image/png8` and `image/png; mode=8bit` are the 8-bit PNG, as
    /// in MapServer and GeoServer).
    pub fn parse(text: &str) -> Option<Self> {
        let t: String = text.chars().filter(|c| !c.is_whitespace()).collect::<String>().to_ascii_lowercase();
        match t.as_str() {
            "image/png" | "png" | "image/png;mode=32bit" | "image/png;mode=24bit" => Some(Self::Png),
            "image/png8" | "image/png;mode=8bit" | "png8" => Some(Self::Png8),
            "image/jpeg" | "image/jpg" | "jpeg" | "jpg" => Some(Self::Jpeg),
            _ => None,
        }
    }

    /// The MIME type of the answer.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Png8 => "image/png; mode=8bit",
            Self::Jpeg => "image/jpeg",
        }
    }

    /// The Content-Type header (the 8-bit PNG is a PNG to every client).
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Png | Self::Png8 => "image/png",
            Self::Jpeg => "image/jpeg",
        }
    }
}

/// Encoding failed (a size the encoders cannot take).
#[derive(Debug, thiserror::Error)]
#[error("encoding the image failed: {0}")]
pub struct EncodeError(String);

/// Encodes straight RGBA pixels; JPEG is composed over `background`.
pub fn encode(
    rgba: &[u8],
    width: u32,
    height: u32,
    format: ImageFormat,
    background: [u8; 3],
) -> Result<Vec<u8>, EncodeError> {
    match format {
        ImageFormat::Png => png_rgba(rgba, width, height),
        ImageFormat::Png8 => png_paletted(rgba, width, height),
        ImageFormat::Jpeg => jpeg(rgba, width, height, background),
    }
}

fn png_rgba(rgba: &[u8], width: u32, height: u32) -> Result<Vec<u8>, EncodeError> {
    let mut buf = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut buf, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        let mut w = enc.write_header().map_err(|e| EncodeError(e.to_string()))?;
        w.write_image_data(rgba).map_err(|e| EncodeError(e.to_string()))?;
    }
    Ok(buf)
}

/// A palette of at most 256 colours and each pixel's index.
pub fn quantize(rgba: &[u8]) -> (Vec<[u8; 4]>, Vec<u8>) {
    let mut exact: HashMap<[u8; 4], u8> = HashMap::new();
    let mut palette = Vec::new();
    let mut indices = Vec::with_capacity(rgba.len() / 4);
    let mut fits = true;
    for px in rgba.chunks_exact(4) {
        let c = normalise([px[0], px[1], px[2], px[3]]);
        let next = palette.len();
        let i = match exact.get(&c) {
            Some(i) => *i,
            None if next < 256 => {
                exact.insert(c, next as u8);
                palette.push(c);
                next as u8
            }
            None => {
                fits = false;
                break;
            }
        };
        indices.push(i);
    }
    if fits {
        return (palette, indices);
    }
    // Popularity over 4-bit buckets; each bucket's colour is the mean of its pixels.
    let mut buckets: HashMap<u16, (u64, [u64; 4])> = HashMap::new();
    for px in rgba.chunks_exact(4) {
        let c = normalise([px[0], px[1], px[2], px[3]]);
        let e = buckets.entry(bucket(c)).or_insert((0, [0; 4]));
        e.0 += 1;
        for (sum, v) in e.1.iter_mut().zip(c) {
            *sum += u64::from(v);
        }
    }
    let mut ranked: Vec<(u16, (u64, [u64; 4]))> = buckets.into_iter().collect();
    ranked.sort_unstable_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(&b.0)));
    let palette: Vec<[u8; 4]> =
        ranked.iter().take(256).map(|(_, (n, sum))| [0, 1, 2, 3].map(|k| (sum[k] / n.max(&1)) as u8)).collect();
    let mut cache: HashMap<[u8; 4], u8> = HashMap::new();
    let indices = rgba
        .chunks_exact(4)
        .map(|px| {
            let c = normalise([px[0], px[1], px[2], px[3]]);
            *cache.entry(c).or_insert_with(|| nearest(&palette, c))
        })
        .collect();
    (palette, indices)
}

/// Fully transparent pixels are all the same colour.
fn normalise(c: [u8; 4]) -> [u8; 4] {
    if c[3] == 0 {
        [0, 0, 0, 0]
    } else {
        c
    }
}

fn bucket(c: [u8; 4]) -> u16 {
    (u16::from(c[0] >> 4) << 12) | (u16::from(c[1] >> 4) << 8) | (u16::from(c[2] >> 4) << 4) | u16::from(c[3] >> 4)
}

fn nearest(palette: &[[u8; 4]], c: [u8; 4]) -> u8 {
    let d = |p: &[u8; 4]| -> i32 { (0..4).map(|k| (i32::from(p[k]) - i32::from(c[k])).pow(2)).sum() };
    palette.iter().enumerate().min_by_key(|(_, p)| d(p)).map_or(0, |(i, _)| i as u8)
}

fn png_paletted(rgba: &[u8], width: u32, height: u32) -> Result<Vec<u8>, EncodeError> {
    let (palette, indices) = quantize(rgba);
    let mut buf = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut buf, width, height);
        enc.set_color(png::ColorType::Indexed);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        enc.set_palette(palette.iter().flat_map(|c| [c[0], c[1], c[2]]).collect::<Vec<u8>>());
        if palette.iter().any(|c| c[3] < 255) {
            enc.set_trns(palette.iter().map(|c| c[3]).collect::<Vec<u8>>());
        }
        let mut w = enc.write_header().map_err(|e| EncodeError(e.to_string()))?;
        w.write_image_data(&indices).map_err(|e| EncodeError(e.to_string()))?;
    }
    Ok(buf)
}

fn jpeg(rgba: &[u8], width: u32, height: u32, bg: [u8; 3]) -> Result<Vec<u8>, EncodeError> {
    let (w, h) = (
        u16::try_from(width).map_err(|_| EncodeError("JPEG images are at most 65535 pixels wide".into()))?,
        u16::try_from(height).map_err(|_| EncodeError("JPEG images are at most 65535 pixels high".into()))?,
    );
    let mut rgb = Vec::with_capacity(rgba.len() / 4 * 3);
    for px in rgba.chunks_exact(4) {
        let a = u32::from(px[3]);
        for k in 0..3 {
            rgb.push(((u32::from(px[k]) * a + u32::from(bg[k]) * (255 - a) + 127) / 255) as u8);
        }
    }
    let mut buf = Vec::new();
    let enc = jpeg_encoder::Encoder::new(&mut buf, 85);
    enc.encode(&rgb, w, h, jpeg_encoder::ColorType::Rgb).map_err(|e| EncodeError(e.to_string()))?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn few_colours_quantize_exactly() {
        let rgba = [[255, 0, 0, 255], [0, 0, 0, 0], [255, 0, 0, 255], [1, 2, 3, 0]].concat();
        let (palette, idx) = quantize(&rgba);
        assert_eq!(palette.len(), 2);
        assert_eq!(idx, vec![0, 1, 0, 1]);
    }

    #[test]
    fn many_colours_get_a_palette_of_256() {
        let rgba: Vec<u8> =
            (0..70_000u32).flat_map(|i| [(i % 256) as u8, (i / 256 % 256) as u8, (i / 7 % 256) as u8, 255]).collect();
        let (palette, idx) = quantize(&rgba);
        assert!(palette.len() <= 256);
        assert_eq!(idx.len(), 70_000);
    }
}
