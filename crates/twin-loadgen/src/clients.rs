//! The receiving side: MQTT subscribers of a broker, or WebSocket clients of Meridian's twin
//! endpoint. Each client is one task; it reports once whether it connected (and subscribed), then
//! reads until cancelled.

use crate::ingest::host_port;
use crate::stats::{now_us, Stats};
use futures::StreamExt;
use rumqttc::{AsyncClient, Event, MqttOptions, Packet, QoS};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Semaphore};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);

/// Connections being set up at once.
fn connect_gate() -> Arc<Semaphore> {
    Arc::new(Semaphore::new(64))
}

/// Starts `clients` MQTT subscribers of `topic` (QoS 0) on `broker`; returns, for each client,
/// whether it connected and got its SUBACK. Each task holds a clone of `alive` until it ends.
pub(crate) async fn mqtt(
    broker: &str,
    topic: &str,
    clients: usize,
    stats: &Arc<Stats>,
    cancel: &CancellationToken,
    alive: &mpsc::Sender<()>,
) -> anyhow::Result<Vec<bool>> {
    let (host, port) = host_port(broker)?;
    let gate = connect_gate();
    let (tx, rx) = mpsc::channel(clients.max(1));
    for idx in 0..clients {
        let mut opts = MqttOptions::new(format!("twin-loadgen-{}-{idx}", std::process::id()), host.clone(), port);
        opts.set_keep_alive(Duration::from_secs(60));
        opts.set_clean_session(true);
        opts.set_max_packet_size(64 * 1024, 4 * 1024);
        opts.set_inflight(100);
        let (client, eventloop) = AsyncClient::new(opts, 16);
        let task = MqttClient { idx, client, topic: topic.to_string() };
        let alive = alive.clone();
        let run = task.run(eventloop, stats.clone(), cancel.clone(), gate.clone(), tx.clone());
        tokio::spawn(async move {
            run.await;
            drop(alive);
        });
    }
    drop(tx);
    Ok(collect(rx, clients, stats).await)
}

struct MqttClient {
    idx: usize,
    client: AsyncClient,
    topic: String,
}

impl MqttClient {
    async fn run(
        self,
        mut eventloop: rumqttc::EventLoop,
        stats: Arc<Stats>,
        cancel: CancellationToken,
        gate: Arc<Semaphore>,
        ready: mpsc::Sender<(usize, bool)>,
    ) {
        let subscribed = {
            let Ok(_permit) = gate.acquire().await else { return };
            let setup = async {
                self.client.subscribe(self.topic.as_str(), QoS::AtMostOnce).await.map_err(|e| e.to_string())?;
                loop {
                    match eventloop.poll().await {
                        Ok(Event::Incoming(Packet::SubAck(_))) => return Ok(()),
                        Ok(_) => {}
                        Err(e) => return Err(e.to_string()),
                    }
                }
            };
            match tokio::time::timeout(CONNECT_TIMEOUT, setup).await {
                Ok(Ok(())) => true,
                Ok(Err(e)) => {
                    stats.error("subscriber connect", e);
                    false
                }
                Err(_) => {
                    stats.error("subscriber connect", "timed out");
                    false
                }
            }
        };
        let _ = ready.send((self.idx, subscribed)).await;
        if !subscribed {
            return;
        }
        let mut local = Stats::local(self.idx);
        loop {
            let polled = tokio::select! {
                _ = cancel.cancelled() => break,
                p = eventloop.poll() => p,
            };
            match polled {
                Ok(Event::Incoming(Packet::Publish(p))) => stats.message(&mut local, &p.payload, now_us()),
                Ok(_) => {}
                Err(e) => {
                    stats.disconnects.fetch_add(1, Relaxed);
                    stats.error("subscriber", e);
                    break;
                }
            }
        }
        stats.flush(&mut local);
        if self.client.try_disconnect().is_ok() {
            let _ = tokio::time::timeout(Duration::from_millis(500), async {
                while let Ok(event) = eventloop.poll().await {
                    if matches!(event, Event::Outgoing(rumqttc::Outgoing::Disconnect)) {
                        break;
                    }
                }
            })
            .await;
        }
    }
}

