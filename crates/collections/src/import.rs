//! Collection uploads: a GeoJSON FeatureCollection or a FlatGeobuf file becomes a new collection,
//! all or nothing. The upload is read as a stream (features one at a time, never the whole
//! document as a tree) and every feature passes the same validation as a single write. Small
//! uploads are imported while the client waits ([`FeatureService::import_now`]); bigger ones are
//! kept as a blob and imported by a `features.import` job ([`FeatureService::submit_import`],
//! [`ImportJobHandler`]).

use crate::write::{new_feature, parse_feature};
use crate::{Error, FeatureService, Result, PARCELS};
use async_trait::async_trait;
use meridian_core::crs::Crs;
use meridian_core::id::AccountId;
use meridian_core::problem::Problem;
use meridian_core::{DomainError, FieldError, Timestamp};
use meridian_features::fgb::{self, FgbError};
use meridian_features::geometry;
use meridian_jobs::{JobContext, JobError, JobHandler, JobOutcome};
use meridian_store::features::{Feature, FeatureCollection};
use meridian_store::model::{Job, NewJob};
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// The job kind of big uploads.
pub const IMPORT_JOB: &str = "features.import";

/// Validation errors reported before an upload is given up.
const MAX_ERRORS: usize = 100;

/// What an upload is encoded as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UploadFormat {
    /// A GeoJSON FeatureCollection (`application/geo+json` or `application/json`).
    Geojson,
    /// FlatGeobuf (`application/flatgeobuf`).
    Flatgeobuf,
}

impl UploadFormat {
    /// The format of a `Content-Type`, if it is one.
    pub fn of_media_type(ct: &str) -> Option<Self> {
        let essence = ct.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        match essence.as_str() {
            "application/geo+json" | "application/json" => Some(Self::Geojson),
            "application/flatgeobuf" | "application/x-flatgeobuf" => Some(Self::Flatgeobuf),
            _ => None,
        }
    }
}

/// What the client said about the collection besides the file.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct UploadMeta {
    /// From the query (`id`, `title`, `description`); the file's own values fill the gaps.
    pub id: Option<String>,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The `Content-Crs` header, if any.
    pub content_crs: Option<String>,
}

/// The parameters of a `features.import` job.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ImportParams {
    pub format: UploadFormat,
    pub meta: UploadMeta,
    /// The blob holding the upload; deleted when the job ends.
    pub blob: String,
    pub bytes: u64,
}

/// A collection ready to be stored.
pub struct Imported {
    pub collection: FeatureCollection,
    pub features: Vec<Feature>,
}

/// Features written in one transaction of an import.
pub const IMPORT_BATCH: usize = 500;

/// Whether `id` can name a user collection.
pub fn valid_collection_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id != PARCELS
        && id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// The 422 error of a collection id that is missing or malformed.
pub fn id_error() -> FieldError {
    FieldError::new("/id", "invalid_value", "id must be 1 to 64 lowercase letters, digits, - or _ (and not `parcels`)")
}

/// Validates features one by one into stored features, collecting errors with their pointers.
struct Collector<'a> {
    account: &'a AccountId,
    collection: String,
    crs: Crs,
    /// FlatGeobuf stores geographic coordinates longitude first; EPSG axis order puts latitude first.
    swap_xy: bool,
    now: Timestamp,
    features: Vec<Feature>,
    errors: Vec<FieldError>,
}

impl Collector<'_> {
    /// Takes one feature; false once enough errors are known to stop reading.
    fn take(&mut self, index: u64, mut feature: Value) -> bool {
        if self.swap_xy {
            if let Some(g) = feature.get("geometry").filter(|g| !g.is_null()) {
                let swapped = geometry::map_positions(g, &mut |x, y| Some((y, x)));
                if let Some(s) = swapped {
                    feature["geometry"] = s;
                }
            }
        }
        match parse_feature(&feature, self.crs, &self.collection) {
            Ok(draft) => self.features.push(new_feature(self.account, &self.collection, draft, self.now)),
            Err(e) => self.errors.extend(field_errors(e).into_iter().map(|mut fe| {
                fe.pointer = format!("/features/{index}{}", fe.pointer);
                fe
            })),
        }
        self.errors.len() < MAX_ERRORS
    }
}

