//! The assets of a twin (its features) as they were at the clock's instant, with their sensors
//! and the sensors' readings at that instant.

use super::build::{height_of, selects};
use super::sensors::{sensor_json, Reading, Sensor};
use super::{Result, Twin, TwinService};
use meridian_core::id::AccountId;
use meridian_core::{DomainError, Timestamp};
use serde_json::{json, Value};

/// One asset as of an instant.
#[derive(Clone, Debug)]
pub struct Asset {
    pub twin: Twin,
    /// The instant (ms) it is shown as of.
    pub at: i64,
    pub body: Value,
}

impl TwinService {
    /// The asset `fid` of a twin as of `at` (ms; the twin's clock when `None`): not found when
    /// the feature did not exist then, was retired, or was not in the twin (its area and filter).
    pub async fn asset(&self, account: &AccountId, twin_id: &str, fid: &str, at: Option<i64>) -> Result<Asset> {
        let twin = self.get(account, twin_id).await?;
        let now = Timestamp::now().millis();
        let at = at.unwrap_or_else(|| twin.clock.at(now));
        let not_found = || super::Error::Domain(DomainError::not_found("asset", fid));
        let f =
            self.store.twin.feature_as_of(account, &twin.collection, fid, at.min(now)).await?.ok_or_else(not_found)?;
        let g = selects(&f, &twin.area_geometry(), twin.filter_expr().as_ref()).ok_or_else(not_found)?;
        let area = {
            use geo::GeodesicArea;
            match &g {
                geo::Geometry::Polygon(p) => p.geodesic_area_unsigned(),
                geo::Geometry::MultiPolygon(p) => p.geodesic_area_unsigned(),
                _ => 0.0,
            }
        };
        let sensors: Vec<Sensor> = self
            .store
            .twin
            .feature_sensors(twin_id, fid)
            .await?
            .into_iter()
            .filter_map(|r| Sensor::of_row_pub(r).ok())
            .collect();
        let latest: Vec<Reading> =
            if sensors.is_empty() { Vec::new() } else { self.latest(twin_id, at.min(now)).await? };
        let sensors: Vec<Value> =
            sensors.iter().map(|s| sensor_json(s, latest.iter().find(|r| r.sensor_id == s.id))).collect();
        let height = height_of(&twin, &f.properties);
        let body = json!({
            "id": f.id,
            "twin": twin.id.as_str(),
            "collection": twin.collection,
            "properties": f.properties,
            "footprint": f.geometry,
            "area_m2": (area * 100.0).round() / 100.0,
            "height": height,
            "version": f.version,
            "valid_from": f.valid_from,
            "registered_at": f.created_at,
            "sensors": sensors,
            "as_of": super::clock::rfc3339(at),
            "clock": twin.clock.view(now),
        });
        Ok(Asset { twin, at, body })
    }
}
