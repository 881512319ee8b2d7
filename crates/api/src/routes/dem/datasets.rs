//! Uploaded DEMs: what the engine found in them, to reuse as the `source` of further jobs.

use crate::auth::Caller;
use crate::error::{area_error, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::paging::PageQuery;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use meridian_core::Timestamp;
use meridian_dem::Dataset;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/api/v1/dem/datasets`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_dem_datasets)).routes(routes!(get_dem_dataset, delete_dem_dataset))
}

/// An uploaded DEM.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DatasetView {
    /// `dataset_...`
    pub id: String,
    /// The file name sent with the upload.
    pub filename: Option<String>,
    /// Bytes.
    pub size: u64,
    pub width: usize,
    pub height: usize,
    pub bands: usize,
    /// Sample type, e.g. `Float32`.
    pub data_type: String,
    /// EPSG code of the CRS.
    pub epsg: Option<u16>,
    pub nodata: Option<f64>,
    /// GDAL-order geotransform.
    pub geo_transform: [f64; 6],
    /// Longitude/latitude bounds: min lon, min lat, max lon, max lat.
    pub bounds: Option<[f64; 4]>,
    pub created_at: Timestamp,
}

impl From<Dataset> for DatasetView {
    fn from(d: Dataset) -> Self {
        Self {
            id: d.id.0,
            filename: d.filename,
            size: d.size,
            width: d.info.width,
            height: d.info.height,
            bands: d.info.bands,
            data_type: d.info.data_type,
            epsg: d.info.epsg,
            nodata: d.info.nodata,
            geo_transform: d.info.geo_transform,
            bounds: d.info.bounds,
            created_at: d.created_at,
        }
    }
}

#[utoipa::path(
    get,
    path = "/api/v1/dem/datasets/{dataset_id}",
    tag = "dem",
    params(("dataset_id" = String, Path, description = "`dataset_...`")),
    responses((status = 200, description = "The dataset: size, CRS, geotransform, bounds", body = DatasetView))
)]
async fn get_dem_dataset(
    State(state): State<AppState>,
    caller: Caller,
    Path(dataset_id): Path<String>,
) -> ApiResult<Json<DatasetView>> {
    let d = state.dem.get_dataset(&caller.account_id, &dataset_id).await.map_err(area_error)?;
    Ok(Json(d.into()))
}

/// A page of datasets.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DatasetList {
    pub datasets: Vec<DatasetView>,
    /// All datasets of the account.
    pub total: u64,
}

#[utoipa::path(
    get,
    path = "/api/v1/dem/datasets",
    tag = "dem",
    params(PageQuery),
    responses((status = 200, description = "The account's uploaded DEMs, newest first; `Link` has next/prev", body = DatasetList))
)]
async fn list_dem_datasets(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<PageQuery>,
) -> ApiResult<Response> {
    let page = crate::paging::page(&state.config, q.limit, q.offset, q.cursor.as_deref())?;
    let (datasets, total) = state.dem.list_datasets(&caller.account_id, page).await.map_err(area_error)?;
    let last = datasets.last().map(|v| v.id.to_string());
    let datasets = datasets.into_iter().map(Into::into).collect();
    let mut response = Json(DatasetList { datasets, total }).into_response();
    crate::paging::link(&mut response, "/api/v1/dem/datasets", "", page, total, last.as_deref());
    Ok(response)
}

#[utoipa::path(
    delete,
    path = "/api/v1/dem/datasets/{dataset_id}",
    tag = "dem",
    params(("dataset_id" = String, Path, description = "`dataset_...`")),
    responses(
        (status = 204, description = "Deleted with its files; finished jobs keep their outputs"),
        (status = 409, description = "A queued or running job reads the dataset", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn delete_dem_dataset(
    State(state): State<AppState>,
    caller: Caller,
    Path(dataset_id): Path<String>,
) -> ApiResult<StatusCode> {
    state.dem.remove_dataset(&caller.account_id, &dataset_id).await.map_err(area_error)?;
    Ok(StatusCode::NO_CONTENT)
}
