//! DEM jobs: list, poll, cancel, and download outputs (with `Range`, so that GDAL's `/vsicurl/`
//! reads a COG output in place).

use super::DemJobView;
use crate::auth::Caller;
use crate::error::ApiResult;
use crate::extract::{Json, Path, Query};
use crate::paging::base_url;
use crate::state::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use meridian_core::problem::code;
use meridian_core::DomainError;
use meridian_dem::job::KIND;
use meridian_dem::JobOutput;
use meridian_store::model::{Job, JobStatus};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/api/v1/dem/jobs`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_dem_jobs))
        .routes(routes!(get_dem_job, cancel_dem_job))
        .routes(routes!(get_dem_output))
}

/// A page of DEM jobs.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct DemJobList {
    pub jobs: Vec<DemJobView>,
    pub total: u64,
}

use crate::paging::PageQuery;

/// A DEM job of the caller's account; any other job is not found.
pub(crate) async fn load_job(state: &AppState, caller: &Caller, id: &str) -> ApiResult<Job> {
    Ok(state.jobs.get_of(&caller.account_id, id, Some(KIND)).await?)
}

#[utoipa::path(
    get,
    path = "/api/v1/dem/jobs",
    tag = "dem",
    params(PageQuery),
    responses((status = 200, description = "The account's DEM jobs, newest first; `Link` has next/prev", body = DemJobList))
)]
async fn list_dem_jobs(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Query(q): Query<PageQuery>,
) -> ApiResult<Response> {
    let page = crate::paging::page(&state.config, q.limit, q.offset, q.cursor.as_deref())?;
    let (jobs, total) = state.jobs.list(&caller.account_id, Some(KIND), page).await?;
    let last = jobs.last().map(|v| v.id.to_string());
    let base = base_url(&state, &headers);
    let jobs = jobs.into_iter().map(|j| DemJobView::new(j, &base, state.config.dem.max_zoom)).collect();
    let mut response = Json(DemJobList { jobs, total }).into_response();
    crate::paging::link(&mut response, "/api/v1/dem/jobs", "", page, total, last.as_deref());
    Ok(response)
}

#[utoipa::path(
    get,
    path = "/api/v1/dem/jobs/{job_id}",
    tag = "dem",
    params(("job_id" = String, Path, description = "`job_...`")),
    responses((status = 200, description = "Status, progress, timestamps, error, outputs with statistics, and tile URL templates", body = DemJobView))
)]
async fn get_dem_job(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(job_id): Path<String>,
) -> ApiResult<Json<DemJobView>> {
    let job = load_job(&state, &caller, &job_id).await?;
    Ok(Json(DemJobView::new(job, &base_url(&state, &headers), state.config.dem.max_zoom)))
}

#[utoipa::path(
    delete,
    path = "/api/v1/dem/jobs/{job_id}",
    tag = "dem",
    params(("job_id" = String, Path, description = "`job_...`")),
    responses(
        (status = 200, description = "Cancelled (a queued job), or cancelling (a running job stops at its next block)", body = DemJobView),
        (status = 409, description = "The job already ended", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn cancel_dem_job(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path(job_id): Path<String>,
) -> ApiResult<Json<DemJobView>> {
    let job = state.jobs.cancel_of(&caller.account_id, &job_id, Some(KIND)).await?;
    Ok(Json(DemJobView::new(job, &base_url(&state, &headers), state.config.dem.max_zoom)))
}

#[utoipa::path(
    get,
    path = "/api/v1/dem/jobs/{job_id}/outputs/{name}",
    tag = "dem",
    params(
        ("job_id" = String, Path, description = "`job_...`"),
        ("name" = String, Path, description = "The output's file name (`hillshade.tif`, `contours.geojson`, `contours.fgb`) or operation"),
    ),
    responses(
        (status = 200, description = "The output: a Cloud Optimized GeoTIFF or GeoJSON", content_type = "application/octet-stream"),
        (status = 206, description = "The byte range asked for with `Range`"),
        (status = 304, description = "Not modified (`If-None-Match`)"),
        (status = 409, description = "The job has not succeeded", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn get_dem_output(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    Path((job_id, name)): Path<(String, String)>,
) -> ApiResult<Response> {
    let job = load_job(&state, &caller, &job_id).await?;
    if job.status != JobStatus::Succeeded {
        return Err(DomainError::conflict(
            code::JOB_NOT_SUCCEEDED,
            format!("job {job_id} is {}; outputs can be downloaded once it succeeded", job.status.as_str()),
        )
        .into());
    }
    let output = JobOutput::of(&job).unwrap_or_default();
    let record =
        output.find(&name).ok_or_else(|| DomainError::not_found("output", format!("{name} of job {job_id}")))?;
    let key = record.key(&job);
    // Outputs never change once their job succeeded: the job, the name and the size name them.
    let etag = crate::etag::tag(&format!("{}-{}-", job.id, record.name), record.size as i64);
    let etag = etag.to_str().unwrap_or("\"\"");
    let filename = format!("{}-{}", job.id, record.name);
    let download = crate::download::Download {
        store: state.dem.blobs(),
        key: &key,
        size: record.size,
        media_type: &record.media_type,
        etag,
        filename: &filename,
        cache_control: "private, max-age=86400",
    };
    crate::download::serve(download, &headers).await
}
