//! WMS 1.3.0: capabilities, GetMap pixels, feature info, exception codes, limits.

use crate::{ctx, decode_png, exception_code, pixel, service, SQUARE};
use meridian_core::id::AccountId;

fn map_query(crs: &str, bbox: &str, extra: &str) -> String {
    format!("SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=test:square&STYLES=&CRS={crs}&BBOX={bbox}&WIDTH=100&HEIGHT=100&FORMAT=image/png{extra}")
}

#[tokio::test]
async fn capabilities_are_well_formed_and_list_only_the_callers_layers() {
    let (s, owner) = service();
    let r = s.wms(&owner, "service=wms&request=GetCapabilities", &ctx()).await;
    assert_eq!(r.status, 200);
    let text = std::str::from_utf8(&r.body).unwrap();
    let doc = roxmltree::Document::parse(text).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "WMS_Capabilities");
    assert_eq!(root.tag_name().namespace(), Some("http://www.opengis.net/wms"));
    assert_eq!(root.attribute("version"), Some("1.3.0"));
    let names: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("Name") && n.parent().unwrap().has_tag_name("Layer"))
        .map(|n| n.text().unwrap())
        .collect();
    assert_eq!(names, vec!["test:square"]);
    let formats: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("Format") && n.parent().unwrap().has_tag_name("Exception"))
        .map(|n| n.text().unwrap())
        .collect();
    assert_eq!(formats, vec!["XML", "INIMAGE", "BLANK"]);
    // Every link carries the access token.
    for n in doc.descendants().filter(|n| n.has_tag_name("OnlineResource")) {
        let href = n.attribute(("http://www.w3.org/1999/xlink", "href")).unwrap();
        assert!(href.starts_with("http://maps.test/api/v1/ogc/wms?access_token=tok.en"), "{href}");
    }
    assert!(text.contains("A square &amp; a &lt;title&gt;"));

    let other = s.wms(&AccountId::generate(), "SERVICE=WMS&REQUEST=GetCapabilities", &ctx()).await;
    assert!(!std::str::from_utf8(&other.body).unwrap().contains("test:square"));
    let r = s.wms(&AccountId::generate(), &map_query("CRS:84", "151,-34,151.2,-33.8", ""), &ctx()).await;
    assert_eq!(exception_code(&r.body), "LayerNotDefined");
}

#[tokio::test]
async fn epsg_4326_bounding_boxes_are_latitude_first() {
    let (s, owner) = service();
    let r = s.wms(&owner, "SERVICE=WMS&REQUEST=GetCapabilities", &ctx()).await;
    let text = std::str::from_utf8(&r.body).unwrap();
    let doc = roxmltree::Document::parse(text).unwrap();
    let layer = doc
        .descendants()
        .find(|n| n.has_tag_name("Name") && n.text() == Some("test:square"))
        .unwrap()
        .parent()
        .unwrap();
    let bbox = |crs: &str| {
        let b = layer.children().find(|n| n.has_tag_name("BoundingBox") && n.attribute("CRS") == Some(crs)).unwrap();
        ["minx", "miny", "maxx", "maxy"].map(|k| b.attribute(k).unwrap().parse::<f64>().unwrap())
    };
    assert_eq!(bbox("EPSG:4326"), [SQUARE[1], SQUARE[0], SQUARE[3], SQUARE[2]]);
    assert_eq!(bbox("CRS:84"), SQUARE);
    let m = bbox("EPSG:3857");
    assert!((m[0] - 16_809_243.1).abs() < 1.0 && m[1] < -3_900_000.0, "{m:?}");
    let utm = bbox("EPSG:32756");
    assert!(utm[0] > 300_000.0 && utm[0] < 400_000.0 && utm[1] > 6_200_000.0, "{utm:?}");
    assert!(!layer.children().any(|n| n.has_tag_name("BoundingBox") && n.attribute("CRS") == Some("EPSG:2056")));
    let geo = layer.children().find(|n| n.has_tag_name("EX_GeographicBoundingBox")).unwrap();
    let west = geo.children().find(|n| n.has_tag_name("westBoundLongitude")).unwrap().text().unwrap();
    assert_eq!(west, "151");
}

#[tokio::test]
async fn getmap_in_4326_and_crs84_draws_the_same_square() {
    let (s, owner) = service();
    // The map spans 150.9..151.3 × −34.1..−33.7: the square covers pixels 25..75 in both axes.
    let a = s.wms(&owner, &map_query("EPSG:4326", "-34.1,150.9,-33.7,151.3", ""), &ctx()).await;
    let b = s.wms(&owner, &map_query("CRS:84", "150.9,-34.1,151.3,-33.7", ""), &ctx()).await;
    assert_eq!(a.status, 200, "{}", String::from_utf8_lossy(&a.body));
    assert_eq!(a.content_type, "image/png");
    assert_eq!(a.body, b.body);
    let (w, h, rgba) = decode_png(&a.body);
    assert_eq!((w, h), (100, 100));
    // Inside: the default fill (232,116,59 at 60 %) over white.
    let inside = pixel(&rgba, w, 50, 50);
    assert_eq!(inside[3], 255);
    assert!((i32::from(inside[0]) - 241).abs() <= 3 && (i32::from(inside[1]) - 171).abs() <= 3, "{inside:?}");
    // Outside: the white background.
    assert_eq!(pixel(&rgba, w, 5, 5), [255, 255, 255, 255]);
    assert_eq!(pixel(&rgba, w, 95, 50), [255, 255, 255, 255]);
    // The edge is anti-aliased: a pixel half covered by the outline is between stroke and white.
    let edge = pixel(&rgba, w, 50, 25);
    assert!(edge != [255, 255, 255, 255] && edge[0] > 160, "{edge:?}");
}

