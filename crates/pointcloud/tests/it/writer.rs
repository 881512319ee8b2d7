use crate::{
    classes_for, confidence_for, extra_bytes_laz, las_points, laspy_check, legacy_las, sample_path, temp_dir, SAMPLES,
};
use meridian_pointcloud::reader::{read_path, Limits};
use meridian_pointcloud::writer::{rewrite, CrsRecord, OutputFormat, Rewrite, WriteError, WriteSummary};
use std::fs::File;
use std::path::{Path, PathBuf};

fn write(input: &Path, output: &Path, opts: &Rewrite) -> Result<WriteSummary, WriteError> {
    let mut file = File::create(output).unwrap();
    rewrite(input, &mut file, opts, &|_| true)
}

/// The byte at `at` of every record (the crate's reader does not return extra bytes).
fn record_bytes(points: &las::PointData, at: usize) -> Vec<u8> {
    points.raw_bytes().chunks_exact(points.record_len()).map(|r| r[at]).collect()
}

/// Checks `output` against `input` with the given classes and confidence and the selection
/// `keep` (indices of input points, in order).
fn check(input: &Path, output: &Path, classes: &[u8], confidence: Option<&[u8]>, keep: &[usize]) {
    let (info_in, a) = read_path(input, Limits::default()).unwrap();
    let (info, b) = read_path(output, Limits::default()).unwrap();
    assert_eq!(b.len(), keep.len(), "{}", output.display());
    assert_eq!((info.scale, info.offset, info.point_format), (info_in.scale, info_in.offset, info_in.point_format));
    let half = info.scale.map(|s| s / 2.0);
    for (j, &i) in keep.iter().enumerate() {
        assert!(
            (a.x[i] - b.x[j]).abs() <= half[0]
                && (a.y[i] - b.y[j]).abs() <= half[1]
                && (a.z[i] - b.z[j]).abs() <= half[2]
        );
        assert_eq!(b.classification[j], classes[i]);
        assert_eq!(
            (b.return_number[j], b.number_of_returns[j], b.intensity[j]),
            (a.return_number[i], a.number_of_returns[i], a.intensity[i])
        );
    }
    if !keep.is_empty() {
        let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
        let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(info.bounds, [min(&b.x), min(&b.y), min(&b.z), max(&b.x), max(&b.y), max(&b.z)]);
    }
    if let Some(conf) = confidence {
        let (header, points) = las_points(output);
        assert_eq!(points.len(), keep.len());
        // The confidence byte is the last described one; in the PDAL file it is the third extra byte.
        let at = points.record_len() - 1;
        let got = record_bytes(&points, at);
        assert!(keep.iter().zip(&got).all(|(&i, &c)| conf[i] == c), "confidence");
        let vlrs = header.vlrs().iter().filter(|v| v.user_id == "LASF_Spec" && v.record_id == 4).collect::<Vec<_>>();
        assert_eq!(vlrs.len(), 1, "one extra-bytes VLR");
        assert!(vlrs[0].data.chunks_exact(192).any(|d| d[4..14] == *b"confidence" && d[14] == 0 && d[2] == 1));
    }
}

fn inside(x: f64, y: f64, b: [f64; 4]) -> bool {
    b[0] <= x && x <= b[2] && b[1] <= y && y <= b[3]
}