/// Reads and validates a whole upload. Errors: 400 for an unreadable file, 422 with a pointer
/// for each bad feature (up to 100), or for a missing or malformed collection id.
pub fn read_upload(
    reader: impl Read,
    format: UploadFormat,
    meta: &UploadMeta,
    account: &AccountId,
    now: Timestamp,
) -> Result<Imported> {
    let content_crs = meta.content_crs.as_deref().map(parse_content_crs).transpose()?;
    let mut c = Collector {
        account,
        collection: String::new(),
        crs: content_crs.unwrap_or(Crs::Crs84),
        swap_xy: false,
        now,
        features: Vec::new(),
        errors: Vec::new(),
    };
    let (id, title, description) = match format {
        UploadFormat::Geojson => {
            let top = read_geojson(reader, meta, &mut c)?;
            (top.id, top.title, top.description)
        }
        UploadFormat::Flatgeobuf => {
            let unreadable = |e: FgbError| Error::Malformed(format!("the FlatGeobuf file cannot be read: {e}"));
            let mut file = fgb::FgbFeatures::open(reader).map_err(unreadable)?;
            let h = file.header().clone();
            c.collection = meta.id.clone().or_else(|| h.name.clone()).unwrap_or_default();
            if !valid_collection_id(&c.collection) {
                return Err(DomainError::Invalid(vec![id_error()]).into());
            }
            if content_crs.is_none() {
                match h.epsg.and_then(|code| u16::try_from(code).ok()) {
                    None | Some(4326) => {}
                    Some(code) => match Crs::parse(&format!("EPSG:{code}")) {
                        Ok(crs) => {
                            c.crs = crs;
                            // FlatGeobuf keeps geographic coordinates longitude first.
                            c.swap_xy = crs.is_geographic();
                        }
                        Err(why) => return Err(Error::UnsupportedCrs { param: "the file's CRS".into(), why }),
                    },
                }
            }
            let mut i = 0u64;
            while let Some(f) = file.next_feature().map_err(unreadable)? {
                if !c.take(i, f) {
                    break;
                }
                i += 1;
            }
            (Some(c.collection.clone()), h.title.or(h.name), h.description)
        }
    };
    if !c.errors.is_empty() {
        return Err(DomainError::Invalid(c.errors).into());
    }
    let id = meta.id.clone().or(id).unwrap_or_default();
    for f in &mut c.features {
        f.collection.clone_from(&id);
    }
    let collection = FeatureCollection {
        account_id: account.clone(),
        title: meta.title.clone().or(title).unwrap_or_else(|| id.clone()),
        description: meta.description.clone().or(description).unwrap_or_default(),
        id,
        created_at: now,
        updated_at: now,
    };
    Ok(Imported { collection, features: c.features })
}

/// The members of a FeatureCollection other than its features.
#[derive(Default)]
struct TopLevel {
    kind: Option<String>,
    id: Option<String>,
    title: Option<String>,
    description: Option<String>,
    saw_features: bool,
}

/// Streams a GeoJSON FeatureCollection: members are read in document order and each element of
/// `features` is validated as soon as it is parsed (the collection id may come before or after).
fn read_geojson(reader: impl Read, meta: &UploadMeta, c: &mut Collector) -> Result<TopLevel> {
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::with_capacity(1 << 16, reader));
    let top = TopSeed { c }.deserialize(&mut de);
    let top = match top {
        Ok(t) => t,
        Err(e) if e.is_data() && e.to_string().starts_with(STOP) => {
            return Err(DomainError::Invalid(std::mem::take(&mut c.errors)).into())
        }
        Err(e) => return Err(Error::Malformed(format!("the body is not a GeoJSON FeatureCollection: {e}"))),
    };
    if let Err(e) = de.end() {
        return Err(Error::Malformed(format!("the body has data after the FeatureCollection: {e}")));
    }
    let mut errors = Vec::new();
    if top.kind.as_deref() != Some("FeatureCollection") {
        errors.push(FieldError::new("/type", "invalid_value", "type must be \"FeatureCollection\""));
    }
    if !top.saw_features {
        errors.push(FieldError::new("/features", "required", "a FeatureCollection needs `features`"));
    }
    if !valid_collection_id(meta.id.as_deref().or(top.id.as_deref()).unwrap_or("")) {
        errors.push(id_error());
    }
    if !errors.is_empty() {
        errors.append(&mut c.errors);
        return Err(DomainError::Invalid(errors).into());
    }
    Ok(top)
}

const STOP: &str = "meridian: too many invalid features";

struct TopSeed<'a, 'b> {
    c: &'a mut Collector<'b>,
}

