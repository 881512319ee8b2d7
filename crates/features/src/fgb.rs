//! FlatGeobuf to GeoJSON: reads a FlatGeobuf stream feature by feature (no index needed, so a
//! plain `Read` is enough) and hands each one over as a GeoJSON Feature object, ready for the same
//! validation as uploaded GeoJSON.

use flatgeobuf::{ColumnType, FallibleStreamingIterator, FeatureIter, FgbReader, GeozeroGeometry, NotSeekable};
use geozero::error::{GeozeroError, Result as GzResult};
use geozero::{ColumnValue, FeatureProperties, GeomProcessor, PropertyProcessor};
use serde_json::{json, Map, Value};
use std::io::{self, Cursor, Read};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// Bounds on a FlatGeobuf stream, checked before anything of that size is allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FgbLimits {
    /// Largest header (the FlatBuffers table after the magic bytes).
    pub max_header_bytes: u32,
    /// Largest single feature.
    pub max_feature_bytes: u32,
}

impl Default for FgbLimits {
    fn default() -> Self {
        Self { max_header_bytes: 1 << 20, max_feature_bytes: 64 << 20 }
    }
}

/// What a FlatGeobuf header says about its dataset.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FgbHeader {
    /// The layer name.
    pub name: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The EPSG code of the coordinates, when the header names one.
    pub epsg: Option<u32>,
    /// The feature count, when the writer recorded it.
    pub features: Option<u64>,
}

/// Why a FlatGeobuf stream cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum FgbError {
    /// Not FlatGeobuf, truncated, or structurally broken.
    #[error("not a readable FlatGeobuf file: {0}")]
    Format(String),
}

/// The features of a FlatGeobuf stream, read in file order (no index needed, so a plain `Read`
/// is enough), each as a GeoJSON Feature (no `id`; properties keep their column names).
pub struct FgbFeatures<R: Read> {
    iter: FeatureIter<io::Chain<Cursor<Vec<u8>>, Framed<R>>, NotSeekable>,
    header: FgbHeader,
    /// Why the framing reader stopped the stream, if it did.
    problem: Arc<AtomicU8>,
    limits: FgbLimits,
    /// The header's column types, to check each feature's property bytes.
    columns: Vec<ColumnType>,
}

/// Checks that a feature's property bytes hold whole values of the header's columns. The
/// FlatGeobuf crate slices them without bounds checks (a damaged file would panic there).
fn check_properties(bytes: &[u8], columns: &[ColumnType]) -> Result<(), FgbError> {
    let bad = || FgbError::Format("a feature's properties do not match the header's columns".into());
    let mut at = 0usize;
    // The same loop condition as the reader (it tolerates one trailing byte).
    while at + 1 < bytes.len() {
        let column = usize::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]));
        at += 2;
        let size = match columns.get(column).copied().ok_or_else(bad)? {
            ColumnType::Byte | ColumnType::UByte | ColumnType::Bool => 1,
            ColumnType::Short | ColumnType::UShort => 2,
            ColumnType::Int | ColumnType::UInt | ColumnType::Float => 4,
            ColumnType::Long | ColumnType::ULong | ColumnType::Double => 8,
            ColumnType::String | ColumnType::Json | ColumnType::DateTime | ColumnType::Binary => {
                let len = bytes.get(at..at + 4).ok_or_else(bad)?;
                at += 4;
                u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize
            }
            _ => 0,
        };
        at = at.checked_add(size).filter(|end| *end <= bytes.len()).ok_or_else(bad)?;
    }
    Ok(())
}

/// The size of the packed R-tree index that follows the header, or `None` if the header's
/// numbers cannot describe one (the FlatGeobuf crate asserts on these).
fn index_size(features: u64, node_size: u16) -> Result<u64, FgbError> {
    if node_size == 0 || features == 0 {
        return Ok(0);
    }
    if node_size < 2 {
        return Err(FgbError::Format("the index node size must be at least 2".into()));
    }
    // The same count as `PackedRTree::index_size` (whose loop runs at least once: a single
    // feature still has a root node), with overflow checked.
    let (node_size, mut n, mut nodes) = (u64::from(node_size), features, features);
    loop {
        n = n.div_ceil(node_size);
        nodes = nodes.checked_add(n).ok_or_else(|| FgbError::Format("the feature count is too large".into()))?;
        if n == 1 {
            break;
        }
    }
    nodes.checked_mul(40).ok_or_else(|| FgbError::Format("the feature count is too large".into()))
}

