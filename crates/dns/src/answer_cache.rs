//! Answers rendered once per zone snapshot. A plain UDP query (one question of class IN, no
//! records but an OPT without options, no TSIG) is looked up by its lowercased name, type and
//! EDNS flags in a worker's cache of wire-format replies; a hit is the cached reply with the
//! query's id, RD and CD bits and question (its letter case) written over it, with no parsing
//! and no allocation. A miss is answered by the full path ([`crate::server::DnsServer`]) and its
//! reply kept. The cache is dropped whole when the served_zones changes (any zone swapped), and is
//! bounded in bytes.

use std::collections::HashMap;

/// Longest key: EDNS flags, query type, and a wire name of at most 255 bytes.
const MAX_KEY: usize = 3 + 255;

/// A query the cache can answer.
pub(crate) struct Cacheable {
    key: [u8; MAX_KEY],
    key_len: usize,
    /// Where the question ends in the query (and in its reply).
    question_end: usize,
    /// The largest reply the client takes over UDP.
    limit: usize,
}

impl Cacheable {
    fn key(&self) -> &[u8] {
        &self.key[..self.key_len]
    }

    /// Reads a query that the cache may answer: `None` for anything else (an update, TSIG, EDNS
    /// options, several questions, a compressed question name, a transfer, ...), which takes the
    /// full path.
    pub(crate) fn parse(msg: &[u8], max_udp_payload: u16) -> Option<Self> {
        // Header: a query (QR 0, opcode 0, AA 0, TC 0), Z 0 and RCODE 0; RD, AD and CD as they come.
        if msg.len() < 17 || msg[2] & 0xFE != 0 || msg[3] & 0x4F != 0 {
            return None;
        }
        // One question, no answer or authority records, at most one additional (the OPT).
        if msg[4..10] != [0, 1, 0, 0, 0, 0] || msg[10] != 0 || msg[11] > 1 {
            return None;
        }
        let mut key = [0u8; MAX_KEY];
        let mut k = 3;
        let mut i = 12;
        loop {
            let len = usize::from(*msg.get(i)?);
            if len == 0 {
                i += 1;
                break;
            }
            // Pointers and extended label types take the full path.
            if len > 63 || k + 1 + len > MAX_KEY - 1 {
                return None;
            }
            let label = msg.get(i + 1..i + 1 + len)?;
            key[k] = len as u8;
            for (d, s) in key[k + 1..k + 1 + len].iter_mut().zip(label) {
                *d = s.to_ascii_lowercase();
            }
            k += 1 + len;
            i += 1 + len;
        }
        key[k] = 0;
        k += 1;
        let qtype = msg.get(i..i + 2)?;
        if msg.get(i + 2..i + 4)? != [0, 1] {
            return None;
        }
        // OPT, TSIG, IXFR and AXFR are never answered from the cache.
        if matches!(u16::from_be_bytes([qtype[0], qtype[1]]), 41 | 250 | 251 | 252) {
            return None;
        }
        let question_end = i + 4;
        let (flags, limit) = if msg[11] == 1 {
            // An OPT record: root owner, type 41, version 0, no extended RCODE, no options, and
            // nothing after it.
            let opt = &msg[question_end..];
            if opt.len() != 11
                || opt[0] != 0
                || opt[1..3] != [0, 41]
                || opt[5] != 0
                || opt[6] != 0
                || opt[9..11] != [0, 0]
            {
                return None;
            }
            let payload = u16::from_be_bytes([opt[3], opt[4]]);
            let dnssec_ok = opt[7] & 0x80 != 0;
            (1 | (u8::from(dnssec_ok) << 1), usize::from(payload.clamp(512, max_udp_payload.max(512))))
        } else {
            if msg.len() != question_end {
                return None;
            }
            (0, 512)
        };
        key[0] = flags;
        key[1] = qtype[0];
        key[2] = qtype[1];
        Some(Self { key, key_len: k + 2, question_end, limit })
    }
}

/// One worker's replies for the current served_zones, by query.
pub struct AnswerCache {
    generation: u64,
    entries: HashMap<Box<[u8]>, Box<[u8]>>,
    bytes: usize,
    max_bytes: usize,
}

/// What an entry is counted as beyond its key and reply: the map's own slot and the two boxes.
const ENTRY_OVERHEAD: usize = 64;

impl AnswerCache {
    /// An empty cache that holds at most `max_bytes` (0: nothing is kept).
    pub fn new(max_bytes: usize) -> Self {
        Self { generation: 0, entries: HashMap::new(), bytes: 0, max_bytes }
    }

