//! Twins as a resource: the definition checked and stored, the build job queued, list, read,
//! delete, and the clock.

use super::{keys, twin_not_found, Clock, ClockChange, Error, Result, TwinService, BUILD_JOB, CREATED, DELETED};
use meridian_core::event::NewEvent;
use meridian_core::id::{AccountId, JobId, TwinId};
use meridian_core::page::Page;
use meridian_core::{DomainError, FieldError, Timestamp};
use meridian_features::cql2;
use meridian_features::geometry::{self, Rules};
use meridian_store::model::{Job, NewJob};
use meridian_store::twin::TwinRow;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// Largest side of a twin's area, in degrees.
pub(crate) const MAX_AREA_DEGREES: f64 = 2.0;

/// Where a twin is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Its first tileset is being built.
    Building,
    /// Its tileset was built; later builds happen on demand.
    Ready,
    /// Its first build failed (`error` says why); the tileset is built again on request.
    Failed,
}

impl Status {
    fn parse(s: &str) -> Result<Self> {
        serde_json::from_value(Value::String(s.to_owned()))
            .map_err(|_| Error::Internal(format!("twin status {s} is not known")))
    }

    /// As stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Building => "building",
            Status::Ready => "ready",
            Status::Failed => "failed",
        }
    }
}

/// What `POST /realtime/twins` takes.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewTwin {
    #[serde(default)]
    pub name: Option<String>,
    /// Longitude/latitude box: west, south, east, north.
    #[serde(default)]
    pub bbox: Option<Vec<f64>>,
    /// A GeoJSON Polygon or MultiPolygon (CRS84) instead of, or within, the box.
    #[serde(default)]
    pub area: Option<Value>,
    /// The feature collection of the assets (`parcels` by default).
    #[serde(default)]
    pub collection: Option<String>,
    /// A CQL2 text filter on the features.
    #[serde(default)]
    pub filter: Option<String>,
    /// A DEM dataset (`dataset_...`): terrain, and the ground the buildings stand on.
    #[serde(default)]
    pub dem_dataset: Option<String>,
    /// The property holding a building's height in metres.
    #[serde(default)]
    pub height_property: Option<String>,
    /// Height of a building without one (metres).
    #[serde(default)]
    pub default_height: Option<f64>,
}

/// The stored definition of a twin and what its builds found.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Body {
    pub name: String,
    pub bbox: [f64; 4],
    #[serde(default)]
    pub area: Option<Value>,
    pub collection: String,
    #[serde(default)]
    pub filter: Option<String>,
    #[serde(default)]
    pub dem_dataset: Option<String>,
    #[serde(default)]
    pub height_property: Option<String>,
    pub default_height: f64,
    pub build_job: String,
    /// The summary of the latest build.
    #[serde(default)]
    pub tileset: Option<Value>,
    #[serde(default)]
    pub error: Option<Value>,
}

/// A twin.
#[derive(Clone, Debug, PartialEq)]
pub struct Twin {
    pub id: TwinId,
    pub account_id: AccountId,
    pub status: Status,
    pub name: String,
    pub bbox: [f64; 4],
    pub area: Option<Value>,
    pub collection: String,
    pub filter: Option<String>,
    pub dem_dataset: Option<String>,
    pub height_property: Option<String>,
    pub default_height: f64,
    pub build_job: JobId,
    /// The latest build: stamp, as_of, features, tiles, triangles, skipped.
    pub tileset: Option<Value>,
    pub error: Option<Value>,
    pub clock: Clock,
    pub version: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

impl Twin {
    pub(crate) fn of_row(row: TwinRow) -> Result<Self> {
        let body: Body = serde_json::from_value(row.body).map_err(|e| Error::Internal(format!("twin body: {e}")))?;
        Ok(Self {
            id: TwinId(row.id),
            account_id: row.account_id,
            status: Status::parse(&row.status)?,
            name: body.name,
            bbox: body.bbox,
            area: body.area,
            collection: body.collection,
            filter: body.filter,
            dem_dataset: body.dem_dataset,
            height_property: body.height_property,
            default_height: body.default_height,
            build_job: JobId(body.build_job),
            tileset: body.tileset,
            error: body.error,
            clock: Clock::of_value(&row.clock),
            version: row.version,
            created_at: row.created_at,
            updated_at: row.updated_at,
        })
    }

    pub(crate) fn body(&self) -> Body {
        Body {
            name: self.name.clone(),
            bbox: self.bbox,
            area: self.area.clone(),
            collection: self.collection.clone(),
            filter: self.filter.clone(),
            dem_dataset: self.dem_dataset.clone(),
            height_property: self.height_property.clone(),
            default_height: self.default_height,
            build_job: self.build_job.0.clone(),
            tileset: self.tileset.clone(),
            error: self.error.clone(),
        }
    }