/// Why the framing reader stopped a stream (kept in an `AtomicU8`: the FlatGeobuf iterator takes
/// any error reading a size prefix for the end of the data, so the reason is passed on aside).
const TOO_BIG: u8 = 1;
const TRUNCATED: u8 = 2;

/// Passes a FlatGeobuf stream through, following its framing after the index: each feature is
/// read here first, so that its size prefix is checked against the limit and a prefix that claims
/// more bytes than the stream holds costs only the bytes that are there. (The FlatGeobuf reader
/// allocates and zero-fills the claimed size before reading.)
struct Framed<R> {
    inner: R,
    /// Header and index bytes still to pass through as they are.
    skip: u64,
    /// The current feature (prefix and body) and how much of it was handed on.
    pending: Vec<u8>,
    at: usize,
    max_feature: u32,
    problem: Arc<AtomicU8>,
}

impl<R: Read> Framed<R> {
    fn stop(&self, why: u8) -> io::Error {
        self.problem.store(why, Ordering::Relaxed);
        io::Error::new(io::ErrorKind::InvalidData, "FlatGeobuf framing")
    }
}

impl<R: Read> Read for Framed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at < self.pending.len() {
            let n = buf.len().min(self.pending.len() - self.at);
            buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
            self.at += n;
            return Ok(n);
        }
        if self.skip > 0 {
            let n = buf.len().min(usize::try_from(self.skip).unwrap_or(usize::MAX));
            let n = self.inner.read(&mut buf[..n])?;
            self.skip -= n as u64;
            return Ok(n);
        }
        let mut prefix = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match self.inner.read(&mut prefix[got..])? {
                0 => break,
                n => got += n,
            }
        }
        if got == 0 || buf.is_empty() {
            return Ok(0);
        }
        if got < 4 {
            return Err(self.stop(TRUNCATED));
        }
        let size = u32::from_le_bytes(prefix);
        if size > self.max_feature {
            return Err(self.stop(TOO_BIG));
        }
        self.pending.clear();
        self.at = 0;
        self.pending.extend_from_slice(&prefix);
        (&mut self.inner).take(u64::from(size)).read_to_end(&mut self.pending)?;
        if self.pending.len() < 4 + size as usize {
            return Err(self.stop(TRUNCATED));
        }
        self.read(buf)
    }
}

impl<R: Read> FgbFeatures<R> {
    /// Reads the header within the default [`FgbLimits`]; fails if the stream is not FlatGeobuf.
    pub fn open(reader: R) -> Result<Self, FgbError> {
        Self::open_with(reader, &FgbLimits::default())
    }

