//! Chunk decompression and predictors.

use super::lzw::LzwError;
use crate::{Error, Result};
use std::io::Read;

/// TIFF compression schemes this engine reads; the writer uses `None` and `Deflate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Lzw,
    Deflate,
    PackBits,
    Zstd,
}

impl Compression {
    pub(crate) fn from_tag(v: u16) -> Result<Self> {
        Ok(match v {
            1 => Self::None,
            5 => Self::Lzw,
            8 | 32946 => Self::Deflate,
            32773 => Self::PackBits,
            50000 => Self::Zstd,
            7 => return Err(Error::unsupported("JPEG compression")),
            34887 => return Err(Error::unsupported("LERC compression")),
            50001 => return Err(Error::unsupported("WebP compression")),
            other => return Err(Error::unsupported(format!("compression {other}"))),
        })
    }

    pub(crate) fn tag(self) -> u16 {
        match self {
            Self::None => 1,
            Self::Lzw => 5,
            Self::Deflate => 8,
            Self::PackBits => 32773,
            Self::Zstd => 50000,
        }
    }
}

/// Decompresses one chunk into `expected` bytes (shorter input is zero-padded, as libtiff does
/// for truncated strips). No decoder writes past `expected`: data that decodes to more is invalid,
/// so a small chunk cannot inflate into gigabytes.
pub(crate) fn decompress(c: Compression, input: &[u8], expected: usize, chunk: usize) -> Result<Vec<u8>> {
    let err = |reason: String| Error::Decode { chunk, reason };
    let too_much = |what: &str| err(format!("{what} data decodes to more than the chunk's {expected} bytes"));
    let mut out = match c {
        Compression::None => input[..input.len().min(expected)].to_vec(),
        Compression::Deflate => {
            let mut out = Vec::with_capacity(expected);
            let d = flate2::read::ZlibDecoder::new(input);
            d.take(expected as u64 + 1).read_to_end(&mut out).map_err(|e| err(format!("deflate: {e}")))?;
            if out.len() > expected {
                return Err(too_much("deflate"));
            }
            out
        }
        Compression::Lzw => super::lzw::decode(input, expected).map_err(|e| match e {
            LzwError::TooMuch => too_much("LZW"),
            LzwError::Invalid(e) => err(format!("lzw: {e}")),
        })?,
        Compression::PackBits => unpack_bits(input, expected).ok_or_else(|| too_much("PackBits"))?,
        Compression::Zstd => {
            let mut out = Vec::with_capacity(expected);
            let d = ruzstd::decoding::StreamingDecoder::new(input).map_err(|e| err(format!("zstd: {e}")))?;
            d.take(expected as u64 + 1).read_to_end(&mut out).map_err(|e| err(format!("zstd: {e}")))?;
            if out.len() > expected {
                return Err(too_much("ZSTD"));
            }
            out
        }
    };
    out.resize(expected, 0);
    Ok(out)
}

/// PackBits into at most `expected` bytes; `None` when a run would write past them.
fn unpack_bits(input: &[u8], expected: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(expected);
    let mut i = 0;
    while i < input.len() {
        let n = input[i] as i8;
        i += 1;
        if n >= 0 {
            let len = n as usize + 1;
            let end = (i + len).min(input.len());
            if out.len() + (end - i) > expected {
                return None;
            }
            out.extend_from_slice(&input[i..end]);
            i = end;
        } else if n != -128 {
            let len = (-(n as i16)) as usize + 1;
            if let Some(&b) = input.get(i) {
                if out.len() + len > expected {
                    return None;
                }
                out.extend(std::iter::repeat_n(b, len));
            }
            i += 1;
        }
    }
    Some(out)
}

/// Converts file-order samples to native order (in place).
pub(crate) fn to_native(buf: &mut [u8], sample_size: usize, little_endian: bool) {
    if little_endian == cfg!(target_endian = "little") || sample_size == 1 {
        return;
    }
    for s in buf.chunks_exact_mut(sample_size) {
        s.reverse();
    }
}

/// Undoes horizontal differencing (predictor 2) on native-order integer samples.
pub(crate) fn undo_horizontal(buf: &mut [u8], row_samples: usize, spp: usize, sample_size: usize) {
    let row_bytes = row_samples * sample_size;
    for row in buf.chunks_exact_mut(row_bytes) {
        match sample_size {
            1 => {
                for i in spp..row.len() {
                    row[i] = row[i].wrapping_add(row[i - spp]);
                }
            }
            2 => accumulate::<2>(row, spp, |a, b| {
                (u16::from_ne_bytes(a).wrapping_add(u16::from_ne_bytes(b))).to_ne_bytes()
            }),
            4 => accumulate::<4>(row, spp, |a, b| {
                (u32::from_ne_bytes(a).wrapping_add(u32::from_ne_bytes(b))).to_ne_bytes()
            }),
            8 => accumulate::<8>(row, spp, |a, b| {
                (u64::from_ne_bytes(a).wrapping_add(u64::from_ne_bytes(b))).to_ne_bytes()
            }),
            _ => {}
        }
    }
}

