//! STAC documents: checking the Collections and Items clients send (each mistake a JSON pointer),
//! and the documents the API answers with (landing page, conformance, collections and items with
//! their links). Stored bodies carry no links: they are made here from the base URL of the request.

use chrono::{DateTime, SecondsFormat, Utc};
use meridian_core::error::FieldError;
use meridian_features::geometry::{self, Rules};
use meridian_store::eo::{CollectionSummary, EoCollection, EoItem, NewItem};
use serde_json::{json, Map, Value};

/// The STAC version written and accepted.
pub const STAC_VERSION: &str = "1.0.0";

/// Where the API lives under the server's base URL.
pub const ROOT: &str = "/api/v1/eo";

/// Media types.
pub const GEOJSON: &str = "application/geo+json";
pub const COG_TYPE: &str = "image/tiff; application=geotiff; profile=cloud-optimized";
pub const GEOTIFF_TYPE: &str = "image/tiff; application=geotiff";

/// Extensions whose fields the server writes into derived items.
pub const EO_EXTENSION: &str = "https://stac-extensions.github.io/eo/v1.1.0/schema.json";
pub const PROJ_EXTENSION: &str = "https://stac-extensions.github.io/projection/v1.1.0/schema.json";
pub const RASTER_EXTENSION: &str = "https://stac-extensions.github.io/raster/v1.1.0/schema.json";
pub const VIEW_EXTENSION: &str = "https://stac-extensions.github.io/view/v1.0.0/schema.json";

/// The conformance classes the API implements.
pub const CONFORMANCE: &[&str] = &[
    "https://api.stacspec.org/v1.0.0/core",
    "https://api.stacspec.org/v1.0.0/collections",
    "https://api.stacspec.org/v1.0.0/ogcapi-features",
    "https://api.stacspec.org/v1.0.0/item-search",
    "https://api.stacspec.org/v1.0.0/item-search#fields",
    "https://api.stacspec.org/v1.0.0/item-search#sort",
    "https://api.stacspec.org/v1.0.0/item-search#filter",
    "https://api.stacspec.org/v1.0.0/ogcapi-features#fields",
    "https://api.stacspec.org/v1.0.0/ogcapi-features#sort",
    "https://api.stacspec.org/v1.0.0/ogcapi-features#filter",
    "https://api.stacspec.org/v1.0.0/ogcapi-features/extensions/transaction",
    "https://api.stacspec.org/v1.0.0/collections/extensions/transaction",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter",
    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter",
    "http://www.opengis.net/spec/cql2/1.0/conf/cql2-text",
    "http://www.opengis.net/spec/cql2/1.0/conf/cql2-json",
    "http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2",
    "http://www.opengis.net/spec/cql2/1.0/conf/advanced-comparison-operators",
    "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions",
    "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions-plus",
    "http://www.opengis.net/spec/cql2/1.0/conf/spatial-functions",
];

/// Ids of collections and items: what fits a URL path segment and a blob key.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 200
        && id != "."
        && id != ".."
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

fn err(pointer: impl Into<String>, code: &str, detail: impl Into<String>) -> FieldError {
    FieldError::new(pointer, code, detail)
}

/// An RFC 3339 instant in milliseconds.
pub fn parse_instant(text: &str) -> Option<i64> {
    DateTime::parse_from_rfc3339(text.trim()).ok().map(|t| t.with_timezone(&Utc).timestamp_millis())
}

/// Milliseconds as RFC 3339 (UTC, `Z`).
pub fn format_instant(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(SecondsFormat::AutoSi, true))
        .unwrap_or_default()
}

