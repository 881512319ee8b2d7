//! Classification in tiles, so that memory follows the tile, not the file.
//!
//! A file of more than [`Tiling::tile_points`] points is cut into a grid of square tiles sized
//! for that many points each (from the header's extent and point count), every tile widened by
//! a buffer on each side (50 m by default: twice the default SMRF window, wider than every
//! neighbourhood the steps use). One streaming pass over the file spools each point to the tile
//! that owns it and to the neighbours whose buffer it falls in, as fixed-size records in a
//! temporary folder beside the output. Each tile is then read back and classified on its own;
//! only the points it owns keep its classes. What stays in memory for the whole file is a class
//! and a confidence byte per point (the writer needs them in file order); the rest is one tile.
//! The spool takes about 50 bytes a point a tile on disk (more in the buffers) and is removed
//! when the classification ends, whether it succeeds or not. (The same pass keeps a LAZ file's
//! records as decoded beside it, for the writer: `pipeline::KeptRecords`.)
//!
//! Tiles are sized from the mean density: a file whose points crowd into part of its extent
//! makes some tiles fuller than `tile_points` (memory then follows the fullest tile). The grid
//! holds at most [`MAX_TILES`] tiles (one open spool file each); a file that would need more
//! gets larger tiles.

use crate::reader::{PointCloud, PointCloudInfo};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

/// The most tiles one classification cuts a file into.
pub const MAX_TILES: usize = 512;

/// How a classification cuts a large file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tiling {
    /// A file with at most this many points is classified whole; a larger one in tiles of
    /// about this many points.
    pub tile_points: u64,
    /// Metres each tile reaches past its own square, so that the steps see every point's
    /// neighbourhood.
    pub buffer: f64,
}

impl Default for Tiling {
    /// Three million points a tile (a few hundred MB of working memory), a 50 m buffer.
    fn default() -> Self {
        Self { tile_points: 3_000_000, buffer: 50.0 }
    }
}

/// A grid of square tiles over the file's extent, in the file's own units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Grid {
    x0: f64,
    y0: f64,
    size: f64,
    buffer: f64,
    pub(crate) nx: usize,
    pub(crate) ny: usize,
}

impl Grid {
    /// The grid for `info`'s extent: tiles of about `tiling.tile_points` points at the mean
    /// density, at least four buffers wide, at most [`MAX_TILES`] of them.
    pub(crate) fn plan(info: &PointCloudInfo, tiling: Tiling, metres_per_unit: f64) -> Self {
        let [minx, miny, _, maxx, maxy, _] = info.bounds;
        let extent = |lo: f64, hi: f64| if (hi - lo).is_finite() { (hi - lo).max(0.0) } else { 0.0 };
        let (w, h) = (extent(minx, maxx), extent(miny, maxy));
        let buffer = tiling.buffer / metres_per_unit;
        let area = (w * h).max(1e-9);
        let per = tiling.tile_points.max(1) as f64 / info.points.max(1) as f64;
        let mut size = (area * per).sqrt().max(4.0 * buffer).max(1e-6);
        let count = |size: f64| ((w / size).floor() + 1.0, (h / size).floor() + 1.0);
        while count(size).0 * count(size).1 > MAX_TILES as f64 {
            size *= 1.25;
        }
        let (nx, ny) = (count(size).0 as usize, count(size).1 as usize);
        let (minx, miny) = (if minx.is_finite() { minx } else { 0.0 }, if miny.is_finite() { miny } else { 0.0 });
        Self { x0: minx, y0: miny, size, buffer, nx, ny }
    }

    /// Number of tiles.
    pub(crate) fn len(&self) -> usize {
        self.nx * self.ny
    }

    fn column(&self, v: f64, origin: f64, n: usize) -> usize {
        let c = ((v - origin) / self.size).floor();
        if c.is_nan() || c < 0.0 {
            0
        } else {
            (c as usize).min(n - 1)
        }
    }

    /// Every tile a point belongs to, its owner first: the owner and the neighbours whose
    /// buffer holds it.
    pub(crate) fn tiles_of(&self, x: f64, y: f64, out: &mut Vec<usize>) {
        out.clear();
        let (cx, cy) = (self.column(x, self.x0, self.nx), self.column(y, self.y0, self.ny));
        out.push(cy * self.nx + cx);
        let (fx, fy) = ((x - self.x0) / self.size, (y - self.y0) / self.size);
        let reach = self.buffer / self.size;
        let near = |f: f64, c: usize, n: usize| -> [Option<usize>; 2] {
            let lo = (c > 0 && f - c as f64 <= reach).then(|| c - 1);
            let hi = (c + 1 < n && (c + 1) as f64 - f <= reach).then_some(c + 1);
            [lo, hi]
        };
        let xs = near(fx, cx, self.nx);
        let ys = near(fy, cy, self.ny);
        for tx in xs.into_iter().flatten() {
            out.push(cy * self.nx + tx);
        }
        for ty in ys.into_iter().flatten() {
            out.push(ty * self.nx + cx);
            for tx in xs.into_iter().flatten() {
                out.push(ty * self.nx + tx);
            }
        }
    }
}

