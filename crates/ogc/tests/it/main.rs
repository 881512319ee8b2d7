//! The OGC engine tested without HTTP: a service over an in-memory layer source with known
//! polygons, its capabilities parsed back, maps decoded back to pixels, exception codes.

#![allow(clippy::unwrap_used)]

mod fuzz;
mod render;
mod wfs;
mod wms;
mod wmts;

use async_trait::async_trait;
use meridian_core::id::AccountId;
use meridian_ogc::layers::{Hit, LayerInfo, LayerKind, LayerSource, SourceError, StyleInfo};
use meridian_ogc::render::vector::{draw_features, PixelGeometry, ToPixels};
use meridian_ogc::srs::View;
use meridian_ogc::{Context, LayerRegistry, MapConfig, OgcService};
use serde_json::{json, Value};
use std::sync::Arc;

/// One account's polygons: `test:square` is the box 151.0..151.2 × −34.0..−33.8.
pub struct TestLayers {
    pub owner: AccountId,
}

pub const SQUARE: [f64; 4] = [151.0, -34.0, 151.2, -33.8];

fn square() -> Value {
    let [x0, y0, x1, y1] = SQUARE;
    json!({"type": "Polygon", "coordinates": [[[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]]]})
}

fn info() -> LayerInfo {
    LayerInfo {
        name: "test:square".into(),
        title: "A square & a <title>".into(),
        abstract_: "One polygon near Sydney".into(),
        keywords: vec!["test".into()],
        kind: LayerKind::Vector,
        bbox: Some(SQUARE),
        styles: meridian_ogc::sources::features::styles().into_iter().map(|(s, _)| s).collect(),
        queryable: true,
        revision: String::new(),
    }
}

#[async_trait]
impl LayerSource for TestLayers {
    fn name(&self) -> &'static str {
        "test"
    }
    fn title(&self) -> &'static str {
        "Test layers"
    }
    async fn layers(&self, account: &AccountId) -> Result<Vec<LayerInfo>, SourceError> {
        Ok(if *account == self.owner { vec![info()] } else { Vec::new() })
    }
    async fn layer(&self, account: &AccountId, name: &str) -> Result<Option<LayerInfo>, SourceError> {
        Ok(self.layers(account).await?.into_iter().find(|l| l.name == name))
    }
    async fn render(
        &self,
        _account: &AccountId,
        _layer: &LayerInfo,
        style: &StyleInfo,
        view: &View,
    ) -> Result<Option<tiny_skia::Pixmap>, SourceError> {
        let vs = meridian_ogc::sources::features::styles().into_iter().find(|(s, _)| s.name == style.name).unwrap().1;
        let mut p = tiny_skia::Pixmap::new(view.width, view.height).unwrap();
        let props = json!({"lot": "7", "plan": "DP1"}).as_object().cloned().unwrap();
        draw_features(&mut p, view, &vs, [("f1", &props, &square())]);
        Ok(Some(p))
    }
    async fn feature_info(
        &self,
        _account: &AccountId,
        layer: &LayerInfo,
        view: &View,
        i: u32,
        j: u32,
        _count: usize,
    ) -> Result<Vec<Hit>, SourceError> {
        let to = ToPixels::new(view).unwrap();
        let hit = PixelGeometry::of(&square(), &to).hits(i as f32 + 0.5, j as f32 + 0.5, 3.0);
        Ok(if hit {
            vec![Hit {
                layer: layer.name.clone(),
                id: Some("f1".into()),
                properties: json!({"lot": "7", "plan": "DP1"}).as_object().cloned().unwrap(),
                geometry: Some(square()),
            }]
        } else {
            Vec::new()
        })
    }
}

/// A service with the test source, owned by a fresh account; small size limits.
pub fn service() -> (OgcService, AccountId) {
    let owner = AccountId::generate();
    let mut c = LayerRegistry::new();
    c.register(Arc::new(TestLayers { owner: owner.clone() }));
    let config = MapConfig { max_width: 1024, max_height: 1024, ..MapConfig::default() };
    (OgcService::new(c, config), owner)
}

pub fn ctx() -> Context {
    Context { base_url: "http://maps.test".into(), access_token: Some("tok.en".into()) }
}

/// Decodes a PNG to RGBA.
pub fn decode_png(bytes: &[u8]) -> (u32, u32, Vec<u8>) {
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

/// The RGBA of pixel (x, y).
pub fn pixel(rgba: &[u8], width: u32, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * width + x) * 4) as usize;
    [rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3]]
}

/// The code of a ServiceExceptionReport or ExceptionReport.
pub fn exception_code(body: &[u8]) -> String {
    let text = std::str::from_utf8(body).unwrap();
    let doc = roxmltree::Document::parse(text).unwrap();
    let e = doc
        .descendants()
        .find(|n| n.has_tag_name("ServiceException") || n.has_tag_name("Exception"))
        .unwrap_or_else(|| panic!("no exception in {text}"));
    e.attribute("code").or_else(|| e.attribute("exceptionCode")).unwrap().to_owned()
}
