//! OGC API Features (Parts 1–4) at `/api/v1/ogc/v1/features`: landing page, conformance, an
//! OpenAPI 3.0 description, collections (the cadastre's `parcels` and collections users upload),
//! queryables, items with CRS, CQL2 and sorting, and create/replace/update/delete of items.

use super::html;
use super::items::{create_item, geojson_text, get_item, list_items, replace_item, retire_item, update_item};
use super::{LISTED_CRS, PARCELS};
use crate::auth::Caller;
use crate::error::{ApiError, ApiResult};
use crate::extract::{Json, Path};
use crate::paging::base_url;
use crate::state::AppState;
use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use meridian_collections::import::{self, UploadFormat, UploadMeta};
use meridian_core::crs::CRS84_URI;
use meridian_core::{DomainError, Timestamp};
use meridian_store::features::{Extent, FeatureCollection};
use serde_json::{json, Value};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

const ROOT: &str = "/api/v1/ogc/v1/features";

/// Conformance classes, exactly those implemented.
pub const CONFORMANCE: &[&str] = &[
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/html",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
    "http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs",
    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/filter",
    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/features-filter",
    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables",
    "http://www.opengis.net/spec/ogcapi-features-3/1.0/conf/queryables-query-parameters",
    "http://www.opengis.net/spec/cql2/1.0/conf/cql2-text",
    "http://www.opengis.net/spec/cql2/1.0/conf/cql2-json",
    "http://www.opengis.net/spec/cql2/1.0/conf/basic-cql2",
    "http://www.opengis.net/spec/cql2/1.0/conf/advanced-comparison-operators",
    "http://www.opengis.net/spec/cql2/1.0/conf/basic-spatial-functions",
    "http://www.opengis.net/spec/cql2/1.0/conf/spatial-functions",
    "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/create-replace-delete",
    "http://www.opengis.net/spec/ogcapi-features-4/1.0/conf/update",
];

/// Landing page, conformance and API description: public.
pub fn public() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(ogc_landing)).routes(routes!(conformance)).routes(routes!(api_description))
}

/// Data routes: need a key with `ogc` scopes.
pub fn protected() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_collections, create_collection))
        .routes(routes!(get_collection, delete_collection))
        .routes(routes!(get_queryables))
        .routes(routes!(list_features, create_feature))
        .routes(routes!(get_feature, replace_feature, update_feature, delete_feature))
}

fn wants_html(raw: &Option<String>, headers: &HeaderMap) -> bool {
    let f = raw
        .as_deref()
        .and_then(|q| form_urlencoded::parse(q.as_bytes()).find(|(k, _)| k == "f").map(|(_, v)| v.into_owned()));
    match f.as_deref() {
        Some("html") => true,
        Some(_) => false,
        None => headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(crate::extract::prefers_html),
    }
}

fn json_response(body: Value) -> Response {
    let mut r = body.to_string().into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

/// Only `f` is allowed on metadata resources.
fn only_f(raw: &Option<String>) -> Result<(), ApiError> {
    for (k, v) in form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes()) {
        if k == "access_token" {
            continue;
        }
        if k != "f" {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "unknown_parameter",
                "Invalid query parameter",
                format!("{k}: this parameter is not supported here"),
            ));
        }
        if !["json", "html"].contains(&v.as_ref()) {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid_parameter",
                "Invalid query parameter",
                format!("f: {v} is not an encoding; use json or html"),
            ));
        }
    }
    Ok(())
}