fn accumulate<const N: usize>(row: &mut [u8], spp: usize, add: impl Fn([u8; N], [u8; N]) -> [u8; N]) {
    let n = row.len() / N;
    for i in spp..n {
        let prev: [u8; N] = row[(i - spp) * N..(i - spp + 1) * N].try_into().unwrap_or([0; N]);
        let cur: [u8; N] = row[i * N..(i + 1) * N].try_into().unwrap_or([0; N]);
        row[i * N..(i + 1) * N].copy_from_slice(&add(cur, prev));
    }
}

/// Undoes the floating-point predictor (3): byte-wise differencing over byte planes stored most
/// significant first. The result is in native order whatever the file's byte order.
pub(crate) fn undo_float(buf: &mut [u8], row_samples: usize, spp: usize, sample_size: usize) {
    let row_bytes = row_samples * sample_size;
    let mut tmp = vec![0u8; row_bytes];
    for row in buf.chunks_exact_mut(row_bytes) {
        if spp == 1 {
            let mut acc = 0u8;
            for b in row.iter_mut() {
                acc = acc.wrapping_add(*b);
                *b = acc;
            }
        } else {
            for i in spp..row_bytes {
                row[i] = row[i].wrapping_add(row[i - spp]);
            }
        }
        // Plane 0 holds the most significant bytes of every sample, plane 1 the next, and so on.
        match sample_size {
            4 => {
                let (p0, rest) = row.split_at(row_samples);
                let (p1, rest) = rest.split_at(row_samples);
                let (p2, p3) = rest.split_at(row_samples);
                for (((out, a), (b, c)), d) in tmp.chunks_exact_mut(4).zip(p0).zip(p1.iter().zip(p2)).zip(p3) {
                    out.copy_from_slice(&u32::from_be_bytes([*a, *b, *c, *d]).to_ne_bytes());
                }
            }
            _ => {
                for s in 0..row_samples {
                    for b in 0..sample_size {
                        let dst = if cfg!(target_endian = "little") { sample_size - 1 - b } else { b };
                        tmp[s * sample_size + dst] = row[b * row_samples + s];
                    }
                }
            }
        }
        row.copy_from_slice(&tmp);
    }
}

/// Applies horizontal differencing with `spp` interleaved samples per pixel (for the writer).
pub(crate) fn apply_horizontal_spp(buf: &mut [u8], row_samples: usize, spp: usize, sample_size: usize) {
    if spp == 1 {
        return apply_horizontal(buf, row_samples, sample_size);
    }
    let row_bytes = row_samples * sample_size;
    for row in buf.chunks_exact_mut(row_bytes) {
        let mut vals: Vec<u64> = row.chunks_exact(sample_size).map(read_uint).collect();
        for i in (spp..vals.len()).rev() {
            vals[i] = vals[i].wrapping_sub(vals[i - spp]);
        }
        let range = if cfg!(target_endian = "little") { 0..sample_size } else { 8 - sample_size..8 };
        for (c, v) in row.chunks_exact_mut(sample_size).zip(vals) {
            c.copy_from_slice(&v.to_ne_bytes()[range.clone()]);
        }
    }
}

fn read_uint(c: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    if cfg!(target_endian = "little") {
        b[..c.len()].copy_from_slice(c);
    } else {
        b[8 - c.len()..].copy_from_slice(c);
    }
    u64::from_ne_bytes(b)
}

/// Applies horizontal differencing to native-order samples (for the writer).
pub(crate) fn apply_horizontal(buf: &mut [u8], row_samples: usize, sample_size: usize) {
    let row_bytes = row_samples * sample_size;
    for row in buf.chunks_exact_mut(row_bytes) {
        match sample_size {
            1 => {
                for i in (1..row.len()).rev() {
                    row[i] = row[i].wrapping_sub(row[i - 1]);
                }
            }
            2 => {
                for i in (1..row_samples).rev() {
                    let a = u16::from_ne_bytes([row[2 * i], row[2 * i + 1]]);
                    let b = u16::from_ne_bytes([row[2 * i - 2], row[2 * i - 1]]);
                    row[2 * i..2 * i + 2].copy_from_slice(&a.wrapping_sub(b).to_ne_bytes());
                }
            }
            4 => {
                for i in (1..row_samples).rev() {
                    let a = u32::from_ne_bytes([row[4 * i], row[4 * i + 1], row[4 * i + 2], row[4 * i + 3]]);
                    let b = u32::from_ne_bytes([row[4 * i - 4], row[4 * i - 3], row[4 * i - 2], row[4 * i - 1]]);
                    row[4 * i..4 * i + 4].copy_from_slice(&a.wrapping_sub(b).to_ne_bytes());
                }
            }
            _ => {}
        }
    }
}