#[test]
fn isprs_samples_round_trip_with_new_classes_and_confidence() {
    let dir = temp_dir("isprs-rewrite");
    for s in SAMPLES {
        let input = sample_path(s);
        let (info, _) = read_path(&input, Limits::default()).unwrap();
        let classes = classes_for(info.points, &[2, 6, 9, 17, 31]);
        let confidence = confidence_for(info.points);
        for format in [OutputFormat::Las, OutputFormat::Laz] {
            let output = dir.join(format!("samp{s}-{format:?}.las"));
            let opts = Rewrite {
                format,
                classification: Some(classes.clone()),
                confidence: Some(confidence.clone()),
                ..Default::default()
            };
            let summary = write(&input, &output, &opts).unwrap();
            assert_eq!(summary.points, info.points);
            let (out, _) = read_path(&output, Limits::default()).unwrap();
            assert_eq!((out.compressed, out.record_length), (format == OutputFormat::Laz, info.record_length + 1));
            assert_eq!(summary.bounds, out.bounds);
            let all: Vec<usize> = (0..info.points as usize).collect();
            check(&input, &output, &classes, Some(&confidence), &all);
            // The GeoTIFF keys stay.
            let (header, _) = las_points(&output);
            assert!(header.vlrs().iter().any(|v| v.user_id == "LASF_Projection" && v.record_id == 34735), "samp{s}");
        }
    }
}

#[test]
fn filters_are_exact_against_a_brute_force_selection() {
    let dir = temp_dir("filters");
    let input = sample_path("31");
    let (info, pc) = read_path(&input, Limits::default()).unwrap();
    let [x0, y0, _, x1, y1, _] = info.bounds;
    // A box through the middle, its west edge on the stored coordinate of a point.
    let (w, h) = (x1 - x0, y1 - y0);
    let edge = pc.x.iter().copied().find(|&x| x > x0 + 0.2 * w && x < x0 + 0.3 * w).unwrap();
    let bbox = [edge, y0 + 0.25 * h, x0 + 0.6 * w, y0 + 0.75 * h];
    let classes = classes_for(info.points, &[1, 2, 6]);
    for (bb, keep_classes) in [(Some(bbox), None), (None, Some(vec![2u8, 6])), (Some(bbox), Some(vec![1u8]))] {
        let opts = Rewrite {
            format: OutputFormat::Laz,
            bbox: bb,
            classes: keep_classes.clone(),
            classification: Some(classes.clone()),
            ..Default::default()
        };
        let output = dir.join("cut.laz");
        let summary = write(&input, &output, &opts).unwrap();
        let keep: Vec<usize> = (0..pc.len())
            .filter(|&i| bb.is_none_or(|b| inside(pc.x[i], pc.y[i], b)))
            .filter(|&i| keep_classes.as_ref().is_none_or(|k| k.contains(&classes[i])))
            .collect();
        assert!(!keep.is_empty() && keep.len() < pc.len());
        assert_eq!(summary.points, keep.len() as u64);
        check(&input, &output, &classes, None, &keep);
    }
}

#[test]
fn the_pdal_file_keeps_its_extra_bytes_crs_and_return_counts() {
    let dir = temp_dir("pdal-rewrite");
    let input = extra_bytes_laz();
    let (info, pc) = read_path(&input, Limits::default()).unwrap();
    assert_eq!((info.points, info.point_format), (697_721, 8));
    let classes = classes_for(info.points, &[2, 6, 65, 200]);
    let confidence = confidence_for(info.points);
    let bbox = [484_700.0, 6_632_700.0, 484_900.0, 6_632_900.0];
    let keep: Vec<usize> = (0..pc.len()).filter(|&i| inside(pc.x[i], pc.y[i], bbox)).collect();
    let (_, before) = las_points(&input);
    for format in [OutputFormat::Las, OutputFormat::Laz] {
        let output = dir.join(format!("pdal.{format:?}"));
        let opts = Rewrite {
            format,
            bbox: Some(bbox),
            classification: Some(classes.clone()),
            confidence: Some(confidence.clone()),
            ..Default::default()
        };
        write(&input, &output, &opts).unwrap();
        // The input already has a `confidence` byte (described in a second extra-bytes VLR):
        // it is overwritten, not added again.
        let (out, _) = read_path(&output, Limits::default()).unwrap();
        assert_eq!(out.record_length, info.record_length);
        check(&input, &output, &classes, Some(&confidence), &keep);
        let (header, after) = las_points(&output);
        assert!(header.vlrs().iter().any(|v| v.user_id == "LASF_Projection" && v.record_id == 2112), "WKT kept");
        assert!(header.has_wkt_crs());
        // Every other byte of the records is the input's: NIR, RGB, GPS time, the Deviation attribute.
        let (n, m) = (before.record_len(), after.record_len());
        for (j, &i) in keep.iter().enumerate() {
            let (a, b) = (&before.raw_bytes()[i * n..(i + 1) * n], &after.raw_bytes()[j * m..(j + 1) * m]);
            assert_eq!((&a[..16], &a[17..n - 1]), (&b[..16], &b[17..n - 1]), "point {i}");
        }
        let mut by_return = [0u64; 15];
        for r in after.return_number() {
            by_return[usize::from(r) - 1] += 1;
        }
        for (r, &count) in by_return.iter().enumerate() {
            assert_eq!(header.number_of_points_by_return(r as u8 + 1).unwrap_or(0), count);
        }
    }
}

