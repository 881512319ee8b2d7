//! `meridian serve`: opens the store, binds the listeners, runs every role until SIGTERM or
//! Ctrl-C, then drains.

#![allow(clippy::print_stdout)]

use anyhow::Context;
use meridian_backends::StoreOptions;
use meridian_core::config::{Config, LogFormat};
use meridian_jobs::{Dispatcher, WorkerPool};
use meridian_services::Services;
use meridian_store::Store;
use std::sync::Arc;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// How often the hourly duties run (on the node that leads each).
const HOURLY: std::time::Duration = std::time::Duration::from_secs(3600);

/// Opens the configured store, applying migrations.
pub(crate) async fn open_store(config: &Config) -> anyhow::Result<Store> {
    let options = StoreOptions {
        database_url: config.database_url(),
        blob_url: config.blob_url(),
        readers: config.storage.sqlite_readers,
        busy_timeout: config.storage.busy_timeout,
        postgres: meridian_backends::PostgresOptions {
            max_connections: config.storage.max_connections,
            acquire_timeout: config.storage.acquire_timeout,
            statement_timeout: config.storage.statement_timeout,
            application_name: config.storage.application_name.clone(),
        },
    };
    meridian_backends::open(&options).await.context("opening the store")
}

fn init_logging(config: &Config) {
    let filter = tracing_subscriber::EnvFilter::try_new(&config.log.level)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colour only for a person at a terminal; files, pipes and log collectors get plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi);
    let _ = match config.log.format {
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
        LogFormat::Pretty => builder.try_init(),
    };
}

/// Takes the data folder for this process: a second `serve` on the same folder would share the
/// embedded database's writer and the blobs with the first, unseen. The lock is the operating
/// system's (`flock`), so it goes with the process however it ends.
fn lock_data_dir(config: &Config) -> anyhow::Result<std::fs::File> {
    let dir = &config.server.data_dir;
    std::fs::create_dir_all(dir).with_context(|| format!("creating the data folder {}", dir.display()))?;
    let path = dir.join("meridian.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => anyhow::bail!(
            "another meridian process is serving the data folder {} (it holds {}); stop it, or give this one \
             its own --data-dir",
            dir.display(),
            path.display()
        ),
        Err(std::fs::TryLockError::Error(e)) => Err(e).with_context(|| format!("locking {}", path.display())),
    }
}

