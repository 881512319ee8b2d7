//! Writing Cloud Optimized Point Clouds (COPC 1.0, <https://copc.io>).
//!
//! The output is a LAS 1.4 file of point format 6, 7 or 8: formats 0, 1, 4 and 9 become 6,
//! 2, 3 and 5 become 7, 10 becomes 8 (its near-infrared kept), 6, 7 and 8 stay; waveform
//! packets are dropped, extra bytes kept. Its layout:
//!
//! - the COPC info VLR (`copc`, record 1, 160 bytes) first, then the laszip VLR (layered
//!   chunks of variable size), the CRS (the input's WKT VLR, or [`CopcOptions::wkt`] when the
//!   input has none, and its GeoTIFF key VLRs), the extra-bytes VLR and the input's other VLRs.
//!   The header's WKT bit is always set, as LAS 1.4 requires for formats 6–10: an input with
//!   GeoTIFF keys only and no `wkt` given keeps its keys, but readers that follow the bit find
//!   no CRS (making WKT from GeoTIFF keys needs a projection database, which this crate does
//!   not carry);
//! - the points, one LAZ chunk per octree node, the chunk table after them;
//! - the hierarchy EVLR (`copc`, record 1000), one page holding every node, then the input's
//!   other EVLRs.
//!
//! The octree is a cube from the least corner of the points' bounds, as wide as their largest
//! extent, so that a node's box is the same whether a reader places it from the info VLR's
//! centre and half-size (laspy, PDAL) or from the header's bounds (copclib); points on a face
//! between two nodes go to the node whose box, computed as readers compute it, holds them. Its
//! spacing, in the info VLR, is the cube's side over 128. A node with more than
//! [`CopcOptions::max_points_per_node`] points keeps one point per cell of a 128³ grid over its
//! cube (the one nearest the cell's centre), so that each level is an even overview, and passes
//! the rest down to its eight children; a node at depth [`MAX_DEPTH`] keeps all it gets. A
//! split node may so hold more points than the maximum (one an occupied cell: about 128² on
//! terrain), as in Untwine and PDAL.
//!
//! Memory: the selected points are held as raw records, record length plus a 4-byte index per
//! point (34 bytes for format 6 without extra bytes), and 4 bytes more per point while the root
//! is split, up to [`CopcOptions::max_points`]; more is [`WriteError::Limit`], found before
//! reading when nothing is filtered, else while reading. The nodes are coded a group at a time (four a thread). A selection of no point is
//! [`WriteError::Empty`]: an octree needs a cube.

use crate::writer::raw::{
    base_len, class_of, patch_header, set_class, xyz, Source, Stats, Vlr, EXTRA_BYTES_RECORD, LASZIP_RECORD,
};
use crate::writer::{contain, plan_extra_bytes, Edits, WriteError};
use laz::laszip::{ChunkTable, ChunkTableEntry};
use laz::{LasZipCompressor, LazItemRecordBuilder, LazVlr, LazVlrBuilder};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fs::OpenOptions;
use std::hash::BuildHasherDefault;
use std::io::{BufWriter, Cursor, Seek, SeekFrom, Write};
use std::path::Path;

/// A `Result` of this module.
pub type Result<T, E = WriteError> = std::result::Result<T, E>;

/// Cells per axis of the sampling grid of a node.
const GRID: u32 = 128;
/// Depth at which a node keeps every point it gets (duplicate points could not be split).
pub const MAX_DEPTH: i32 = 20;
/// Size of the COPC info VLR's data.
const INFO_LEN: usize = 160;
/// Size of a LAS 1.4 header.
const HEADER_LEN: usize = 375;

