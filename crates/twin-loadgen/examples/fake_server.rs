//! A stand-in for the twin server's realtime endpoints, to exercise `twin-loadgen ws` before the
//! real server exists: not Meridian, and no measure of it.
//!
//! - `GET /api/v1/realtime/twin/{id}` (WebSocket, needs an `X-Api-Key` header): a `hello` frame,
//!   then every reading as `{"sensorId":…,"value":…,"ts":…}`; a client that falls behind the
//!   broadcast buffer gets `{"type":"gap","dropped":N}`.
//! - `POST /api/v1/realtime/twin/{id}/readings` with `{"readings":[{sensorId,value,ts},…]}`: 202.
//! - With BROKER, also subscribes to `meridian/+/+` there and broadcasts those readings.
//!
//! ```sh
//! cargo run --release -p meridian-twin-loadgen --example fake_server -- 127.0.0.1:18080 [127.0.0.1:18830]
//! ```
#![allow(clippy::print_stdout)]

use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::sync::broadcast;

type Tx = broadcast::Sender<Utf8Bytes>;

fn frame(sensor: &str, reading: &Value) -> Utf8Bytes {
    json!({ "sensorId": sensor, "value": reading.get("value").cloned().unwrap_or(Value::Null),
            "ts": reading.get("ts").cloned().unwrap_or(Value::Null) })
    .to_string()
    .into()
}

async fn socket(Path(id): Path<String>, headers: HeaderMap, State(tx): State<Tx>, ws: WebSocketUpgrade) -> Response {
    if !headers.contains_key("x-api-key") {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    ws.on_upgrade(move |socket| serve(socket, id, tx.subscribe()))
}

async fn serve(mut socket: WebSocket, id: String, mut rx: broadcast::Receiver<Utf8Bytes>) {
    let hello = json!({ "type": "hello", "twin": id }).to_string();
    if socket.send(Message::Text(hello.into())).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                Some(Ok(_)) => {}
            },
            next = rx.recv() => {
                let text = match next {
                    Ok(text) => text,
                    Err(broadcast::error::RecvError::Lagged(n)) => json!({ "type": "gap", "dropped": n }).to_string().into(),
                    Err(broadcast::error::RecvError::Closed) => break,
                };
                if socket.send(Message::Text(text)).await.is_err() {
                    break;
                }
            }
        }
    }
}

async fn readings(State(tx): State<Tx>, Json(body): Json<Value>) -> StatusCode {
    let Some(list) = body.get("readings").and_then(Value::as_array) else { return StatusCode::BAD_REQUEST };
    for r in list {
        let sensor = r.get("sensorId").and_then(Value::as_str).unwrap_or_default();
        // No receiver is not an error here.
        let _ = tx.send(frame(sensor, r));
    }
    StatusCode::ACCEPTED
}

async fn mqtt(broker: String, tx: Tx) {
    let Some((host, port)) = broker.rsplit_once(':').and_then(|(h, p)| Some((h.to_string(), p.parse().ok()?))) else {
        eprintln!("broker: expected HOST:PORT");
        return;
    };
    let mut opts = rumqttc::MqttOptions::new(format!("fake-twin-server-{}", std::process::id()), host, port);
    opts.set_keep_alive(Duration::from_secs(30));
    let (client, mut eventloop) = rumqttc::AsyncClient::new(opts, 100);
    if let Err(e) = client.subscribe("meridian/+/+", rumqttc::QoS::AtMostOnce).await {
        eprintln!("subscribe: {e}");
        return;
    }
    loop {
        match eventloop.poll().await {
            Ok(rumqttc::Event::Incoming(rumqttc::Packet::Publish(p))) => {
                let sensor = p.topic.rsplit('/').next().unwrap_or_default().to_string();
                if let Ok(reading) = serde_json::from_slice::<Value>(&p.payload) {
                    let _ = tx.send(frame(&sensor, &reading));
                }
            }
            Ok(_) => {}
            Err(e) => {
                eprintln!("mqtt: {e}");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let addr = args.first().map_or("127.0.0.1:18080", String::as_str);
    let (tx, _) = broadcast::channel::<Utf8Bytes>(4096);
    if let Some(broker) = args.get(1) {
        tokio::spawn(mqtt(broker.clone(), tx.clone()));
    }
    let app = Router::new()
        .route("/api/v1/realtime/twin/{id}", get(socket))
        .route("/api/v1/realtime/twin/{id}/readings", post(readings))
        .with_state(tx);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    println!("listening on http {}", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}
