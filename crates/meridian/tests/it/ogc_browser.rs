//! A browser map on the WMTS: headless Chromium runs OpenLayers (the `ol` npm package's UMD
//! build, `ol/dist/ol.js`), which builds its tile source from the WMTS capabilities
//! (`ol.format.WMTSCapabilities` + `ol.source.WMTS.optionsFromCapabilities`) and draws the tiles;
//! the page copies its map canvas into the document once every tile is in, and the picture is
//! decoded here: the parcels' fill colour must be exactly where the parcels
//! are.
//!
//! OpenLayers is found in `$OPENLAYERS_DIR` (the folder holding `dist/ol.js`), else in
//! `$HOME/.cache/meridian-ci/npm/node_modules/ol`, where `.ci/run` installs it with
//! `npm install --prefix`.

use crate::ogc::{access_token, decode_png};
use crate::tools::missing;
use crate::{have_tool, Server};
use base64::Engine as _;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The map: 512 × 512 px centred on 151.1 °E, 33.9 °S at WebMercatorQuad level 12, so that
/// OpenLayers draws the tiles one to one.
const SIZE: u32 = 512;
const CENTRE: (f64, f64) = (151.1, -33.9);
const RESOLUTION: f64 = 156_543.033_928_040_97 / 4096.0;

/// Parcels (west, south, east, north): three in the view, one outside it.
const PARCELS: [(f64, f64, f64, f64); 4] = [
    (151.03, -33.86, 151.05, -33.84),
    (151.09, -33.91, 151.11, -33.89),
    (151.13, -33.95, 151.15, -33.93),
    (151.40, -33.91, 151.42, -33.89),
];

fn ol_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("OPENLAYERS_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".cache/meridian-ci/npm/node_modules/ol"),
    };
    dir.join("dist/ol.js").is_file().then_some(dir)
}

fn mercator(lon: f64, lat: f64) -> (f64, f64) {
    const R: f64 = 6_378_137.0;
    (R * lon.to_radians(), R * (std::f64::consts::FRAC_PI_4 + lat.to_radians() / 2.0).tan().ln())
}

/// A parcel's box in screen pixels (x0, y0, x1, y1).
fn screen_box((w, s, e, n): (f64, f64, f64, f64)) -> (f64, f64, f64, f64) {
    let (cx, cy) = mercator(CENTRE.0, CENTRE.1);
    let half = f64::from(SIZE) / 2.0;
    let px = |lon: f64, lat: f64| {
        let (x, y) = mercator(lon, lat);
        (half + (x - cx) / RESOLUTION, half - (y - cy) / RESOLUTION)
    };
    let ((x0, y1), (x1, y0)) = (px(w, s), px(e, n));
    (x0, y0, x1, y1)
}

/// The default style's fill (232,116,59 at 60 %) over the page's white.
fn is_fill(p: &[u8]) -> bool {
    let near = |v: u8, want: i32| (i32::from(v) - want).abs() <= 6;
    near(p[0], 241) && near(p[1], 171) && near(p[2], 137)
}

