//! A real webhook receiver for tests: plain HTTP, or HTTPS with a self-signed certificate whose
//! PEM is written out for `webhooks.extra_ca_file`. It records every request (raw body and
//! headers) and answers as a script says. Shared by the webhooks crate's tests and the binary's
//! black-box tests.

#![allow(dead_code, unreachable_pub)]

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use std::collections::HashSet;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// One request as it arrived.
#[derive(Clone, Debug)]
pub struct Received {
    pub headers: hyper::HeaderMap,
    pub body: Bytes,
    pub at: Instant,
}

impl Received {
    pub fn header(&self, name: &str) -> String {
        self.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    pub fn event_id(&self) -> String {
        self.json()["id"].as_str().unwrap_or("").to_owned()
    }
}

/// How to answer a request.
#[derive(Clone, Debug)]
pub enum Reply {
    Status(u16),
    /// A status with `Retry-After: <seconds>`.
    RetryAfter(u16, u64),
    /// Never answer (until the receiver is dropped).
    Hang,
}

type Script = Arc<dyn Fn(usize, &Received) -> Reply + Send + Sync>;

/// A running receiver, stopped on drop.
pub struct Receiver {
    pub addr: SocketAddr,
    /// `http://127.0.0.1:PORT/hook` or `https://localhost:PORT/hook`.
    pub url: String,
    /// The self-signed certificate (HTTPS only).
    pub ca_file: Option<PathBuf>,
    pub requests: Arc<Mutex<Vec<Received>>>,
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
    script: Arc<Mutex<Script>>,
    stop: CancellationToken,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

struct Gauge(Arc<AtomicUsize>);

impl Drop for Gauge {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Receiver {
    /// Plain HTTP on 127.0.0.1, answering 200.
    pub async fn http() -> Self {
        Self::start(None).await
    }

    /// HTTPS on localhost with a fresh self-signed certificate written to `dir`.
    pub async fn https(dir: &Path) -> Self {
        let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
        let ca_file = dir.join("receiver-ca.pem");
        std::fs::write(&ca_file, cert.cert.pem()).unwrap();
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(cert.key_pair.serialize_der().into());
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert.cert.der().clone()], key)
            .unwrap();
        let mut r = Self::start(Some(tokio_rustls::TlsAcceptor::from(Arc::new(config)))).await;
        r.url = format!("https://localhost:{}/hook", r.addr.port());
        r.ca_file = Some(ca_file);
        r
    }

    async fn start(tls: Option<tokio_rustls::TlsAcceptor>) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let requests: Arc<Mutex<Vec<Received>>> = Arc::default();
        let in_flight = Arc::new(AtomicUsize::new(0));
        let max_in_flight = Arc::new(AtomicUsize::new(0));
        let script: Arc<Mutex<Script>> = Arc::new(Mutex::new(Arc::new(|_, _| Reply::Status(200))));
        let stop = CancellationToken::new();
        let (reqs, gauge, max, scr, halt) =
            (requests.clone(), in_flight.clone(), max_in_flight.clone(), script.clone(), stop.clone());
        tokio::spawn(async move {
            loop {
                let (tcp, _) = tokio::select! {
                    _ = halt.cancelled() => return,
                    accepted = listener.accept() => match accepted { Ok(a) => a, Err(_) => continue },
                };
                let (reqs, gauge, max, scr, halt, tls) =
                    (reqs.clone(), gauge.clone(), max.clone(), scr.clone(), halt.clone(), tls.clone());
                tokio::spawn(async move {
                    let service = service_fn(move |req: Request<Incoming>| {
                        let (reqs, gauge, max, scr, halt) =
                            (reqs.clone(), gauge.clone(), max.clone(), scr.clone(), halt.clone());
                        async move {
                            let now = gauge.fetch_add(1, Ordering::SeqCst) + 1;
                            max.fetch_max(now, Ordering::SeqCst);
                            let _gauge = Gauge(gauge);
                            let headers = req.headers().clone();
                            let body = req.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                            let received = Received { headers, body, at: Instant::now() };
                            let n = {
                                let mut all = reqs.lock().unwrap();
                                all.push(received.clone());
                                all.len() - 1
                            };
                            let script = scr.lock().unwrap().clone();
                            let reply = script(n, &received);
                            let response = match reply {
                                Reply::Status(code) => Response::builder().status(code),
                                Reply::RetryAfter(code, secs) => {
                                    Response::builder().status(code).header("retry-after", secs.to_string())
                                }
                                Reply::Hang => {
                                    halt.cancelled().await;
                                    Response::builder().status(503)
                                }
                            };
                            Ok::<_, Infallible>(response.body(Full::new(Bytes::from_static(b"received"))).unwrap())
                        }
                    });
                    let builder = hyper::server::conn::http1::Builder::new();
                    match tls {
                        Some(acceptor) => {
                            if let Ok(stream) = acceptor.accept(tcp).await {
                                let _ = builder.serve_connection(TokioIo::new(stream), service).await;
                            }
                        }
                        None => {
                            let _ = builder.serve_connection(TokioIo::new(tcp), service).await;
                        }
                    }
                });
            }
        });
        Receiver {
            addr,
            url: format!("http://127.0.0.1:{}/hook", addr.port()),
            ca_file: None,
            requests,
            in_flight,
            max_in_flight,
            script,
            stop,
        }
    }

    /// Sets how the n-th request (counting from 0) is answered.
    pub fn reply_with(&self, script: impl Fn(usize, &Received) -> Reply + Send + Sync + 'static) {
        *self.script.lock().unwrap() = Arc::new(script);
    }

    pub fn received(&self) -> Vec<Received> {
        self.requests.lock().unwrap().clone()
    }

    pub fn count(&self) -> usize {
        self.requests.lock().unwrap().len()
    }

    /// Distinct event ids received.
    pub fn event_ids(&self) -> HashSet<String> {
        self.received().iter().map(Received::event_id).collect()
    }

    /// The most requests that were open at once.
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    /// Waits (polling, up to `secs`) until `done` holds for what was received.
    pub async fn wait_until(&self, secs: u64, what: &str, done: impl Fn(&[Received]) -> bool) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let got = self.received();
            if done(&got) {
                return got;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}; received {}", got.len());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
