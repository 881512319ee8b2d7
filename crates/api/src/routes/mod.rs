//! The routers, one module per resource, merged here with the shared layers; and the OpenAPI
//! document collected from the same routes.

pub mod accounts;
pub mod api_keys;
pub mod console;
pub mod dem;
pub mod dns;
pub mod eo;
pub mod features;
pub mod jobs;
pub mod ogc;
pub mod pointcloud;
pub mod system;
pub mod tokens;
pub mod twin;
pub mod webhooks;

use crate::auth::require_auth;
use crate::middleware::{deadline, observe, panic_response, tag_route};
use crate::state::AppState;
use axum::extract::DefaultBodyLimit;
use axum::Router;
use meridian_core::problem::MEDIA_TYPE;
use std::sync::OnceLock;
use tower_http::catch_panic::CatchPanicLayer;
use utoipa::openapi::security::{
    ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme,
};
use utoipa::openapi::{OpenApi as OpenApiDoc, RefOr};
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Meridian",
        description = "DNS, geospatial, digital twin and webhook platform. DNS management lives under `/v1/dns`; \
            every other area under `/api/v1`. Errors are RFC 7807 problem documents (`application/problem+json`).",
        license(name = "Apache-2.0", identifier = "Apache-2.0"),
    ),
    servers((url = "/", description = "This server")),
    tags(
        (name = "accounts", description = "Accounts (tenants), API keys and access tokens"),
        (name = "jobs", description = "Durable jobs of every area"),
        (name = "dns", description = "DNS zones, records, zone files and DNSSEC, served by the authoritative DNS server"),
        (name = "cadastre", description = "Cadastral parcels: spatial filters, CRS, CQL2, versions"),
        (name = "dem", description = "DEM processing jobs (gdaldem operations, contours) and terrain tiles"),
        (name = "eo", description = "Earth observation: a STAC API of scenes and assets, uploads, NDVI/NDWI and band math, zonal statistics"),
        (name = "pointcloud", description = "Point clouds: LAS/LAZ upload and indexing, noise, ground and learned classification, LAS/LAZ/COPC download"),
        (name = "twin", description = "Digital twins: 3D Tiles from the cadastre and a DEM, assets as of a simulation clock, sensors, readings (HTTP, MQTT) and a WebSocket of live telemetry"),
        (name = "ogc", description = "OGC API Features (Parts 1-4), WMS 1.3.0, WMTS 1.0.0 and WFS 2.0"),
        (name = "system", description = "Health, metrics, OpenAPI and documentation"),
        (name = "webhooks", description = "Webhook subscriptions, signed at-least-once deliveries, replay"),
    ),
    modifiers(&Security),
    components(schemas(meridian_core::problem::Problem, meridian_core::FieldError)),
)]
struct ApiDoc;

/// Operations that need no credentials.
const PUBLIC: &[(&str, &str)] = &[
    ("post", "/api/v1/accounts"),
    ("post", "/api/v1/auth/token"),
    ("get", "/healthz"),
    ("get", "/readyz"),
    ("get", "/metrics"),
    ("get", "/"),
    ("get", "/api/v1"),
    ("get", "/api/v1/openapi.json"),
    ("get", "/docs"),
    ("get", "/docs/problems"),
    ("get", "/api/v1/ogc/v1/features"),
    ("get", "/api/v1/ogc/v1/features/conformance"),
    ("get", "/api/v1/ogc/v1/features/api"),
];

struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut OpenApiDoc) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("An API key (`mrd_...`) or an access token from POST /api/v1/auth/token"))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-Api-Key",
                "An API key (`mrd_...`) only; access tokens go in `Authorization: Bearer`",
            ))),
        );
        components.add_security_scheme(
            "access_token",
            SecurityScheme::ApiKey(ApiKey::Query(ApiKeyValue::with_description(
                "access_token",
                "A short-lived access token from POST /api/v1/auth/token, in the URL, for reads by clients \
                 that cannot send headers (map clients, viewers, a browser's WebSocket); never an API key",
            ))),
        );
    }
}

