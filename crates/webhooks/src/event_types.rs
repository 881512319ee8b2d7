//! Every event type, what announces it, and an example payload; and the rules for the event
//! patterns a subscription lists.

use meridian_core::error::FieldError;
use meridian_core::event::{matches, EVENT_TYPES};
use serde_json::{json, Value};

/// One event type as `GET /api/v1/webhooks/event-types` shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct EventTypeInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub example: Value,
}

fn describe(name: &str) -> &'static str {
    match name {
        "dns.zone.created" => "A DNS zone was created.",
        "dns.zone.deleted" => "A DNS zone was deleted, with its records.",
        "dns.record.created" => "A record was added to a zone.",
        "dns.record.updated" => "A record's content or TTL changed.",
        "dns.record.deleted" => "A record was removed from a zone.",
        "cadastre.parcel.registered" => "A cadastral parcel was registered.",
        "cadastre.parcel.updated" => "A parcel's attributes or geometry changed.",
        "cadastre.parcel.retired" => "A parcel was retired.",
        "dem.job.succeeded" => "A DEM processing job finished; its outputs are linked.",
        "dem.job.failed" => "A DEM processing job failed; the error is a problem document.",
        "eo.scene.published" => "An earth-observation scene (a STAC item) was added or changed; it is linked.",
        "pointcloud.uploaded" => "An uploaded LAS/LAZ file was indexed and is ready: its points and WGS84 bounds are given.",
        "pointcloud.classified" => "A classification of a point cloud finished; its class histogram is given and the classified version can be downloaded.",
        "pointcloud.failed" => "Indexing or classifying a point cloud failed; the step and the error are given.",
        "twin.created" => "A digital twin was created; its first tileset is being built.",
        "twin.built" => "A twin's first tileset was built; its summary (features, tiles, triangles, stamp) is given.",
        "twin.failed" => "Building a twin's first tileset failed; the error is given.",
        "twin.deleted" => "A digital twin was deleted with its sensors, readings and tilesets.",
        "webhook.test" => "Sent to one subscription by POST /api/v1/webhooks/subscriptions/{id}/test.",
        _ => "A platform event.",
    }
}

fn example_fields(name: &str) -> Value {
    let area = name.split('.').next().unwrap_or("");
    match area {
        "dns" if name.starts_with("dns.zone") => json!({
            "zone": "example.com",
            "zone_id": "zone_01jbz3k6w2c0m8t7x9v4r5n6p1",
        }),
        "dns" => json!({
            "zone": "example.com",
            "record": {"id": "rec_01jbz3m1t7k8q2w3e4r5t6y7u8", "type": "A", "name": "www.example.com", "content": "192.0.2.10"},
        }),
        "cadastre" => json!({
            "parcel": {"id": "parcel_01jbz3q8e9r0t1y2u3i4o5p6a7", "lot": "12", "plan": "DP1234", "tenure": "freehold"},
        }),
        "eo" => json!({
            "scene": "cbers4/CBERS_4_MUX_20171121_057_094",
            "collection": "cbers4",
            "item": "CBERS_4_MUX_20171121_057_094",
            "datetime": "2017-11-21T06:51:03Z",
            "bbox": [53.30, 4.76, 54.64, 6.03],
            "href": "/api/v1/eo/collections/cbers4/items/CBERS_4_MUX_20171121_057_094",
        }),
        "dem" if name.ends_with("succeeded") => json!({
            "job": {"id": "job_01jbz3s2d3f4g5h6j7k8l9z0x1", "status": "succeeded"},
        }),
        "dem" => json!({
            "job": {
                "id": "job_01jbz3s2d3f4g5h6j7k8l9z0x1",
                "status": "failed",
                "error": {"code": "job_input_invalid", "detail": "the input is not a GeoTIFF"},
            },
        }),
        "pointcloud" => {
            let mut fields = json!({
                "point_cloud": "pc_01jbz41m2n3b4v5c6x7z8l9k0j",
                "href": "/api/v1/pointcloud/pc_01jbz41m2n3b4v5c6x7z8l9k0j",
            });
            match name {
                "pointcloud.uploaded" => {
                    fields["name"] = json!("survey");
                    fields["points"] = json!(697_721);
                    fields["bounds"] = json!([2.3405, 48.8521, 2.3452, 48.8551]);
                }
                "pointcloud.classified" => {
                    fields["name"] = json!("survey");
                    fields["job"] = json!("job_01jbz43q4w5e6r7t8y9u0i1o2p");
                    fields["histogram"] = json!({"1": 2210, "2": 683412, "5": 10871, "6": 1180, "7": 48});
                }
                _ => {
                    fields["job"] = json!("job_01jbz43q4w5e6r7t8y9u0i1o2p");
                    fields["step"] = json!("classify");
                    fields["error"] =
                        json!({"code": "job_input_invalid", "detail": "the file ends after 1200 of 697721 points"});
                }
            }
            fields
        }
        "twin" => {
            let mut fields = json!({
                "twin": "twin_01jbz5a1b2c3d4e5f6g7h8j9k0",
                "name": "Old town",
                "href": "/api/v1/realtime/twins/twin_01jbz5a1b2c3d4e5f6g7h8j9k0",
            });
            match name {
                "twin.built" => {
                    fields["tileset"] =
                        json!({"stamp": 412, "features": 388, "tiles": 3, "triangles": 14_212, "terrain": true});
                }
                "twin.failed" => {
                    fields["job"] = json!("job_01jbz43q4w5e6r7t8y9u0i1o2p");
                    fields["error"] = json!({"code": "twin_build_failed", "detail": "the twin's area holds more than 200000 features"});
                }
                _ => {}
            }
            fields
        }
        "webhook" => json!({
            "subscription_id": "whsub_01jbz3x7c8v9b0n1m2q3w4e5r6",
            "message": "This is a test event.",
        }),
        _ => json!({}),
    }
}