    /// Reads the header; fails if the stream is not FlatGeobuf or its header is over the limit.
    pub fn open_with(mut reader: R, limits: &FgbLimits) -> Result<Self, FgbError> {
        let format = |e: &dyn std::fmt::Display| FgbError::Format(e.to_string());
        // Read the header here first, to bound it and to check the numbers the FlatGeobuf crate
        // would otherwise assert on; then replay it to that crate.
        let mut start = vec![0u8; 12];
        reader.read_exact(&mut start).map_err(|e| format(&e))?;
        if &start[..3] != b"fgb" || &start[4..7] != b"fgb" {
            return Err(FgbError::Format("missing FlatGeobuf magic bytes".into()));
        }
        let header_size = u32::from_le_bytes([start[8], start[9], start[10], start[11]]);
        if header_size > limits.max_header_bytes {
            return Err(FgbError::Format(format!(
                "the header is {header_size} bytes, more than the {} allowed",
                limits.max_header_bytes
            )));
        }
        start.resize(12 + header_size as usize, 0);
        reader.read_exact(&mut start[12..]).map_err(|e| format(&e))?;
        let (features, node_size) = match flatgeobuf::size_prefixed_root_as_header(&start[8..]) {
            Ok(h) => (h.features_count(), h.index_node_size()),
            Err(e) => return Err(format(&e)),
        };
        let skip = index_size(features, node_size)?;
        let problem = Arc::new(AtomicU8::new(0));
        let framed = Framed {
            inner: reader,
            skip,
            pending: Vec::new(),
            at: 0,
            max_feature: limits.max_feature_bytes,
            problem: Arc::clone(&problem),
        };
        let fgb = FgbReader::open(Cursor::new(start).chain(framed)).map_err(|e| format(&e))?;
        let header = {
            let h = fgb.header();
            let epsg = h.crs().and_then(|c| {
                let org = c.org().unwrap_or("EPSG");
                (c.code() > 0 && org.eq_ignore_ascii_case("EPSG")).then_some(c.code() as u32)
            });
            FgbHeader {
                name: h.name().filter(|s| !s.is_empty()).map(str::to_owned),
                title: h.title().filter(|s| !s.is_empty()).map(str::to_owned),
                description: h.description().filter(|s| !s.is_empty()).map(str::to_owned),
                epsg,
                features: (h.features_count() > 0).then_some(h.features_count()),
            }
        };
        let columns = fgb.header().columns().map(|c| c.iter().map(|c| c.type_()).collect()).unwrap_or_default();
        let iter = fgb.select_all_seq().map_err(|e| FgbError::Format(e.to_string()))?;
        Ok(Self { iter, header, problem, limits: *limits, columns })
    }

    /// What the header says.
    pub fn header(&self) -> &FgbHeader {
        &self.header
    }

    /// The next feature, or `None` at the end.
    pub fn next_feature(&mut self) -> Result<Option<Value>, FgbError> {
        let next = self.iter.next().map_err(|e| FgbError::Format(e.to_string()));
        match self.problem.load(Ordering::Relaxed) {
            TOO_BIG => {
                return Err(FgbError::Format(format!(
                    "a feature is larger than the {} bytes allowed",
                    self.limits.max_feature_bytes
                )))
            }
            TRUNCATED => return Err(FgbError::Format("the file ends inside a feature".into())),
            _ => {}
        }
        let Some(feature) = next? else {
            return Ok(None);
        };
        let mut geometry = GeoJsonGeometry::default();
        // The FlatGeobuf crate's geometry reader indexes the coordinate and `ends` arrays without
        // checking them against each other (FlatBuffers verification only checks each array on
        // its own), so a damaged geometry panics inside it. That panic is contained here and
        // becomes a format error; nothing of ours is left half-updated (`geometry` is dropped).
        let processed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| feature.process_geom(&mut geometry)))
            .map_err(|_| FgbError::Format("a feature's geometry is damaged".into()))?;
        processed.map_err(|e| FgbError::Format(e.to_string()))?;
        if let Some(bytes) = feature.fbs_feature().properties() {
            check_properties(bytes.bytes(), &self.columns)?;
        }
        let mut properties = JsonProperties::default();
        feature.process_properties(&mut properties).map_err(|e| FgbError::Format(e.to_string()))?;
        Ok(Some(json!({
            "type": "Feature",
            "geometry": geometry.finish(),
            "properties": Value::Object(properties.0),
        })))
    }
}

/// Builds a GeoJSON geometry object from geozero's callbacks. Every `*_begin` opens a frame that
/// collects positions or parts; its `*_end` closes it into a coordinates array (an untagged part)
/// or a geometry object (a tagged geometry), added to the enclosing frame.
#[derive(Default)]
struct GeoJsonGeometry {
    frames: Vec<Vec<Value>>,
    result: Option<Value>,
}

impl GeoJsonGeometry {
    fn finish(self) -> Value {
        self.result.unwrap_or(Value::Null)
    }

    fn open(&mut self) {
        self.frames.push(Vec::new());
    }

    fn close(&mut self) -> Vec<Value> {
        self.frames.pop().unwrap_or_default()
    }

    fn emit(&mut self, v: Value) {
        match self.frames.last_mut() {
            Some(frame) => frame.push(v),
            None => self.result = Some(v),
        }
    }

