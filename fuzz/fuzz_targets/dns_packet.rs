#![no_main]
//! The server's query handling fed raw packets (queries, UPDATE, AXFR, TSIG-shaped) in-process,
//! over a zone held in a temporary store.

use libfuzzer_sys::fuzz_target;
use meridian_core::config::DnsConfig;
use meridian_dns::catalog::Catalog;
use meridian_dns::record::RecordInput;
use meridian_dns::server::{AnswerCache, DnsServer, UdpReply};
use meridian_dns::service::DnsService;
use std::sync::{Arc, OnceLock};

struct World {
    rt: tokio::runtime::Runtime,
    server: DnsServer,
    _dir: tempfile::TempDir,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        let dir = tempfile::tempdir().expect("temp dir");
        let server = rt.block_on(async {
            let store = meridian_store::Store::open(&meridian_store::repo::StoreOptions {
                database_url: format!("sqlite://{}/m.db", dir.path().display()),
                blob_url: format!("file://{}/blobs", dir.path().display()),
                readers: 2,
                busy_timeout: std::time::Duration::from_secs(5),
            })
            .await
            .expect("store");
            let config = Arc::new(DnsConfig { allow_transfer: vec!["127.0.0.1".into()], ..DnsConfig::default() });
            let service = Arc::new(DnsService::new(store.clone(), config.clone(), Arc::new(|| {})));
            let catalog = Arc::new(Catalog::new(config.clone()));
            let account = meridian_core::id::AccountId::generate();
            if let Ok(zone) = service.create_zone(&account, Some("example.com")).await {
                let input = RecordInput {
                    rtype: Some("A".into()),
                    name: Some("www".into()),
                    content: Some("192.0.2.1".into()),
                    ..Default::default()
                };
                let _ = service.create_record(&account, zone.id.as_str(), &input).await;
            }
            let _ = catalog.refresh(&store).await;
            DnsServer::new(catalog, service, config).expect("server")
        });
        World { rt, server, _dir: dir }
    })
}

fuzz_target!(|data: &[u8]| {
    let w = world();
    let src = "127.0.0.1:5300".parse().expect("address");
    for tcp in [false, true] {
        let _ = w.rt.block_on(w.server.handle(data, src, tcp));
    }
    // A UDP worker's path, asked twice: a reply rendered from its cache must be exactly the full
    // path's.
    let mut cache = AnswerCache::new(1 << 20);
    let mut out = Vec::new();
    for _ in 0..2 {
        if let UdpReply::Rendered(_) = w.server.handle_udp(&mut cache, data, src, &mut out) {
            assert_eq!(w.server.handle_now(data, src, false), Some(vec![out.clone()]));
        }
    }
});