/// Starts `clients` WebSocket clients with header `X-Api-Key: key`, spread in turn over `urls`
/// (several nodes serving the same twin); returns, for each client, whether it connected. Each
/// task holds a clone of `alive` until it ends.
pub(crate) async fn ws(
    urls: &[&str],
    key: &str,
    clients: usize,
    stats: &Arc<Stats>,
    cancel: &CancellationToken,
    alive: &mpsc::Sender<()>,
) -> anyhow::Result<Vec<bool>> {
    anyhow::ensure!(!urls.is_empty(), "no WebSocket URL");
    let mut requests = Vec::with_capacity(urls.len());
    for url in urls {
        let mut request = url.into_client_request()?;
        request.headers_mut().insert("X-Api-Key", HeaderValue::from_str(key)?);
        requests.push(request);
    }
    let gate = connect_gate();
    let (tx, rx) = mpsc::channel(clients.max(1));
    for idx in 0..clients {
        let alive = alive.clone();
        let request = requests[idx % requests.len()].clone();
        let run = ws_client(idx, request, stats.clone(), cancel.clone(), gate.clone(), tx.clone());
        tokio::spawn(async move {
            run.await;
            drop(alive);
        });
    }
    drop(tx);
    Ok(collect(rx, clients, stats).await)
}

async fn ws_client(
    idx: usize,
    request: tokio_tungstenite::tungstenite::handshake::client::Request,
    stats: Arc<Stats>,
    cancel: CancellationToken,
    gate: Arc<Semaphore>,
    ready: mpsc::Sender<(usize, bool)>,
) {
    let connected = {
        let Ok(_permit) = gate.acquire().await else { return };
        match tokio::time::timeout(
            CONNECT_TIMEOUT,
            // Frames are small: 16 KiB read buffers instead of 128 KiB keep a thousand clients lean.
            tokio_tungstenite::connect_async_with_config(
                request,
                Some(WebSocketConfig::default().read_buffer_size(16 * 1024)),
                false,
            ),
        )
        .await
        {
            Ok(Ok((ws, _))) => Some(ws),
            Ok(Err(e)) => {
                stats.error("websocket connect", e);
                None
            }
            Err(_) => {
                stats.error("websocket connect", "timed out");
                None
            }
        }
    };
    let _ = ready.send((idx, connected.is_some())).await;
    let Some(mut ws) = connected else { return };
    let mut local = Stats::local(idx);
    let mut closed_by_server = false;
    loop {
        let next = tokio::select! {
            _ = cancel.cancelled() => break,
            m = ws.next() => m,
        };
        match next {
            Some(Ok(Message::Text(text))) => stats.message(&mut local, text.as_bytes(), now_us()),
            Some(Ok(Message::Binary(bytes))) => stats.message(&mut local, &bytes, now_us()),
            // Pings are answered by tungstenite itself as long as the stream is read.
            Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
            Some(Ok(Message::Close(frame))) => {
                stats.disconnects.fetch_add(1, Relaxed);
                stats.error("websocket closed by server", format!("{frame:?}"));
                closed_by_server = true;
                break;
            }
            Some(Err(e)) => {
                stats.disconnects.fetch_add(1, Relaxed);
                stats.error("websocket", e);
                closed_by_server = true;
                break;
            }
            None => {
                stats.disconnects.fetch_add(1, Relaxed);
                stats.error("websocket", "connection ended");
                closed_by_server = true;
                break;
            }
        }
    }
    stats.flush(&mut local);
    if !closed_by_server {
        let _ = tokio::time::timeout(Duration::from_secs(1), ws.close(None)).await;
    }
}

/// Waits for every client's report of its connection; progress on stderr.
async fn collect(mut rx: mpsc::Receiver<(usize, bool)>, clients: usize, stats: &Stats) -> Vec<bool> {
    let mut connected = vec![false; clients];
    let mut reported = 0;
    while reported < clients {
        match tokio::time::timeout(CONNECT_TIMEOUT * 2, rx.recv()).await {
            Ok(Some((idx, ok))) => {
                reported += 1;
                connected[idx] = ok;
                if ok {
                    stats.connected.fetch_add(1, Relaxed);
                } else {
                    stats.connect_failures.fetch_add(1, Relaxed);
                }
                if reported % 250 == 0 || reported == clients {
                    eprintln!("clients: {reported}/{clients} set up, {} failed", stats.connect_failures.load(Relaxed));
                }
            }
            Ok(None) | Err(_) => {
                let missing = (clients - reported) as u64;
                eprintln!("clients: {missing} never reported; counted as failed");
                stats.connect_failures.fetch_add(missing, Relaxed);
                break;
            }
        }
    }
    connected
}
