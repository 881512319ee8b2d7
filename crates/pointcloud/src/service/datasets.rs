//! Point clouds as records: upload (checked before anything is stored), get, list, delete.

use super::{keys, Error, PointCloudService, Result, INDEX_JOB};
use crate::crs::{Crs, CrsSource};
use crate::reader::{check_header, ReadError};
use crate::summary::Summary;
use meridian_core::error::FieldError;
use meridian_core::id::{AccountId, JobId, PointCloudId};
use meridian_core::page::Page;
use meridian_core::problem::{code, Problem};
use meridian_core::{DomainError, Timestamp};
use meridian_store::model::{JobStatus, NewJob};
use meridian_store::pointcloud::PointCloudRow;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Where a point cloud is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Uploaded; the index job reads it.
    Indexing,
    /// Indexed: it can be classified and downloaded.
    Ready,
    /// A classification is queued or running (the dataset stays downloadable).
    Classifying,
    /// Indexing failed (`error` says why); only deleting it is left.
    Failed,
}

impl Status {
    fn as_str(self) -> &'static str {
        match self {
            Status::Indexing => "indexing",
            Status::Ready => "ready",
            Status::Classifying => "classifying",
            Status::Failed => "failed",
        }
    }

    fn parse(s: &str) -> Result<Self> {
        Ok(match s {
            "indexing" => Status::Indexing,
            "ready" => Status::Ready,
            "classifying" => Status::Classifying,
            "failed" => Status::Failed,
            other => return Err(Error::Internal(format!("unknown point cloud status {other}"))),
        })
    }
}

/// The linear unit a classification read the coordinates in (every parameter is metres).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    /// Metres in one unit of the coordinates (0.3048006096 for US survey feet).
    pub metres_per_unit: f64,
    /// `true` when the file says nothing of its unit and metres were assumed.
    pub assumed: bool,
}

/// The latest classification of a point cloud.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Classification {
    /// The job that ran (or runs) it.
    pub job: String,
    /// `queued`, `running`, `succeeded`, `failed` or `cancelled`.
    pub status: String,
    /// The parameters it ran with, defaults filled in.
    pub params: Value,
    /// The classifier model's name and version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Points per class code in the classified version.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub histogram: BTreeMap<String, u64>,
    /// What changed: points per class the pipeline assigned (noise, ground, learned classes).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub assigned: BTreeMap<String, u64>,
    /// Seconds per step.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub timings: BTreeMap<String, f64>,
    /// Points classified per second, the whole pipeline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points_per_second: Option<f64>,
    /// The unit the coordinates were read in: metres per unit, and whether it was assumed (no
    /// CRS, or one whose unit is unknown: metres) rather than read from the CRS.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<Unit>,
    /// Whether the file was read as height-normalised (Z already the height above ground, as
    /// lidR's `normalize_height` leaves it) and its ground taken at z ≈ 0; absent when not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub height_normalised: bool,
    /// Bytes of the classified LAZ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Timestamp>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Problem>,
    /// The classification that was current before this one was started (kept as the
    /// downloadable classified version until this one succeeds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<Box<Classification>>,
}

/// What the service keeps of a point cloud besides its status (the row's `body`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Body {
    name: Option<String>,
    filename: Option<String>,
    size: u64,
    /// `las` or `laz`.
    format: String,
    /// An EPSG code the uploader gave, overriding the file's declaration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    crs_override: Option<u16>,
    index_job: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    summary: Option<Summary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bounds_wgs84: Option<[f64; 4]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    classification: Option<Classification>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<Problem>,
}

