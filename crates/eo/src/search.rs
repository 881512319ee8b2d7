//! STAC API Item Search: the parameters as `GET` query strings and `POST` bodies carry them
//! (core, Filter, Sort and Fields extensions), checked into one [`Search`], and the continuation
//! token of `next` links (a keyset over the search order, never a deep offset).

use crate::stac::parse_instant;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use geo::Geometry;
use meridian_core::error::FieldError;
use meridian_features::cql2::{self, Expr, Limits as CqlLimits};
use meridian_features::geometry::{self, Rules};
use meridian_store::eo::{default_sort, ItemSort, SortField};
use serde_json::{json, Map, Value};

/// Most collections or ids one search may name.
pub const MAX_LIST: usize = 1_000;

/// A checked item search.
#[derive(Clone, Debug, Default)]
pub struct Search {
    pub collections: Vec<String>,
    pub ids: Vec<String>,
    /// WGS84 box; `min_x > max_x` crosses the antimeridian.
    pub bbox: Option<[f64; 4]>,
    pub intersects: Option<Geometry<f64>>,
    /// Items whose time meets [start, end] (milliseconds, inclusive).
    pub time: Option<(i64, i64)>,
    pub filter: Option<Expr>,
    pub sort: Vec<ItemSort>,
    pub fields: Fields,
    /// `None`: the configured default.
    pub limit: Option<u32>,
    pub token: Option<Token>,
}

/// The Fields extension: dotted paths to keep and to drop.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fields {
    pub include: Vec<String>,
    pub exclude: Vec<String>,
}

impl Fields {
    /// Whether the documents are answered whole.
    pub fn is_empty(&self) -> bool {
        self.include.is_empty() && self.exclude.is_empty()
    }

    /// Applies the fields to an item document. With `include`, only the included paths stay
    /// (plus `type`, `stac_version`, `id`, `collection` and `links`, which every item keeps);
    /// `exclude` then removes paths, except where an included path is the same or lies within
    /// (`-properties,+properties.eo:cloud_cover` keeps that one property).
    pub fn apply(&self, doc: Value) -> Value {
        let mut out = if self.include.is_empty() {
            doc
        } else {
            let mut kept = Map::new();
            for key in ["type", "stac_version", "id", "collection", "links"] {
                if let Some(v) = doc.get(key) {
                    kept.insert(key.to_owned(), v.clone());
                }
            }
            let mut kept = Value::Object(kept);
            for path in &self.include {
                if let Some(v) = get_path(&doc, path) {
                    set_path(&mut kept, path, v.clone());
                }
            }
            kept
        };
        for path in &self.exclude {
            let inner = format!("{path}.");
            if !self.include.iter().any(|i| i == path || i.starts_with(&inner)) {
                remove_path(&mut out, path);
            }
        }
        out
    }
}

fn get_path<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    let mut cur = v;
    let mut rest = path;
    loop {
        if let Some(found) = cur.get(rest) {
            return Some(found);
        }
        let (head, tail) = rest.split_once('.')?;
        cur = cur.get(head)?;
        rest = tail;
    }
}

fn set_path(v: &mut Value, path: &str, value: Value) {
    match path.split_once('.') {
        Some((head, tail)) if head == "properties" || head == "assets" => {
            if !v.get(head).is_some_and(Value::is_object) {
                v[head] = json!({});
            }
            if let Some(inner) = v.get_mut(head) {
                inner[tail] = value;
            }
        }
        Some((head, tail)) => {
            if !v.get(head).is_some_and(Value::is_object) {
                v[head] = json!({});
            }
            if let Some(inner) = v.get_mut(head) {
                set_path(inner, tail, value);
            }
        }
        None => v[path] = value,
    }
}

fn remove_path(v: &mut Value, path: &str) {
    if let Some(o) = v.as_object_mut() {
        if o.remove(path).is_some() {
            return;
        }
    }
    if let Some((head, tail)) = path.split_once('.') {
        if let Some(inner) = v.get_mut(head) {
            remove_path(inner, tail);
        }
    }
}

/// Where the next page starts: the sort keys' values and `seq` of the last item answered, and
/// how many matches came before the next page.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub values: Vec<Value>,
    pub seq: i64,
    pub offset: u64,
}

