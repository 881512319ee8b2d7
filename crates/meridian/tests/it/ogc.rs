//! WMS 1.3.0 and WMTS 1.0.0 through the real binary, driven by the clients GIS users have:
//! OWSLib (`WebMapService`, `WebMapTileService`), GDAL's WMS and WMTS drivers
//! (`gdal_translate "WMS:..."`, `gdalinfo "WMTS:..."`), and plain HTTP for exceptions, tenancy
//! and the `access_token` parameter.

use crate::{have_python_module, have_tool, Server};
use serde_json::{json, Value};
use std::process::Command;
use std::time::{Duration, Instant};

/// The parcel every test draws: 151.0..151.2 °E × 34.0..33.8 °S.
async fn seed_parcel(s: &Server, key: &str) {
    let body = json!({"type": "Feature",
        "geometry": {"type": "Polygon", "coordinates": [[[151.0, -34.0], [151.2, -34.0], [151.2, -33.8], [151.0, -33.8], [151.0, -34.0]]]},
        "properties": {"lot": "7", "plan": "DP4242", "tenure": "freehold"}});
    crate::post_parcel(s, key, &body).await;
}

pub(crate) async fn access_token(s: &Server, key: &str) -> String {
    let r = s.client.post(s.url("/api/v1/auth/token")).header("X-Api-Key", key).send().await.unwrap();
    let v: Value = r.json().await.unwrap();
    v["access_token"].as_str().unwrap().to_owned()
}

pub(crate) fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes));
    dec.set_transformations(png::Transformations::EXPAND);
    let mut reader = dec.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|c| [c[0], c[1], c[2], 255]).collect(),
        other => panic!("unexpected colour type {other:?}"),
    };
    (info.width, info.height, rgba)
}

fn px(rgba: &[u8], w: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * w + x) * 4) as usize;
    [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]
}

/// The parcel's default fill (232,116,59 at 60 %) over white.
fn is_parcel_fill(p: [u8; 4]) -> bool {
    p[3] == 255
        && (i32::from(p[0]) - 241).abs() <= 4
        && (i32::from(p[1]) - 171).abs() <= 4
        && (i32::from(p[2]) - 137).abs() <= 4
}

fn run_python(script: &str, args: &[&str]) -> Value {
    let out = Command::new("python3").arg("-c").arg(script).args(args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stdout)))
}

