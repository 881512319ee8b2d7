//! Requests read from KVP query strings and XML bodies into one model.

use super::xml::{self, Element};
use super::{WfsLimits, GET_FEATURE_BY_ID};
use crate::kvp::Kvp;
use crate::ows::{ExceptionCode, OgcError, OgcResult};

/// The versions this service speaks.
pub const VERSIONS: &[&str] = &["2.0.0", "2.0.2"];

/// A filter as sent: FES XML text (KVP) or an element of a POST body.
#[derive(Clone, Debug)]
pub enum FilterSource {
    Text(String),
    Element(Element),
}

/// The output format of features.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Gml,
    Json,
}

/// A GetFeature or GetPropertyValue request (one query).
#[derive(Clone, Debug)]
pub struct FeatureRequest {
    /// The type name as sent; `None` when a resource id or stored query decides it.
    pub type_name: Option<String>,
    pub filter: Option<FilterSource>,
    /// KVP `BBOX` (`minx,miny,maxx,maxy[,crs]`).
    pub bbox: Option<String>,
    pub resource_ids: Option<Vec<String>>,
    /// (property, descending).
    pub sortby: Vec<(String, bool)>,
    pub property_names: Option<Vec<String>>,
    pub srs_name: Option<String>,
    pub count: Option<u64>,
    pub start_index: u64,
    pub hits: bool,
    pub format: Format,
    /// `GetFeatureById`: the bare feature is answered.
    pub by_id: bool,
    /// The KVP parameters as sent (names upper-cased), for `next`/`previous` links; none for POST.
    pub kvp: Option<Vec<(String, String)>>,
}

/// A request.
#[derive(Clone, Debug)]
pub enum Operation {
    GetCapabilities { sections: Option<Vec<String>> },
    DescribeFeatureType { type_names: Option<Vec<String>> },
    GetFeature(FeatureRequest),
    GetPropertyValue { request: FeatureRequest, value_reference: String },
    ListStoredQueries,
    DescribeStoredQueries { ids: Option<Vec<String>> },
    Transaction(Element),
}

fn check_version(version: Option<&str>) -> OgcResult<()> {
    match version {
        None => Err(OgcError::missing("version")),
        Some(v) if VERSIONS.contains(&v.trim()) => Ok(()),
        Some(v) => {
            Err(OgcError::invalid("version", format!("version {v} is not supported; this service speaks 2.0.0")))
        }
    }
}

fn check_service(service: Option<&str>) -> OgcResult<()> {
    match service {
        None => Err(OgcError::missing("service")),
        Some(s) if s.trim().eq_ignore_ascii_case("WFS") => Ok(()),
        Some(s) => Err(OgcError::invalid("service", format!("service {s} is not WFS"))),
    }
}

const UNSUPPORTED: &[&str] =
    &["LockFeature", "GetFeatureWithLock", "CreateStoredQuery", "DropStoredQuery", "GetGmlObject"];

fn unknown_request(name: &str) -> OgcError {
    if UNSUPPORTED.iter().any(|u| u.eq_ignore_ascii_case(name)) {
        OgcError::not_supported(name, format!("{name} is not supported by this service"))
    } else {
        OgcError::not_supported(name, format!("{name} is not a WFS 2.0 operation"))
    }
}

fn list(v: &str) -> Vec<String> {
    v.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect()
}

fn format_of(v: Option<&str>) -> OgcResult<Format> {
    let Some(v) = v else { return Ok(Format::Gml) };
    let lower = v.to_ascii_lowercase().replace(' ', "");
    if lower.starts_with("application/gml+xml") || lower.contains("gml/3.2") || lower == "gml32" || lower == "gml3" {
        return Ok(Format::Gml);
    }
    if matches!(lower.as_str(), "application/json" | "application/geo+json" | "json" | "geojson") {
        return Ok(Format::Json);
    }
    Err(OgcError::invalid(
        "outputFormat",
        format!(
            "{v} is not an output format of this service; use application/gml+xml; version=3.2 or application/json"
        ),
    ))
}