impl Token {
    /// The text form used in `next` links.
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(json!({"v": self.values, "s": self.seq, "o": self.offset}).to_string())
    }

    /// Reads a token; `None` when it is not one.
    pub fn decode(text: &str) -> Option<Self> {
        if text.len() > 8192 {
            return None;
        }
        let bytes = URL_SAFE_NO_PAD.decode(text.trim_start_matches("next:")).ok()?;
        let v: Value = serde_json::from_slice(&bytes).ok()?;
        Some(Self {
            values: v.get("v")?.as_array()?.clone(),
            seq: v.get("s")?.as_i64()?,
            offset: v.get("o")?.as_u64()?,
        })
    }
}

fn bad(param: &str, code: &str, detail: impl Into<String>) -> FieldError {
    FieldError::new(format!("/{param}"), code, detail)
}

/// Parses a `bbox` of 4 or 6 numbers into a WGS84 box.
pub fn parse_bbox(values: &[f64]) -> Result<[f64; 4], String> {
    let b = match values.len() {
        4 => [values[0], values[1], values[2], values[3]],
        6 => [values[0], values[1], values[3], values[4]],
        n => return Err(format!("a box is 4 or 6 numbers, not {n}")),
    };
    if b.iter().any(|v| !v.is_finite()) {
        return Err("box coordinates are finite numbers".into());
    }
    if b[1] > b[3] {
        return Err("the box's south edge is north of its north edge".into());
    }
    if b[0] < -180.0 || b[2] > 180.0 || b[1] < -90.0 || b[3] > 90.0 {
        return Err("a WGS84 box lies within -180..180 and -90..90".into());
    }
    Ok(b)
}

/// The WGS84 boxes a search box stands for: two when it crosses the antimeridian.
pub fn boxes(b: [f64; 4]) -> Vec<[f64; 4]> {
    if b[0] > b[2] {
        vec![[b[0], b[1], 180.0, b[3]], [-180.0, b[1], b[2], b[3]]]
    } else {
        vec![b]
    }
}

/// One end of a `datetime` interval: `None` when open (`..` or empty).
fn interval_end(text: &str) -> Result<Option<i64>, String> {
    let t = text.trim();
    if t.is_empty() || t == ".." {
        return Ok(None);
    }
    if let Some(ms) = parse_instant(t) {
        return Ok(Some(ms));
    }
    Err(format!("{t} is not an RFC 3339 date and time"))
}

/// Parses `datetime`: an instant, or an interval `start/end` with `..` (or nothing) for an open end.
pub fn parse_datetime(text: &str) -> Result<(i64, i64), String> {
    let (start, end) = match text.split_once('/') {
        Some((a, b)) => {
            let s = interval_end(a)?;
            let e = interval_end(b)?;
            if s.is_none() && e.is_none() {
                return Err("an interval needs at least one end".into());
            }
            (s.unwrap_or(i64::MIN), e.unwrap_or(i64::MAX))
        }
        None => {
            let t = text.trim();
            let s = interval_end(t)?.ok_or("an instant or an interval start/end")?;
            (s, s)
        }
    };
    if start > end {
        return Err("the interval ends before it starts".into());
    }
    Ok((start, end))
}

/// A sort key by name (`datetime`, `id`, `collection`, or a property, `properties.` optional).
pub fn sort_field(name: &str) -> Result<SortField, String> {
    let n = name.trim().strip_prefix("properties.").unwrap_or(name.trim());
    Ok(match n {
        "datetime" | "start_datetime" => SortField::Datetime,
        "id" => SortField::Id,
        "collection" => SortField::Collection,
        "" => return Err("an empty sort key".into()),
        p if p.len() <= 128
            && p.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':' | b'.')) =>
        {
            SortField::Property(p.to_owned())
        }
        p => return Err(format!("{p} is not a property name")),
    })
}

/// Parses a `sortby` list as `GET` carries it: `+datetime,-eo:cloud_cover` (no sign is ascending).
pub fn parse_sortby_text(text: &str) -> Result<Vec<ItemSort>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (descending, name) = match part.as_bytes()[0] {
            b'-' => (true, &part[1..]),
            b'+' => (false, &part[1..]),
            _ => (false, part),
        };
        out.push(ItemSort { field: sort_field(name)?, descending });
    }
    finish_sort(out)
}

fn finish_sort(mut keys: Vec<ItemSort>) -> Result<Vec<ItemSort>, String> {
    if keys.len() > 8 {
        return Err("at most 8 sort keys".into());
    }
    if keys.is_empty() {
        return Ok(default_sort());
    }
    // The id breaks ties between items of the same keys, so pages never overlap.
    if !keys.iter().any(|k| k.field == SortField::Id) {
        keys.push(ItemSort { field: SortField::Id, descending: false });
    }
    Ok(keys)
}

