//! Classification: the request checked and queued as a `pointcloud.classify` job, and the job,
//! which reads the original, runs [`crate::pipeline`] and stores the classified version (LAZ with
//! a `confidence` extra-bytes attribute) beside the original.

use super::datasets::{Classification, Dataset, Status, Unit};
use super::index::event_fields;
use super::{keys, Error, PointCloudService, Result, CLASSIFIED, CLASSIFY_JOB, FAILED};
use crate::pipeline::{self, PipelineError, PipelineParams};
use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_core::id::AccountId;
use meridian_core::problem::{code, Problem};
use meridian_core::{DomainError, Timestamp};
use meridian_jobs::{JobContext, JobError, JobHandler, JobOutcome};
use meridian_store::model::{Job, NewJob};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

/// The body of `POST /pointcloud/{id}/classify`: which steps run, with which parameters. An
/// empty body runs every step with the defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClassifyParams(pub PipelineParams);

impl ClassifyParams {
    /// Parses a request body (`{}` or empty for the defaults); every mistake is a field error
    /// with its JSON pointer.
    pub fn parse(body: &Value) -> std::result::Result<Self, DomainError> {
        PipelineParams::from_json(body).map(Self).map_err(DomainError::Invalid)
    }
}

impl PointCloudService {
    /// Queues a classification of a ready point cloud; 409 while it is being indexed or classified.
    pub async fn classify(&self, account: &AccountId, id: &str, params: ClassifyParams) -> Result<(Dataset, Job)> {
        let mut d = self.get(account, id).await?;
        match d.status {
            Status::Indexing | Status::Failed => {
                return Err(DomainError::conflict(
                    code::POINT_CLOUD_NOT_READY,
                    format!("point cloud {id} is {}; only an indexed point cloud can be classified", status_word(&d)),
                )
                .into())
            }
            Status::Classifying => {
                return Err(DomainError::conflict(
                    code::POINT_CLOUD_BUSY,
                    format!("point cloud {id} is being classified; wait for that job or cancel it"),
                )
                .into())
            }
            Status::Ready => {}
        }
        let points = d.summary.as_ref().map_or(0, |s| s.points);
        if points > self.config.max_classify_points {
            return Err(DomainError::invalid(
                "/",
                "point_cloud_too_large",
                format!(
                    "the point cloud has {points} points; classification takes at most {} (pointcloud.max_classify_points)",
                    self.config.max_classify_points
                ),
            )
            .into());
        }
        if params.0.steps.classes {
            self.model()?;
        }
        let job = NewJob {
            account_id: account.clone(),
            kind: CLASSIFY_JOB.to_owned(),
            params: json!({ "point_cloud": id, "params": params.0 }),
            max_attempts: self.max_attempts,
        };
        let job = self.store.jobs.submit(job).await?;
        let previous = d.classified().cloned().map(Box::new);
        d.classification = Some(Classification {
            job: job.id.0.clone(),
            status: "queued".into(),
            params: serde_json::to_value(&params.0).map_err(|e| Error::Internal(e.to_string()))?,
            model: None,
            histogram: Default::default(),
            assigned: Default::default(),
            timings: Default::default(),
            points_per_second: None,
            unit: None,
            height_normalised: false,
            size: None,
            finished_at: None,
            error: None,
            previous,
        });
        d.status = Status::Classifying;
        match self.save(&d, &[]).await {
            Ok(saved) => Ok((saved, job)),
            Err(e) => {
                let _ = self.store.jobs.cancel(account, &job.id).await;
                if let Error::Store(meridian_store::StoreError::Domain(DomainError::PreconditionFailed(_))) = e {
                    return Err(DomainError::conflict(
                        code::POINT_CLOUD_BUSY,
                        format!("point cloud {id} changed while the classification was being queued; try again"),
                    )
                    .into());
                }
                Err(e)
            }
        }
    }
}

fn status_word(d: &Dataset) -> &'static str {
    match d.status {
        Status::Indexing => "still being indexed",
        Status::Failed => "a file whose indexing failed",
        Status::Classifying => "being classified",
        Status::Ready => "ready",
    }
}

