//! WMTS 1.0.0: capabilities, tile matrix sets, tiles, exceptions.

use crate::{ctx, decode_png, exception_code, pixel, service};
use meridian_ogc::wmts::matrix::TileMatrixSet;
use meridian_ogc::wmts::TileRequest;

#[tokio::test]
async fn capabilities_declare_both_encodings_and_the_three_sets() {
    let (s, owner) = service();
    let r = s.wmts(&owner, "SERVICE=WMTS&REQUEST=GetCapabilities", &ctx()).await;
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let text = std::str::from_utf8(&r.body).unwrap();
    let doc = roxmltree::Document::parse(text).unwrap();
    assert_eq!(doc.root_element().tag_name().namespace(), Some("http://www.opengis.net/wmts/1.0"));
    let encodings: Vec<&str> = doc.descendants().filter(|n| n.has_tag_name("Value")).filter_map(|n| n.text()).collect();
    assert!(encodings.contains(&"KVP") && encodings.contains(&"REST"));
    let sets: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("TileMatrixSet") && n.children().any(|c| c.has_tag_name("TileMatrix")))
        .map(|n| n.children().find(|c| c.has_tag_name("Identifier")).unwrap().text().unwrap())
        .collect();
    assert_eq!(sets, vec!["WebMercatorQuad", "WorldCRS84Quad", "2056"]);
    assert!(text.contains("<WellKnownScaleSet>urn:ogc:def:wkss:OGC:1.0:GoogleMapsCompatible</WellKnownScaleSet>"));
    assert!(text.contains("<TopLeftCorner>2420000 1350000</TopLeftCorner>"));
    assert!(text.contains("<TopLeftCorner>-180 90</TopLeftCorner>"));
    assert!(text.contains("<ScaleDenominator>559082264.02871"), "{text}");
    let template = doc
        .descendants()
        .find(|n| n.has_tag_name("ResourceURL") && n.attribute("resourceType") == Some("tile"))
        .unwrap()
        .attribute("template")
        .unwrap();
    assert_eq!(
        template,
        "http://maps.test/api/v1/ogc/wmts/1.0.0/test:square/{Style}/{TileMatrixSet}/{TileMatrix}/{TileRow}/{TileCol}.png?access_token=tok.en"
    );
}

#[test]
fn lv95_matrices_follow_swisstopo() {
    let s = TileMatrixSet::swiss_lv95();
    assert_eq!(s.matrices.len(), 29);
    assert_eq!((s.matrices[0].matrix_width, s.matrices[0].matrix_height), (1, 1));
    let m20 = &s.matrices[20];
    assert_eq!(m20.resolution, 10.0);
    assert_eq!((m20.matrix_width, m20.matrix_height), (188, 125));
    let wm = TileMatrixSet::web_mercator_quad(22);
    assert!((wm.matrices[0].scale_denominator - 559_082_264.028_717_8).abs() < 1e-3);
    let c = TileMatrixSet::world_crs84_quad(22);
    assert!((c.matrices[0].scale_denominator - 279_541_132.014_358_9).abs() < 1e-3);
    assert_eq!((c.matrices[0].matrix_width, c.matrices[0].matrix_height), (2, 1));
}

fn tile(set: &str, z: &str, row: &str, col: &str) -> TileRequest {
    TileRequest {
        layer: "test:square".into(),
        style: "default".into(),
        tile_matrix_set: set.into(),
        tile_matrix: z.into(),
        row: row.into(),
        col: col.into(),
        format: "image/png".into(),
    }
}

#[tokio::test]
async fn tiles_render_the_square_with_an_etag() {
    let (s, owner) = service();
    // Zoom 8 of WebMercatorQuad: 151.1°E, 33.9°S lies in column 235, row 153.
    let r = s.get_tile(&owner, &tile("WebMercatorQuad", "8", "153", "235")).await.unwrap();
    assert!(r.etag.is_some() && r.max_age.is_some());
    let (w, h, rgba) = decode_png(&r.body);
    assert_eq!((w, h), (256, 256));
    assert!(rgba.chunks_exact(4).any(|p| p[3] == 153));
    let kvp = "SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0&LAYER=test:square&STYLE=default&TILEMATRIXSET=WebMercatorQuad&TILEMATRIX=8&TILEROW=153&TILECOL=235&FORMAT=image/png";
    assert_eq!(s.wmts(&owner, kvp, &ctx()).await.body, r.body);
    // WorldCRS84Quad level 3: 22.5° tiles; 151°E 34°S is column 14, row 5.
    let r = s.get_tile(&owner, &tile("WorldCRS84Quad", "3", "5", "14")).await.unwrap();
    let (w, _, rgba) = decode_png(&r.body);
    assert!(rgba.chunks_exact(4).any(|p| p[3] > 0));
    assert_eq!(pixel(&rgba, w, 0, 0)[3], 0);
}

#[tokio::test]
async fn tile_errors_are_ows_exception_reports() {
    let (s, owner) = service();
    let cases = [
        (tile("WebMercatorQuad", "2", "4", "0"), "TileOutOfRange"),
        (tile("WebMercatorQuad", "30", "0", "0"), "InvalidParameterValue"),
        (tile("Nope", "2", "0", "0"), "InvalidParameterValue"),
        (TileRequest { layer: "test:none".into(), ..tile("WebMercatorQuad", "2", "0", "0") }, "InvalidParameterValue"),
        (TileRequest { format: "image/gif".into(), ..tile("WebMercatorQuad", "2", "0", "0") }, "InvalidParameterValue"),
    ];
    for (t, code) in cases {
        let e = s.get_tile(&owner, &t).await.unwrap_err();
        let r = meridian_ogc::wmts::error_reply(&e);
        assert_eq!(r.status, 400);
        assert_eq!(exception_code(&r.body), code, "{t:?}");
        assert!(std::str::from_utf8(&r.body).unwrap().contains("http://www.opengis.net/ows/1.1"));
    }
    let r = s.wmts(&owner, "SERVICE=WMTS&REQUEST=GetTile&VERSION=1.0.0", &ctx()).await;
    assert_eq!(exception_code(&r.body), "MissingParameterValue");
}