/// Checks a Collection as a client sent it and returns the body to store (links removed,
/// `type` and `stac_version` set, `license` defaulted).
pub fn check_collection(value: &Value, path_id: Option<&str>) -> Result<Value, Vec<FieldError>> {
    let Some(obj) = value.as_object() else {
        return Err(vec![err("", "invalid_type", "a STAC Collection is a JSON object")]);
    };
    let mut errors = Vec::new();
    let mut body = obj.clone();
    match obj.get("id").and_then(Value::as_str) {
        None => errors.push(err("/id", "required", "a collection needs an `id` (a string)")),
        Some(id) if !valid_id(id) => errors.push(err(
            "/id",
            "invalid_id",
            "ids are 1–200 characters of letters, digits, `_`, `-`, `.` and `:`",
        )),
        Some(id) => {
            if let Some(p) = path_id.filter(|p| *p != id) {
                errors.push(err("/id", "id_mismatch", format!("the body names {id}, the path {p}")));
            }
        }
    }
    match obj.get("type") {
        None => {
            body.insert("type".into(), json!("Collection"));
        }
        Some(Value::String(t)) if t == "Collection" => {}
        Some(_) => errors.push(err("/type", "invalid_value", "`type` of a collection is \"Collection\"")),
    }
    match obj.get("description") {
        Some(Value::String(_)) => {}
        None => {
            body.insert("description".into(), json!(""));
        }
        Some(_) => errors.push(err("/description", "invalid_type", "`description` is a string")),
    }
    match obj.get("license") {
        Some(Value::String(_)) => {}
        None => {
            body.insert("license".into(), json!("proprietary"));
        }
        Some(_) => errors.push(err("/license", "invalid_type", "`license` is a string")),
    }
    for key in ["title"] {
        if obj.get(key).is_some_and(|v| !v.is_string()) {
            errors.push(err(format!("/{key}"), "invalid_type", format!("`{key}` is a string")));
        }
    }
    for key in ["summaries", "item_assets", "providers", "assets"] {
        match (key, obj.get(key)) {
            (_, None) => {}
            ("providers", Some(Value::Array(_))) => {}
            ("providers", Some(_)) => errors.push(err("/providers", "invalid_type", "`providers` is an array")),
            (_, Some(Value::Object(_))) => {}
            (_, Some(_)) => errors.push(err(format!("/{key}"), "invalid_type", format!("`{key}` is an object"))),
        }
    }
    if let Some(ext) = obj.get("stac_extensions") {
        if !ext.as_array().is_some_and(|a| a.iter().all(Value::is_string)) {
            errors.push(err("/stac_extensions", "invalid_type", "`stac_extensions` is an array of URLs"));
        }
    }
    if let Some(extent) = obj.get("extent") {
        check_extent(extent, &mut errors);
    }
    if errors.is_empty() {
        body.insert("stac_version".into(), json!(STAC_VERSION));
        body.remove("links");
        Ok(Value::Object(body))
    } else {
        Err(errors)
    }
}

fn check_extent(extent: &Value, errors: &mut Vec<FieldError>) {
    let bboxes = extent.pointer("/spatial/bbox").and_then(Value::as_array);
    match bboxes {
        Some(list) if !list.is_empty() => {
            for (i, b) in list.iter().enumerate() {
                let ok = b.as_array().is_some_and(|a| (a.len() == 4 || a.len() == 6) && a.iter().all(Value::is_number));
                if !ok {
                    errors.push(err(
                        format!("/extent/spatial/bbox/{i}"),
                        "invalid_bbox",
                        "a box is 4 (or 6) numbers",
                    ));
                }
            }
        }
        _ => errors.push(err("/extent/spatial/bbox", "required", "`extent.spatial.bbox` is an array of boxes")),
    }
    match extent.pointer("/temporal/interval").and_then(Value::as_array) {
        Some(list) if !list.is_empty() => {
            for (i, iv) in list.iter().enumerate() {
                let ok = iv.as_array().is_some_and(|a| {
                    a.len() == 2 && a.iter().all(|t| t.is_null() || t.as_str().and_then(parse_instant).is_some())
                });
                if !ok {
                    errors.push(err(
                        format!("/extent/temporal/interval/{i}"),
                        "invalid_interval",
                        "an interval is [start, end], each RFC 3339 or null",
                    ));
                }
            }
        }
        _ => errors.push(err(
            "/extent/temporal/interval",
            "required",
            "`extent.temporal.interval` is an array of intervals",
        )),
    }
}