/// Points of one tile read back from its spool: the points, their index in the file, and
/// whether the tile owns each.
pub(crate) struct TilePoints {
    pub(crate) cloud: PointCloud,
    pub(crate) index: Vec<u64>,
    pub(crate) owned: Vec<bool>,
}

/// Fixed-size point records, one file per tile.
pub(crate) struct Spool {
    dir: tempfile::TempDir,
    writers: Vec<BufWriter<File>>,
    counts: Vec<u64>,
    rgb: bool,
    nir: bool,
}

impl Spool {
    /// A spool of `tiles` files in a temporary folder inside `beside`.
    pub(crate) fn new(beside: &Path, tiles: usize, rgb: bool, nir: bool) -> std::io::Result<Self> {
        let dir = tempfile::Builder::new().prefix(".tiles-").tempdir_in(beside)?;
        let writers = (0..tiles)
            .map(|k| Ok(BufWriter::with_capacity(32 << 10, File::create(dir.path().join(format!("{k}.bin")))?)))
            .collect::<std::io::Result<Vec<_>>>()?;
        Ok(Self { dir, writers, counts: vec![0; tiles], rgb, nir })
    }

    fn record_len(&self) -> usize {
        8 + 24 + 4 + 2 + if self.rgb { 6 } else { 0 } + if self.nir { 2 } else { 0 }
    }

