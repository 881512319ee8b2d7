use crate::{sample_path, small_laz, SAMPLES};
use meridian_pointcloud::reader::{read_bytes, read_path, Limits, ReadError};

#[test]
fn reads_every_isprs_sample() {
    for s in SAMPLES {
        let (info, pc) = read_path(sample_path(s), Limits::default()).unwrap();
        assert_eq!((info.version, info.point_format, info.compressed), ((1, 2), 1, false), "samp{s}");
        assert_eq!(pc.len() as u64, info.points);
        assert!(pc.classification.iter().all(|&c| c == 1 || c == 2), "samp{s}: labels are ground or object");
        let [x0, y0, z0, x1, y1, z1] = info.bounds;
        for i in 0..pc.len() {
            assert!((x0..=x1).contains(&pc.x[i]) && (y0..=y1).contains(&pc.y[i]) && (z0..=z1).contains(&pc.z[i]));
        }
    }
}

#[test]
fn reads_laz() {
    let data = small_laz(5_000);
    let (info, pc) = read_bytes(&data, Limits::default()).unwrap();
    assert!(info.compressed);
    assert_eq!((info.points, pc.len()), (5_000, 5_000));
    assert_eq!(pc.classification[..4], [2, 1, 1, 2]);
    assert_eq!(pc.return_number[..2], [1, 2]);
    assert_eq!(pc.number_of_returns[0], 2);
    assert_eq!(pc.intensity[299..302], [299, 0, 1]);
    assert!((pc.x[10] - 512_003.7).abs() < 1e-3, "{}", pc.x[10]);
}

fn las_file() -> Vec<u8> {
    std::fs::read(sample_path("21")).unwrap()
}

fn set(data: &mut [u8], at: usize, bytes: &[u8]) {
    data[at..at + bytes.len()].copy_from_slice(bytes);
}

fn refused(data: &[u8]) -> ReadError {
    read_bytes(data, Limits::default()).unwrap_err()
}

#[test]
fn header_lies_are_errors() {
    // More points than the file holds.
    let mut f = las_file();
    set(&mut f, 107, &20_000u32.to_le_bytes());
    assert!(matches!(refused(&f), ReadError::Header(_)), "{}", refused(&f));
    // Offset to the points past the end.
    let mut f = las_file();
    set(&mut f, 96, &u32::MAX.to_le_bytes());
    assert!(matches!(refused(&f), ReadError::Header(_)));
    // A VLR count the header has no room for.
    let mut f = las_file();
    set(&mut f, 100, &1_000_000u32.to_le_bytes());
    assert!(matches!(refused(&f), ReadError::Header(_)));
    // An unknown point format, a record shorter than its format.
    let mut f = las_file();
    f[104] = 11;
    assert!(matches!(refused(&f), ReadError::Header(_)));
    let mut f = las_file();
    set(&mut f, 105, &10u16.to_le_bytes());
    assert!(matches!(refused(&f), ReadError::Header(_)));
    // Too many points for the limits.
    let f = las_file();
    assert!(matches!(read_bytes(&f, Limits { max_points: 100 }).unwrap_err(), ReadError::Limit { .. }));
}

#[test]
fn truncated_and_foreign_files_are_errors() {
    let f = las_file();
    for len in [0, 3, 100, 226, 227, 400, f.len() / 2, f.len() - 1] {
        assert!(read_bytes(&f[..len], Limits::default()).is_err(), "{len} bytes");
    }
    let laz = small_laz(2_000);
    for len in [300, laz.len() / 2, laz.len() - 9, laz.len() - 1] {
        assert!(read_bytes(&laz[..len], Limits::default()).is_err(), "LAZ cut at {len} bytes");
    }
    let jpeg = [0xff, 0xd8, 0xff, 0xe0, 0, 0x10, b'J', b'F', b'I', b'F', 0].repeat(64);
    assert!(matches!(refused(&jpeg), ReadError::Header(_)));
}

#[test]
fn a_laz_chunk_table_larger_than_the_file_is_an_error() {
    let mut f = small_laz(2_000);
    let offset = u32::from_le_bytes(f[96..100].try_into().unwrap()) as usize;
    let table = i64::from_le_bytes(f[offset..offset + 8].try_into().unwrap()) as usize;
    set(&mut f, table + 4, &u32::MAX.to_le_bytes());
    assert!(matches!(refused(&f), ReadError::Header(_)));
    // And a chunk table offset past the end.
    let mut f = small_laz(2_000);
    set(&mut f, offset, &(1i64 << 40).to_le_bytes());
    assert!(matches!(refused(&f), ReadError::Header(_)));
}
