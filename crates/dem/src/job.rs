//! DEM processing jobs: what a job stores (its source and operations), what it produces (one
//! output per operation, with statistics), submission, and the `dem.process` handler that runs
//! the engine on a blocking thread with progress and cancellation.

use crate::blobs::keys;
use crate::datasets::RasterInfo;
use crate::operations::{self, ContourFormat, DemOperation};
use crate::{DemService, Error, Result};
use async_trait::async_trait;
use meridian_core::event::NewEvent;
use meridian_core::id::{AccountId, DatasetId, JobId};
use meridian_core::problem::Problem;
use meridian_core::{DomainError, FieldError};
use meridian_jobs::{JobContext, JobError, JobHandler, JobOutcome};
use meridian_raster::dem::{self, ContourOptions, FileOutput, Operation};
use meridian_raster::tiff::{write_cog_with_progress, CogOptions, GeoTiff, Limits};
use meridian_store::model::{Job, JobStatus, NewJob};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

/// The job kind the handler runs.
pub const KIND: &str = crate::JOB_KIND;

/// Media type of the raster outputs.
pub const COG_MEDIA_TYPE: &str = "image/tiff; application=geotiff; profile=cloud-optimized";
/// Media type of contour lines as GeoJSON.
pub const GEOJSON_MEDIA_TYPE: &str = "application/geo+json";

/// Media type of contour lines as FlatGeobuf.
pub const FLATGEOBUF_MEDIA_TYPE: &str = "application/flatgeobuf";

/// The raster a job reads, as the request named it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SourceRef {
    /// An uploaded dataset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset_id: Option<String>,
    /// Or an earlier job's output ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
    /// ... named by its operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
}

/// A source resolved to a blob.
#[derive(Clone, Debug)]
pub struct ResolvedSource {
    pub reference: SourceRef,
    /// The GeoTIFF the operations read.
    pub key: String,
    /// The COG style tiles are rendered from once the job ran.
    pub tiles_key: String,
    pub info: RasterInfo,
}

/// What a job stores as its parameters.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JobParams {
    pub source: SourceRef,
    pub source_key: String,
    pub tiles_key: String,
    pub source_info: RasterInfo,
    /// The operations with every option spelt out.
    pub operations: Vec<Value>,
    /// Scheme and authority of the request that queued the job, for absolute links in its
    /// events when `server.public_url` is unset (as the API makes its links).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
}

impl JobParams {
    /// The parameters of a `dem.process` job.
    pub fn of(job: &Job) -> Result<Self> {
        serde_json::from_value(job.params.clone())
            .map_err(|e| Error::Internal(format!("job {} has unreadable parameters: {e}", job.id)))
    }

    /// Whether a dataset COG has to be made for tiles (the source is an upload, not a COG output).
    fn makes_tiles_copy(&self) -> bool {
        self.tiles_key != self.source_key
    }
}

/// Minimum, maximum and mean of an output's valid samples (contours: of the line levels).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Statistics {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    /// Valid samples (contours: lines).
    pub count: u64,
}

/// One output of a job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OutputRecord {
    /// The operation that made it, which is also its tile layer.
    pub operation: String,
    /// File name, as in the download link.
    pub name: String,
    pub media_type: String,
    pub size: u64,
    /// `None` for colour reliefs, whose bands are colours.
    pub statistics: Option<Statistics>,
    /// For raster outputs: size, CRS, bounds and zoom range.
    pub info: Option<RasterInfo>,
}

/// What a succeeded job stores as its output.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct JobOutput {
    pub outputs: Vec<OutputRecord>,
}

impl OutputRecord {
    /// Where the output of `job` lives in the blob store.
    pub fn key(&self, job: &Job) -> String {
        keys::job_output(&job.account_id, &job.id, &self.name)
    }
}

