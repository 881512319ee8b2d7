//! GetFeature and GetPropertyValue: the request becomes the feature service's [`ListQuery`], and
//! the answer is written one store page at a time (GML 3.2 or GeoJSON), so no answer is built as
//! one string larger than a page.

use super::fes::{self, FesContext};
use super::gml;
use super::request::{FeatureRequest, FilterSource, Format};
use super::{Body, Context, FeatureType, Response, WfsService, DEFAULT_CRS, GML32, GML_NS, JSON, NS, PREFIX, WFS_NS};
use crate::ows::{escape, ExceptionCode, OgcError, OgcResult, XSI_NS};
use crate::srs;
use meridian_collections::query::bbox_to_crs84;
use meridian_collections::{Cursor, FeatureService, ListQuery, Start};
use meridian_core::crs::{Crs, Transformer};
use meridian_core::id::AccountId;
use meridian_core::Timestamp;
use meridian_features::cql2::Expr;
use meridian_features::geometry::{self, Bbox};
use meridian_store::features::Feature;
use serde_json::{json, Map, Value};
use std::collections::VecDeque;
use std::fmt::Write;
use std::sync::Arc;

/// How one feature is written.
struct Writer {
    ty: FeatureType,
    format: Format,
    srs_name: String,
    transformer: Option<Transformer>,
    /// The properties written (schema order), and whether the geometry is.
    props: Vec<(String, &'static str)>,
    with_geometry: bool,
    /// GetPropertyValue: the property whose values are written.
    value_ref: Option<String>,
    written: u64,
}

fn scalar_text(v: &Value, kind: &str) -> Option<String> {
    match (kind, v) {
        (_, Value::Null) => None,
        ("number", Value::Number(n)) => Some(n.to_string()),
        ("number", _) => None,
        ("boolean", Value::Bool(b)) => Some(b.to_string()),
        ("boolean", _) => None,
        (_, Value::String(s)) => Some(s.clone()),
        (_, other) => Some(other.to_string()),
    }
}

impl Writer {
    fn geometry(&self, f: &Feature) -> Option<Value> {
        let g = f.geometry.as_ref()?;
        match &self.transformer {
            None => Some(g.clone()),
            Some(t) => geometry::map_positions(g, &mut |x, y| t.apply(x, y)),
        }
    }

    /// The geometry as GML writes it: a polygon of a multi-surface type as a one-member
    /// multipolygon, so that every feature matches the type DescribeFeatureType declares.
    fn gml_geometry(&self, f: &Feature) -> Option<Value> {
        let g = self.geometry(f)?;
        if self.ty.multi_surface() && g.get("type").and_then(Value::as_str) == Some("Polygon") {
            return Some(
                json!({"type": "MultiPolygon", "coordinates": [g.get("coordinates").cloned().unwrap_or(Value::Null)]}),
            );
        }
        Some(g)
    }

    fn value(&self, f: &Feature, name: &str) -> Option<Value> {
        if name == "updated_at" {
            return Some(Value::String(f.updated_at.to_rfc3339()));
        }
        f.properties.get(name).cloned()
    }

    /// One feature's element (no `wfs:member` around it).
    fn gml_feature(&self, out: &mut String, f: &Feature) {
        let name = &self.ty.name;
        let _ = write!(out, "<{PREFIX}:{name} gml:id=\"{}\">", escape(&f.id));
        if self.with_geometry {
            if let Some(g) = self.gml_geometry(f) {
                let _ = write!(out, "<{PREFIX}:geometry>");
                gml::write_geometry(out, &g, &format!("{}.geom", f.id), Some(&self.srs_name));
                let _ = write!(out, "</{PREFIX}:geometry>");
            }
        }
        for (p, kind) in &self.props {
            if let Some(text) = self.value(f, p).and_then(|v| scalar_text(&v, kind)) {
                let _ = write!(out, "<{PREFIX}:{p}>{}</{PREFIX}:{p}>", escape(&text));
            }
        }
        let _ = write!(out, "</{PREFIX}:{name}>");
    }