/// Adds the security requirement to protected operations and the problem document as the
/// default response of every operation. Every protected read also takes an access token in the
/// URL (`require_auth`): that is the `access_token` scheme, never a parameter of its own.
fn finish(mut doc: OpenApiDoc) -> OpenApiDoc {
    let problem = utoipa::openapi::ResponseBuilder::new()
        .description("An error, as an RFC 7807 problem document")
        .content(
            meridian_core::problem::MEDIA_TYPE,
            utoipa::openapi::ContentBuilder::new()
                .schema(Some(RefOr::Ref(utoipa::openapi::Ref::from_schema_name("Problem"))))
                .build(),
        )
        .build();
    for (path, item) in doc.paths.paths.iter_mut() {
        let ops = [
            ("get", &mut item.get),
            ("post", &mut item.post),
            ("put", &mut item.put),
            ("patch", &mut item.patch),
            ("delete", &mut item.delete),
        ];
        for (method, op) in ops {
            let Some(op) = op.as_mut() else { continue };
            op.responses.responses.entry("default".into()).or_insert_with(|| RefOr::T(problem.clone()));
            problems_as_problem_json(&mut op.responses);
            if let Some(params) = op.parameters.as_mut() {
                params.retain(|p| p.name != "access_token");
            }
            if !PUBLIC.contains(&(method, path.as_str())) && op.security.is_none() {
                let mut schemes = vec![
                    SecurityRequirement::new("bearer", Vec::<String>::new()),
                    SecurityRequirement::new("api_key", Vec::<String>::new()),
                ];
                // WFS queries and STAC searches are POSTed reads (see `require_auth`).
                if method == "get"
                    || matches!((method, path.as_str()), ("post", "/api/v1/ogc/wfs" | "/api/v1/eo/search"))
                {
                    schemes.push(SecurityRequirement::new("access_token", Vec::<String>::new()));
                }
                op.security = Some(schemes);
            }
        }
    }
    doc
}

/// Error responses declared with the `Problem` body are served as `application/problem+json`
/// (see `ApiError`), whatever media type the route's annotation defaulted to.
fn problems_as_problem_json(responses: &mut utoipa::openapi::Responses) {
    let problem_ref = utoipa::openapi::Ref::from_schema_name("Problem").ref_location;
    for (status, response) in responses.responses.iter_mut() {
        let RefOr::T(response) = response else { continue };
        if !(status.starts_with('4') || status.starts_with('5') || status == "default") {
            continue;
        }
        let is_problem =
            |c: &utoipa::openapi::Content| matches!(&c.schema, Some(RefOr::Ref(r)) if r.ref_location == problem_ref);
        let media: Vec<String> = response
            .content
            .iter()
            .filter(|(m, c)| *m != MEDIA_TYPE && is_problem(c))
            .map(|(m, _)| m.clone())
            .collect();
        for m in media {
            if let Some(c) = response.content.shift_remove(&m) {
                response.content.entry(MEDIA_TYPE.to_owned()).or_insert(c);
            }
        }
    }
}

/// The OpenAPI document (3.1) of every route.
pub fn openapi() -> OpenApiDoc {
    static DOC: OnceLock<OpenApiDoc> = OnceLock::new();
    DOC.get_or_init(|| {
        let (_, doc) = OpenApiRouter::<AppState>::with_openapi(ApiDoc::openapi())
            .merge(public_routes())
            .merge(protected_routes())
            .split_for_parts();
        finish(doc)
    })
    .clone()
}

fn public_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(system::router())
        .merge(accounts::public())
        .merge(tokens::router())
        .merge(features::ogc::public())
}

fn protected_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(accounts::protected())
        .merge(api_keys::router())
        .merge(jobs::router())
        .merge(dem::router())
        .merge(eo::router())
        .merge(pointcloud::router())
        .merge(twin::router())
        .merge(dns::router())
        .merge(webhooks::router())
        .merge(features::items::router())
        .merge(features::ogc::protected())
        .merge(ogc::router())
}

/// The whole HTTP API.
pub fn router(state: AppState) -> Router {
    let protected =
        Router::from(protected_routes()).route_layer(axum::middleware::from_fn_with_state(state.clone(), require_auth));
    let app = Router::from(public_routes())
        .merge(console::router())
        .merge(protected)
        .route_layer(axum::middleware::from_fn(tag_route))
        .layer(DefaultBodyLimit::max(state.config.limits.body_bytes))
        .layer(CatchPanicLayer::custom(panic_response))
        .layer(axum::middleware::from_fn_with_state(state.clone(), deadline))
        .layer(axum::middleware::from_fn(observe));
    let app = match state.config.server.cors_origins.as_slice() {
        [] => app,
        origins => app.layer(crate::middleware::cors(origins)),
    };
    app.with_state(state)
}

pub use crate::paging::page_links;
