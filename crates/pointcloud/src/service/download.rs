//! Downloads: a version (original or classified) in a format (LAS, LAZ, COPC), whole or
//! filtered by a box and classes. A whole version in the format it is stored in is the stored
//! blob; other formats are converted once and kept beside it (dropped when a new classification
//! replaces the version); filtered downloads are written for the request.

use super::datasets::{Dataset, Status};
use super::{keys, Error, PointCloudService, Result};
use crate::copc::{write_copc, CopcOptions};
use crate::writer::{rewrite, CrsRecord, OutputFormat, Rewrite};
use meridian_core::error::FieldError;
use meridian_core::id::AccountId;
use meridian_core::problem::code;
use meridian_core::DomainError;
use std::path::{Path, PathBuf};

/// A download's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DownloadFormat {
    Las,
    Laz,
    /// Cloud Optimized Point Cloud 1.0 (a LAZ file with an octree).
    Copc,
}

impl DownloadFormat {
    /// Parses `las`, `laz` or `copc`.
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "las" => Some(Self::Las),
            "laz" => Some(Self::Laz),
            "copc" => Some(Self::Copc),
            _ => None,
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Self::Las => "las",
            Self::Laz => "laz",
            Self::Copc => "copc.laz",
        }
    }

    /// The media type served.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Las => "application/vnd.las",
            Self::Laz | Self::Copc => "application/vnd.laszip",
        }
    }
}

/// Which version of a point cloud.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    Original,
    Classified,
}

impl Version {
    /// Parses `original` or `classified`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "original" => Some(Self::Original),
            "classified" => Some(Self::Classified),
            _ => None,
        }
    }
}

/// What to download.
#[derive(Clone, Debug, PartialEq)]
pub struct DownloadRequest {
    pub format: DownloadFormat,
    /// `None`: the classified version when there is one, else the original.
    pub version: Option<Version>,
    /// Longitude/latitude box (or native coordinates when `bbox_native`).
    pub bbox: Option<[f64; 4]>,
    /// The box is in the point cloud's own CRS.
    pub bbox_native: bool,
    /// Only these class codes.
    pub classes: Option<Vec<u8>>,
}

/// How long a request waits for a whole-file conversion before it is answered 202 (the
/// conversion goes on, once, and the next request finds its result).
const CONVERSION_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Why a shared conversion failed, as every request waiting on it is told.
#[derive(Clone, Debug)]
enum ConversionFailure {
    TooLarge(String),
    Invalid(FieldError),
    Internal(String),
}

impl From<ConversionFailure> for Error {
    fn from(f: ConversionFailure) -> Self {
        match f {
            ConversionFailure::TooLarge(m) => Error::Domain(DomainError::TooLarge(m)),
            ConversionFailure::Invalid(e) => Error::Domain(DomainError::Invalid(vec![e])),
            ConversionFailure::Internal(m) => Error::Internal(m),
        }
    }
}

impl From<Error> for ConversionFailure {
    fn from(e: Error) -> Self {
        match e {
            Error::Domain(DomainError::TooLarge(m)) => Self::TooLarge(m),
            Error::Domain(DomainError::Invalid(mut v)) if !v.is_empty() => Self::Invalid(v.remove(0)),
            other => Self::Internal(other.to_string()),
        }
    }
}

type Outcome = Option<std::result::Result<(), ConversionFailure>>;

/// Conversions running, each watched by the requests waiting for it.
#[derive(Default)]
pub(crate) struct Conversions(
    std::sync::Mutex<std::collections::HashMap<String, tokio::sync::watch::Receiver<Outcome>>>,
);

/// What a whole-file conversion reads and writes.
struct Conversion {
    source_key: String,
    key: String,
    format: DownloadFormat,
    crs: Recorded,
}

/// The CRS a written download records.
#[derive(Debug, Clone, Default)]
struct Recorded {
    /// The WKT a COPC output names (COPC readers look for WKT).
    wkt: Option<String>,
    /// The uploader's override, written in place of a LAS or LAZ file's own CRS records.
    over: Option<CrsRecord>,
}