fn number(v: Option<&str>, param: &str) -> OgcResult<Option<u64>> {
    v.map(|s| {
        s.trim()
            .parse::<u64>()
            .map_err(|_| OgcError::invalid(param, format!("{param} must be a non-negative integer, not `{s}`")))
    })
    .transpose()
}

fn result_type(v: Option<&str>) -> OgcResult<bool> {
    match v.map(|s| s.trim().to_ascii_lowercase()) {
        None => Ok(false),
        Some(s) if s == "results" => Ok(false),
        Some(s) if s == "hits" => Ok(true),
        Some(s) => Err(OgcError::invalid("resultType", format!("resultType is results or hits, not `{s}`"))),
    }
}

/// Parses `lot ASC,area_m2 DESC` (also `lot A`, `lot+D`, `-lot`).
pub fn sortby(v: &str) -> OgcResult<Vec<(String, bool)>> {
    let mut out = Vec::new();
    for item in v.split(',') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let mut parts = item.split_whitespace();
        let name = parts.next().unwrap_or("");
        let (name, desc) = match parts.next().map(str::to_ascii_uppercase).as_deref() {
            None => (name, false),
            Some("ASC") | Some("A") => (name, false),
            Some("DESC") | Some("D") => (name, true),
            Some(o) => return Err(OgcError::invalid("sortBy", format!("`{o}` is not ASC or DESC"))),
        };
        if parts.next().is_some() {
            return Err(OgcError::invalid("sortBy", format!("`{item}` is not `property [ASC|DESC]`")));
        }
        out.push((super::fes::property_name(name), desc));
    }
    Ok(out)
}

/// Reads `(a,b)(c)` lists of the KVP encoding, or a plain list as one group.
fn groups(v: &str) -> Vec<Vec<String>> {
    let t = v.trim();
    if t.starts_with('(') {
        t.split(')').map(|g| g.trim().trim_start_matches('(')).filter(|g| !g.is_empty()).map(list).collect()
    } else {
        vec![list(t)]
    }
}

/// Reads a KVP request.
pub fn from_kvp(raw: &str, limits: &WfsLimits) -> OgcResult<Operation> {
    let kvp = Kvp::parse(raw, limits.kvp)?.unique()?;
    let request = kvp.required("request")?.trim().to_owned();
    check_service(kvp.given("service"))?;
    if request.eq_ignore_ascii_case("GetCapabilities") {
        if let Some(accept) = kvp.given("acceptversions") {
            if !list(accept).iter().any(|v| VERSIONS.contains(&v.as_str())) {
                return Err(OgcError::at(
                    ExceptionCode::VersionNegotiationFailed,
                    "acceptVersions",
                    format!("none of {accept} is spoken here; this service speaks 2.0.0"),
                ));
            }
        }
        return Ok(Operation::GetCapabilities { sections: kvp.given("sections").map(list) });
    }
    check_version(kvp.given("version"))?;
    match request.to_ascii_lowercase().as_str() {
        "describefeaturetype" => Ok(Operation::DescribeFeatureType {
            type_names: kvp.given("typenames").or_else(|| kvp.given("typename")).map(list),
        }),
        "liststoredqueries" => Ok(Operation::ListStoredQueries),
        "describestoredqueries" => Ok(Operation::DescribeStoredQueries { ids: kvp.given("storedquery_id").map(list) }),
        "getfeature" => Ok(Operation::GetFeature(feature_request_kvp(&kvp)?)),
        "getpropertyvalue" => {
            let value_reference = kvp.required("valuereference")?.trim().to_owned();
            Ok(Operation::GetPropertyValue { request: feature_request_kvp(&kvp)?, value_reference })
        }
        "transaction" => Err(OgcError::not_supported(
            "Transaction",
            "Transaction is offered in the XML encoding only: POST a wfs:Transaction document",
        )),
        _ => Err(unknown_request(&request)),
    }
}