/// What [`write_copc`] writes.
#[derive(Debug, Clone, PartialEq)]
pub struct CopcOptions {
    /// Keep only points inside `[minx, miny, maxx, maxy]` (file coordinates, inclusive).
    pub bbox: Option<[f64; 4]>,
    /// Keep only points whose class, after `classification` is applied, is one of these.
    pub classes: Option<Vec<u8>>,
    /// A class per input point, replacing the stored class (0–255: the output is format 6–8).
    pub classification: Option<Vec<u8>>,
    /// A value per input point, written as the unsigned byte extra attribute `confidence`.
    pub confidence: Option<Vec<u8>>,
    /// Most points a node holds before it is split.
    pub max_points_per_node: u32,
    /// Most points held in memory, that is written.
    pub max_points: u64,
    /// The CRS as WKT, written when the input has no WKT VLR (COPC readers expect WKT; LAS 1.2
    /// files usually carry GeoTIFF keys only).
    pub wkt: Option<String>,
}

impl Default for CopcOptions {
    /// 100,000 points a node; 50 million points (about 1.9 GB for format 6, 2.5 GB for format 8
    /// with three extra bytes).
    fn default() -> Self {
        Self {
            bbox: None,
            classes: None,
            classification: None,
            confidence: None,
            max_points_per_node: 100_000,
            max_points: 50_000_000,
            wkt: None,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, PartialEq)]
pub struct CopcSummary {
    /// Points written.
    pub points: u64,
    /// Bounds of the points: min x, min y, min z, max x, max y, max z.
    pub bounds: [f64; 6],
    /// Point format written (6, 7 or 8).
    pub point_format: u8,
    /// Octree nodes written (each one LAZ chunk).
    pub nodes: usize,
    /// Depth of the deepest node (the root is 0).
    pub depth: i32,
}

/// A node of the octree: its key (depth, x, y, z) and its range of points.
#[derive(Debug, Clone, PartialEq)]
struct Node {
    key: [i32; 4],
    range: std::ops::Range<usize>,
}

/// Writes the LAS/LAZ file at `input` as a COPC file at `output`, with the changes `opts` asks
/// for. `progress` is called with the fraction done (reading is the first half); returning
/// `false` stops with [`WriteError::Cancelled`], leaving a partial file.
///
/// ```
/// use meridian_pointcloud::copc::{write_copc, CopcOptions};
/// use std::path::Path;
/// let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/isprs-samp11.las");
/// let output = std::env::temp_dir().join(format!("doctest-{}.copc.laz", std::process::id()));
/// // Ground only, in nodes of at most 5,000 points.
/// let opts =
///     CopcOptions { classes: Some(vec![2]), max_points_per_node: 5_000, ..Default::default() };
/// let summary = write_copc(&input, &output, &opts, &|_| true)?;
/// assert_eq!((summary.point_format, summary.nodes > 1), (6, true));
/// # std::fs::remove_file(&output)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_copc(
    input: &Path,
    output: &Path,
    opts: &CopcOptions,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<CopcSummary> {
    contain(|| write_inner(input, output, opts, progress))
}

/// The output point format for an input format.
pub fn copc_format(input: u8) -> u8 {
    match input {
        2 | 3 | 5 | 7 => 7,
        8 | 10 => 8,
        _ => 6,
    }
}

fn write_inner(
    input: &Path,
    output: &Path,
    opts: &CopcOptions,
    progress: &(dyn Fn(f64) -> bool + Sync),
) -> Result<CopcSummary> {
    if opts.max_points_per_node == 0 {
        return Err(WriteError::Options("max_points_per_node is 0".to_owned()));
    }
    let max_points = opts.max_points.min(u64::from(u32::MAX));
    let mut src = Source::open(input)?;
    let info = src.info.clone();
    let edits = Edits::new(
        &info,
        opts.bbox,
        opts.classes.as_deref(),
        opts.classification.as_deref(),
        opts.confidence.as_deref(),
    )?;
    let fin = info.point_format;
    let fout = copc_format(fin);
    let extra = usize::from(info.record_length) - base_len(fin);
    let eb = plan_extra_bytes(&src.vlrs, extra, opts.confidence.is_some())?;
    let out_len = base_len(fout) + eb.extra;
    if out_len > usize::from(u16::MAX) {
        return Err(WriteError::Unsupported(format!("records of {out_len} bytes")));
    }

    // Read the selection as raw format 6–8 records.
    let mut records: Vec<u8> = Vec::new();
    if opts.bbox.is_none() && opts.classes.is_none() {
        // Every point is kept: refused at once when too many, else no growth by doubling, which
        // would need half as much again.
        if info.points > max_points {
            return Err(WriteError::Limit { what: "points selected for COPC", value: info.points, limit: max_points });
        }
        records.reserve_exact(info.points as usize * out_len);
    }
    let mut stats = Stats::new(fout);
    let mut buf = Vec::new();
    let mut gps = (f64::INFINITY, f64::NEG_INFINITY);
    while let Some(first) = src.next_batch(&mut buf)? {
        for (k, rec) in buf.chunks_exact(src.record_len()).enumerate() {
            let i = first + k;
            let class = edits.classification.map_or_else(|| class_of(rec, fin), |c| c[i]);
            if !edits.keeps(rec, class) {
                continue;
            }
            if stats.points >= max_points {
                return Err(WriteError::Limit {
                    what: "points selected for COPC",
                    value: stats.points + 1,
                    limit: max_points,
                });
            }
            let at = records.len();
            records.resize(at + out_len, 0);
            let out = &mut records[at..];
            convert(rec, fin, out, fout);
            out[base_len(fout)..base_len(fout) + extra].copy_from_slice(&rec[base_len(fin)..base_len(fin) + extra]);
            set_class(out, fout, class);
            if let (Some(c), Some(off)) = (edits.confidence, eb.confidence_at) {
                out[base_len(fout) + off] = c[i];
            }
            let t = f64::from_le_bytes(out[22..30].try_into().unwrap_or_default());
            gps = (gps.0.min(t), gps.1.max(t));
            stats.add(out);
        }
        if !progress(0.5 * src.fraction()) {
            return Err(WriteError::Cancelled);
        }
    }
    if stats.points == 0 {
        return Err(WriteError::Empty);
    }
    let n = stats.points as usize;
    let bounds = stats.bounds(info.scale, info.offset);

    // The octree: a cube from the least corner of the bounds, as wide as their largest extent.
    // Readers place a node's box either from the info VLR's centre and half-size or from the
    // header (its minimum plus the largest extent over 2^depth times the key); this cube is
    // both, so that every point lies in its node's box either way. (All points at one place:
    // a cube one scale unit wide.)
    let extent = (0..3).map(|k| bounds[k + 3] - bounds[k]).fold(0.0f64, f64::max);
    let size = if extent > 0.0 { extent } else { info.scale.iter().fold(0.0f64, |a, s| a.max(s.abs())) };
    let root_min = [bounds[0], bounds[1], bounds[2]];
    let tree = Tree {
        records: &records,
        len: out_len,
        scale: info.scale,
        offset: info.offset,
        root_min,
        size,
        max: opts.max_points_per_node as usize,
    };
    let mut order: Vec<u32> = (0..n as u32).collect();
    let nodes = tree.split(&mut order, 0, [0, 0, 0, 0]);

    // VLRs: info first, laszip, CRS, extra bytes, the rest.
    let items = LazItemRecordBuilder::default_for_point_format_id(fout, eb.extra as u16)?;
    let laz_vlr = LazVlrBuilder::new(items).with_variable_chunk_size().build();
    let mut laz_data = Vec::new();
    laz_vlr.write_to(&mut laz_data)?;
    let mut vlrs = vec![
        Vlr::new("copc", 1, "COPC info", vec![0; INFO_LEN]),
        Vlr::new("laszip encoded", LASZIP_RECORD, "LASzip compression", laz_data),
    ];
    let is_crs = |v: &Vlr| v.user() == "LASF_Projection" && matches!(v.record_id, 2112 | 34735..=34737);
    let has_wkt = src.vlrs.iter().chain(&src.evlrs).any(|v| v.is("LASF_Projection", 2112));
    if let (false, Some(wkt)) = (has_wkt, &opts.wkt) {
        let mut data = wkt.as_bytes().to_vec();
        data.push(0);
        vlrs.push(Vlr::new("LASF_Projection", 2112, "OGC WKT", data));
    }
    vlrs.extend(src.vlrs.iter().filter(|v| is_crs(v)).cloned());
    match &eb.vlr {
        Some(data) => vlrs.push(Vlr::new("LASF_Spec", EXTRA_BYTES_RECORD, "Extra bytes", data.clone())),
        None => vlrs.extend(src.vlrs.iter().filter(|v| v.is("LASF_Spec", EXTRA_BYTES_RECORD)).cloned()),
    }
    // Waveform packet descriptors (LASF_Spec 100–354) go with the waveforms.
    let dropped = |v: &Vlr| {
        is_crs(v)
            || v.user() == "copc"
            || v.is("laszip encoded", LASZIP_RECORD)
            || v.is("LASF_Spec", EXTRA_BYTES_RECORD)
            || (v.user() == "LASF_Spec" && (100..=354).contains(&v.record_id))
    };
    vlrs.extend(src.vlrs.iter().filter(|v| !dropped(v)).cloned());
    let evlrs: Vec<Vlr> = src
        .evlrs
        .iter()
        .filter(|v| v.user() != "copc" && !(v.user() == "LASF_Spec" && v.record_id == 65535))
        .cloned()
        .collect();

    let file = OpenOptions::new().write(true).create(true).truncate(true).open(output)?;
    let mut w = BufWriter::new(file);
    w.write_all(&[0u8; HEADER_LEN])?;
    let mut offset_to_points = HEADER_LEN as u64;
    for v in &vlrs {
        v.write_to(&mut w, false)?;
        offset_to_points += v.len(false);
    }

    // Points: one chunk a node, in the order of `nodes`, coded on rayon's threads a group of
    // nodes at a time; the offset to the chunk table is set once the table is written.
    w.write_all(&[0u8; 8])?;
    let mut at = offset_to_points + 8;
    let mut table = ChunkTable::with_capacity(nodes.len());
    let mut entries = Vec::with_capacity(nodes.len());
    let mut written = 0;
    for group in nodes.chunks(4 * rayon::current_num_threads().max(1)) {
        let chunks = group
            .par_iter()
            .map(|node| compress_node(&records, &order[node.range.clone()], out_len, &laz_vlr))
            .collect::<Result<Vec<_>>>()?;
        for (node, chunk) in group.iter().zip(&chunks) {
            w.write_all(chunk)?;
            let (points, bytes) = (node.range.len() as u64, chunk.len() as u64);
            entries.push((node.key, at, bytes, points));
            table.push(ChunkTableEntry { point_count: points, byte_count: bytes });
            at += bytes;
        }
        written += group.len();
        if !progress(0.5 + 0.5 * written as f64 / nodes.len() as f64) {
            return Err(WriteError::Cancelled);
        }
    }
    table.write_to(&mut w, &laz_vlr)?;
    let mut file = w.into_inner().map_err(|e| e.into_error())?;
    let end_of_table = file.stream_position()?;
    file.seek(SeekFrom::Start(offset_to_points))?;
    file.write_all(&at.to_le_bytes())?;

    // The hierarchy: one page with every node.
    let mut page = Vec::with_capacity(entries.len() * 32);
    for (key, start, size, count) in &entries {
        for v in key {
            page.extend_from_slice(&v.to_le_bytes());
        }
        page.extend_from_slice(&start.to_le_bytes());
        page.extend_from_slice(&i32_of(*size, "chunk bytes")?.to_le_bytes());
        page.extend_from_slice(&i32_of(*count, "points in a node")?.to_le_bytes());
    }
    let page_len = page.len() as u64;
    let mut all_evlrs = vec![Vlr::new("copc", 1000, "EPT hierarchy", page)];
    all_evlrs.extend(evlrs);
    file.seek(SeekFrom::Start(end_of_table))?;
    let mut w = BufWriter::new(file);
    for v in &all_evlrs {
        v.write_to(&mut w, true)?;
    }
    let mut file = w.into_inner().map_err(|e| e.into_error())?;

    // The info VLR and the header, now that the offsets are known.
    let half = size / 2.0;
    let mut copc = Vec::with_capacity(INFO_LEN);
    for v in [root_min[0] + half, root_min[1] + half, root_min[2] + half, half, size / f64::from(GRID)] {
        copc.extend_from_slice(&v.to_le_bytes());
    }
    copc.extend_from_slice(&(end_of_table + 60).to_le_bytes());
    copc.extend_from_slice(&page_len.to_le_bytes());
    copc.extend_from_slice(&gps.0.to_le_bytes());
    copc.extend_from_slice(&gps.1.to_le_bytes());
    copc.resize(INFO_LEN, 0);
    file.seek(SeekFrom::Start(HEADER_LEN as u64 + 54))?;
    file.write_all(&copc)?;

    let mut header = vec![0u8; HEADER_LEN];
    header[..4].copy_from_slice(b"LASF");
    let ih = &src.header;
    header[4..6].copy_from_slice(&ih[4..6]);
    // GPS time type kept; the WKT bit, which LAS 1.4 requires for formats 6–10.
    let encoding = (u16::from_le_bytes([ih[6], ih[7]]) & 1) | 0x10;
    header[6..8].copy_from_slice(&encoding.to_le_bytes());
    header[8..24].copy_from_slice(&ih[8..24]);
    header[24] = 1;
    header[25] = 4;
    header[26..58].copy_from_slice(&ih[26..58]);
    header[90..94].copy_from_slice(&ih[90..94]);
    header[94..96].copy_from_slice(&(HEADER_LEN as u16).to_le_bytes());
    for k in 0..3 {
        header[131 + 8 * k..139 + 8 * k].copy_from_slice(&info.scale[k].to_le_bytes());
        header[155 + 8 * k..163 + 8 * k].copy_from_slice(&info.offset[k].to_le_bytes());
    }
    let out_info = crate::reader::PointCloudInfo { version: (1, 4), point_format: fout, ..info };
    patch_header(
        &mut header,
        &out_info,
        &stats,
        bounds,
        true,
        out_len,
        &vlrs,
        offset_to_points,
        &all_evlrs,
        end_of_table,
    )?;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&header)?;
    file.flush()?;