impl JobOutput {
    /// The output of a job, if it has one.
    pub fn of(job: &Job) -> Option<Self> {
        job.output.as_ref().and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    /// The output of an operation.
    pub fn find(&self, operation: &str) -> Option<&OutputRecord> {
        self.outputs.iter().find(|o| o.operation == operation || o.name == operation)
    }
}

impl DemService {
    /// Resolves the `source` of a JSON request (at JSON pointer `/source`) to a raster of `account`.
    pub async fn resolve_source(&self, account: &AccountId, source: &Value) -> Result<ResolvedSource> {
        let invalid =
            |pointer: &str, code: &str, detail: String| Error::Domain(DomainError::invalid(pointer, code, detail));
        let Value::Object(map) = source else {
            return Err(invalid(
                "/source",
                "invalid_type",
                "source is an object: {\"dataset_id\": ...} or {\"job_id\": ..., \"operation\": ...}".into(),
            ));
        };
        if let Some(k) = map.keys().find(|k| !["dataset_id", "job_id", "operation"].contains(&k.as_str())) {
            return Err(invalid(&format!("/source/{k}"), "unknown_field", format!("unknown field `{k}` of source")));
        }
        let text = |k: &str| -> Result<Option<String>> {
            match map.get(k) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(invalid(&format!("/source/{k}"), "invalid_type", format!("{k} must be a string"))),
            }
        };
        let (dataset_id, job_id, operation) = (text("dataset_id")?, text("job_id")?, text("operation")?);
        match (dataset_id, job_id) {
            (Some(id), None) => {
                if operation.is_some() {
                    return Err(invalid("/source/operation", "unknown_field", "operation goes with job_id".into()));
                }
                let dataset = self.get_dataset(account, &id).await.map_err(|e| match e {
                    Error::Domain(DomainError::NotFound { .. }) => {
                        invalid("/source/dataset_id", "not_found", format!("this account has no dataset {id}"))
                    }
                    other => other,
                })?;
                let did = DatasetId(id.clone());
                Ok(ResolvedSource {
                    reference: SourceRef { dataset_id: Some(id), ..SourceRef::default() },
                    key: keys::dataset_source(account, &did),
                    tiles_key: keys::dataset_cog(account, &did),
                    info: dataset.info,
                })
            }
            (None, Some(job_id)) => {
                let job = self
                    .store
                    .jobs
                    .get_job(account, &JobId(job_id.clone()))
                    .await?
                    .filter(|j| j.kind == KIND)
                    .ok_or_else(|| {
                        invalid("/source/job_id", "not_found", format!("this account has no DEM job {job_id}"))
                    })?;
                if job.status != JobStatus::Succeeded {
                    return Err(invalid(
                        "/source/job_id",
                        "job_not_succeeded",
                        format!(
                            "job {job_id} is {}; only a succeeded job's outputs can be processed",
                            job.status.as_str()
                        ),
                    ));
                }
                let Some(operation) = operation else {
                    return Err(invalid("/source/operation", "required", "name the output: its operation".into()));
                };
                let output = JobOutput::of(&job).unwrap_or_default();
                let Some(record) = output.find(&operation).cloned() else {
                    let names: Vec<&str> = output.outputs.iter().map(|o| o.operation.as_str()).collect();
                    return Err(invalid(
                        "/source/operation",
                        "not_found",
                        format!("job {job_id} has no `{operation}` output; it has {}", names.join(", ")),
                    ));
                };
                let Some(info) = record.info.clone() else {
                    return Err(invalid(
                        "/source/operation",
                        "not_a_raster",
                        format!("the `{operation}` output is not a raster"),
                    ));
                };
                let key = record.key(&job);
                Ok(ResolvedSource {
                    reference: SourceRef { job_id: Some(job_id), operation: Some(record.operation), dataset_id: None },
                    tiles_key: key.clone(),
                    key,
                    info,
                })
            }
            (Some(_), Some(_)) => {
                Err(invalid("/source", "invalid_source", "give either dataset_id or job_id, not both".into()))
            }
            (None, None) => {
                Err(invalid("/source", "required", "source needs dataset_id, or job_id and operation".into()))
            }
        }
    }

    /// Queues a job; wake the workers afterwards.
    /// `base_url` is the scheme and authority the request came to (see [`JobParams::base_url`]).
    pub async fn submit(
        &self,
        account: &AccountId,
        source: ResolvedSource,
        ops: &[DemOperation],
        base_url: Option<String>,
    ) -> Result<Job> {
        self.check_contour_levels(&source, ops).await?;
        let params = JobParams {
            source: source.reference,
            source_key: source.key,
            tiles_key: source.tiles_key,
            source_info: source.info,
            operations: ops.iter().map(DemOperation::to_json).collect(),
            base_url,
        };
        let params = serde_json::to_value(&params).map_err(|e| Error::Internal(e.to_string()))?;
        let job =
            NewJob { account_id: account.clone(), kind: KIND.to_owned(), params, max_attempts: self.max_attempts };
        Ok(self.store.jobs.submit(job).await?)
    }