/// A point cloud.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    pub id: PointCloudId,
    pub account_id: AccountId,
    pub status: Status,
    pub name: Option<String>,
    /// The file name sent with the upload.
    pub filename: Option<String>,
    /// Bytes as uploaded.
    pub size: u64,
    /// `las` or `laz`.
    pub format: String,
    /// The job that indexed (or indexes) it.
    pub index_job: JobId,
    /// What indexing found; `None` until it is indexed.
    pub summary: Option<Summary>,
    /// The CRS: the uploader's override, else the file's.
    pub crs: Option<Crs>,
    /// Longitude/latitude bounds, when the CRS is known and transformable.
    pub bounds_wgs84: Option<[f64; 4]>,
    pub classification: Option<Classification>,
    /// Why indexing failed.
    pub error: Option<Problem>,
    /// Bumped by every change (the ETag).
    pub version: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Dataset {
    pub(crate) fn of_row(row: PointCloudRow) -> Result<Self> {
        let body: Body = serde_json::from_value(row.body)
            .map_err(|e| Error::Internal(format!("point cloud {} has an unreadable record: {e}", row.id)))?;
        let file_crs = body.summary.as_ref().and_then(|s| s.crs.clone());
        let crs = match body.crs_override {
            Some(epsg) => Some(Crs::of_epsg(epsg, CrsSource::Override)),
            None => file_crs,
        };
        Ok(Self {
            id: PointCloudId(row.id),
            account_id: row.account_id,
            status: Status::parse(&row.status)?,
            name: body.name,
            filename: body.filename,
            size: body.size,
            format: body.format,
            index_job: JobId(body.index_job),
            summary: body.summary,
            crs,
            bounds_wgs84: body.bounds_wgs84,
            classification: body.classification,
            error: body.error,
            version: row.version,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }

    fn body(&self) -> Body {
        Body {
            name: self.name.clone(),
            filename: self.filename.clone(),
            size: self.size,
            format: self.format.clone(),
            crs_override: self.crs.as_ref().filter(|c| c.source == CrsSource::Override).and_then(|c| c.epsg),
            index_job: self.index_job.0.clone(),
            summary: self.summary.clone(),
            bounds_wgs84: self.bounds_wgs84,
            classification: self.classification.clone(),
            error: self.error.clone(),
        }
    }

    /// The EPSG code coordinates are in, when known.
    pub fn epsg(&self) -> Option<u16> {
        self.crs.as_ref().and_then(|c| c.epsg)
    }

    /// The PROJ string made from the file's WKT, when no EPSG code names its CRS.
    pub fn proj(&self) -> Option<&str> {
        self.crs.as_ref().filter(|c| c.epsg.is_none()).and_then(|c| c.proj.as_deref())
    }

    /// The stored original's blob key.
    pub fn original_key(&self) -> String {
        keys::original(&self.account_id, &self.id, &self.format)
    }

    /// Whether a classified version is stored.
    pub fn classified(&self) -> Option<&Classification> {
        let c = self.classification.as_ref()?;
        if c.status == "succeeded" {
            Some(c)
        } else {
            c.previous.as_deref().filter(|p| p.status == "succeeded")
        }
    }
}

/// What an uploader may say about a file (the `params` part, or query parameters).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UploadParams {
    /// A name for the point cloud.
    #[serde(default)]
    pub name: Option<String>,
    /// The CRS as an EPSG code (`2154` or `EPSG:2154`), overriding what the file declares.
    #[serde(default)]
    pub crs: Option<Value>,
}

impl UploadParams {
    /// The override's EPSG code, checked.
    fn epsg(&self) -> std::result::Result<Option<u16>, FieldError> {
        let bad =
            || FieldError::new("/params/crs", "invalid_crs", "give the CRS as an EPSG code: 2154 or \"EPSG:2154\"");
        let code = match &self.crs {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Number(n)) => n.as_u64().ok_or_else(bad)?,
            Some(Value::String(s)) => {
                let digits =
                    s.trim().strip_prefix("EPSG:").or_else(|| s.trim().strip_prefix("epsg:")).unwrap_or(s.trim());
                digits.parse::<u64>().map_err(|_| bad())?
            }
            Some(_) => return Err(bad()),
        };
        let code = u16::try_from(code).map_err(|_| bad())?;
        meridian_core::crs::Transformer::between_epsg(code, 4326).map_err(|e| {
            FieldError::new("/params/crs", "unsupported_crs", format!("EPSG:{code} cannot be transformed: {e}"))
        })?;
        Ok(Some(code))
    }
}

