//! Items of a collection (STAC API - Features, with the Transaction extension): list with paging,
//! bbox and datetime; add as JSON (an Item or a FeatureCollection of Items) or as an upload
//! (`multipart/form-data`: an `item` part and one file part per asset); replace, patch and
//! delete with ETags; and the stored assets themselves, range-readable.

use super::search::{item_answer, item_collection, NextLink};
use super::{bad_request, document, links, object_body};
use crate::auth::Caller;
use crate::error::{area_error, ApiError, ApiResult};
use crate::extract::{parse_json, Json, Path};
use crate::state::AppState;
use crate::upload::{declared_length, drain, drain_body, multipart_error, read_small};
use axum::extract::{DefaultBodyLimit, FromRequest, Multipart, RawQuery, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::{DomainError, FieldError};
use meridian_eo::ingest::{Ingested, UploadedAsset};
use meridian_eo::search::Search;
use meridian_eo::stac::{self, GEOJSON};
use serde_json::{json, Value};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

pub(super) fn router() -> OpenApiRouter<AppState> {
    // Uploads may be far larger than the JSON body limit: the handler enforces
    // `limits.upload_bytes` itself while streaming, and `limits.body_bytes` on JSON.
    OpenApiRouter::new().routes(routes!(list_eo_items, add_eo_items)).layer(DefaultBodyLimit::disable()).merge(
        OpenApiRouter::new()
            .routes(routes!(get_eo_item, replace_eo_item, patch_eo_item, delete_eo_item))
            .routes(routes!(get_eo_asset)),
    )
}

#[utoipa::path(
    get,
    path = "/api/v1/eo/collections/{cid}/items",
    tag = "eo",
    params(
        ("cid" = String, Path, description = "Collection id"),
        ("bbox" = Option<String>, Query, description = "WGS84 box"),
        ("datetime" = Option<String>, Query, description = "An instant or an interval"),
        ("limit" = Option<i64>, Query, nullable = false, minimum = 1, description = "Page size (default 10; above eo.max_limit the page holds eo.max_limit items)"),
        ("filter" = Option<String>, Query, description = "CQL2 filter"),
        ("sortby" = Option<String>, Query, description = "Sort keys"),
        ("fields" = Option<String>, Query, description = "Fields to include or exclude"),
        ("token" = Option<String>, Query, description = "Continuation token of a `next` link"),
    ),
    responses((status = 200, description = "The collection's items as an ItemCollection", body = crate::schemas::StacItemCollection, content_type = "application/geo+json"))
)]
async fn list_eo_items(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(cid): Path<String>,
    RawQuery(raw): RawQuery,
) -> ApiResult<Response> {
    let pairs: Vec<(String, String)> =
        form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes()).into_owned().collect();
    // `collections` naming this collection is accepted: pystac-client sends it with every page.
    let mut search = Search::from_query(&pairs, true).map_err(bad_request)?;
    if search.collections.iter().any(|c| *c != cid) {
        return Err(bad_request(vec![FieldError::new(
            "/collections",
            "invalid_value",
            format!("these are the items of {cid}: `collections` may name only {cid}"),
        )]));
    }
    state.eo.collection(&caller.account_id, &cid).await.map_err(area_error)?;
    search.collections = vec![cid.clone()];
    let page = state.eo.search(&caller.account_id, &search).await.map_err(area_error)?;
    let l = links(&state, &headers);
    let href = format!("{}/collections/{cid}/items", l.root());
    let self_href = match &raw {
        Some(q) if !q.is_empty() => format!("{href}?{q}"),
        _ => href.clone(),
    };
    let mut doc = item_collection(&l, &search, &page, &self_href, NextLink::Get { href: &href, pairs: &pairs });
    if let Some(list) = doc["links"].as_array_mut() {
        list.push(
            json!({"rel": "collection", "href": format!("{}/collections/{cid}", l.root()), "type": "application/json"}),
        );
        list.push(
            json!({"rel": "parent", "href": format!("{}/collections/{cid}", l.root()), "type": "application/json"}),
        );
    }
    Ok(document(StatusCode::OK, GEOJSON, &doc))
}

