//! Sensors of a twin and their readings: `POST/GET .../sensors`, `GET/DELETE .../sensors/{sid}`,
//! readings ingested by `POST .../sensors/{sid}/readings` (one or a batch) and
//! `POST .../readings` (a batch over sensors), and read back by time range, downsampled on
//! request, with `GET .../sensors/{sid}/readings`.

use super::instant;
use crate::auth::Caller;
use crate::error::{area_error, ApiError, ApiResult};
use crate::extract::{Json, Path, Query};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use meridian_core::{FieldError, Timestamp};
use meridian_twin::service::{parse_readings, sensor_json, NewSensor, ReadingsQuery, ValueType};
use serde::Deserialize;
use serde_json::{json, Value};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Routes of sensors and readings.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_sensor, list_sensors))
        .routes(routes!(get_sensor, delete_sensor))
        .routes(routes!(post_sensor_readings, get_readings))
        .routes(routes!(post_readings))
}

/// A sensor to add.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSensor {
    /// 1 to 64 letters, digits, `_ . : -` (an MQTT topic level); made up when absent.
    #[schema(max_length = 64, pattern = "^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")]
    pub id: Option<String>,
    #[schema(max_length = 200)]
    pub name: Option<String>,
    /// e.g. `degC`, `m3/s`.
    #[schema(max_length = 32)]
    pub unit: Option<String>,
    /// `number` (default), `boolean`, `string` or `object` (a small JSON object).
    #[serde(rename = "type")]
    #[schema(value_type = Option<String>)]
    pub value_type: Option<ValueType>,
    /// The asset (a feature of the twin) it is attached to.
    pub feature_id: Option<String>,
}

fn sensor_path(twin: &str, id: &str) -> String {
    format!("/api/v1/realtime/twin/{twin}/sensors/{id}")
}

#[utoipa::path(
    post,
    path = "/api/v1/realtime/twin/{twin_id}/sensors",
    tag = "twin",
    params(("twin_id" = String, Path, description = "`twin_...`")),
    request_body = CreateSensor,
    responses(
        (status = 201, description = "The sensor; `Location` is its address", body = crate::schemas::Sensor, content_type = "application/json"),
        (status = 409, description = "The twin has a sensor with this id", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 413, description = "The twin has `twin.max_sensors` sensors already", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 422, description = "Bad id, name, unit or type, or no such asset", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn create_sensor(
    State(state): State<AppState>,
    caller: Caller,
    Path(twin_id): Path<String>,
    Json(body): Json<CreateSensor>,
) -> ApiResult<Response> {
    let p = NewSensor {
        id: body.id,
        name: body.name,
        unit: body.unit,
        value_type: body.value_type,
        feature_id: body.feature_id,
    };
    let s = state.twin.create_sensor(&caller.account_id, &twin_id, p).await.map_err(area_error)?;
    let location = sensor_path(&twin_id, &s.id);
    let mut response = (StatusCode::CREATED, Json(sensor_json(&s, None))).into_response();
    if let Ok(v) = HeaderValue::from_str(&location) {
        response.headers_mut().insert(header::LOCATION, v);
    }
    Ok(response)
}

#[utoipa::path(
    get,
    path = "/api/v1/realtime/twin/{twin_id}/sensors",
    tag = "twin",
    params(("twin_id" = String, Path, description = "`twin_...`")),
    responses((status = 200, description = "`{sensors, total}`: every sensor of the twin in id order, each with its `latest` reading as of the clock", body = crate::schemas::SensorList, content_type = "application/json"))
)]
async fn list_sensors(
    State(state): State<AppState>,
    caller: Caller,
    Path(twin_id): Path<String>,
) -> ApiResult<Json<Value>> {
    let twin = state.twin.get(&caller.account_id, &twin_id).await.map_err(area_error)?;
    let sensors = state.twin.sensors(&caller.account_id, &twin_id).await.map_err(area_error)?;
    let latest =
        state.twin.latest(&twin_id, twin.clock.now().min(Timestamp::now().millis())).await.map_err(area_error)?;
    let list: Vec<Value> =
        sensors.iter().map(|s| sensor_json(s, latest.iter().find(|r| r.sensor_id == s.id))).collect();
    Ok(Json(json!({ "sensors": list, "total": sensors.len() })))
}