/// Checks an Item as a client sent it for collection `collection` and returns what to store:
/// `bbox` computed from the geometry when missing, `collection` set, links removed.
/// `pointer` prefixes every error (`/features/3` in a bulk request).
pub fn check_item(value: &Value, collection: &str, path_id: Option<&str>, pointer: &str) -> Result<NewItem, Vec<FieldError>> {
    let at = |p: &str| format!("{pointer}{p}");
    let Some(obj) = value.as_object() else {
        return Err(vec![err(at(""), "invalid_type", "a STAC Item is a JSON object")]);
    };
    let mut errors = Vec::new();
    let mut body = obj.clone();
    let id = match obj.get("id").and_then(Value::as_str) {
        None => {
            errors.push(err(at("/id"), "required", "an item needs an `id` (a string)"));
            String::new()
        }
        Some(id) if !valid_id(id) => {
            errors.push(err(
                at("/id"),
                "invalid_id",
                "ids are 1–200 characters of letters, digits, `_`, `-`, `.` and `:`",
            ));
            String::new()
        }
        Some(id) => {
            if let Some(p) = path_id.filter(|p| *p != id) {
                errors.push(err(at("/id"), "id_mismatch", format!("the body names {id}, the path {p}")));
            }
            id.to_owned()
        }
    };
    match obj.get("type") {
        None => {
            body.insert("type".into(), json!("Feature"));
        }
        Some(Value::String(t)) if t == "Feature" => {}
        Some(_) => errors.push(err(at("/type"), "invalid_value", "`type` of an item is \"Feature\"")),
    }
    match obj.get("collection") {
        None | Some(Value::Null) => {}
        Some(Value::String(c)) if c == collection => {}
        Some(other) => errors.push(err(
            at("/collection"),
            "collection_mismatch",
            format!("the item names collection {other}, the request {collection}"),
        )),
    }
    // Geometry: GeoJSON in WGS84, checked like a parcel's, or null (then no bbox either).
    let mut bbox = None;
    match obj.get("geometry") {
        None => errors.push(err(at("/geometry"), "required", "an item needs a `geometry` (GeoJSON or null)")),
        Some(Value::Null) => {}
        Some(g) => match geometry::parse(g, &at("/geometry"), Rules { areal_only: false, geographic: true }) {
            Ok(parsed) => {
                bbox = geometry::bbox_of(&parsed.geo).map(|b| [b.min_x, b.min_y, b.max_x, b.max_y]);
            }
            Err(mut e) => errors.append(&mut e),
        },
    }
    match obj.get("bbox") {
        None if bbox.is_some() => {
            if let Some(b) = bbox {
                body.insert("bbox".into(), json!(b));
            }
        }
        None => {}
        Some(Value::Array(a)) if (a.len() == 4 || a.len() == 6) && a.iter().all(Value::is_number) => {
            let n: Vec<f64> = a.iter().filter_map(Value::as_f64).collect();
            let b = if n.len() == 4 { [n[0], n[1], n[2], n[3]] } else { [n[0], n[1], n[3], n[4]] };
            if b[1] > b[3] || b[1] < -90.0 || b[3] > 90.0 || b[0] < -180.0 || b[2] > 180.0 {
                errors.push(err(at("/bbox"), "invalid_bbox", "a WGS84 box: min lon, min lat, max lon, max lat"));
            } else {
                bbox = Some(b);
            }
        }
        Some(_) => errors.push(err(at("/bbox"), "invalid_bbox", "`bbox` is 4 (or 6) numbers")),
    }
    let (start, end) = match obj.get("properties") {
        Some(Value::Object(p)) => item_time(p, &at("/properties"), &mut errors),
        _ => {
            errors.push(err(at("/properties"), "required", "an item needs `properties` with a `datetime`"));
            (0, 0)
        }
    };
    match obj.get("assets") {
        None => {
            body.insert("assets".into(), json!({}));
        }
        Some(Value::Object(assets)) => {
            for (key, a) in assets {
                let p = at(&format!("/assets/{}", key.replace('~', "~0").replace('/', "~1")));
                if !valid_id(key) {
                    errors.push(err(&p, "invalid_key", "asset keys are letters, digits, `_`, `-`, `.` and `:`"));
                }
                match a.get("href") {
                    Some(Value::String(h)) if !h.is_empty() => {}
                    _ => errors.push(err(format!("{p}/href"), "required", "an asset needs an `href`")),
                }
            }
        }
        Some(_) => errors.push(err(at("/assets"), "invalid_type", "`assets` is an object of assets")),
    }
    if let Some(ext) = obj.get("stac_extensions") {
        if !ext.as_array().is_some_and(|a| a.iter().all(Value::is_string)) {
            errors.push(err(at("/stac_extensions"), "invalid_type", "`stac_extensions` is an array of URLs"));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    body.insert("stac_version".into(), json!(STAC_VERSION));
    body.insert("collection".into(), json!(collection));
    body.entry("stac_extensions").or_insert_with(|| json!([]));
    body.remove("links");
    // Items without a geometry are placed nowhere: a box no search box meets.
    let bbox = bbox.unwrap_or([f64::NAN; 4]);
    let bbox = if bbox.iter().all(|v| v.is_finite()) { bbox } else { [1000.0, 1000.0, 1000.0, 1000.0] };
    Ok(NewItem { id, start_at: start, end_at: end, bbox, body: Value::Object(body) })
}

/// The item's time interval from `datetime` or `start_datetime`/`end_datetime`.
fn item_time(props: &Map<String, Value>, pointer: &str, errors: &mut Vec<FieldError>) -> (i64, i64) {
    let instant = |key: &str, errors: &mut Vec<FieldError>| -> Option<i64> {
        match props.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(t)) => {
                let v = parse_instant(t);
                if v.is_none() {
                    errors.push(err(format!("{pointer}/{key}"), "invalid_datetime", "an RFC 3339 date and time"));
                }
                v
            }
            Some(_) => {
                errors.push(err(format!("{pointer}/{key}"), "invalid_datetime", "an RFC 3339 date and time"));
                None
            }
        }
    };
    let n = errors.len();
    let dt = instant("datetime", errors);
    let start = instant("start_datetime", errors);
    let end = instant("end_datetime", errors);
    if errors.len() > n {
        return (0, 0);
    }
    match (dt, start, end) {
        (_, Some(s), Some(e)) if s > e => {
            errors.push(err(format!("{pointer}/end_datetime"), "invalid_interval", "end_datetime is before start_datetime"));
            (0, 0)
        }
        (_, Some(s), Some(e)) => (s, e),
        (Some(t), _, _) => (t, t),
        _ => {
            errors.push(err(
                format!("{pointer}/datetime"),
                "required",
                "an item needs `datetime`, or `start_datetime` and `end_datetime` with `datetime` null",
            ));
            (0, 0)
        }
    }
}

