//! Color relief, as `gdaldem color-relief`: stops of elevation → colour, linear interpolation
//! (colour channels rounded with gdaldem's `+ 0.45`), or exact / nearest entry; values outside
//! the stops take the end colours; stops may be percentages of the raster's range; `nv` names
//! the colour of nodata pixels (transparent when absent).

use super::source::{DemSource, RowSink, Stats};
use super::OutSample;
use crate::{Error, Result};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// How a value between two stops is coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColorMode {
    /// Linear interpolation (gdaldem's default).
    #[default]
    Interpolate,
    /// Only values equal to a stop are coloured; others are transparent black (`-exact_color_entry`).
    Exact,
    /// The nearest stop's colour (`-nearest_color_entry`).
    Nearest,
}

/// A stop's value: a number, a percentage of the range (`"50%"`), or `"nv"` (nodata).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StopValue {
    Number(f64),
    Text(String),
}

/// One stop: `color` is `[r, g, b]` or `[r, g, b, a]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColorStop {
    pub value: StopValue,
    pub color: Vec<u8>,
}

/// Named ramps, in percent of the raster's range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColorRamp {
    /// Green lowlands, brown hills, white summits.
    Terrain,
    /// Perceptually uniform blue → green → yellow.
    Viridis,
    /// Black to white.
    Grayscale,
    /// Cold blue to warm red (for slope or TPI).
    Spectral,
    /// ColorBrewer's diverging red – yellow – green (11 classes), for vegetation indices: low
    /// values red, high values green. Named `rdylgn`.
    RdYlGn,
    /// ColorBrewer's diverging red – white – blue (11 classes), for water and moisture indices.
    /// Named `rdbu`.
    RdBu,
    /// ColorBrewer's sequential light to dark blue (9 classes).
    Blues,
}

impl ColorRamp {
    /// The names accepted in requests.
    pub const NAMES: &'static [&'static str] =
        &["terrain", "viridis", "grayscale", "spectral", "rdylgn", "rdbu", "blues"];

    fn stops(self) -> Vec<(f64, [u8; 4])> {
        let s: &[(f64, [u8; 3])] = match self {
            Self::Terrain => &[
                (0.0, [0, 97, 71]),
                (15.0, [16, 122, 47]),
                (30.0, [232, 215, 125]),
                (50.0, [161, 67, 0]),
                (70.0, [130, 30, 30]),
                (85.0, [161, 161, 161]),
                (100.0, [255, 255, 255]),
            ],
            Self::Viridis => &[
                (0.0, [68, 1, 84]),
                (25.0, [59, 82, 139]),
                (50.0, [33, 145, 140]),
                (75.0, [94, 201, 98]),
                (100.0, [253, 231, 37]),
            ],
            Self::Grayscale => &[(0.0, [0, 0, 0]), (100.0, [255, 255, 255])],
            Self::Spectral => &[
                (0.0, [43, 131, 186]),
                (25.0, [171, 221, 164]),
                (50.0, [255, 255, 191]),
                (75.0, [253, 174, 97]),
                (100.0, [215, 25, 28]),
            ],
            Self::RdYlGn => &[
                (0.0, [165, 0, 38]),
                (10.0, [215, 48, 39]),
                (20.0, [244, 109, 67]),
                (30.0, [253, 174, 97]),
                (40.0, [254, 224, 139]),
                (50.0, [255, 255, 191]),
                (60.0, [217, 239, 139]),
                (70.0, [166, 217, 106]),
                (80.0, [102, 189, 99]),
                (90.0, [26, 152, 80]),
                (100.0, [0, 104, 55]),
            ],
            Self::RdBu => &[
                (0.0, [103, 0, 31]),
                (10.0, [178, 24, 43]),
                (20.0, [214, 96, 77]),
                (30.0, [244, 165, 130]),
                (40.0, [253, 219, 199]),
                (50.0, [247, 247, 247]),
                (60.0, [209, 229, 240]),
                (70.0, [146, 197, 222]),
                (80.0, [67, 147, 195]),
                (90.0, [33, 102, 172]),
                (100.0, [5, 48, 97]),
            ],
            Self::Blues => &[
                (0.0, [247, 251, 255]),
                (12.5, [222, 235, 247]),
                (25.0, [198, 219, 239]),
                (37.5, [158, 202, 225]),
                (50.0, [107, 174, 214]),
                (62.5, [66, 146, 198]),
                (75.0, [33, 113, 181]),
                (87.5, [8, 81, 156]),
                (100.0, [8, 48, 107]),
            ],
        };
        s.iter().map(|(p, c)| (*p, [c[0], c[1], c[2], 255])).collect()
    }
}