/// The page: OpenLayers from file://, the capabilities inline.
///
/// The test fetches the capabilities (with `access_token`, which the capabilities repeat in every
/// URL) and inlines the XML, exactly as `fetch(...).then(r => r.text())` would hand it to the
/// parser, so that the page needs nothing but the tiles from the server. Tiles load with CORS
/// (`crossOrigin: 'anonymous'`; the OGC answers allow any origin), so once OpenLayers reports
/// every tile it started has loaded the page can draw the frame and read its own canvas and write it into the document as a PNG
/// data URL: one `--dump-dom` run gives both the page's report and the picture, taken after the
/// tiles are drawn whatever the machine's load. No browser security flag is relaxed.
fn page(ol_js: &Path, capabilities: &str) -> String {
    // A JSON string is a JavaScript string literal; `</` is escaped so the XML cannot end the
    // script element.
    let caps = serde_json::to_string(capabilities).unwrap().replace("</", "<\\/");
    let (lon, lat) = CENTRE;
    format!(
        r#"<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>loading</title>
<style>html, body {{ margin: 0; padding: 0; background: #fff; overflow: hidden; }} #map {{ width: {SIZE}px; height: {SIZE}px; }}</style>
<script src="file://{ol}"></script></head>
<body><div id="map"></div><pre id="shot"></pre><script>
let loaded = 0, failed = 0, errors = [];
const report = () => {{ document.title = `tiles loaded=${{loaded}} failed=${{failed}} errors=${{JSON.stringify(errors)}}`; }};
window.onerror = (message) => {{ errors.push(String(message)); report(); }};
const capabilities = new ol.format.WMTSCapabilities().read({caps});
const options = ol.source.WMTS.optionsFromCapabilities(capabilities,
  {{layer: 'features:parcels', matrixSet: 'WebMercatorQuad', format: 'image/png'}});
options.crossOrigin = 'anonymous';
// Tiles appear at once (OpenLayers fades them in over 250 ms otherwise).
options.transition = 0;
const source = new ol.source.WMTS(options);
let started = 0;
// Once every tile that started has ended, draw the frame now and copy the canvas into the page.
const shoot = () => {{
  if (loaded + failed < started) return;
  setTimeout(() => {{
    map.renderSync();
    try {{
      document.getElementById('shot').textContent = document.querySelector('#map canvas').toDataURL('image/png');
    }} catch (e) {{
      errors.push(String(e));
    }}
    report();
  }}, 0);
}};
source.on('tileloadstart', () => {{ started++; }});
source.on('tileloadend', () => {{ loaded++; report(); shoot(); }});
source.on('tileloaderror', () => {{ failed++; report(); shoot(); }});
const map = new ol.Map({{
  target: 'map', controls: [], interactions: [], pixelRatio: 1,
  layers: [new ol.layer.Tile({{source}})],
  view: new ol.View({{projection: 'EPSG:3857', center: ol.proj.fromLonLat([{lon}, {lat}]), resolution: {RESOLUTION}}}),
}});
report();
</script></body></html>
"#,
        ol = ol_js.display(),
    )
}

/// Headless Chromium on `page` with `mode` (`--dump-dom`).
fn chromium(profile: &Path, page: &Path, mode: &str) -> String {
    let out = Command::new("timeout")
        .arg("120")
        .arg("chromium")
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(["--force-device-scale-factor=1", &format!("--window-size={SIZE},{SIZE}")])
        // Virtual time does not advance while requests are pending: the tiles are in.
        .arg("--virtual-time-budget=15000")
        .arg(mode)
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "chromium {mode}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[tokio::test]
async fn ogc_browser_openlayers_draws_wmts_tiles_where_the_parcels_are() {
    let test = "ogc_browser_openlayers_draws_wmts_tiles_where_the_parcels_are";
    if !have_tool("chromium", test) {
        return;
    }
    let Some(ol) = ol_dir() else {
        missing("OpenLayers (npm `ol` in $OPENLAYERS_DIR or ~/.cache/meridian-ci/npm/node_modules/ol)", test);
        return;
    };
    let s = Server::start();
    let (_, key) = s.signup("browser@example.com").await;
    for (i, (w, so, e, n)) in PARCELS.iter().enumerate() {
        let body = json!({"type": "Feature",
            "geometry": {"type": "Polygon", "coordinates": [[[w, so], [e, so], [e, n], [w, n], [w, so]]]},
            "properties": {"lot": i.to_string(), "plan": "DP77"}});
        crate::post_parcel(&s, &key, &body).await;
    }
    let token = access_token(&s, &key).await;
    let r = s
        .client
        .get(s.url(&format!("/api/v1/ogc/wmts/1.0.0/WMTSCapabilities.xml?access_token={token}")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let capabilities = r.text().await.unwrap();

    let dir = s.dir.path().join("browser");
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("map.html");
    std::fs::write(&html, page(&ol.join("dist/ol.js"), &capabilities)).unwrap();
    let profile = dir.join("profile");
    // The page draws its picture after the tiles are in; on a loaded machine (other browser
    // tests run beside this one) the virtual-time budget can end first: try again, twice at most.
    let mut dom = String::new();
    for _ in 0..3 {
        let (profile, html) = (profile.clone(), html.clone());
        dom = tokio::task::spawn_blocking(move || chromium(&profile, &html, "--dump-dom")).await.unwrap();
        if dom.contains("<pre id=\"shot\">data:image/png;base64,") {
            break;
        }
    }
    // The page's own report: tiles came in, none failed, no script error.
    let title = dom.split("<title>").nth(1).and_then(|t| t.split("</title>").next()).unwrap_or(&dom);
    assert!(title.contains("failed=0 errors=[]") && !title.contains("loaded=0"), "{title}");

    let shot = dom.split("<pre id=\"shot\">").nth(1).and_then(|t| t.split("</pre>").next()).unwrap_or("");
    let b64 = shot.strip_prefix("data:image/png;base64,").unwrap_or_else(|| panic!("the map was not drawn: {title}"));

    let png = base64::engine::general_purpose::STANDARD.decode(b64.trim()).unwrap();
    let (w, h, mut rgba) = decode_png(&png);
    // The map's canvas is transparent where no tile paints: put it on the page's white.
    for p in rgba.chunks_exact_mut(4) {
        let a = u32::from(p[3]);
        for c in &mut p[..3] {
            *c = ((u32::from(*c) * a + 255 * (255 - a) + 127) / 255) as u8;
        }
        p[3] = 255;
    }
    assert_eq!((w, h), (SIZE, SIZE));
    let pixel = |x: u32, y: u32| &rgba[((y * w + x) * 4) as usize..][..4];
    let boxes: Vec<_> = PARCELS.iter().map(|p| screen_box(*p)).collect();
    // The three parcels in the view: their inside (2 px from the outline) is filled.
    for (i, &(x0, y0, x1, y1)) in boxes[..3].iter().enumerate() {
        assert!(x0 > 0.0 && y0 > 0.0 && x1 < f64::from(SIZE) && y1 < f64::from(SIZE) && x1 - x0 > 30.0);
        let (mut filled, mut total) = (0, 0);
        for y in (y0 + 3.0) as u32..(y1 - 2.0) as u32 {
            for x in (x0 + 3.0) as u32..(x1 - 2.0) as u32 {
                total += 1;
                filled += u32::from(is_fill(pixel(x, y)));
            }
        }
        assert_eq!(filled, total, "parcel {i} at {:?}: {filled} of {total} pixels filled", boxes[i]);
    }
    // Everywhere else (3 px away from a parcel's edge, for the outline and anti-aliasing): no
    // fill, and the page's white. The fourth parcel lies east of the view.
    assert!(boxes[3].0 > f64::from(SIZE));
    let near_parcel = |x: f64, y: f64| {
        boxes.iter().any(|&(x0, y0, x1, y1)| x > x0 - 3.0 && x < x1 + 3.0 && y > y0 - 3.0 && y < y1 + 3.0)
    };
    let mut outside = 0;
    for y in 0..h {
        for x in 0..w {
            if near_parcel(f64::from(x) + 0.5, f64::from(y) + 0.5) {
                continue;
            }
            outside += 1;
            assert_eq!(pixel(x, y)[..3], [255, 255, 255], "({x},{y}) is not background");
        }
    }
    assert!(outside > 200_000, "{outside}");
    // The control, said outright: the north-east quarter of the map holds no parcel and shows no
    // fill at all.
    let ne = (SIZE / 2 + 40..SIZE).flat_map(|x| (0..SIZE / 2 - 40).map(move |y| (x, y)));
    assert_eq!(ne.filter(|&(x, y)| is_fill(pixel(x, y))).count(), 0);
}