/// A download ready to serve.
#[derive(Debug)]
pub enum Prepared {
    /// A conversion of the whole file is running (started by this request or an earlier one):
    /// ask again after `retry_after` seconds.
    Pending { retry_after: u64 },
    /// A stored blob: served with its ETag and ranges.
    Stored { key: String, size: u64, etag: String, media_type: &'static str, filename: String },
    /// A file written for this request (deleted when dropped).
    Written { file: tempfile::TempPath, size: u64, media_type: &'static str, filename: String },
}

impl PointCloudService {
    /// Prepares a download of point cloud `id` of `account`.
    pub async fn download(
        self: &std::sync::Arc<Self>,
        account: &AccountId,
        id: &str,
        req: &DownloadRequest,
    ) -> Result<Prepared> {
        let d = self.get(account, id).await?;
        if matches!(d.status, Status::Indexing | Status::Failed) {
            return Err(DomainError::conflict(
                code::POINT_CLOUD_NOT_READY,
                format!(
                    "point cloud {id} is not indexed ({})",
                    if d.status == Status::Failed { "indexing failed" } else { "indexing" }
                ),
            )
            .into());
        }
        let classified = d.classified().cloned();
        let version = match (req.version, &classified) {
            (Some(Version::Classified), None) => {
                return Err(DomainError::conflict(
                    code::POINT_CLOUD_NOT_READY,
                    format!("point cloud {id} has no classified version yet; POST /api/v1/pointcloud/{id}/classify"),
                )
                .into())
            }
            (Some(v), _) => v,
            (None, Some(_)) => Version::Classified,
            (None, None) => Version::Original,
        };
        let (source_key, source_format, tag) = match (version, &classified) {
            (Version::Classified, Some(c)) => (keys::classified(account, &d.id), DownloadFormat::Laz, c.job.clone()),
            _ => {
                let f = if d.format == "laz" { DownloadFormat::Laz } else { DownloadFormat::Las };
                (d.original_key(), f, "original".to_owned())
            }
        };
        let base = d.name.clone().unwrap_or_else(|| d.id.0.clone());
        let base: String =
            base.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' }).collect();
        let vname = if version == Version::Classified { "classified" } else { "original" };
        let filename = format!("{base}-{vname}.{}", req.format.extension());
        let filtered = req.bbox.is_some() || req.classes.is_some();
        let bbox = match req.bbox {
            Some(b) if !req.bbox_native => Some(native_box(&d, b)?),
            b => b,
        };
        let overridden = d.crs.as_ref().is_some_and(|c| c.source == crate::crs::CrsSource::Override);
        let epsg_wkt = d.epsg().and_then(crs_definitions::from_code).map(|def| def.wkt.to_owned());
        let over = d.epsg().zip(epsg_wkt.clone()).filter(|_| overridden).map(|(epsg, wkt)| CrsRecord { epsg, wkt });
        // The original in its own format is the uploaded bytes; every other LAS or LAZ file
        // written for a point cloud with an override records the override.
        if !filtered && req.format == source_format && (over.is_none() || version == Version::Original) {
            let size = self.stored_size(&source_key).await?;
            let etag = format!("\"{}-{tag}-{}\"", d.id, vname);
            return Ok(Prepared::Stored { key: source_key, size, etag, media_type: req.format.media_type(), filename });
        }
        let node_points = self.config.copc_node_points;
        // COPC readers look for a WKT CRS: when the file has none (GeoTIFF keys only, or the
        // uploader's override), the WKT of the EPSG code known for the point cloud is written.
        let file_has_wkt = d.summary.as_ref().and_then(|s| s.crs.as_ref()).is_some_and(|c| c.wkt.is_some());
        let wkt = if file_has_wkt && !overridden { None } else { epsg_wkt };
        let crs = Recorded { wkt, over };
        if filtered {
            let dir = self.staging_dir()?.to_path_buf();
            let work = tempfile::tempdir_in(&dir)?;
            let source = self.local_copy(&source_key, work.path()).await?;
            let out = tempfile::NamedTempFile::new_in(&dir)?.into_temp_path();
            let (src, dst, format, classes) = (source.clone(), out.to_path_buf(), req.format, req.classes.clone());
            tokio::task::spawn_blocking(move || convert(&src, &dst, format, bbox, classes, node_points, crs))
                .await
                .map_err(|e| Error::Internal(e.to_string()))??;
            drop(work);
            let size = std::fs::metadata(&out)?.len();
            return Ok(Prepared::Written { file: out, size, media_type: req.format.media_type(), filename });
        }
        // A whole version in another format: converted once (however many ask at once), kept for
        // the next download.
        let key = keys::cached(account, &d.id, &format!("{vname}-{tag}"), req.format.extension());
        let etag = format!("\"{}-{tag}-{vname}-{}\"", d.id, req.format.extension());
        if !self.blobs().exists(&key).await? {
            let job = Conversion { source_key, key: key.clone(), format: req.format, crs };
            let mut done = self.convert_once(job);
            let finished = tokio::time::timeout(CONVERSION_WAIT, done.wait_for(Option::is_some)).await;
            match finished {
                Err(_) => return Ok(Prepared::Pending { retry_after: 5 }),
                Ok(Err(_)) => return Err(Error::Internal("the conversion task ended without an outcome".into())),
                Ok(Ok(outcome)) => {
                    if let Some(Err(f)) = outcome.clone() {
                        return Err(f.into());
                    }
                }
            }
        }
        let size = self.stored_size(&key).await?;
        Ok(Prepared::Stored { key, size, etag, media_type: req.format.media_type(), filename })
    }

    /// The conversion of `job`, started unless it is running already: it runs on its own task
    /// (a request that stops waiting does not stop it), writes its result under `job.key`, and
    /// tells every watcher how it ended.
    fn convert_once(self: &std::sync::Arc<Self>, job: Conversion) -> tokio::sync::watch::Receiver<Outcome> {
        let mut running = self.conversions.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(rx) = running.get(&job.key) {
            return rx.clone();
        }
        let (tx, rx) = tokio::sync::watch::channel(None);
        running.insert(job.key.clone(), rx.clone());
        drop(running);
        let svc = self.clone();
        tokio::spawn(async move {
            let key = job.key.clone();
            let outcome = svc.convert_whole(job).await.map_err(ConversionFailure::from);
            if let Err(f) = &outcome {
                tracing::warn!(key = %key, failure = ?f, "converting a point cloud for download failed");
            }
            svc.conversions.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&key);
            let _ = tx.send(Some(outcome));
        });
        rx
    }

    async fn convert_whole(&self, job: Conversion) -> Result<()> {
        let dir = self.staging_dir()?.to_path_buf();
        let work = tempfile::tempdir_in(&dir)?;
        let source = self.local_copy(&job.source_key, work.path()).await?;
        let out = tempfile::NamedTempFile::new_in(&dir)?.into_temp_path();
        let (src, dst, format, crs) = (source.clone(), out.to_path_buf(), job.format, job.crs);
        let node_points = self.config.copc_node_points;
        tokio::task::spawn_blocking(move || convert(&src, &dst, format, None, None, node_points, crs))
            .await
            .map_err(|e| Error::Internal(e.to_string()))??;
        drop(work);
        self.blobs().upload_file(&job.key, &out).await?;
        Ok(())
    }

    async fn stored_size(&self, key: &str) -> Result<u64> {
        self.blobs().size_of(key).await?.ok_or_else(|| Error::Internal(format!("stored file {key} is missing")))
    }
}

/// The native box covering a longitude/latitude box.
fn native_box(d: &Dataset, b: [f64; 4]) -> Result<[f64; 4]> {
    let t = match (d.epsg(), d.proj()) {
        (Some(epsg), _) => meridian_core::crs::Transformer::between_epsg(4326, epsg),
        (None, Some(proj)) => meridian_core::crs::Transformer::to_proj_string(4326, proj),
        (None, None) => {
            return Err(DomainError::Invalid(vec![FieldError::new(
                "/bbox",
                "no_crs",
                "the point cloud declares no CRS this server can transform (none, or a WKT that matches no EPSG \
                 definition and no supported projection): give the box in its own coordinates with bbox-crs=native",
            )])
            .into())
        }
    }
    .map_err(|e| DomainError::invalid("/bbox", "unsupported_crs", e))?;
    let mut pts = Vec::with_capacity(44);
    for k in 0..=10 {
        let f = f64::from(k) / 10.0;
        pts.push((b[0] + (b[2] - b[0]) * f, b[1]));
        pts.push((b[0] + (b[2] - b[0]) * f, b[3]));
        pts.push((b[0], b[1] + (b[3] - b[1]) * f));
        pts.push((b[2], b[1] + (b[3] - b[1]) * f));
    }
    if t.apply_in_place(&mut pts) > 0 {
        return Err(
            DomainError::invalid("/bbox", "invalid_bbox", "the box cannot be placed in the point cloud's CRS").into()
        );
    }
    let mut n = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
    for (x, y) in pts {
        n = [n[0].min(x), n[1].min(y), n[2].max(x), n[3].max(y)];
    }
    Ok(n)
}

/// Writes `src` to `dst` in `format` with the filters. Blocking.
fn convert(
    src: &Path,
    dst: &PathBuf,
    format: DownloadFormat,
    bbox: Option<[f64; 4]>,
    classes: Option<Vec<u8>>,
    node_points: u32,
    crs: Recorded,
) -> Result<()> {
    let never = |_f: f64| true;
    let failed = |e: crate::writer::WriteError| match e {
        crate::writer::WriteError::Empty => Error::Domain(DomainError::invalid(
            "/classes",
            "empty_selection",
            "the bbox and classes select no point, and a COPC file cannot be empty (an octree needs a cube); \
             ask for format=las or laz to get a file with no points",
        )),
        crate::writer::WriteError::Limit { what, value, limit } => {
            Error::Domain(DomainError::TooLarge(format!("the download holds {value} {what}, more than {limit}")))
        }
        other => Error::Internal(format!("writing the download failed: {other}")),
    };
    match format {
        DownloadFormat::Copc => {
            let opts =
                CopcOptions { bbox, classes, max_points_per_node: node_points, wkt: crs.wkt, ..CopcOptions::default() };
            write_copc(src, dst, &opts, &never).map_err(failed)?;
        }
        DownloadFormat::Las | DownloadFormat::Laz => {
            let output_format = if format == DownloadFormat::Las { OutputFormat::Las } else { OutputFormat::Laz };
            let opts =
                Rewrite { format: output_format, bbox, classes, classification: None, confidence: None, crs: crs.over };
            let mut file = std::io::BufWriter::new(std::fs::File::create(dst)?);
            rewrite(src, &mut file, &opts, &never).map_err(failed)?;
            use std::io::Write;
            file.flush()?;
        }
    }
    Ok(())
}
