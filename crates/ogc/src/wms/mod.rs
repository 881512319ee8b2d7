//! WMS 1.3.0 (OGC 06-042): GetCapabilities, GetMap, GetFeatureInfo and GetLegendGraphic (the
//! SLD profile's operation). GetMap and GetFeatureInfo also read the 1.1.1 forms (`SRS`, `X`/`Y`,
//! longitude-first EPSG:4326) that older clients send. Errors are `ServiceExceptionReport`
//! documents, or an image when `EXCEPTIONS=INIMAGE` or `BLANK` asks for one.

pub mod capabilities;

use crate::kvp::{clip, Kvp};
use crate::layers::Hit;
use crate::ows::{escape, ExceptionCode, OgcError, Service, Xml};
use crate::render::{self, legend, ImageFormat};
use crate::service::{Context, OgcService, Reply};
use crate::srs::{self, View};
use meridian_core::id::AccountId;
use serde_json::{json, Value};

/// Where the WMS lives under the base URL.
pub const PATH: &str = "/api/v1/ogc/wms";

/// The GetFeatureInfo formats.
pub const INFO_FORMATS: &[&str] = &["text/html", "application/json", "text/xml", "text/plain"];

/// How errors are reported (`EXCEPTIONS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExceptionMode {
    Xml,
    InImage,
    Blank,
}

impl ExceptionMode {
    fn parse(v: Option<&str>) -> Self {
        let v = v.unwrap_or("").trim().to_ascii_uppercase();
        match v.as_str() {
            "INIMAGE" | "APPLICATION/VND.OGC.SE_INIMAGE" => Self::InImage,
            "BLANK" | "APPLICATION/VND.OGC.SE_BLANK" => Self::Blank,
            _ => Self::Xml,
        }
    }
}

fn error_reply(err: &OgcError) -> Reply {
    Reply::error(Service::Wms, err)
}

/// What a GetMap asks for, parsed.
pub struct MapRequest {
    pub layers: Vec<String>,
    pub styles: Vec<String>,
    pub view: View,
    pub format: ImageFormat,
    pub transparent: bool,
    pub background: [u8; 3],
    pub exceptions: ExceptionMode,
}

impl OgcService {
    /// Answers a WMS KVP request of `account`.
    pub async fn wms(&self, account: &AccountId, query: &str, ctx: &Context) -> Reply {
        let kvp = match Kvp::parse(query, self.config.kvp) {
            Ok(k) => k,
            Err(e) => return error_reply(&e),
        };
        let exceptions = ExceptionMode::parse(kvp.get("EXCEPTIONS"));
        let result = self.wms_request(account, &kvp, ctx).await;
        match result {
            Ok(r) => r,
            Err(e) if exceptions != ExceptionMode::Xml && is_get_map(&kvp) => {
                self.image_exception(&kvp, &e, exceptions)
            }
            Err(e) => error_reply(&e),
        }
    }

    async fn wms_request(&self, account: &AccountId, kvp: &Kvp, ctx: &Context) -> Result<Reply, OgcError> {
        if let Some(service) = kvp.get("SERVICE") {
            if !service.eq_ignore_ascii_case("WMS") {
                return Err(OgcError::invalid("SERVICE", format!("this endpoint is a WMS, not `{}`", clip(service))));
            }
        }
        let request = kvp.required("REQUEST")?;
        match request.to_ascii_lowercase().as_str() {
            "getcapabilities" | "capabilities" => {
                if kvp.get("SERVICE").is_none() {
                    return Err(OgcError::new(
                        ExceptionCode::MissingParameterValue,
                        Some("SERVICE".into()),
                        "the SERVICE parameter is required",
                    ));
                }
                if let Some(f) = kvp.get("FORMAT") {
                    let f = f.to_ascii_lowercase();
                    if !f.is_empty() && f != "text/xml" && f != "application/vnd.ogc.wms_xml" {
                        return Err(OgcError::new(
                            ExceptionCode::InvalidFormat,
                            Some("FORMAT".into()),
                            "capabilities are available as text/xml",
                        ));
                    }
                }
                let doc = self.wms_capabilities(account, ctx).await?;
                Ok(Reply::ok("text/xml", doc))
            }
            "getmap" | "map" => self.get_map(account, kvp).await,
            "getfeatureinfo" | "feature_info" => self.get_feature_info(account, kvp).await,
            "getlegendgraphic" => self.get_legend_graphic(account, kvp).await,
            _ => Err(OgcError::new(
                ExceptionCode::OperationNotSupported,
                Some("REQUEST".into()),
                format!(
                    "`{}` is not a WMS operation here; use GetCapabilities, GetMap, GetFeatureInfo or GetLegendGraphic",
                    clip(request)
                ),
            )),
        }
    }

