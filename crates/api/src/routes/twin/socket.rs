//! The WebSocket of a twin, `GET /api/v1/realtime/twin/{id}` with `Upgrade: websocket`: the
//! server pushes the interface's `{sensorId, value, ts}` JSON text frames, and `{"type": ...}`
//! notices (`hello`, `clock`, `gap`, `subscribed`, `error`). What is sent is decided by
//! `meridian_twin::service::Feed`; this route carries it: it authenticates before the upgrade
//! (the `Authorization` or `X-Api-Key` header, or an `access_token` query parameter for
//! browsers), reads `subscribe` messages, writes what is ready in one flush, pings, and closes
//! with a code that says why.

use crate::auth::Caller;
use crate::error::{area_error, ApiError, ApiResult};
use crate::extract::Path;
use crate::state::AppState;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{FromRequestParts, Request, State};
use axum::response::{IntoResponse, Response};
use futures::{SinkExt, StreamExt};
use meridian_twin::service::feed::{Feed, Out};
use meridian_twin::service::FeedOptions;
use serde::Deserialize;
use serde_json::Value;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

/// Largest message a client may send.
const MAX_CLIENT_MESSAGE: usize = 64 * 1024;
/// Read buffer of a socket: clients send little (subscribe messages, pongs).
const READ_BUFFER: usize = 4 * 1024;
/// Most frames written before one flush.
const BATCH: usize = 256;
/// Longest a write to the client may take: a client that stops reading is closed after it, and
/// pings and shutdown never wait behind it for longer.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);

/// Routes of the WebSocket.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(twin_socket))
}

/// What a client asks for when it connects.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SocketQuery {
    /// Resume after this instant (RFC 3339): the stored readings since then come first, so a
    /// client that reconnects with the `ts` of the last message it got misses nothing.
    pub since: Option<String>,
    /// Only these sensors, comma-separated (all by default; a `subscribe` message changes it).
    pub sensors: Option<String>,
    /// A short-lived access token, for browsers (which cannot set headers on a WebSocket).
    pub access_token: Option<String>,
}

#[utoipa::path(
    get,
    path = "/api/v1/realtime/twin/{twin_id}",
    tag = "twin",
    params(("twin_id" = String, Path, description = "`twin_...`"), SocketQuery),
    responses(
        (status = 101, description = "Switching protocols: a WebSocket. The server sends `{\"sensorId\", \"value\", \"ts\"}` text frames (ts RFC 3339 with \
            milliseconds) and notices with a `type`: `hello` (clock, filter), `clock` (the clock changed), `gap` (`dropped` messages the client was too \
            slow for; the latest value of each sensor follows), `subscribed`, `error`. The client may send `{\"type\": \"subscribe\", \"sensors\": [..]}` \
            (null for all). Live readings when the clock is live; stored readings replayed at the clock's rate when it plays in the past; the state \
            at the clock's instant when it is paused. Pings every `twin.ws_ping`; closes with 1000 (twin deleted), 1001 (server stopping, no pong), \
            1003 (binary frame), 1008 (bad message), 1011 (server error)"),
        (status = 426, description = "Not a WebSocket upgrade request", body = meridian_core::problem::Problem, content_type = "application/problem+json"),
    )
)]
async fn twin_socket(
    State(state): State<AppState>,
    caller: Caller,
    Path(twin_id): Path<String>,
    req: Request,
) -> ApiResult<Response> {
    let query = req.uri().query().unwrap_or("").to_owned();
    let q: SocketQuery = serde_urlencoded::from_str(&query)
        .map_err(|e| ApiError::malformed(format!("the query string cannot be read: {e}")))?;
    let since = super::instant(q.since.as_deref(), "/since")?;
    let sensors =
        q.sensors.as_deref().map(|s| s.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect());
    // Another tenant's twin is refused here, before the upgrade.
    let feed =
        state.twin.feed(&caller.account_id, &twin_id, FeedOptions { sensors, since }).await.map_err(area_error)?;
    let (mut parts, _) = req.into_parts();
    let ws = match WebSocketUpgrade::from_request_parts(&mut parts, &state).await {
        Ok(ws) => ws,
        Err(r) => {
            return Err(ApiError::new(
                axum::http::StatusCode::UPGRADE_REQUIRED,
                meridian_core::problem::code::UPGRADE_REQUIRED,
                "Upgrade required",
                format!("this address is a WebSocket: connect with Upgrade: websocket ({})", r.body_text()),
            ))
        }
    };
    let limit = state.config.twin.max_ws_per_account;
    // One WebSocket of the account, counted on every node until dropped: when the session ends,
    // when the upgrade never happens, and when the session panics.
    let Some(counted) = state.twin.socket_seat(&caller.account_id).await.map_err(area_error)? else {
        return Err(ApiError::new(
            axum::http::StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            "Too many WebSockets",
            format!("the account has {limit} WebSockets open (twin.max_ws_per_account)"),
        ));
    };
    let ping = state.config.twin.ws_ping;
    let stop = state.requests.clone();
    // The socket stays counted against the server's connection caps while it is open.
    let hold = parts.extensions.get::<crate::extract::ConnectionHold>().cloned();
    Ok(ws
        .max_message_size(MAX_CLIENT_MESSAGE)
        .read_buffer_size(READ_BUFFER)
        .on_upgrade(move |socket| async move {
            let _counted = counted;
            let _hold = hold;
            metrics::gauge!("meridian_twin_websockets").increment(1.0);
            session(socket, feed, ping, stop).await;
            metrics::gauge!("meridian_twin_websockets").decrement(1.0);
        })
        .into_response())
}

