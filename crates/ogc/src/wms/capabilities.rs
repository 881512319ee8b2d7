//! The WMS 1.3.0 capabilities document: the service, the operations with their formats, the
//! exception formats, and the caller's layers in a tree (a root, one group per source), each
//! with its CRSs, `EX_GeographicBoundingBox`, a `BoundingBox` per CRS in that CRS's axis order,
//! and its styles with legend URLs.

use super::{INFO_FORMATS, PATH};
use crate::layers::LayerInfo;
use crate::ows::{OgcError, Xml, XLINK_NS, XSI_NS};
use crate::render::{legend, ImageFormat};
use crate::service::{encode, Context, OgcService};
use crate::srs;
use meridian_core::crs::Crs;
use meridian_core::id::AccountId;

const WORLD: [f64; 4] = [-180.0, -90.0, 180.0, 90.0];

fn num(v: f64) -> String {
    // Enough digits for centimetres in metres and for degrees.
    let s = format!("{v:.9}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_owned()
    }
}

fn bounding_boxes(x: &mut Xml, crs_list: &[Crs], b: [f64; 4]) {
    x.open("EX_GeographicBoundingBox", &[]);
    x.text("westBoundLongitude", &[], &num(b[0].max(-180.0)));
    x.text("eastBoundLongitude", &[], &num(b[2].min(180.0)));
    x.text("southBoundLatitude", &[], &num(b[1].max(-90.0)));
    x.text("northBoundLatitude", &[], &num(b[3].min(90.0)));
    x.close();
    for &crs in crs_list {
        let Some(mut bb) = srs::clip_to_area(b, crs).and_then(|c| srs::bbox_from_crs84(c, crs)) else { continue };
        if crs.lat_first() {
            bb = [bb[1], bb[0], bb[3], bb[2]];
        }
        let name = srs::name(crs);
        let (minx, miny, maxx, maxy) = (num(bb[0]), num(bb[1]), num(bb[2]), num(bb[3]));
        x.empty("BoundingBox", &[("CRS", &name), ("minx", &minx), ("miny", &miny), ("maxx", &maxx), ("maxy", &maxy)]);
    }
}

fn dcp(x: &mut Xml, href: &str) {
    x.open("DCPType", &[]);
    x.open("HTTP", &[]);
    x.open("Get", &[]);
    x.empty("OnlineResource", &[("xlink:type", "simple"), ("xlink:href", href)]);
    x.close();
    x.close();
    x.close();
}

impl OgcService {
    /// The capabilities document of `account`'s layers.
    pub async fn wms_capabilities(&self, account: &AccountId, ctx: &Context) -> Result<String, OgcError> {
        let groups = self.layer_groups(account).await?;
        let url = ctx.url(PATH);
        let mut x = Xml::new();
        x.open(
            "WMS_Capabilities",
            &[
                ("version", "1.3.0"),
                ("xmlns", "http://www.opengis.net/wms"),
                ("xmlns:xlink", XLINK_NS),
                ("xmlns:xsi", XSI_NS),
                ("xmlns:sld", "http://www.opengis.net/sld"),
                (
                    "xsi:schemaLocation",
                    "http://www.opengis.net/wms http://schemas.opengis.net/wms/1.3.0/capabilities_1_3_0.xsd \
                     http://www.opengis.net/sld http://schemas.opengis.net/sld/1.1.0/sld_capabilities.xsd",
                ),
            ],
        );
        x.open("Service", &[]);
        x.text("Name", &[], "WMS");
        x.text("Title", &[], "Meridian WMS");
        x.text(
            "Abstract",
            &[],
            "Maps of the account's feature collections (the cadastre's parcels and uploaded collections) and DEM rasters.",
        );
        x.open("KeywordList", &[]);
        for k in ["WMS", "cadastre", "DEM", "Meridian"] {
            x.text("Keyword", &[], k);
        }
        x.close();
        x.empty("OnlineResource", &[("xlink:type", "simple"), ("xlink:href", &ctx.link(PATH))]);
        x.text("Fees", &[], "none");
        x.text("AccessConstraints", &[], "none");
        x.text("LayerLimit", &[], &self.config.max_layers.to_string());
        x.text("MaxWidth", &[], &self.config.max_width.to_string());
        x.text("MaxHeight", &[], &self.config.max_height.to_string());
        x.close();

        x.open("Capability", &[]);
        x.open("Request", &[]);
        x.open("GetCapabilities", &[]);
        x.text("Format", &[], "text/xml");
        dcp(&mut x, &url);
        x.close();
        x.open("GetMap", &[]);
        for (mime, _) in ImageFormat::OFFERED {
            x.text("Format", &[], mime);
        }
        dcp(&mut x, &url);
        x.close();
        x.open("GetFeatureInfo", &[]);
        for f in INFO_FORMATS {
            x.text("Format", &[], f);
        }
        dcp(&mut x, &url);
        x.close();
        x.open("sld:GetLegendGraphic", &[]);
        x.text("Format", &[], "image/png");
        x.text("Format", &[], "image/jpeg");
        dcp(&mut x, &url);
        x.close();
        x.close();
        x.open("Exception", &[]);
        for f in ["XML", "INIMAGE", "BLANK"] {
            x.text("Format", &[], f);
        }
        x.close();

        let crs_list = &self.config.crs;
        x.open("Layer", &[]);
        x.text("Title", &[], "Meridian");
        x.text("Abstract", &[], "Every layer of the account.");
        for &c in crs_list {
            x.text("CRS", &[], &srs::name(c));
        }
        bounding_boxes(&mut x, crs_list, WORLD);
        for (source, layers) in &groups {
            if layers.is_empty() {
                continue;
            }
            x.open("Layer", &[]);
            x.text("Title", &[], source.title());
            let extent = union(layers.iter().filter_map(|l| l.bbox)).unwrap_or(WORLD);
            bounding_boxes(&mut x, crs_list, extent);
            for l in layers {
                self.layer(&mut x, l, ctx);
            }
            x.close();
        }
        x.close();
        x.close();
        Ok(x.finish())
    }