    let depth = nodes.iter().map(|n| n.key[0]).max().unwrap_or(0);
    Ok(CopcSummary { points: stats.points, bounds, point_format: fout, nodes: nodes.len(), depth })
}

/// Codes the records `idx` as one LAZ chunk.
fn compress_node(records: &[u8], idx: &[u32], len: usize, vlr: &LazVlr) -> Result<Vec<u8>> {
    let mut points = Vec::with_capacity(idx.len() * len);
    for &i in idx {
        let at = i as usize * len;
        points.extend_from_slice(&records[at..at + len]);
    }
    let mut compressor = LasZipCompressor::new(Cursor::new(Vec::new()), vlr.clone())?;
    // The compressor writes the offset to its chunk table first; the chunk follows it.
    compressor.reserve_offset_to_chunk_table()?;
    compressor.compress_many(&points)?;
    compressor.finish_current_chunk()?;
    let mut chunk = compressor.into_inner().into_inner();
    chunk.drain(..8);
    Ok(chunk)
}

fn i32_of(v: u64, what: &'static str) -> Result<i32> {
    i32::try_from(v).map_err(|_| WriteError::Limit { what, value: v, limit: i32::MAX as u64 })
}

/// The records and the cube the octree divides.
struct Tree<'a> {
    records: &'a [u8],
    len: usize,
    scale: [f64; 3],
    offset: [f64; 3],
    root_min: [f64; 3],
    size: f64,
    max: usize,
}