fn close(code: u16, reason: &'static str) -> Message {
    Message::Close(Some(CloseFrame { code, reason: reason.into() }))
}

/// A client's message: `{"type": "subscribe", "sensors": [...] | null}`.
fn client_message(feed: &mut Feed, text: &str) -> Result<(), String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("a message is JSON: {e}"))?;
    match v.get("type").and_then(Value::as_str) {
        Some("subscribe") => {
            let sensors = match v.get("sensors") {
                None | Some(Value::Null) => None,
                Some(Value::Array(a)) if a.len() <= 100_000 => Some(
                    a.iter()
                        .map(|s| s.as_str().map(str::to_owned).ok_or("sensors is an array of sensor ids"))
                        .collect::<Result<Vec<_>, _>>()?,
                ),
                Some(_) => return Err("sensors is an array of sensor ids, or null for all".into()),
            };
            feed.set_filter(sensors);
            Ok(())
        }
        _ => Err("the only message a client sends is {\"type\": \"subscribe\", \"sensors\": [...]}".into()),
    }
}

/// What the reader task saw of the client.
enum Incoming {
    Text(String),
    Binary,
    /// Any frame (a pong, a ping): the client is alive.
    Heard,
    /// The client broke the protocol: the close code and reason to answer with.
    Broken(u16, &'static str),
}

/// The close code for a read error: 1009 for a message over the limit, 1007 for text that is
/// not UTF-8, 1002 for any other protocol error.
fn close_code(e: &axum::Error) -> (u16, &'static str) {
    let text = e.to_string().to_ascii_lowercase();
    if text.contains("too long") || text.contains("space limit") || text.contains("too big") {
        (1009, "message too big")
    } else if text.contains("utf-8") || text.contains("utf8") {
        (1007, "text frames are UTF-8")
    } else {
        (1002, "protocol error")
    }
}

/// Reads the client's frames on its own task, so that writing readings never polls the socket's
/// read side (each poll of a WebSocket stream prepares its read buffer).
fn spawn_reader(mut rx: futures::stream::SplitStream<WebSocket>) -> tokio::sync::mpsc::Receiver<Incoming> {
    let (tx, out) = tokio::sync::mpsc::channel(16);
    tokio::spawn(async move {
        while let Some(frame) = rx.next().await {
            let m = match frame {
                Ok(Message::Text(t)) => Incoming::Text(t.as_str().to_owned()),
                Ok(Message::Binary(_)) => Incoming::Binary,
                Ok(Message::Close(_)) => break,
                Err(e) => {
                    let (code, reason) = close_code(&e);
                    let _ = tx.send(Incoming::Broken(code, reason)).await;
                    break;
                }
                Ok(_) => Incoming::Heard,
            };
            if tx.send(m).await.is_err() {
                break;
            }
        }
    });
    out
}

/// A frame for the client: the shared bytes, checked as UTF-8 once more by the type.
fn text(b: bytes::Bytes) -> Option<Message> {
    axum::extract::ws::Utf8Bytes::try_from(b).ok().map(Message::Text)
}

/// Sends one frame within [`WRITE_TIMEOUT`]; false when it could not.
async fn send(tx: &mut futures::stream::SplitSink<WebSocket, Message>, m: Message) -> bool {
    matches!(tokio::time::timeout(WRITE_TIMEOUT, tx.send(m)).await, Ok(Ok(())))
}

/// Carries a feed to a socket until either ends.
async fn session(socket: WebSocket, mut feed: Feed, ping: Duration, stop: CancellationToken) {
    let (mut tx, rx) = socket.split();
    let mut incoming = spawn_reader(rx);
    let mut ticker = tokio::time::interval(ping);
    ticker.tick().await;
    let mut heard = Instant::now();
    let mut strikes = 0u8;
    let stopped = stop.cancelled();
    tokio::pin!(stopped);
    loop {
        // The feed before the client's messages and pings: when readings are ready they go out
        // without polling anything else (the reader task keeps reading meanwhile).
        tokio::select! {
            biased;
            () = &mut stopped => {
                let _ = send(&mut tx, close(1001, "server shutting down")).await;
                return;
            }
            out = feed.next() => {
                let first = match out {
                    Ok(Some(o)) => o,
                    Ok(None) => {
                        let _ = send(&mut tx, close(1000, "feed ended")).await;
                        return;
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "twin feed failed");
                        let _ = send(&mut tx, close(1011, "server error")).await;
                        return;
                    }
                };
                let mut next = Some(first);
                let mut n = 0;
                while let Some(o) = next.take() {
                    match o {
                        Out::Text(t) => {
                            let Some(frame) = text(t) else { continue };
                            if !matches!(tokio::time::timeout(WRITE_TIMEOUT, tx.feed(frame)).await, Ok(Ok(()))) {
                                return;
                            }
                        }
                        Out::Close(code, reason) => {
                            let _ = send(&mut tx, close(code, reason)).await;
                            return;
                        }
                    }
                    n += 1;
                    if n < BATCH {
                        next = feed.try_next();
                    }
                }
                if !matches!(tokio::time::timeout(WRITE_TIMEOUT, tx.flush()).await, Ok(Ok(()))) {
                    return;
                }
            }
            m = incoming.recv() => {
                heard = Instant::now();
                match m {
                    None => return,
                    Some(Incoming::Binary) => {
                        let _ = send(&mut tx, close(1003, "text frames only")).await;
                        return;
                    }
                    Some(Incoming::Broken(code, reason)) => {
                        let _ = send(&mut tx, close(code, reason)).await;
                        return;
                    }
                    Some(Incoming::Heard) => {}
                    Some(Incoming::Text(t)) => {
                        if let Err(detail) = client_message(&mut feed, &t) {
                            strikes += 1;
                            if strikes >= 10 {
                                let _ = send(&mut tx, close(1008, "too many bad messages")).await;
                                return;
                            }
                            let notice = serde_json::json!({ "type": "error", "detail": detail }).to_string();
                            if !send(&mut tx, Message::Text(notice.into())).await {
                                return;
                            }
                        }
                    }
                }
            }
            _ = ticker.tick() => {
                if heard.elapsed() > ping * 3 {
                    let _ = send(&mut tx, close(1001, "no answer to pings")).await;
                    return;
                }
                if !send(&mut tx, Message::Ping(Vec::new().into())).await {
                    return;
                }
            }
        }
    }
}