/// Color relief options: a named `ramp` or custom `stops` (one of the two).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ColorReliefOptions {
    pub ramp: Option<ColorRamp>,
    pub stops: Option<Vec<ColorStop>>,
    pub mode: ColorMode,
    /// Write an alpha band (`-alpha`).
    pub alpha: bool,
}

impl ColorReliefOptions {
    /// Checks that exactly one of `ramp` and `stops` is given and that the stops are well formed.
    pub fn validate(&self) -> Result<()> {
        match (&self.ramp, &self.stops) {
            (Some(_), Some(_)) => Err(Error::arg("give either ramp or stops, not both")),
            (None, None) => Err(Error::arg("give a ramp or stops")),
            (None, Some(stops)) => {
                if stops.is_empty() {
                    return Err(Error::arg("stops is empty"));
                }
                for (i, s) in stops.iter().enumerate() {
                    if !(s.color.len() == 3 || s.color.len() == 4) {
                        return Err(Error::arg(format!("stops[{i}].color must have 3 or 4 components")));
                    }
                    if let StopValue::Text(t) = &s.value {
                        if t != "nv" && parse_percent(t).is_none() {
                            return Err(Error::arg(format!(
                                "stops[{i}].value must be a number, a percentage or \"nv\""
                            )));
                        }
                    }
                }
                Ok(())
            }
            (Some(_), None) => Ok(()),
        }
    }

    fn uses_percent(&self) -> bool {
        self.ramp.is_some() || self.stops.iter().flatten().any(|s| matches!(&s.value, StopValue::Text(t) if t != "nv"))
    }

    /// `n` evenly spaced values from `min` to `max` with their colours, for legends.
    pub fn samples(&self, min: f64, max: f64, n: usize) -> Vec<(f64, [u8; 4])> {
        let table = self.table(min, max);
        let steps = n.saturating_sub(1).max(1) as f64;
        (0..n).map(|i| min + (max - min) * i as f64 / steps).map(|v| (v, table.color(v))).collect()
    }

    /// Resolves the stops against the raster's range.
    pub(crate) fn table(&self, min: f64, max: f64) -> ColorTable {
        let mut entries = Vec::new();
        let mut nodata = None;
        if let Some(r) = self.ramp {
            for (p, c) in r.stops() {
                entries.push((min + p / 100.0 * (max - min), c));
            }
        }
        for s in self.stops.iter().flatten() {
            let c = [s.color[0], s.color[1], s.color[2], s.color.get(3).copied().unwrap_or(255)];
            match &s.value {
                StopValue::Number(v) => entries.push((*v, c)),
                StopValue::Text(t) if t == "nv" => nodata = Some(c),
                StopValue::Text(t) => {
                    if let Some(p) = parse_percent(t) {
                        entries.push((min + p / 100.0 * (max - min), c));
                    }
                }
            }
        }
        entries.sort_by(|a, b| a.0.total_cmp(&b.0));
        ColorTable { entries, nodata, mode: self.mode }
    }
}

fn parse_percent(t: &str) -> Option<f64> {
    t.strip_suffix('%')?.trim().parse().ok().filter(|v: &f64| v.is_finite())
}

/// Resolved stops.
pub(crate) struct ColorTable {
    entries: Vec<(f64, [u8; 4])>,
    nodata: Option<[u8; 4]>,
    mode: ColorMode,
}

impl ColorTable {
    pub(crate) fn nodata_color(&self) -> [u8; 4] {
        self.nodata.unwrap_or([0, 0, 0, 0])
    }

    /// The colour of `v` (not nodata).
    #[inline]
    pub(crate) fn color(&self, v: f64) -> [u8; 4] {
        let e = &self.entries;
        if e.is_empty() || v.is_nan() {
            return [0, 0, 0, 0];
        }
        // First stop not smaller than v.
        let i = e.partition_point(|s| s.0 < v);
        if self.mode == ColorMode::Exact {
            return match e.get(i) {
                Some(s) if s.0 == v => s.1,
                _ => [0, 0, 0, 0],
            };
        }
        if i == 0 {
            return e[0].1;
        }
        if i == e.len() {
            return e[i - 1].1;
        }
        let (lo, hi) = (e[i - 1], e[i]);
        if hi.0 == v {
            return hi.1;
        }
        if self.mode == ColorMode::Nearest {
            return if v - lo.0 < hi.0 - v { lo.1 } else { hi.1 };
        }
        let r = (v - lo.0) / (hi.0 - lo.0);
        let mut c = [0u8; 4];
        for ((c, a), b) in c.iter_mut().zip(lo.1).zip(hi.1) {
            let (a, b) = (a as f64, b as f64);
            *c = (0.45 + a + r * (b - a)).clamp(0.0, 255.0) as u8;
        }
        c
    }
}

