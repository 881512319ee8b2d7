//! MapServer as the oracle of the map and feature services: the same parcels, exported from
//! Meridian through OGC API Features into a GeoPackage with GDAL, served by Debian's `mapserv`
//! (run as a CGI program from the command line, no web server) with the same style, and compared
//! with Meridian's answers to the same requests: GetMap pictures (mean absolute pixel difference)
//! and WFS 2.0 hit counts for the same BBOX and FES filter. `ORACLE_DUMP_DIR=DIR` keeps both
//! servers' pictures for a look.

use crate::ogc::decode_png;
use crate::{have_tool, Server};
use serde_json::{json, Value};
use std::path::Path;
use std::process::Command;

/// 20 × 10 parcels of 0.008° every 0.01° from 151.0 °E, 34.0 °S; tenure alternates.
fn parcels() -> Value {
    let mut features = Vec::new();
    for i in 0..20 {
        for j in 0..10 {
            let (x, y) = (151.0 + f64::from(i) * 0.01, -34.0 + f64::from(j) * 0.01);
            features.push(json!({"type": "Feature",
                "properties": {"lot": (i * 10 + j).to_string(), "plan": "DP77", "tenure": if (i + j) % 2 == 0 { "freehold" } else { "leasehold" }},
                "geometry": {"type": "Polygon", "coordinates": [[[x, y], [x + 0.008, y], [x + 0.008, y + 0.008], [x, y + 0.008], [x, y]]]}}));
        }
    }
    json!({"type": "FeatureCollection", "features": features})
}

/// The mapfile: the parcels from the GeoPackage with Meridian's default style (fill 232,116,59
/// at 60 %, outline 160,64,26 1.5 px).
fn mapfile(gpkg: &Path) -> String {
    format!(
        r#"MAP
  NAME "oracle"
  EXTENT -180 -90 180 90
  SIZE 256 256
  PROJECTION "init=epsg:4326" END
  WEB
    METADATA
      "ows_enable_request" "*"
      "ows_title" "oracle"
      "ows_srs" "EPSG:4326 EPSG:3857"
      "ows_onlineresource" "http://localhost/mapserv?"
    END
  END
  OUTPUTFORMAT
    NAME "png"
    DRIVER AGG/PNG
    MIMETYPE "image/png"
    IMAGEMODE RGBA
    EXTENSION "png"
    TRANSPARENT ON
  END
  LAYER
    NAME "parcels"
    TYPE POLYGON
    CONNECTIONTYPE OGR
    CONNECTION "{}"
    DATA "parcels"
    PROJECTION "+proj=longlat +datum=WGS84 +no_defs" END
    METADATA
      "gml_include_items" "all"
      "gml_featureid" "fid"
      "wfs_enable_request" "*"
    END
    CLASS
      STYLE COLOR 232 116 59 OPACITY 60 END
      STYLE OUTLINECOLOR 160 64 26 WIDTH 1.5 END
    END
  END
END
"#,
        gpkg.display()
    )
}

/// Runs `mapserv` on a query string and returns its body (no headers).
fn mapserv(config: &Path, query: &str) -> Vec<u8> {
    let out = Command::new("mapserv")
        .arg("-nh")
        .arg(format!("QUERY_STRING={query}"))
        .env("MAPSERVER_CONFIG_FILE", config)
        .output()
        .unwrap();
    assert!(out.status.success(), "mapserv {query}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// How two opaque pictures of `w` × `h` compare, in ways that do not hang on where each renderer
/// puts an edge within a pixel (MapServer's AGG renderer snaps outlines half a pixel from where
/// the geometry puts them): (a) among pixels whose 3 × 3 neighbourhood is uniform in both
/// pictures (inside a parcel or between parcels), the share that differ by more than 8 in some
/// channel; (b) the mean absolute difference per channel of the pictures averaged over 8 × 8
/// blocks.
fn compare(a: &[u8], b: &[u8], w: usize, h: usize) -> (f64, f64) {
    assert_eq!(a.len(), b.len());
    let at = |p: &[u8], x: usize, y: usize, c: usize| i32::from(p[(y * w + x) * 4 + c]);
    let uniform = |p: &[u8], x: usize, y: usize| {
        (0..3).all(|c| {
            let v = at(p, x, y, c);
            (y - 1..=y + 1).all(|yy| (x - 1..=x + 1).all(|xx| (at(p, xx, yy, c) - v).abs() <= 2))
        })
    };
    let (mut flat, mut off) = (0usize, 0usize);
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            if uniform(a, x, y) && uniform(b, x, y) {
                flat += 1;
                if (0..3).any(|c| (at(a, x, y, c) - at(b, x, y, c)).abs() > 8) {
                    off += 1;
                }
            }
        }
    }
    let (mut sum, mut n) = (0f64, 0usize);
    for by in 0..h / 8 {
        for bx in 0..w / 8 {
            for c in 0..3 {
                let mean = |p: &[u8]| {
                    (0..8)
                        .flat_map(|dy| (0..8).map(move |dx| (dx, dy)))
                        .map(|(dx, dy)| at(p, bx * 8 + dx, by * 8 + dy, c))
                        .sum::<i32>() as f64
                        / 64.0
                };
                sum += (mean(a) - mean(b)).abs();
                n += 1;
            }
        }
    }
    assert!(flat > w * h / 4, "too few uniform pixels to compare");
    (off as f64 / flat as f64, sum / n as f64)
}