fn parse_filter(text: Option<&str>, json_value: Option<&Value>, lang: Option<&str>) -> Result<Expr, String> {
    let limits = CqlLimits::default();
    let expr = match (lang.map(str::trim), text, json_value) {
        (Some("cql2-json"), Some(t), _) => cql2::parse_json_text_with(t, &limits),
        (Some("cql2-json") | None, None, Some(v)) => cql2::parse_json_with(v, &limits),
        (Some("cql2-text") | None, Some(t), _) => cql2::parse_text_with(t, &limits),
        (Some("cql2-text"), None, Some(_)) => {
            return Err("filter-lang cql2-text takes the filter as a string".into());
        }
        (Some(other), _, _) => return Err(format!("filter-lang {other} is not supported; use cql2-text or cql2-json")),
        (None, None, None) => return Err("no filter".into()),
    };
    expr.map_err(|e| e.0)
}

fn list(text: &str) -> Vec<String> {
    text.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect()
}

fn limit_of(v: i64, param: &str) -> Result<u32, FieldError> {
    if v < 1 {
        return Err(bad(param, "out_of_range", "limit is at least 1"));
    }
    Ok(u32::try_from(v).unwrap_or(u32::MAX))
}

fn geometry_of(v: &Value, param: &str) -> Result<Geometry<f64>, Vec<FieldError>> {
    geometry::parse(v, &format!("/{param}"), Rules { areal_only: false, geographic: true }).map(|g| g.geo)
}

/// The parameters a `GET /search` (or an items list) may carry.
pub const GET_PARAMS: &[&str] = &[
    "bbox",
    "intersects",
    "datetime",
    "collections",
    "ids",
    "limit",
    "filter",
    "filter-lang",
    "filter-crs",
    "sortby",
    "fields",
    "token",
];

impl Search {
    /// From the query string of `GET /search` (`items` lists pass `allow_collections = false`).
    pub fn from_query(pairs: &[(String, String)], allow_collections: bool) -> Result<Self, Vec<FieldError>> {
        let mut s = Search::default();
        let mut errors = Vec::new();
        let mut filter_text = None;
        let mut filter_lang = None;
        for (k, v) in pairs {
            if v.is_empty() {
                continue;
            }
            match k.as_str() {
                "bbox" => {
                    let nums: Result<Vec<f64>, _> = v.split(',').map(|n| n.trim().parse::<f64>()).collect();
                    match nums
                        .map_err(|_| "a box is 4 or 6 comma-separated numbers".to_owned())
                        .and_then(|n| parse_bbox(&n))
                    {
                        Ok(b) => s.bbox = Some(b),
                        Err(e) => errors.push(bad("bbox", "invalid_bbox", e)),
                    }
                }
                "intersects" => match serde_json::from_str::<Value>(v) {
                    Ok(g) => match geometry_of(&g, "intersects") {
                        Ok(g) => s.intersects = Some(g),
                        Err(mut e) => errors.append(&mut e),
                    },
                    Err(_) => errors.push(bad("intersects", "invalid_geometry", "a GeoJSON geometry")),
                },
                "datetime" => match parse_datetime(v) {
                    Ok(t) => s.time = Some(t),
                    Err(e) => errors.push(bad("datetime", "invalid_datetime", e)),
                },
                "collections" if allow_collections => s.collections = list(v),
                "ids" => s.ids = list(v),
                "limit" => match v.trim().parse::<i64>() {
                    Ok(n) => match limit_of(n, "limit") {
                        Ok(n) => s.limit = Some(n),
                        Err(e) => errors.push(e),
                    },
                    Err(_) => errors.push(bad("limit", "invalid_limit", "limit is a whole number")),
                },
                "filter" => filter_text = Some(v.clone()),
                "filter-lang" => filter_lang = Some(v.clone()),
                "filter-crs" => {
                    if !is_crs84(v) {
                        errors.push(bad("filter-crs", "unsupported_crs", "filters are in CRS84 (OGC:CRS84)"));
                    }
                }
                "sortby" => match parse_sortby_text(v) {
                    Ok(k) => s.sort = k,
                    Err(e) => errors.push(bad("sortby", "invalid_sortby", e)),
                },
                "fields" => {
                    for f in list(v) {
                        match f.strip_prefix('-') {
                            Some(x) => s.fields.exclude.push(x.to_owned()),
                            None => s.fields.include.push(f.trim_start_matches('+').to_owned()),
                        }
                    }
                }
                "token" => match Token::decode(v) {
                    Some(t) => s.token = Some(t),
                    None => errors.push(bad("token", "invalid_token", "not a token of this API")),
                },
                other => errors.push(bad(
                    other,
                    "unknown_parameter",
                    format!("unknown parameter {other}; known: {}", GET_PARAMS.join(", ")),
                )),
            }
        }
        if let Some(t) = filter_text {
            match parse_filter(Some(&t), None, filter_lang.as_deref()) {
                Ok(e) => s.filter = Some(e),
                Err(e) => errors.push(bad("filter", "invalid_filter", e)),
            }
        }
        s.finish(errors)
    }