    /// Forgets every reply when the served_zones has changed since they were made.
    pub fn sync(&mut self, generation: u64) {
        if generation != self.generation {
            self.clear();
            self.generation = generation;
        }
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.bytes = 0;
    }

    /// How many replies are kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no reply is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Writes the reply to `query` into `out`, and returns its RCODE, when one is kept and fits
    /// the client's limit.
    pub(crate) fn answer(&self, q: &Cacheable, query: &[u8], out: &mut Vec<u8>) -> Option<u8> {
        let cached = self.entries.get(q.key())?;
        if cached.len() > q.limit {
            return None;
        }
        out.clear();
        out.extend_from_slice(cached);
        out[0..2].copy_from_slice(&query[0..2]);
        out[2] = (out[2] & !0x01) | (query[2] & 0x01);
        out[3] = (out[3] & !0x10) | (query[3] & 0x10);
        out[12..q.question_end].copy_from_slice(&query[12..q.question_end]);
        Some(out[3] & 0x0F)
    }

    /// Keeps `reply`, the full path's answer to `query`, unless it is truncated or does not
    /// repeat the question where the query has it. A full cache starts again empty.
    pub(crate) fn insert(&mut self, q: &Cacheable, query: &[u8], reply: &[u8]) {
        let end = q.question_end;
        if self.max_bytes == 0 || reply.len() < end || reply[2] & 0x02 != 0 || reply[4..6] != [0, 1] {
            return;
        }
        if !reply[12..end].eq_ignore_ascii_case(&query[12..end]) {
            return;
        }
        let size = q.key_len + reply.len() + ENTRY_OVERHEAD;
        if self.bytes + size > self.max_bytes {
            self.clear();
            if size > self.max_bytes {
                return;
            }
        }
        if self.entries.insert(q.key().into(), reply.into()).is_none() {
            self.bytes += size;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn query(name: &[&str], qtype: u16, opt: Option<(u16, bool)>) -> Vec<u8> {
        let mut m = vec![0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, u8::from(opt.is_some())];
        for l in name {
            m.push(l.len() as u8);
            m.extend(l.as_bytes());
        }
        m.push(0);
        m.extend(qtype.to_be_bytes());
        m.extend([0, 1]);
        if let Some((payload, dnssec_ok)) = opt {
            m.extend([0, 0, 41]);
            m.extend(payload.to_be_bytes());
            m.extend([0, 0, if dnssec_ok { 0x80 } else { 0 }, 0, 0, 0]);
        }
        m
    }

    /// A reply as the full path writes it: the query's header with QR and AA, its question, and
    /// an answer whose owner points at the question name.
    fn reply(q: &[u8], end: usize) -> Vec<u8> {
        let mut r = q[..end].to_vec();
        r[2] = 0x84 | (q[2] & 0x01);
        r[3] = 0;
        r[6..12].copy_from_slice(&[0, 1, 0, 0, 0, 0]);
        r.extend([0xC0, 12, 0, 1, 0, 1, 0, 0, 0x0E, 0x10, 0, 4, 192, 0, 2, 1]);
        r
    }

    #[test]
    fn the_same_name_in_any_case_is_one_entry_and_keeps_the_asker_s_letters() {
        let first = query(&["www", "Example", "org"], 1, None);
        let q = Cacheable::parse(&first, 1232).unwrap();
        let mut cache = AnswerCache::new(1 << 20);
        cache.insert(&q, &first, &reply(&first, q.question_end));
        assert_eq!(cache.len(), 1);

        let mut second = query(&["WWW", "example", "ORG"], 1, None);
        second[0..2].copy_from_slice(&[0xAB, 0xCD]);
        second[2] = 0x00; // RD off
        second[3] = 0x10; // CD on
        let q2 = Cacheable::parse(&second, 1232).unwrap();
        let mut out = Vec::new();
        assert_eq!(cache.answer(&q2, &second, &mut out), Some(0));
        assert_eq!(&out[0..2], &[0xAB, 0xCD]);
        assert_eq!(out[2], 0x84, "QR and AA kept, RD as asked");
        assert_eq!(out[3], 0x10, "CD as asked");
        assert_eq!(&out[12..q2.question_end], &second[12..q2.question_end]);
        assert_eq!(&out[q2.question_end..], &reply(&first, q.question_end)[q.question_end..]);
    }

    #[test]
    fn type_and_edns_flags_are_part_of_the_key() {
        let mut cache = AnswerCache::new(1 << 20);
        let a = query(&["a", "example"], 1, None);
        let qa = Cacheable::parse(&a, 1232).unwrap();
        cache.insert(&qa, &a, &reply(&a, qa.question_end));
        let mut out = Vec::new();
        for other in [query(&["a", "example"], 28, None), query(&["a", "example"], 1, Some((1232, false)))] {
            let q = Cacheable::parse(&other, 1232).unwrap();
            assert_eq!(cache.answer(&q, &other, &mut out), None);
        }
        let d = query(&["a", "example"], 1, Some((4096, true)));
        let qd = Cacheable::parse(&d, 1232).unwrap();
        assert_eq!(qd.limit, 1232);
        assert_eq!(qd.key()[0], 3);
    }

    #[test]
    fn a_reply_larger_than_the_client_takes_is_not_served() {
        let mut cache = AnswerCache::new(1 << 20);
        let a = query(&["a", "example"], 16, None);
        let q = Cacheable::parse(&a, 1232).unwrap();
        let mut big = reply(&a, q.question_end);
        big.resize(600, 0);
        cache.insert(&q, &a, &big);
        assert_eq!(cache.len(), 1);
        assert_eq!(cache.answer(&q, &a, &mut Vec::new()), None, "512 bytes without EDNS");
        let e = query(&["a", "example"], 16, Some((0, false)));
        let qe = Cacheable::parse(&e, 1232).unwrap();
        assert_eq!(qe.limit, 512, "a buffer below 512 counts as 512");
    }

    #[test]
    fn truncated_or_foreign_replies_are_not_kept() {
        let mut cache = AnswerCache::new(1 << 20);
        let a = query(&["a", "example"], 1, None);
        let q = Cacheable::parse(&a, 1232).unwrap();
        let mut tc = reply(&a, q.question_end);
        tc[2] |= 0x02;
        cache.insert(&q, &a, &tc);
        let formerr = a[..12].to_vec();
        cache.insert(&q, &a, &formerr);
        let other = query(&["b", "example"], 1, None);
        cache.insert(&q, &a, &reply(&other, q.question_end));
        assert_eq!(cache.len(), 0);
    }

    #[test]
    fn the_cache_is_bounded_and_follows_the_zones_served() {
        let mut cache = AnswerCache::new(1000);
        for i in 0..100 {
            let name = format!("host{i}");
            let a = query(&[&name, "example"], 1, None);
            let q = Cacheable::parse(&a, 1232).unwrap();
            cache.insert(&q, &a, &reply(&a, q.question_end));
            assert!(cache.bytes <= 1000);
        }
        assert!(!cache.is_empty());
        cache.sync(1);
        assert_eq!(cache.len(), 0);
        assert_eq!(AnswerCache::new(0).max_bytes, 0);
    }

    #[test]
    fn only_plain_queries_are_cacheable() {
        let plain = query(&["a", "example"], 1, None);
        assert!(Cacheable::parse(&plain, 1232).is_some());
        let mut update = plain.clone();
        update[2] = 5 << 3;
        let mut response = plain.clone();
        response[2] |= 0x80;
        let mut two = plain.clone();
        two[5] = 2;
        let mut chaos = plain.clone();
        let n = chaos.len();
        chaos[n - 1] = 3;
        let mut trailing = plain.clone();
        trailing.push(0);
        let mut compressed = plain.clone();
        compressed[12] = 0xC0;
        let mut with_option = query(&["a", "example"], 1, Some((1232, false)));
        let n = with_option.len();
        with_option[n - 1] = 4;
        with_option.extend([0, 10, 0, 0]);
        let mut edns1 = query(&["a", "example"], 1, Some((1232, false)));
        let n = edns1.len();
        edns1[n - 5] = 1;
        for (what, m) in [
            ("update", update),
            ("response", response),
            ("two questions", two),
            ("class CH", chaos),
            ("trailing bytes", trailing),
            ("compressed name", compressed),
            ("EDNS option", with_option),
            ("EDNS version 1", edns1),
            ("AXFR", query(&["example"], 252, None)),
            ("short", plain[..15].to_vec()),
        ] {
            assert!(Cacheable::parse(&m, 1232).is_none(), "{what}");
        }
        let long: Vec<String> = (0..5).map(|_| "x".repeat(63)).collect();
        let labels: Vec<&str> = long.iter().map(String::as_str).collect();
        assert!(Cacheable::parse(&query(&labels, 1, None), 1232).is_none(), "a name over 255 bytes");
    }
}