/// Minimum and maximum of the valid samples, streaming by blocks.
pub(crate) fn min_max<S: DemSource>(src: &S) -> Result<(f64, f64)> {
    let nd = src.nodata();
    let (w, h) = (src.width(), src.height());
    let block = super::block_rows(src);
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    let mut y = 0;
    while y < h {
        let n = block.min(h - y);
        let rows = src.read_rows(y, n)?;
        let (l, u) = rows
            .par_chunks(w.max(1))
            .map(|r| {
                let mut l = f64::INFINITY;
                let mut u = f64::NEG_INFINITY;
                for &v in r {
                    let v = v as f64;
                    if v.is_nan() || nd.is_some_and(|n| n == v) {
                        continue;
                    }
                    l = l.min(v);
                    u = u.max(v);
                }
                (l, u)
            })
            .reduce(|| (f64::INFINITY, f64::NEG_INFINITY), |a, b| (a.0.min(b.0), a.1.max(b.1)));
        lo = lo.min(l);
        hi = hi.max(u);
        y += n;
    }
    Ok((lo, hi))
}

pub(crate) fn process<S: DemSource, T: OutSample, K: RowSink<T> + Send>(
    o: &ColorReliefOptions,
    src: &S,
    sink: &mut K,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<Stats> {
    let (lo, hi) = if o.uses_percent() { min_max(src)? } else { (0.0, 0.0) };
    let table = o.table(lo, hi);
    let bands = if o.alpha { 4 } else { 3 };
    let nd = src.nodata();
    let w = src.width();
    let lookup = Lookup::new(&table);
    let paint = |o: &mut [T], r: &[f32]| match bands {
        3 => paint_row::<T, 3>(&lookup, nd, o, r),
        _ => paint_row::<T, 4>(&lookup, nd, o, r),
    };
    let mut done = 0;
    // Reading, colouring (on rayon) and writing overlap; colour relief has no statistics.
    super::pipeline(src, sink, None, progress, |rows, _| {
        let mut out = vec![T::default(); rows.len() * bands];
        out.par_chunks_mut(w * bands).zip(rows.par_chunks(w)).for_each(|(o, r)| paint(o, r));
        done += rows.len() / w;
        (out, done)
    })
}

/// Colours one row of `B`-band pixels.
#[inline]
fn paint_row<T: OutSample, const B: usize>(lookup: &Lookup<'_>, nd: Option<f64>, out: &mut [T], row: &[f32]) {
    let ndc = u32::from_le_bytes(lookup.table.nodata_color());
    let put = |px: &mut [T], c: u32| {
        for (k, p) in px.iter_mut().enumerate() {
            *p = T::from_byte((c >> (8 * k)) as u8);
        }
    };
    let pixels = out.chunks_exact_mut(B).zip(row);
    // The nodata test chosen once per row rather than per pixel.
    match nd {
        None => pixels.for_each(|(px, &v)| put(px, lookup.packed(v as f64))),
        Some(n) if n.is_nan() => pixels.for_each(|(px, &v)| {
            let v = v as f64;
            put(px, if v.is_nan() { ndc } else { lookup.packed(v) })
        }),
        Some(n) => pixels.for_each(|(px, &v)| {
            let v = v as f64;
            put(px, if v == n { ndc } else { lookup.packed(v) })
        }),
    }
}

/// A [`ColorTable`] laid out for colouring many pixels, giving every value the bytes
/// [`ColorTable::color`] gives it.
///
/// Between two stops each channel is a monotonic step function of the value (the interpolation's
/// operations are all monotonic), so the gap is cut into [`BUCKETS`] buckets and a bucket whose
/// smallest and largest member get the same colour holds that colour for all of them: most pixels
/// are coloured by one multiplication and one load. The other buckets (those a step runs through)
/// compute the colour with the table's own formula, its terms precomputed.
pub(crate) struct Lookup<'a> {
    table: &'a ColorTable,
    values: Vec<f64>,
    colors: Vec<[u8; 4]>,
    /// For the gap below stop `i`: `0.45 + a` and `b - a` per channel (`a` the lower colour).
    base: Vec<[f64; 4]>,
    diff: Vec<[f64; 4]>,
    /// For the gap below stop `i`: buckets per unit of value, the buckets (from `i - 1` ×
    /// `BUCKETS`: the colour of the whole bucket, as a little-endian `u32`), and the value marking
    /// a bucket without one colour (a value no bucket of the gap holds). Four bytes a bucket keep
    /// the buckets of a few gaps in the first-level cache.
    scale: Vec<f64>,
    buckets: Vec<u32>,
    open: Vec<u32>,
    /// Linear interpolation over numeric stops; otherwise every value goes to the table.
    fast: bool,
    /// The stop values padded with +∞ when there are at most eight, for a branch-free search.
    few: Option<[f64; 8]>,
}

