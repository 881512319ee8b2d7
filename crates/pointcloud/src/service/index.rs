//! The `pointcloud.index` job: one streaming pass over an upload's points ([`crate::summary`]),
//! the bounds placed in WGS84, and the point cloud made ready with a `pointcloud.uploaded` event
//! in the same commit.

use super::datasets::{file_error, Dataset, Status};
use super::{PointCloudService, INDEX_JOB, UPLOADED};
use crate::summary::{summarize, SummaryError};
use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_core::problem::{code, Problem};
use meridian_jobs::{JobContext, JobError, JobHandler, JobOutcome};
use meridian_store::model::Job;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// Indexes uploads.
pub struct IndexJobHandler {
    service: Arc<PointCloudService>,
}

impl IndexJobHandler {
    /// A handler over the service.
    pub fn new(service: Arc<PointCloudService>) -> Self {
        Self { service }
    }
}

/// The fields every event of a point cloud carries.
pub(crate) fn event_fields(d: &Dataset) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("point_cloud".into(), json!(d.id.as_str()));
    m.insert("name".into(), json!(d.name));
    m.insert("href".into(), json!(format!("/api/v1/pointcloud/{}", d.id)));
    m
}

/// Longitude/latitude bounds of native bounds in `crs` (its EPSG code, or the PROJ string
/// made from its WKT): the box of the transformed outline (densified, so that a projection's
/// curvature is inside), `None` when it cannot be placed. Never native coordinates: a result
/// outside longitudes and latitudes is none.
pub(crate) fn wgs84_bounds(bounds: &[f64; 6], crs: &crate::crs::Crs) -> Option<[f64; 4]> {
    let t = match (crs.epsg, crs.proj.as_deref()) {
        (Some(epsg), _) => meridian_core::crs::Transformer::between_epsg(epsg, 4326).ok()?,
        (None, Some(proj)) => meridian_core::crs::Transformer::from_proj_string(proj, 4326).ok()?,
        (None, None) => return None,
    };
    let (x0, y0, x1, y1) = (bounds[0], bounds[1], bounds[3], bounds[4]);
    let mut pts = Vec::with_capacity(40);
    for k in 0..=10 {
        let f = f64::from(k) / 10.0;
        pts.push((x0 + (x1 - x0) * f, y0));
        pts.push((x0 + (x1 - x0) * f, y1));
        pts.push((x0, y0 + (y1 - y0) * f));
        pts.push((x1, y0 + (y1 - y0) * f));
    }
    if t.apply_in_place(&mut pts) > 0 {
        return None;
    }
    let mut b = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    for (x, y) in pts {
        b = [b[0].min(x), b[1].min(y), b[2].max(x), b[3].max(y)];
    }
    let r = |v: f64| (v * 1e7).round() / 1e7;
    let degrees = (-180.0..=180.0).contains(&b[0])
        && (-180.0..=180.0).contains(&b[2])
        && (-90.0..=90.0).contains(&b[1])
        && (-90.0..=90.0).contains(&b[3]);
    (degrees && b.iter().all(|v| v.is_finite())).then(|| [r(b[0]), r(b[1]), r(b[2]), r(b[3])])
}

#[async_trait]
impl JobHandler for IndexJobHandler {
    fn kind(&self) -> &'static str {
        INDEX_JOB
    }

    fn failure_event(&self, job: &Job, error: &Problem) -> Option<NewEvent> {
        Some(super::classify::failed_event(job, "index", error))
    }

    async fn run(&self, ctx: &JobContext) -> Result<JobOutcome, JobError> {
        let svc = &self.service;
        let account = ctx.job.account_id.clone();
        let id = ctx.job.params["point_cloud"].as_str().unwrap_or_default().to_owned();
        let d = match svc.store.pointcloud.get_point_cloud(&account, &id).await {
            Ok(Some(row)) => Dataset::of_row(row).map_err(JobError::internal)?,
            // The row is committed just after the job is queued; or it was deleted.
            Ok(None) => return Err(JobError::internal(format!("point cloud {id} is not recorded (yet)"))),
            Err(e) => return Err(JobError::internal(e)),
        };
        if d.status != Status::Indexing {
            // Indexed by an earlier attempt whose success was not recorded.
            return Ok(JobOutcome { output: json!({ "point_cloud": id, "status": "ready" }), event: None });
        }
        let dir = svc.staging_dir().map_err(JobError::internal)?.to_path_buf();
        let work = tempfile::tempdir_in(&dir).map_err(JobError::internal)?;
        let path = match svc.local_copy(&d.original_key(), work.path()).await {
            Ok(p) => p,
            Err(super::Error::Domain(_)) => {
                let p = Problem::new(410, code::UPLOAD_GONE, "Upload gone", "the uploaded file is no longer stored");
                return Err(self.fail(d, p).await);
            }
            Err(e) => return Err(JobError::internal(e)),
        };
        let limits = svc.read_limits();
        let cancel = ctx.cancellation();
        let percent = Arc::new(AtomicU8::new(0));
        let seen = percent.clone();
        let started = std::time::Instant::now();
        let summary = tokio::task::spawn_blocking(move || {
            summarize(&path, limits, &|f| {
                seen.store((f * 95.0) as u8, Ordering::Relaxed);
                !cancel.is_cancelled()
            })
        });
        tokio::pin!(summary);
        let summary = loop {
            tokio::select! {
                done = &mut summary => break done.map_err(JobError::internal)?,
                () = tokio::time::sleep(std::time::Duration::from_millis(500)) => {
                    ctx.set_progress(percent.load(Ordering::Relaxed));
                }
            }
        };
        let summary = match summary {
            Ok(s) => s,
            Err(SummaryError::Cancelled) => return Err(JobError::Cancelled),
            Err(SummaryError::Read(crate::reader::ReadError::Io(e))) => return Err(JobError::internal(e)),
            Err(SummaryError::Read(e)) => {
                let f = file_error(&e);
                let p = Problem::new(422, code::JOB_INPUT_INVALID, "The point cloud cannot be read", f.detail);
                return Err(self.fail(d, p).await);
            }
            Err(e @ SummaryError::Count { .. }) => {
                let p = Problem::new(422, code::JOB_INPUT_INVALID, "The point cloud cannot be read", e.to_string());
                return Err(self.fail(d, p).await);
            }
        };
        let mut d = d;
        if d.crs.is_none() {
            d.crs = summary.crs.clone();
        }
        d.bounds_wgs84 = d.crs.as_ref().and_then(|c| wgs84_bounds(&summary.bounds, c));
        let points = summary.points;
        d.summary = Some(summary);
        d.status = Status::Ready;
        let mut fields = event_fields(&d);
        fields.insert("points".into(), json!(points));
        fields.insert("bounds".into(), json!(d.bounds_wgs84));
        let event = NewEvent::new(d.account_id.clone(), UPLOADED, fields);
        svc.save(&d, &[event]).await.map_err(JobError::internal)?;
        ctx.set_progress(100);
        Ok(JobOutcome {
            output: json!({
                "point_cloud": id,
                "points": points,
                "seconds": (started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
            }),
            event: None,
        })
    }
}

impl IndexJobHandler {
    /// Records a permanent failure on the point cloud and returns the job's error (its event is
    /// committed with the job's failure).
    async fn fail(&self, mut d: Dataset, problem: Problem) -> JobError {
        d.status = Status::Failed;
        d.error = Some(problem.clone());
        if let Err(e) = self.service.save(&d, &[]).await {
            tracing::warn!(error = %e, point_cloud = %d.id, "recording a failed indexing failed");
        }
        JobError::Permanent(problem)
    }
}
