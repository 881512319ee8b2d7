//! The STAC API's landing page, conformance, queryables and collections (with the Transaction
//! extension's create, replace and delete).

use super::{document, links, object_body};
use crate::auth::Caller;
use crate::error::{area_error, ApiResult};
use crate::etag;
use crate::extract::{Json, Path};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use meridian_eo::stac::{self, CONFORMANCE};
use meridian_store::eo::{CollectionSummary, EoCollection};
use serde_json::{json, Value};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(eo_landing))
        .routes(routes!(eo_conformance))
        .routes(routes!(eo_queryables))
        .routes(routes!(list_eo_collections, create_eo_collection))
        .routes(routes!(get_eo_collection, replace_eo_collection, delete_eo_collection))
        .routes(routes!(eo_collection_queryables))
}

const JSON: &str = "application/json";

fn collection_etag(c: &EoCollection) -> HeaderValue {
    etag::tag(&format!("{}-", c.id), c.version)
}

fn with_etag(mut r: Response, tag: HeaderValue) -> Response {
    r.headers_mut().insert(header::ETAG, tag);
    r
}

#[utoipa::path(get, path = "/api/v1/eo", tag = "eo", responses((status = 200, description = "STAC API landing page: a Catalog with `conformsTo` and links to the collections, search, queryables and this OpenAPI document", body = crate::schemas::StacCatalog)))]
async fn eo_landing(State(state): State<AppState>, _caller: Caller, headers: HeaderMap) -> Response {
    document(StatusCode::OK, JSON, &links(&state, &headers).landing("Meridian earth observation"))
}

#[utoipa::path(get, path = "/api/v1/eo/conformance", tag = "eo", responses((status = 200, description = "The conformance classes implemented", body = crate::schemas::Conformance)))]
async fn eo_conformance(_caller: Caller) -> Response {
    document(StatusCode::OK, JSON, &json!({"conformsTo": CONFORMANCE}))
}

#[utoipa::path(get, path = "/api/v1/eo/queryables", tag = "eo", responses((status = 200, description = "JSON Schema of the properties filters and sorts may name, across collections", body = crate::schemas::Queryables, content_type = "application/schema+json")))]
async fn eo_queryables(State(state): State<AppState>, caller: Caller, headers: HeaderMap) -> ApiResult<Response> {
    let extra = state.eo.extra_queryables(&caller.account_id, None).await.map_err(area_error)?;
    let href = format!("{}/queryables", links(&state, &headers).root());
    Ok(document(StatusCode::OK, "application/schema+json", &stac::queryables(&href, &extra)))
}

#[utoipa::path(
    get,
    path = "/api/v1/eo/collections/{cid}/queryables",
    tag = "eo",
    params(("cid" = String, Path, description = "Collection id")),
    responses((status = 200, description = "JSON Schema of the collection's queryable properties", body = crate::schemas::Queryables, content_type = "application/schema+json"))
)]
async fn eo_collection_queryables(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(cid): Path<String>,
) -> ApiResult<Response> {
    state.eo.collection(&caller.account_id, &cid).await.map_err(area_error)?;
    let extra = state.eo.extra_queryables(&caller.account_id, Some(&cid)).await.map_err(area_error)?;
    let href = format!("{}/collections/{cid}/queryables", links(&state, &headers).root());
    Ok(document(StatusCode::OK, "application/schema+json", &stac::queryables(&href, &extra)))
}

fn collection_doc(
    state: &AppState,
    headers: &HeaderMap,
    c: &(EoCollection, CollectionSummary, Option<Value>),
) -> Value {
    links(state, headers).collection(&c.0, &c.1, c.2.as_ref())
}

