//! OGC classic web services under `/api/v1/ogc`: one file per service, merged here.

pub mod wfs;

use crate::state::AppState;
use utoipa_axum::router::OpenApiRouter;

/// The OGC services' routes (protected: they serve the caller's own data).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().merge(wfs::router())
}