    fn close_as(&mut self, kind: Option<&str>) {
        let parts = self.close();
        match kind {
            Some(t) => self.emit(json!({"type": t, "coordinates": parts})),
            None => self.emit(Value::Array(parts)),
        }
    }
}

impl GeomProcessor for GeoJsonGeometry {
    fn xy(&mut self, x: f64, y: f64, _idx: usize) -> GzResult<()> {
        self.emit(json!([x, y]));
        Ok(())
    }

    fn coordinate(
        &mut self,
        x: f64,
        y: f64,
        z: Option<f64>,
        _m: Option<f64>,
        _t: Option<f64>,
        _tm: Option<u64>,
        _idx: usize,
    ) -> GzResult<()> {
        match z {
            Some(z) => self.emit(json!([x, y, z])),
            None => self.emit(json!([x, y])),
        }
        Ok(())
    }

    fn empty_point(&mut self, _idx: usize) -> GzResult<()> {
        self.emit(json!({"type": "Point", "coordinates": []}));
        Ok(())
    }

    fn point_begin(&mut self, _idx: usize) -> GzResult<()> {
        self.open();
        Ok(())
    }

    fn point_end(&mut self, _idx: usize) -> GzResult<()> {
        let mut parts = self.close();
        let position = if parts.is_empty() { json!([]) } else { parts.swap_remove(0) };
        self.emit(json!({"type": "Point", "coordinates": position}));
        Ok(())
    }

    fn multipoint_begin(&mut self, _size: usize, _idx: usize) -> GzResult<()> {
        self.open();
        Ok(())
    }

    fn multipoint_end(&mut self, _idx: usize) -> GzResult<()> {
        self.close_as(Some("MultiPoint"));
        Ok(())
    }

    fn linestring_begin(&mut self, _tagged: bool, _size: usize, _idx: usize) -> GzResult<()> {
        self.open();
        Ok(())
    }

    fn linestring_end(&mut self, tagged: bool, _idx: usize) -> GzResult<()> {
        self.close_as(tagged.then_some("LineString"));
        Ok(())
    }

    fn multilinestring_begin(&mut self, _size: usize, _idx: usize) -> GzResult<()> {
        self.open();
        Ok(())
    }

    fn multilinestring_end(&mut self, _idx: usize) -> GzResult<()> {
        self.close_as(Some("MultiLineString"));
        Ok(())
    }

    fn polygon_begin(&mut self, _tagged: bool, _size: usize, _idx: usize) -> GzResult<()> {
        self.open();
        Ok(())
    }

    fn polygon_end(&mut self, tagged: bool, _idx: usize) -> GzResult<()> {
        self.close_as(tagged.then_some("Polygon"));
        Ok(())
    }

    fn multipolygon_begin(&mut self, _size: usize, _idx: usize) -> GzResult<()> {
        self.open();
        Ok(())
    }

    fn multipolygon_end(&mut self, _idx: usize) -> GzResult<()> {
        self.close_as(Some("MultiPolygon"));
        Ok(())
    }

    fn geometrycollection_begin(&mut self, _size: usize, _idx: usize) -> GzResult<()> {
        self.open();
        Ok(())
    }

    fn geometrycollection_end(&mut self, _idx: usize) -> GzResult<()> {
        let parts = self.close();
        self.emit(json!({"type": "GeometryCollection", "geometries": parts}));
        Ok(())
    }

    fn circularstring_begin(&mut self, _size: usize, _idx: usize) -> GzResult<()> {
        Err(GeozeroError::Geometry("curved geometries are not supported".into()))
    }

    fn compoundcurve_begin(&mut self, _size: usize, _idx: usize) -> GzResult<()> {
        Err(GeozeroError::Geometry("curved geometries are not supported".into()))
    }

    fn curvepolygon_begin(&mut self, _size: usize, _idx: usize) -> GzResult<()> {
        Err(GeozeroError::Geometry("curved geometries are not supported".into()))
    }

    fn multicurve_begin(&mut self, _size: usize, _idx: usize) -> GzResult<()> {
        Err(GeozeroError::Geometry("curved geometries are not supported".into()))
    }