/// How many pixels show the parcels' fill over white.
fn fill_pixels(p: &[u8]) -> usize {
    p.chunks_exact(4)
        .filter(|c| {
            (i32::from(c[0]) - 241).abs() <= 6
                && (i32::from(c[1]) - 171).abs() <= 6
                && (i32::from(c[2]) - 137).abs() <= 6
        })
        .count()
}

fn number_matched(xml: &[u8]) -> u64 {
    let text = String::from_utf8_lossy(xml);
    let at = text.find("numberMatched=\"").unwrap_or_else(|| panic!("no numberMatched in {text}"));
    let rest = &text[at + "numberMatched=\"".len()..];
    rest[..rest.find('"').unwrap()].parse().unwrap()
}

#[tokio::test]
async fn mapserver_draws_and_counts_the_same_parcels() {
    if !have_tool("mapserv", "mapserver_draws_and_counts_the_same_parcels")
        || !have_tool("ogr2ogr", "mapserver_draws_and_counts_the_same_parcels")
    {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("mapserver-oracle@example.com").await;
    let r = s
        .client
        .post(s.url("/api/v1/cadastre/parcels"))
        .header("X-Api-Key", &key)
        .header("content-type", "application/geo+json")
        .body(parcels().to_string())
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());

    // MapServer's copy comes out of Meridian through OGC API Features.
    let dir = s.dir.path().to_owned();
    let gpkg = dir.join("parcels.gpkg");
    let source = format!("OAPIF:{}/api/v1/ogc/v1/features/collections/parcels", s.base);
    let (g, k) = (gpkg.clone(), key.clone());
    tokio::task::spawn_blocking(move || {
        let out = Command::new("ogr2ogr")
            .args(["-f", "GPKG", g.to_str().unwrap(), &source, "-nln", "parcels"])
            .args(["--config", "GDAL_HTTP_HEADERS", &format!("X-Api-Key: {k}")])
            .output()
            .unwrap();
        assert!(out.status.success(), "ogr2ogr: {}", String::from_utf8_lossy(&out.stderr));
    })
    .await
    .unwrap();
    std::fs::write(dir.join("oracle.map"), mapfile(&gpkg)).unwrap();
    let config = dir.join("mapserver.conf");
    std::fs::write(
        &config,
        format!("CONFIG\n  MAPS\n    ORACLE \"{}\"\n  END\nEND\n", dir.join("oracle.map").display()),
    )
    .unwrap();

    // The same maps, opaque on white, in EPSG:4326 (latitude first) and EPSG:3857.
    let maps = [
        "CRS=EPSG:4326&BBOX=-34.005,150.995,-33.905,151.205&WIDTH=420&HEIGHT=200",
        "CRS=EPSG:3857&BBOX=16809000,-4029000,16832000,-4016000&WIDTH=512&HEIGHT=290",
        // Zoomed in on a few parcels, where outlines and anti-aliasing weigh most.
        "CRS=EPSG:3857&BBOX=16810000,-4028500,16812500,-4026000&WIDTH=256&HEIGHT=256",
    ];
    for m in maps {
        let common = format!("SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&STYLES=&FORMAT=image/png&TRANSPARENT=FALSE&{m}");
        let ours = s
            .get(&format!("/api/v1/ogc/wms?{common}&LAYERS=features:parcels"), &key)
            .await
            .bytes()
            .await
            .unwrap()
            .to_vec();
        let (c, q) = (config.clone(), format!("map=ORACLE&{common}&LAYERS=parcels"));
        let theirs = tokio::task::spawn_blocking(move || mapserv(&c, &q)).await.unwrap();
        if let Ok(dir) = std::env::var("ORACLE_DUMP_DIR") {
            let n = maps.iter().position(|x| *x == m).unwrap();
            std::fs::write(format!("{dir}/ours-{n}.png"), &ours).unwrap();
            std::fs::write(format!("{dir}/theirs-{n}.png"), &theirs).unwrap();
        }
        let (w1, h1, a) = decode_png(&ours);
        let (w2, h2, b) = decode_png(&theirs);
        assert_eq!((w1, h1), (w2, h2), "{m}");
        let (off, blocks) = compare(&a, &b, w1 as usize, h1 as usize);
        let (fa, fb) = (fill_pixels(&a), fill_pixels(&b));
        println!(
            "{m}: {:.2}% of uniform pixels differ, 8x8 block mean |diff| {blocks:.2}, fill {fa} vs {fb}",
            off * 100.0
        );
        assert!(fa > 1000 && fb > 1000, "no parcels drawn for {m}: {fa} vs {fb}");
        // Both draw the same fill and the same background in the same places; they differ only
        // along anti-aliased outlines.
        assert!(off < 0.01, "{m}: {:.2}% of the uniform pixels differ", off * 100.0);
        assert!(blocks < 8.0, "{m}: 8x8 block mean absolute difference {blocks:.2}");
    }
    // A control: a map beside the parcels is white for both, and differs from one over them.
    let empty = "SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&STYLES=&FORMAT=image/png&TRANSPARENT=FALSE&CRS=EPSG:4326&BBOX=-35.0,150.0,-34.9,150.1&WIDTH=64&HEIGHT=64&LAYERS=features:parcels";
    let (_, _, blank) = decode_png(&s.get(&format!("/api/v1/ogc/wms?{empty}"), &key).await.bytes().await.unwrap());
    assert!(blank.chunks_exact(4).all(|p| p[..3] == [255, 255, 255]));

    // WFS 2.0 hits for the same BBOX, and for the BBOX and a tenure filter (edges fall between
    // parcels so that no count hangs on a touching edge).
    let bbox = "-33.9995,151.0045,-33.9455,151.0955,urn:ogc:def:crs:EPSG::4326";
    let filter = r#"<fes:Filter xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:gml="http://www.opengis.net/gml/3.2"><fes:And><fes:PropertyIsEqualTo><fes:ValueReference>tenure</fes:ValueReference><fes:Literal>freehold</fes:Literal></fes:PropertyIsEqualTo><fes:BBOX><fes:ValueReference>GEOM</fes:ValueReference><gml:Envelope srsName="urn:ogc:def:crs:EPSG::4326"><gml:lowerCorner>-33.9995 151.0045</gml:lowerCorner><gml:upperCorner>-33.9455 151.0955</gml:upperCorner></gml:Envelope></fes:BBOX></fes:And></fes:Filter>"#;
    let enc = |v: &str| form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>();
    let mut counts = Vec::new();
    for extra in [format!("BBOX={}", enc(bbox)), format!("FILTER={}", enc(filter))] {
        let common = "SERVICE=WFS&VERSION=2.0.0&REQUEST=GetFeature&RESULTTYPE=hits";
        // Each server names the geometry property its own way.
        let ours_extra = extra.replace("GEOM", "geometry");
        let theirs_extra = extra.replace("GEOM", "msGeometry");
        let ours = s
            .get(&format!("/api/v1/ogc/wfs?{common}&TYPENAMES=features:parcels&{ours_extra}"), &key)
            .await
            .bytes()
            .await
            .unwrap();
        let (c, q) = (config.clone(), format!("map=ORACLE&{common}&TYPENAMES=parcels&{theirs_extra}"));
        let theirs = tokio::task::spawn_blocking(move || mapserv(&c, &q)).await.unwrap();
        counts.push((number_matched(&ours), number_matched(&theirs)));
    }
    // 10 columns × 6 rows meet the box; every other one is freehold.
    assert_eq!(counts, vec![(60, 60), (30, 30)]);
}