impl Tree<'_> {
    fn position(&self, i: u32) -> [f64; 3] {
        let at = i as usize * self.len;
        let p = xyz(&self.records[at..at + 12]);
        [0, 1, 2].map(|k| f64::from(p[k]) * self.scale[k] + self.offset[k])
    }

    /// The cell of `p` along each axis at depth `d`, in `lo..lo + n`.
    fn cells(&self, p: [f64; 3], d: i32, lo: [i64; 3], n: i64) -> [i64; 3] {
        let cell = self.size / (1u64 << d) as f64;
        [0, 1, 2].map(|k| (((p[k] - self.root_min[k]) / cell).floor() as i64).clamp(lo[k], lo[k] + n - 1))
    }

    /// The child of the node at depth `d` and `key` (x, y, z) whose box holds `p`, per axis
    /// `2 key` or `2 key + 1`: the upper one when `p` is at or past its lower face. Faces are
    /// computed as readers compute them (`side × index + minimum`, the far face that plus
    /// `side`), so that a point on a face between two children lies in the box of the one it is
    /// given to. `None` when rounding leaves `p` in no child's box (a point on the far face of
    /// the cube, a hair past the far face readers compute): such a point stays in the node.
    fn child(&self, p: [f64; 3], d: i32, key: [i32; 3]) -> Option<usize> {
        let side = self.size / (1u64 << (d + 1)) as f64;
        let mut octant = 0;
        for k in 0..3 {
            let upper = 2 * i64::from(key[k]) + 1;
            let face = side * upper as f64 + self.root_min[k];
            let (index, bit) = if p[k] >= face { (upper, 1) } else { (upper - 1, 0) };
            if p[k] > side * index as f64 + self.root_min[k] + side {
                return None;
            }
            octant |= bit << k;
        }
        Some(octant)
    }

    /// Assigns the points `idx` (which begin at `start` of the whole order) to the node `key`
    /// and its descendants, the children on rayon's threads; each node's points end up
    /// contiguous, the node's own first. Returns the nodes, the parent before its children.
    fn split(&self, idx: &mut [u32], start: usize, key: [i32; 4]) -> Vec<Node> {
        let [d, x, y, z] = key;
        if idx.len() <= self.max || d >= MAX_DEPTH {
            return vec![Node { key, range: start..start + idx.len() }];
        }
        // One point per grid cell stays here, the nearest the cell's centre (the first in file
        // order on a tie); grid cells are addressed at depth d + 7 (128 = 2^7).
        let g = i64::from(GRID);
        let base = [i64::from(x) * g, i64::from(y) * g, i64::from(z) * g];
        let side = self.size / (1u64 << (d + 7)) as f64;
        // Cell → (position in `idx`, squared distance to the cell's centre).
        let mut best: crate::density::CellMap<i64, (usize, f64)> =
            HashMap::with_capacity_and_hasher(idx.len().min(1 << 20), BuildHasherDefault::default());
        for (at, &i) in idx.iter().enumerate() {
            let p = self.position(i);
            let c = self.cells(p, d + 7, base, g);
            let id = ((c[0] - base[0]) * g + (c[1] - base[1])) * g + (c[2] - base[2]);
            let dist: f64 = (0..3).map(|k| (p[k] - (self.root_min[k] + (c[k] as f64 + 0.5) * side)).powi(2)).sum();
            best.entry(id)
                .and_modify(|b| {
                    if dist < b.1 {
                        *b = (at, dist)
                    }
                })
                .or_insert((at, dist));
        }
        let mut here = vec![false; idx.len()];
        for (at, _) in best.into_values() {
            here[at] = true;
        }
        let mut kept = Vec::new();
        let mut children: [Vec<u32>; 8] = Default::default();
        for (&i, &stays) in idx.iter().zip(&here) {
            if stays {
                kept.push(i);
                continue;
            }
            match self.child(self.position(i), d, [x, y, z]) {
                Some(octant) => children[octant].push(i),
                None => kept.push(i),
            }
        }
        drop(here);
        let mut nodes = vec![Node { key, range: start..start + kept.len() }];
        let (own, mut rest) = idx.split_at_mut(kept.len());
        own.copy_from_slice(&kept);
        let mut at = start + kept.len();
        let mut jobs = Vec::new();
        for (octant, child) in children.iter().enumerate().filter(|(_, c)| !c.is_empty()) {
            let (slice, tail) = std::mem::take(&mut rest).split_at_mut(child.len());
            slice.copy_from_slice(child);
            let o = octant as i32;
            jobs.push((slice, at, [d + 1, 2 * x + (o & 1), 2 * y + ((o >> 1) & 1), 2 * z + ((o >> 2) & 1)]));
            at += child.len();
            rest = tail;
        }
        drop(children);
        let below: Vec<Vec<Node>> = jobs.into_par_iter().map(|(slice, at, key)| self.split(slice, at, key)).collect();
        nodes.extend(below.into_iter().flatten());
        nodes
    }
}