    fn json_feature(&self, f: &Feature) -> Value {
        let mut props = Map::new();
        let all = self.props.len() == self.ty.properties.len();
        if all {
            props = f.properties.clone();
        } else {
            for (p, _) in &self.props {
                if let Some(v) = f.properties.get(p) {
                    props.insert(p.clone(), v.clone());
                }
            }
        }
        if all || self.props.iter().any(|(p, _)| p == "updated_at") {
            props.insert("updated_at".into(), Value::String(f.updated_at.to_rfc3339()));
        }
        let geometry = if self.with_geometry { self.geometry(f).unwrap_or(Value::Null) } else { Value::Null };
        json!({"type": "Feature", "id": f.id, "geometry": geometry, "properties": props})
    }

    fn member(&mut self, out: &mut String, f: &Feature) {
        match (&self.value_ref, self.format) {
            (Some(vr), _) => {
                out.push_str("<wfs:member>");
                if vr == "geometry" {
                    match self.gml_geometry(f) {
                        Some(g) => gml::write_geometry(out, &g, &format!("{}.geom", f.id), Some(&self.srs_name)),
                        None => {
                            let _ = write!(out, "<{PREFIX}:geometry xsi:nil=\"true\"/>");
                        }
                    }
                } else if vr == "id" {
                    out.push_str(&escape(&f.id));
                } else {
                    let kind = self.props.iter().find(|(p, _)| p == vr).map(|(_, k)| *k).unwrap_or("string");
                    match self.value(f, vr).and_then(|v| scalar_text(&v, kind)) {
                        Some(t) => {
                            let _ = write!(out, "<{PREFIX}:{vr}>{}</{PREFIX}:{vr}>", escape(&t));
                        }
                        None => {
                            let _ = write!(out, "<{PREFIX}:{vr} xsi:nil=\"true\"/>");
                        }
                    }
                }
                out.push_str("</wfs:member>\n");
            }
            (None, Format::Gml) => {
                out.push_str("<wfs:member>");
                self.gml_feature(out, f);
                out.push_str("</wfs:member>\n");
            }
            (None, Format::Json) => {
                if self.written > 0 {
                    out.push_str(",\n");
                }
                out.push_str(&self.json_feature(f).to_string());
            }
        }
        self.written += 1;
    }
}

/// What the next chunk of a stream is.
enum Stage {
    Header(String),
    Pages,
    Footer(String),
    Done,
}

/// A GetFeature answer written page by page: the header with the counts, the features of each
/// store page, then the end of the document.
pub struct FeatureStream {
    features: Arc<FeatureService>,
    account: AccountId,
    query: ListQuery,
    page: u32,
    buffered: VecDeque<Feature>,
    next: Option<Cursor>,
    /// Features still to write, buffered ones included.
    remaining: u64,
    writer: Writer,
    stage: Stage,
    footer: String,
}

impl FeatureStream {
    /// The next piece of the document, `None` after the last.
    pub async fn next_chunk(&mut self) -> OgcResult<Option<String>> {
        loop {
            match std::mem::replace(&mut self.stage, Stage::Pages) {
                Stage::Header(h) => {
                    let mut out = h;
                    self.write_buffered(&mut out);
                    return Ok(Some(out));
                }
                Stage::Pages => {
                    if self.remaining > 0 && self.buffered.is_empty() {
                        if let Some(cursor) = self.next.take() {
                            let q = ListQuery {
                                limit: (self.remaining.min(u64::from(self.page))) as u32,
                                start: Start::Cursor(cursor),
                                ..self.query.clone()
                            };
                            let mut page = self
                                .features
                                .list(&self.account, &q)
                                .await
                                .map_err(|e| OgcError::from_features(e, "GetFeature"))?;
                            self.next = page.next;
                            if page.features.is_empty() {
                                self.remaining = 0;
                            }
                            let features =
                                page.take_features().map_err(|e| OgcError::from_features(e, "GetFeature"))?;
                            self.buffered.extend(features);
                        } else {
                            self.remaining = 0;
                        }
                    }
                    if self.remaining > 0 && !self.buffered.is_empty() {
                        let mut out = String::new();
                        self.write_buffered(&mut out);
                        return Ok(Some(out));
                    }
                    self.stage = Stage::Footer(std::mem::take(&mut self.footer));
                }
                Stage::Footer(f) => {
                    self.stage = Stage::Done;
                    return Ok(Some(f));
                }
                Stage::Done => {
                    self.stage = Stage::Done;
                    return Ok(None);
                }
            }
        }
    }