    /// Adds point `i` of `batch` (point `index` of the file) to `tile`.
    pub(crate) fn push(
        &mut self,
        tile: usize,
        index: u64,
        owned: bool,
        batch: &PointCloud,
        i: usize,
    ) -> std::io::Result<()> {
        let mut rec = [0u8; 50];
        let mut at = 0;
        let mut put = |bytes: &[u8]| {
            rec[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        };
        put(&index.to_le_bytes());
        put(&batch.x[i].to_le_bytes());
        put(&batch.y[i].to_le_bytes());
        put(&batch.z[i].to_le_bytes());
        put(&[batch.classification[i], batch.return_number[i], batch.number_of_returns[i], u8::from(owned)]);
        put(&batch.intensity[i].to_le_bytes());
        if self.rgb {
            let c = batch.rgb.as_ref().map_or([0; 3], |rgb| rgb[i]);
            for v in c {
                put(&v.to_le_bytes());
            }
        }
        if self.nir {
            put(&batch.nir.as_ref().map_or(0, |nir| nir[i]).to_le_bytes());
        }
        self.counts[tile] += 1;
        self.writers[tile].write_all(&rec[..at])
    }

    /// Points spooled to each tile.
    pub(crate) fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// Flushes every tile's file.
    pub(crate) fn finish(&mut self) -> std::io::Result<()> {
        for w in &mut self.writers {
            w.flush()?;
        }
        self.writers.clear();
        Ok(())
    }

    /// Calls `each` with the x and y of every point `tile` owns, streaming its spool.
    pub(crate) fn for_each_owned(&self, tile: usize, mut each: impl FnMut(f64, f64)) -> std::io::Result<()> {
        let len = self.record_len();
        let mut rec = [0u8; 50];
        let mut read = BufReader::with_capacity(1 << 20, File::open(self.dir.path().join(format!("{tile}.bin")))?);
        for _ in 0..self.counts[tile] {
            read.read_exact(&mut rec[..len])?;
            if rec[35] != 0 {
                each(f64_at(&rec, 8), f64_at(&rec, 16));
            }
        }
        Ok(())
    }

    /// The points of one tile, in the order they were spooled (file order).
    pub(crate) fn load(&self, tile: usize) -> std::io::Result<TilePoints> {
        let n = usize::try_from(self.counts[tile]).unwrap_or(usize::MAX);
        let mut cloud = PointCloud::with_capacity(n, self.rgb, self.nir);
        let mut index = Vec::with_capacity(n);
        let mut owned = Vec::with_capacity(n);
        let mut read = BufReader::with_capacity(1 << 20, File::open(self.dir.path().join(format!("{tile}.bin")))?);
        let len = self.record_len();
        let mut rec = [0u8; 50];
        let u16_at = |b: &[u8], at: usize| u16::from_le_bytes([b[at], b[at + 1]]);
        for _ in 0..n {
            read.read_exact(&mut rec[..len])?;
            index.push(u64::from_le_bytes(rec[0..8].try_into().unwrap_or([0; 8])));
            cloud.x.push(f64_at(&rec, 8));
            cloud.y.push(f64_at(&rec, 16));
            cloud.z.push(f64_at(&rec, 24));
            cloud.classification.push(rec[32]);
            cloud.return_number.push(rec[33]);
            cloud.number_of_returns.push(rec[34]);
            owned.push(rec[35] != 0);
            cloud.intensity.push(u16_at(&rec, 36));
            let mut at = 38;
            if let Some(rgb) = &mut cloud.rgb {
                rgb.push([u16_at(&rec, at), u16_at(&rec, at + 2), u16_at(&rec, at + 4)]);
                at += 6;
            }
            if let Some(nir) = &mut cloud.nir {
                nir.push(u16_at(&rec, at));
            }
        }
        Ok(TilePoints { cloud, index, owned })
    }
}

fn f64_at(b: &[u8], at: usize) -> f64 {
    f64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn info(points: u64, bounds: [f64; 6]) -> PointCloudInfo {
        PointCloudInfo {
            version: (1, 4),
            point_format: 6,
            compressed: false,
            record_length: 30,
            points,
            scale: [0.01; 3],
            offset: [0.0; 3],
            bounds,
        }
    }

    #[test]
    fn tiles_are_sized_for_the_points_and_capped() {
        // 12 M points over 2 × 1 km: 4 tiles of 3 M would be 707 m wide.
        let g = Grid::plan(&info(12_000_000, [0.0, 0.0, 0.0, 2000.0, 1000.0, 10.0]), Tiling::default(), 1.0);
        assert!((g.size - (2_000_000.0f64 / 4.0).sqrt()).abs() < 1e-6, "{g:?}");
        assert_eq!((g.nx, g.ny), (3, 2));
        // In feet the buffer is 164 ft; tiles are never narrower than four buffers.
        let g = Grid::plan(&info(10_000_000, [0.0, 0.0, 0.0, 100.0, 100.0, 1.0]), Tiling::default(), 0.3048);
        assert!((g.size - 4.0 * 50.0 / 0.3048).abs() < 1e-6);
        assert_eq!(g.len(), 1);
        // A billion points over 100 km: capped at MAX_TILES.
        let g = Grid::plan(&info(1_000_000_000, [0.0, 0.0, 0.0, 1e5, 1e5, 1.0]), Tiling::default(), 1.0);
        assert!(g.len() <= MAX_TILES && g.len() > MAX_TILES / 2, "{}", g.len());
        // A header that lies about its bounds still gives a grid.
        for bounds in [
            [f64::NAN; 6],
            [-f64::INFINITY, 0.0, 0.0, f64::INFINITY, 1e300, 0.0],
            [0.0, -1e300, 0.0, 1e-300, 1e300, 0.0],
        ] {
            let g = Grid::plan(&info(10_000_000, bounds), Tiling::default(), 1.0);
            assert!((1..=MAX_TILES).contains(&g.len()), "{bounds:?}: {g:?}");
        }
    }

    #[test]
    fn a_point_goes_to_its_owner_and_the_buffers_it_falls_in() {
        let g = Grid { x0: 0.0, y0: 0.0, size: 100.0, buffer: 10.0, nx: 3, ny: 3 };
        let mut out = Vec::new();
        g.tiles_of(150.0, 150.0, &mut out);
        assert_eq!(out, vec![4]);
        g.tiles_of(105.0, 150.0, &mut out);
        assert_eq!(out, vec![4, 3]);
        g.tiles_of(195.0, 105.0, &mut out);
        assert_eq!(out, vec![4, 5, 1, 2]);
        // Corners of the grid have no neighbours outside it; points outside clamp to the edge.
        g.tiles_of(-5.0, 305.0, &mut out);
        assert_eq!(out, vec![6]);
        g.tiles_of(299.999, 0.0, &mut out);
        assert_eq!(out, vec![2]);
        g.tiles_of(f64::NAN, 50.0, &mut out);
        assert_eq!(out[0], 0);
    }

    #[test]
    fn spooled_points_come_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let batch = PointCloud {
            x: vec![1.5, 2.5],
            y: vec![3.0, 4.0],
            z: vec![-1.0, 7.25],
            classification: vec![2, 5],
            return_number: vec![1, 2],
            number_of_returns: vec![1, 3],
            intensity: vec![100, 65535],
            rgb: Some(vec![[1, 2, 3], [65535, 0, 9]]),
            nir: Some(vec![7, 8]),
        };
        let mut spool = Spool::new(dir.path(), 2, true, true).unwrap();
        spool.push(1, 41, false, &batch, 0).unwrap();
        spool.push(1, 42, true, &batch, 1).unwrap();
        spool.push(0, 42, false, &batch, 1).unwrap();
        spool.finish().unwrap();
        let t = spool.load(1).unwrap();
        assert_eq!(t.index, vec![41, 42]);
        assert_eq!(t.owned, vec![false, true]);
        assert_eq!(t.cloud, batch);
        assert_eq!(spool.load(0).unwrap().cloud.z, vec![7.25]);
        let mut owned = vec![];
        for tile in 0..2 {
            spool.for_each_owned(tile, |x, y| owned.push((tile, x, y))).unwrap();
        }
        assert_eq!(owned, vec![(1, 2.5, 4.0)]);
    }
}