fn feature_request_kvp(kvp: &Kvp) -> OgcResult<FeatureRequest> {
    let mut r = FeatureRequest {
        type_name: None,
        filter: None,
        bbox: kvp.given("bbox").map(str::to_owned),
        resource_ids: kvp.given("resourceid").map(list),
        sortby: kvp.given("sortby").map(sortby).transpose()?.unwrap_or_default(),
        property_names: None,
        srs_name: kvp.given("srsname").map(str::to_owned),
        count: number(kvp.given("count").or_else(|| kvp.given("maxfeatures")), "count")?,
        start_index: number(kvp.given("startindex"), "startIndex")?.unwrap_or(0),
        hits: result_type(kvp.given("resulttype"))?,
        format: format_of(kvp.given("outputformat"))?,
        by_id: false,
        kvp: Some(kvp.pairs().to_vec()),
    };
    if let Some(lang) = kvp.given("filter_language") {
        if !lang.contains("OGC-FES:Filter") && !lang.eq_ignore_ascii_case("urn:ogc:def:queryLanguage:OGC-FES:Filter") {
            return Err(OgcError::invalid(
                "filter_language",
                format!("{lang} is not supported; use urn:ogc:def:queryLanguage:OGC-FES:Filter"),
            ));
        }
    }
    if let Some(id) = kvp.given("storedquery_id") {
        if id.trim() != GET_FEATURE_BY_ID {
            return Err(OgcError::invalid("storedQuery_Id", format!("{id} is not a stored query of this service")));
        }
        let fid = kvp.required("id")?;
        r.resource_ids = Some(vec![fid.trim().to_owned()]);
        r.by_id = true;
        return Ok(r);
    }
    let types = kvp.given("typenames").or_else(|| kvp.given("typename")).map(groups);
    match types.as_deref() {
        None if r.resource_ids.is_some() => {}
        None => return Err(OgcError::missing("typeNames")),
        Some([one]) if one.len() == 1 => r.type_name = Some(one[0].clone()),
        Some([one]) if one.len() > 1 => {
            return Err(OgcError::invalid("typeNames", "joins are not supported: name one feature type per query"))
        }
        Some(_) => return Err(OgcError::invalid("typeNames", "one query per request: name one feature type")),
    }
    if let Some(p) = kvp.given("propertyname") {
        let g = groups(p);
        r.property_names = g.into_iter().next().filter(|l| !l.iter().any(|n| n == "*"));
    }
    let exclusive = [kvp.given("filter").is_some(), r.bbox.is_some(), r.resource_ids.is_some()];
    if exclusive.iter().filter(|b| **b).count() > 1 {
        return Err(OgcError::invalid("filter", "FILTER, BBOX and RESOURCEID exclude each other"));
    }
    if let Some(f) = kvp.given("filter") {
        let g = f.trim();
        // `(<Filter>...</Filter>)` for several queries: one query, so one filter.
        let g = g.strip_prefix('(').and_then(|s| s.strip_suffix(')')).unwrap_or(g);
        r.filter = Some(FilterSource::Text(g.to_owned()));
    }
    Ok(r)
}

fn attr_number(el: &Element, name: &str) -> OgcResult<Option<u64>> {
    number(el.attr(name), name)
}

/// Reads an XML request.
pub fn from_xml(body: &str, limits: &WfsLimits) -> OgcResult<Operation> {
    let root = xml::parse(body, &limits.xml).map_err(|e| OgcError::parsing("request", e.0))?;
    let name = root.name.clone();
    check_service(root.attr("service"))?;
    if name == "GetCapabilities" {
        if let Some(av) = root.child("AcceptVersions") {
            let versions: Vec<&str> = av.children_named("Version").map(Element::trimmed).collect();
            if !versions.is_empty() && !versions.iter().any(|v| VERSIONS.contains(v)) {
                return Err(OgcError::at(
                    ExceptionCode::VersionNegotiationFailed,
                    "AcceptVersions",
                    "this service speaks 2.0.0",
                ));
            }
        }
        let sections =
            root.child("Sections").map(|s| s.children_named("Section").map(|x| x.trimmed().to_owned()).collect());
        return Ok(Operation::GetCapabilities { sections });
    }
    check_version(root.attr("version"))?;
    match name.as_str() {
        "DescribeFeatureType" => {
            let names: Vec<String> = root.children_named("TypeName").map(|t| t.trimmed().to_owned()).collect();
            Ok(Operation::DescribeFeatureType { type_names: (!names.is_empty()).then_some(names) })
        }
        "ListStoredQueries" => Ok(Operation::ListStoredQueries),
        "DescribeStoredQueries" => {
            let ids: Vec<String> = root.children_named("StoredQueryId").map(|t| t.trimmed().to_owned()).collect();
            Ok(Operation::DescribeStoredQueries { ids: (!ids.is_empty()).then_some(ids) })
        }
        "GetFeature" => Ok(Operation::GetFeature(feature_request_xml(&root)?)),
        "GetPropertyValue" => {
            let value_reference =
                root.attr("valueReference").ok_or_else(|| OgcError::missing("valueReference"))?.trim().to_owned();
            Ok(Operation::GetPropertyValue { request: feature_request_xml(&root)?, value_reference })
        }
        "Transaction" => Ok(Operation::Transaction(root)),
        other => Err(unknown_request(other)),
    }
}

