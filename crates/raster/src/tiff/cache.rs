//! A cache of decoded chunks (COG tiles), shared by every reader that is given it and by every
//! thread, bounded in bytes, least recently used out first.
//!
//! Tiles of a map overlap the same source chunks: a 512-px chunk of an overview feeds several
//! 256-px map tiles at each zoom, and each style of the same tile again. Without a cache every
//! map tile decodes (inflates and un-predicts) each chunk it touches. Concurrent readers of a
//! chunk that is not cached yet wait for the first one to decode it rather than decoding it too.

use crate::Result;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// Which chunk: the reader's id (see [`BlockCache::next_source_id`]), the image level and the
/// chunk's index.
type Key = (u64, usize, usize);

/// One chunk's place in the cache; its value is set by the first reader that decodes it.
#[derive(Default)]
struct Slot {
    value: Mutex<Option<Arc<Vec<u8>>>>,
}

struct Entry {
    slot: Arc<Slot>,
    /// Position in the recency order.
    stamp: u64,
    /// Decoded bytes counted against the capacity (0 while the chunk is being decoded).
    bytes: usize,
}

#[derive(Default)]
struct Lru {
    entries: HashMap<Key, Entry>,
    order: BTreeMap<u64, Key>,
    clock: u64,
    bytes: usize,
}

impl Lru {
    fn touch(&mut self, key: Key) -> Option<Arc<Slot>> {
        self.clock += 1;
        let clock = self.clock;
        let e = self.entries.get_mut(&key)?;
        self.order.remove(&e.stamp);
        e.stamp = clock;
        self.order.insert(clock, key);
        Some(e.slot.clone())
    }

    fn insert(&mut self, key: Key) -> Arc<Slot> {
        self.clock += 1;
        let slot = Arc::new(Slot::default());
        self.entries.insert(key, Entry { slot: slot.clone(), stamp: self.clock, bytes: 0 });
        self.order.insert(self.clock, key);
        slot
    }

    fn evict_to(&mut self, capacity: usize) {
        while self.bytes > capacity {
            let Some((_, key)) = self.order.pop_first() else { break };
            if let Some(e) = self.entries.remove(&key) {
                self.bytes -= e.bytes;
            }
        }
    }
}

/// Decoded chunks, at most `capacity` bytes of them.
pub struct BlockCache {
    capacity: usize,
    lru: Mutex<Lru>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl std::fmt::Debug for BlockCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockCache").field("capacity", &self.capacity).field("stats", &self.stats()).finish()
    }
}

/// A snapshot of a cache's use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Chunks found decoded.
    pub hits: u64,
    /// Chunks decoded.
    pub misses: u64,
    /// Decoded bytes held now.
    pub bytes: usize,
    /// Chunks held now (or being decoded).
    pub entries: usize,
}

static NEXT_SOURCE: AtomicU64 = AtomicU64::new(1);

impl BlockCache {
    /// A cache holding at most `capacity` bytes of decoded chunks; 0 holds nothing (every read
    /// decodes, as without a cache).
    pub fn new(capacity: usize) -> Self {
        Self { capacity, lru: Mutex::new(Lru::default()), hits: AtomicU64::new(0), misses: AtomicU64::new(0) }
    }

