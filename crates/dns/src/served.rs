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
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// The names each commit on this node changed, by zone and the serial the commit gave the zone,
/// so that the served copy of a zone can be brought up to date from those names' records alone.
/// A serial missing from the log (a commit on another node, or an entry pushed out) makes the
/// zone be read whole again.
#[derive(Debug, Default)]
pub struct ChangeLog {
    zones: Mutex<HashMap<ZoneId, VecDeque<Noted>>>,
}

/// The serial a commit gave its zone, and the names it changed.
type Noted = (u32, Vec<String>);

/// Commits kept per zone: a refresh that falls further behind reads the zone whole.
const LOG_DEPTH: usize = 4_096;

impl ChangeLog {
    /// Notes that the commit that gave `zone` the serial `serial` changed the records at `names`.
    pub fn note(&self, zone: &ZoneId, serial: u32, names: Vec<String>) {
        let Ok(mut zones) = self.zones.lock() else { return };
        let log = zones.entry(zone.clone()).or_default();
        if log.len() == LOG_DEPTH {
            log.pop_front();
        }
        log.push_back((serial, names));
    }

    /// Every name changed by the commits after serial `from` up to serial `to`, when each of
    /// those commits was noted here; entries up to `from` are forgotten.
    pub fn names_between(&self, zone: &ZoneId, from: u32, to: u32) -> Option<Vec<String>> {
        let steps = to.wrapping_sub(from) as usize;
        if steps == 0 || steps > LOG_DEPTH {
            return None;
        }
        let mut zones = self.zones.lock().ok()?;
        let log = zones.get_mut(zone)?;
        log.retain(|(serial, _)| serial.wrapping_sub(from) as usize <= LOG_DEPTH && *serial != from);
        let mut names = Vec::new();
        for step in 1..=steps {
            let serial = from.wrapping_add(step as u32);
            let (_, changed) = log.iter().find(|(s, _)| *s == serial)?;
            names.extend(changed.iter().cloned());
        }
        names.sort_unstable();
        names.dedup();
        Some(names)
    }

    /// Whether this node's commits changed the zone lately.
    pub fn knows(&self, zone: &ZoneId) -> bool {
        self.zones.lock().is_ok_and(|zones| zones.get(zone).is_some_and(|log| !log.is_empty()))
    }

    /// Forgets a zone (deleted, or read whole again).
    pub fn forget(&self, zone: &ZoneId) {
        if let Ok(mut zones) = self.zones.lock() {
            zones.remove(zone);
        }
    }
}

/// The zones served, by name.
pub struct ServedZones {
    zones: RwLock<Arc<HashMap<String, Arc<ZoneData>>>>,
    caches: Mutex<HashMap<ZoneId, SigCache>>,
    config: Arc<DnsConfig>,
    /// Moves on after every change of the zones served: answers rendered before are stale.
    generation: AtomicU64,
    /// What this node's commits changed (see [`ChangeLog`]).
    log: Arc<ChangeLog>,
    /// Zones read whole, and zones brought up to date from their changed names.
    whole_reads: AtomicU64,
    name_reads: AtomicU64,
}

/// How the served zones were brought up to date since the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneReads {
    /// Zones read whole from the store (and signed, when they are).
    pub whole: u64,
    /// Zones made from the records of the names their changes touched.
    pub by_name: u64,
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
            log: Arc::new(ChangeLog::default()),
            whole_reads: AtomicU64::new(0),
            name_reads: AtomicU64::new(0),
        }
    }

    /// How the zones were brought up to date so far.
    pub fn reads(&self) -> ZoneReads {
        ZoneReads { whole: self.whole_reads.load(Ordering::Relaxed), by_name: self.name_reads.load(Ordering::Relaxed) }
    }

    /// Zones brought up to date from the names `log` says changed, where it covers every commit.
    pub fn with_change_log(mut self, log: Arc<ChangeLog>) -> Self {
        self.log = log;
        self
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
            if let Some(z) = current.get(&v.name).filter(|z| z.id == v.id && !z.signed && !v.dnssec) {
                if let Some(data) = self.changed_names(store, z, v.soa_serial).await? {
                    self.name_reads.fetch_add(1, Ordering::Relaxed);
                    metrics::counter!("meridian_dns_zone_reads_total", "how" => "by_name").increment(1);
                    changed.push(Changed { zone: v.name.clone(), serial: v.soa_serial });
                    next.insert(v.name.clone(), Arc::new(data));
                    rebuilt = true;
                    continue;
                }
            }
            self.whole_reads.fetch_add(1, Ordering::Relaxed);
            metrics::counter!("meridian_dns_zone_reads_total", "how" => "whole").increment(1);
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
        for z in current.values().filter(|z| !next.contains_key(&z.name)) {
            self.log.forget(&z.id);
        }
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

    /// The served zone `z` at `serial` made from the records at the names changed since its own
    /// serial, when the change log covers every commit between and the change allows it
    /// ([`ZoneData::with_names_changed`]).
    async fn changed_names(&self, store: &Store, z: &ZoneData, serial: u32) -> Result<Option<ZoneData>, StoreError> {
        let mut names = self.log.names_between(&z.id, z.serial, serial);
        // A commit of this node's may be announced before its names are noted (the note follows
        // the commit, on the writer's task): look again for a few milliseconds. A commit noted
        // nowhere (made on another node) is still missing then, and the zone is read whole.
        for _ in 0..10 {
            if names.is_some() || !self.log.knows(&z.id) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            names = self.log.names_between(&z.id, z.serial, serial);
        }
        let Some(names) = names else { return Ok(None) };
        let records = store.dns.zone_records_named(&z.id, &names).await?;
        let valid: Vec<ValidRecord> = records
            .iter()
            .filter_map(|r| rdata_of(r).map(|data| ValidRecord { name: r.name.clone(), ttl: r.ttl, data }))
            .collect();
        Ok(z.with_names_changed(serial, &names, &valid, &self.config))
    }
}
