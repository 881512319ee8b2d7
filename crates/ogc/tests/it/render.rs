//! Encoders and the limits of the request parser.

use crate::{decode_png, service};
use meridian_ogc::kvp::{Kvp, KvpLimits};
use meridian_ogc::render::{encode, ImageFormat};

#[test]
fn png_and_png8_round_trip_exactly() {
    let rgba: Vec<u8> =
        (0..64u32).flat_map(|i| [(i * 4) as u8, 0, 255 - (i * 4) as u8, if i % 2 == 0 { 255 } else { 0 }]).collect();
    for format in [ImageFormat::Png, ImageFormat::Png8] {
        let bytes = encode(&rgba, 8, 8, format, [255, 255, 255]).unwrap();
        let (w, h, back) = decode_png(&bytes);
        assert_eq!((w, h), (8, 8));
        for (a, b) in rgba.chunks_exact(4).zip(back.chunks_exact(4)) {
            if a[3] == 0 {
                assert_eq!(b[3], 0);
            } else {
                assert_eq!(a, b);
            }
        }
    }
}

#[test]
fn jpeg_is_baseline_with_the_right_size() {
    let rgba = vec![200u8; 40 * 30 * 4];
    let bytes = encode(&rgba, 40, 30, ImageFormat::Jpeg, [0, 0, 0]).unwrap();
    assert_eq!(&bytes[..2], &[0xFF, 0xD8]);
    // SOF0 carries height then width.
    let sof = bytes.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap();
    assert_eq!(u16::from_be_bytes([bytes[sof + 5], bytes[sof + 6]]), 30);
    assert_eq!(u16::from_be_bytes([bytes[sof + 7], bytes[sof + 8]]), 40);
}

#[test]
fn request_size_limits_hold() {
    let (s, _) = service();
    let huge = format!("SERVICE=WMS&LAYERS={}", "a,".repeat(40_000));
    assert!(Kvp::parse(&huge, KvpLimits::default()).is_err());
    let many = (0..100).map(|i| format!("k{i}=v")).collect::<Vec<_>>().join("&");
    assert!(Kvp::parse(&many, KvpLimits::default()).is_err());
    let layers = (0..17).map(|i| format!("test:l{i}")).collect::<Vec<_>>().join(",");
    let kvp = Kvp::parse(
        &format!("REQUEST=GetMap&LAYERS={layers}&CRS=CRS:84&BBOX=0,0,1,1&WIDTH=10&HEIGHT=10&FORMAT=image/png"),
        KvpLimits::default(),
    )
    .unwrap();
    let e = s.parse_map_request(&kvp).err().unwrap();
    assert_eq!(e.locator.as_deref(), Some("LAYERS"));
}