/// Links and hrefs made absolute against a base URL (scheme and authority, no trailing `/`).
#[derive(Clone, Debug)]
pub struct Links {
    pub base: String,
}

impl Links {
    /// The base of the API: `<base>/api/v1/eo`.
    pub fn root(&self) -> String {
        format!("{}{ROOT}", self.base)
    }

    fn link(rel: &str, href: String, kind: &str, title: Option<&str>) -> Value {
        let mut l = json!({"rel": rel, "href": href, "type": kind});
        if let Some(t) = title {
            l["title"] = json!(t);
        }
        l
    }

    /// The STAC API landing page.
    pub fn landing(&self, title: &str) -> Value {
        let root = self.root();
        json!({
            "type": "Catalog",
            "stac_version": STAC_VERSION,
            "id": "meridian-eo",
            "title": title,
            "description": "Earth observation scenes of this account: search, assets, spectral indices and zonal statistics",
            "conformsTo": CONFORMANCE,
            "links": [
                Self::link("self", root.clone(), "application/json", None),
                Self::link("root", root.clone(), "application/json", None),
                Self::link("data", format!("{root}/collections"), "application/json", Some("Collections")),
                Self::link("conformance", format!("{root}/conformance"), "application/json", None),
                json!({"rel": "search", "href": format!("{root}/search"), "type": GEOJSON, "method": "GET", "title": "Item search (GET)"}),
                json!({"rel": "search", "href": format!("{root}/search"), "type": GEOJSON, "method": "POST", "title": "Item search (POST)"}),
                Self::link("http://www.opengis.net/def/rel/ogc/1.0/queryables", format!("{root}/queryables"), "application/schema+json", Some("Queryables")),
                Self::link("service-desc", format!("{}/api/v1/openapi.json", self.base), "application/vnd.oai.openapi+json;version=3.1", None),
                Self::link("service-doc", format!("{}/docs", self.base), "text/html", None),
            ],
        })
    }

