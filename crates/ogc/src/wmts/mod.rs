//! WMTS 1.0.0 (OGC 07-057r7) in both encodings: KVP (`GetCapabilities`, `GetTile`,
//! `GetFeatureInfo` at `/api/v1/ogc/wmts`) and RESTful (`/api/v1/ogc/wmts/1.0.0/...`, the
//! capabilities at `WMTSCapabilities.xml` and `ResourceURL` templates for tiles and feature
//! info). Tiles are drawn by the same renderers as WMS maps. Errors are OWS 1.1 exception
//! reports.

pub mod capabilities;
pub mod matrix;

use crate::kvp::{clip, Kvp};
use crate::ows::{ExceptionCode, OgcError, Service};
use crate::render::ImageFormat;
use crate::service::{Context, OgcService, Reply};
use crate::srs::View;
use crate::wms::feature_info_body;
use matrix::TileMatrixSet;
use meridian_core::id::AccountId;

/// Where the WMTS lives under the base URL.
pub const PATH: &str = "/api/v1/ogc/wmts";
/// Where its RESTful resources live.
pub const REST_PATH: &str = "/api/v1/ogc/wmts/1.0.0";

/// The tile formats with their RESTful extensions.
pub const TILE_FORMATS: &[(&str, &str, ImageFormat)] =
    &[("image/png", "png", ImageFormat::Png), ("image/jpeg", "jpg", ImageFormat::Jpeg)];

/// The feature info formats with their RESTful extensions.
pub const INFO_FORMATS: &[(&str, &str)] = &[("application/json", "json"), ("text/html", "html"), ("text/xml", "xml")];

/// One tile, as either encoding names it.
#[derive(Clone, Debug)]
pub struct TileRequest {
    pub layer: String,
    pub style: String,
    pub tile_matrix_set: String,
    pub tile_matrix: String,
    pub row: String,
    pub col: String,
    pub format: String,
}

/// A feature info request on a tile.
#[derive(Clone, Debug)]
pub struct TileInfoRequest {
    pub tile: TileRequest,
    pub i: String,
    pub j: String,
    pub info_format: String,
}

/// An OWS exception report as a reply.
pub fn error_reply(err: &OgcError) -> Reply {
    Reply::error(Service::Wmts, err)
}

impl OgcService {
    /// Answers a WMTS KVP request.
    pub async fn wmts(&self, account: &AccountId, query: &str, ctx: &Context) -> Reply {
        let kvp = match Kvp::parse(query, self.config.kvp) {
            Ok(k) => k,
            Err(e) => return error_reply(&e),
        };
        match self.wmts_kvp(account, &kvp, ctx).await {
            Ok(r) => r,
            Err(e) => error_reply(&e),
        }
    }

    async fn wmts_kvp(&self, account: &AccountId, kvp: &Kvp, ctx: &Context) -> Result<Reply, OgcError> {
        let service = kvp.required("SERVICE")?;
        if !service.eq_ignore_ascii_case("WMTS") {
            return Err(OgcError::invalid("SERVICE", format!("this endpoint is a WMTS, not `{}`", clip(service))));
        }
        let request = kvp.required("REQUEST")?;
        if !request.eq_ignore_ascii_case("GetCapabilities") {
            let version = kvp.required("VERSION")?;
            if version != "1.0.0" {
                return Err(OgcError::invalid("VERSION", "the WMTS version is 1.0.0"));
            }
        }
        // GetFeatureInfo repeats the GetTile parameters; its FORMAT is not needed to answer it.
        let tile = |format_required: bool| -> Result<TileRequest, OgcError> {
            Ok(TileRequest {
                layer: kvp.required("LAYER")?.to_owned(),
                style: kvp.get("STYLE").unwrap_or("").to_owned(),
                tile_matrix_set: kvp.required("TILEMATRIXSET")?.to_owned(),
                tile_matrix: kvp.required("TILEMATRIX")?.to_owned(),
                row: kvp.required("TILEROW")?.to_owned(),
                col: kvp.required("TILECOL")?.to_owned(),
                format: if format_required {
                    kvp.required("FORMAT")?.to_owned()
                } else {
                    kvp.get("FORMAT").unwrap_or("image/png").to_owned()
                },
            })
        };
        match request.to_ascii_lowercase().as_str() {
            "getcapabilities" => Ok(Reply::ok("text/xml", self.wmts_capabilities(account, ctx).await?)),
            "gettile" => self.get_tile(account, &tile(true)?).await,
            "getfeatureinfo" => {
                let req = TileInfoRequest {
                    tile: tile(false)?,
                    i: kvp.required("I")?.to_owned(),
                    j: kvp.required("J")?.to_owned(),
                    info_format: kvp.required("INFOFORMAT")?.to_owned(),
                };
                self.get_tile_feature_info(account, &req).await
            }
            _ => Err(OgcError::new(
                ExceptionCode::OperationNotSupported,
                Some("REQUEST".into()),
                format!("`{}` is not a WMTS operation; use GetCapabilities, GetTile or GetFeatureInfo", clip(request)),
            )),
        }
    }