    fn multisurface_begin(&mut self, _size: usize, _idx: usize) -> GzResult<()> {
        Err(GeozeroError::Geometry("curved geometries are not supported".into()))
    }

    fn triangle_begin(&mut self, _tagged: bool, _size: usize, _idx: usize) -> GzResult<()> {
        Err(GeozeroError::Geometry("triangles, TINs and polyhedral surfaces are not supported".into()))
    }

    fn polyhedralsurface_begin(&mut self, _size: usize, _idx: usize) -> GzResult<()> {
        Err(GeozeroError::Geometry("triangles, TINs and polyhedral surfaces are not supported".into()))
    }

    fn tin_begin(&mut self, _size: usize, _idx: usize) -> GzResult<()> {
        Err(GeozeroError::Geometry("triangles, TINs and polyhedral surfaces are not supported".into()))
    }
}

/// Collects a feature's columns as GeoJSON properties.
#[derive(Default)]
struct JsonProperties(Map<String, Value>);

impl PropertyProcessor for JsonProperties {
    fn property(&mut self, _idx: usize, name: &str, value: &ColumnValue) -> GzResult<bool> {
        let v = match value {
            ColumnValue::Byte(v) => json!(v),
            ColumnValue::UByte(v) => json!(v),
            ColumnValue::Bool(v) => json!(v),
            ColumnValue::Short(v) => json!(v),
            ColumnValue::UShort(v) => json!(v),
            ColumnValue::Int(v) => json!(v),
            ColumnValue::UInt(v) => json!(v),
            ColumnValue::Long(v) => json!(v),
            ColumnValue::ULong(v) => json!(v),
            ColumnValue::Float(v) => json!(v),
            ColumnValue::Double(v) => json!(v),
            ColumnValue::String(s) | ColumnValue::DateTime(s) => json!(s),
            ColumnValue::Json(s) => serde_json::from_str(s).unwrap_or_else(|_| json!(s)),
            ColumnValue::Binary(b) => json!(b.iter().map(|x| format!("{x:02x}")).collect::<String>()),
        };
        self.0.insert(name.to_owned(), v);
        Ok(false)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use flatgeobuf::{ColumnType, FgbCrs, FgbWriter, FgbWriterOptions, GeometryType};

    /// A geometry given as GeoJSON-like nested arrays, replayed into a geozero processor.
    struct Poly(Vec<Vec<[f64; 2]>>);

    impl GeozeroGeometry for Poly {
        fn process_geom<P: GeomProcessor>(&self, p: &mut P) -> GzResult<()> {
            p.polygon_begin(true, self.0.len(), 0)?;
            for (i, ring) in self.0.iter().enumerate() {
                p.linestring_begin(false, ring.len(), i)?;
                for (j, c) in ring.iter().enumerate() {
                    p.xy(c[0], c[1], j)?;
                }
                p.linestring_end(false, i)?;
            }
            p.polygon_end(true, 0)
        }
    }

    fn sample() -> Vec<u8> {
        let mut w = FgbWriter::create_with_options(
            "lots",
            GeometryType::Polygon,
            FgbWriterOptions {
                crs: FgbCrs { code: 4326, ..Default::default() },
                title: Some("Lots"),
                ..Default::default()
            },
        )
        .unwrap();
        w.add_column("lot", ColumnType::String, |_, _| {});
        w.add_column("n", ColumnType::Int, |_, _| {});
        for k in 0..3 {
            let x = k as f64;
            let ring = vec![[x, 0.0], [x + 1.0, 0.0], [x + 1.0, 1.0], [x, 1.0], [x, 0.0]];
            w.add_feature_geom(Poly(vec![ring]), |f| {
                f.property(0, "lot", &ColumnValue::String(&format!("L{k}"))).unwrap();
                f.property(1, "n", &ColumnValue::Int(k)).unwrap();
            })
            .unwrap();
        }
        let mut out = Vec::new();
        w.write(&mut out).unwrap();
        out
    }

    fn all(bytes: &[u8]) -> Result<(FgbHeader, Vec<Value>), FgbError> {
        let mut r = FgbFeatures::open(bytes)?;
        let mut out = Vec::new();
        while let Some(f) = r.next_feature()? {
            out.push(f);
        }
        Ok((r.header().clone(), out))
    }

    #[test]
    fn reads_header_and_features_as_geojson() {
        let (h, seen) = all(&sample()).unwrap();
        assert_eq!(h.name.as_deref(), Some("lots"));
        assert_eq!(h.title.as_deref(), Some("Lots"));
        assert_eq!(h.epsg, Some(4326));
        assert_eq!(h.features, Some(3));
        assert_eq!(seen.len(), 3);
        // The writer sorts features along a Hilbert curve; find each lot by its property.
        let lot1 = seen.iter().find(|f| f["properties"]["lot"] == "L1").unwrap();
        assert_eq!(lot1["properties"]["n"], 1);
        assert_eq!(lot1["geometry"]["type"], "Polygon");
        assert_eq!(lot1["geometry"]["coordinates"][0][2], json!([2.0, 1.0]));
        assert_eq!(lot1["geometry"]["coordinates"][0].as_array().unwrap().len(), 5);
    }

    #[test]
    fn oversized_headers_and_features_are_refused_before_allocation() {
        let bytes = sample();
        let header_size = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize;
        // The sample has a spatial index: find the first feature after it.
        let features_at = 12 + header_size + index_size(3, 16).unwrap() as usize;

        let mut huge = bytes.clone();
        huge[features_at..features_at + 4].copy_from_slice(&0xFFFF_FFF0_u32.to_le_bytes());
        let e = all(&huge).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("a feature is larger than"), "{e}");

        let small = FgbLimits { max_header_bytes: 16, ..FgbLimits::default() };
        let e = FgbFeatures::open_with(&bytes[..], &small).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("more than the 16 allowed"), "{e}");