#[utoipa::path(get, path = "/api/v1/eo/collections", tag = "eo", responses((status = 200, description = "The account's STAC Collections", body = crate::schemas::StacCollections)))]
async fn list_eo_collections(State(state): State<AppState>, caller: Caller, headers: HeaderMap) -> ApiResult<Response> {
    let list = state.eo.collections(&caller.account_id).await.map_err(area_error)?;
    let root = links(&state, &headers).root();
    let body = json!({
        "collections": list.iter().map(|c| collection_doc(&state, &headers, c)).collect::<Vec<_>>(),
        "links": [
            {"rel": "self", "href": format!("{root}/collections"), "type": JSON},
            {"rel": "root", "href": root.clone(), "type": JSON},
            {"rel": "parent", "href": root, "type": JSON},
        ],
    });
    Ok(document(StatusCode::OK, JSON, &body))
}

#[utoipa::path(
    post,
    path = "/api/v1/eo/collections",
    tag = "eo",
    request_body(content = crate::schemas::StacCollection, description = "A STAC Collection (`id` required; `description`, `license`, `extent` as STAC defines them)"),
    responses(
        (status = 201, description = "Created; `Location` names it", body = crate::schemas::StacCollection),
        (status = 409, description = "A collection with this id exists", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 422, description = "Not a valid STAC Collection", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn create_eo_collection(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    let c = state.eo.create_collection(&caller.account_id, &body).await.map_err(area_error)?;
    let doc = links(&state, &headers).collection(&c, &CollectionSummary::default(), None);
    let mut r = with_etag(document(StatusCode::CREATED, JSON, &doc), collection_etag(&c));
    if let Ok(v) = HeaderValue::from_str(&format!("{}/collections/{}", stac::ROOT, c.id)) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    Ok(r)
}

#[utoipa::path(
    get,
    path = "/api/v1/eo/collections/{cid}",
    tag = "eo",
    params(("cid" = String, Path, description = "Collection id")),
    responses((status = 200, description = "The STAC Collection, its extent from its items; `ETag`", body = crate::schemas::StacCollection))
)]
async fn get_eo_collection(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(cid): Path<String>,
) -> ApiResult<Response> {
    let c = state.eo.collection(&caller.account_id, &cid).await.map_err(area_error)?;
    let tag = collection_etag(&c.0);
    Ok(with_etag(document(StatusCode::OK, JSON, &collection_doc(&state, &headers, &c)), tag))
}

#[utoipa::path(
    put,
    path = "/api/v1/eo/collections/{cid}",
    tag = "eo",
    params(
        ("cid" = String, Path, description = "Collection id"),
        ("If-Match" = Option<String>, Header, description = "Replace only if the collection's ETag is still this one"),
    ),
    request_body(content = crate::schemas::StacCollection, description = "The whole STAC Collection"),
    responses(
        (status = 200, description = "Replaced", body = crate::schemas::StacCollection),
        (status = 412, description = "`If-Match` named an older version", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn replace_eo_collection(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(cid): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    object_body(&body)?;
    let expected = etag::expected_version(&headers, &format!("{cid}-"))?;
    state.eo.replace_collection(&caller.account_id, &cid, &body, expected).await.map_err(area_error)?;
    let c = state.eo.collection(&caller.account_id, &cid).await.map_err(area_error)?;
    let tag = collection_etag(&c.0);
    Ok(with_etag(document(StatusCode::OK, JSON, &collection_doc(&state, &headers, &c)), tag))
}

#[utoipa::path(
    delete,
    path = "/api/v1/eo/collections/{cid}",
    tag = "eo",
    params(
        ("cid" = String, Path, description = "Collection id"),
        ("If-Match" = Option<String>, Header, description = "Delete only if the collection's ETag is still this one"),
    ),
    responses(
        (status = 204, description = "The collection, its items and their stored assets are deleted"),
        (status = 412, description = "`If-Match` named an older version", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn delete_eo_collection(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(cid): Path<String>,
) -> ApiResult<StatusCode> {
    let expected = etag::expected_version(&headers, &format!("{cid}-"))?;
    state.eo.delete_collection(&caller.account_id, &cid, expected).await.map_err(area_error)?;
    Ok(StatusCode::NO_CONTENT)
}
