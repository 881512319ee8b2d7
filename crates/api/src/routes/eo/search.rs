//! STAC API Item Search (`GET` and `POST /api/v1/eo/search`) and scenes by reference
//! (`GET /api/v1/eo/scenes/{id}`).

use super::{bad_request, document, links};
use crate::auth::Caller;
use crate::error::{area_error, ApiResult};
use crate::extract::{Json, Path};
use crate::state::AppState;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use meridian_eo::search::Search;
use meridian_eo::stac::{Links, GEOJSON};
use meridian_eo::SearchPage;
use serde_json::{json, Value};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(search_eo_get, search_eo_post)).routes(routes!(get_eo_scene))
}

/// How the next page is asked for.
pub(super) enum NextLink<'a> {
    /// `GET` with the same query string and `token`.
    Get { href: &'a str, pairs: &'a [(String, String)] },
    /// `POST` of the same body with `token`.
    Post { href: &'a str, body: &'a Value },
}

/// An ItemCollection answer: items with their links and the fields applied, paging links,
/// `numberMatched`/`numberReturned` and the context extension's `context`.
pub(super) fn item_collection(
    l: &Links,
    search: &Search,
    page: &SearchPage,
    self_href: &str,
    next: NextLink<'_>,
) -> Value {
    let features: Vec<Value> = page.items.iter().map(|i| search.fields.apply(l.item(i))).collect();
    let mut link_list = vec![
        json!({"rel": "self", "href": self_href, "type": GEOJSON}),
        json!({"rel": "root", "href": l.root(), "type": "application/json"}),
    ];
    if let Some(token) = &page.next {
        let token = token.encode();
        match next {
            NextLink::Get { href, pairs } => {
                let mut q = form_urlencoded::Serializer::new(String::new());
                for (k, v) in pairs.iter().filter(|(k, _)| k != "token") {
                    q.append_pair(k, v);
                }
                q.append_pair("token", &token);
                link_list.push(
                    json!({"rel": "next", "href": format!("{href}?{}", q.finish()), "type": GEOJSON, "method": "GET"}),
                );
            }
            NextLink::Post { href, body } => {
                let mut b = body.clone();
                if let Some(o) = b.as_object_mut() {
                    o.insert("token".into(), json!(token));
                }
                link_list.push(
                    json!({"rel": "next", "href": href, "type": GEOJSON, "method": "POST", "body": b, "merge": false}),
                );
            }
        }
    }
    let mut doc = json!({
        "type": "FeatureCollection",
        "features": features,
        "links": link_list,
        "numberReturned": page.items.len(),
        "context": {"returned": page.items.len(), "limit": page.limit},
    });
    if let Some(m) = page.matched {
        doc["numberMatched"] = json!(m);
        doc["context"]["matched"] = json!(m);
    }
    doc
}

#[utoipa::path(
    get,
    path = "/api/v1/eo/search",
    tag = "eo",
    params(
        ("bbox" = Option<String>, Query, description = "WGS84 box: minx,miny,maxx,maxy"),
        ("intersects" = Option<String>, Query, description = "A GeoJSON geometry (as JSON text)"),
        ("datetime" = Option<String>, Query, description = "An instant or an interval `start/end` (`..` for an open end)"),
        ("collections" = Option<String>, Query, description = "Collection ids, comma-separated"),
        ("ids" = Option<String>, Query, description = "Item ids, comma-separated"),
        ("limit" = Option<i64>, Query, nullable = false, minimum = 1, description = "Page size (default 10; above eo.max_limit the page holds eo.max_limit items)"),
        ("filter" = Option<String>, Query, description = "CQL2 filter (text by default)"),
        ("filter-lang" = Option<String>, Query, description = "`cql2-text` or `cql2-json`"),
        ("sortby" = Option<String>, Query, description = "e.g. `-datetime,+eo:cloud_cover`"),
        ("fields" = Option<String>, Query, description = "e.g. `id,properties.eo:cloud_cover,-assets`"),
        ("token" = Option<String>, Query, description = "Continuation token of a `next` link"),
    ),
    responses(
        (status = 200, description = "An ItemCollection (GeoJSON) with `numberMatched`, `numberReturned`, `context` and a `next` link", body = crate::schemas::StacItemCollection, content_type = "application/geo+json"),
        (status = 400, description = "An invalid parameter", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn search_eo_get(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> ApiResult<Response> {
    let pairs: Vec<(String, String)> =
        form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes()).into_owned().collect();
    let search = Search::from_query(&pairs, true).map_err(bad_request)?;
    let page = state.eo.search(&caller.account_id, &search).await.map_err(area_error)?;
    let l = links(&state, &headers);
    let href = format!("{}/search", l.root());
    let self_href = match &raw {
        Some(q) if !q.is_empty() => format!("{href}?{q}"),
        _ => href.clone(),
    };
    let doc = item_collection(&l, &search, &page, &self_href, NextLink::Get { href: &href, pairs: &pairs });
    Ok(document(StatusCode::OK, GEOJSON, &doc))
}

#[utoipa::path(
    post,
    path = "/api/v1/eo/search",
    tag = "eo",
    request_body(content = crate::schemas::StacSearch, description = "STAC Item Search: `bbox`, `intersects`, `datetime`, `collections`, `ids`, `limit`, `filter` (CQL2 JSON, or text with `filter-lang`), `sortby`, `fields`, `token`"),
    responses(
        (status = 200, description = "An ItemCollection (GeoJSON); the `next` link repeats the body with a `token`", body = crate::schemas::StacItemCollection, content_type = "application/geo+json"),
        (status = 400, description = "An invalid member", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn search_eo_post(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    let search = Search::from_json(&body).map_err(bad_request)?;
    let page = state.eo.search(&caller.account_id, &search).await.map_err(area_error)?;
    let l = links(&state, &headers);
    let href = format!("{}/search", l.root());
    let doc = item_collection(&l, &search, &page, &href, NextLink::Post { href: &href, body: &body });
    Ok(document(StatusCode::OK, GEOJSON, &doc))
}

#[utoipa::path(
    get,
    path = "/api/v1/eo/scenes/{id}",
    tag = "eo",
    params(("id" = String, Path, description = "`collection/item` (the slash escaped as %2F), or an item id unique among the account's items")),
    responses(
        (status = 200, description = "The scene as a STAC Item with its assets; `ETag`", body = crate::schemas::StacItem, content_type = "application/geo+json"),
        (status = 409, description = "Several collections hold an item with this id", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn get_eo_scene(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let item = state.eo.scene(&caller.account_id, &id).await.map_err(area_error)?;
    Ok(item_answer(StatusCode::OK, &links(&state, &headers), &item))
}

/// An item's ETag: its id and version.
fn item_etag(item: &meridian_store::eo::EoItem) -> HeaderValue {
    crate::etag::tag(&format!("{}-v", item.id), item.version)
}

/// An item as a GeoJSON answer with its ETag; with `Location` when it was just created.
pub(super) fn item_answer(status: StatusCode, l: &Links, item: &meridian_store::eo::EoItem) -> Response {
    let mut r = document(status, GEOJSON, &l.item(item));
    r.headers_mut().insert(header::ETAG, item_etag(item));
    if status == StatusCode::CREATED {
        let at = format!("{}/collections/{}/items/{}", meridian_eo::stac::ROOT, item.collection, item.id);
        if let Ok(v) = HeaderValue::from_str(&at) {
            r.headers_mut().insert(header::LOCATION, v);
        }
    }
    r
}