    /// From the JSON body of `POST /search`.
    pub fn from_json(body: &Value) -> Result<Self, Vec<FieldError>> {
        let Some(obj) = body.as_object() else {
            return Err(vec![FieldError::new("", "invalid_type", "a search is a JSON object")]);
        };
        let mut s = Search::default();
        let mut errors = Vec::new();
        let strings = |v: &Value, name: &str, errors: &mut Vec<FieldError>| -> Vec<String> {
            // One string is taken as a comma-separated list, as in GET.
            if let Some(one) = v.as_str() {
                return list(one);
            }
            match v.as_array() {
                Some(a) if a.iter().all(Value::is_string) => {
                    a.iter().filter_map(Value::as_str).map(str::to_owned).collect()
                }
                _ => {
                    errors.push(bad(name, "invalid_type", format!("{name} is an array of strings")));
                    Vec::new()
                }
            }
        };
        for (k, v) in obj {
            if v.is_null() {
                continue;
            }
            match k.as_str() {
                "bbox" => {
                    let nums: Option<Vec<f64>> = v.as_array().map(|a| a.iter().filter_map(Value::as_f64).collect());
                    let len = v.as_array().map(Vec::len).unwrap_or(0);
                    match nums
                        .filter(|n| n.len() == len)
                        .ok_or("a box is an array of 4 or 6 numbers".to_owned())
                        .and_then(|n| parse_bbox(&n))
                    {
                        Ok(b) => s.bbox = Some(b),
                        Err(e) => errors.push(bad("bbox", "invalid_bbox", e)),
                    }
                }
                "intersects" => match geometry_of(v, "intersects") {
                    Ok(g) => s.intersects = Some(g),
                    Err(mut e) => errors.append(&mut e),
                },
                "datetime" => match v.as_str().map(parse_datetime) {
                    Some(Ok(t)) => s.time = Some(t),
                    Some(Err(e)) => errors.push(bad("datetime", "invalid_datetime", e)),
                    None => errors.push(bad("datetime", "invalid_datetime", "datetime is a string")),
                },
                "collections" => s.collections = strings(v, "collections", &mut errors),
                "ids" => s.ids = strings(v, "ids", &mut errors),
                "limit" => match v.as_i64() {
                    Some(n) => match limit_of(n, "limit") {
                        Ok(n) => s.limit = Some(n),
                        Err(e) => errors.push(e),
                    },
                    None => errors.push(bad("limit", "invalid_limit", "limit is a whole number")),
                },
                "filter" => {}
                "filter-lang" | "filter_lang" => {
                    if !matches!(v.as_str().map(str::trim), Some("cql2-text" | "cql2-json")) {
                        errors.push(bad(k, "invalid_filter", "filter-lang is cql2-text or cql2-json"));
                    }
                }
                "filter-crs" | "filter_crs" => {
                    if !v.as_str().is_some_and(is_crs84) {
                        errors.push(bad(k, "unsupported_crs", "filters are in CRS84 (OGC:CRS84)"));
                    }
                }
                "sortby" => match v {
                    Value::String(t) => match parse_sortby_text(t) {
                        Ok(keys) => s.sort = keys,
                        Err(e) => errors.push(bad("sortby", "invalid_sortby", e)),
                    },
                    Value::Array(a) => {
                        let mut keys = Vec::new();
                        for (i, key) in a.iter().enumerate() {
                            let field = key.get("field").and_then(Value::as_str);
                            let dir = key.get("direction").and_then(Value::as_str).unwrap_or("asc");
                            match (field.map(sort_field), dir.to_ascii_lowercase().as_str()) {
                                (Some(Ok(f)), "asc" | "desc") => {
                                    keys.push(ItemSort { field: f, descending: dir.eq_ignore_ascii_case("desc") })
                                }
                                (Some(Err(e)), _) => {
                                    errors.push(bad(&format!("sortby/{i}/field"), "invalid_sortby", e))
                                }
                                (None, _) => errors.push(bad(
                                    &format!("sortby/{i}"),
                                    "invalid_sortby",
                                    "{\"field\": ..., \"direction\": \"asc\"|\"desc\"}",
                                )),
                                (_, _) => errors.push(bad(
                                    &format!("sortby/{i}/direction"),
                                    "invalid_sortby",
                                    "direction is asc or desc",
                                )),
                            }
                        }
                        match finish_sort(keys) {
                            Ok(k) => s.sort = k,
                            Err(e) => errors.push(bad("sortby", "invalid_sortby", e)),
                        }
                    }
                    _ => errors.push(bad("sortby", "invalid_sortby", "sortby is an array of {field, direction}")),
                },
                "fields" if !v.is_object() => errors.push(bad(
                    "fields",
                    "invalid_type",
                    "fields is an object: {\"include\": [...], \"exclude\": [...]}",
                )),
                "fields" => {
                    // A null list is an absent one, as null members are everywhere in the body.
                    let list = |key: &str, errors: &mut Vec<FieldError>| {
                        v.get(key)
                            .filter(|x| !x.is_null())
                            .map(|x| strings(x, &format!("fields/{key}"), errors))
                            .unwrap_or_default()
                    };
                    let include = list("include", &mut errors);
                    let exclude = list("exclude", &mut errors);
                    s.fields = Fields { include, exclude };
                }
                "token" => match v.as_str().and_then(Token::decode) {
                    Some(t) => s.token = Some(t),
                    None => errors.push(bad("token", "invalid_token", "not a token of this API")),
                },
                "query" => {
                    errors.push(bad("query", "unsupported", "the query extension is not supported; use filter (CQL2)"))
                }
                "context" | "conf" | "merge" => {}
                other => errors.push(bad(other, "unknown_field", format!("unknown member {other}"))),
            }
        }
        let lang = obj.get("filter-lang").or_else(|| obj.get("filter_lang")).and_then(Value::as_str);
        match obj.get("filter") {
            None | Some(Value::Null) => {}
            Some(Value::String(t)) => match parse_filter(Some(t), None, lang.or(Some("cql2-text"))) {
                Ok(e) => s.filter = Some(e),
                Err(e) => errors.push(bad("filter", "invalid_filter", e)),
            },
            Some(v) => match parse_filter(None, Some(v), lang) {
                Ok(e) => s.filter = Some(e),
                Err(e) => errors.push(bad("filter", "invalid_filter", e)),
            },
        }
        s.finish(errors)
    }