    /// Reads the GetMap part of a request (also the map of a GetFeatureInfo).
    pub fn parse_map_request(&self, kvp: &Kvp) -> Result<MapRequest, OgcError> {
        let version = kvp.get("VERSION").or_else(|| kvp.get("WMTVER")).unwrap_or("1.3.0").trim();
        let v111 = version.starts_with("1.1") || version.starts_with("1.0");
        if !v111 && version != "1.3.0" && version != "1.3" {
            return Err(OgcError::invalid(
                "VERSION",
                format!("WMS version `{}` is not offered; use 1.3.0", clip(version)),
            ));
        }
        let layers: Vec<String> =
            kvp.required("LAYERS")?.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect();
        if layers.is_empty() {
            return Err(OgcError::new(
                ExceptionCode::MissingParameterValue,
                Some("LAYERS".into()),
                "name at least one layer",
            ));
        }
        if layers.len() > self.config.max_layers {
            return Err(OgcError::invalid(
                "LAYERS",
                format!("at most {} layers may be drawn in one map", self.config.max_layers),
            ));
        }
        let styles: Vec<String> = match kvp.get("STYLES") {
            None | Some("") => Vec::new(),
            Some(s) => s.split(',').map(|s| s.trim().to_owned()).collect(),
        };
        if !styles.is_empty() && styles.len() != layers.len() {
            return Err(OgcError::new(
                ExceptionCode::StyleNotDefined,
                Some("STYLES".into()),
                "STYLES must be empty or name one style (or nothing) per layer",
            ));
        }
        let crs_key = if v111 { "SRS" } else { "CRS" };
        let crs_name = kvp.get(crs_key).or_else(|| kvp.get(if v111 { "CRS" } else { "SRS" })).unwrap_or("");
        if crs_name.trim().is_empty() {
            return Err(OgcError::new(
                ExceptionCode::MissingParameterValue,
                Some(crs_key.into()),
                format!("the {crs_key} parameter is required"),
            ));
        }
        let crs = srs::parse(crs_name).ok().filter(|c| self.offers(*c)).ok_or_else(|| {
            OgcError::new(
                ExceptionCode::InvalidCRS,
                Some(crs_key.into()),
                format!("`{}` is not offered; see the capabilities for the CRSs", clip(crs_name)),
            )
        })?;
        let bbox = srs::parse_bbox(kvp.required("BBOX")?, crs, !v111)?;
        let width = self.dimension(kvp, "WIDTH", self.config.max_width)?;
        let height = self.dimension(kvp, "HEIGHT", self.config.max_height)?;
        let format_name = kvp.required("FORMAT")?;
        let format = ImageFormat::parse(format_name).ok_or_else(|| {
            OgcError::new(
                ExceptionCode::InvalidFormat,
                Some("FORMAT".into()),
                format!("`{}` is not offered; use image/png, image/png; mode=8bit or image/jpeg", clip(format_name)),
            )
        })?;
        let transparent = match kvp.get("TRANSPARENT").map(|v| v.trim().to_ascii_uppercase()) {
            None => false,
            Some(v) if v == "TRUE" => true,
            Some(v) if v == "FALSE" || v.is_empty() => false,
            Some(_) => return Err(OgcError::invalid("TRANSPARENT", "TRANSPARENT is TRUE or FALSE")),
        };
        let background = match kvp.get("BGCOLOR") {
            None => [255, 255, 255],
            Some(v) => render::parse_rgb(v).ok_or_else(|| OgcError::invalid("BGCOLOR", "BGCOLOR is 0xRRGGBB"))?,
        };
        for dim in ["TIME", "ELEVATION"] {
            if kvp.get(dim).is_some_and(|v| !v.trim().is_empty()) {
                return Err(OgcError::new(
                    ExceptionCode::InvalidDimensionValue,
                    Some(dim.into()),
                    format!("no layer here has a {dim} dimension"),
                ));
            }
        }
        Ok(MapRequest {
            layers,
            styles,
            view: View { crs, bbox, width, height },
            format,
            transparent,
            background,
            exceptions: ExceptionMode::parse(kvp.get("EXCEPTIONS")),
        })
    }

    fn dimension(&self, kvp: &Kvp, key: &str, max: u32) -> Result<u32, OgcError> {
        let v = kvp.required(key)?;
        match v.trim().parse::<u64>() {
            Ok(n) if n >= 1 && n <= u64::from(max) => Ok(n as u32),
            _ => {
                Err(OgcError::invalid(key, format!("{key} must be a whole number from 1 to {max}, not `{}`", clip(v))))
            }
        }
    }

