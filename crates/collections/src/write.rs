//! Creating, replacing, patching and retiring features: input parsing in any CRS, validation,
//! server-kept properties (`area_m2` on the ellipsoid, `updated_at`), versions and events.

use crate::{Error, FeatureService, Result, PARCELS};
use meridian_core::crs::{Crs, Transformer};
use meridian_core::error::Validator;
use meridian_core::event::NewEvent;
use meridian_core::id::AccountId;
use meridian_core::{DomainError, FieldError, Timestamp};
use meridian_features::geometry::{self, ParsedGeometry, Rules};
use meridian_store::features::{Feature, FeatureChange};
use serde_json::{json, Map, Value};

/// A checked feature body.
pub struct Draft {
    pub geometry: Option<ParsedGeometry>,
    pub properties: Map<String, Value>,
}

/// Properties the server keeps itself; values sent by clients are ignored.
const SERVER_KEPT: &[&str] = &["area_m2", "updated_at"];

/// Parses a GeoJSON Feature given in `crs`, validating it for `collection`. CPU work on large
/// geometries: async callers use [`FeatureService::draft`], which runs it on a blocking thread.
pub fn parse_feature(body: &Value, crs: Crs, collection: &str) -> Result<Draft, DomainError> {
    let parcels = collection == PARCELS;
    let Some(obj) = body.as_object() else {
        return Err(DomainError::invalid("", "invalid_feature", "the body must be a GeoJSON Feature"));
    };
    if obj.get("type").and_then(Value::as_str) != Some("Feature") {
        return Err(DomainError::invalid("/type", "invalid_feature", "type must be \"Feature\""));
    }
    let mut errors = Vec::new();
    let geometry = match obj.get("geometry") {
        None | Some(Value::Null) => {
            if parcels {
                errors.push(FieldError::new(
                    "/geometry",
                    "required",
                    "a parcel needs a Polygon or MultiPolygon geometry",
                ));
            }
            None
        }
        Some(g) => {
            let in_crs84 = if crs == Crs::Crs84 {
                Some(g.clone())
            } else {
                let t = Transformer::new(crs, Crs::Crs84)
                    .map_err(|why| DomainError::invalid("/geometry", "unsupported_crs", why))?;
                geometry::map_positions(g, &mut |x, y| t.apply(x, y))
            };
            match in_crs84 {
                None => {
                    errors.push(FieldError::new(
                        "/geometry",
                        "out_of_range",
                        format!("positions are outside the domain of {crs}"),
                    ));
                    None
                }
                Some(g) => match geometry::parse(&g, "/geometry", Rules { areal_only: parcels, geographic: true }) {
                    Ok(p) => Some(p),
                    Err(mut e) => {
                        errors.append(&mut e);
                        None
                    }
                },
            }
        }
    };
    let mut properties = match obj.get("properties") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => {
            errors.push(FieldError::new("/properties", "invalid_type", "properties must be an object"));
            Map::new()
        }
    };
    for key in SERVER_KEPT {
        properties.remove(*key);
    }
    // The NUL character is kept by no text column of every backend: refused in property names
    // and text values alike, whatever the store.
    for (key, value) in &properties {
        if key.contains('\0') || matches!(value, Value::String(s) if s.contains('\0')) {
            errors.push(FieldError::new(
                "/properties",
                "invalid_value",
                "property names and text values may not contain the NUL character (U+0000)",
            ));
            break;
        }
    }
    if parcels {
        let mut v = Validator::new();
        for key in ["lot", "plan"] {
            match properties.get(key) {
                Some(Value::String(s)) if !s.trim().is_empty() && s.chars().count() <= 64 => {}
                Some(Value::String(_)) => {
                    v.push(format!("/properties/{key}"), "invalid_value", format!("{key} must be 1 to 64 characters"))
                }
                None | Some(Value::Null) => {
                    v.push(format!("/properties/{key}"), "required", format!("a parcel needs properties.{key}"))
                }
                Some(_) => v.push(format!("/properties/{key}"), "invalid_type", format!("{key} must be a string")),
            }
        }
        match properties.get("tenure") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if !s.trim().is_empty() && s.chars().count() <= 32 => {}
            Some(_) => v.push("/properties/tenure", "invalid_value", "tenure must be a string of 1 to 32 characters"),
        }
        if let Err(DomainError::Invalid(mut e)) = v.finish() {
            errors.append(&mut e);
        }
    }
    if !errors.is_empty() {
        return Err(DomainError::Invalid(errors));
    }
    if let (true, Some(g)) = (parcels, &geometry) {
        let area = (g.geodesic_area_m2() * 100.0).round() / 100.0;
        properties.insert("area_m2".into(), json!(area));
    }
    Ok(Draft { geometry, properties })
}

/// RFC 7396 JSON merge patch.
pub fn merge_patch(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            if let Value::Object(t) = target {
                for (k, v) in p {
                    if v.is_null() {
                        t.remove(k);
                    } else {
                        merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
                    }
                }
            }
        }
        other => *target = other.clone(),
    }
}

