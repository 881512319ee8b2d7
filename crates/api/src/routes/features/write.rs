//! Creating, replacing, patching and retiring features: input parsing in any CRS, validation,
//! server-kept properties (`area_m2` on the ellipsoid, `updated_at`), versions and events.

use super::PARCELS;
use crate::error::ApiError;
use meridian_core::crs::{Crs, Transformer};
use meridian_core::error::Validator;
use meridian_core::event::NewEvent;
use meridian_core::id::AccountId;
use meridian_core::{DomainError, FieldError, Timestamp};
use meridian_features::geometry::{self, ParsedGeometry, Rules};
use meridian_store::features::Feature;
use meridian_store::Store;
use serde_json::{json, Map, Value};

/// A checked feature body.
pub struct Draft {
    pub geometry: Option<ParsedGeometry>,
    pub properties: Map<String, Value>,
}

/// Properties the server keeps itself; values sent by clients are ignored.
const SERVER_KEPT: &[&str] = &["area_m2", "updated_at"];

/// Parses a GeoJSON Feature given in `crs`, validating it for `collection`.
pub fn parse_feature(body: &Value, crs: Crs, collection: &str) -> Result<Draft, ApiError> {
    let parcels = collection == PARCELS;
    let Some(obj) = body.as_object() else {
        return Err(ApiError::invalid(vec![FieldError::new(
            "",
            "invalid_feature",
            "the body must be a GeoJSON Feature",
        )]));
    };
    if obj.get("type").and_then(Value::as_str) != Some("Feature") {
        return Err(ApiError::invalid(vec![FieldError::new("/type", "invalid_feature", "type must be \"Feature\"")]));
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
                let t = Transformer::new(crs, Crs::Crs84).map_err(|why| super::unsupported_crs("Content-Crs", &why))?;
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
        return Err(ApiError::invalid(errors));
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

/// Stores a new feature (and, for parcels, `cadastre.parcel.registered`).
pub async fn create(store: &Store, account: &AccountId, collection: &str, draft: Draft) -> Result<Feature, ApiError> {
    let mut created = create_many(store, account, collection, vec![draft]).await?;
    created.pop().ok_or_else(|| ApiError::internal("no feature was created"))
}

/// Stores new features in one transaction, with an event for each parcel.
pub async fn create_many(
    store: &Store,
    account: &AccountId,
    collection: &str,
    drafts: Vec<Draft>,
) -> Result<Vec<Feature>, ApiError> {
    let now = Timestamp::now();
    let features: Vec<Feature> = drafts.into_iter().map(|d| new_feature(account, collection, d, now)).collect();
    let events: Vec<NewEvent> =
        features.iter().filter_map(|f| event_for(account, collection, "cadastre.parcel.registered", f)).collect();
    store.features.insert_features(&features, &events).await?;
    Ok(features)
}

/// Replaces a feature's geometry and properties (and, for parcels, `cadastre.parcel.updated`).
pub async fn replace(
    store: &Store,
    current: &Feature,
    draft: Draft,
    expected: Option<i64>,
) -> Result<Feature, ApiError> {
    let next = Feature {
        bbox: draft.geometry.as_ref().map(|g| [g.bbox.min_x, g.bbox.min_y, g.bbox.max_x, g.bbox.max_y]),
        geometry: draft.geometry.map(|g| g.json),
        properties: draft.properties,
        version: current.version + 1,
        updated_at: Timestamp::now(),
        ..current.clone()
    };
    let event = event_for(&current.account_id, &current.collection, "cadastre.parcel.updated", &next);
    Ok(store.features.update_feature(&next, current.version, expected, event).await?)
}

/// Retires a feature (and, for parcels, `cadastre.parcel.retired`).
pub async fn retire(store: &Store, current: &Feature, expected: Option<i64>) -> Result<Feature, ApiError> {
    let event = event_for(&current.account_id, &current.collection, "cadastre.parcel.retired", current);
    Ok(store.features.retire_feature(&current.account_id, &current.collection, &current.id, expected, event).await?)
}

/// The current feature as a GeoJSON Feature in CRS84 (the base a merge patch applies to).
pub fn as_input(f: &Feature) -> Value {
    json!({"type": "Feature", "geometry": f.geometry, "properties": f.properties})
}