    async fn get_map(&self, account: &AccountId, kvp: &Kvp) -> Result<Reply, OgcError> {
        let req = self.parse_map_request(kvp)?;
        let names: Vec<&str> = req.layers.iter().map(String::as_str).collect();
        let styles: Vec<&str> = req.styles.iter().map(String::as_str).collect();
        let layers = self.resolve_layers(account, &names, &styles).await?;
        let opaque = !req.transparent || req.format == ImageFormat::Jpeg;
        let background = opaque.then_some(req.background);
        let body = self.render_map(account, &layers, &req.view, req.format, background).await?;
        Ok(Reply::ok(req.format.content_type(), body))
    }

    /// An error as an image: blank (BLANK), or with the exception code and message written in it
    /// (INIMAGE).
    fn image_exception(&self, kvp: &Kvp, err: &OgcError, mode: ExceptionMode) -> Reply {
        let size = |k: &str, max: u32| {
            kvp.get(k).and_then(|v| v.trim().parse::<u32>().ok()).filter(|v| *v >= 1 && *v <= max).unwrap_or(256)
        };
        let (w, h) = (size("WIDTH", self.config.max_width), size("HEIGHT", self.config.max_height));
        let format = kvp.get("FORMAT").and_then(ImageFormat::parse).unwrap_or(ImageFormat::Png);
        let transparent = kvp.get("TRANSPARENT").is_some_and(|v| v.eq_ignore_ascii_case("TRUE"));
        let bg = kvp.get("BGCOLOR").and_then(render::parse_rgb).unwrap_or([255, 255, 255]);
        let Some(mut canvas) = render::canvas(w, h, (!transparent || format == ImageFormat::Jpeg).then_some(bg)) else {
            return error_reply(err);
        };
        if mode == ExceptionMode::InImage {
            // The code and message, wrapped to the image's width, as MapServer writes them.
            let text = format!("{}: {}", err.code.as_str(), err.message);
            let columns = (w.saturating_sub(8) / 6) as usize;
            for (k, line) in render::text::wrap(&text, columns).iter().take((h / 10) as usize).enumerate() {
                render::text::draw(
                    &mut canvas,
                    4.0,
                    4.0 + k as f32 * 10.0,
                    line,
                    1,
                    [180, 20, 20, 255],
                    Some([255, 255, 255, 255]),
                );
            }
        }
        let rgba = render::rgba_of(&canvas);
        match render::encode(&rgba, w, h, format, bg) {
            Ok(body) => {
                // The image is the answer the client asked for, sent with 200 as MapServer and
                // GeoServer do: map clients draw only images that arrive with a success status.
                Reply::ok(format.content_type(), body)
            }
            Err(_) => error_reply(err),
        }
    }

    async fn get_feature_info(&self, account: &AccountId, kvp: &Kvp) -> Result<Reply, OgcError> {
        let req = self.parse_map_request(kvp)?;
        let v111 = kvp.get("VERSION").is_some_and(|v| v.starts_with("1.1"));
        let query_layers: Vec<&str> =
            kvp.required("QUERY_LAYERS")?.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
        let info_format = kvp.get("INFO_FORMAT").unwrap_or("text/html").trim().to_ascii_lowercase();
        let info_format = info_format.split(';').next().unwrap_or("").trim().to_owned();
        let info_format = match info_format.as_str() {
            "application/geo+json" | "application/json" | "json" => "application/json".to_owned(),
            "application/vnd.ogc.gml" | "text/xml" | "application/xml" => "text/xml".to_owned(),
            f if INFO_FORMATS.contains(&f) => f.to_owned(),
            _ => {
                return Err(OgcError::new(
                    ExceptionCode::InvalidFormat,
                    Some("INFO_FORMAT".into()),
                    format!("INFO_FORMAT is one of {}", INFO_FORMATS.join(", ")),
                ))
            }
        };
        let (ik, jk) = if v111 { ("X", "Y") } else { ("I", "J") };
        let point = |k: &str, max: u32| -> Result<u32, OgcError> {
            let v = kvp.required(k)?;
            v.trim().parse::<u32>().ok().filter(|n| *n < max).ok_or_else(|| {
                OgcError::new(
                    ExceptionCode::InvalidPoint,
                    Some(k.into()),
                    format!("{k} must be a pixel of the map: 0 to {}", max.saturating_sub(1)),
                )
            })
        };
        let i = point(ik, req.view.width)?;
        let j = point(jk, req.view.height)?;
        let count = kvp.uint("FEATURE_COUNT", 1_000)?.unwrap_or(1).max(1) as usize;
        let layers = self.resolve_layers(account, &query_layers, &[]).await?;
        let mut hits = Vec::new();
        for l in &layers {
            if !l.info.queryable {
                return Err(OgcError::new(
                    ExceptionCode::LayerNotQueryable,
                    Some("QUERY_LAYERS".into()),
                    format!("layer `{}` is not queryable", l.info.name),
                ));
            }
            let found = l.source.feature_info(account, &l.info, &req.view, i, j, count).await.map_err(|e| {
                tracing::error!(error = %e, "feature info failed");
                OgcError::internal()
            })?;
            hits.extend(found.into_iter().take(count));
        }
        Ok(Reply::ok(
            match info_format.as_str() {
                "application/json" => "application/json",
                "text/xml" => "text/xml",
                "text/plain" => "text/plain; charset=utf-8",
                _ => "text/html; charset=utf-8",
            },
            feature_info_body(&hits, &info_format),
        ))
    }