    fn write_buffered(&mut self, out: &mut String) {
        while self.remaining > 0 {
            let Some(f) = self.buffered.pop_front() else { break };
            self.writer.member(out, &f);
            self.remaining -= 1;
        }
    }
}

fn parse_bbox(text: &str) -> OgcResult<Bbox> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let (numbers, crs) = match parts.len() {
        4 | 6 => (parts.join(","), DEFAULT_CRS),
        5 | 7 => (
            parts[..parts.len() - 1].join(","),
            srs::parse(parts[parts.len() - 1]).map_err(|e| OgcError::invalid("bbox", format!("BBOX: {e}")))?,
        ),
        _ => return Err(OgcError::invalid("bbox", "BBOX is minx,miny,maxx,maxy with an optional CRS name")),
    };
    let b = Bbox::parse(&numbers).map_err(|e| OgcError::invalid("bbox", format!("BBOX: {e}")))?;
    let lonlat = bbox_to_crs84(b, crs).ok_or_else(|| {
        OgcError::invalid("bbox", format!("BBOX: the box is outside the domain of {}", srs::urn(crs)))
    })?;
    lonlat.check_lon_lat().map_err(|e| {
        OgcError::invalid(
            "bbox",
            format!("BBOX: {e} once in CRS84; EPSG:4326 (the default) is latitude first: minlat,minlon,maxlat,maxlon"),
        )
    })?;
    Ok(lonlat)
}

/// The selected properties and whether the geometry is one of them.
fn selection(ty: &FeatureType, names: &Option<Vec<String>>) -> OgcResult<(Vec<(String, &'static str)>, bool)> {
    let Some(names) = names else { return Ok((ty.properties.clone(), true)) };
    let wanted: Vec<String> = names.iter().map(|n| fes::property_name(n)).collect();
    for w in &wanted {
        if w != "geometry" && !ty.properties.iter().any(|(p, _)| p == w) {
            return Err(OgcError::invalid("propertyName", format!("`{w}` is not a property of {}", ty.qname())));
        }
    }
    let props = ty.properties.iter().filter(|(p, _)| wanted.contains(p)).cloned().collect();
    Ok((props, wanted.iter().any(|w| w == "geometry")))
}

fn link(ctx: &Context, kvp: &[(String, String)], start: u64, count: u64) -> String {
    let mut params: Vec<(&str, String)> = kvp
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "STARTINDEX" | "COUNT" | "MAXFEATURES" | "ACCESS_TOKEN"))
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    params.push(("STARTINDEX", start.to_string()));
    params.push(("COUNT", count.to_string()));
    let refs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
    ctx.url(&refs)
}

/// Finds the type holding the first of `ids`.
async fn type_of_ids(svc: &WfsService, account: &AccountId, ids: &[String]) -> OgcResult<Option<FeatureType>> {
    let types = svc.feature_types(account).await?;
    for t in types {
        for id in ids {
            if svc.features().feature(account, &t.collection.id, id).await.is_ok() {
                return Ok(Some(t));
            }
        }
    }
    Ok(None)
}