impl<'de> DeserializeSeed<'de> for TopSeed<'_, '_> {
    type Value = TopLevel;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<TopLevel, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TopSeed<'_, '_> {
    type Value = TopLevel;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a GeoJSON FeatureCollection object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
        let mut top = TopLevel::default();
        let text = |v: Value| v.as_str().map(str::to_owned);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "type" => top.kind = text(map.next_value()?),
                "id" => top.id = text(map.next_value()?),
                "title" => top.title = text(map.next_value()?),
                "description" => top.description = text(map.next_value()?),
                "features" => {
                    map.next_value_seed(FeaturesSeed { c: self.c })?;
                    top.saw_features = true;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(top)
    }
}

struct FeaturesSeed<'a, 'b> {
    c: &'a mut Collector<'b>,
}

impl<'de> DeserializeSeed<'de> for FeaturesSeed<'_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for FeaturesSeed<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of GeoJSON Features")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0u64;
        while let Some(feature) = seq.next_element::<Value>()? {
            if !self.c.take(i, feature) {
                return Err(de::Error::custom(STOP));
            }
            i += 1;
        }
        Ok(())
    }
}

/// A reader that counts what passes through it and stops when asked to.
struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(std::io::Error::other("cancelled"));
        }
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Parses a `Content-Crs` value (a URI, optionally in angle brackets).
pub fn parse_content_crs(value: &str) -> Result<Crs> {
    let uri = value.trim().trim_start_matches('<').trim_end_matches('>');
    Crs::parse(uri).map_err(|why| Error::UnsupportedCrs { param: "Content-Crs".into(), why })
}

/// The field errors of a feature that failed validation.
fn field_errors(e: DomainError) -> Vec<FieldError> {
    match e {
        DomainError::Invalid(errors) => errors,
        other => vec![FieldError::new("", "invalid_feature", other.to_string())],
    }
}

impl FeatureService {
    /// Reads, validates and stores an upload held in a local file while the caller waits. Errors:
    /// `Malformed` for an unreadable file, 422 with a pointer for each bad feature (up to 100) or
    /// for a missing or malformed collection id, a conflict when the id is taken.
    pub async fn import_now(
        &self,
        account: &AccountId,
        file: &Path,
        format: UploadFormat,
        meta: UploadMeta,
    ) -> Result<Imported> {
        let (account_for_read, path) = (account.clone(), file.to_owned());
        let imported = tokio::task::spawn_blocking(move || -> Result<Imported> {
            let file =
                std::fs::File::open(&path).map_err(|e| Error::Join(format!("the upload cannot be read: {e}")))?;
            read_upload(file, format, &meta, &account_for_read, Timestamp::now())
        })
        .await
        .map_err(|e| Error::Join(e.to_string()))??;
        self.store_imported(&imported).await?;
        Ok(imported)
    }

    /// Stores an imported collection in batches of [`IMPORT_BATCH`] features, one transaction
    /// each, so that other writes (job heartbeats, webhook deliveries, DNS) wait for one batch at
    /// most rather than for the whole file. The collection stays hidden until its last batch is
    /// in, and is removed whole when a batch fails: all or nothing, as one transaction was.
    pub async fn store_imported(&self, imported: &Imported) -> Result<()> {
        let features = &self.store().features;
        let c = &imported.collection;
        features.begin_import(c).await?;
        let stored = async {
            for batch in imported.features.chunks(IMPORT_BATCH) {
                features.import_features(&c.account_id, &c.id, batch).await?;
            }
            features.finish_import(&c.account_id, &c.id).await
        }
        .await;
        if let Err(e) = stored {
            if let Err(cleanup) = features.abort_import(&c.account_id, &c.id).await {
                tracing::warn!(error = %cleanup, collection = %c.id, "removing a failed import failed; the next import of it removes it");
            }
            return Err(e.into());
        }
        Ok(())
    }