/// Every event type with an example payload (`id`, `event`, `timestamp` and the area's fields).
pub fn event_types() -> Vec<EventTypeInfo> {
    EVENT_TYPES
        .iter()
        .map(|name| {
            let mut example = json!({
                "id": "evt_01jbz3z9x0c1v2b3n4m5q6w7e8",
                "event": name,
                "timestamp": "2026-01-02T03:04:05.678Z",
            });
            if let (Some(obj), Value::Object(fields)) = (example.as_object_mut(), example_fields(name)) {
                obj.extend(fields);
            }
            EventTypeInfo { name, description: describe(name), example }
        })
        .collect()
}

/// Checks the `events` of a subscription: a non-empty list of known types, `area.*`-style
/// wildcards that match at least one type, or `*`; each pattern within `dns.` when `dns_only`.
/// Answers the list without duplicates.
pub fn check_patterns(patterns: &[String], pointer: &str, dns_only: bool) -> Result<Vec<String>, Vec<FieldError>> {
    let mut errors = Vec::new();
    if patterns.is_empty() {
        errors.push(FieldError::new(
            pointer,
            "required",
            "list at least one event type, a wildcard such as dns.*, or *",
        ));
    }
    if patterns.len() > 100 {
        errors.push(FieldError::new(pointer, "too_many", "at most 100 event patterns"));
    }
    let mut out: Vec<String> = Vec::new();
    for (i, p) in patterns.iter().enumerate() {
        let at = format!("{pointer}/{i}");
        let known = if p.ends_with('*') {
            (p == "*" || p.ends_with(".*")) && EVENT_TYPES.iter().any(|t| matches(p, t))
        } else {
            EVENT_TYPES.contains(&p.as_str())
        };
        if !known {
            errors.push(FieldError::new(
                at,
                "unknown_event_type",
                format!("`{p}` is not an event type or a wildcard matching one; GET /api/v1/webhooks/event-types lists them"),
            ));
        } else if dns_only && !p.starts_with("dns.") {
            errors.push(FieldError::new(
                at,
                "not_a_dns_event",
                format!("`{p}` is not a DNS event; DNS webhooks take dns.* events"),
            ));
        } else if !out.contains(p) {
            out.push(p.clone());
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn patterns_accept_types_and_wildcards_and_refuse_the_rest() {
        let ok = check_patterns(&strings(&["dns.*", "*", "webhook.test", "dns.*", "dns.record.*"]), "/events", false);
        assert_eq!(ok, Ok(strings(&["dns.*", "*", "webhook.test", "dns.record.*"])));
        let err =
            check_patterns(&strings(&["dns.record.created", "dns.nothing", "dn*", "nowhere.*"]), "/events", false)
                .err()
                .unwrap_or_default();
        let pointers: Vec<&str> = err.iter().map(|e| e.pointer.as_str()).collect();
        assert_eq!(pointers, ["/events/1", "/events/2", "/events/3"]);
        assert!(check_patterns(&[], "/events", false).is_err());
        let dns = check_patterns(&strings(&["dns.*", "webhook.test"]), "/events", true).err().unwrap_or_default();
        assert_eq!(dns.len(), 1);
        assert_eq!(dns[0].code, "not_a_dns_event");
    }

    #[test]
    fn every_type_has_an_example_with_the_envelope() {
        let all = event_types();
        assert_eq!(all.len(), EVENT_TYPES.len());
        for t in all {
            assert_eq!(t.example["event"], t.name);
            assert!(t.example["id"].as_str().is_some_and(|id| id.starts_with("evt_")));
            assert!(t.example["timestamp"].as_str().is_some_and(|ts| ts.ends_with('Z')));
        }
        let dns = event_types().into_iter().find(|t| t.name == "dns.record.updated").map(|t| t.example);
        assert!(event_types().iter().all(|t| t.description != describe("no.such.event")), "each type is described");
        assert_eq!(dns.as_ref().map(|e| e["record"]["type"].clone()), Some(json!("A")));
    }
}