    /// The capacity in bytes.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// What the cache holds and how often it answered.
    pub fn stats(&self) -> CacheStats {
        let lru = self.lock();
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            bytes: lru.bytes,
            entries: lru.entries.len(),
        }
    }

    /// A process-wide unique id for a reader's chunks.
    pub(crate) fn next_source_id() -> u64 {
        NEXT_SOURCE.fetch_add(1, Ordering::Relaxed)
    }

    fn lock(&self) -> MutexGuard<'_, Lru> {
        // The map stays consistent between statements, so a panic elsewhere leaves it usable.
        self.lru.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The decoded chunk `key`, from the cache or from `decode` (whose result is then kept).
    /// Errors are not kept: the next reader tries again.
    pub(crate) fn get_or_decode(&self, key: Key, decode: impl FnOnce() -> Result<Vec<u8>>) -> Result<Arc<Vec<u8>>> {
        if self.capacity == 0 {
            self.misses.fetch_add(1, Ordering::Relaxed);
            return decode().map(Arc::new);
        }
        let slot = {
            let mut lru = self.lock();
            match lru.touch(key) {
                Some(s) => s,
                None => lru.insert(key),
            }
        };
        // Held while decoding, so that concurrent readers of this chunk wait for it.
        let mut value = slot.value.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = value.as_ref() {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(v.clone());
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let v = match decode() {
            Ok(v) => Arc::new(v),
            Err(e) => {
                drop(value);
                // No empty entry stays behind for a chunk that does not decode.
                let mut lru = self.lock();
                if let Some(stamp) = lru.entries.get(&key).filter(|e| Arc::ptr_eq(&e.slot, &slot)).map(|e| e.stamp) {
                    lru.entries.remove(&key);
                    lru.order.remove(&stamp);
                }
                return Err(e);
            }
        };
        *value = Some(v.clone());
        drop(value);
        let mut lru = self.lock();
        // The entry may have been evicted (or replaced) meanwhile; count only our own.
        if let Some(e) = lru.entries.get_mut(&key).filter(|e| Arc::ptr_eq(&e.slot, &slot)) {
            let bytes = v.capacity();
            e.bytes = bytes;
            lru.bytes += bytes;
            lru.evict_to(self.capacity);
        }
        Ok(v)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn keeps_recent_chunks_within_the_capacity() {
        let cache = BlockCache::new(3000);
        let chunk = |n: u8| move || Ok(vec![n; 1000]);
        for k in 0..3 {
            cache.get_or_decode((1, 0, k), chunk(k as u8)).unwrap();
        }
        assert_eq!(cache.stats(), CacheStats { hits: 0, misses: 3, bytes: 3000, entries: 3 });
        // Chunk 0 used again: chunk 1 is now the least recently used, and goes for chunk 3.
        assert_eq!(cache.get_or_decode((1, 0, 0), || panic!("decoded again")).unwrap()[0], 0);
        cache.get_or_decode((1, 0, 3), chunk(3)).unwrap();
        let s = cache.stats();
        assert_eq!((s.hits, s.misses, s.bytes, s.entries), (1, 4, 3000, 3));
        assert_eq!(cache.get_or_decode((1, 0, 0), || panic!("decoded again")).unwrap()[0], 0);
        assert_eq!(cache.get_or_decode((1, 0, 1), chunk(9)).unwrap()[0], 9);
        // Another source's chunk of the same index is another chunk.
        assert_eq!(cache.get_or_decode((2, 0, 0), chunk(7)).unwrap()[0], 7);
        assert!(cache.stats().bytes <= 3000);
    }

    #[test]
    fn errors_are_not_kept_and_a_zero_capacity_keeps_nothing() {
        let cache = BlockCache::new(1 << 20);
        assert!(cache.get_or_decode((1, 0, 0), || Err(crate::Error::Cancelled)).is_err());
        assert_eq!(cache.stats().entries, 0);
        assert_eq!(cache.get_or_decode((1, 0, 0), || Ok(vec![5])).unwrap()[0], 5);
        let none = BlockCache::new(0);
        none.get_or_decode((1, 0, 0), || Ok(vec![5])).unwrap();
        assert_eq!(none.get_or_decode((1, 0, 0), || Ok(vec![6])).unwrap()[0], 6);
        assert_eq!(none.stats().entries, 0);
    }

    #[test]
    fn concurrent_readers_of_one_chunk_decode_it_once() {
        let cache = Arc::new(BlockCache::new(1 << 20));
        let decoded = Arc::new(AtomicU64::new(0));
        std::thread::scope(|s| {
            for _ in 0..8 {
                let (cache, decoded) = (cache.clone(), decoded.clone());
                s.spawn(move || {
                    cache
                        .get_or_decode((1, 2, 3), || {
                            decoded.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(20));
                            Ok(vec![1; 100])
                        })
                        .unwrap();
                });
            }
        });
        assert_eq!(decoded.load(Ordering::SeqCst), 1);
    }
}
