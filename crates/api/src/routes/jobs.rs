//! Jobs of every area, as one list: poll and cancel. Areas submit jobs through their own routes
//! and show the same view under their own paths.

use crate::auth::Caller;
use crate::error::ApiResult;
use crate::extract::{Json, Path, Query};
use crate::state::AppState;
use axum::extract::State;
use axum::response::IntoResponse;
use meridian_core::Timestamp;
use meridian_store::model::Job;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes under `/api/v1/jobs`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_jobs)).routes(routes!(get_job, cancel_job))
}

/// A job as its owner sees it.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct JobView {
    /// `job_...`
    pub id: String,
    /// What the job does, e.g. `dem.process`.
    pub kind: String,
    /// `queued`, `running`, `succeeded`, `failed` or `cancelled`.
    pub status: String,
    /// 0 to 100.
    pub progress: u8,
    /// Attempts so far (a job is retried after passing failures).
    pub attempts: u32,
    /// Whether cancellation was asked for; it stays true once the job is cancelled.
    pub cancel_requested: bool,
    pub created_at: Timestamp,
    pub started_at: Option<Timestamp>,
    pub finished_at: Option<Timestamp>,
    pub updated_at: Timestamp,
    /// The failure, as a problem document.
    pub error: Option<Value>,
    /// What the job produced.
    pub output: Option<Value>,
}

impl From<Job> for JobView {
    fn from(j: Job) -> Self {
        Self {
            id: j.id.0,
            kind: j.kind,
            status: j.status.as_str().to_owned(),
            progress: j.progress,
            attempts: j.attempts,
            cancel_requested: j.cancel_requested,
            created_at: j.created_at,
            started_at: j.started_at,
            finished_at: j.finished_at,
            updated_at: j.updated_at,
            // A failure on an attempt that will be retried is not the job's error yet.
            error: if j.status.is_terminal() { j.error } else { None },
            output: j.output,
        }
    }
}

/// A page of jobs.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
pub struct JobList {
    pub jobs: Vec<JobView>,
    pub total: u64,
}

/// Filters and paging of the job list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct JobQuery {
    /// Only jobs of this kind.
    pub kind: Option<String>,
    /// Page size: 1 to `limits.max_page_size` (1000 unless the operator changed it); default 100.
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
    /// Items to skip (default 0).
    #[param(minimum = 0)]
    pub offset: Option<i64>,
    /// Where the page starts: the `cursor` of a `next` link (it replaces `offset`).
    pub cursor: Option<String>,
}

#[utoipa::path(
    get,
    path = "/api/v1/jobs",
    tag = "jobs",
    params(JobQuery),
    responses((status = 200, description = "The account's jobs, newest first", body = JobList))
)]
async fn list_jobs(
    State(state): State<AppState>,
    caller: Caller,
    Query(q): Query<JobQuery>,
) -> ApiResult<impl IntoResponse> {
    let page = crate::paging::page(&state.config, q.limit, q.offset, q.cursor.as_deref())?;
    let (jobs, total) = state.jobs.list(&caller.account_id, q.kind.as_deref(), page).await?;
    let last = jobs.last().map(|v| v.id.to_string());
    let mut response = Json(JobList { jobs: jobs.into_iter().map(Into::into).collect(), total }).into_response();
    let extra = q.kind.map(|k| format!("kind={}", form_urlencoded::byte_serialize(k.as_bytes()).collect::<String>()));
    crate::paging::link(&mut response, "/api/v1/jobs", extra.as_deref().unwrap_or(""), page, total, last.as_deref());
    Ok(response)
}

#[utoipa::path(
    get,
    path = "/api/v1/jobs/{job_id}",
    tag = "jobs",
    params(("job_id" = String, Path, description = "`job_...`")),
    responses((status = 200, description = "The job", body = JobView))
)]
async fn get_job(
    State(state): State<AppState>,
    caller: Caller,
    Path(job_id): Path<String>,
) -> ApiResult<Json<JobView>> {
    Ok(Json(state.jobs.get(&caller.account_id, &job_id).await?.into()))
}

#[utoipa::path(
    delete,
    path = "/api/v1/jobs/{job_id}",
    tag = "jobs",
    params(("job_id" = String, Path, description = "`job_...`")),
    responses(
        (status = 200, description = "Cancelled (queued) or cancelling (running)", body = JobView),
        (status = 409, description = "The job already ended", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn cancel_job(
    State(state): State<AppState>,
    caller: Caller,
    Path(job_id): Path<String>,
) -> ApiResult<Json<JobView>> {
    let job = state.jobs.cancel(&caller.account_id, &job_id).await?;
    Ok(Json(job.into()))
}