#[tokio::test]
async fn transparent_png8_and_jpeg_decode_back() {
    let (s, owner) = service();
    let r = s.wms(&owner, &map_query("CRS:84", "150.9,-34.1,151.3,-33.7", "&TRANSPARENT=TRUE"), &ctx()).await;
    let (w, _, rgba) = decode_png(&r.body);
    assert_eq!(pixel(&rgba, w, 5, 5)[3], 0);
    assert_eq!(pixel(&rgba, w, 50, 50)[3], 153);
    // Anti-aliasing: the outline (1.5 px wide on the edge at y = 25) covers row 24 by three
    // quarters, so that row is partly transparent, neither empty nor opaque.
    let a = pixel(&rgba, w, 50, 24)[3];
    assert!(a > 100 && a < 255, "{a}");
    let r = s
        .wms(
            &owner,
            &map_query("CRS:84", "150.9,-34.1,151.3,-33.7", "&TRANSPARENT=TRUE")
                .replace("image/png", "image/png;%20mode=8bit"),
            &ctx(),
        )
        .await;
    assert_eq!(r.status, 200);
    let (w, _, rgba) = decode_png(&r.body);
    assert_eq!(pixel(&rgba, w, 5, 5)[3], 0);
    assert_eq!(pixel(&rgba, w, 50, 50)[3], 153);
    assert_eq!(&r.body[..8], b"\x89PNG\r\n\x1a\n");
    // The 8-bit PNG carries a palette (colour type 3).
    assert_eq!(r.body[25], 3);
    let r = s
        .wms(
            &owner,
            &map_query("CRS:84", "150.9,-34.1,151.3,-33.7", "&BGCOLOR=0x000000").replace("image/png", "image/jpeg"),
            &ctx(),
        )
        .await;
    assert_eq!(r.content_type, "image/jpeg");
    assert_eq!(&r.body[..2], &[0xFF, 0xD8]);
}

/// A map is drawn in any CRS the CRS module transforms to, not only the ones the capabilities
/// list: a Landsat scene's own UTM zone, the British National Grid.
#[tokio::test]
async fn maps_are_drawn_in_any_crs_the_crs_module_knows() {
    let (s, owner) = service();
    for (crs, bbox) in [("EPSG:32617", "500000,4000000,510000,4010000"), ("EPSG:27700", "400000,100000,410000,110000")]
    {
        let r = s.wms(&owner, &map_query(crs, bbox, ""), &ctx()).await;
        assert_eq!(r.content_type, "image/png", "{crs}: {}", String::from_utf8_lossy(&r.body));
    }
}

#[tokio::test]
async fn errors_have_standard_codes() {
    let (s, owner) = service();
    let good = "150.9,-34.1,151.3,-33.7";
    let cases = [
        (map_query("EPSG:9999", good, ""), "InvalidCRS"),
        (map_query("CRS:84", good, "").replace("STYLES=", "STYLES=nope"), "StyleNotDefined"),
        (map_query("CRS:84", good, "").replace("test:square", "test:none"), "LayerNotDefined"),
        (map_query("CRS:84", good, "").replace("image/png", "image/gif"), "InvalidFormat"),
        (map_query("CRS:84", good, "").replace("WIDTH=100", "WIDTH=1025"), "InvalidParameterValue"),
        (map_query("CRS:84", good, "").replace("WIDTH=100", "WIDTH=abc"), "InvalidParameterValue"),
        (map_query("CRS:84", "1,2,3", ""), "InvalidParameterValue"),
        (map_query("CRS:84", "3,2,1,4", ""), "InvalidParameterValue"),
        (map_query("CRS:84", good, "").replace("&CRS=CRS:84", ""), "MissingParameterValue"),
        (map_query("CRS:84", good, "&TIME=2020"), "InvalidDimensionValue"),
        ("SERVICE=WMS&REQUEST=Transmogrify".into(), "OperationNotSupported"),
        ("SERVICE=WMS".into(), "MissingParameterValue"),
        (
            format!(
                "{}&QUERY_LAYERS=test:square&INFO_FORMAT=text/html&I=100&J=5",
                map_query("CRS:84", good, "").replace("GetMap", "GetFeatureInfo")
            ),
            "InvalidPoint",
        ),
        (
            format!(
                "{}&QUERY_LAYERS=test:square&INFO_FORMAT=image/png&I=1&J=5",
                map_query("CRS:84", good, "").replace("GetMap", "GetFeatureInfo")
            ),
            "InvalidFormat",
        ),
    ];
    for (q, code) in cases {
        let r = s.wms(&owner, &q, &ctx()).await;
        assert_eq!(r.status, 400, "{q}");
        assert_eq!(r.content_type, "text/xml");
        assert_eq!(exception_code(&r.body), code, "{q}");
    }
    // Keys are case-insensitive; values keep their case.
    let lower_keys: Vec<String> = map_query("CRS:84", good, "")
        .split('&')
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            format!("{}={v}", k.to_lowercase())
        })
        .collect();
    let r = s.wms(&owner, &lower_keys.join("&"), &ctx()).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
}

