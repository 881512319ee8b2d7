//! The one bounded in-process cache every area uses (opened rasters, rendered tiles, fetched
//! remote blocks, authenticated keys): a concurrent map with S3-FIFO eviction (the
//! `quick_cache` crate) bounded by entries or by weight (bytes), and an optional time to live.
//! A full cache evicts what is least likely to be asked for again, one entry at a time, instead
//! of starting afresh.

use quick_cache::{sync::Cache, Equivalent, Weighter};
use std::hash::Hash;
use std::time::{Duration, Instant};

/// A value and when it was stored.
#[derive(Clone)]
struct Entry<V> {
    value: V,
    at: Instant,
}

/// The weight of an entry: one, or what the cache's weigher says (at least one).
#[derive(Clone)]
struct Weigh<V>(Option<fn(&V) -> u64>);

impl<K, V> Weighter<K, Entry<V>> for Weigh<V> {
    fn weight(&self, _key: &K, entry: &Entry<V>) -> u64 {
        self.0.map_or(1, |weigh| weigh(&entry.value).max(1))
    }
}

/// A bounded cache; see the module.
pub struct Bounded<K, V> {
    inner: Cache<K, Entry<V>, Weigh<V>>,
    ttl: Option<Duration>,
}

impl<K: Eq + Hash + Clone, V: Clone> Bounded<K, V> {
    /// At most about `entries` entries.
    pub fn entries(entries: usize) -> Self {
        let n = entries.max(1);
        Self { inner: Cache::with_weighter(n, n as u64, Weigh(None)), ttl: None }
    }

    /// At most about `capacity` in weight (bytes, say), each entry weighing what `weigh` says;
    /// `estimated` is how many entries that usually makes.
    pub fn weighed(capacity: u64, estimated: usize, weigh: fn(&V) -> u64) -> Self {
        Self { inner: Cache::with_weighter(estimated.max(1), capacity.max(1), Weigh(Some(weigh))), ttl: None }
    }

    /// Entries older than `ttl` are not answered (and are dropped when asked for).
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    /// The value under `key` (or anything that compares equal to it: a `&str` for a `String`
    /// key, so that a lookup allocates nothing), if there is one still fresh.
    pub fn get<Q: Hash + Equivalent<K> + ?Sized>(&self, key: &Q) -> Option<V> {
        let entry = self.inner.get(key)?;
        if self.ttl.is_some_and(|ttl| entry.at.elapsed() >= ttl) {
            self.inner.remove(key);
            return None;
        }
        Some(entry.value)
    }

    /// Stores `value` under `key`, evicting others when the cache is full.
    pub fn insert(&self, key: K, value: V) {
        self.inner.insert(key, Entry { value, at: Instant::now() });
    }

    /// Forgets the value under `key`.
    pub fn remove<Q: Hash + Equivalent<K> + ?Sized>(&self, key: &Q) {
        self.inner.remove(key);
    }

    /// Keeps only the entries `keep` says yes to.
    pub fn retain(&self, keep: impl Fn(&K, &V) -> bool) {
        self.inner.retain(|k, e| keep(k, &e.value));
    }

    /// Forgets everything.
    pub fn clear(&self) {
        self.inner.clear();
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.inner.len() == 0
    }
}

impl<K: Eq + Hash + Clone, V: Clone> std::fmt::Debug for Bounded<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bounded").field("entries", &self.inner.len()).field("ttl", &self.ttl).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_cache_evicts_some_entries_not_all() {
        let cache = Bounded::entries(100);
        for k in 0..1_000u32 {
            cache.insert(k, k * 2);
        }
        assert!(cache.len() <= 110 && cache.len() >= 50, "{}", cache.len());
        // The newest survive.
        assert_eq!(cache.get(&999), Some(1_998));
        cache.retain(|k, _| k % 2 == 0);
        assert!(cache.get(&999).is_none());
        cache.clear();
        assert!(cache.is_empty());
    }

    #[test]
    fn weight_bounds_bytes_and_ttl_expires() {
        let cache: Bounded<u32, Vec<u8>> = Bounded::weighed(10_000, 10, |v| v.len() as u64);
        for k in 0..100 {
            cache.insert(k, vec![0u8; 1_000]);
        }
        assert!(cache.len() <= 11, "{} entries of 1,000 bytes in 10,000", cache.len());
        let fresh = Bounded::entries(10).with_ttl(Duration::from_millis(30));
        fresh.insert("k", 1);
        assert_eq!(fresh.get(&"k"), Some(1));
        std::thread::sleep(Duration::from_millis(40));
        assert_eq!(fresh.get(&"k"), None);
        assert!(fresh.is_empty());
    }
}
