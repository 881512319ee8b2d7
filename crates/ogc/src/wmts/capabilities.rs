//! The WMTS 1.0.0 capabilities document: OWS sections, operations in KVP and REST encodings,
//! every layer of the caller with its styles, formats, tile matrix set links and `ResourceURL`
//! templates, and the tile matrix sets with `TopLeftCorner` in each CRS's axis order.

use super::matrix::TileMatrixSet;
use super::{INFO_FORMATS, PATH, REST_PATH, TILE_FORMATS};
use crate::ows::{self, OgcError, Xml, OWS_NS, XLINK_NS, XSI_NS};
use crate::service::{encode, Context, OgcService};
use meridian_core::id::AccountId;

fn num(v: f64) -> String {
    let s = format!("{v:.10}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_owned()
}

/// A RESTful template: the path, then the access token when there is one.
fn template(ctx: &Context, path: &str) -> String {
    match &ctx.access_token {
        Some(t) => format!("{}{path}?access_token={}", ctx.base_url, encode(t)),
        None => format!("{}{path}", ctx.base_url),
    }
}

impl OgcService {
    /// The capabilities document of `account`'s layers.
    pub async fn wmts_capabilities(&self, account: &AccountId, ctx: &Context) -> Result<String, OgcError> {
        let groups = self.layer_groups(account).await?;
        let sets = TileMatrixSet::all(self.config.max_zoom);
        let kvp = ctx.url(PATH);
        let rest = |p: &str| template(ctx, &format!("{REST_PATH}{p}"));
        let mut x = Xml::new();
        x.open(
            "Capabilities",
            &[
                ("xmlns", "http://www.opengis.net/wmts/1.0"),
                ("xmlns:ows", OWS_NS),
                ("xmlns:xlink", XLINK_NS),
                ("xmlns:xsi", XSI_NS),
                ("xmlns:gml", "http://www.opengis.net/gml"),
                (
                    "xsi:schemaLocation",
                    "http://www.opengis.net/wmts/1.0 http://schemas.opengis.net/wmts/1.0/wmtsGetCapabilities_response.xsd",
                ),
                ("version", "1.0.0"),
            ],
        );
        ows::service_sections(
            &mut x,
            "OGC WMTS",
            "1.0.0",
            "Meridian WMTS",
            "Tiles of the account's feature collections and DEM rasters.",
        );
        let caps = rest("/WMTSCapabilities.xml");
        ows::operations_metadata(
            &mut x,
            &[
                ows::Operation { name: "GetCapabilities", gets: vec![(kvp.clone(), "KVP"), (caps.clone(), "REST")] },
                ows::Operation { name: "GetTile", gets: vec![(kvp.clone(), "KVP"), (rest("/"), "REST")] },
                ows::Operation { name: "GetFeatureInfo", gets: vec![(kvp.clone(), "KVP"), (rest("/"), "REST")] },
            ],
        );
        x.open("Contents", &[]);
        for (_, layers) in &groups {
            for l in layers {
                x.open("Layer", &[]);
                x.text("ows:Title", &[], &l.title);
                x.text("ows:Abstract", &[], &l.abstract_);
                x.open("ows:Keywords", &[]);
                for k in &l.keywords {
                    x.text("ows:Keyword", &[], k);
                }
                x.close();
                let b = l.bbox.unwrap_or([-180.0, -90.0, 180.0, 90.0]);
                x.open("ows:WGS84BoundingBox", &[("crs", "urn:ogc:def:crs:OGC:2:84")]);
                x.text("ows:LowerCorner", &[], &format!("{} {}", num(b[0]), num(b[1])));
                x.text("ows:UpperCorner", &[], &format!("{} {}", num(b[2]), num(b[3])));
                x.close();
                x.text("ows:Identifier", &[], &l.name);
                for (k, s) in l.styles.iter().enumerate() {
                    x.open("Style", &[("isDefault", if k == 0 { "true" } else { "false" })]);
                    x.text("ows:Title", &[], &s.title);
                    x.text("ows:Identifier", &[], &s.name);
                    let legend = format!(
                        "{}SERVICE=WMS&VERSION=1.3.0&REQUEST=GetLegendGraphic&FORMAT=image%2Fpng&LAYER={}&STYLE={}",
                        ctx.url(crate::wms::PATH),
                        encode(&l.name),
                        encode(&s.name)
                    );
                    x.empty("LegendURL", &[("format", "image/png"), ("xlink:href", &legend)]);
                    x.close();
                }
                for (mime, _, _) in TILE_FORMATS {
                    x.text("Format", &[], mime);
                }
                if l.queryable {
                    for (mime, _) in INFO_FORMATS {
                        x.text("InfoFormat", &[], mime);
                    }
                }
                // Only the sets the layer reaches, with the tiles that hold it.
                for s in &sets {
                    let limits = match l.bbox {
                        Some(b) => match s.limits(b) {
                            Some(limits) => Some(limits),
                            None => continue,
                        },
                        None => None,
                    };
                    x.open("TileMatrixSetLink", &[]);
                    x.text("TileMatrixSet", &[], s.id);
                    if let Some(limits) = limits {
                        x.open("TileMatrixSetLimits", &[]);
                        for t in limits {
                            x.open("TileMatrixLimits", &[]);
                            x.text("TileMatrix", &[], &t.matrix);
                            x.text("MinTileRow", &[], &t.min_row.to_string());
                            x.text("MaxTileRow", &[], &t.max_row.to_string());
                            x.text("MinTileCol", &[], &t.min_col.to_string());
                            x.text("MaxTileCol", &[], &t.max_col.to_string());
                            x.close();
                        }
                        x.close();
                    }
                    x.close();
                }
                let base = format!("/{}/{{Style}}/{{TileMatrixSet}}/{{TileMatrix}}/{{TileRow}}/{{TileCol}}", l.name);
                for (mime, ext, _) in TILE_FORMATS {
                    x.empty(
                        "ResourceURL",
                        &[("format", mime), ("resourceType", "tile"), ("template", &rest(&format!("{base}.{ext}")))],
                    );
                }
                if l.queryable {
                    for (mime, ext) in INFO_FORMATS {
                        x.empty(
                            "ResourceURL",
                            &[
                                ("format", mime),
                                ("resourceType", "FeatureInfo"),
                                ("template", &rest(&format!("{base}/{{J}}/{{I}}.{ext}"))),
                            ],
                        );
                    }
                }
                x.close();
            }
        }
        for s in &sets {
            x.open("TileMatrixSet", &[]);
            x.text("ows:Title", &[], s.title);
            x.text("ows:Identifier", &[], s.id);
            x.text("ows:SupportedCRS", &[], s.crs_urn);
            if let Some(w) = s.well_known_scale_set {
                x.text("WellKnownScaleSet", &[], w);
            }
            let (tx, ty) = if s.crs.lat_first() { (s.top_left.1, s.top_left.0) } else { s.top_left };
            let corner = format!("{} {}", num(tx), num(ty));
            for m in &s.matrices {
                x.open("TileMatrix", &[]);
                x.text("ows:Identifier", &[], &m.id);
                x.text("ScaleDenominator", &[], &num(m.scale_denominator));
                x.text("TopLeftCorner", &[], &corner);
                x.text("TileWidth", &[], &s.tile_size.to_string());
                x.text("TileHeight", &[], &s.tile_size.to_string());
                x.text("MatrixWidth", &[], &m.matrix_width.to_string());
                x.text("MatrixHeight", &[], &m.matrix_height.to_string());
                x.close();
            }
            x.close();
        }
        x.close();
        x.empty("ServiceMetadataURL", &[("xlink:href", &caps)]);
        Ok(x.finish())
    }
}