/// Buckets per gap between two stops.
const BUCKETS: usize = 4096;

/// Tables with more gaps than this are coloured without buckets (their build time would grow).
const MAX_BUCKETED_GAPS: usize = 64;

/// A key that orders every non-NaN `f64` as the numbers are ordered.
fn order_key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

fn from_order_key(k: u64) -> f64 {
    if k >> 63 == 1 {
        f64::from_bits(k & !(1 << 63))
    } else {
        f64::from_bits(!k)
    }
}

impl<'a> Lookup<'a> {
    pub(crate) fn new(table: &'a ColorTable) -> Self {
        let values: Vec<f64> = table.entries.iter().map(|e| e.0).collect();
        let colors: Vec<[u8; 4]> = table.entries.iter().map(|e| e.1).collect();
        let n = values.len();
        let mut base = vec![[0.0; 4]; n];
        let mut diff = vec![[0.0; 4]; n];
        for i in 1..n {
            for k in 0..4 {
                let (a, b) = (colors[i - 1][k] as f64, colors[i][k] as f64);
                base[i][k] = 0.45 + a;
                diff[i][k] = b - a;
            }
        }
        let fast = table.mode == ColorMode::Interpolate && n > 0 && values.iter().all(|v| v.is_finite());
        let few = (n <= 8).then(|| {
            let mut few = [f64::INFINITY; 8];
            few[..n].copy_from_slice(&values);
            few
        });
        let mut lookup = Self {
            table,
            values,
            colors,
            base,
            diff,
            scale: vec![0.0; n],
            buckets: Vec::new(),
            open: vec![0; n],
            fast,
            few,
        };
        if fast && n > 1 && n - 1 <= MAX_BUCKETED_GAPS {
            lookup.buckets = vec![0; (n - 1) * BUCKETS];
            for i in 1..n {
                lookup.fill_buckets(i);
            }
        }
        lookup
    }

    #[inline]
    fn bucket(&self, i: usize, v: f64) -> usize {
        (((v - self.values[i - 1]) * self.scale[i]) as usize).min(BUCKETS - 1)
    }

    /// Fills the buckets of the gap below stop `i`: the values strictly between the two stops.
    fn fill_buckets(&mut self, i: usize) {
        let (lo, hi) = (self.values[i - 1], self.values[i]);
        let scale = BUCKETS as f64 / (hi - lo);
        if !(hi > lo && scale.is_finite()) {
            return; // an empty gap (two stops at one value): no value falls in it
        }
        self.scale[i] = scale;
        let (first, end) = (order_key(lo) + 1, order_key(hi));
        // The smallest key in first..end whose value falls in bucket `b` or later (`end` if none).
        let start_of = |me: &Self, b: usize| {
            let (mut l, mut h) = (first, end);
            while l < h {
                let m = l + (h - l) / 2;
                if me.bucket(i, from_order_key(m)) >= b {
                    h = m;
                } else {
                    l = m + 1;
                }
            }
            l
        };
        let mut start = start_of(self, 0);
        let mut cells = vec![None; BUCKETS];
        for (b, cell) in cells.iter_mut().enumerate() {
            let next = if b + 1 == BUCKETS { end } else { start_of(self, b + 1) };
            if start < next {
                let (a, z) = (self.table.color(from_order_key(start)), self.table.color(from_order_key(next - 1)));
                if a == z {
                    *cell = Some(u32::from_le_bytes(a));
                }
            }
            start = next;
        }
        let held: std::collections::HashSet<u32> = cells.iter().flatten().copied().collect();
        let open = (0..=u32::MAX).rev().find(|v| !held.contains(v)).unwrap_or(0);
        self.open[i] = open;
        for (b, cell) in cells.into_iter().enumerate() {
            self.buckets[(i - 1) * BUCKETS + b] = cell.unwrap_or(open);
        }
    }

    /// The colour of `v` (not nodata), as [`ColorTable::color`] gives it.
    #[cfg(test)]
    fn color(&self, v: f64) -> [u8; 4] {
        self.packed(v).to_le_bytes()
    }