fn parcel_event(account: &AccountId, kind: &str, f: &Feature) -> NewEvent {
    let p = &f.properties;
    let mut fields = Map::new();
    fields.insert(
        "parcel".into(),
        json!({
            "id": f.id,
            "lot": p.get("lot"),
            "plan": p.get("plan"),
            "tenure": p.get("tenure"),
            "area_m2": p.get("area_m2"),
            "version": f.version,
        }),
    );
    NewEvent::new(account.clone(), kind, fields)
}

fn event_for(account: &AccountId, collection: &str, kind: &str, f: &Feature) -> Option<NewEvent> {
    (collection == PARCELS).then(|| parcel_event(account, kind, f))
}

fn id_prefix(collection: &str) -> &'static str {
    if collection == PARCELS {
        "parcel"
    } else {
        "feat"
    }
}

/// A version-1 feature from a checked draft.
pub fn new_feature(account: &AccountId, collection: &str, draft: Draft, now: Timestamp) -> Feature {
    Feature {
        id: meridian_core::id::new_id(id_prefix(collection)),
        account_id: account.clone(),
        collection: collection.to_owned(),
        bbox: draft.geometry.as_ref().map(|g| [g.bbox.min_x, g.bbox.min_y, g.bbox.max_x, g.bbox.max_y]),
        geometry: draft.geometry.map(|g| g.json),
        properties: draft.properties,
        version: 1,
        created_at: now,
        updated_at: now,
        retired_at: None,
    }
}

impl FeatureService {
    /// Parses and validates a feature on a blocking thread (validity checks are CPU work).
    pub async fn draft(&self, body: Value, crs: Crs, collection: &str) -> Result<Draft> {
        let collection = collection.to_owned();
        tokio::task::spawn_blocking(move || parse_feature(&body, crs, &collection))
            .await
            .map_err(|e| Error::Join(e.to_string()))?
            .map_err(Error::from)
    }

    /// Parses and validates several features (`/features/N` pointers) on a blocking thread.
    pub async fn drafts(&self, bodies: Vec<Value>, crs: Crs, collection: &str) -> Result<Vec<Draft>> {
        let collection = collection.to_owned();
        tokio::task::spawn_blocking(move || {
            let mut drafts = Vec::with_capacity(bodies.len());
            let mut errors = Vec::new();
            for (i, body) in bodies.iter().enumerate() {
                match parse_feature(body, crs, &collection) {
                    Ok(d) => drafts.push(d),
                    Err(DomainError::Invalid(list)) => errors.extend(list.into_iter().map(|mut e| {
                        e.pointer = format!("/features/{i}{}", e.pointer);
                        e
                    })),
                    Err(other) => return Err(other),
                }
                if errors.len() >= 100 {
                    break;
                }
            }
            if errors.is_empty() {
                Ok(drafts)
            } else {
                Err(DomainError::Invalid(errors))
            }
        })
        .await
        .map_err(|e| Error::Join(e.to_string()))?
        .map_err(Error::from)
    }

    /// Stores a new feature (and, for parcels, `cadastre.parcel.registered`).
    pub async fn create(&self, account: &AccountId, collection: &str, draft: Draft) -> Result<Feature> {
        let mut created = self.create_many(account, collection, vec![draft]).await?;
        created.pop().ok_or_else(|| Error::Join("no feature was created".into()))
    }

    /// Stores new features in one transaction, with an event for each parcel. The parcels
    /// collection is created on first use; another collection must exist.
    pub async fn create_many(&self, account: &AccountId, collection: &str, drafts: Vec<Draft>) -> Result<Vec<Feature>> {
        if collection == PARCELS {
            self.store.features.ensure_collection(&FeatureService::parcels_collection(account)).await?;
        } else {
            self.collection(account, collection).await?;
        }
        let now = Timestamp::now();
        let features: Vec<Feature> = drafts.into_iter().map(|d| new_feature(account, collection, d, now)).collect();
        let events: Vec<NewEvent> =
            features.iter().filter_map(|f| event_for(account, collection, "cadastre.parcel.registered", f)).collect();
        self.store.features.insert_features(&features, &events).await?;
        Ok(features)
    }

    /// Replaces a feature's geometry and properties (and, for parcels, `cadastre.parcel.updated`).
    pub async fn replace(&self, current: &Feature, draft: Draft, expected: Option<i64>) -> Result<Feature> {
        let next = Feature {
            bbox: draft.geometry.as_ref().map(|g| [g.bbox.min_x, g.bbox.min_y, g.bbox.max_x, g.bbox.max_y]),
            geometry: draft.geometry.map(|g| g.json),
            properties: draft.properties,
            version: current.version + 1,
            updated_at: Timestamp::now(),
            ..current.clone()
        };
        let event = event_for(&current.account_id, &current.collection, "cadastre.parcel.updated", &next);
        Ok(self.store.features.update_feature(&next, current.version, expected, event).await?)
    }