/// Converts the fields of a record of format `fin` to format `fout` (6, 7 or 8; the output is
/// zeroed and as long as `fout`'s fields at least).
fn convert(src: &[u8], fin: u8, dst: &mut [u8], fout: u8) {
    if fin >= 6 {
        // 6–10 share their first 30 bytes; RGB and NIR (7, 8, 10) follow at 30.
        let n = base_len(fout).min(if fin == 9 { 30 } else { base_len(fin) });
        dst[..n].copy_from_slice(&src[..n]);
        return;
    }
    dst[..14].copy_from_slice(&src[..14]);
    let (r, c) = (src[14], src[15]);
    // Return number and number of returns, 3 bits each → 4 bits each.
    dst[14] = (r & 0x07) | (((r >> 3) & 0x07) << 4);
    // Synthetic, key-point, withheld flags; scan direction and edge of flight line.
    dst[15] = (c >> 5) | (r & 0xc0);
    dst[16] = c & 0x1f;
    dst[17] = src[17];
    // Scan angle rank in degrees → scan angle in 0.006° steps.
    let angle = (f64::from(src[16] as i8) / 0.006).round() as i16;
    dst[18..20].copy_from_slice(&angle.to_le_bytes());
    dst[20..22].copy_from_slice(&src[18..20]);
    if matches!(fin, 1 | 3 | 4 | 5) {
        dst[22..30].copy_from_slice(&src[20..28]);
    }
    let rgb = match fin {
        2 => Some(20),
        3 | 5 => Some(28),
        _ => None,
    };
    if let (Some(at), 7) = (rgb, fout) {
        dst[30..36].copy_from_slice(&src[at..at + 6]);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn legacy_records_convert_field_by_field() {
        let mut src = [0u8; 34];
        src[0..4].copy_from_slice(&7i32.to_le_bytes());
        src[12..14].copy_from_slice(&500u16.to_le_bytes());
        src[14] = 2 | (3 << 3) | 0x40; // return 2 of 3, scan direction +
        src[15] = 6 | 0x20; // class 6, synthetic
        src[16] = (-15i8) as u8;
        src[17] = 9;
        src[18..20].copy_from_slice(&77u16.to_le_bytes());
        src[20..28].copy_from_slice(&1.5f64.to_le_bytes());
        src[28..34].copy_from_slice(&[1, 2, 3, 4, 5, 6]);
        let mut dst = [0u8; 36];
        convert(&src, 3, &mut dst, copc_format(3));
        assert_eq!(xyz(&dst), [7, 0, 0]);
        assert_eq!(u16::from_le_bytes([dst[12], dst[13]]), 500);
        assert_eq!((dst[14] & 0xf, dst[14] >> 4), (2, 3));
        assert_eq!((dst[15], dst[16], dst[17]), (1 | 0x40, 6, 9));
        assert_eq!(i16::from_le_bytes([dst[18], dst[19]]), -2500);
        assert_eq!(u16::from_le_bytes([dst[20], dst[21]]), 77);
        assert_eq!(f64::from_le_bytes(dst[22..30].try_into().unwrap()), 1.5);
        assert_eq!(dst[30..36], [1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn formats_map_to_6_7_8() {
        assert_eq!([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(copc_format), [6, 6, 7, 7, 6, 7, 6, 7, 8, 6, 8]);
    }
}
