//! The zones a DNS node serves: one immutable snapshot per zone, swapped whole when the store's
//! serial moves (a change on any node), when the DNSSEC state changes, or when signatures come
//! close to expiring.

use crate::dnssec::ZoneKey;
use crate::name;
use crate::record::{rdata_of, ValidRecord};
use crate::zone::{SigCache, ZoneData, ZoneSource};
use meridian_core::config::DnsConfig;
use meridian_core::id::ZoneId;
use meridian_store::{Store, StoreError};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// The zones served, by name.
pub struct ServedZones {
    zones: RwLock<Arc<HashMap<String, Arc<ZoneData>>>>,
    caches: Mutex<HashMap<ZoneId, SigCache>>,
    config: Arc<DnsConfig>,
    /// Moves on after every change of the zones served: answers rendered before are stale.
    generation: AtomicU64,
}

/// A zone whose content changed in a refresh.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changed {
    pub zone: String,
    pub serial: u32,
}

impl ServedZones {
    /// An empty served_zones.
    pub fn new(config: Arc<DnsConfig>) -> Self {
        Self {
            zones: RwLock::new(Arc::new(HashMap::new())),
            caches: Mutex::new(HashMap::new()),
            config,
            generation: AtomicU64::new(0),
        }
    }

    fn snapshot(&self) -> Arc<HashMap<String, Arc<ZoneData>>> {
        self.zones.read().map(|z| z.clone()).unwrap_or_else(|p| p.into_inner().clone())
    }

    /// The zone that holds `qname` (lowercase, no trailing dot): the longest matching zone name.
    pub fn find(&self, qname: &str) -> Option<Arc<ZoneData>> {
        let zones = self.snapshot();
        let mut n = qname;
        loop {
            if let Some(z) = zones.get(n) {
                return Some(z.clone());
            }
            n = name::parent(n)?;
        }
    }

    /// The zone with exactly this name.
    pub fn get(&self, zone: &str) -> Option<Arc<ZoneData>> {
        self.snapshot().get(zone).cloned()
    }

    /// A number that changes whenever the zones served change; read it before looking a zone up,
    /// so that what is found is at least as new as the number.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// How many zones are served.
    pub fn len(&self) -> usize {
        self.snapshot().len()
    }

    /// Whether no zone is served.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Brings every zone up to date with the store; returns the zones whose content changed
    /// (new zones included, deleted ones not).
    pub async fn refresh(&self, store: &Store) -> Result<Vec<Changed>, StoreError> {
        let versions = store.dns.zone_versions().await?;
        let current = self.snapshot();
        let now = crate::tsig::now();
        let refresh = self.config.signature_refresh.as_secs();
        let mut next = HashMap::with_capacity(versions.len());
        let mut changed = Vec::new();
        let mut rebuilt = false;
        for v in versions {
            if let Some(z) = current.get(&v.name) {
                let expiring = z.earliest_expiration.is_some_and(|e| u64::from(e) <= now + refresh);
                if z.id == v.id && z.serial == v.soa_serial && z.signed == v.dnssec && !expiring {
                    next.insert(v.name.clone(), z.clone());
                    continue;
                }
            }
            let records = store.dns.zone_records(&v.id).await?;
            let keys = if v.dnssec {
                store
                    .dns
                    .dns_keys(&v.id)
                    .await?
                    .iter()
                    .filter_map(|k| ZoneKey::from_hex(&k.private_key, k.flags).ok())
                    .collect()
            } else {
                Vec::new()
            };
            let valid: Vec<ValidRecord> = records
                .iter()
                .filter_map(|r| rdata_of(r).map(|data| ValidRecord { name: r.name.clone(), ttl: r.ttl, data }))
                .collect();
            let mut cache = self.caches.lock().ok().and_then(|mut c| c.remove(&v.id)).unwrap_or_default();
            let config = self.config.clone();
            let (id, account_id, zone_name, serial) =
                (v.id.clone(), v.account_id.clone(), v.name.clone(), v.soa_serial);
            // Signing a large zone is CPU work: keep it off the executor's threads.
            let built = tokio::task::spawn_blocking(move || {
                let src = ZoneSource { id, account_id, name: zone_name, serial, records: valid, keys, config: &config };
                let data = ZoneData::build(src, &mut cache, now);
                (data, cache)
            })
            .await;
            let Ok((data, cache)) = built else {
                // The zone keeps being served as it was: a rebuild that fails must not take it
                // off the air.
                tracing::error!(zone = %v.name, "building the zone snapshot failed; serving the previous one");
                metrics::counter!("meridian_dns_zone_build_failures_total").increment(1);
                if let Some(z) = current.get(&v.name) {
                    next.insert(v.name.clone(), z.clone());
                }
                continue;
            };
            if let Ok(mut caches) = self.caches.lock() {
                caches.insert(v.id.clone(), cache);
            }
            if current.get(&v.name).is_none_or(|z| z.serial != v.soa_serial || z.id != v.id) {
                changed.push(Changed { zone: v.name.clone(), serial: v.soa_serial });
            }
            next.insert(v.name.clone(), Arc::new(data));
            rebuilt = true;
        }
        let removed = current.keys().any(|name| !next.contains_key(name));
        if let Ok(mut caches) = self.caches.lock() {
            let live: std::collections::HashSet<&ZoneId> = next.values().map(|z| &z.id).collect();
            caches.retain(|id, _| live.contains(id));
        }
        match self.zones.write() {
            Ok(mut zones) => *zones = Arc::new(next),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(next),
        }
        if rebuilt || removed {
            self.generation.fetch_add(1, Ordering::AcqRel);
        }
        Ok(changed)
    }
}