    fn layer(&self, x: &mut Xml, l: &LayerInfo, ctx: &Context) {
        x.open("Layer", &[("queryable", if l.queryable { "1" } else { "0" }), ("opaque", "0")]);
        x.text("Name", &[], &l.name);
        x.text("Title", &[], &l.title);
        x.text("Abstract", &[], &l.abstract_);
        x.open("KeywordList", &[]);
        for k in &l.keywords {
            x.text("Keyword", &[], k);
        }
        x.close();
        if let Some(b) = l.bbox {
            // The layer's own UTM zone, beside the service's CRSs (inherited from the parent).
            let mut crs_list = self.config.crs.clone();
            if let Some(utm) = utm_zone(b).filter(|c| !crs_list.contains(c)) {
                x.text("CRS", &[], &srs::name(utm));
                crs_list.push(utm);
            }
            // A point or a line along a meridian still needs a box with an area.
            let pad = |lo: f64, hi: f64| if hi - lo < 1e-9 { (lo - 1e-6, hi + 1e-6) } else { (lo, hi) };
            let (x0, x1) = pad(b[0], b[2]);
            let (y0, y1) = pad(b[1], b[3]);
            bounding_boxes(x, &crs_list, [x0, y0, x1, y1]);
        }
        for s in &l.styles {
            x.open("Style", &[]);
            x.text("Name", &[], &s.name);
            x.text("Title", &[], &s.title);
            let (w, h) = legend::default_size(&s.legend);
            let (w, h) = (w.to_string(), h.to_string());
            x.open("LegendURL", &[("width", &w), ("height", &h)]);
            x.text("Format", &[], "image/png");
            let href = format!(
                "{}SERVICE=WMS&VERSION=1.3.0&REQUEST=GetLegendGraphic&FORMAT=image%2Fpng&LAYER={}&STYLE={}",
                ctx.url(PATH),
                encode(&l.name),
                encode(&s.name)
            );
            x.empty("OnlineResource", &[("xlink:type", "simple"), ("xlink:href", &href)]);
            x.close();
            x.close();
        }
        x.close();
    }
}

/// The WGS 84 UTM zone (EPSG:326zz north, 327zz south) of a CRS84 box's centre, when the box
/// lies within one zone's reach (at most 6° wide, between 80°S and 84°N).
fn utm_zone(b: [f64; 4]) -> Option<Crs> {
    let (lon, lat) = ((b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0);
    if b[2] - b[0] > 6.0 || !(-80.0..=84.0).contains(&lat) || !(-180.0..=180.0).contains(&lon) {
        return None;
    }
    let zone = (((lon + 180.0) / 6.0).floor() as u16).min(59) + 1;
    Some(Crs::Epsg(if lat >= 0.0 { 32600 + zone } else { 32700 + zone }))
}

/// The box holding every box.
pub fn union(boxes: impl Iterator<Item = [f64; 4]>) -> Option<[f64; 4]> {
    boxes.fold(None, |acc, b| {
        Some(match acc {
            None => b,
            Some(a) => [a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])],
        })
    })
}
