//! The web console at `/console/`: the files `console/build.sh` writes into `console/dist/`,
//! embedded in the binary, so the embedded default shows it with no network and no Node. The
//! console is a client of the public API like any other (docs/console.md); these routes only
//! serve its files, with no credentials (the page asks for an API key and trades it for access
//! tokens itself).

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::Router;
use std::sync::OnceLock;

/// One embedded file: its name under `/console/`, media type and bytes.
struct Asset {
    name: &'static str,
    media_type: &'static str,
    bytes: &'static [u8],
}

const ASSETS: &[Asset] = &[
    Asset {
        name: "index.html",
        media_type: "text/html; charset=utf-8",
        bytes: include_bytes!("../../../../console/dist/index.html"),
    },
    Asset {
        name: "console.js",
        media_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../../../../console/dist/console.js"),
    },
    Asset {
        name: "console.css",
        media_type: "text/css; charset=utf-8",
        bytes: include_bytes!("../../../../console/dist/console.css"),
    },
    Asset {
        name: "maplibre-gl.js",
        media_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../../../../console/dist/maplibre-gl.js"),
    },
    Asset {
        name: "maplibre-gl-worker.js",
        media_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../../../../console/dist/maplibre-gl-worker.js"),
    },
    Asset {
        name: "maplibre-gl.css",
        media_type: "text/css; charset=utf-8",
        bytes: include_bytes!("../../../../console/dist/maplibre-gl.css"),
    },
    Asset {
        name: "viewer3d.js",
        media_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../../../../console/dist/viewer3d.js"),
    },
    Asset {
        name: "laz-perf.wasm",
        media_type: "application/wasm",
        bytes: include_bytes!("../../../../console/dist/laz-perf.wasm"),
    },
    Asset {
        name: "LICENSES.txt",
        media_type: "text/plain; charset=utf-8",
        bytes: include_bytes!("../../../../console/dist/LICENSES.txt"),
    },
];

/// What the page may load and call: only this server (the API, its WebSocket, the map worker's
/// file) and images it makes itself. No inline or evaluated script; WebAssembly may be compiled
/// (`'wasm-unsafe-eval'`: laz-perf, which decodes the point cloud's COPC nodes, from this server).
const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' ws: wss:; \
                   img-src 'self' data: blob:; worker-src 'self'; style-src 'self' 'unsafe-inline'; \
                   object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// The routes of the console.
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        // Relative links need the trailing slash: `/console` sends the browser to `/console/`
        // (relative, so it holds behind a path prefix).
        .route("/console", get(|| async { Redirect::permanent("console/") }))
        .route("/console/", get(|headers: HeaderMap| async move { serve("index.html", &headers) }))
        .route(
            "/console/{file}",
            get(|Path(file): Path<String>, headers: HeaderMap| async move { serve(&file, &headers) }),
        )
}

/// A strong ETag per file: a hash of its bytes, computed once.
fn etag(index: usize) -> &'static str {
    static TAGS: OnceLock<Vec<String>> = OnceLock::new();
    let tags = TAGS.get_or_init(|| {
        ASSETS
            .iter()
            .map(|a| {
                // FNV-1a, 64 bits: enough to tell two builds of a file apart.
                let mut h: u64 = 0xcbf2_9ce4_8422_2325;
                for &b in a.bytes {
                    h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
                }
                format!("\"{h:016x}-{}\"", a.bytes.len())
            })
            .collect()
    });
    &tags[index]
}

fn serve(file: &str, headers: &HeaderMap) -> Response {
    let Some(index) = ASSETS.iter().position(|a| a.name == file) else {
        return crate::error::ApiError::no_route(&format!("/console/{file}")).into_response();
    };
    let asset = &ASSETS[index];
    let tag = etag(index);
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag || t.trim() == "*"));
    let mut response =
        if fresh { StatusCode::NOT_MODIFIED.into_response() } else { (StatusCode::OK, asset.bytes).into_response() };
    let h = response.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(asset.media_type));
    // Revalidated on every load (a new binary brings new files under the same names).
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(v) = HeaderValue::from_str(tag) {
        h.insert(header::ETAG, v);
    }
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    response
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn every_file_is_served_with_its_type_and_a_revalidating_etag() {
        for (i, a) in ASSETS.iter().enumerate() {
            let r = serve(a.name, &HeaderMap::new());
            assert_eq!(r.status(), StatusCode::OK, "{}", a.name);
            assert_eq!(r.headers()[header::CONTENT_TYPE], a.media_type);
            let tag = r.headers()[header::ETAG].to_str().unwrap().to_owned();
            assert_eq!(tag, etag(i));
            let mut again = HeaderMap::new();
            again.insert(header::IF_NONE_MATCH, HeaderValue::from_str(&tag).unwrap());
            assert_eq!(serve(a.name, &again).status(), StatusCode::NOT_MODIFIED);
        }
        assert_eq!(serve("../Cargo.toml", &HeaderMap::new()).status(), StatusCode::NOT_FOUND);
        assert_eq!(serve("missing.js", &HeaderMap::new()).status(), StatusCode::NOT_FOUND);
        // The page loads its script and styles by relative URLs, so a path prefix changes nothing.
        let index = std::str::from_utf8(ASSETS[0].bytes).unwrap();
        assert!(index.contains("src=\"console.js\"") && index.contains("href=\"console.css\""));
    }
}