    /// Applies an RFC 7396 merge patch (given in `crs`) to a feature and stores the result.
    pub async fn patch(&self, current: &Feature, patch: &Value, crs: Crs, expected: Option<i64>) -> Result<Feature> {
        let mut merged = as_input(current);
        if crs != Crs::Crs84 {
            // The stored geometry is CRS84; a patch in another CRS replaces the geometry whole
            // or leaves it, so bring the base into the patch's CRS first.
            if let Some(g) = current.geometry.as_ref() {
                let t = Transformer::new(Crs::Crs84, crs)
                    .map_err(|why| DomainError::invalid("/geometry", "unsupported_crs", why))?;
                merged["geometry"] = geometry::map_positions(g, &mut |x, y| t.apply(x, y)).unwrap_or(Value::Null);
            }
        }
        merge_patch(&mut merged, patch);
        merged["type"] = json!("Feature");
        let draft = self.draft(merged, crs, &current.collection).await?;
        self.replace(current, draft, expected).await
    }

    /// Retires a feature (and, for parcels, `cadastre.parcel.retired`).
    pub async fn retire(&self, current: &Feature, expected: Option<i64>) -> Result<Feature> {
        let event = event_for(&current.account_id, &current.collection, "cadastre.parcel.retired", current);
        Ok(self
            .store
            .features
            .retire_feature(&current.account_id, &current.collection, &current.id, expected, event)
            .await?)
    }
}

/// Changes gathered to be stored together ([`FeatureService::commit`]): every change with its
/// events, or none.
#[derive(Default)]
pub struct Batch {
    changes: Vec<FeatureChange>,
    events: Vec<NewEvent>,
    /// The version each feature changed in this batch will have reached, so that a second change
    /// of the same feature builds on the first.
    versions: std::collections::HashMap<String, i64>,
    /// Collections new features go to (checked, or created for parcels, at commit).
    collections: Vec<(AccountId, String)>,
}

impl Batch {
    /// A new feature of `collection` (and, for parcels, `cadastre.parcel.registered`).
    pub fn create(&mut self, account: &AccountId, collection: &str, draft: Draft) -> Feature {
        let f = new_feature(account, collection, draft, Timestamp::now());
        self.events.extend(event_for(account, collection, "cadastre.parcel.registered", &f));
        if !self.collections.iter().any(|(a, c)| a == account && c == collection) {
            self.collections.push((account.clone(), collection.to_owned()));
        }
        self.versions.insert(f.id.clone(), f.version);
        self.changes.push(FeatureChange::Insert(f.clone()));
        f
    }

    /// `current`'s geometry and properties replaced by `draft` (and, for parcels,
    /// `cadastre.parcel.updated`).
    pub fn replace(&mut self, current: &Feature, draft: Draft, expected: Option<i64>) -> Feature {
        let based_on = self.versions.get(&current.id).copied().unwrap_or(current.version);
        let next = Feature {
            bbox: draft.geometry.as_ref().map(|g| [g.bbox.min_x, g.bbox.min_y, g.bbox.max_x, g.bbox.max_y]),
            geometry: draft.geometry.map(|g| g.json),
            properties: draft.properties,
            version: based_on + 1,
            updated_at: Timestamp::now(),
            ..current.clone()
        };
        self.events.extend(event_for(&current.account_id, &current.collection, "cadastre.parcel.updated", &next));
        self.versions.insert(next.id.clone(), next.version);
        self.changes.push(FeatureChange::Update { next: next.clone(), based_on, expected });
        next
    }

    /// `current` retired (and, for parcels, `cadastre.parcel.retired`).
    pub fn retire(&mut self, current: &Feature, expected: Option<i64>) {
        self.events.extend(event_for(&current.account_id, &current.collection, "cadastre.parcel.retired", current));
        self.versions.entry(current.id.clone()).and_modify(|v| *v += 1).or_insert(current.version + 1);
        self.changes.push(FeatureChange::Retire {
            account: current.account_id.clone(),
            collection: current.collection.clone(),
            id: current.id.clone(),
            expected,
        });
    }

    /// How many changes it holds.
    pub fn len(&self) -> usize {
        self.changes.len()
    }

    /// Whether it holds no change.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

impl FeatureService {
    /// Stores a batch in one transaction: every change and its events, or none (a conflict, a
    /// stale version or a missing feature anywhere undoes the whole batch). Returns the features
    /// as each change left them, in order.
    pub async fn commit(&self, batch: Batch) -> Result<Vec<Feature>> {
        for (account, collection) in &batch.collections {
            if collection == PARCELS {
                self.store.features.ensure_collection(&FeatureService::parcels_collection(account)).await?;
            } else {
                self.collection(account, collection).await?;
            }
        }
        Ok(self.store.features.apply_feature_changes(&batch.changes, &batch.events).await?)
    }
}

/// The current feature as a GeoJSON Feature in CRS84 (the base a merge patch applies to).
pub fn as_input(f: &Feature) -> Value {
    json!({"type": "Feature", "geometry": f.geometry, "properties": f.properties})
}