#[utoipa::path(
    post,
    path = "/api/v1/eo/collections/{cid}/items",
    tag = "eo",
    params(("cid" = String, Path, description = "Collection id")),
    request_body(
        content(
            (crate::schemas::StacItemInput = "application/json"),
            (crate::schemas::StacItemUpload = "multipart/form-data"),
        ),
        description = "JSON: a STAC Item, or a FeatureCollection of up to `eo.max_items_per_request` Items, whose asset hrefs are http(s) URLs. multipart/form-data: a part `item` (at least `id` and `datetime`, and the assets' `eo:bands`) and one GeoTIFF file part per asset, named by the asset key; the server derives the footprint, bbox, `proj:*` and `raster:bands`."
    ),
    responses(
        (status = 201, description = "Published: the Item (`application/geo+json`), or for a FeatureCollection the ids added (`application/json`)", content(
            (crate::schemas::StacItem = "application/geo+json"),
            (crate::schemas::StacItemsAdded = "application/json"),
        )),
        (status = 202, description = "An upload with non-COG files: an `eo.ingest` job converts them and publishes the item; `Location` names the job", body = crate::schemas::JobAccepted),
        (status = 409, description = "The collection already has an item with this id", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The upload is larger than `limits.upload_bytes`", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 415, description = "Neither JSON nor multipart/form-data", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 422, description = "Not a valid item, or a file that is not a GeoTIFF", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn add_eo_items(
    State(state): State<AppState>,
    caller: Caller,
    Path(cid): Path<String>,
    req: Request,
) -> ApiResult<Response> {
    let headers = req.headers().clone();
    let essence = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|ct| ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
        .unwrap_or_default();
    let close = |e: ApiError| e.with_header(header::CONNECTION, HeaderValue::from_static("close"));
    let l = links(&state, &headers);
    if essence == "multipart/form-data" {
        let ingested = upload(&state, &caller, &cid, &headers, req).await.map_err(close)?;
        return Ok(match ingested {
            Ingested::Item(item) => item_answer(StatusCode::CREATED, &l, &item),
            Ingested::Job(job) => {
                let location = format!("/api/v1/jobs/{}", job.id);
                let body = json!({"job": job.id.0, "status": job.status.as_str(), "href": location});
                let mut r = (StatusCode::ACCEPTED, axum::Json(body)).into_response();
                if let Ok(v) = HeaderValue::from_str(&location) {
                    r.headers_mut().insert(header::LOCATION, v);
                }
                r
            }
        });
    }
    if !(essence == "application/json" || essence == "application/geo+json") {
        drain_body(&headers, req).await;
        return Err(close(ApiError::unsupported_media_type(format!(
            "send application/json (an Item or a FeatureCollection) or multipart/form-data (an `item` part and files), not {}",
            if essence.is_empty() { "no Content-Type" } else { &essence }
        ))));
    }
    let limit = state.config.limits.body_bytes;
    if declared_length(&headers).is_some_and(|n| n > limit as u64) {
        drain_body(&headers, req).await;
        return Err(close(ApiError::too_large(format!("the body is larger than {limit} bytes (limits.body_bytes)"))));
    }
    let bytes = axum::body::to_bytes(req.into_body(), limit)
        .await
        .map_err(|_| ApiError::too_large(format!("the body is larger than {limit} bytes (limits.body_bytes)")))?;
    let body: Value = parse_json(&bytes)?;
    let items = state.eo.add_items(&caller.account_id, &cid, &body).await.map_err(area_error)?;
    if items.len() == 1 && body.get("type").and_then(Value::as_str) != Some("FeatureCollection") {
        return Ok(item_answer(StatusCode::CREATED, &l, &items[0]));
    }
    let ids: Vec<&str> = items.iter().map(|i| i.id.as_str()).collect();
    Ok(document(StatusCode::CREATED, "application/json", &json!({"added": ids.len(), "ids": ids})))
}

/// Reads an upload's parts (the `item` JSON, files staged on disk) and hands them to the service.
async fn upload(
    state: &AppState,
    caller: &Caller,
    cid: &str,
    headers: &HeaderMap,
    req: Request,
) -> ApiResult<Ingested> {
    let limits = &state.config.limits;
    if declared_length(headers).is_some_and(|n| n > limits.upload_bytes.saturating_add(limits.body_bytes as u64)) {
        drain_body(headers, req).await;
        return Err(crate::upload::too_large(limits.upload_bytes));
    }
    let mut multipart = Multipart::from_request(req, state).await.map_err(|r| ApiError::malformed(r.body_text()))?;
    let parts = read_parts(state, &mut multipart).await;
    let (part, files) = match parts {
        Ok(p) => p,
        Err(e) => {
            drain(&mut multipart).await;
            return Err(e);
        }
    };
    let Some(part) = part else {
        return Err(ApiError::invalid(vec![FieldError::new("/item", "required", "send an `item` part (JSON)")]));
    };
    let part: Value =
        parse_json(&part).map_err(|e| ApiError::malformed(format!("the item part: {}", e.problem.detail)))?;
    let assets: Vec<UploadedAsset> = files
        .iter()
        .map(|(key, file, filename)| UploadedAsset {
            key: key.clone(),
            path: file.path().to_path_buf(),
            filename: filename.clone(),
        })
        .collect();
    let ingested = state.eo.ingest(&caller.account_id, cid, &part, assets).await.map_err(area_error);
    drop(files);
    ingested
}

type Files = Vec<(String, crate::upload::StagedFile, Option<String>)>;

async fn read_parts(state: &AppState, multipart: &mut Multipart) -> ApiResult<(Option<Vec<u8>>, Files)> {
    let limits = &state.config.limits;
    let mut item = None;
    let mut files: Files = Vec::new();
    let mut total = 0u64;
    while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
        let name = field.name().unwrap_or("").to_owned();
        if name == "item" {
            if item.is_some() {
                return Err(ApiError::invalid(vec![FieldError::new(
                    "/item",
                    "duplicate_part",
                    "send one `item` part",
                )]));
            }
            item = Some(read_small(&mut field, limits.body_bytes, "item").await?);
            continue;
        }
        if !stac::valid_id(&name) {
            return Err(ApiError::invalid(vec![FieldError::new(
                "/assets",
                "invalid_key",
                "file parts are named by their asset key: letters, digits, `_`, `-`, `.`, `:`",
            )]));
        }
        if files.iter().any(|(k, _, _)| *k == name) {
            return Err(ApiError::invalid(vec![FieldError::new(
                format!("/assets/{name}"),
                "duplicate_part",
                "one file per asset",
            )]));
        }
        if files.len() >= 64 {
            return Err(ApiError::invalid(vec![FieldError::new("/assets", "too_many", "at most 64 files")]));
        }
        let filename = field.file_name().and_then(crate::upload::clean_filename);
        let left = limits.upload_bytes.saturating_sub(total);
        let staged = crate::upload::stage(state, &mut field, left, multipart_error).await?;
        total += staged.as_file().metadata().map(|m| m.len()).unwrap_or(0);
        files.push((name, staged, filename));
    }
    Ok((item, files))
}