        let one_feature = FgbLimits { max_feature_bytes: 8, ..FgbLimits::default() };
        let mut r = FgbFeatures::open_with(&bytes[..], &one_feature).unwrap();
        assert!(r.next_feature().is_err());

        // Header numbers the FlatGeobuf crate asserts on are errors here.
        assert!(index_size(10, 1).is_err());
        assert!(index_size(u64::MAX, 2).is_err());
        assert_eq!(index_size(0, 16).unwrap(), 0);
        for (features, node_size) in [(1, 16), (3, 16), (16, 16), (17, 16), (1_000, 2), (70_000, 65_535)] {
            let expected = flatgeobuf::packed_r_tree::PackedRTree::index_size(features, node_size) as u64;
            assert_eq!(index_size(features as u64, node_size).unwrap(), expected, "{features} {node_size}");
        }
    }

    #[test]
    fn files_made_by_gdal_read_whole() {
        // One feature with a spatial index (a root node only), several with and without one;
        // counts as `ogrinfo -so` gives them.
        for (file, count) in [("points3857.fgb", 1), ("poly.fgb", 2), ("poly_noindex.fgb", 2), ("mixed.fgb", 3)] {
            let path = format!("{}/../../fuzz/corpus/flatgeobuf/{file}", env!("CARGO_MANIFEST_DIR"));
            let bytes = std::fs::read(path).unwrap();
            let (_, features) = all(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(features.len(), count, "{file}");
        }
    }

    #[test]
    fn damaged_geometry_arrays_are_format_errors() {
        // Found by the flatgeobuf fuzz target: a geometry whose arrays the reader indexes out of
        // bounds. The panic must end as an error for this feature.
        let bytes = include_bytes!("../../../fuzz/corpus/flatgeobuf/found_vector_index.fgb");
        let mut r = FgbFeatures::open(&bytes[..]).unwrap();
        let mut saw_error = false;
        for _ in 0..100 {
            match r.next_feature() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => {
                    saw_error = e.to_string().contains("not a readable FlatGeobuf file");
                    break;
                }
            }
        }
        assert!(saw_error);
    }

    #[test]
    fn garbage_and_truncation_are_format_errors() {
        assert!(matches!(all(b"{\"type\":1}"), Err(FgbError::Format(_))));
        let bytes = sample();
        assert!(matches!(all(&bytes[..bytes.len() - 20]), Err(FgbError::Format(_))));
    }
}