    /// A collection as answered: the stored body, its extent from its items when it has any,
    /// `item_assets` from the first item when the body has none, and links.
    pub fn collection(&self, c: &EoCollection, summary: &CollectionSummary, first_assets: Option<&Value>) -> Value {
        let root = self.root();
        let mut body = c.body.clone();
        if let (Some(b), Some(s), Some(e)) = (summary.bbox, summary.start_at, summary.end_at) {
            body["extent"] = json!({
                "spatial": {"bbox": [b]},
                "temporal": {"interval": [[format_instant(s), format_instant(e)]]},
            });
        } else if body.get("extent").is_none() {
            body["extent"] = json!({"spatial": {"bbox": [[-180.0, -90.0, 180.0, 90.0]]}, "temporal": {"interval": [[null, null]]}});
        }
        if body.get("item_assets").is_none() {
            if let Some(assets) = first_assets.and_then(Value::as_object) {
                let mut ia = Map::new();
                for (k, a) in assets {
                    let mut a = a.clone();
                    if let Some(o) = a.as_object_mut() {
                        o.remove("href");
                        o.remove("raster:bands");
                        o.remove("file:size");
                    }
                    ia.insert(k.clone(), a);
                }
                body["item_assets"] = Value::Object(ia);
            }
        }
        let href = format!("{root}/collections/{}", c.id);
        body["links"] = json!([
            Self::link("self", href.clone(), "application/json", None),
            Self::link("root", root.clone(), "application/json", None),
            Self::link("parent", root.clone(), "application/json", None),
            Self::link("items", format!("{href}/items"), GEOJSON, None),
            Self::link("http://www.opengis.net/def/rel/ogc/1.0/queryables", format!("{href}/queryables"), "application/schema+json", None),
        ]);
        body
    }

    /// An item as answered: links, and asset hrefs kept by Meridian made absolute.
    pub fn item(&self, item: &EoItem) -> Value {
        let root = self.root();
        let mut body = item.body.clone();
        if let Some(assets) = body.get_mut("assets").and_then(Value::as_object_mut) {
            for a in assets.values_mut() {
                if let Some(h) = a.get("href").and_then(Value::as_str) {
                    if h.starts_with('/') {
                        let abs = format!("{}{h}", self.base);
                        a["href"] = json!(abs);
                    }
                }
            }
        }
        let coll = format!("{root}/collections/{}", item.collection);
        body["links"] = json!([
            Self::link("self", format!("{coll}/items/{}", item.id), GEOJSON, None),
            Self::link("parent", coll.clone(), "application/json", None),
            Self::link("collection", coll, "application/json", None),
            Self::link("root", root, "application/json", None),
        ]);
        body
    }
}

/// The JSON Schema of what filters and sorts may name (the STAC filter extension's queryables).
pub fn queryables(href: &str, extra: &[(String, &'static str)]) -> Value {
    let mut props = json!({
        "id": {"description": "Item id", "type": "string"},
        "collection": {"description": "Collection id", "type": "string"},
        "geometry": {"description": "Footprint", "$ref": "https://geojson.org/schema/Geometry.json"},
        "datetime": {"description": "Acquisition time", "type": "string", "format": "date-time"},
        "start_datetime": {"type": "string", "format": "date-time"},
        "end_datetime": {"type": "string", "format": "date-time"},
        "eo:cloud_cover": {"description": "Cloud cover (%)", "type": "number", "minimum": 0, "maximum": 100},
        "platform": {"type": "string"},
        "constellation": {"type": "string"},
        "instruments": {"type": "array", "items": {"type": "string"}},
        "gsd": {"description": "Ground sample distance (m)", "type": "number"},
        "proj:epsg": {"type": "integer"},
        "view:off_nadir": {"type": "number"},
        "view:sun_azimuth": {"type": "number"},
        "view:sun_elevation": {"type": "number"},
    });
    if let Some(map) = props.as_object_mut() {
        for (name, kind) in extra {
            map.entry(name.clone()).or_insert_with(|| json!({"type": kind}));
        }
    }
    json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$id": href,
        "type": "object",
        "title": "Queryables",
        "properties": props,
        "additionalProperties": true,
    })
}
