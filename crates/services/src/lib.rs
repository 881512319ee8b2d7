//! The program's services, built once from the configuration and the opened store, and handed
//! by role: to the HTTP router (`meridian-api`), the DNS server, the job workers, the event
//! dispatcher and the MQTT ingest. A node without the `api` role builds these and no HTTP state.

use meridian_core::config::Config;
use meridian_jobs::{JobHandler, Waker};
use meridian_store::staging::Staging;
use meridian_store::{Store, StoreError};
use std::sync::Arc;

/// Every area's service over one store. Cheap to clone: each is shared.
#[derive(Clone)]
pub struct Services {
    pub config: Arc<Config>,
    pub store: Store,
    /// Where every area stages uploads and work files.
    pub staging: Staging,
    /// Accounts, API keys and access tokens.
    pub accounts: Arc<meridian_accounts::AccountService>,
    /// Wakes the webhook delivery worker when deliveries fall due (replay, redelivery, resume).
    pub delivery_waker: Waker,
    /// The account-facing job operations (list, read, cancel, wait).
    pub jobs: meridian_jobs::JobService,
    /// The DNS write path (validation, rules, events), shared with the DNS server's dynamic updates.
    pub dns: Arc<meridian_dns::service::DnsService>,
    /// The DEM service (uploads, processing jobs, terrain tiles), shared with its job handler.
    pub dem: Arc<meridian_dem::DemService>,
    /// The feature service (cadastre parcels and feature collections): writes and queries.
    pub features: meridian_collections::FeatureService,
    /// Earth observation: the STAC catalogue, ingest, band math and zonal statistics.
    pub eo: Arc<meridian_eo::EoService>,
    /// Point clouds: uploads, indexing and classification jobs, LAS/LAZ/COPC downloads.
    pub pointcloud: Arc<meridian_pointcloud::service::PointCloudService>,
    /// Digital twins: tilesets, assets, the clock, sensors, readings and the live fan-out.
    pub twin: Arc<meridian_twin::service::TwinService>,
    /// The map services (WMS, WMTS) over the layers every area registers.
    pub ogc: Arc<meridian_ogc::OgcService>,
    /// WFS 2.0 over the feature service.
    pub wfs: Arc<meridian_ogc::wfs::WfsService>,
    /// Webhook subscriptions: rules, secret rotation, test events, replays, deliveries.
    pub subscriptions: meridian_webhooks::SubscriptionService,
}

impl Services {
    /// Builds every service; the token-signing key comes from configuration or, when unset, from
    /// the store (generated once and shared by every node).
    pub async fn new(config: Arc<Config>, store: Store) -> Result<Self, StoreError> {
        let tokens = meridian_accounts::TokenKeys::load(&config, &store).await?;
        let accounts = Arc::new(meridian_accounts::AccountService::new(store.clone(), tokens));
        let dns = Arc::new(meridian_dns::service::DnsService::new(store.clone(), Arc::new(config.dns.clone())));
        let dem = Arc::new(meridian_dem::DemService::new(&config, store.clone()));
        let delivery_waker = Waker::new();
        let subscriptions = meridian_webhooks::SubscriptionService::new(
            store.clone(),
            Arc::new(config.webhooks.clone()),
            delivery_waker.clone(),
        );
        let features = meridian_collections::FeatureService::new(store.clone());
        let eo = Arc::new(meridian_eo::EoService::new(&config, store.clone(), features.clone()));
        let pointcloud = Arc::new(meridian_pointcloud::service::PointCloudService::new(&config, store.clone()));
        let twin = Arc::new(meridian_twin::service::TwinService::new(&config, store.clone()));
        let jobs = meridian_jobs::JobService::new(store.clone());
        let ogc = Arc::new(map_service(&config, &features, &dem, &eo, &jobs));
        let wfs = Arc::new(meridian_ogc::wfs::WfsService::new(
            Arc::new(features.clone()),
            meridian_ogc::wfs::WfsLimits::default(),
        ));
        Ok(Self {
            staging: Staging::new(config.staging_dir()),
            jobs,
            config,
            store,
            accounts,
            delivery_waker,
            dns,
            dem,
            features,
            eo,
            pointcloud,
            twin,
            ogc,
            wfs,
            subscriptions,
        })
    }

    /// The handler of every job kind, for a worker pool.
    pub fn job_handlers(&self) -> Vec<Arc<dyn JobHandler>> {
        vec![
            Arc::new(meridian_dem::DemJobHandler::new(self.dem.clone())),
            Arc::new(meridian_eo::ingest::IngestJobHandler::new(self.eo.clone())),
            Arc::new(meridian_eo::compute::ComputeJobHandler::new(self.eo.clone())),
            Arc::new(meridian_pointcloud::service::IndexJobHandler::new(self.pointcloud.clone())),
            Arc::new(meridian_pointcloud::service::ClassifyJobHandler::new(self.pointcloud.clone())),
            Arc::new(meridian_collections::ImportJobHandler::new(self.features.clone(), self.staging.clone())),
            Arc::new(meridian_twin::service::BuildJobHandler::new(self.twin.clone())),
        ]
    }
}

/// The map services with every area's layers registered.
fn map_service(
    config: &Config,
    features: &meridian_collections::FeatureService,
    dem: &Arc<meridian_dem::DemService>,
    eo: &Arc<meridian_eo::EoService>,
    jobs: &meridian_jobs::JobService,
) -> meridian_ogc::OgcService {
    use meridian_ogc::sources::{DemLayers, EoLayers, FeatureLayers};
    let mut layers = meridian_ogc::LayerRegistry::new();
    layers.register(Arc::new(FeatureLayers::new(features.clone(), config.maps.max_features)));
    layers.register(Arc::new(DemLayers::new(dem.clone(), jobs.clone())));
    layers.register(Arc::new(EoLayers::new(eo.clone())));
    let maps = &config.maps;
    meridian_ogc::OgcService::new(
        layers,
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