/// The CRS records a writer with a CRS override leaves: (user, record id, data) of each.
fn crs_records(path: &Path) -> Vec<(u16, Vec<u8>)> {
    let (header, _) = las_points(path);
    header.all_vlrs().filter(|v| v.user_id == "LASF_Projection").map(|v| (v.record_id, v.data.clone())).collect()
}

fn override_of(epsg: u16) -> CrsRecord {
    CrsRecord { epsg, wkt: crs_definitions::from_code(epsg).unwrap().wkt.to_owned() }
}

#[test]
fn a_crs_override_replaces_the_files_crs_records() {
    let dir = temp_dir("crs-override");
    // LAS 1.4 format 8 with a WKT of Lambert-93: WKT again, naming the override alone.
    let input = extra_bytes_laz();
    for format in [OutputFormat::Las, OutputFormat::Laz] {
        let output = dir.join(format!("wkt.{format:?}"));
        write(&input, &output, &Rewrite { format, crs: Some(override_of(32631)), ..Default::default() }).unwrap();
        let records = crs_records(&output);
        assert_eq!(records.len(), 1, "{:?}", records.iter().map(|r| r.0).collect::<Vec<_>>());
        assert_eq!(records[0].0, 2112);
        let wkt = String::from_utf8_lossy(&records[0].1);
        assert!(wkt.starts_with("PROJCS[") && wkt.contains(r#"AUTHORITY["EPSG","32631"]"#), "{wkt}");
        assert!(!wkt.contains("2154"), "the file's own CRS is gone: {wkt}");
        assert!(las_points(&output).0.has_wkt_crs());
        assert_eq!(read_path(&output, Limits::default()).unwrap().0.points, 697_721);
    }
    // LAS 1.2 format 1 with no CRS: GeoTIFF keys, projected and geographic.
    let input = sample_path("11");
    let keys = |model: u16, key: u16, code: u16| -> Vec<u8> {
        [1u16, 1, 0, 3, 1024, 0, 1, model, 1025, 0, 1, 1, key, 0, 1, code]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect()
    };
    for (epsg, model, key) in [(32632, 1, 3072), (4326, 2, 2048)] {
        let output = dir.join(format!("keys-{epsg}.laz"));
        let opts = Rewrite { format: OutputFormat::Laz, crs: Some(override_of(epsg)), ..Default::default() };
        write(&input, &output, &opts).unwrap();
        assert_eq!(crs_records(&output), vec![(34735, keys(model, key, epsg))]);
        assert!(!las_points(&output).0.has_wkt_crs());
        // Written over a file that has keys already: the override's keys alone.
        let again = dir.join(format!("keys-{epsg}-again.las"));
        let opts = Rewrite { format: OutputFormat::Las, crs: Some(override_of(25832)), ..Default::default() };
        write(&output, &again, &opts).unwrap();
        assert_eq!(crs_records(&again), vec![(34735, keys(1, 3072, 25832))]);
    }
    // A geocentric CRS is no GeoTIFF key of one code: WKT, with no WKT bit in a LAS 1.2 file.
    let output = dir.join("geocentric.las");
    write(&input, &output, &Rewrite { crs: Some(override_of(4978)), ..Default::default() }).unwrap();
    let records = crs_records(&output);
    assert_eq!(records.iter().map(|r| r.0).collect::<Vec<_>>(), vec![2112]);
    assert!(String::from_utf8_lossy(&records[0].1).starts_with("GEOCCS["));
    assert!(!las_points(&output).0.has_wkt_crs());
    // laspy reads the keys as GeoTIFF keys.
    if meridian_testing::tools::have_python_module("python3", "laspy", "a_crs_override_replaces_the_files_crs_records")
    {
        let script = "import sys, laspy\n\
                      las = laspy.read(sys.argv[1])\n\
                      keys = {k.id: k.value_offset for k in las.header.vlrs.get('GeoKeyDirectoryVlr')[0].geo_keys}\n\
                      assert keys[1024] == 1 and keys[3072] == 32632, keys\n\
                      print(keys)";
        let out = std::process::Command::new("python3")
            .args(["-c", script])
            .arg(dir.join("keys-32632.laz"))
            .output()
            .unwrap();
        assert!(out.status.success(), "laspy: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn legacy_formats_refuse_classes_above_31() {
    let dir = temp_dir("class-range");
    let input = legacy_las(&dir, 1, 100);
    let opts = Rewrite { classification: Some(vec![32; 100]), ..Default::default() };
    let err = write(&input, &dir.join("out.laz"), &opts).unwrap_err();
    assert!(matches!(err, WriteError::Class { class: 32, format: 1 }), "{err}");
    // A vector of the wrong length, a box that is not one.
    let opts = Rewrite { classification: Some(vec![2; 99]), ..Default::default() };
    assert!(matches!(write(&input, &dir.join("out.laz"), &opts), Err(WriteError::Options(_))));
    let opts = Rewrite { bbox: Some([1.0, 0.0, 0.0, 1.0]), ..Default::default() };
    assert!(matches!(write(&input, &dir.join("out.laz"), &opts), Err(WriteError::Options(_))));
}

#[test]
fn a_box_selecting_nothing_gives_a_valid_empty_file() {
    let dir = temp_dir("empty");
    for format in [OutputFormat::Las, OutputFormat::Laz] {
        let output = dir.join(format!("empty.{format:?}"));
        let opts = Rewrite { format, bbox: Some([0.0, 0.0, 1.0, 1.0]), ..Default::default() };
        let summary = write(&sample_path("11"), &output, &opts).unwrap();
        assert_eq!((summary.points, summary.bounds), (0, [0.0; 6]));
        let (info, pc) = read_path(&output, Limits::default()).unwrap();
        assert_eq!((info.points, pc.len()), (0, 0));
        assert_eq!(las_points(&output).1.len(), 0);
        laspy_reads_no_points(&output);
    }
}

fn laspy_reads_no_points(path: &Path) {
    if !meridian_testing::tools::have_python_module(
        "python3",
        "laspy",
        "a_box_selecting_nothing_gives_a_valid_empty_file",
    ) {
        return;
    }
    let script = "import sys, laspy; f = laspy.read(sys.argv[1]); assert len(f.points) == 0 == f.header.point_count";
    let out = std::process::Command::new("python3").args(["-c", script]).arg(path).output().unwrap();
    assert!(out.status.success(), "laspy: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn cancelling_stops_the_writing() {
    let dir = temp_dir("cancel");
    let mut file = File::create(dir.join("out.laz")).unwrap();
    let calls = std::sync::atomic::AtomicUsize::new(0);
    let progress = |f: f64| {
        assert!((0.0..=1.0).contains(&f));
        calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < 1
    };
    let err = rewrite(&extra_bytes_laz(), &mut file, &Rewrite::default(), &progress).unwrap_err();
    assert!(matches!(err, WriteError::Cancelled), "{err}");
    assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), 2);
}

#[test]
fn corrupt_and_foreign_inputs_are_errors() {
    let dir = temp_dir("corrupt");
    let data = std::fs::read(extra_bytes_laz()).unwrap();
    let mut cut = data[..data.len() / 3].to_vec();
    let bad = dir.join("cut.laz");
    std::fs::write(&bad, &cut).unwrap();
    assert!(write(&bad, &dir.join("out.laz"), &Rewrite::default()).is_err());
    // Noise in the middle of the compressed points.
    cut = data.clone();
    for b in &mut cut[data.len() / 2..data.len() / 2 + 4096] {
        *b = b.wrapping_mul(37).wrapping_add(11);
    }
    std::fs::write(&bad, &cut).unwrap();
    let _ = write(&bad, &dir.join("out.laz"), &Rewrite::default());
    std::fs::write(&bad, b"not a point cloud").unwrap();
    assert!(matches!(write(&bad, &dir.join("out.laz"), &Rewrite::default()), Err(WriteError::Read(_))));
}

#[test]
fn legacy_inputs_round_trip_and_laspy_reads_every_output() {
    let dir = temp_dir("laspy");
    let mut inputs: Vec<(PathBuf, [f64; 4])> = vec![
        (legacy_las(&dir, 1, 20_000), [300_010.0, 4_000_005.0, 300_060.0, 4_000_030.0]),
        (legacy_las(&dir, 3, 20_000), [300_010.0, 4_000_005.0, 300_060.0, 4_000_030.0]),
        (extra_bytes_laz(), [484_700.0, 6_632_700.0, 484_900.0, 6_632_900.0]),
    ];
    // The ISPRS samples, each with a query over the middle of its bounds.
    for s in SAMPLES {
        let (info, _) = read_path(sample_path(s), Limits::default()).unwrap();
        let b = info.bounds;
        let (w, h) = (b[3] - b[0], b[4] - b[1]);
        inputs.push((sample_path(s), [b[0] + 0.3 * w, b[1] + 0.3 * h, b[0] + 0.6 * w, b[1] + 0.7 * h]));
    }
    for (k, (input, query)) in inputs.iter().enumerate() {
        let (info, _) = read_path(input, Limits::default()).unwrap();
        let classify = [1u8, 2, 6, 9, 17];
        let classes = classes_for(info.points, &classify);
        let confidence = confidence_for(info.points);
        let filter = (k == 0).then_some(vec![2u8, 6, 17]);
        // The PDAL sample cut to a box whose edges fall on stored coordinates.
        let bbox = (k == 2).then_some([484_650.0, 6_632_640.0, 484_950.12, 6_632_990.5]);
        let las = dir.join(format!("{k}.las"));
        let laz = dir.join(format!("{k}.laz"));
        let copc = dir.join(format!("{k}.copc.laz"));
        for (format, path) in [(OutputFormat::Las, &las), (OutputFormat::Laz, &laz)] {
            let opts = Rewrite {
                format,
                classes: filter.clone(),
                bbox,
                classification: Some(classes.clone()),
                confidence: Some(confidence.clone()),
                crs: None,
            };
            write(input, path, &opts).unwrap();
        }
        let opts = meridian_pointcloud::CopcOptions {
            classes: filter.clone(),
            bbox,
            classification: Some(classes.clone()),
            confidence: Some(confidence.clone()),
            max_points_per_node: 5_000,
            ..Default::default()
        };
        meridian_pointcloud::write_copc(input, &copc, &opts, &|_| true).unwrap();
        crate::copc::check_copc(&copc);
        laspy_check(
            "legacy_inputs_round_trip_and_laspy_reads_every_output",
            &serde_json::json!({
                "input": input, "las": las, "laz": laz, "copc": copc, "classify": classify,
                "classes": filter, "bbox": bbox, "query": query,
            }),
        );
    }
}

/// A LAS 1.4 format 6 file with a WKT VLR and two EVLRs, written with the `las` crate.
fn las14_with_evlrs(dir: &Path) -> PathBuf {
    let mut builder = las::Builder::from((1, 4));
    builder.point_format = las::point::Format::new(6).unwrap();
    let t = |offset| las::Transform { scale: 0.01, offset };
    builder.transforms = las::Vector { x: t(600_000.0), y: t(200_000.0), z: t(0.0) };
    let vlr = |user: &str, record_id, data: &[u8]| las::Vlr {
        user_id: user.to_owned(),
        record_id,
        description: "test".to_owned(),
        data: data.to_vec(),
    };
    builder.vlrs.push(vlr("LASF_Projection", 2112, b"LOCAL_CS[\"test\"]\0"));
    builder.evlrs.push(vlr("meridian-test", 7, &[7; 70_000]));
    builder.evlrs.push(vlr("meridian-test", 8, b"second"));
    let path = dir.join("las14.las");
    let mut writer = las::Writer::from_path(&path, builder.into_header().unwrap()).unwrap();
    for i in 0..5_000 {
        let f = f64::from(i);
        writer
            .write_point(las::Point {
                x: 600_000.0 + f * 0.01,
                y: 200_000.0 + (f * 0.37) % 20.0,
                z: 10.0,
                return_number: 1 + (i % 9) as u8,
                number_of_returns: 9,
                classification: las::point::Classification::new(2).unwrap(),
                gps_time: Some(f),
                ..Default::default()
            })
            .unwrap();
    }
    writer.close().unwrap();
    path
}

/// The EVLRs of a LAS 1.4 file: (user id, record id, data).
fn evlrs(path: &Path) -> Vec<(String, u16, Vec<u8>)> {
    let data = std::fs::read(path).unwrap();
    let mut at = u64::from_le_bytes(data[235..243].try_into().unwrap()) as usize;
    let n = u32::from_le_bytes(data[243..247].try_into().unwrap());
    (0..n)
        .map(|_| {
            let user = String::from_utf8_lossy(&data[at + 2..at + 18]).trim_end_matches('\0').to_owned();
            let record = u16::from_le_bytes(data[at + 18..at + 20].try_into().unwrap());
            let len = u64::from_le_bytes(data[at + 20..at + 28].try_into().unwrap()) as usize;
            let body = data[at + 60..at + 60 + len].to_vec();
            at += 60 + len;
            (user, record, body)
        })
        .collect()
}

#[test]
fn evlrs_and_15_return_counts_are_kept() {
    let dir = temp_dir("evlrs");
    let input = las14_with_evlrs(&dir);
    let expected = evlrs(&input);
    assert_eq!(expected.len(), 2, "the input has its two EVLRs");
    for format in [OutputFormat::Las, OutputFormat::Laz] {
        let output = dir.join(format!("out.{format:?}"));
        let opts = Rewrite { format, classes: Some(vec![2]), confidence: Some(vec![9; 5_000]), ..Default::default() };
        assert_eq!(write(&input, &output, &opts).unwrap().points, 5_000);
        assert_eq!(evlrs(&output), expected, "{format:?}");
        let data = std::fs::read(&output).unwrap();
        let by_return: Vec<u64> =
            (0..15).map(|r| u64::from_le_bytes(data[255 + 8 * r..263 + 8 * r].try_into().unwrap())).collect();
        let mut want = vec![0u64; 15];
        for i in 0..5_000 {
            want[i % 9] += 1;
        }
        assert_eq!(by_return, want);
        assert_eq!(u32::from_le_bytes(data[107..111].try_into().unwrap()), 0, "no legacy count for format 6");
    }
    // COPC: the hierarchy first, then the input's EVLRs.
    let copc = dir.join("out.copc.laz");
    meridian_pointcloud::write_copc(&input, &copc, &Default::default(), &|_| true).unwrap();
    let got = evlrs(&copc);
    assert_eq!((got[0].0.as_str(), got[0].1), ("copc", 1000));
    assert_eq!(got[1..], expected[..]);
    crate::copc::check_copc(&copc);
}