    /// Keeps an upload held in a local file as a blob and queues a `features.import` job for it
    /// (the job's params carry `meta`). A named collection that exists already fails now rather
    /// than after the upload is read; the blob is removed when the job cannot be queued.
    pub async fn submit_import(
        &self,
        account: &AccountId,
        file: &Path,
        format: UploadFormat,
        meta: UploadMeta,
        max_attempts: u32,
    ) -> Result<Job> {
        if let Some(id) = &meta.id {
            if !valid_collection_id(id) {
                return Err(DomainError::Invalid(vec![id_error()]).into());
            }
            if self.store().features.get_collection(account, id).await?.is_some() {
                return Err(
                    DomainError::conflict("collection_exists", format!("collection {id} already exists")).into()
                );
            }
        }
        let blobs = &self.store().blobs;
        let blob = format!("features/imports/{}/{}", account.as_str(), meridian_core::id::new_id("upload"));
        let bytes = blobs.upload_file(&blob, file).await?;
        let params = ImportParams { format, meta, blob: blob.clone(), bytes };
        let job = self
            .store()
            .jobs
            .submit(NewJob {
                account_id: account.clone(),
                kind: IMPORT_JOB.to_owned(),
                params: serde_json::to_value(&params).map_err(|e| Error::Join(e.to_string()))?,
                max_attempts,
            })
            .await;
        match job {
            Ok(job) => Ok(job),
            Err(e) => {
                if let Err(cleanup) = blobs.delete(&blob).await {
                    tracing::warn!(error = %cleanup, "removing the upload of a job that was not queued failed");
                }
                Err(e.into())
            }
        }
    }
}

/// Runs `features.import` jobs.
pub struct ImportJobHandler {
    service: FeatureService,
    /// Where the upload is copied when the blob store is remote.
    staging: meridian_store::staging::Staging,
}

impl ImportJobHandler {
    pub fn new(service: FeatureService, staging: meridian_store::staging::Staging) -> Self {
        Self { service, staging }
    }
}

/// A failure of an import as the job records it.
fn to_job_error(e: Error) -> JobError {
    match e {
        Error::Domain(DomainError::Invalid(errors)) => {
            let mut p = Problem::new(422, "validation_failed", "Validation failed", "the upload has invalid features");
            p.errors = errors;
            JobError::Permanent(p)
        }
        Error::Domain(DomainError::Conflict { code, detail }) => {
            JobError::Permanent(Problem::new(409, code, "Conflict", detail))
        }
        Error::Malformed(detail) => {
            JobError::Permanent(Problem::new(400, "malformed_request", "Malformed request", detail))
        }
        Error::UnsupportedCrs { param, why } => {
            JobError::Permanent(Problem::new(400, "unsupported_crs", "Unsupported CRS", format!("{param}: {why}")))
        }
        other => JobError::internal(other),
    }
}

fn gone(detail: String) -> JobError {
    JobError::Permanent(Problem::new(410, "upload_gone", "The upload is gone", detail))
}