    /// [`color`](Self::color) as one little-endian `u32`.
    #[inline(always)]
    fn packed(&self, v: f64) -> u32 {
        if !self.fast || v.is_nan() {
            return u32::from_le_bytes(self.table.color(v));
        }
        let e = &self.values;
        // The first stop not smaller than v: the number of stops below it.
        let i = match &self.few {
            // +∞ padding is never below v (v is not NaN; v = +∞ is not below +∞ either).
            Some(few) => few.iter().map(|&s| (s < v) as usize).sum(),
            None => e.partition_point(|&s| s < v),
        };
        if i == 0 {
            return u32::from_le_bytes(self.colors[0]);
        }
        if i == e.len() {
            return u32::from_le_bytes(self.colors[i - 1]);
        }
        if e[i] == v {
            return u32::from_le_bytes(self.colors[i]);
        }
        if !self.buckets.is_empty() {
            let cell = self.buckets[(i - 1) * BUCKETS + self.bucket(i, v)];
            if cell != self.open[i] {
                return cell;
            }
        }
        let r = (v - e[i - 1]) / (e[i] - e[i - 1]);
        let (base, diff) = (&self.base[i], &self.diff[i]);
        let mut c = 0u32;
        for k in 0..4 {
            c |= (((base[k] + r * diff[k]).clamp(0.0, 255.0) as u8) as u32) << (8 * k);
        }
        c
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_ramp_name_parses_and_spans_its_range() {
        for name in ColorRamp::NAMES {
            let ramp: ColorRamp = serde_json::from_value(serde_json::Value::String((*name).into())).unwrap();
            assert_eq!(serde_json::to_value(ramp).unwrap(), serde_json::Value::String((*name).into()));
            let stops = ramp.stops();
            assert_eq!((stops[0].0, stops[stops.len() - 1].0), (0.0, 100.0), "{name}");
            assert!(stops.windows(2).all(|w| w[0].0 < w[1].0), "{name}");
        }
    }

    #[test]
    fn rdylgn_runs_from_red_through_yellow_to_green() {
        let o = ColorReliefOptions { ramp: Some(ColorRamp::RdYlGn), ..ColorReliefOptions::default() };
        let s = o.samples(-1.0, 1.0, 3);
        assert_eq!(s[0].1, [165, 0, 38, 255]);
        assert_eq!(s[1].1, [255, 255, 191, 255]);
        assert_eq!(s[2].1, [0, 104, 55, 255]);
    }

    #[test]
    fn the_lookup_colours_every_value_as_the_table_does() {
        let stop = |v: f64, c: &[u8]| ColorStop { value: StopValue::Number(v), color: c.to_vec() };
        let custom = ColorReliefOptions {
            stops: Some(vec![
                stop(1600.0, &[0, 97, 71]),
                stop(1750.0, &[232, 215, 125]),
                stop(1750.0, &[10, 20, 30, 40]),
                stop(1900.0, &[161, 67, 0]),
                stop(2000.0, &[255, 255, 255]),
            ]),
            ..ColorReliefOptions::default()
        };
        let many = ColorReliefOptions {
            stops: Some(
                (0..40u8).map(|i| stop(100.0 + i as f64 * 13.5, &[i * 6, 255 - i * 6, i.wrapping_mul(37)])).collect(),
            ),
            ..ColorReliefOptions::default()
        };
        let ramp = ColorReliefOptions { ramp: Some(ColorRamp::Terrain), ..ColorReliefOptions::default() };
        let nearest = ColorReliefOptions { mode: ColorMode::Nearest, ..custom.clone() };
        let exact = ColorReliefOptions { mode: ColorMode::Exact, ..custom.clone() };
        for o in [custom, many, ramp, nearest, exact] {
            let table = o.table(1500.0, 2100.0);
            let lookup = Lookup::new(&table);
            let mut values: Vec<f64> = table.entries.iter().map(|e| e.0).collect();
            values.extend([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1e30, 1e30]);
            // Every float32 step around the stops and a dense sweep between them.
            for &s in table.entries.iter().map(|e| &e.0) {
                let mut x = s as f32;
                for _ in 0..64 {
                    x = f32::from_bits(x.to_bits() - 1);
                }
                for _ in 0..128 {
                    values.push(x as f64);
                    x = f32::from_bits(x.to_bits() + 1);
                }
            }
            values.extend((0..200_000).map(|i| (1400.0 + i as f32 * 0.00431) as f64));
            // And float32 values all over the range, as a DEM holds them.
            let mut x = 0x2545_f491_4f6c_dd1du64;
            for _ in 0..200_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                values.push((1450.0 + (x % 1_000_000) as f32 * 0.000_7) as f64);
            }
            for v in values {
                assert_eq!(lookup.color(v), table.color(v), "{v}");
            }
        }
    }
}