#[tokio::test]
async fn ogc_owslib_wms_contents_getmap_and_feature_info() {
    if !have_python_module("python3", "owslib.wms", "ogc_owslib_wms_contents_getmap_and_feature_info") {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("owslib-wms@example.com").await;
    seed_parcel(&s, &key).await;
    let token = access_token(&s, &key).await;
    let dir = s.dir.path().to_owned();
    let script = r#"
import json, sys
from owslib.wms import WebMapService
url, out = sys.argv[1], sys.argv[2]
wms = WebMapService(url, version="1.3.0")
layer = wms["features:parcels"]
res = {"contents": list(wms.contents), "title": wms.identification.title,
       "crs": sorted(layer.crsOptions), "styles": sorted(layer.styles), "bbox84": list(layer.boundingBoxWGS84)}
# OWSLib takes boxes longitude first and sends EPSG:4326 latitude first, as WMS 1.3.0 wants.
img = wms.getmap(layers=["features:parcels"], styles=[""], srs="EPSG:4326", bbox=(150.9, -34.1, 151.3, -33.7),
                 size=(100, 100), format="image/png")
open(out + "/wms-4326.png", "wb").write(img.read())
img = wms.getmap(layers=["features:parcels"], styles=["default"], srs="EPSG:3857",
                 bbox=(16797960.0, -4040000.0, 16842500.0, -3995000.0), size=(100, 100), format="image/png", transparent=True)
open(out + "/wms-3857.png", "wb").write(img.read())
info = wms.getfeatureinfo(layers=["features:parcels"], srs="EPSG:4326", bbox=(150.9, -34.1, 151.3, -33.7),
                          size=(100, 100), format="image/png", query_layers=["features:parcels"],
                          info_format="application/json", xy=(50, 50))
res["info"] = json.loads(info.read())
print(json.dumps(res))
"#;
    let url = format!("{}/api/v1/ogc/wms?access_token={token}", s.base);
    let out = dir.to_str().unwrap().to_owned();
    let res = tokio::task::spawn_blocking(move || run_python(script, &[&url, &out])).await.unwrap();
    assert_eq!(res["contents"], json!(["features:parcels"]));
    assert_eq!(res["title"], "Meridian WMS");
    let crs: Vec<&str> = res["crs"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    for c in ["CRS:84", "EPSG:4326", "EPSG:3857", "EPSG:2056", "EPSG:7856", "EPSG:28356", "EPSG:32756"] {
        assert!(crs.contains(&c), "{crs:?}");
    }
    assert_eq!(res["styles"], json!(["default", "labels", "outline"]));
    let b: Vec<f64> = res["bbox84"].as_array().unwrap()[..4].iter().map(|v| v.as_f64().unwrap()).collect();
    // The store keeps extents in single precision.
    assert!((b[0] - 151.0).abs() < 1e-4 && (b[1] + 34.0).abs() < 1e-4 && (b[2] - 151.2).abs() < 1e-4, "{b:?}");

    // 150.9..151.3 × −34.1..−33.7 over 100 px: the parcel is pixels 25..75 in both axes.
    let (w, h, rgba) = decode_png(&std::fs::read(dir.join("wms-4326.png")).unwrap());
    assert_eq!((w, h), (100, 100));
    assert!(is_parcel_fill(px(&rgba, w, 50, 50)), "{:?}", px(&rgba, w, 50, 50));
    assert!(is_parcel_fill(px(&rgba, w, 30, 70)));
    for (x, y) in [(10, 10), (90, 50), (50, 90), (20, 50)] {
        assert_eq!(px(&rgba, w, x, y), [255, 255, 255, 255], "({x},{y})");
    }
    // In EPSG:3857 the parcel (x 16809092..16831356, y −4028802..−4001959) lies inside the map,
    // on a transparent background.
    let (w, _, rgba) = decode_png(&std::fs::read(dir.join("wms-3857.png")).unwrap());
    assert_eq!(px(&rgba, w, 50, 50)[3], 153);
    assert_eq!(px(&rgba, w, 2, 2)[3], 0);
    assert_eq!(px(&rgba, w, 97, 97)[3], 0);

    let f = &res["info"]["features"];
    assert_eq!(f.as_array().unwrap().len(), 1, "{}", res["info"]);
    assert_eq!(f[0]["properties"]["plan"], "DP4242");
}

#[tokio::test]
async fn ogc_owslib_wmts_gettile_by_kvp() {
    if !have_python_module("python3", "owslib.wmts", "ogc_owslib_wmts_gettile_by_kvp") {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("owslib-wmts@example.com").await;
    seed_parcel(&s, &key).await;
    let token = access_token(&s, &key).await;
    let dir = s.dir.path().to_owned();
    let script = r#"
import json, sys
from owslib.wmts import WebMapTileService
url, out = sys.argv[1], sys.argv[2]
wmts = WebMapTileService(url)
res = {"contents": list(wmts.contents), "sets": sorted(wmts.tilematrixsets),
       "kvp": [m["url"] for m in wmts.getOperationByName("GetTile").methods]}
tile = wmts.gettile(layer="features:parcels", tilematrixset="WebMercatorQuad", tilematrix="8", row=153, column=235,
                    format="image/png")
open(out + "/tile.png", "wb").write(tile.read())
print(json.dumps(res))
"#;
    let url = format!("{}/api/v1/ogc/wmts?access_token={token}", s.base);
    let out = dir.to_str().unwrap().to_owned();
    let res = tokio::task::spawn_blocking(move || run_python(script, &[&url, &out])).await.unwrap();
    assert_eq!(res["contents"], json!(["features:parcels"]));
    assert_eq!(res["sets"], json!(["2056", "WebMercatorQuad", "WorldCRS84Quad"]));
    let (w, h, rgba) = decode_png(&std::fs::read(dir.join("tile.png")).unwrap());
    assert_eq!((w, h), (256, 256));
    // Tile 8/235/153 spans 150.47..151.88 °E: the parcel covers its middle columns.
    let col = ((151.1 - 150.46875) / (360.0 / 256.0) * 256.0) as u32;
    assert!((0..256).any(|y| px(&rgba, w, col, y)[3] == 153));
    assert_eq!(px(&rgba, w, 5, 5)[3], 0);
}

#[tokio::test]
async fn ogc_gdal_wms_to_geotiff_and_wmts_info() {
    if !have_tool("gdal_translate", "ogc_gdal_wms_to_geotiff_and_wmts_info") {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("gdal-wms@example.com").await;
    seed_parcel(&s, &key).await;
    let token = access_token(&s, &key).await;
    let dir = s.dir.path().to_owned();
    let wms = format!(
        "WMS:{}/api/v1/ogc/wms?access_token={token}&SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=features:parcels&CRS=EPSG:4326&BBOX=-34.1,150.9,-33.7,151.3&FORMAT=image/png",
        s.base
    );
    let wmts = format!(
        "WMTS:{}/api/v1/ogc/wmts/1.0.0/WMTSCapabilities.xml?access_token={token},layer=features:parcels,tilematrixset=WebMercatorQuad",
        s.base
    );
    let tif = dir.join("parcels.tif");
    let (info, wmts_info, loc_in, loc_out) = tokio::task::spawn_blocking(move || {
        let run = |program: &str, args: &[&str]| {
            let out = Command::new(program).args(args).env("GDAL_HTTP_TIMEOUT", "30").output().unwrap();
            assert!(out.status.success(), "{program} {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        let tif = tif.to_str().unwrap();
        run("gdal_translate", &["-q", "-of", "GTiff", "-outsize", "100", "100", &wms, tif]);
        let info = run("gdalinfo", &[tif]);
        let loc_in = run("gdallocationinfo", &["-valonly", tif, "50", "50"]);
        let loc_out = run("gdallocationinfo", &["-valonly", tif, "5", "5"]);
        let wmts_info = run("gdalinfo", &[&wmts]);
        (info, wmts_info, loc_in, loc_out)
    })
    .await
    .unwrap();
    assert!(info.contains("Size is 100, 100"), "{info}");
    assert!(info.contains("WGS 84"), "{info}");
    let values = |s: &str| s.split_whitespace().map(|v| v.parse::<i32>().unwrap()).collect::<Vec<_>>();
    let inside = values(&loc_in);
    assert!((inside[0] - 241).abs() <= 4 && (inside[1] - 171).abs() <= 4, "{inside:?}");
    assert_eq!(&values(&loc_out)[..3], &[255, 255, 255]);
    assert!(wmts_info.contains("Driver: WMTS"), "{wmts_info}");
    assert!(wmts_info.contains("Pseudo-Mercator") || wmts_info.contains("3857"), "{wmts_info}");
    // GDAL takes the layer's extent from the capabilities: the parcel, not the world (to within
    // the metre by which SQLite's R*Tree rounds boxes outward to 32-bit floats).
    let corner = |label: &str| -> (f64, f64) {
        let line = wmts_info.lines().find(|l| l.starts_with(label)).unwrap_or_default();
        let inner = line.split('(').nth(1).and_then(|r| r.split(')').next()).unwrap_or_default();
        let mut xy = inner.split(',').map(|v| v.trim().parse::<f64>().unwrap_or(f64::NAN));
        (xy.next().unwrap_or(f64::NAN), xy.next().unwrap_or(f64::NAN))
    };
    let (ul, lr) = (corner("Upper Left"), corner("Lower Right"));
    assert!((ul.0 - 16809243.08).abs() < 3.0 && (ul.1 + 4001978.41).abs() < 3.0, "{wmts_info}");
    assert!((lr.0 - 16831507.0).abs() < 3.0 && (lr.1 + 4028802.02).abs() < 3.0, "{wmts_info}");
}

#[tokio::test]
async fn ogc_other_tenants_layers_are_invisible_and_tokens_ride_in_links() {
    let s = Server::start();
    let (_, a) = s.signup("tenant-a@example.com").await;
    let (_, b) = s.signup("tenant-b@example.com").await;
    let token = access_token(&s, &a).await;
    s.client
        .post(s.url("/api/v1/ogc/v1/features/collections"))
        .header("X-Api-Key", &a)
        .json(&json!({"id": "secret-roads", "title": "Secret roads"}))
        .send()
        .await
        .unwrap();
    seed_parcel(&s, &a).await;
    let caps = |key: String, path: &'static str| {
        let s = &s;
        async move { s.client.get(s.url(path)).header("X-Api-Key", key).send().await.unwrap().text().await.unwrap() }
    };
    let b_wms = caps(b.clone(), "/api/v1/ogc/wms?SERVICE=WMS&REQUEST=GetCapabilities").await;
    assert!(b_wms.contains("<WMS_Capabilities") && !b_wms.contains("DP4242"));
    // B's own (empty) parcels layer is listed; nothing of A's is.
    let a_wms = caps(a.clone(), "/api/v1/ogc/wms?SERVICE=WMS&REQUEST=GetCapabilities").await;
    let a_extent =
        a_wms.split("<Name>features:parcels</Name>").nth(1).unwrap().split("</Layer>").next().unwrap().to_owned();
    assert!(a_extent.contains("<westBoundLongitude>151</westBoundLongitude>"), "{a_extent}");
    let b_layer =
        b_wms.split("<Name>features:parcels</Name>").nth(1).unwrap().split("</Layer>").next().unwrap().to_owned();
    assert!(!b_layer.contains("westBoundLongitude>151<"), "{b_layer}");
    let b_wmts = caps(b.clone(), "/api/v1/ogc/wmts?SERVICE=WMTS&REQUEST=GetCapabilities").await;
    assert!(!b_wmts.contains("westBoundLongitude>151<") && !b_wmts.contains("151 -34"));
    // A's layer drawn for B: B's parcels are empty, so the map is blank.
    let map = "/api/v1/ogc/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=features:parcels&STYLES=&CRS=CRS:84&BBOX=150.9,-34.1,151.3,-33.7&WIDTH=50&HEIGHT=50&FORMAT=image/png";
    let r = s.client.get(s.url(map)).header("X-Api-Key", &b).send().await.unwrap();
    let (w, _, rgba) = decode_png(&r.bytes().await.unwrap());
    assert_eq!(px(&rgba, w, 25, 25), [255, 255, 255, 255]);
    let r = s.client.get(s.url(map)).header("X-Api-Key", &a).send().await.unwrap();
    let (w, _, rgba) = decode_png(&r.bytes().await.unwrap());
    assert!(is_parcel_fill(px(&rgba, w, 25, 25)));
    // An unknown layer is a LayerNotDefined report with 400.
    let r = s
        .client
        .get(s.url(&map.replace("features:parcels", "features:secret-roads")))
        .header("X-Api-Key", &b)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.headers()["content-type"], "text/xml");
    assert!(r.text().await.unwrap().contains(r#"code="LayerNotDefined""#));

    // access_token in the query string: accepted, repeated in every link; an API key there is not.
    let r = s
        .client
        .get(s.url(&format!("/api/v1/ogc/wms?SERVICE=WMS&REQUEST=GetCapabilities&access_token={token}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let doc = r.text().await.unwrap();
    let hrefs: Vec<&str> = doc.split("xlink:href=\"").skip(1).map(|h| h.split('"').next().unwrap()).collect();
    assert!(!hrefs.is_empty());
    for h in hrefs {
        assert!(h.contains(&format!("access_token={token}")), "{h}");
    }
    let r = s
        .client
        .get(s.url(&format!("/api/v1/ogc/wmts/1.0.0/WMTSCapabilities.xml?access_token={token}")))
        .send()
        .await
        .unwrap();
    let doc = r.text().await.unwrap();
    assert!(doc.contains(&format!(".png?access_token={token}\"")), "{doc}");
    let r = s
        .client
        .get(s.url(&format!("/api/v1/ogc/wms?SERVICE=WMS&REQUEST=GetCapabilities&access_token={a}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r = s
        .client
        .get(s.url("/api/v1/ogc/wms?SERVICE=WMS&REQUEST=GetCapabilities&access_token=not.a.token"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // One rule for every area: a read takes an access token in the URL (QGIS's OAPIF provider,
    // a COG or COPC viewer), and the areas whose parameters are checked strictly never see it; a
    // write never takes one.
    let r = s.client.get(s.url(&format!("/api/v1/account?access_token={token}"))).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = s
        .client
        .get(s.url(&format!("/api/v1/ogc/v1/features/collections/parcels/items?limit=1&access_token={token}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    let r = s.client.get(s.url(&format!("/api/v1/pointcloud?access_token={token}"))).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let r = s
        .client
        .post(s.url(&format!("/api/v1/realtime/twins?access_token={token}")))
        .json(&serde_json::json!({"bbox": [0, 0, 1, 1]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
}

#[tokio::test]
async fn ogc_wmts_tiles_carry_etags_and_restful_errors_are_ows_reports() {
    let s = Server::start();
    let (_, key) = s.signup("wmts-rest@example.com").await;
    seed_parcel(&s, &key).await;
    let tile = "/api/v1/ogc/wmts/1.0.0/features:parcels/default/WebMercatorQuad/8/153/235.png";
    let r = s.client.get(s.url(tile)).header("X-Api-Key", &key).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "image/png");
    assert!(r.headers()["cache-control"].to_str().unwrap().contains("max-age="));
    // A web map on another origin may read it (it came with a token, never a cookie).
    assert_eq!(r.headers()["access-control-allow-origin"], "*");
    let etag = r.headers()["etag"].to_str().unwrap().to_owned();
    let r = s.client.get(s.url(tile)).header("X-Api-Key", &key).header("If-None-Match", &etag).send().await.unwrap();
    assert_eq!(r.status(), 304);
    let r = s.client.get(s.url(&tile.replace("/8/153/", "/8/300/"))).header("X-Api-Key", &key).send().await.unwrap();
    assert_eq!(r.status(), 400);
    let body = r.text().await.unwrap();
    assert!(body.contains("<ExceptionReport") && body.contains(r#"exceptionCode="TileOutOfRange""#), "{body}");
    // WorldCRS84Quad level 7: 1.40625° tiles of 256 px; 151.1 °E, 33.9 °S is tile (88, 235),
    // pixel (114, 27).
    let info = "/api/v1/ogc/wmts/1.0.0/features:parcels/default/WorldCRS84Quad/7/88/235/27/114.json";
    let r = s.client.get(s.url(info)).header("X-Api-Key", &key).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["features"][0]["properties"]["plan"], "DP4242", "{v}");
    let r = s.client.get(s.url(&info.replace("/27/114.", "/200/10."))).header("X-Api-Key", &key).send().await.unwrap();
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["features"].as_array().unwrap().len(), 0, "{v}");
}

/// The swissALTI3D tile shipped with the raster engine's tests (© swisstopo), in EPSG:2056.
pub(crate) fn dem_bytes() -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../raster/tests/data/swissalti3d-2573-1085.tif");
    std::fs::read(p).unwrap()
}

#[tokio::test]
async fn ogc_dem_layers_in_lv95_with_styles_and_elevation_info() {
    let s = Server::start();
    let (_, key) = s.signup("wms-dem@example.com").await;
    let form = reqwest::multipart::Form::new()
        .part("file", reqwest::multipart::Part::bytes(dem_bytes()).file_name("alti.tif"))
        .text("params", json!({"operations": [{"type": "slope"}]}).to_string());
    let r = s.client.post(s.url("/api/v1/dem/process")).bearer_auth(&key).multipart(form).send().await.unwrap();
    assert_eq!(r.status(), 202);
    let queued: Value = r.json().await.unwrap();
    let (job, dataset) =
        (queued["id"].as_str().unwrap().to_owned(), queued["source"]["dataset_id"].as_str().unwrap().to_owned());
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let j: Value = s.get(&format!("/api/v1/dem/jobs/{job}"), &key).await.json().await.unwrap();
        if j["status"] == "succeeded" {
            break;
        }
        assert!(j["status"] != "failed" && Instant::now() < deadline, "{j}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let caps = s.get("/api/v1/ogc/wms?SERVICE=WMS&REQUEST=GetCapabilities", &key).await.text().await.unwrap();
    assert!(caps.contains(&format!("<Name>dem:{dataset}</Name>")), "{caps}");
    assert!(caps.contains(&format!("<Name>dem:{job}:slope</Name>")), "{caps}");
    assert!(caps.contains(r#"<BoundingBox CRS="EPSG:2056" minx="25729"#), "{caps}");
    let dem_layer =
        caps.split(&format!("<Name>dem:{dataset}</Name>")).nth(1).unwrap().split("</Layer>").next().unwrap();
    assert!(!dem_layer.contains(r#"CRS="EPSG:32756""#), "no UTM 56S box for a DEM in Switzerland: {dem_layer}");
    // The tile covers 2573000..2574000 E, 1085000..1086000 N.
    for (layer, style) in [
        (format!("dem:{dataset}"), "hillshade"),
        (format!("dem:{dataset}"), "color-relief"),
        (format!("dem:{job}:slope"), ""),
    ] {
        let map = format!(
            "/api/v1/ogc/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS={layer}&STYLES={style}&CRS=EPSG:2056&BBOX=2573000,1085000,2574000,1086000&WIDTH=64&HEIGHT=64&FORMAT=image/png&TRANSPARENT=TRUE"
        );
        let r = s.get(&map, &key).await;
        assert_eq!(r.status(), 200, "{layer} {style}");
        let (w, _, rgba) = decode_png(&r.bytes().await.unwrap());
        assert!(rgba.chunks_exact(4).all(|p| p[3] == 255), "{layer} {style}: the DEM covers the map");
        assert_ne!(px(&rgba, w, 10, 10), px(&rgba, w, 50, 40), "{layer} {style}: relief shows");
    }
    let info = format!(
        "/api/v1/ogc/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetFeatureInfo&LAYERS=dem:{dataset}&QUERY_LAYERS=dem:{dataset}&STYLES=&CRS=EPSG:2056&BBOX=2573000,1085000,2574000,1086000&WIDTH=64&HEIGHT=64&FORMAT=image/png&INFO_FORMAT=application/json&I=32&J=32"
    );
    // Boxes no point of which reaches the DEM's CRS draw nothing, and are no server fault.
    for bbox in ["-1e300,-1e300,1e300,1e300", "-20037508,19000000,-19000000,20037508"] {
        let far = format!(
            "/api/v1/ogc/wms?SERVICE=WMS&VERSION=1.3.0&REQUEST=GetMap&LAYERS=dem:{dataset}&STYLES=&CRS=EPSG:3857&BBOX={bbox}&WIDTH=16&HEIGHT=16&FORMAT=image/png"
        );
        assert_eq!(s.get(&far, &key).await.status(), 200, "{bbox}");
        let far_info =
            info.replace("CRS=EPSG:2056&BBOX=2573000,1085000,2574000,1086000", &format!("CRS=EPSG:3857&BBOX={bbox}"));
        assert_eq!(s.get(&far_info, &key).await.status(), 200, "{bbox}");
    }
    let v: Value = s.get(&info, &key).await.json().await.unwrap();
    let elevation = v["features"][0]["properties"]["elevation"].as_f64().unwrap();
    assert!(elevation > 300.0 && elevation < 3000.0, "{v}");
    // The same DEM in Web Mercator via a WMTS tile of level 15.
    let lv95_tile = format!("/api/v1/ogc/wmts/1.0.0/dem:{dataset}/hillshade/2056/22/0/0.png");
    let r = s.get(&lv95_tile, &key).await;
    assert_eq!(r.status(), 200);
}