/// How many times (50 ms apart) a claimed job reads its point cloud again before concluding
/// that the cloud does not name it: five seconds for the queuing request to record it.
const RECORD_WAIT_POLLS: u32 = 100;

/// Runs classifications.
pub struct ClassifyJobHandler {
    service: Arc<PointCloudService>,
}

impl ClassifyJobHandler {
    /// A handler over the service.
    pub fn new(service: Arc<PointCloudService>) -> Self {
        Self { service }
    }
}

#[async_trait]
impl JobHandler for ClassifyJobHandler {
    fn kind(&self) -> &'static str {
        CLASSIFY_JOB
    }

    fn failure_event(&self, job: &Job, error: &Problem) -> Option<NewEvent> {
        Some(failed_event(job, "classify", error))
    }

    async fn run(&self, ctx: &JobContext) -> std::result::Result<JobOutcome, JobError> {
        let svc = self.service.clone();
        let account = ctx.job.account_id.clone();
        let id = ctx.job.params["point_cloud"].as_str().unwrap_or_default().to_owned();
        let params: PipelineParams = serde_json::from_value(ctx.job.params["params"].clone())
            .map_err(|e| JobError::internal(format!("the job's parameters cannot be read: {e}")))?;
        // The request commits the job, then records it on the point cloud: a worker that claims
        // the job in between reads the cloud again until it names the job (or a while has passed).
        let mut waited = 0;
        let (d, mine) = loop {
            let d = match svc.store.pointcloud.get_point_cloud(&account, &id).await {
                Ok(Some(row)) => Dataset::of_row(row).map_err(JobError::internal)?,
                Ok(None) => {
                    return Err(JobError::Permanent(Problem::new(
                        410,
                        code::UPLOAD_GONE,
                        "Point cloud gone",
                        format!("point cloud {id} was deleted"),
                    )))
                }
                Err(e) => return Err(JobError::internal(e)),
            };
            let mine = d.classification.as_ref().is_some_and(|c| c.job == ctx.job.id.0);
            if mine || waited >= RECORD_WAIT_POLLS || ctx.is_cancelled() {
                break (d, mine);
            }
            waited += 1;
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        };
        if !mine {
            return Err(JobError::Permanent(Problem::new(
                409,
                code::POINT_CLOUD_BUSY,
                "Superseded",
                "the point cloud no longer names this job as its classification (another one was queued after it, \
                 or the request that queued it failed before recording it); nothing was changed",
            )));
        }
        let model = if params.steps.classes { Some(svc.model().map_err(JobError::internal)?) } else { None };
        let mut running = d.clone();
        if let Some(c) = running.classification.as_mut() {
            c.status = "running".into();
        }
        let d = svc.save(&running, &[]).await.map_err(JobError::internal)?;
        let dir = svc.staging_dir().map_err(JobError::internal)?.to_path_buf();
        let work = tempfile::tempdir_in(&dir).map_err(JobError::internal)?;
        let source = match svc.local_copy(&d.original_key(), work.path()).await {
            Ok(p) => p,
            Err(e) => return Err(JobError::internal(e)),
        };
        let output = work.path().join("classified.laz");
        let limits = crate::reader::Limits { max_points: svc.config.max_classify_points };
        let tile_points = svc.config.classify_tile_points;
        // Parameters are metres: a file in feet is scaled first (unknown CRS: metres assumed).
        let known =
            d.crs.as_ref().and_then(|c| c.metres_per_unit.or_else(|| c.epsg.and_then(crate::crs::linear_unit_of_epsg)));
        let metres_per_unit = known.unwrap_or(1.0);
        let cancel = ctx.cancellation();
        let percent = Arc::new(AtomicU8::new(0));
        let seen = percent.clone();
        let out = output.clone();
        let run = tokio::task::spawn_blocking(move || {
            let tiling = crate::tiles::Tiling { tile_points, ..crate::tiles::Tiling::default() };
            pipeline::classify_file(&source, &out, limits, &params, model.as_deref(), metres_per_unit, tiling, &|f| {
                seen.store((f * 98.0) as u8, Ordering::Relaxed);
                !cancel.is_cancelled()
            })
        });
        tokio::pin!(run);
        let result = loop {
            tokio::select! {
                done = &mut run => break done.map_err(JobError::internal)?,
                () = tokio::time::sleep(std::time::Duration::from_millis(500)) => {
                    ctx.set_progress(percent.load(Ordering::Relaxed));
                }
            }
        };
        let report = match result {
            Ok(r) => r,
            Err(PipelineError::Cancelled) => {
                // With the lease lost the cloud is the new worker's to settle.
                if !ctx.lease_lost() {
                    self.settle_failure(d, "cancelled", None).await;
                }
                return Err(JobError::Cancelled);
            }
            Err(PipelineError::Io(e)) => return Err(JobError::internal(e)),
            Err(e) => {
                let p =
                    Problem::new(422, code::JOB_INPUT_INVALID, "The point cloud cannot be classified", e.to_string());
                self.settle_failure(d, "failed", Some(p.clone())).await;
                return Err(JobError::Permanent(p));
            }
        };
        if ctx.is_cancelled() {
            if !ctx.lease_lost() {
                self.settle_failure(d, "cancelled", None).await;
            }
            return Err(JobError::Cancelled);
        }
        // The new version replaces the previous one; conversions of the old one are dropped.
        let size =
            svc.blobs().upload_file(&keys::classified(&account, &d.id), &output).await.map_err(JobError::internal)?;
        svc.blobs().delete_prefix(&keys::cache(&account, &d.id)).await.map_err(JobError::internal)?;
        let mut done = d.clone();
        done.status = Status::Ready;
        if let Some(c) = done.classification.as_mut() {
            c.status = "succeeded".into();
            c.model = report.model.clone();
            c.histogram = report.histogram.clone();
            c.assigned = report.assigned.clone();
            c.timings = report.timings.clone();
            c.points_per_second = Some(report.points_per_second);
            c.unit = Some(Unit { metres_per_unit, assumed: known.is_none() });
            c.height_normalised = report.height_normalised;
            c.size = Some(size);
            c.finished_at = Some(Timestamp::now());
            c.previous = None;
        }
        let mut fields = event_fields(&done);
        fields.insert("job".into(), json!(ctx.job.id.as_str()));
        fields.insert("histogram".into(), json!(report.histogram));
        let event = NewEvent::new(account.clone(), CLASSIFIED, fields);
        svc.save(&done, &[event]).await.map_err(JobError::internal)?;
        ctx.set_progress(100);
        Ok(JobOutcome {
            output: json!({
                "point_cloud": id,
                "href": format!("/api/v1/pointcloud/{id}/download?version=classified"),
                "histogram": report.histogram,
                "assigned": report.assigned,
                "timings": report.timings,
                "points_per_second": report.points_per_second,
                "model": report.model,
                "height_normalised": report.height_normalised,
            }),
            event: None,
        })
    }
}