#[tokio::test]
async fn image_exceptions() {
    let (s, owner) = service();
    let q = map_query("CRS:84", "150.9,-34.1,151.3,-33.7", "&EXCEPTIONS=BLANK").replace("test:square", "test:none");
    let r = s.wms(&owner, &q, &ctx()).await;
    assert_eq!((r.status, r.content_type.as_str()), (200, "image/png"));
    let (w, h, rgba) = decode_png(&r.body);
    assert_eq!((w, h), (100, 100));
    assert!(rgba.chunks_exact(4).all(|p| p == [255, 255, 255, 255]));
    let r = s.wms(&owner, &q.replace("BLANK", "INIMAGE").replace("WIDTH=100", "WIDTH=300"), &ctx()).await;
    let (w, _, rgba) = decode_png(&r.body);
    // The message is written in red on the first rows, the rest stays blank.
    let red = |p: [u8; 4]| p[0] > 150 && p[1] < 60 && p[2] < 60;
    assert!((0..w).any(|x| (4..11).any(|y| red(pixel(&rgba, w, x, y)))));
    assert_eq!(pixel(&rgba, w, 150, 95), [255, 255, 255, 255]);
}

#[tokio::test]
async fn labels_are_drawn_at_the_centre() {
    let (s, owner) = service();
    let q = map_query("CRS:84", "150.9,-34.1,151.3,-33.7", "&TRANSPARENT=TRUE");
    let plain = s.wms(&owner, &q, &ctx()).await;
    let labelled = s.wms(&owner, &q.replace("STYLES=", "STYLES=labels"), &ctx()).await;
    let (w, _, a) = decode_png(&plain.body);
    let (_, _, b) = decode_png(&labelled.body);
    // "7/DP1" is 29 × 7 px centred on (50, 50): dark dots there, nothing changed far from it.
    let dark = |p: [u8; 4]| p[3] == 255 && p[0] < 80;
    assert!((36..65).any(|x| (46..54).any(|y| dark(pixel(&b, w, x, y)))));
    assert!(!(36..65).any(|x| (46..54).any(|y| dark(pixel(&a, w, x, y)))));
    assert_eq!(pixel(&a, w, 30, 70), pixel(&b, w, 30, 70));
}

#[tokio::test]
async fn feature_info_in_three_formats() {
    let (s, owner) = service();
    let base = map_query("CRS:84", "150.9,-34.1,151.3,-33.7", "").replace("GetMap", "GetFeatureInfo");
    let q = |fmt: &str, i: u32| format!("{base}&QUERY_LAYERS=test:square&INFO_FORMAT={fmt}&I={i}&J=50");
    let r = s.wms(&owner, &q("application/json", 50), &ctx()).await;
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["features"][0]["id"], "f1");
    assert_eq!(v["features"][0]["properties"]["lot"], "7");
    let r = s.wms(&owner, &q("application/json", 90), &ctx()).await;
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["features"].as_array().unwrap().len(), 0);
    let r = s.wms(&owner, &q("text/html", 50), &ctx()).await;
    assert!(std::str::from_utf8(&r.body).unwrap().contains("<td>DP1</td>"));
    let r = s.wms(&owner, &q("text/xml", 50), &ctx()).await;
    let text = std::str::from_utf8(&r.body).unwrap();
    roxmltree::Document::parse(text).unwrap();
    assert!(text.contains(r#"name="plan" value="DP1""#));
}

#[tokio::test]
async fn legend_graphic_is_a_png() {
    let (s, owner) = service();
    let r = s
        .wms(&owner, "SERVICE=WMS&VERSION=1.3.0&REQUEST=GetLegendGraphic&LAYER=test:square&FORMAT=image/png", &ctx())
        .await;
    assert_eq!(r.status, 200);
    let (w, h, rgba) = decode_png(&r.body);
    assert_eq!((w, h), (20, 20));
    assert_eq!(pixel(&rgba, w, 10, 10)[3], 153);
    let r = s.wms(&owner, "SERVICE=WMS&REQUEST=GetLegendGraphic&LAYER=test:square&STYLE=bogus", &ctx()).await;
    assert_eq!(exception_code(&r.body), "StyleNotDefined");
}