/// GetFeature (and GetPropertyValue with `value_ref`), in its phases: the feature type, the
/// writer (CRS, properties, value reference), a feature by id, the query, the first page and
/// the count, the envelope, and the stream of the rest.
pub async fn get_feature(
    svc: &WfsService,
    ctx: &Context,
    req: FeatureRequest,
    value_ref: Option<String>,
) -> OgcResult<Response> {
    let account = &ctx.account;
    if value_ref.is_some() && req.format == Format::Json {
        return Err(OgcError::invalid("outputFormat", "GetPropertyValue answers in XML only"));
    }
    let ty = resolve_type(svc, account, &req).await?;
    let (writer, crs) = writer_for(&ty, &req, value_ref)?;
    if req.by_id {
        return feature_by_id(svc, account, &ty, &req, &writer).await;
    }
    let limits = *svc.limits();
    let (query, ids) = build_query(&ty, &req, crs, &limits)?;
    let count = req.count.unwrap_or(u64::from(limits.count_default)).min(u64::from(limits.count_max));
    let start = req.start_index;
    let (buffered, matched, next, returned) =
        first_pages(svc, account, &ty, &req, &query, ids.as_deref(), count, &limits).await?;
    let more = match matched {
        Some(m) => start + returned < m && !req.hits,
        None => next.is_some() && !req.hits,
    };
    let (next_url, prev_url) = match &req.kvp {
        Some(kvp) if count > 0 => (
            more.then(|| link(ctx, kvp, start + count, count)),
            (start > 0 && !req.hits).then(|| link(ctx, kvp, start.saturating_sub(count), count)),
        ),
        _ => (None, None),
    };
    let timestamp = Timestamp::now().to_rfc3339();
    let (content_type, header, footer) =
        envelope(ctx, &ty, &req, &writer, crs, &timestamp, returned, matched, next_url.as_deref(), prev_url.as_deref());
    let stream = FeatureStream {
        features: svc.features.clone(),
        account: account.clone(),
        query: ListQuery { limit: limits.page, ..query },
        page: limits.page,
        buffered,
        next: if ids.is_some() { None } else { next },
        remaining: returned,
        writer,
        stage: Stage::Header(header),
        footer,
    };
    Ok(Response { content_type, body: Body::Features(Box::new(stream)) })
}

/// The feature type a GetFeature reads: the one named, or the one of the ids it names.
async fn resolve_type(svc: &WfsService, account: &AccountId, req: &FeatureRequest) -> OgcResult<FeatureType> {
    Ok(match (&req.type_name, &req.resource_ids) {
        (Some(name), _) => svc.feature_type(account, name, "typeNames").await?,
        (None, Some(ids)) => match type_of_ids(svc, account, ids).await? {
            Some(t) => t,
            None if req.by_id => {
                return Err(OgcError::at(
                    ExceptionCode::NotFound,
                    "ID",
                    format!("there is no feature {}", ids.join(", ")),
                ))
            }
            None => svc
                .feature_types(account)
                .await?
                .into_iter()
                .next()
                .ok_or_else(|| OgcError::internal_from("an account without feature types"))?,
        },
        (None, None) => return Err(OgcError::missing("typeNames")),
    })
}

/// The writer of the answer (CRS, the properties selected, the value reference) and the CRS.
fn writer_for(ty: &FeatureType, req: &FeatureRequest, value_ref: Option<String>) -> OgcResult<(Writer, Crs)> {
    let crs = match &req.srs_name {
        Some(s) => srs::parse(s).map_err(|e| OgcError::invalid("srsName", e))?,
        None if req.format == Format::Json => Crs::Crs84,
        None => DEFAULT_CRS,
    };
    let transformer = if crs == Crs::Crs84 {
        None
    } else {
        Some(Transformer::new(Crs::Crs84, crs).map_err(|e| OgcError::invalid("srsName", e))?)
    };
    let (props, with_geometry) = selection(ty, &req.property_names)?;
    let value_ref = match value_ref {
        None => None,
        Some(v) => {
            let name = fes::property_name(&v);
            if name != "geometry" && name != "id" && !ty.properties.iter().any(|(p, _)| *p == name) {
                return Err(OgcError::invalid("valueReference", format!("`{v}` is not a property of {}", ty.qname())));
            }
            Some(name)
        }
    };
    let writer = Writer {
        ty: ty.clone(),
        format: req.format,
        srs_name: srs::urn(crs),
        transformer,
        props,
        with_geometry,
        value_ref,
        written: 0,
    };
    Ok((writer, crs))
}