impl ClassifyJobHandler {
    /// The point cloud back to ready with the classification's outcome (the failure's event is
    /// committed with the job's failure, see [`failed_event`]).
    async fn settle_failure(&self, mut d: Dataset, status: &str, problem: Option<Problem>) {
        d.status = Status::Ready;
        if let Some(c) = d.classification.as_mut() {
            c.status = status.to_owned();
            c.error = problem.clone();
            c.finished_at = Some(Timestamp::now());
        }
        if let Err(e) = self.service.save(&d, &[]).await {
            tracing::warn!(error = %e, point_cloud = %d.id, "recording a failed classification failed");
        }
    }
}

/// The `pointcloud.failed` event of a job's final failure.
pub(crate) fn failed_event(job: &Job, step: &str, error: &Problem) -> NewEvent {
    let id = job.params["point_cloud"].as_str().unwrap_or_default();
    let mut fields = serde_json::Map::new();
    fields.insert("point_cloud".into(), json!(id));
    fields.insert("href".into(), json!(format!("/api/v1/pointcloud/{id}")));
    fields.insert("job".into(), json!(job.id.as_str()));
    fields.insert("step".into(), json!(step));
    fields.insert("error".into(), json!({ "code": error.code, "detail": error.detail }));
    NewEvent::new(job.account_id.clone(), FAILED, fields)
}