#[utoipa::path(get, path = "/api/v1/ogc/v1/features", tag = "ogc", responses((status = 200, description = "OGC API Features landing page (JSON, or HTML with f=html)", body = crate::schemas::OgcLandingPage)))]
async fn ogc_landing(
    State(state): State<AppState>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> ApiResult<Response> {
    only_f(&raw)?;
    let base = format!("{}{ROOT}", base_url(&state, &headers));
    let body = json!({
        "title": "Meridian features",
        "description": "Cadastral parcels and feature collections, served by OGC API Features",
        "links": [
            {"rel": "self", "type": "application/json", "title": "This document", "href": format!("{base}?f=json")},
            {"rel": "alternate", "type": "text/html", "title": "This document as HTML", "href": format!("{base}?f=html")},
            {"rel": "service-desc", "type": "application/vnd.oai.openapi+json;version=3.0", "title": "The API definition", "href": format!("{base}/api")},
            {"rel": "conformance", "type": "application/json", "title": "Conformance classes", "href": format!("{base}/conformance")},
            {"rel": "data", "type": "application/json", "title": "Collections", "href": format!("{base}/collections")},
        ]
    });
    if wants_html(&raw, &headers) {
        let links = body["links"].as_array().cloned().unwrap_or_default();
        return Ok(Html(html::page("Meridian features", &html::links(&links))).into_response());
    }
    Ok(json_response(body))
}

/// A collection's ETag: the time it was created or last replaced.
fn collection_etag(c: &FeatureCollection) -> HeaderValue {
    crate::etag::tag(&format!("{}-", c.id), c.updated_at.millis())
}

#[utoipa::path(
    delete,
    path = "/api/v1/ogc/v1/features/collections/{cid}",
    tag = "ogc",
    params(
        ("cid" = String, Path, description = "Collection id"),
        ("If-Match" = Option<String>, Header, description = "Delete only if the collection's ETag is still this one"),
    ),
    responses(
        (status = 204, description = "The collection and all its features are deleted"),
        (status = 409, description = "The cadastre's parcels collection cannot be deleted", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 412, description = "`If-Match` named an older version", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn delete_collection(
    State(state): State<AppState>,
    caller: Caller,
    Path(cid): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let expected = crate::etag::expected_version(&headers, &format!("{cid}-"))?;
    state.features.delete_collection(&caller.account_id, &cid, expected).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

#[utoipa::path(get, path = "/api/v1/ogc/v1/features/conformance", tag = "ogc", responses((status = 200, description = "The conformance classes implemented", body = crate::schemas::Conformance)))]
async fn conformance(RawQuery(raw): RawQuery, headers: HeaderMap) -> ApiResult<Response> {
    only_f(&raw)?;
    if wants_html(&raw, &headers) {
        let items: String = CONFORMANCE.iter().map(|c| format!("<li>{}</li>", html::escape(c))).collect();
        return Ok(Html(html::page("Conformance", &format!("<ul>{items}</ul>"))).into_response());
    }
    Ok(json_response(json!({"conformsTo": CONFORMANCE})))
}

fn params_ref(names: &[&str]) -> Value {
    Value::Array(names.iter().map(|n| json!({"$ref": format!("#/components/parameters/{n}")})).collect())
}

#[utoipa::path(get, path = "/api/v1/ogc/v1/features/api", tag = "ogc", responses((status = 200, description = "OpenAPI 3.0 description of this OGC API", content_type = "application/vnd.oai.openapi+json;version=3.0", body = crate::schemas::OpenApiDocument)))]
async fn api_description(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let base = format!("{}{ROOT}", base_url(&state, &headers));
    let qp = |name: &str, desc: &str, schema: Value| json!({"name": name, "in": "query", "required": false, "description": desc, "schema": schema, "style": "form", "explode": false});
    let fc = json!({"description": "Features", "content": {"application/geo+json": {"schema": {"type": "object"}}, "text/html": {"schema": {"type": "string"}}}});
    let feature =
        json!({"description": "A feature", "content": {"application/geo+json": {"schema": {"type": "object"}}}});
    let json_ok = json!({"description": "OK", "content": {"application/json": {"schema": {"type": "object"}}}});
    let doc = json!({
        "openapi": "3.0.3",
        "info": {"title": "Meridian OGC API Features", "version": env!("CARGO_PKG_VERSION")},
        "servers": [{"url": base}],
        "security": [{"bearer": []}, {"api_key": []}],
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "api_key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"}
            },
            "parameters": {
                "collectionId": {"name": "collectionId", "in": "path", "required": true, "schema": {"type": "string"}},
                "featureId": {"name": "featureId", "in": "path", "required": true, "schema": {"type": "string"}},
                "bbox": qp("bbox", "minx,miny,maxx,maxy", json!({"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 6})),
                "bbox-crs": qp("bbox-crs", "CRS of bbox", json!({"type": "string", "format": "uri"})),
                "crs": qp("crs", "CRS of the answer", json!({"type": "string", "format": "uri"})),
                "limit": qp("limit", "Page size", json!({"type": "integer", "minimum": 1, "maximum": super::query::MAX_LIMIT, "default": super::query::DEFAULT_LIMIT})),
                "offset": qp("offset", "Items to skip", json!({"type": "integer", "minimum": 0})),
                "datetime": qp("datetime", "Instant or interval on updated_at", json!({"type": "string"})),
                "filter": qp("filter", "CQL2 filter", json!({"type": "string"})),
                "filter-lang": qp("filter-lang", "cql2-text or cql2-json", json!({"type": "string", "enum": ["cql2-text", "cql2-json"]})),
                "filter-crs": qp("filter-crs", "CRS of filter geometries", json!({"type": "string", "format": "uri"})),
                "sortby": qp("sortby", "Sort keys", json!({"type": "string"})),
                "f": qp("f", "Encoding", json!({"type": "string", "enum": ["json", "html"]})),
            }
        },
        "paths": {
            "/": {"get": {"operationId": "getLandingPage", "parameters": params_ref(&["f"]), "responses": {"200": json_ok}}},
            "/conformance": {"get": {"operationId": "getConformance", "parameters": params_ref(&["f"]), "responses": {"200": json_ok}}},
            "/api": {"get": {"operationId": "getApi", "responses": {"200": json_ok}}},
            "/collections": {
                "get": {"operationId": "getCollections", "parameters": params_ref(&["f"]), "responses": {"200": json_ok}},
                "post": {"operationId": "createCollection", "requestBody": {"content": {"application/geo+json": {"schema": {"type": "object"}}}}, "responses": {"201": json_ok}}
            },
            "/collections/{collectionId}": {"get": {"operationId": "describeCollection", "parameters": params_ref(&["collectionId", "f"]), "responses": {"200": json_ok}}},
            "/collections/{collectionId}/queryables": {"get": {"operationId": "getQueryables", "parameters": params_ref(&["collectionId"]), "responses": {"200": {"description": "JSON Schema", "content": {"application/schema+json": {"schema": {"type": "object"}}}}}}},
            "/collections/{collectionId}/items": {
                "get": {"operationId": "getFeatures", "parameters": params_ref(&["collectionId", "bbox", "bbox-crs", "crs", "limit", "offset", "datetime", "filter", "filter-lang", "filter-crs", "sortby", "f"]), "responses": {"200": fc}},
                "post": {"operationId": "createFeature", "parameters": params_ref(&["collectionId"]), "requestBody": {"content": {"application/geo+json": {"schema": {"type": "object"}}}}, "responses": {"201": feature}}
            },
            "/collections/{collectionId}/items/{featureId}": {
                "get": {"operationId": "getFeature", "parameters": params_ref(&["collectionId", "featureId", "crs", "f"]), "responses": {"200": feature}},
                "put": {"operationId": "replaceFeature", "parameters": params_ref(&["collectionId", "featureId"]), "requestBody": {"content": {"application/geo+json": {"schema": {"type": "object"}}}}, "responses": {"200": feature}},
                "patch": {"operationId": "updateFeature", "parameters": params_ref(&["collectionId", "featureId"]), "requestBody": {"content": {"application/merge-patch+json": {"schema": {"type": "object"}}}}, "responses": {"200": feature}},
                "delete": {"operationId": "deleteFeature", "parameters": params_ref(&["collectionId", "featureId"]), "responses": {"204": {"description": "Deleted"}}}
            }
        }
    });
    let mut r = doc.to_string().into_response();
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/vnd.oai.openapi+json;version=3.0"));
    r
}

/// A collection's extent in OGC API Features' form: the CRS84 bbox and the interval of `updated_at`.
fn extent_json(e: &Extent) -> Option<Value> {
    let bbox = e.bbox?;
    let mut v = json!({"spatial": {"bbox": [bbox], "crs": CRS84_URI}});
    if let Some((t0, t1)) = e.updated {
        v["temporal"] = json!({
            "interval": [[Timestamp::from_millis(t0), Timestamp::from_millis(t1)]],
            "trs": "http://www.opengis.net/def/uom/ISO-8601/0/Gregorian",
        });
    }
    Some(v)
}

fn describe(base: &str, c: &FeatureCollection, extent: Option<&Extent>) -> Value {
    let href = format!("{base}{ROOT}/collections/{}", c.id);
    let mut v = json!({
        "id": c.id,
        "title": c.title,
        "description": c.description,
        "itemType": "feature",
        // Concrete CRSs only (clients such as GDAL offer each entry as a choice); `crs=` also
        // takes any other EPSG code the server can transform to (docs/ogc.md).
        "crs": LISTED_CRS.iter().map(|c| c.uri()).collect::<Vec<_>>(),
        "storageCrs": CRS84_URI,
        "links": [
            {"rel": "self", "type": "application/json", "href": href},
            {"rel": "items", "type": super::GEOJSON, "title": "Features", "href": format!("{href}/items")},
            {"rel": "items", "type": "text/html", "title": "Features as HTML", "href": format!("{href}/items?f=html")},
            {"rel": "http://www.opengis.net/def/rel/ogc/1.0/queryables", "type": "application/schema+json", "title": "Queryables", "href": format!("{href}/queryables")},
        ]
    });
    if let Some(e) = extent.and_then(extent_json) {
        v["extent"] = e;
    }
    v
}

async fn collections_of(state: &AppState, caller: &Caller) -> ApiResult<Vec<FeatureCollection>> {
    Ok(state.features.collections(&caller.account_id).await?)
}

async fn find_collection(state: &AppState, caller: &Caller, cid: &str) -> ApiResult<FeatureCollection> {
    Ok(state.features.collection(&caller.account_id, cid).await?)
}

#[utoipa::path(get, path = "/api/v1/ogc/v1/features/collections", tag = "ogc", responses((status = 200, description = "The account's collections", body = crate::schemas::OgcCollections)))]
async fn list_collections(
    State(state): State<AppState>,
    caller: Caller,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> ApiResult<Response> {
    only_f(&raw)?;
    let base = base_url(&state, &headers);
    let list = collections_of(&state, &caller).await?;
    let mut described = Vec::with_capacity(list.len());
    for c in &list {
        let extent = state.features.extent(&caller.account_id, &c.id).await?;
        described.push(describe(&base, c, Some(&extent)));
    }
    let body = json!({
        "collections": described,
        "links": [{"rel": "self", "type": "application/json", "href": format!("{base}{ROOT}/collections")}],
    });
    if wants_html(&raw, &headers) {
        let links: Vec<Value> = list
            .iter()
            .map(|c| json!({"href": format!("{base}{ROOT}/collections/{}?f=html", c.id), "title": c.title}))
            .collect();
        return Ok(Html(html::page("Collections", &html::links(&links))).into_response());
    }
    Ok(json_response(body))
}

#[utoipa::path(get, path = "/api/v1/ogc/v1/features/collections/{cid}", tag = "ogc", params(("cid" = String, Path, description = "Collection id")), responses((status = 200, description = "The collection", body = crate::schemas::OgcCollection)))]
async fn get_collection(
    State(state): State<AppState>,
    caller: Caller,
    Path(cid): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> ApiResult<Response> {
    only_f(&raw)?;
    let c = find_collection(&state, &caller, &cid).await?;
    let base = base_url(&state, &headers);
    let extent = state.features.extent(&caller.account_id, &c.id).await?;
    let body = describe(&base, &c, Some(&extent));
    if wants_html(&raw, &headers) {
        let links = body["links"].as_array().cloned().unwrap_or_default();
        return Ok(Html(html::page(&c.title, &format!("{}{}", html::paragraph(&c.description), html::links(&links))))
            .into_response());
    }
    let mut r = json_response(body);
    r.headers_mut().insert(header::ETAG, collection_etag(&c));
    Ok(r)
}

#[utoipa::path(get, path = "/api/v1/ogc/v1/features/collections/{cid}/queryables", tag = "ogc", params(("cid" = String, Path, description = "Collection id")), responses((status = 200, description = "The queryable properties, as JSON Schema", body = crate::schemas::Queryables, content_type = "application/schema+json")))]
async fn get_queryables(
    State(state): State<AppState>,
    caller: Caller,
    Path(cid): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    find_collection(&state, &caller, &cid).await?;
    let mut props = serde_json::Map::new();
    props.insert(
        "geometry".into(),
        json!({"format": if cid == PARCELS { "geometry-polygon-or-multipolygon" } else { "geometry-any" }}),
    );
    props.insert("id".into(), json!({"type": "string"}));
    for (name, kind) in state.features.queryables(&caller.account_id, &cid).await? {
        let schema =
            if name == "updated_at" { json!({"type": "string", "format": "date-time"}) } else { json!({"type": kind}) };
        props.insert(name, schema);
    }
    let base = base_url(&state, &headers);
    let body = json!({
        "$schema": "https://json-schema.org/draft/2019-09/schema",
        "$id": format!("{base}{ROOT}/collections/{cid}/queryables"),
        "type": "object",
        "title": cid,
        "properties": props,
        "additionalProperties": false,
    });
    let mut r = body.to_string().into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/schema+json"));
    Ok(r)
}

#[utoipa::path(
    get,
    path = "/api/v1/ogc/v1/features/collections/{cid}/items",
    tag = "ogc",
    params(
        ("cid" = String, Path, description = "Collection id"),
        super::query::FeatureListQuery,
        ("f" = Option<String>, Query, nullable = false, pattern = "^(json|geojson|html)$", description = "`html` for a page with a map"),
    ),
    responses((status = 200, description = "Features (same parameters as the cadastre list; f=html for a page with a map)", content_type = "application/geo+json", body = crate::schemas::FeatureCollection))
)]
async fn list_features(
    State(state): State<AppState>,
    caller: Caller,
    Path(cid): Path<String>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let c = find_collection(&state, &caller, &cid).await?;
    let path = format!("{ROOT}/collections/{cid}/items");
    let html = wants_html(&raw, &headers);
    let (p, body) = list_items(&state, &caller, &cid, raw, &headers, &path).await?;
    if html {
        let body = body.to_value();
        let features = body["features"].as_array().cloned().unwrap_or_default();
        let links = body["links"].as_array().cloned().unwrap_or_default();
        let paging: Vec<Value> = links.into_iter().filter(|l| l["rel"] == "next" || l["rel"] == "prev").collect();
        let content = format!(
            "<p>{} of {} features</p>{}{}{}",
            body["numberReturned"],
            body["numberMatched"],
            html::map(&features, &path),
            html::table(&features, &path),
            html::links(&paging)
        );
        return Ok(Html(html::page(&c.title, &content)).into_response());
    }
    Ok(geojson_text(StatusCode::OK, body.to_json(), p.crs))
}

#[utoipa::path(
    post,
    path = "/api/v1/ogc/v1/features/collections/{cid}/items",
    tag = "ogc",
    params(("cid" = String, Path, description = "Collection id")),
    request_body(content = crate::schemas::Feature, content_type = "application/geo+json"),
    responses((status = 201, description = "Created, with Location and ETag", content_type = "application/geo+json", body = crate::schemas::Feature))
)]
async fn create_feature(
    State(state): State<AppState>,
    caller: Caller,
    Path(cid): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    find_collection(&state, &caller, &cid).await?;
    create_item(&state, &caller, &cid, &headers, &body, &format!("{ROOT}/collections/{cid}/items")).await
}

#[utoipa::path(get, path = "/api/v1/ogc/v1/features/collections/{cid}/items/{fid}", tag = "ogc", params(("cid" = String, Path, description = "Collection id"), ("fid" = String, Path, description = "Feature id")), responses((status = 200, description = "The feature with its ETag", content_type = "application/geo+json", body = crate::schemas::Feature)))]
async fn get_feature(
    State(state): State<AppState>,
    caller: Caller,
    Path((cid, fid)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
    headers: HeaderMap,
) -> ApiResult<Response> {
    find_collection(&state, &caller, &cid).await?;
    let base = base_url(&state, &headers);
    let self_href = format!("{base}{ROOT}/collections/{cid}/items/{fid}");
    if wants_html(&raw, &headers) {
        let f = state
            .store
            .features
            .get_feature(&caller.account_id, &cid, &fid)
            .await?
            .ok_or_else(|| DomainError::not_found("feature", fid.clone()))?;
        let v = super::render(&f, meridian_core::crs::Crs::Crs84, None);
        let path = format!("{ROOT}/collections/{cid}/items");
        let content =
            format!("{}{}", html::map(std::slice::from_ref(&v), &path), html::table(std::slice::from_ref(&v), &path));
        return Ok(Html(html::page(&fid, &content)).into_response());
    }
    let raw = raw.map(|q| {
        form_urlencoded::parse(q.as_bytes())
            .filter(|(k, _)| k != "f")
            .map(|(k, v)| format!("{k}={}", form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>()))
            .collect::<Vec<_>>()
            .join("&")
    });
    get_item(&state, &caller, &cid, &fid, raw, Some(self_href)).await
}

#[utoipa::path(put, path = "/api/v1/ogc/v1/features/collections/{cid}/items/{fid}", tag = "ogc", params(("cid" = String, Path, description = "Collection id"), ("fid" = String, Path, description = "Feature id")), request_body(content = crate::schemas::Feature, content_type = "application/geo+json"), responses((status = 200, description = "Replaced", content_type = "application/geo+json", body = crate::schemas::Feature)))]
async fn replace_feature(
    State(state): State<AppState>,
    caller: Caller,
    Path((cid, fid)): Path<(String, String)>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    replace_item(&state, &caller, &cid, &fid, &headers, &body).await
}

#[utoipa::path(patch, path = "/api/v1/ogc/v1/features/collections/{cid}/items/{fid}", tag = "ogc", params(("cid" = String, Path, description = "Collection id"), ("fid" = String, Path, description = "Feature id")), request_body(content = crate::schemas::FeaturePatch, content_type = "application/merge-patch+json"), responses((status = 200, description = "Updated", content_type = "application/geo+json", body = crate::schemas::Feature)))]
async fn update_feature(
    State(state): State<AppState>,
    caller: Caller,
    Path((cid, fid)): Path<(String, String)>,
    headers: HeaderMap,
    Json(patch): Json<Value>,
) -> ApiResult<Response> {
    update_item(&state, &caller, &cid, &fid, &headers, &patch).await
}

#[utoipa::path(delete, path = "/api/v1/ogc/v1/features/collections/{cid}/items/{fid}", tag = "ogc", params(("cid" = String, Path, description = "Collection id"), ("fid" = String, Path, description = "Feature id")), responses((status = 204, description = "Deleted (kept in history)")))]
async fn delete_feature(
    State(state): State<AppState>,
    caller: Caller,
    Path((cid, fid)): Path<(String, String)>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    retire_item(&state, &caller, &cid, &fid, &headers).await
}

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct UploadQuery {
    /// The collection id (lowercase letters, digits, - and _); for GeoJSON it may be in the body
    /// instead, for FlatGeobuf the layer name is used when it is a valid id.
    id: Option<String>,
    /// Defaults to the file's title or layer name.
    title: Option<String>,
    description: Option<String>,
}

#[utoipa::path(
    post,
    path = "/api/v1/ogc/v1/features/collections",
    tag = "ogc",
    params(UploadQuery),
    request_body(content(
        (crate::schemas::FeatureCollection = "application/geo+json"),
        (String = "application/flatgeobuf"),
    ), description = "A GeoJSON FeatureCollection (with `id`, optional `title` and `description` members) or a FlatGeobuf file (`application/flatgeobuf`); up to limits.upload_bytes. `Content-Crs` names the CRS of GeoJSON coordinates and of a FlatGeobuf file whose header has none."),
    responses(
        (status = 201, description = "The new collection (uploads up to features.sync_import_bytes)", body = crate::schemas::OgcCollection),
        (status = 202, description = "A `features.import` job (bigger uploads, or `Prefer: respond-async`); `Location` is the job", body = crate::routes::jobs::JobView),
    )
)]
async fn create_collection(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
    body: Body,
) -> ApiResult<Response> {
    let q: UploadQuery = serde_urlencoded::from_str(raw.as_deref().unwrap_or(""))
        .map_err(|e| ApiError::malformed(format!("query: {e}")))?;
    let ct = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let Some(format) = UploadFormat::of_media_type(ct) else {
        return Err(ApiError::unsupported_media_type(
            "send a GeoJSON FeatureCollection as application/geo+json or a FlatGeobuf file as application/flatgeobuf",
        ));
    };
    if let Some(id) = &q.id {
        if !import::valid_collection_id(id) {
            return Err(ApiError::invalid(vec![import::id_error()]));
        }
    }
    let meta = UploadMeta {
        id: q.id,
        title: q.title,
        description: q.description,
        content_crs: headers.get("content-crs").and_then(|v| v.to_str().ok()).map(str::to_owned),
    };
    if let Some(crs) = &meta.content_crs {
        super::parse_content_crs(crs)?;
    }
    let limit = state.config.limits.upload_bytes;
    let staged = crate::upload::stage(&state, body.into_data_stream(), limit, |e| {
        ApiError::malformed(format!("the body could not be read: {e}"))
    })
    .await?;
    let size = staged.as_file().metadata().map_err(ApiError::internal)?.len();
    let prefer_async = headers
        .get_all("prefer")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.split(',').any(|p| p.trim().eq_ignore_ascii_case("respond-async")));
    let base = base_url(&state, &headers);
    if size <= state.config.features.sync_import_bytes && !prefer_async {
        let imported = state.features.import_now(&caller.account_id, staged.path(), format, meta).await?;
        let c = &imported.collection;
        let mut body = describe(&base, c, None);
        body["numberOfFeatures"] = json!(imported.features.len());
        let mut r = (StatusCode::CREATED, body.to_string()).into_response();
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Ok(v) = HeaderValue::from_str(&format!("{ROOT}/collections/{}", c.id)) {
            r.headers_mut().insert(header::LOCATION, v);
        }
        return Ok(r);
    }
    let max_attempts = state.config.jobs.max_attempts;
    let job = state.features.submit_import(&caller.account_id, staged.path(), format, meta, max_attempts).await?;
    let location = format!("/api/v1/jobs/{}", job.id);
    let mut r = (StatusCode::ACCEPTED, Json(crate::routes::jobs::JobView::from(job))).into_response();
    if let Ok(v) = HeaderValue::from_str(&location) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r.headers_mut().insert("preference-applied", HeaderValue::from_static("respond-async"));
    Ok(r)
}