    async fn get_legend_graphic(&self, account: &AccountId, kvp: &Kvp) -> Result<Reply, OgcError> {
        let layer = kvp.required("LAYER")?;
        let style = kvp.get("STYLE").unwrap_or("");
        let layers = self.resolve_layers(account, &[layer], &[style]).await?;
        let format = match kvp.get("FORMAT") {
            None => ImageFormat::Png,
            Some(f) => ImageFormat::parse(f).ok_or_else(|| {
                OgcError::new(
                    ExceptionCode::InvalidFormat,
                    Some("FORMAT".into()),
                    "legends are image/png or image/jpeg",
                )
            })?,
        };
        let legend_of = layers[0].style.legend.clone();
        let (dw, dh) = legend::default_size(&legend_of);
        let w = kvp.uint("WIDTH", 512)?.unwrap_or(u64::from(dw)).max(1) as u32;
        let h = kvp.uint("HEIGHT", 512)?.unwrap_or(u64::from(dh)).max(1) as u32;
        let body = tokio::task::spawn_blocking(move || {
            let p = legend::draw(&legend_of, w, h)?;
            render::encode(&render::rgba_of(&p), w, h, format, [255, 255, 255]).ok()
        })
        .await
        .ok()
        .flatten()
        .ok_or_else(OgcError::internal)?;
        Ok(Reply::ok(format.content_type(), body))
    }
}

fn is_get_map(kvp: &Kvp) -> bool {
    kvp.get("REQUEST").is_some_and(|r| r.eq_ignore_ascii_case("GetMap") || r.eq_ignore_ascii_case("map"))
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A GetFeatureInfo answer in one of [`INFO_FORMATS`].
pub fn feature_info_body(hits: &[Hit], format: &str) -> String {
    match format {
        "application/json" => {
            let features: Vec<Value> = hits
                .iter()
                .map(|h| {
                    let mut f = json!({"type": "Feature", "properties": h.properties, "geometry": h.geometry, "layer": h.layer});
                    if let Some(id) = &h.id {
                        f["id"] = json!(id);
                    }
                    f
                })
                .collect();
            json!({"type": "FeatureCollection", "features": features}).to_string()
        }
        "text/xml" => {
            let mut x = Xml::new();
            x.open("FeatureInfoResponse", &[]);
            for h in hits {
                x.open("Layer", &[("name", &h.layer)]);
                match &h.id {
                    Some(id) => x.open("Feature", &[("id", id)]),
                    None => x.open("Feature", &[]),
                };
                for (k, v) in &h.properties {
                    x.empty("Attribute", &[("name", k), ("value", &value_text(v))]);
                }
                x.close();
                x.close();
            }
            x.finish()
        }
        "text/plain" => {
            let mut out = String::new();
            for h in hits {
                out.push_str(&format!("Layer '{}'\n  Feature {}:\n", h.layer, h.id.as_deref().unwrap_or("-")));
                for (k, v) in &h.properties {
                    out.push_str(&format!("    {k} = '{}'\n", value_text(v)));
                }
            }
            if hits.is_empty() {
                out.push_str("no features found\n");
            }
            out
        }
        _ => {
            let mut out = String::from(
                "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Feature info</title></head><body>\n",
            );
            for h in hits {
                out.push_str(&format!("<table class=\"featureInfo\"><caption>{}</caption>\n", escape(&h.layer)));
                if let Some(id) = &h.id {
                    out.push_str(&format!("<tr><th>id</th><td>{}</td></tr>\n", escape(id)));
                }
                for (k, v) in &h.properties {
                    out.push_str(&format!("<tr><th>{}</th><td>{}</td></tr>\n", escape(k), escape(&value_text(v))));
                }
                out.push_str("</table>\n");
            }
            if hits.is_empty() {
                out.push_str("<p>No features found.</p>\n");
            }
            out.push_str("</body></html>\n");
            out
        }
    }
}