    /// The `job` member of the job's events: id, status, outputs with absolute links (on
    /// `server.public_url`, else on the address the job was submitted to), or the error.
    pub fn event_fields(
        &self,
        job: &Job,
        status: &str,
        output: Option<&JobOutput>,
        error: Option<&Problem>,
    ) -> Map<String, Value> {
        let submitted_to = JobParams::of(job).ok().and_then(|p| p.base_url);
        let base = self.public_url.as_deref().or(submitted_to.as_deref()).unwrap_or("");
        let job = &job.id;
        let mut j = Map::new();
        j.insert("id".into(), json!(job.as_str()));
        j.insert("status".into(), json!(status));
        if let Some(out) = output {
            let outputs: Vec<Value> = out
                .outputs
                .iter()
                .map(|o| {
                    json!({
                        "operation": o.operation,
                        "media_type": o.media_type,
                        "href": crate::output_href(base, job, &o.name),
                        "statistics": o.statistics,
                    })
                })
                .collect();
            j.insert("outputs".into(), Value::Array(outputs));
        }
        if let Some(p) = error {
            j.insert("error".into(), serde_json::to_value(p).unwrap_or(Value::Null));
        }
        let mut fields = Map::new();
        fields.insert("job".into(), Value::Object(j));
        fields
    }
}

impl DemService {
    /// Refuses contours whose interval gives more than `dem.max_contour_levels` levels over the
    /// source's range of values (read block by block, only when contours are asked for).
    async fn check_contour_levels(&self, source: &ResolvedSource, ops: &[DemOperation]) -> Result<()> {
        let specs: Vec<(usize, ContourOptions)> = ops
            .iter()
            .enumerate()
            .filter_map(|(i, op)| match op {
                DemOperation::Contours(spec) => Some((i, spec.options())),
                _ => None,
            })
            .collect();
        if specs.is_empty() {
            return Ok(());
        }
        let (blobs, key, limits, handle) =
            (self.blobs().clone(), source.key.clone(), self.raster_limits(), Handle::current());
        let range = tokio::task::spawn_blocking(move || -> Result<Option<(f64, f64)>> {
            let src = crate::blobs::open_geotiff(&blobs, &key, &handle, limits)?;
            Ok(dem::value_range(&src, &|_| true)?)
        })
        .await
        .map_err(|e| Error::Internal(format!("reading the source's range failed: {e}")))??;
        let Some((lo, hi)) = range else { return Ok(()) };
        let max = self.config.max_contour_levels;
        let errors: Vec<FieldError> = specs
            .into_iter()
            .filter_map(|(i, o)| {
                let count = o.level_count(lo, hi);
                (count > max).then(|| {
                    FieldError::new(
                        format!("/params/operations/{i}/interval"),
                        "too_many_levels",
                        format!(
                            "an interval of {} over the source's values from {lo} to {hi} gives {count} contour levels, \
                             more than the limit of {max} (dem.max_contour_levels)",
                            o.interval
                        ),
                    )
                })
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(Error::Domain(DomainError::Invalid(errors)))
        }
    }
}

/// Runs `dem.process` jobs.
pub struct DemJobHandler {
    service: Arc<DemService>,
}

impl DemJobHandler {
    /// A handler writing through `service`.
    pub fn new(service: Arc<DemService>) -> Self {
        Self { service }
    }
}

/// Why processing stopped.
enum Stop {
    Cancelled,
    /// The input cannot be processed: fail without retrying, with this problem code.
    Invalid(&'static str, String),
    Internal(String),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        match e {
            Error::Raster(r) => r.into(),
            other => Stop::Internal(other.to_string()),
        }
    }
}

impl From<meridian_raster::Error> for Stop {
    fn from(e: meridian_raster::Error) -> Self {
        use meridian_raster::Error as R;
        match e {
            R::Cancelled => Stop::Cancelled,
            R::Io(io) => Stop::Internal(io.to_string()),
            R::TooLarge(m) => Stop::Invalid("raster_too_large", m),
            other => Stop::Invalid("job_input_invalid", other.to_string()),
        }
    }
}

impl From<meridian_store::StoreError> for Stop {
    fn from(e: meridian_store::StoreError) -> Self {
        Stop::Internal(e.to_string())
    }
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Self {
        Stop::Internal(e.to_string())
    }
}

#[async_trait]
impl JobHandler for DemJobHandler {
    fn kind(&self) -> &'static str {
        KIND
    }