    /// The filter, parsed.
    pub(crate) fn filter_expr(&self) -> Option<cql2::Expr> {
        self.filter.as_deref().and_then(|f| cql2::parse_text(f).ok())
    }

    /// The area as a geometry (the box when no polygon was given).
    pub(crate) fn area_geometry(&self) -> geo::Geometry<f64> {
        self.area.as_ref().and_then(geometry::decode).unwrap_or_else(|| {
            let [w, s, e, n] = self.bbox;
            geo::Geometry::Polygon(geo::Rect::new(geo::coord! { x: w, y: s }, geo::coord! { x: e, y: n }).to_polygon())
        })
    }
}

/// The fields every event of a twin carries.
pub(crate) fn event_fields(t: &Twin) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("twin".into(), json!(t.id.as_str()));
    m.insert("name".into(), json!(t.name));
    m.insert("href".into(), json!(format!("/api/v1/realtime/twins/{}", t.id)));
    m
}

impl TwinService {
    pub(crate) fn row(&self, t: &Twin) -> Result<TwinRow> {
        Ok(TwinRow {
            account_id: t.account_id.clone(),
            id: t.id.0.clone(),
            status: t.status.as_str().to_owned(),
            body: serde_json::to_value(t.body()).map_err(|e| Error::Internal(e.to_string()))?,
            clock: serde_json::to_value(t.clock).map_err(|e| Error::Internal(e.to_string()))?,
            version: t.version,
            created_at: t.created_at,
            updated_at: t.updated_at,
        })
    }

    /// Checks a definition: every mistake is a field error with its pointer.
    async fn check(&self, account: &AccountId, p: &NewTwin) -> Result<([f64; 4], Option<Value>, String)> {
        let mut errors = Vec::new();
        if p.name.as_ref().is_some_and(|n| n.trim().is_empty() || n.chars().count() > 200) {
            errors.push(FieldError::new("/name", "invalid_name", "a name has 1 to 200 characters"));
        }
        let mut area = None;
        let mut area_box = None;
        if let Some(a) = &p.area {
            match geometry::parse(a, "/area", Rules { areal_only: true, geographic: true }) {
                Ok(g) if g.json.to_string().len() <= 1_000_000 => {
                    area_box = Some([g.bbox.min_x, g.bbox.min_y, g.bbox.max_x, g.bbox.max_y]);
                    area = Some(g.json);
                }
                Ok(_) => errors.push(FieldError::new("/area", "too_large", "the area has too many positions")),
                Err(e) => errors.extend(e),
            }
        }
        let bbox = match (&p.bbox, area_box) {
            (Some(b), _) => match b.as_slice() {
                &[w, s, e, n]
                    if (-180.0..=180.0).contains(&w)
                        && (-180.0..=180.0).contains(&e)
                        && (-90.0..=90.0).contains(&s)
                        && (-90.0..=90.0).contains(&n)
                        && w < e
                        && s < n =>
                {
                    Some([w, s, e, n])
                }
                _ => {
                    errors.push(FieldError::new(
                        "/bbox",
                        "invalid_bbox",
                        "bbox is [west, south, east, north] in degrees, west < east, south < north",
                    ));
                    None
                }
            },
            (None, Some(b)) => Some(b),
            (None, None) => {
                errors.push(FieldError::new("/bbox", "required", "give the twin's area as bbox or area"));
                None
            }
        };
        let bbox = match (bbox, area_box) {
            // A polygon within a box: the box of their overlap.
            (Some(b), Some(a)) => Some([b[0].max(a[0]), b[1].max(a[1]), b[2].min(a[2]), b[3].min(a[3])]),
            (b, _) => b,
        };
        if let Some(b) = bbox {
            if b[2] - b[0] > MAX_AREA_DEGREES || b[3] - b[1] > MAX_AREA_DEGREES {
                errors.push(FieldError::new(
                    "/bbox",
                    "area_too_large",
                    format!("a twin covers at most {MAX_AREA_DEGREES}° × {MAX_AREA_DEGREES}°"),
                ));
            } else if b[0] >= b[2] || b[1] >= b[3] {
                errors.push(FieldError::new("/area", "outside_bbox", "the area does not overlap the bbox"));
            }
        }
        let collection = p.collection.clone().unwrap_or_else(|| "parcels".to_owned());
        match self.store.features.get_collection(account, &collection).await? {
            Some(_) => {}
            // The account's parcels exist as soon as one is registered; an empty twin is fine.
            None if collection == "parcels" => {}
            None => errors.push(FieldError::new(
                "/collection",
                "unknown_collection",
                format!("the account has no feature collection {collection}"),
            )),
        }
        if let Some(f) = &p.filter {
            if let Err(e) = cql2::parse_text(f) {
                errors.push(FieldError::new("/filter", "invalid_filter", format!("not a CQL2 text filter: {e}")));
            }
        }
        if let Some(d) = &p.dem_dataset {
            let found = meridian_core::id::has_shape(d, meridian_core::id::DatasetId::PREFIX)
                && self.store.dem.get_dataset(account, d).await?.is_some();
            if !found {
                errors.push(FieldError::new(
                    "/dem_dataset",
                    "unknown_dataset",
                    format!("the account has no DEM dataset {d}"),
                ));
            }
        }
        if p.height_property.as_ref().is_some_and(|h| h.is_empty() || h.len() > 100) {
            errors.push(FieldError::new("/height_property", "invalid_property", "a property name has 1 to 100 bytes"));
        }
        if p.default_height.is_some_and(|h| !(h > 0.0 && h <= 1000.0)) {
            errors.push(FieldError::new(
                "/default_height",
                "out_of_range",
                "default_height is more than 0 and at most 1000 (metres)",
            ));
        }
        match (errors.is_empty(), bbox) {
            (true, Some(b)) => Ok((b, area, collection)),
            _ => Err(DomainError::Invalid(errors).into()),
        }
    }