/// A GetFeatureById answer: the bare feature.
async fn feature_by_id(
    svc: &WfsService,
    account: &AccountId,
    ty: &FeatureType,
    req: &FeatureRequest,
    writer: &Writer,
) -> OgcResult<Response> {
    let id = req.resource_ids.as_ref().and_then(|v| v.first()).cloned().unwrap_or_default();
    let f = svc
        .features()
        .feature(account, &ty.collection.id, &id)
        .await
        .map_err(|_| OgcError::at(ExceptionCode::NotFound, "ID", format!("there is no feature {id}")))?;
    Ok(match req.format {
        Format::Json => Response::text(JSON, writer.json_feature(&f).to_string()),
        Format::Gml => {
            let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
            let mut one = String::new();
            writer.gml_feature(&mut one, &f);
            // Namespaces declared on the bare feature itself.
            let decl = format!(" xmlns:{PREFIX}=\"{NS}\" xmlns:gml=\"{GML_NS}\"");
            let at = one.find(' ').unwrap_or(one.len());
            one.insert_str(at, &decl);
            out.push_str(&one);
            out.push('\n');
            Response::text(GML32, out)
        }
    })
}

/// The query of a GetFeature (collection, box, filter, sort) and the ids it names, if any.
fn build_query(
    ty: &FeatureType,
    req: &FeatureRequest,
    crs: Crs,
    limits: &super::WfsLimits,
) -> OgcResult<(ListQuery, Option<Vec<String>>)> {
    let mut query = ListQuery { collection: ty.collection.id.clone(), ..ListQuery::default() };
    if let Some(b) = &req.bbox {
        query.bbox = Some(parse_bbox(b)?);
    }
    let mut ids = req.resource_ids.clone();
    if let Some(f) = &req.filter {
        let fctx = FesContext { queryables: &ty.queryables, default_crs: crs, limits: limits.xml };
        let expr = match f {
            FilterSource::Text(t) => fes::parse_text(t, &fctx)?,
            FilterSource::Element(e) => fes::from_element(e, &fctx)?,
        };
        match fes::only_resource_ids(&expr) {
            Some(list) => ids = Some(list),
            None => query.filter = Some(expr),
        }
    }
    for (name, _) in &req.sortby {
        if name != "id" && !ty.properties.iter().any(|(p, _)| p == name) {
            return Err(OgcError::invalid("sortBy", format!("`{name}` is not a property of {}", ty.qname())));
        }
    }
    query.sortby = req.sortby.clone();

    Ok((query, ids))
}

/// The first page (features named by id are fetched directly, not searched for), the number
/// matched when known, the cursor past what was read, and how many features the answer returns.
#[allow(clippy::too_many_arguments)]
async fn first_pages(
    svc: &WfsService,
    account: &AccountId,
    ty: &FeatureType,
    req: &FeatureRequest,
    query: &ListQuery,
    ids: Option<&[String]>,
    count: u64,
    limits: &super::WfsLimits,
) -> OgcResult<(VecDeque<Feature>, Option<u64>, Option<Cursor>, u64)> {
    let start = req.start_index;
    let (first, matched, mut next): (Vec<Feature>, Option<u64>, Option<Cursor>) = if let Some(ids) = ids {
        let mut found = Vec::new();
        for id in ids {
            if let Ok(f) = svc.features().feature(account, &ty.collection.id, id).await {
                if !found.iter().any(|g: &Feature| g.id == f.id) {
                    found.push(f);
                }
            }
        }
        let total = found.len() as u64;
        let page: Vec<Feature> = found.into_iter().skip(start as usize).take(count as usize).collect();
        (page, Some(total), None)
    } else {
        let hits_only = req.hits || count == 0;
        let q = ListQuery {
            limit: if hits_only { 1 } else { count.min(u64::from(limits.page)).max(1) as u32 },
            start: if start == 0 { Start::First } else { Start::Offset(start) },
            ..query.clone()
        };
        let mut page = svc.features().list(account, &q).await.map_err(|e| OgcError::from_features(e, "GetFeature"))?;
        let features = page.take_features().map_err(|e| OgcError::from_features(e, "GetFeature"))?;
        (if hits_only { Vec::new() } else { features }, page.number_matched, page.next)
    };

    let mut buffered: VecDeque<Feature> = first.into();
    let returned = if req.hits || count == 0 {
        0
    } else if next.is_none() || count <= buffered.len() as u64 {
        (buffered.len() as u64).min(count)
    } else if let Some(m) = matched {
        count.min(m.saturating_sub(start))
    } else {
        // The count is unknown and the answer spans pages: read ahead until it is known (at most
        // `count_max` features, the most one answer may hold).
        while (buffered.len() as u64) < count {
            let Some(cursor) = next.take() else { break };
            let q = ListQuery {
                limit: (count - buffered.len() as u64).min(u64::from(limits.page)) as u32,
                start: Start::Cursor(cursor),
                ..query.clone()
            };
            let mut page =
                svc.features().list(account, &q).await.map_err(|e| OgcError::from_features(e, "GetFeature"))?;
            next = page.next;
            if page.features.is_empty() {
                break;
            }
            buffered.extend(page.take_features().map_err(|e| OgcError::from_features(e, "GetFeature"))?);
        }
        (buffered.len() as u64).min(count)
    };
    Ok((buffered, matched, next, returned))
}