#[utoipa::path(
    get,
    path = "/api/v1/eo/collections/{cid}/items/{iid}",
    tag = "eo",
    params(("cid" = String, Path, description = "Collection id"), ("iid" = String, Path, description = "Item id")),
    responses((status = 200, description = "The STAC Item; `ETag`", body = crate::schemas::StacItem, content_type = "application/geo+json"))
)]
async fn get_eo_item(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path((cid, iid)): Path<(String, String)>,
) -> ApiResult<Response> {
    let item = state.eo.item(&caller.account_id, &cid, &iid).await.map_err(area_error)?;
    Ok(item_answer(StatusCode::OK, &links(&state, &headers), &item))
}

fn if_match(headers: &HeaderMap, iid: &str) -> ApiResult<Option<i64>> {
    crate::etag::expected_version(headers, &format!("{iid}-v"))
}

#[utoipa::path(
    put,
    path = "/api/v1/eo/collections/{cid}/items/{iid}",
    tag = "eo",
    params(
        ("cid" = String, Path, description = "Collection id"),
        ("iid" = String, Path, description = "Item id"),
        ("If-Match" = Option<String>, Header, description = "Replace only if the item's ETag is still this one"),
    ),
    request_body(content = crate::schemas::StacItem, description = "The whole STAC Item; stored assets keep their hrefs"),
    responses(
        (status = 200, description = "Replaced; announced as `eo.scene.published`", body = crate::schemas::StacItem, content_type = "application/geo+json"),
        (status = 412, description = "`If-Match` named an older version", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn replace_eo_item(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path((cid, iid)): Path<(String, String)>,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    object_body(&body)?;
    let expected = if_match(&headers, &iid)?;
    let item = state.eo.replace_item(&caller.account_id, &cid, &iid, &body, expected).await.map_err(area_error)?;
    Ok(item_answer(StatusCode::OK, &links(&state, &headers), &item))
}

#[utoipa::path(
    patch,
    path = "/api/v1/eo/collections/{cid}/items/{iid}",
    tag = "eo",
    params(
        ("cid" = String, Path, description = "Collection id"),
        ("iid" = String, Path, description = "Item id"),
        ("If-Match" = Option<String>, Header, description = "Patch only if the item's ETag is still this one"),
    ),
    request_body(content = crate::schemas::StacItemPatch, description = "A JSON merge patch (RFC 7396) of the Item"),
    responses(
        (status = 200, description = "Patched", body = crate::schemas::StacItem, content_type = "application/geo+json"),
        (status = 412, description = "`If-Match` named an older version", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn patch_eo_item(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path((cid, iid)): Path<(String, String)>,
    Json(patch): Json<Value>,
) -> ApiResult<Response> {
    object_body(&patch)?;
    let expected = if_match(&headers, &iid)?;
    let item = state.eo.patch_item(&caller.account_id, &cid, &iid, &patch, expected).await.map_err(area_error)?;
    Ok(item_answer(StatusCode::OK, &links(&state, &headers), &item))
}

#[utoipa::path(
    delete,
    path = "/api/v1/eo/collections/{cid}/items/{iid}",
    tag = "eo",
    params(
        ("cid" = String, Path, description = "Collection id"),
        ("iid" = String, Path, description = "Item id"),
        ("If-Match" = Option<String>, Header, description = "Delete only if the item's ETag is still this one"),
    ),
    responses(
        (status = 204, description = "The item and its stored assets are deleted"),
        (status = 412, description = "`If-Match` named an older version", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn delete_eo_item(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path((cid, iid)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    let expected = if_match(&headers, &iid)?;
    state.eo.delete_item(&caller.account_id, &cid, &iid, expected).await.map_err(area_error)?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(
    get,
    path = "/api/v1/eo/collections/{cid}/items/{iid}/assets/{key}",
    tag = "eo",
    params(
        ("cid" = String, Path, description = "Collection id"),
        ("iid" = String, Path, description = "Item id"),
        ("key" = String, Path, description = "Asset key"),
        ("Range" = Option<String>, Header, description = "One byte range (`bytes=0-16383`): 206 with that part"),
    ),
    responses(
        (status = 200, description = "The asset's Cloud Optimized GeoTIFF", content_type = "image/tiff"),
        (status = 206, description = "The requested byte range", content_type = "image/tiff"),
        (status = 304, description = "`If-None-Match` names the current ETag"),
    )
)]
async fn get_eo_asset(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path((cid, iid, key)): Path<(String, String, String)>,
) -> ApiResult<Response> {
    let item = state.eo.item(&caller.account_id, &cid, &iid).await.map_err(area_error)?;
    let asset = item.body.pointer(&format!("/assets/{}", key.replace('~', "~0").replace('/', "~1")));
    let stored = asset
        .and_then(|a| a.get("href"))
        .and_then(Value::as_str)
        .is_some_and(|h| h == meridian_eo::service::asset_href(&cid, &iid, &key));
    if !stored {
        return Err(DomainError::not_found("asset", format!("{key} of {cid}/{iid} (stored assets only)")).into());
    }
    let size = asset.and_then(|a| a.get("file:size")).and_then(Value::as_u64).unwrap_or(0);
    let blob = meridian_eo::service::keys::asset(&caller.account_id, &cid, &iid, &key);
    // An asset never changes while its item exists: the item's creation names it.
    let tag = crate::etag::tag(&format!("{iid}-{key}-{}-", item.created_at.millis()), size as i64);
    let tag = tag.to_str().unwrap_or("\"\"");
    let filename = format!("{iid}-{key}.tif");
    let download = crate::download::Download {
        store: state.eo.blobs(),
        key: &blob,
        size,
        media_type: meridian_eo::stac::COG_TYPE,
        etag: tag,
        filename: &filename,
        cache_control: "private, max-age=86400",
    };
    crate::download::serve(download, &headers).await
}