    /// The view of a tile, with the layer resolved.
    async fn tile_view(
        &self,
        account: &AccountId,
        t: &TileRequest,
    ) -> Result<(View, Vec<crate::service::MapLayer>), OgcError> {
        let layers = self.resolve_layers(account, &[t.layer.as_str()], &[t.style.as_str()]).await.map_err(|e| {
            // WMTS names the parameter LAYER and STYLE.
            let locator = match e.code {
                ExceptionCode::StyleNotDefined => Some("STYLE".into()),
                ExceptionCode::LayerNotDefined => Some("LAYER".into()),
                _ => e.locator.clone(),
            };
            OgcError { locator, ..e }
        })?;
        let sets = TileMatrixSet::all(self.config.max_zoom);
        let set = sets.iter().find(|s| s.id == t.tile_matrix_set).ok_or_else(|| {
            OgcError::invalid(
                "TILEMATRIXSET",
                format!(
                    "no tile matrix set `{}`; the sets are {}",
                    clip(&t.tile_matrix_set),
                    sets.iter().map(|s| s.id).collect::<Vec<_>>().join(", ")
                ),
            )
        })?;
        let m = set.matrix(&t.tile_matrix).ok_or_else(|| {
            OgcError::invalid("TILEMATRIX", format!("`{}` is not a matrix of {}", clip(&t.tile_matrix), set.id))
        })?;
        let index = |v: &str, key: &str, max: u32| -> Result<u32, OgcError> {
            let n: u32 = v.trim().parse().map_err(|_| OgcError::invalid(key, format!("{key} is a whole number")))?;
            if n >= max {
                return Err(OgcError::new(
                    ExceptionCode::TileOutOfRange,
                    Some(key.into()),
                    format!("{key} of matrix {} of {} is 0 to {}", m.id, set.id, max - 1),
                ));
            }
            Ok(n)
        };
        let row = index(&t.row, "TILEROW", m.matrix_height)?;
        let col = index(&t.col, "TILECOL", m.matrix_width)?;
        let view = View { crs: set.crs, bbox: set.tile_bbox(m, row, col), width: set.tile_size, height: set.tile_size };
        Ok((view, layers))
    }

    /// One tile.
    pub async fn get_tile(&self, account: &AccountId, t: &TileRequest) -> Result<Reply, OgcError> {
        let format = TILE_FORMATS
            .iter()
            .find(|(mime, ext, _)| t.format.eq_ignore_ascii_case(mime) || t.format.eq_ignore_ascii_case(ext))
            .map(|(_, _, f)| *f)
            .ok_or_else(|| {
                OgcError::invalid(
                    "FORMAT",
                    format!("`{}` is not offered; tiles are image/png or image/jpeg", clip(&t.format)),
                )
            })?;
        let (view, layers) = self.tile_view(account, t).await?;
        let cacheable = layers.iter().all(|l| l.info.kind == crate::layers::LayerKind::Raster);
        // The layer's revision: a scene stored again under its name (through any node) is a new key.
        let key = format!(
            "{account}/{}@{}/{}/{}/{}/{}/{}/{}",
            layers[0].info.name,
            layers[0].info.revision,
            layers[0].style.name,
            t.tile_matrix_set,
            t.tile_matrix,
            view.bbox[0],
            view.bbox[3],
            format.media_type()
        );
        let body = match cacheable.then(|| self.cached_tile(&key)).flatten() {
            Some(b) => b,
            None => {
                let background = (format == ImageFormat::Jpeg).then_some([255, 255, 255]);
                let body = bytes::Bytes::from(self.render_map(account, &layers, &view, format, background).await?);
                if cacheable {
                    self.cache_tile(key, body.clone());
                }
                body
            }
        };
        let mut reply = Reply::ok(format.content_type(), body).with_etag();
        reply.max_age = Some(self.config.tile_max_age);
        Ok(reply)
    }

    /// Feature info at pixel (I, J) of a tile.
    pub async fn get_tile_feature_info(&self, account: &AccountId, r: &TileInfoRequest) -> Result<Reply, OgcError> {
        let info_format = INFO_FORMATS
            .iter()
            .find(|(mime, ext)| r.info_format.eq_ignore_ascii_case(mime) || r.info_format.eq_ignore_ascii_case(ext))
            .map(|(mime, _)| *mime)
            .ok_or_else(|| {
                OgcError::invalid(
                    "INFOFORMAT",
                    format!("INFOFORMAT is one of {}", INFO_FORMATS.iter().map(|f| f.0).collect::<Vec<_>>().join(", ")),
                )
            })?;
        let (view, layers) = self.tile_view(account, &r.tile).await?;
        let pixel =
            |v: &str, key: &str| -> Result<u32, OgcError> {
                v.trim().parse::<u32>().ok().filter(|n| *n < view.width).ok_or_else(|| {
                    OgcError::invalid(key, format!("{key} is a pixel of the tile: 0 to {}", view.width - 1))
                })
            };
        let (i, j) = (pixel(&r.i, "I")?, pixel(&r.j, "J")?);
        let l = &layers[0];
        let hits = l.source.feature_info(account, &l.info, &view, i, j, 10).await.map_err(|e| {
            tracing::error!(error = %e, "feature info failed");
            OgcError::internal()
        })?;
        let content_type = if info_format == "text/html" { "text/html; charset=utf-8" } else { info_format };
        Ok(Reply::ok(content_type, feature_info_body(&hits, info_format)))
    }
}