/// The answer's envelope: content type, the head before the features and the foot after.
#[allow(clippy::too_many_arguments)]
fn envelope(
    ctx: &Context,
    ty: &FeatureType,
    req: &FeatureRequest,
    writer: &Writer,
    crs: Crs,
    timestamp: &str,
    returned: u64,
    matched: Option<u64>,
    next_url: Option<&str>,
    prev_url: Option<&str>,
) -> (&'static str, String, String) {
    let matched_text = matched.map(|m| m.to_string()).unwrap_or_else(|| "unknown".into());
    match (req.format, writer.value_ref.is_some()) {
        (Format::Json, _) => {
            let mut links = Vec::new();
            if let Some(n) = &next_url {
                links.push(json!({"rel": "next", "type": JSON, "href": n}));
            }
            if let Some(p) = &prev_url {
                links.push(json!({"rel": "previous", "type": JSON, "href": p}));
            }
            let mut head = format!(
                "{{\"type\":\"FeatureCollection\",\"timeStamp\":\"{timestamp}\",\"numberReturned\":{returned},"
            );
            if let Some(m) = matched {
                let _ = write!(head, "\"numberMatched\":{m},");
            }
            if crs != Crs::Crs84 {
                let _ = write!(head, "\"crs\":{},", json!({"type": "name", "properties": {"name": srs::urn(crs)}}));
            }
            let _ = writeln!(head, "\"links\":{},\"features\":[", Value::Array(links));
            (JSON, head, "\n]}\n".to_owned())
        }
        (Format::Gml, value_collection) => {
            let root = if value_collection { "ValueCollection" } else { "FeatureCollection" };
            let dft = ctx.url(&[
                ("SERVICE", "WFS"),
                ("VERSION", "2.0.0"),
                ("REQUEST", "DescribeFeatureType"),
                ("TYPENAMES", &ty.qname()),
            ]);
            let mut head = format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<wfs:{root} xmlns:wfs=\"{WFS_NS}\" xmlns:gml=\"{GML_NS}\" \
                 xmlns:{PREFIX}=\"{NS}\" xmlns:xsi=\"{XSI_NS}\" xsi:schemaLocation=\"{} {WFS_NS} \
                 http://schemas.opengis.net/wfs/2.0/wfs.xsd {GML_NS} http://schemas.opengis.net/gml/3.2.1/gml.xsd\" \
                 timeStamp=\"{timestamp}\" numberMatched=\"{matched_text}\" numberReturned=\"{returned}\"",
                escape(&format!("{NS} {dft}"))
            );
            if let Some(n) = &next_url {
                let _ = write!(head, " next=\"{}\"", escape(n));
            }
            if let Some(p) = &prev_url {
                let _ = write!(head, " previous=\"{}\"", escape(p));
            }
            head.push_str(">\n");
            (GML32, head, format!("</wfs:{root}>\n"))
        }
    }
}

/// The filter of a query on a type, for the transaction's Update, Replace and Delete.
pub fn filter_for(ty: &FeatureType, filter: &super::xml::Element, limits: &super::WfsLimits) -> OgcResult<Expr> {
    let fctx = FesContext { queryables: &ty.queryables, default_crs: DEFAULT_CRS, limits: limits.xml };
    fes::from_element(filter, &fctx)
}