    /// Creates a twin and queues the build of its tileset.
    pub async fn create(&self, account: &AccountId, p: NewTwin) -> Result<(Twin, Job)> {
        let (bbox, area, collection) = self.check(account, &p).await?;
        let id = TwinId::generate();
        let now = Timestamp::now();
        let mut twin = Twin {
            id: id.clone(),
            account_id: account.clone(),
            status: Status::Building,
            name: p.name.map(|n| n.trim().to_owned()).unwrap_or_else(|| "twin".to_owned()),
            bbox,
            area,
            collection,
            filter: p.filter,
            dem_dataset: p.dem_dataset,
            height_property: p.height_property,
            default_height: p.default_height.unwrap_or(9.0),
            build_job: JobId(String::new()),
            tileset: None,
            error: None,
            clock: Clock::default(),
            version: 1,
            created_at: now,
            updated_at: now,
        };
        // The job is queued first so that the row can name it; until the row is committed the
        // job finds nothing and tries again.
        let job = self
            .store
            .jobs
            .submit(NewJob {
                account_id: account.clone(),
                kind: BUILD_JOB.to_owned(),
                params: json!({ "twin": id.as_str() }),
                max_attempts: self.max_attempts,
            })
            .await?;
        twin.build_job = job.id.clone();
        let event = NewEvent::new(account.clone(), CREATED, event_fields(&twin));
        if let Err(e) = self.store.twin.insert_twin(&self.row(&twin)?, &[event]).await {
            let _ = self.store.jobs.cancel(account, &job.id).await;
            return Err(e.into());
        }
        Ok((twin, job))
    }

    /// One twin of `account`; another account's is not found.
    pub async fn get(&self, account: &AccountId, id: &str) -> Result<Twin> {
        if !meridian_core::id::has_shape(id, TwinId::PREFIX) {
            return Err(twin_not_found(id));
        }
        Twin::of_row(self.store.twin.get_twin(account, id).await?.ok_or_else(|| twin_not_found(id))?)
    }

    /// The account's twins, newest first, and how many there are.
    pub async fn list(&self, account: &AccountId, page: Page) -> Result<(Vec<Twin>, u64)> {
        let (rows, total) = self.store.twin.list_twins(account, page).await?;
        Ok((rows.into_iter().map(Twin::of_row).collect::<Result<Vec<_>>>()?, total))
    }

    /// Deletes a twin with its sensors, readings and builds; subscribers are told it is gone.
    pub async fn delete(&self, account: &AccountId, id: &str, expected: Option<i64>) -> Result<()> {
        let twin = self.get(account, id).await?;
        let event = NewEvent::new(account.clone(), DELETED, event_fields(&twin));
        if !self.store.twin.delete_twin(account, id, expected, &[event]).await? {
            return Err(twin_not_found(id));
        }
        self.hub.close(id);
        self.sensor_types.remove(id);
        self.tell_nodes(account, id).await;
        let _ = self.store.jobs.cancel(account, &twin.build_job).await;
        if let Err(e) = self.blobs().delete_prefix(&keys::twin(account, id)).await {
            tracing::warn!(error = %e, twin = id, "removing a deleted twin's builds failed");
        }
        Ok(())
    }

    /// Sets the clock; subscribers are told.
    pub async fn set_clock(&self, account: &AccountId, id: &str, change: &ClockChange) -> Result<Twin> {
        let twin = self.get(account, id).await?;
        let clock = twin.clock.apply(change, Timestamp::now().millis()).map_err(DomainError::Invalid)?;
        let value = serde_json::to_value(clock).map_err(|e| Error::Internal(e.to_string()))?;
        let row = self.store.twin.set_twin_clock(account, id, &value).await?;
        self.hub.clock_changed(id, clock);
        self.tell_nodes(account, id).await;
        Twin::of_row(row)
    }
}