    async fn run(&self, ctx: &JobContext) -> std::result::Result<JobOutcome, JobError> {
        let job = ctx.job.clone();
        let params = JobParams::of(&job).map_err(|e| JobError::invalid(e.to_string()))?;
        let ops = operations::parse_params("/params", &json!({"operations": params.operations}), usize::MAX)
            .map_err(|errors| JobError::invalid(describe(&errors)))?;
        let progress = Arc::new(AtomicU8::new(job.progress));
        let cancel = ctx.cancellation();
        let service = self.service.clone();
        let handle = Handle::current();
        let (p, c) = (progress.clone(), cancel.clone());
        let mut task =
            tokio::task::spawn_blocking(move || service.process_blocking(&job, &params, &ops, &p, &c, &handle));
        let mut ticks = tokio::time::interval(Duration::from_millis(250));
        let result = loop {
            tokio::select! {
                r = &mut task => break r,
                _ = ticks.tick() => ctx.set_progress(progress.load(Ordering::Relaxed)),
            }
        };
        let outputs = match result {
            Ok(Ok(outputs)) => outputs,
            Ok(Err(Stop::Internal(detail))) => return Err(JobError::internal(detail)),
            Err(join) => return Err(JobError::internal(format!("the processing task ended abnormally: {join}"))),
            Ok(Err(stop)) => {
                // The job ends here: outputs written so far will never be shown. With the lease
                // lost they may be the new worker's: leave them.
                let folder = keys::job_outputs(&ctx.job.account_id, &ctx.job.id);
                if ctx.lease_lost() {
                    return Err(JobError::Cancelled);
                }
                if let Err(e) = self.service.blobs().delete_prefix(&folder).await {
                    tracing::warn!(error = %e, "removing the outputs of an unfinished job failed");
                }
                return Err(match stop {
                    Stop::Invalid("job_input_invalid", detail) => JobError::invalid(detail),
                    Stop::Invalid(code, detail) => {
                        JobError::Permanent(Problem::new(422, code, "The job's input cannot be processed", detail))
                    }
                    _ => JobError::Cancelled,
                });
            }
        };
        if ctx.is_cancelled() {
            return Err(JobError::Cancelled);
        }
        ctx.set_progress(100);
        let output = JobOutput { outputs };
        let fields = self.service.event_fields(&ctx.job, "succeeded", Some(&output), None);
        let event = NewEvent::new(ctx.job.account_id.clone(), "dem.job.succeeded", fields);
        let output = serde_json::to_value(&output).map_err(JobError::internal)?;
        Ok(JobOutcome { output, event: Some(event) })
    }

    fn failure_event(&self, job: &Job, error: &Problem) -> Option<NewEvent> {
        let fields = self.service.event_fields(job, "failed", None, Some(error));
        Some(NewEvent::new(job.account_id.clone(), "dem.job.failed", fields))
    }
}

fn describe(errors: &[FieldError]) -> String {
    errors.iter().map(|e| format!("{}: {}", e.pointer, e.detail)).collect::<Vec<_>>().join("; ")
}

/// Reports overall progress from the step being run and the fraction of it done.
struct Progress<'a> {
    percent: &'a AtomicU8,
    steps: usize,
}

impl Progress<'_> {
    fn at(&self, step: usize, fraction: f64) {
        let done = (step as f64 + fraction.clamp(0.0, 1.0)) / self.steps.max(1) as f64;
        self.percent.store((done * 100.0).floor().min(99.0) as u8, Ordering::Relaxed);
    }
}

