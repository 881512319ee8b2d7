//! What every handler can reach.

use crate::ratelimit::RateLimiter;
use meridian_core::config::Config;
use meridian_jobs::Waker;
use meridian_store::Store;
use metrics_exporter_prometheus::PrometheusHandle;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Shared, cheaply cloned state of the HTTP API.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub store: Store,
    /// Accounts, API keys and access tokens.
    pub accounts: Arc<meridian_accounts::AccountService>,
    pub limiter: Arc<RateLimiter>,
    pub metrics: PrometheusHandle,
    /// Wakes the webhook delivery worker when deliveries fall due (replay, redelivery, resume).
    pub delivery_waker: Waker,
    /// The account-facing job operations (list, read, cancel, wait).
    pub jobs: meridian_jobs::JobService,
    /// The DNS write path (validation, rules, events), shared with the DNS server's dynamic updates.
    pub dns: Arc<meridian_dns::service::DnsService>,
    /// The DEM service (uploads, processing jobs, terrain tiles), shared with its job handler.
    pub dem: Arc<meridian_dem::DemService>,
    /// The feature service (cadastre parcels and feature collections): writes and queries.
    pub features: meridian_cadastre::FeatureService,
    /// Earth observation: the STAC catalogue, ingest, band math and zonal statistics.
    pub eo: Arc<meridian_eo::EoService>,
    /// Point clouds: uploads, indexing and classification jobs, LAS/LAZ/COPC downloads.
    pub pointcloud: Arc<meridian_pointcloud::service::PointCloudService>,
    /// Digital twins: tilesets, assets, the clock, sensors, readings and the live fan-out.
    pub twin: Arc<meridian_twin::service::TwinService>,
    /// WebSockets open per account (`twin.max_ws_per_account`).
    pub twin_sockets: Arc<dashmap::DashMap<meridian_core::id::AccountId, Arc<std::sync::atomic::AtomicUsize>>>,
    /// The map services (WMS, WMTS) over the layer catalogue the areas register in.
    pub ogc: Arc<meridian_ogc::OgcService>,
    /// WFS 2.0 over the feature service.
    pub wfs: Arc<meridian_ogc::wfs::WfsService>,
    /// Webhook subscriptions: rules, secret rotation, test events, replays.
    pub subscriptions: meridian_webhooks::SubscriptionService,
    /// Parent of every request's cancellation token ([`crate::extract::RequestCancel`]);
    /// cancelled when the process stops waiting for in-flight requests.
    pub requests: CancellationToken,
    /// Parts of this process still starting (the DNS zones loading): `/readyz` answers 503
    /// naming them until they are done.
    pub starting: Arc<std::sync::Mutex<Vec<&'static str>>>,
}

impl AppState {
    /// Marks `part` as starting until the returned guard is dropped.
    pub fn starting(&self, part: &'static str) -> Starting {
        self.starting.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(part);
        Starting { list: self.starting.clone(), part }
    }

    /// Builds the state; the token-signing key comes from configuration or, when unset, from the
    /// store (generated once and shared by every node).
    pub async fn new(config: Arc<Config>, store: Store) -> Result<Self, meridian_store::StoreError> {
        let tokens = meridian_accounts::TokenKeys::load(&config, &store).await?;
        let accounts = Arc::new(meridian_accounts::AccountService::new(store.clone(), tokens));
        let limiter = Arc::new(RateLimiter::new(config.rate_limits.clone()));
        let dns = Arc::new(meridian_dns::service::DnsService::new(store.clone(), Arc::new(config.dns.clone())));
        let dem = Arc::new(meridian_dem::DemService::new(&config, store.clone()));
        let delivery_waker = Waker::new();
        let subscriptions = meridian_webhooks::SubscriptionService::new(
            store.clone(),
            Arc::new(config.webhooks.clone()),
            delivery_waker.clone(),
        );
        let features = meridian_cadastre::FeatureService::new(store.clone());
        let eo = Arc::new(meridian_eo::EoService::new(&config, store.clone(), features.clone()));
        let pointcloud = Arc::new(meridian_pointcloud::service::PointCloudService::new(&config, store.clone()));
        let twin = Arc::new(meridian_twin::service::TwinService::new(&config, store.clone()));
        let ogc = Arc::new(ogc_service(&config, &features, &dem, &eo, &store));
        let wfs = Arc::new(meridian_ogc::wfs::WfsService::new(
            Arc::new(features.clone()),
            meridian_ogc::wfs::WfsLimits::default(),
        ));
        Ok(Self {
            config,
            store: store.clone(),
            accounts,
            limiter,
            metrics: crate::telemetry::prometheus(),
            delivery_waker,
            jobs: meridian_jobs::JobService::new(store.clone()),
            dns,
            dem,
            features,
            eo,
            pointcloud,
            twin,
            twin_sockets: Arc::new(dashmap::DashMap::new()),
            ogc,
            wfs,
            subscriptions,
            requests: CancellationToken::new(),
            starting: Arc::new(std::sync::Mutex::new(Vec::new())),
        })
    }
}

/// The map services with every area's layers registered.
fn ogc_service(
    config: &Config,
    features: &meridian_cadastre::FeatureService,
    dem: &Arc<meridian_dem::DemService>,
    eo: &Arc<meridian_eo::EoService>,
    store: &Store,
) -> meridian_ogc::OgcService {
    use meridian_ogc::sources::{DemLayers, EoLayers, FeatureLayers};
    let mut catalogue = meridian_ogc::Catalogue::new();
    catalogue.register(Arc::new(FeatureLayers::new(features.clone(), config.maps.max_features)));
    catalogue.register(Arc::new(DemLayers::new(dem.clone(), store.clone())));
    catalogue.register(Arc::new(EoLayers::new(eo.clone())));
    let maps = &config.maps;
    meridian_ogc::OgcService::new(
        catalogue,
        meridian_ogc::MapConfig {
            max_width: maps.max_width,
            max_height: maps.max_height,
            max_layers: maps.max_layers,
            max_features: maps.max_features,
            tile_max_age: maps.tile_max_age,
            max_zoom: config.dem.max_zoom,
            ..meridian_ogc::MapConfig::default()
        },
    )
}

/// A part of the process still starting; ready when dropped.
#[derive(Debug)]
pub struct Starting {
    list: Arc<std::sync::Mutex<Vec<&'static str>>>,
    part: &'static str,
}

impl Drop for Starting {
    fn drop(&mut self) {
        let mut list = self.list.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(i) = list.iter().position(|p| *p == self.part) {
            list.remove(i);
        }
    }
}