/// Runs the platform until a shutdown signal.
pub(crate) async fn serve(config: Config) -> anyhow::Result<()> {
    init_logging(&config);
    let _data_dir = lock_data_dir(&config)?;
    let signal = shutdown_signal();
    let config = Arc::new(config);
    let store = open_store(&config).await?;
    let shutdown = CancellationToken::new();
    // Every service is built once here and handed to the roles this node runs.
    let services = Services::new(config.clone(), store.clone()).await.context("preparing the services")?;
    // DEM datasets stored before they were database rows become rows.
    let adopted = services.dem.adopt_blob_records().await.context("adopting stored DEM datasets")?;
    if adopted > 0 {
        tracing::info!(adopted, "DEM datasets adopted from the blob store");
    }

    let mut tasks = JoinSet::new();
    // Until the DNS zones are loaded (many zones take seconds) the node says it is not
    // ready, although its HTTP API already answers.
    let mut requests = None;
    let mut dns_loading = None;
    if config.server.roles.api {
        let state = meridian_api::AppState::new(services.clone());
        dns_loading = config.server.roles.dns.then(|| state.starting("dns zones loading"));
        requests = Some(state.requests.clone());
        let listener = tokio::net::TcpListener::bind(config.server.http)
            .await
            .with_context(|| format!("binding http {}", config.server.http))?;
        let addr = listener.local_addr()?;
        println!("listening on http {addr}");
        let app = meridian_api::router(state.clone());
        let limits = crate::http::Limits::from_config(&config.server);
        tasks.spawn(crate::http::serve(listener, app, limits, shutdown.clone()));
    }
    let mut handoff = None;
    if config.server.roles.workers {
        let mut pool = WorkerPool::new(store.clone(), config.jobs.clone());
        for handler in services.job_handlers() {
            pool.register(handler);
        }
        let stop = shutdown.clone();
        tasks.spawn(async move { pool.run(stop).await });
        let ttl = config.dem.tile_cache_ttl;
        if config.dem.tile_cache && !ttl.is_zero() {
            let dem = services.dem.clone();
            tasks.spawn(crate::duties::every(
                store.clone(),
                "dem_tile_eviction",
                HOURLY,
                shutdown.clone(),
                move || {
                    let dem = dem.clone();
                    async move {
                        match dem.evict_tiles(ttl).await {
                            Ok(0) => {}
                            Ok(n) => tracing::info!(removed = n, "expired cached tiles removed"),
                            Err(e) => tracing::warn!(error = %e, "removing expired cached tiles failed"),
                        }
                    }
                },
            ));
        }
        if !config.twin.retention.is_zero() {
            let twin = services.twin.clone();
            tasks.spawn(crate::duties::every(store.clone(), "twin_retention", HOURLY, shutdown.clone(), move || {
                let twin = twin.clone();
                async move {
                    match twin.purge_expired().await {
                        Ok(0) => {}
                        Ok(n) => tracing::info!(removed = n, "readings past twin.retention removed"),
                        Err(e) => tracing::warn!(error = %e, "removing expired readings failed"),
                    }
                }
            }));
        }
        tasks.spawn(crate::retention::run(store.clone(), config.clone(), shutdown.clone()));
        let deliverer =
            meridian_webhooks::Deliverer::new(store.clone(), config.webhooks.clone(), services.delivery_waker.clone())
                .context("starting the webhook delivery worker")?;
        handoff = Some(deliverer.handoff());
        let stop = shutdown.clone();
        tasks.spawn(async move { deliverer.run(stop).await });
    }
    if config.server.roles.mqtt && !config.twin.mqtt_url.is_empty() {
        tasks.spawn(meridian_twin::service::mqtt::run(services.twin.clone(), config.node_name(), shutdown.clone()));
    }
    if config.server.roles.dispatcher {
        let mut dispatcher = Dispatcher::new(store.clone(), config.events.clone());
        let mut sink = meridian_webhooks::WebhookSink::new(store.clone(), services.delivery_waker.clone());
        if let Some(handoff) = handoff {
            // Deliveries go to this process's worker in memory, the database keeping the record.
            sink = sink.with_handoff(handoff);
        }
        dispatcher.add_sink(Arc::new(sink));
        // One dispatcher at a time: every node's would wake on every commit and contend for the
        // same outbox rows; the others stand by.
        let stop = shutdown.clone();
        tasks.spawn(crate::duties::lead_then(store.clone(), "dispatcher", shutdown.clone(), move || {
            dispatcher.run(stop)
        }));
    }
    if config.server.roles.dns {
        // Zones are loaded before the listener is announced, so the first query finds them.
        let dns_config = Arc::new(config.dns.clone());
        let served_zones = Arc::new(
            meridian_dns::served::ServedZones::new(dns_config.clone()).with_change_log(services.dns.change_log()),
        );
        served_zones.refresh(&store).await.context("loading the DNS zones")?;
        let server =
            meridian_dns::server::DnsServer::new(served_zones.clone(), services.dns.clone(), dns_config.clone())
                .map_err(|e| anyhow::anyhow!("invalid DNS configuration: {e}"))?;
        let bound = meridian_dns::server::bind(config.server.dns, config.dns.udp_workers)
            .await
            .with_context(|| format!("binding dns {}", config.server.dns))?;
        println!("listening on dns {}", bound.addr);
        drop(dns_loading);
        let stop = shutdown.clone();
        tasks.spawn(async move { Arc::new(server).run(bound, stop).await });
        let stop = shutdown.clone();
        tasks.spawn(meridian_dns::server::keep_current(served_zones, store.clone(), dns_config, stop));
    }
    tracing::info!(data_dir = %config.server.data_dir.display(), "meridian started");

    signal.await;
    tracing::info!(grace = ?config.server.shutdown_grace, "shutting down: draining requests and jobs");
    shutdown.cancel();
    let drained =
        tokio::time::timeout(config.server.shutdown_grace, async { while tasks.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        tracing::warn!(
            "grace period over: cancelling the requests still running; unfinished jobs will be claimed again after their lease"
        );
    }
    // Whatever still runs (requests, blocking work) is told to stop; the caller then leaves the
    // runtime without waiting for it.
    if let Some(requests) = requests {
        requests.cancel();
    }
    Ok(())
}

/// Leaves the runtime after `serve`: dropping it would wait for every blocking task however
/// long it runs; after the grace period nothing more is waited for, and exiting ends them.
pub(crate) fn leave(runtime: tokio::runtime::Runtime) {
    runtime.shutdown_background();
}

/// Installs the SIGTERM and Ctrl-C handlers now and returns the wait for either. Installing them
/// before the listeners are announced means a signal sent as soon as the server answers starts
/// the drain instead of killing the process.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate()).ok();
        let mut interrupt = signal(SignalKind::interrupt()).ok();
        async move {
            let term = async {
                match term.as_mut() {
                    Some(s) => drop(s.recv().await),
                    None => std::future::pending::<()>().await,
                }
            };
            let interrupt = async {
                match interrupt.as_mut() {
                    Some(s) => drop(s.recv().await),
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = term => {}
                _ = interrupt => {}
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}