fn feature_request_xml(root: &Element) -> OgcResult<FeatureRequest> {
    let mut r = FeatureRequest {
        type_name: None,
        filter: None,
        bbox: None,
        resource_ids: None,
        sortby: Vec::new(),
        property_names: None,
        srs_name: None,
        count: attr_number(root, "count")?.or(attr_number(root, "maxFeatures")?),
        start_index: attr_number(root, "startIndex")?.unwrap_or(0),
        hits: result_type(root.attr("resultType"))?,
        format: format_of(root.attr("outputFormat"))?,
        by_id: false,
        kvp: None,
    };
    let queries: Vec<&Element> =
        root.children.iter().filter(|c| c.name == "Query" || c.name == "StoredQuery").collect();
    let q = match queries.as_slice() {
        [one] => *one,
        [] => return Err(OgcError::missing("Query")),
        _ => return Err(OgcError::invalid("Query", "one query per request")),
    };
    if q.name == "StoredQuery" {
        let id = q.attr("id").ok_or_else(|| OgcError::missing("id"))?;
        if id.trim() != GET_FEATURE_BY_ID {
            return Err(OgcError::invalid("id", format!("{id} is not a stored query of this service")));
        }
        let fid = q
            .children_named("Parameter")
            .find(|p| p.attr("name").is_some_and(|n| n.eq_ignore_ascii_case("ID")))
            .map(|p| p.trimmed().to_owned())
            .ok_or_else(|| OgcError::missing("ID"))?;
        r.resource_ids = Some(vec![fid]);
        r.by_id = true;
        return Ok(r);
    }
    let types = q.attr("typeNames").or_else(|| q.attr("typeName")).ok_or_else(|| OgcError::missing("typeNames"))?;
    let names: Vec<&str> = types.split_whitespace().collect();
    match names.as_slice() {
        [one] => r.type_name = Some((*one).to_owned()),
        _ => return Err(OgcError::invalid("typeNames", "joins are not supported: name one feature type per query")),
    }
    r.srs_name = q.attr("srsName").map(str::to_owned);
    let props: Vec<String> = q.children_named("PropertyName").map(|p| p.trimmed().to_owned()).collect();
    if !props.is_empty() {
        r.property_names = Some(props);
    }
    if let Some(f) = q.child("Filter") {
        r.filter = Some(FilterSource::Element(f.clone()));
    }
    if let Some(s) = q.child("SortBy") {
        for p in s.children_named("SortProperty") {
            let name =
                p.child("ValueReference").or_else(|| p.child("PropertyName")).map(Element::trimmed).unwrap_or("");
            if name.is_empty() {
                return Err(OgcError::invalid("SortBy", "a SortProperty needs a ValueReference"));
            }
            let desc = match p.child("SortOrder").map(|o| o.trimmed().to_ascii_uppercase()).as_deref() {
                None | Some("ASC") => false,
                Some("DESC") => true,
                Some(o) => return Err(OgcError::invalid("SortBy", format!("`{o}` is not ASC or DESC"))),
            };
            r.sortby.push((super::fes::property_name(name), desc));
        }
    }
    Ok(r)
}