/// The problem of a file the reader refused, as a field error at `/file`.
pub(crate) fn file_error(e: &ReadError) -> FieldError {
    match e {
        ReadError::Limit { .. } => {
            FieldError::new("/file", "point_cloud_too_large", format!("{e} (see pointcloud.max_points)"))
        }
        ReadError::Io(_) => FieldError::new("/file", "not_a_point_cloud", format!("the file cannot be read: {e}")),
        _ => FieldError::new("/file", "not_a_point_cloud", format!("the file is not a LAS/LAZ file we can read: {e}")),
    }
}

impl PointCloudService {
    /// Stores a staged upload as a new point cloud and queues its indexing. The header, VLRs,
    /// point format and point count (against the file's length) are checked first; a file that
    /// fails is a 422 at `/file` and nothing is stored.
    pub async fn upload(
        &self,
        account: &AccountId,
        file: &Path,
        filename: Option<String>,
        params: UploadParams,
    ) -> Result<(Dataset, meridian_store::model::Job)> {
        let mut errors = Vec::new();
        let crs_override = params.epsg().map_err(|e| errors.push(e)).ok().flatten();
        if params.name.as_ref().is_some_and(|n| n.chars().count() > 200) {
            errors.push(FieldError::new("/params/name", "too_long", "a name has at most 200 characters"));
        }
        let limits = self.read_limits();
        let path = file.to_path_buf();
        let checked = tokio::task::spawn_blocking(move || {
            let mut f = std::io::BufReader::new(std::fs::File::open(&path)?);
            Ok::<_, std::io::Error>(check_header(&mut f, limits))
        })
        .await
        .map_err(|e| Error::Internal(e.to_string()))??;
        let info = match checked {
            Ok(info) => Some(info),
            Err(e) => {
                errors.push(file_error(&e));
                None
            }
        };
        if !errors.is_empty() {
            return Err(DomainError::Invalid(errors).into());
        }
        let info = info.ok_or_else(|| Error::Internal("a checked header went missing".into()))?;
        let id = PointCloudId::generate();
        let format = if info.compressed { "laz" } else { "las" };
        let key = keys::original(account, &id, format);
        let stored = async {
            let size = self.blobs().upload_file(&key, file).await?;
            let job = NewJob {
                account_id: account.clone(),
                kind: INDEX_JOB.to_owned(),
                params: serde_json::json!({ "point_cloud": id.as_str() }),
                max_attempts: self.max_attempts,
            };
            let now = Timestamp::now();
            let mut dataset = Dataset {
                id: id.clone(),
                account_id: account.clone(),
                status: Status::Indexing,
                name: params.name.clone(),
                filename,
                size,
                format: format.to_owned(),
                index_job: JobId(String::new()),
                summary: None,
                crs: crs_override.map(|epsg| Crs::of_epsg(epsg, CrsSource::Override)),
                bounds_wgs84: None,
                classification: None,
                error: None,
                version: 1,
                created_at: now,
                updated_at: now,
            };
            // The job is queued first so that the row can name it; until the row is committed
            // the job finds nothing and tries again.
            let job = self.store.jobs.submit(job).await?;
            dataset.index_job = job.id.clone();
            if let Err(e) = self.store.pointcloud.insert_point_cloud(&self.row(&dataset)?, &[]).await {
                let _ = self.store.jobs.cancel(account, &job.id).await;
                return Err(e.into());
            }
            Ok::<_, Error>((dataset, job))
        }
        .await;
        if stored.is_err() {
            if let Err(e) = self.blobs().delete_prefix(&keys::dataset(account, &id)).await {
                tracing::warn!(error = %e, point_cloud = %id, "cleaning up a failed upload failed");
            }
        }
        stored
    }

