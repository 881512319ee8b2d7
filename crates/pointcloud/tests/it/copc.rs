use crate::{classes_for, confidence_for, extra_bytes_laz, las_points, legacy_las, sample_path, temp_dir};
use meridian_pointcloud::copc::{write_copc, CopcOptions, CopcSummary};
use meridian_pointcloud::reader::{read_path, Limits};
use meridian_pointcloud::writer::WriteError;
use std::io::{Cursor, Read, Seek, SeekFrom};
use std::path::Path;

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap())
}
fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}
fn f64_at(b: &[u8], at: usize) -> f64 {
    f64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

const WKT_32632: &str = r#"PROJCS["WGS 84 / UTM zone 32N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",9],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1],AUTHORITY["EPSG","32632"]]"#;

/// A hierarchy entry: key (depth, x, y, z), offset, bytes, points.
type Entry = ([i32; 4], u64, i32, i32);

/// Checks the layout of a COPC file from its bytes: the info VLR first, then the laszip VLR;
/// the hierarchy EVLR's entries add up to the header's point count, their chunks follow one
/// another from the start of the points, each decodes to its point count, and every point lies
/// in its node's cube. Returns the entries.
pub(crate) fn check_copc(path: &Path) -> Vec<Entry> {
    let data = std::fs::read(path).unwrap();
    assert_eq!(&data[..4], b"LASF");
    assert_eq!((data[24], data[25], u16_at(&data, 94)), (1, 4, 375));
    let format = data[104] & 0x3f;
    assert!(data[104] & 0x80 != 0 && (6..=8).contains(&format), "format byte {:#x}", data[104]);
    let record_len = usize::from(u16_at(&data, 105));
    let points = u64_at(&data, 247);
    assert_eq!(u32_at(&data, 107), 0, "no legacy point count in format {format}");
    let offset_to_points = u64::from(u32_at(&data, 96));
    // VLRs: info first, then laszip.
    let vlr = |at: usize| {
        (
            String::from_utf8_lossy(&data[at + 2..at + 18]).trim_end_matches('\0').to_owned(),
            u16_at(&data, at + 18),
            usize::from(u16_at(&data, at + 20)),
        )
    };
    assert_eq!(vlr(375), ("copc".to_owned(), 1, 160));
    let info = 375 + 54;
    let (center, half) =
        ([f64_at(&data, info), f64_at(&data, info + 8), f64_at(&data, info + 16)], f64_at(&data, info + 24));
    let (hier_at, hier_len) = (u64_at(&data, info + 40) as usize, u64_at(&data, info + 48) as usize);
    let laszip_at = info + 160;
    let (user, record, laszip_len) = vlr(laszip_at);
    assert_eq!((user.as_str(), record), ("laszip encoded", 22204));
    let laz_vlr = laz::LazVlr::from_buffer(&data[laszip_at + 54..laszip_at + 54 + laszip_len]).unwrap();
    assert!(laz_vlr.uses_variable_size_chunks());
    // The hierarchy is the first EVLR.
    let evlr = u64_at(&data, 235) as usize;
    assert!(u32_at(&data, 243) >= 1);
    assert_eq!(&data[evlr + 2..evlr + 6], b"copc");
    assert_eq!((u16_at(&data, evlr + 18), u64_at(&data, evlr + 20) as usize, evlr + 60), (1000, hier_len, hier_at));
    let mut entries: Vec<Entry> = data[hier_at..hier_at + hier_len]
        .chunks_exact(32)
        .map(|e| {
            let key = [0, 4, 8, 12].map(|k| i32::from_le_bytes(e[k..k + 4].try_into().unwrap()));
            (
                key,
                u64_at(e, 16),
                i32::from_le_bytes(e[24..28].try_into().unwrap()),
                i32::from_le_bytes(e[28..32].try_into().unwrap()),
            )
        })
        .collect();
    assert_eq!(entries.iter().map(|e| e.3 as u64).sum::<u64>(), points);
    assert!(entries.iter().any(|e| e.0 == [0; 4]), "a root node");
    entries.sort_by_key(|e| e.1);
    // Decode the chunks in file order, each to its count.
    let mut next = offset_to_points + 8;
    let mut cursor = Cursor::new(&data[..]);
    cursor.seek(SeekFrom::Start(offset_to_points)).unwrap();
    let mut decoder = laz::LasZipDecompressor::new(cursor, laz_vlr).unwrap();
    let (scale, offset) = ([131, 139, 147].map(|a| f64_at(&data, a)), [155, 163, 171].map(|a| f64_at(&data, a)));
    let min = center.map(|c| c - half);
    for (key, at, bytes, count) in &entries {
        assert_eq!(*at, next, "chunks follow one another");
        assert!(*bytes > 0 && *count > 0);
        next += *bytes as u64;
        let mut buf = vec![0u8; *count as usize * record_len];
        decoder.decompress_many(&mut buf).unwrap();
        let size = 2.0 * half / f64::from(1u32 << key[0]);
        for rec in buf.chunks_exact(record_len) {
            for k in 0..3 {
                let v = f64::from(i32::from_le_bytes(rec[4 * k..4 * k + 4].try_into().unwrap())) * scale[k] + offset[k];
                let lo = min[k] + f64::from(key[k + 1]) * size;
                let eps = 1e-9 * half.max(1.0);
                assert!(
                    lo - eps <= v && v <= lo + size + eps,
                    "a point of node {key:?} outside its cube on axis {k}: {v} not in {lo}..{}",
                    lo + size
                );
            }
        }
    }
    // After the last chunk comes the chunk table, one entry a node.
    let table = u64_at(&data, offset_to_points as usize);
    assert_eq!(table, next);
    assert_eq!(u32_at(&data, table as usize + 4) as usize, entries.len());
    entries
}

fn copc(input: &Path, output: &Path, opts: &CopcOptions) -> Result<CopcSummary, WriteError> {
    write_copc(input, output, opts, &|_| true)
}

/// (x, y, z, class) of every point of a file as stored integers, sorted.
fn sorted_points(path: &Path, classes: Option<&[u8]>, keep: impl Fn(f64, f64, u8) -> bool) -> Vec<[i64; 4]> {
    let (info, pc) = read_path(path, Limits::default()).unwrap();
    let int = |v: f64, k: usize| ((v - info.offset[k]) / info.scale[k]).round() as i64;
    let mut v: Vec<[i64; 4]> = (0..pc.len())
        .map(|i| (i, classes.map_or(pc.classification[i], |c| c[i])))
        .filter(|&(i, c)| keep(pc.x[i], pc.y[i], c))
        .map(|(i, c)| [int(pc.x[i], 0), int(pc.y[i], 1), int(pc.z[i], 2), i64::from(c)])
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn the_pdal_file_becomes_a_valid_copc_file() {
    let dir = temp_dir("copc-pdal");
    let input = extra_bytes_laz();
    let (info, _) = read_path(&input, Limits::default()).unwrap();
    let classes = classes_for(info.points, &[2, 6, 65, 200]);
    let confidence = confidence_for(info.points);
    let output = dir.join("pdal.copc.laz");
    let opts = CopcOptions {
        classification: Some(classes.clone()),
        confidence: Some(confidence.clone()),
        max_points_per_node: 50_000,
        ..Default::default()
    };
    let summary = copc(&input, &output, &opts).unwrap();
    assert_eq!((summary.points, summary.point_format), (info.points, 8));
    assert!(summary.depth >= 1 && summary.nodes > 8, "{summary:?}");
    let entries = check_copc(&output);
    assert_eq!(entries.len(), summary.nodes);
    assert_eq!(sorted_points(&output, None, |_, _, _| true), sorted_points(&input, Some(&classes), |_, _, _| true));
    // The confidence byte (the input's third extra byte) goes with its point: compare the
    // (GPS time, x, y, z, confidence) of every point, sorted.
    let (_, a) = las_points(&input);
    let (header, b) = las_points(&output);
    assert!(header.has_wkt_crs());
    let tuples = |p: &las::PointData, conf: &dyn Fn(usize, &[u8]) -> u8| {
        let mut v: Vec<_> = p
            .raw_bytes()
            .chunks_exact(p.record_len())
            .enumerate()
            .zip(p.gps_time().unwrap())
            .map(|((i, rec), t)| (t.to_bits(), rec[..12].to_vec(), conf(i, rec)))
            .collect();
        v.sort_unstable();
        v
    };
    let last = b.record_len() - 1;
    assert_eq!(tuples(&a, &|i, _| confidence[i]), tuples(&b, &|_, rec| rec[last]));
}

#[test]
fn legacy_formats_become_6_and_7_with_their_fields() {
    let dir = temp_dir("copc-legacy");
    for (format, expect) in [(1u8, 6u8), (3, 7)] {
        let input = legacy_las(&dir, format, 30_000);
        let output = dir.join(format!("f{format}.copc.laz"));
        // Format 3: the WKT of the GeoTIFF keys' EPSG:32632 given by the caller.
        let wkt = (format == 3).then(|| WKT_32632.to_owned());
        let opts = CopcOptions { max_points_per_node: 4_000, wkt, ..Default::default() };
        let summary = copc(&input, &output, &opts).unwrap();
        assert_eq!((summary.points, summary.point_format), (30_000, expect));
        check_copc(&output);
        assert_eq!(sorted_points(&output, None, |_, _, _| true), sorted_points(&input, None, |_, _, _| true));
        let (_, a) = las_points(&input);
        let (header, b) = las_points(&output);
        // GeoTIFF keys kept; WKT only when given.
        assert!(header.vlrs().iter().any(|v| v.user_id == "LASF_Projection" && v.record_id == 34735));
        let wkt = header.vlrs().iter().find(|v| v.user_id == "LASF_Projection" && v.record_id == 2112);
        assert_eq!(wkt.map(|v| v.data.clone()), (format == 3).then(|| [WKT_32632.as_bytes(), b"\0"].concat()));
        assert!(header.has_wkt_crs(), "the WKT bit is set for format {expect}");
        // Scan angles go from whole degrees to steps of 0.006°: equal to within a step.
        let key = |t: f64, i: u16, s: f32, u: u8| (t.to_bits(), i, s.round() as i32, u);
        let mut before: Vec<_> = a
            .gps_time()
            .unwrap()
            .zip(a.intensity())
            .zip(a.scan_angle_degrees())
            .zip(a.user_data())
            .map(|(((t, i), s), u)| key(t, i, s, u))
            .collect();
        let mut after: Vec<_> = b
            .gps_time()
            .unwrap()
            .zip(b.intensity())
            .zip(b.scan_angle_degrees())
            .zip(b.user_data())
            .map(|(((t, i), s), u)| key(t, i, s, u))
            .collect();
        before.sort_unstable();
        after.sort_unstable();
        assert_eq!(before, after);
        if format == 3 {
            let mut ca: Vec<_> = a.rgb().unwrap().collect();
            let mut cb: Vec<_> = b.rgb().unwrap().collect();
            ca.sort_unstable();
            cb.sort_unstable();
            assert_eq!(ca, cb);
        }
        let returns = |p: &las::PointData| {
            let mut v: Vec<_> = p.return_number().zip(p.number_of_returns()).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(returns(&a), returns(&b));
    }
}

#[test]
fn every_isprs_sample_becomes_a_valid_copc_file() {
    let dir = temp_dir("copc-isprs");
    let mut outputs = Vec::new();
    for s in crate::SAMPLES {
        let input = sample_path(s);
        let output = dir.join(format!("samp{s}.copc.laz"));
        let summary = copc(&input, &output, &CopcOptions { max_points_per_node: 2_000, ..Default::default() }).unwrap();
        let entries = check_copc(&output);
        assert_eq!(entries.len(), summary.nodes, "samp{s}");
        assert_eq!(
            sorted_points(&output, None, |_, _, _| true),
            sorted_points(&input, None, |_, _, _| true),
            "samp{s}"
        );
        let (header, _) = las_points(&output);
        assert_eq!(header.bounds(), las_points(&input).0.bounds(), "samp{s}: the bounds of the points");
        outputs.push(output);
    }
    crate::copclib_validates("every_isprs_sample_becomes_a_valid_copc_file", &outputs);
}

#[test]
fn copc_filters_are_exact_against_a_brute_force_selection() {
    let dir = temp_dir("copc-filters");
    let input = sample_path("22");
    let (info, _) = read_path(&input, Limits::default()).unwrap();
    let [x0, y0, _, x1, y1, _] = info.bounds;
    let bbox = [x0 + (x1 - x0) * 0.2, y0 + (y1 - y0) * 0.1, x0 + (x1 - x0) * 0.7, y0 + (y1 - y0) * 0.5];
    let classes = classes_for(info.points, &[1, 2, 6]);
    let opts = CopcOptions {
        bbox: Some(bbox),
        classes: Some(vec![2, 6]),
        classification: Some(classes.clone()),
        max_points_per_node: 1_000,
        ..Default::default()
    };
    let output = dir.join("cut.copc.laz");
    let summary = copc(&input, &output, &opts).unwrap();
    let want = sorted_points(&input, Some(&classes), |x, y, c| {
        bbox[0] <= x && x <= bbox[2] && bbox[1] <= y && y <= bbox[3] && (c == 2 || c == 6)
    });
    assert!(!want.is_empty());
    assert_eq!(summary.points, want.len() as u64);
    assert!(summary.depth >= 1 && summary.nodes > 1, "{summary:?}");
    check_copc(&output);
    assert_eq!(sorted_points(&output, None, |_, _, _| true), want);
}

#[test]
fn hostile_copc_cases_are_clear_errors() {
    let dir = temp_dir("copc-hostile");
    let input = sample_path("11");
    let output = dir.join("out.copc.laz");
    let none = CopcOptions { bbox: Some([0.0, 0.0, 1.0, 1.0]), ..Default::default() };
    assert!(matches!(copc(&input, &output, &none), Err(WriteError::Empty)));
    let small = CopcOptions { max_points: 1_000, ..Default::default() };
    assert!(matches!(copc(&input, &output, &small), Err(WriteError::Limit { limit: 1_000, .. })));
    // With a filter the limit is met while reading.
    let filtered = CopcOptions { classes: Some(vec![1, 2]), max_points: 1_000, ..Default::default() };
    assert!(matches!(copc(&input, &output, &filtered), Err(WriteError::Limit { value: 1_001, .. })));
    let zero = CopcOptions { max_points_per_node: 0, ..Default::default() };
    assert!(matches!(copc(&input, &output, &zero), Err(WriteError::Options(_))));
    let cancel = write_copc(&input, &output, &CopcOptions::default(), &|f| f < 0.5);
    assert!(matches!(cancel, Err(WriteError::Cancelled)));
    // Every point at one place: the octree stops at its depth limit instead of recursing.
    let mut file = std::fs::File::open(legacy_las(&dir, 1, 30)).unwrap();
    let mut one = Vec::new();
    file.read_to_end(&mut one).unwrap();
    let first = u32_at(&one, 96) as usize;
    let record = u16_at(&one, 105) as usize;
    let copy = one[first..first + record].to_vec();
    for k in 1..30 {
        one[first + k * record..first + (k + 1) * record].copy_from_slice(&copy);
    }
    let same = dir.join("same.las");
    std::fs::write(&same, &one).unwrap();
    let summary = copc(&same, &output, &CopcOptions { max_points_per_node: 1, ..Default::default() }).unwrap();
    assert_eq!((summary.points, summary.depth), (30, meridian_pointcloud::copc::MAX_DEPTH));
    check_copc(&output);
}

#[test]
fn a_copc_file_is_an_input_like_any_other() {
    let dir = temp_dir("copc-input");
    let input = sample_path("41");
    let first = dir.join("first.copc.laz");
    copc(&input, &first, &CopcOptions { max_points_per_node: 1_500, ..Default::default() }).unwrap();
    // Back to plain LAZ: the points, without the COPC records (variable-size chunks read through
    // the chunk table).
    let laz = dir.join("plain.laz");
    let mut file = std::fs::File::create(&laz).unwrap();
    let opts = meridian_pointcloud::Rewrite::default();
    meridian_pointcloud::rewrite(&first, &mut file, &opts, &|_| true).unwrap();
    let (header, _) = las_points(&laz);
    assert!(header.all_vlrs().all(|v| v.user_id != "copc"));
    assert_eq!(sorted_points(&laz, None, |_, _, _| true), sorted_points(&input, None, |_, _, _| true));
    // And again to COPC.
    let second = dir.join("second.copc.laz");
    copc(&first, &second, &CopcOptions { max_points_per_node: 1_500, ..Default::default() }).unwrap();
    check_copc(&second);
    assert_eq!(sorted_points(&second, None, |_, _, _| true), sorted_points(&input, None, |_, _, _| true));
}