#[utoipa::path(
    get,
    path = "/api/v1/realtime/twin/{twin_id}/sensors/{sensor_id}",
    tag = "twin",
    params(("twin_id" = String, Path, description = "`twin_...`"), ("sensor_id" = String, Path, description = "The sensor's id")),
    responses((status = 200, description = "The sensor with its `latest` reading as of the clock", body = crate::schemas::Sensor, content_type = "application/json"))
)]
async fn get_sensor(
    State(state): State<AppState>,
    caller: Caller,
    Path((twin_id, sensor_id)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let twin = state.twin.get(&caller.account_id, &twin_id).await.map_err(area_error)?;
    let s = state.twin.sensor(&caller.account_id, &twin_id, &sensor_id).await.map_err(area_error)?;
    let latest =
        state.twin.latest(&twin_id, twin.clock.now().min(Timestamp::now().millis())).await.map_err(area_error)?;
    Ok(Json(sensor_json(&s, latest.iter().find(|r| r.sensor_id == s.id))))
}

#[utoipa::path(
    delete,
    path = "/api/v1/realtime/twin/{twin_id}/sensors/{sensor_id}",
    tag = "twin",
    params(("twin_id" = String, Path, description = "`twin_...`"), ("sensor_id" = String, Path, description = "The sensor's id")),
    responses((status = 204, description = "Deleted with its readings"))
)]
async fn delete_sensor(
    State(state): State<AppState>,
    caller: Caller,
    Path((twin_id, sensor_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    state.twin.delete_sensor(&caller.account_id, &twin_id, &sensor_id).await.map_err(area_error)?;
    Ok(StatusCode::NO_CONTENT)
}

/// One reading, a batch (`readings`), or an array of readings.
#[derive(Debug, Deserialize, ToSchema)]
#[allow(dead_code)]
pub struct ReadingIn {
    /// The sensor (in a twin-wide batch).
    #[serde(rename = "sensorId")]
    pub sensor_id: Option<String>,
    /// A number, boolean, string or small JSON object, as the sensor's `type` says.
    pub value: Value,
    /// RFC 3339 (default: now); at most 5 minutes ahead of the server.
    pub ts: Option<String>,
}

#[utoipa::path(
    post,
    path = "/api/v1/realtime/twin/{twin_id}/sensors/{sensor_id}/readings",
    tag = "twin",
    params(("twin_id" = String, Path, description = "`twin_...`"), ("sensor_id" = String, Path, description = "The sensor's id")),
    request_body(content = ReadingIn, description = "`{\"value\": 21.5, \"ts\": \"...\"}`, `{\"readings\": [{value, ts}, ...]}` or an array; \
        every reading is checked (value against the sensor's type, ts) or none is stored"),
    responses(
        (status = 202, description = "`{accepted, replaced}`: stored, and sent to the twin's WebSocket clients; `replaced` counts readings whose `ts` the sensor already had (a retry: the earlier reading was replaced). Readings without `ts` are stamped by the server and never replace one", body = crate::schemas::ReadingsAccepted, content_type = "application/json"),
        (status = 413, description = "More readings than `twin.max_batch`", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 422, description = "A reading is wrong (its pointer says which); nothing was stored", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn post_sensor_readings(
    State(state): State<AppState>,
    caller: Caller,
    Path((twin_id, sensor_id)): Path<(String, String)>,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    state.twin.sensor(&caller.account_id, &twin_id, &sensor_id).await.map_err(area_error)?;
    let readings = parse_readings(body, Some(&sensor_id), state.twin.config().max_batch).map_err(area_error)?;
    let stored = state.twin.ingest(&caller.account_id, &twin_id, readings).await.map_err(area_error)?;
    Ok((StatusCode::ACCEPTED, Json(stored)).into_response())
}

#[utoipa::path(
    post,
    path = "/api/v1/realtime/twin/{twin_id}/readings",
    tag = "twin",
    params(("twin_id" = String, Path, description = "`twin_...`")),
    request_body(content = ReadingIn, description = "`{\"readings\": [{\"sensorId\", \"value\", \"ts\"}, ...]}` or an array: readings of any \
        sensors of the twin, checked all or none"),
    responses(
        (status = 202, description = "`{accepted, replaced}`: stored, and sent to the twin's WebSocket clients; `replaced` counts readings whose `ts` the sensor already had (a retry: the earlier reading was replaced). Readings without `ts` are stamped by the server and never replace one", body = crate::schemas::ReadingsAccepted, content_type = "application/json"),
        (status = 413, description = "More readings than `twin.max_batch`", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
        (status = 422, description = "A reading is wrong (unknown sensor, value of the wrong type, bad ts); nothing was stored", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn post_readings(
    State(state): State<AppState>,
    caller: Caller,
    Path(twin_id): Path<String>,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    let readings = parse_readings(body, None, state.twin.config().max_batch).map_err(area_error)?;
    let stored = state.twin.ingest(&caller.account_id, &twin_id, readings).await.map_err(area_error)?;
    Ok((StatusCode::ACCEPTED, Json(stored)).into_response())
}

/// A time range of readings.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct RangeQuery {
    /// RFC 3339; from the first reading when absent.
    pub from: Option<String>,
    /// RFC 3339; the twin's clock when absent.
    pub to: Option<String>,
    /// Readings (or buckets) per page: 1 to 10,000, default 1,000.
    #[param(minimum = 1, maximum = 10000)]
    pub limit: Option<u32>,
    /// Downsample into buckets of this width: `30s`, `5m`, `1h`, `1d` or ISO 8601 `PT5M` (1 s to 366 d).
    pub interval: Option<String>,
}

/// `30s`, `5m`, `1h`, `2d`, or ISO 8601 `PT30S`, `PT5M`, `PT1H`, `P1D` → milliseconds.
fn interval_ms(s: &str) -> Option<i64> {
    let s = s.trim();
    let unit = |c: char| match c {
        's' | 'S' => Some(1_000),
        'm' | 'M' => Some(60_000),
        'h' | 'H' => Some(3_600_000),
        'd' | 'D' => Some(86_400_000),
        _ => None,
    };
    let simple = |t: &str| -> Option<i64> {
        let c = t.chars().last()?;
        let n: i64 = t[..t.len() - c.len_utf8()].parse().ok()?;
        n.checked_mul(unit(c)?)
    };
    let ms = if let Some(rest) = s.strip_prefix("PT").or_else(|| s.strip_prefix("pt")) {
        simple(rest)?
    } else if let Some(rest) = s.strip_prefix('P').or_else(|| s.strip_prefix('p')) {
        let days = rest.strip_suffix('D').or_else(|| rest.strip_suffix('d'))?;
        days.parse::<i64>().ok()?.checked_mul(86_400_000)?
    } else {
        simple(s)?
    };
    (1_000..=366 * 86_400_000).contains(&ms).then_some(ms)
}

#[utoipa::path(
    get,
    path = "/api/v1/realtime/twin/{twin_id}/sensors/{sensor_id}/readings",
    tag = "twin",
    params(("twin_id" = String, Path, description = "`twin_...`"), ("sensor_id" = String, Path, description = "The sensor's id"), RangeQuery),
    responses(
        (status = 200, description = "`{sensor, from, to, readings: [{sensorId, value, ts}]}` oldest first; with `interval`, `buckets: [{ts, count, min, max, mean}]` \
            (numbers) or `[{ts, count, last}]` (other values) aligned on the epoch; `next` (and `Link: rel=next`) when the page is full", body = crate::schemas::Readings, content_type = "application/json"),
        (status = 422, description = "Bad from, to, limit or interval", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn get_readings(
    State(state): State<AppState>,
    caller: Caller,
    Path((twin_id, sensor_id)): Path<(String, String)>,
    Query(q): Query<RangeQuery>,
) -> ApiResult<Response> {
    let mut errors = Vec::new();
    let from = instant(q.from.as_deref(), "/from").map_err(|e| errors.push(e)).ok().flatten();
    let to = instant(q.to.as_deref(), "/to").map_err(|e| errors.push(e)).ok().flatten();
    if let Some(e) = errors.pop() {
        return Err(e);
    }
    if q.limit.is_some_and(|l| !(1..=10_000).contains(&l)) {
        return Err(ApiError::invalid(vec![FieldError::new("/limit", "out_of_range", "limit is 1 to 10000")]));
    }
    let interval = match q.interval.as_deref() {
        None => None,
        Some(i) => Some(interval_ms(i).ok_or_else(|| {
            ApiError::invalid(vec![FieldError::new(
                "/interval",
                "invalid_interval",
                "an interval is 30s, 5m, 1h, 1d or ISO 8601 (PT5M, P1D), from 1 second to 366 days",
            )])
        })?),
    };
    let page = state
        .twin
        .readings(&caller.account_id, &twin_id, &sensor_id, ReadingsQuery { from, to, limit: q.limit, interval })
        .await
        .map_err(area_error)?;
    let rfc = meridian_twin::service::clock::rfc3339;
    let next = page.next.map(|n| {
        let mut qs = form_urlencoded::Serializer::new(String::new());
        qs.append_pair("from", &rfc(n)).append_pair("to", &rfc(page.to));
        if let Some(l) = q.limit {
            qs.append_pair("limit", &l.to_string());
        }
        if let Some(i) = &q.interval {
            qs.append_pair("interval", i);
        }
        format!("/api/v1/realtime/twin/{twin_id}/sensors/{sensor_id}/readings?{}", qs.finish())
    });
    // The sensor as it is described, without `latest`: the page itself holds the readings.
    let mut sensor = sensor_json(&page.sensor, None);
    if let Some(o) = sensor.as_object_mut() {
        o.remove("latest");
    }
    let mut body = json!({
        "sensor": sensor,
        "from": if page.from == i64::MIN { Value::Null } else { json!(rfc(page.from)) },
        "to": rfc(page.to),
        "next": next.clone(),
    });
    match page.buckets {
        Some(b) => {
            body["interval_ms"] = json!(interval);
            body["buckets"] = json!(b);
        }
        None => body["readings"] = json!(page.readings),
    }
    let mut response = Json(body).into_response();
    if let Some(n) = next.as_deref().and_then(|n| HeaderValue::from_str(&format!("<{n}>; rel=\"next\"")).ok()) {
        response.headers_mut().insert(header::LINK, n);
    }
    Ok(response)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn intervals_take_short_and_iso_forms() {
        assert_eq!(interval_ms("30s"), Some(30_000));
        assert_eq!(interval_ms("5m"), Some(300_000));
        assert_eq!(interval_ms("PT1H"), Some(3_600_000));
        assert_eq!(interval_ms("P1D"), Some(86_400_000));
        assert_eq!(interval_ms("0s"), None);
        assert_eq!(interval_ms("500"), None);
        assert_eq!(interval_ms("9999999999999d"), None);
        assert_eq!(interval_ms("1y"), None);
    }
}