    pub(crate) fn row(&self, d: &Dataset) -> Result<PointCloudRow> {
        Ok(PointCloudRow {
            account_id: d.account_id.clone(),
            id: d.id.0.clone(),
            status: d.status.as_str().to_owned(),
            body: serde_json::to_value(d.body()).map_err(|e| Error::Internal(e.to_string()))?,
            version: d.version,
            created_at: d.created_at,
            updated_at: d.updated_at,
        })
    }

    /// Writes a changed dataset with its events, provided nobody changed it since it was read.
    pub(crate) async fn save(&self, d: &Dataset, events: &[meridian_core::event::NewEvent]) -> Result<Dataset> {
        let body = serde_json::to_value(d.body()).map_err(|e| Error::Internal(e.to_string()))?;
        let row = self
            .store
            .pointcloud
            .update_point_cloud(&d.account_id, d.id.as_str(), d.status.as_str(), &body, Some(d.version), events)
            .await?;
        Dataset::of_row(row)
    }

    /// One point cloud of `account`; another account's is not found. A status the store still
    /// shows as in progress while its job ended without succeeding (a crash that used up the
    /// job's attempts) is answered as the job left it.
    pub async fn get(&self, account: &AccountId, id: &str) -> Result<Dataset> {
        let not_found = || Error::Domain(DomainError::not_found("point cloud", id));
        if !meridian_core::id::has_shape(id, PointCloudId::PREFIX) {
            return Err(not_found());
        }
        let row = self.store.pointcloud.get_point_cloud(account, id).await?.ok_or_else(not_found)?;
        self.settled(Dataset::of_row(row)?).await
    }

    async fn settled(&self, mut d: Dataset) -> Result<Dataset> {
        let job_id = match d.status {
            Status::Indexing => d.index_job.clone(),
            Status::Classifying => match &d.classification {
                Some(c) => JobId(c.job.clone()),
                None => return Ok(d),
            },
            _ => return Ok(d),
        };
        let Some(job) = self.store.jobs.get_job(&d.account_id, &job_id).await? else { return Ok(d) };
        let ended = matches!(job.status, JobStatus::Failed | JobStatus::Cancelled);
        if !ended {
            if let Some(c) = d.classification.as_mut().filter(|_| d.status == Status::Classifying) {
                c.status = job.status.as_str().to_owned();
            }
            return Ok(d);
        }
        let problem = job.error.clone().and_then(|e| serde_json::from_value::<Problem>(e).ok()).unwrap_or_else(|| {
            Problem::new(409, code::JOB_FINISHED, "Cancelled", "the job was cancelled before it finished")
        });
        if d.status == Status::Indexing {
            d.status = Status::Failed;
            d.error = Some(problem);
        } else if let Some(c) = d.classification.as_mut() {
            d.status = Status::Ready;
            c.status = job.status.as_str().to_owned();
            c.error = Some(problem);
        }
        Ok(d)
    }

    /// The account's point clouds, newest first, and how many there are.
    pub async fn list(&self, account: &AccountId, page: Page) -> Result<(Vec<Dataset>, u64)> {
        let (rows, total) = self.store.pointcloud.list_point_clouds(account, page).await?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            out.push(self.settled(Dataset::of_row(row)?).await?);
        }
        Ok((out, total))
    }

    /// Deletes a point cloud and its files; refused (409) while a job reads it. `expected` is
    /// the version an `If-Match` named.
    pub async fn delete(&self, account: &AccountId, id: &str, expected: Option<i64>) -> Result<()> {
        let d = self.get(account, id).await?;
        if matches!(d.status, Status::Indexing | Status::Classifying) {
            return Err(DomainError::conflict(
                code::POINT_CLOUD_BUSY,
                format!("a job reads point cloud {id} ({}); cancel it or wait for it to finish", d.status.as_str()),
            )
            .into());
        }
        if !self.store.pointcloud.delete_point_cloud(account, id, expected).await? {
            return Err(DomainError::not_found("point cloud", id).into());
        }
        self.blobs().delete_prefix(&keys::dataset(account, &d.id)).await?;
        Ok(())
    }
}