/// Applies the floating-point predictor to native-order samples (for the writer): byte planes,
/// then differencing with a stride of `spp` bytes, as libtiff's `fpDiff` does for interleaved bands.
pub(crate) fn apply_float(buf: &mut [u8], row_samples: usize, spp: usize, sample_size: usize) {
    if sample_size == 4 && spp == 1 {
        let row_bytes = row_samples * sample_size;
        let mut tmp = vec![0u8; row_bytes];
        // The common single-band Float32 case, a few times faster: whole samples split into their
        // byte planes, then one pass of differencing.
        for row in buf.chunks_exact_mut(row_bytes) {
            let (p0, rest) = tmp.split_at_mut(row_samples);
            let (p1, rest) = rest.split_at_mut(row_samples);
            let (p2, p3) = rest.split_at_mut(row_samples);
            for (i, s) in row.chunks_exact(4).enumerate() {
                let [a, b, c, d] = u32::from_ne_bytes([s[0], s[1], s[2], s[3]]).to_be_bytes();
                p0[i] = a;
                p1[i] = b;
                p2[i] = c;
                p3[i] = d;
            }
            let mut prev = 0u8;
            for (o, t) in row.iter_mut().zip(&tmp) {
                *o = t.wrapping_sub(prev);
                prev = *t;
            }
        }
        return;
    }
    apply_float_bytes(buf, row_samples, spp, sample_size);
}

/// The floating-point predictor for any sample size and interleaving, byte by byte.
fn apply_float_bytes(buf: &mut [u8], row_samples: usize, spp: usize, sample_size: usize) {
    let row_bytes = row_samples * sample_size;
    let mut tmp = vec![0u8; row_bytes];
    for row in buf.chunks_exact_mut(row_bytes) {
        for s in 0..row_samples {
            for b in 0..sample_size {
                let src = if cfg!(target_endian = "little") { sample_size - 1 - b } else { b };
                tmp[b * row_samples + s] = row[s * sample_size + src];
            }
        }
        for i in (spp..row_bytes).rev() {
            tmp[i] = tmp[i].wrapping_sub(tmp[i - spp]);
        }
        row.copy_from_slice(&tmp);
    }
}

/// Compresses one chunk.
pub(crate) fn compress(c: Compression, data: &[u8], level: u32) -> Result<Vec<u8>> {
    use std::io::Write;
    match c {
        Compression::None => Ok(data.to_vec()),
        Compression::Deflate if level == super::writer::FASTEST => Ok(fdeflate::compress_to_vec(data)),
        Compression::Deflate => {
            let mut e =
                flate2::write::ZlibEncoder::new(Vec::with_capacity(data.len() / 2), flate2::Compression::new(level));
            e.write_all(data)?;
            Ok(e.finish()?)
        }
        other => Err(Error::unsupported(format!("writing {other:?} compression"))),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn packbits_round_trip_of_the_tiff_spec_example() {
        let packed = [0xFEu8, 0xAA, 0x02, 0x80, 0x00, 0x2A, 0xFD, 0xAA, 0x03, 0x80, 0x00, 0x2A, 0x22, 0xF7, 0xAA];
        let expected = [
            0xAAu8, 0xAA, 0xAA, 0x80, 0x00, 0x2A, 0xAA, 0xAA, 0xAA, 0xAA, 0x80, 0x00, 0x2A, 0x22, 0xAA, 0xAA, 0xAA,
            0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA,
        ];
        assert_eq!(unpack_bits(&packed, expected.len()).unwrap(), expected);
        assert!(unpack_bits(&packed, expected.len() - 1).is_none());
    }

    #[test]
    fn float_predictor_round_trips() {
        let vals: Vec<f32> = (0..24).map(|i| 1000.0 + i as f32 * 0.37).collect();
        let mut bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let orig = bytes.clone();
        apply_float(&mut bytes, 8, 1, 4);
        assert_ne!(bytes, orig);
        undo_float(&mut bytes, 8, 1, 4);
        assert_eq!(bytes, orig);
        // The single-band Float32 path matches the general byte-by-byte one.
        let mut fast = orig.clone();
        apply_float(&mut fast, 8, 1, 4);
        let mut general = orig.clone();
        apply_float_bytes(&mut general, 8, 1, 4);
        assert_eq!(fast, general);
        // Three interleaved bands: eight pixels of 24 samples a row.
        let mut bytes = orig.clone();
        apply_float(&mut bytes, 24, 3, 4);
        undo_float(&mut bytes, 24, 3, 4);
        assert_eq!(bytes, orig);
    }

    #[test]
    fn horizontal_predictor_round_trips() {
        let vals: Vec<u16> = (0..16).map(|i| (i * i * 37) as u16).collect();
        let mut bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_ne_bytes()).collect();
        let orig = bytes.clone();
        apply_horizontal(&mut bytes, 8, 2);
        undo_horizontal(&mut bytes, 8, 1, 2);
        assert_eq!(bytes, orig);
    }
}
