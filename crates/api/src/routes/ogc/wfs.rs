//! WFS 2.0 at `/api/v1/ogc/wfs`: KVP requests by GET, XML requests (and form-encoded KVP) by
//! POST, answered by `meridian_ogc::wfs::WfsService`. Errors are OWS exception reports with the
//! status the standard gives their code.

use crate::auth::Caller;
use crate::paging::base_url;
use crate::state::AppState;
use axum::body::{Body, Bytes};
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_ogc::ows::{OgcError, OgcResult, Service};
use meridian_ogc::wfs::{self, Context, FeatureStream};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

const PATH: &str = "/api/v1/ogc/wfs";

/// Query parameters carried into every URL the service writes (map clients that cannot send
/// headers authenticate with them).
const CARRIED: &[&str] = &["access_token"];

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_wfs, post_wfs))
}

fn context(state: &AppState, caller: &Caller, headers: &HeaderMap, raw: Option<&str>) -> Context {
    let carry = form_urlencoded::parse(raw.unwrap_or("").as_bytes())
        .filter(|(k, _)| CARRIED.iter().any(|c| k.eq_ignore_ascii_case(c)))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    Context {
        account: caller.account_id.clone(),
        service_url: format!("{}{PATH}", base_url(state, headers)),
        carry,
        may_write: caller.allows("ogc", meridian_core::scope::Access::Write),
    }
}

fn exception(e: OgcError) -> Response {
    let status = StatusCode::from_u16(Service::Wfs.status(e.code)).unwrap_or(StatusCode::BAD_REQUEST);
    let mut r = (status, Service::Wfs.report(&e)).into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/xml"));
    r
}

fn stream_body(stream: FeatureStream) -> Body {
    let chunks = futures::stream::unfold(Some(stream), |state| async move {
        let mut s = state?;
        match s.next_chunk().await {
            Ok(Some(chunk)) => Some((Ok::<Bytes, std::io::Error>(Bytes::from(chunk)), Some(s))),
            Ok(None) => None,
            // The status is sent: the answer can only be cut short.
            Err(e) => Some((Err(std::io::Error::other(e.to_string())), None)),
        }
    });
    Body::from_stream(chunks)
}

fn answer(result: OgcResult<wfs::Response>) -> Response {
    match result {
        Err(e) => exception(e),
        Ok(r) => {
            let body = match r.body {
                wfs::Body::Text(s) => Body::from(s),
                wfs::Body::Features(s) => stream_body(*s),
            };
            let mut resp = Response::new(body);
            resp.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(r.content_type));
            resp
        }
    }
}

#[utoipa::path(
    get,
    path = "/api/v1/ogc/wfs",
    tag = "ogc",
    description = "WFS 2.0 in the KVP encoding: GetCapabilities, DescribeFeatureType, GetFeature, \
        GetPropertyValue, ListStoredQueries, DescribeStoredQueries. Parameter names are case-insensitive; \
        every parameter of OGC 09-025r2 is accepted (those listed are the common ones). Errors are OWS 1.1 \
        exception reports.",
    params(
        ("service" = String, Query, description = "WFS", example = "WFS"),
        ("request" = String, Query, description = "The operation", example = "GetCapabilities"),
        ("version" = Option<String>, Query, description = "2.0.0 (required but for GetCapabilities)"),
        ("typeNames" = Option<String>, Query, description = "Feature type (`features:parcels`)"),
        ("filter" = Option<String>, Query, description = "FES 2.0 filter (XML)"),
        ("bbox" = Option<String>, Query, description = "minx,miny,maxx,maxy[,crs]; EPSG:4326 (the default) is latitude first"),
        ("resourceId" = Option<String>, Query, description = "Feature ids"),
        ("sortBy" = Option<String>, Query, description = "`prop ASC|DESC,...`"),
        ("count" = Option<String>, Query, description = "Page size"),
        ("startIndex" = Option<String>, Query, description = "Features to skip"),
        ("resultType" = Option<String>, Query, description = "results or hits"),
        ("outputFormat" = Option<String>, Query, description = "application/gml+xml; version=3.2 (default) or application/json"),
        ("srsName" = Option<String>, Query, description = "CRS of the answer"),
        ("propertyName" = Option<String>, Query, description = "Properties to return"),
        ("valueReference" = Option<String>, Query, description = "GetPropertyValue: the property"),
        ("storedQuery_Id" = Option<String>, Query, description = "urn:ogc:def:query:OGC-WFS::GetFeatureById"),
        ("id" = Option<String>, Query, description = "GetFeatureById: the feature id"),
    ),
    responses(
        (status = 200, description = "Capabilities, schema, features (GML 3.2 or GeoJSON) or values", content((String = "application/xml"), (String = "application/gml+xml; version=3.2"), (String = "application/json"))),
        (status = 400, description = "OWS exception report: MissingParameterValue, InvalidParameterValue, OperationParsingFailed, VersionNegotiationFailed", content_type = "application/xml", body = String),
        (status = 403, description = "OWS exception report: OperationProcessingFailed", content_type = "application/xml", body = String),
        (status = 404, description = "OWS exception report: NotFound (GetFeatureById)", content_type = "application/xml", body = String),
        (status = 501, description = "OWS exception report: OperationNotSupported", content_type = "application/xml", body = String),
    )
)]
async fn get_wfs(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let ctx = context(&state, &caller, &headers, raw.as_deref());
    answer(state.wfs.kvp(&ctx, raw.as_deref().unwrap_or("")).await)
}

#[utoipa::path(
    post,
    path = "/api/v1/ogc/wfs",
    tag = "ogc",
    description = "WFS 2.0 in the XML encoding (every operation, Transaction included), or KVP sent as \
        application/x-www-form-urlencoded.",
    request_body(content = String, content_type = "application/xml", description = "A WFS 2.0 request document"),
    responses(
        (status = 200, description = "The operation's answer", content((String = "application/xml"), (String = "application/gml+xml; version=3.2"), (String = "application/json"))),
        (status = 400, description = "OWS exception report: OperationParsingFailed, MissingParameterValue, InvalidParameterValue, InvalidValue", content_type = "application/xml", body = String),
        (status = 403, description = "OWS exception report: OperationProcessingFailed", content_type = "application/xml", body = String),
        (status = 404, description = "OWS exception report: NotFound", content_type = "application/xml", body = String),
        (status = 501, description = "OWS exception report: OperationNotSupported", content_type = "application/xml", body = String),
    )
)]
async fn post_wfs(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
    body: Bytes,
) -> Response {
    let ctx = context(&state, &caller, &headers, raw.as_deref());
    let Ok(text) = std::str::from_utf8(&body) else {
        return exception(OgcError::parsing("request", "the body is not UTF-8"));
    };
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if form {
        return answer(state.wfs.kvp(&ctx, text).await);
    }
    answer(state.wfs.xml(&ctx, text).await)
}