    fn finish(mut self, mut errors: Vec<FieldError>) -> Result<Self, Vec<FieldError>> {
        if self.collections.len() > MAX_LIST {
            errors.push(bad("collections", "too_many", format!("at most {MAX_LIST} collections")));
        }
        if self.ids.len() > MAX_LIST {
            errors.push(bad("ids", "too_many", format!("at most {MAX_LIST} ids")));
        }
        if self.bbox.is_some() && self.intersects.is_some() {
            errors.push(bad("intersects", "exclusive", "send bbox or intersects, not both"));
        }
        if self.sort.is_empty() {
            self.sort = default_sort();
        }
        if let Some(t) = &self.token {
            if t.values.len() != self.sort.len() {
                errors.push(bad("token", "invalid_token", "the token belongs to a search with another order"));
            }
        }
        if errors.is_empty() {
            Ok(self)
        } else {
            Err(errors)
        }
    }
}

fn is_crs84(v: &str) -> bool {
    matches!(
        v.trim(),
        "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
            | "OGC:CRS84"
            | "CRS84"
            | "EPSG:4326"
            | "http://www.opengis.net/def/crs/EPSG/0/4326"
    )
}

#[cfg(test)]
mod body_tests {
    use super::Search;
    use serde_json::json;

    fn pointers(body: serde_json::Value) -> Vec<String> {
        match Search::from_json(&body) {
            Ok(_) => Vec::new(),
            Err(errors) => errors.into_iter().map(|e| e.pointer).collect(),
        }
    }

    #[test]
    fn members_of_the_wrong_shape_are_refused_even_when_unused() {
        assert_eq!(pointers(json!({"filter-lang": 7})), ["/filter-lang"]);
        assert_eq!(pointers(json!({"filter-lang": "cql3"})), ["/filter-lang"]);
        assert_eq!(pointers(json!({"fields": [null]})), ["/fields"]);
        assert!(pointers(json!({"filter-lang": "cql2-json", "fields": {"include": null, "exclude": "id"}})).is_empty());
        assert!(pointers(json!({"filter-lang": null, "fields": null, "ids": "a,b", "collections": ["c"]})).is_empty());
    }
}