#[async_trait]
impl JobHandler for ImportJobHandler {
    fn kind(&self) -> &'static str {
        IMPORT_JOB
    }

    async fn run(&self, ctx: &JobContext) -> Result<JobOutcome, JobError> {
        let params: ImportParams = serde_json::from_value(ctx.job.params.clone())
            .map_err(|e| JobError::invalid(format!("the job's parameters are unreadable: {e}")))?;
        let account = ctx.job.account_id.clone();
        let blobs = self.service.store().blobs.clone();
        // The stored file itself on a local store; a streamed copy (removed with `local`) on a
        // remote one: never the whole upload in memory.
        let dir = self.staging.dir().map_err(JobError::internal)?;
        let Some(local) = blobs.local_file(&params.blob, dir).await.map_err(JobError::internal)? else {
            return Err(gone("the uploaded file is no longer stored".into()));
        };
        let reader: Box<dyn Read + Send> =
            Box::new(std::fs::File::open(local.path()).map_err(|e| gone(e.to_string()))?);
        let read = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let counting = Counting { inner: reader, read: read.clone(), stop: stop.clone() };
        let (format, meta) = (params.format, params.meta.clone());
        let task_account = account.clone();
        let mut task =
            tokio::task::spawn_blocking(move || read_upload(counting, format, &meta, &task_account, Timestamp::now()));
        let mut tick = tokio::time::interval(std::time::Duration::from_millis(250));
        let parsed = loop {
            tokio::select! {
                joined = &mut task => break joined.map_err(JobError::internal)?,
                _ = tick.tick() => {
                    if ctx.is_cancelled() {
                        stop.store(true, Ordering::Relaxed);
                    }
                    let done = read.load(Ordering::Relaxed) as f64 / params.bytes.max(1) as f64;
                    ctx.set_progress((done * 90.0).min(90.0) as u8);
                }
            }
        };
        if ctx.is_cancelled() {
            return Err(JobError::Cancelled);
        }
        let outcome = match parsed {
            Ok(imported) => self.service.store_imported(&imported).await.map(|()| JobOutcome {
                output: json!({
                    "collection": imported.collection.id,
                    "numberOfFeatures": imported.features.len(),
                    "href": format!("/api/v1/ogc/v1/features/collections/{}", imported.collection.id),
                }),
                event: None,
            }),
            Err(e) => Err(e),
        }
        .map_err(to_job_error);
        // A retryable failure keeps the upload for the next attempt.
        if !matches!(outcome, Err(JobError::Retryable(_))) {
            if let Err(e) = blobs.delete(&params.blob).await {
                tracing::warn!(error = %e, blob = %params.blob, "removing an imported upload failed");
            }
        }
        outcome
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The field errors of a 422.
    fn invalid(e: Error) -> Vec<FieldError> {
        match e {
            Error::Domain(DomainError::Invalid(errors)) => errors,
            other => panic!("not a validation error: {other}"),
        }
    }

    /// Reads an upload of `bytes` for a new account.
    fn read(bytes: &[u8], format: UploadFormat, meta: &UploadMeta) -> Result<Imported> {
        read_upload(bytes, format, meta, &AccountId::generate(), Timestamp::now())
    }

    /// Reads a GeoJSON body with no query.
    fn read_json(body: &Value) -> Result<Imported> {
        read(body.to_string().as_bytes(), UploadFormat::Geojson, &UploadMeta::default())
    }

    fn square(x: f64) -> Value {
        json!({"type": "Feature", "properties": {"name": format!("s{x}")}, "geometry": {"type": "Polygon",
            "coordinates": [[[x, 0.0], [x + 1.0, 0.0], [x + 1.0, 1.0], [x, 1.0], [x, 0.0]]]}})
    }

    #[test]
    fn streams_a_feature_collection_with_the_id_in_the_body() {
        let body = json!({"type": "FeatureCollection", "id": "squares", "title": "Squares",
            "features": [square(0.0), square(2.0)], "extra": {"ignored": [1, 2]}});
        let got = read_json(&body).map_err(|e| e.to_string()).unwrap();
        assert_eq!(got.collection.id, "squares");
        assert_eq!(got.collection.title, "Squares");
        assert_eq!(got.features.len(), 2);
        assert_eq!(got.features[1].bbox, Some([2.0, 0.0, 3.0, 1.0]));
    }

    #[test]
    fn reports_bad_features_with_pointers_and_a_missing_id() {
        let mut bad = square(0.0);
        bad["geometry"]["coordinates"][0][4] = json!([5.0, 5.0]);
        let body = json!({"type": "FeatureCollection", "id": "x", "features": [square(0.0), bad]});
        let errors = invalid(read_json(&body).err().unwrap());
        assert!(errors.iter().all(|fe| fe.pointer.starts_with("/features/1/geometry")), "{errors:?}");

        let body = json!({"type": "FeatureCollection", "features": [square(0.0)]});
        assert_eq!(invalid(read_json(&body).err().unwrap())[0].pointer, "/id");

        // The query can name it instead.
        let meta = UploadMeta { id: Some("from-query".into()), ..Default::default() };
        let got = read(body.to_string().as_bytes(), UploadFormat::Geojson, &meta).map_err(|e| e.to_string()).unwrap();
        assert_eq!(got.collection.id, "from-query");
    }

    #[test]
    fn malformed_json_is_a_400() {
        let e = read(
            &b"{\"type\": \"FeatureCollection\", \"features\": [1,"[..],
            UploadFormat::Geojson,
            &UploadMeta::default(),
        )
        .err()
        .unwrap();
        assert!(matches!(e, Error::Malformed(_)), "{e}");
        let e = read(
            &b"not flatgeobuf"[..],
            UploadFormat::Flatgeobuf,
            &UploadMeta { id: Some("a".into()), ..Default::default() },
        )
        .err()
        .unwrap();
        assert!(matches!(e, Error::Malformed(_)), "{e}");
    }

    #[test]
    fn stops_after_a_hundred_errors() {
        let features: Vec<Value> = (0..500).map(|_| json!({"type": "Feature", "geometry": {"type": "Point", "coordinates": [500.0, 0.0]}, "properties": {}})).collect();
        let body = json!({"type": "FeatureCollection", "id": "many", "features": features});
        assert_eq!(invalid(read_json(&body).err().unwrap()).len(), MAX_ERRORS);
    }
}