impl DemService {
    /// Runs every operation of a job on the engine and stores the outputs. Blocking.
    fn process_blocking(
        &self,
        job: &Job,
        params: &JobParams,
        ops: &[DemOperation],
        percent: &AtomicU8,
        cancel: &CancellationToken,
        handle: &Handle,
    ) -> std::result::Result<Vec<OutputRecord>, Stop> {
        let interrupted = cancel.clone();
        let limits = self.raster_limits();
        // Outputs are written here in 512-pixel tiles; colour relief has up to four bands per
        // source sample, so only the per-chunk limits apply to them.
        let own = Limits { max_pixels: u64::MAX, ..limits };
        let src = crate::blobs::open_geotiff(self.blobs(), &params.source_key, handle, limits)?
            .with_interrupt(move || interrupted.is_cancelled());
        let copy_for_tiles = params.makes_tiles_copy() && !handle.block_on(self.blobs().exists(&params.tiles_key))?;
        let progress = Progress { percent, steps: ops.len() + usize::from(copy_for_tiles) };
        let tmp = tempfile::tempdir_in(self.staging_dir()?)?;
        let mut step = 0;
        if copy_for_tiles {
            // Tiles of the source are rendered from a COG: tiled, with overviews.
            let cog = tmp.path().join("source-cog.tif");
            let report = |f: f64| {
                progress.at(step, f);
                !cancel.is_cancelled()
            };
            write_cog_with_progress(&src, &cog, &CogOptions::default(), &report)?;
            handle.block_on(self.blobs().upload_file(&params.tiles_key, &cog))?;
            std::fs::remove_file(&cog)?;
            step += 1;
            progress.at(step, 0.0);
        }
        let mut outputs = Vec::with_capacity(ops.len());
        for op in ops {
            if cancel.is_cancelled() {
                return Err(Stop::Cancelled);
            }
            let name = op.output_name();
            let key = keys::job_output(&job.account_id, &job.id, &name);
            let file = tmp.path().join(&name);
            let record = match op {
                DemOperation::Raster(raster_op) => {
                    let plain = tmp.path().join(format!("plain-{name}"));
                    // The computation is most of the step; the COG copy the rest.
                    let report = |f: f64| {
                        progress.at(step, f * 0.8);
                        !cancel.is_cancelled()
                    };
                    let stats = dem::run_to_file(raster_op, &src, &plain, &FileOutput::default(), &report)?;
                    let cog_options = CogOptions {
                        // Averaging angles across north would invent southern aspects.
                        average: !matches!(raster_op, Operation::Aspect(_)),
                        ..CogOptions::default()
                    };
                    let report = |f: f64| {
                        progress.at(step, 0.8 + f * 0.2);
                        !cancel.is_cancelled()
                    };
                    write_cog_with_progress(&GeoTiff::open_with(&plain, own)?, &file, &cog_options, &report)?;
                    std::fs::remove_file(&plain)?;
                    let info = RasterInfo::of(&GeoTiff::open_with(&file, own)?);
                    let statistics = match raster_op {
                        Operation::ColorRelief(_) => None,
                        _ => (stats.count > 0).then_some(Statistics {
                            min: stats.min,
                            max: stats.max,
                            mean: stats.mean,
                            count: stats.count,
                        }),
                    };
                    OutputRecord {
                        operation: op.name().to_owned(),
                        name: name.clone(),
                        media_type: COG_MEDIA_TYPE.to_owned(),
                        size: 0,
                        statistics,
                        info: Some(info),
                    }
                }
                DemOperation::Contours(spec) => {
                    let options = ContourOptions { max_levels: Some(self.config.max_contour_levels), ..spec.options() };
                    let report = |f: f64| {
                        progress.at(step, f * 0.9);
                        !cancel.is_cancelled()
                    };
                    let lines = dem::contours_with_progress(&src, &options, &report)?;
                    if cancel.is_cancelled() {
                        return Err(Stop::Cancelled);
                    }
                    let mut w = std::io::BufWriter::new(std::fs::File::create(&file)?);
                    let media_type = match spec.format {
                        ContourFormat::Geojson => {
                            let mut doc = dem::to_geojson(&lines, &spec.attribute);
                            // GDAL's way of naming a CRS other than WGS84 in GeoJSON, which GDAL and QGIS read.
                            if let (Some(epsg), Value::Object(map)) = (src.epsg().filter(|e| *e != 4326), &mut doc) {
                                map.insert(
                                    "crs".into(),
                                    json!({"type": "name", "properties": {"name": format!("urn:ogc:def:crs:EPSG::{epsg}")}}),
                                );
                            }
                            serde_json::to_writer(&mut w, &doc).map_err(|e| Stop::Internal(e.to_string()))?;
                            GEOJSON_MEDIA_TYPE
                        }
                        ContourFormat::Flatgeobuf => {
                            dem::write_flatgeobuf(&lines, &spec.attribute, src.epsg().map(u32::from), &mut w)?;
                            FLATGEOBUF_MEDIA_TYPE
                        }
                    };
                    std::io::Write::flush(&mut w)?;
                    drop(w);
                    let count = lines.len() as u64;
                    let statistics = (count > 0).then(|| {
                        let (mut lo, mut hi, mut sum) = (f64::INFINITY, f64::NEG_INFINITY, 0.0);
                        for l in &lines {
                            lo = lo.min(l.level);
                            hi = hi.max(l.level);
                            sum += l.level;
                        }
                        Statistics { min: lo, max: hi, mean: sum / count as f64, count }
                    });
                    OutputRecord {
                        operation: op.name().to_owned(),
                        name: name.clone(),
                        media_type: media_type.to_owned(),
                        size: 0,
                        statistics,
                        info: None,
                    }
                }
            };
            let size = handle.block_on(self.blobs().upload_file(&key, &file))?;
            std::fs::remove_file(&file)?;
            outputs.push(OutputRecord { size, ..record });
            step += 1;
            progress.at(step, 0.0);
        }
        Ok(outputs)
    }
}
