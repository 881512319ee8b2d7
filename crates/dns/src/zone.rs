//! A zone as the server answers from it: an immutable snapshot built from the store's records,
//! with the server's SOA and apex NS, and (when the zone is signed) DNSKEY, NSEC and RRSIG
//! records. [`ZoneData::answer`] is the authoritative lookup of RFC 1034 section 4.3.2 with
//! RFC 2308 negative answers, RFC 4592 wildcards, referrals and RFC 4035 proofs.

use crate::dnssec::{self, types, ZoneKey};
use crate::name;
use crate::record::{RData, ValidRecord};
use hickory_proto::op::ResponseCode;
use hickory_proto::rr::rdata::{A, AAAA, CNAME, MX, NS, NULL, PTR, SOA, SRV, TXT};
use hickory_proto::rr::{Name, RData as WireData, Record, RecordType};
use meridian_core::config::DnsConfig;
use meridian_core::id::{AccountId, ZoneId};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::Bound;
use std::sync::Arc;

/// Canonical-order key of a name: its labels from the root down.
type Key = Vec<Vec<u8>>;

/// Longest CNAME chain followed inside a zone.
const MAX_CHAIN: usize = 8;

/// The records of one name and type.
#[derive(Clone, Debug)]
pub struct RRset {
    pub ttl: u32,
    pub records: Vec<Record>,
    pub sigs: Vec<Record>,
    /// Canonical wire form of each record's data, for signing.
    wire: Vec<Vec<u8>>,
    /// Targets for additional-section processing.
    targets: Vec<String>,
}

/// Everything at one name.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    pub rrsets: BTreeMap<u16, RRset>,
    /// A delegation point: NS records below the apex.
    pub cut: bool,
    /// Below a delegation point: glue, not authoritative.
    pub occluded: bool,
}

/// A cached signature: key tag, digest of the signed RRset, RRSIG data, expiration.
type CachedSig = (u16, [u8; 32], Vec<u8>, u32);

/// Cached signatures of a zone, so that a change re-signs only the RRsets it touched.
#[derive(Debug, Default)]
pub struct SigCache {
    entries: HashMap<(String, u16), CachedSig>,
}

/// What a zone snapshot is built from.
pub struct ZoneSource<'a> {
    pub id: ZoneId,
    pub account_id: AccountId,
    pub name: String,
    pub serial: u32,
    pub records: Vec<ValidRecord>,
    pub keys: Vec<ZoneKey>,
    pub config: &'a DnsConfig,
}

/// The outcome of a lookup.
#[derive(Debug)]
pub struct Answer {
    pub rcode: ResponseCode,
    pub authoritative: bool,
    pub answers: Vec<Record>,
    pub authorities: Vec<Record>,
    pub additionals: Vec<Record>,
}

/// One zone, ready to answer.
#[derive(Debug)]
pub struct ZoneData {
    pub id: ZoneId,
    pub account_id: AccountId,
    pub name: String,
    pub serial: u32,
    pub signed: bool,
    /// Shared between snapshots: a change of a few names copies only their nodes.
    nodes: BTreeMap<Key, Arc<Node>>,
    soa_negative: RRset,
    /// Earliest signature expiration, when signed.
    pub earliest_expiration: Option<u32>,
}

/// A name for the wire, from the stored form.
pub fn wire_name(n: &str) -> Name {
    Name::from_ascii(format!("{n}.")).unwrap_or_else(|_| Name::root())
}

fn wire_data(data: &RData) -> WireData {
    match data {
        RData::A(a) => WireData::A(A(*a)),
        RData::AAAA(a) => WireData::AAAA(AAAA(*a)),
        RData::CNAME(n) => WireData::CNAME(CNAME(wire_name(n))),
        RData::NS(n) => WireData::NS(NS(wire_name(n))),
        RData::PTR(n) => WireData::PTR(PTR(wire_name(n))),
        RData::MX { priority, exchange } => WireData::MX(MX::new(*priority, wire_name(exchange))),
        RData::SRV { priority, weight, port, target } => {
            WireData::SRV(SRV::new(*priority, *weight, *port, wire_name(target)))
        }
        RData::TXT(t) => WireData::TXT(TXT::from_bytes(t.iter().map(Vec::as_slice).collect())),
        RData::CAA { .. } => {
            let mut wire = Vec::new();
            data.to_wire(&mut wire);
            WireData::Unknown { code: RecordType::CAA, rdata: NULL::with(wire) }
        }
    }
}

fn raw(code: u16, bytes: Vec<u8>) -> WireData {
    WireData::Unknown { code: RecordType::from(code), rdata: NULL::with(bytes) }
}

/// Adds a record to its name's node and type's RRset (an exact duplicate is dropped).
fn add_record(
    nodes: &mut BTreeMap<Key, Node>,
    owner: &str,
    rtype: u16,
    ttl: u32,
    data: WireData,
    wire: Vec<u8>,
    target: Option<&str>,
) {
    let node = nodes.entry(name::canonical_key(owner)).or_insert_with(|| Node {
        name: owner.to_owned(),
        rrsets: BTreeMap::new(),
        cut: false,
        occluded: false,
    });
    let set = node.rrsets.entry(rtype).or_insert_with(|| RRset {
        ttl,
        records: Vec::new(),
        sigs: Vec::new(),
        wire: Vec::new(),
        targets: Vec::new(),
    });
    if set.wire.contains(&wire) {
        return;
    }
    set.ttl = set.ttl.min(ttl);
    set.records.push(Record::from_rdata(wire_name(owner), ttl, data));
    set.wire.push(wire);
    if let Some(t) = target {
        set.targets.push(t.to_owned());
    }
}

impl Node {
    /// Gives every record of each RRset the set's smallest TTL (RFC 2181 section 5.2).
    fn settle_ttls(&mut self) {
        for set in self.rrsets.values_mut() {
            for r in &mut set.records {
                r.ttl = set.ttl;
            }
        }
    }
}

fn soa_wire(zone: &str, serial: u32, config: &DnsConfig) -> (WireData, Vec<u8>) {
    let soa = &config.soa;
    let mname = config.nameservers.first().map(String::as_str).unwrap_or("localhost").trim_end_matches('.');
    let rname = soa.rname.trim_end_matches('.');
    let data = WireData::SOA(SOA::new(
        wire_name(mname),
        wire_name(rname),
        serial,
        soa.refresh as i32,
        soa.retry as i32,
        soa.expire as i32,
        soa.minimum,
    ));
    let mut wire = Vec::new();
    name::to_wire(mname, &mut wire);
    name::to_wire(rname, &mut wire);
    for v in [serial, soa.refresh, soa.retry, soa.expire, soa.minimum] {
        wire.extend(v.to_be_bytes());
    }
    let _ = zone;
    (data, wire)
}

impl ZoneData {
    /// Builds the snapshot, signing it when the source has keys. `now` is seconds since the epoch.
    pub fn build(src: ZoneSource<'_>, cache: &mut SigCache, now: u64) -> Self {
        let config = src.config;
        let apex = src.name.clone();
        let mut nodes: BTreeMap<Key, Node> = BTreeMap::new();
        let mut add = |owner: &str, rtype: u16, ttl: u32, data: WireData, wire: Vec<u8>, target: Option<&str>| {
            add_record(&mut nodes, owner, rtype, ttl, data, wire, target)
        };
        let soa_ttl = config.soa.ttl;
        let (soa, soa_bytes) = soa_wire(&apex, src.serial, config);
        add(&apex, types::SOA, soa_ttl, soa, soa_bytes, None);
        for ns in &config.nameservers {
            let ns = ns.trim_end_matches('.').to_ascii_lowercase();
            let mut wire = Vec::new();
            name::to_wire(&ns, &mut wire);
            add(&apex, types::NS, soa_ttl, WireData::NS(NS(wire_name(&ns))), wire, Some(&ns));
        }
        for r in &src.records {
            let mut wire = Vec::new();
            r.data.to_wire(&mut wire);
            add(&r.name, r.data.rtype().code(), r.ttl, wire_data(&r.data), wire, r.data.target());
        }
        for key in &src.keys {
            add(&apex, types::DNSKEY, soa_ttl, raw(types::DNSKEY, key.dnskey_rdata()), key.dnskey_rdata(), None);
        }
        for node in nodes.values_mut() {
            node.settle_ttls();
        }
        let apex_key = name::canonical_key(&apex);
        let cuts: HashSet<Key> = nodes
            .iter()
            .filter(|(k, n)| **k != apex_key && n.rrsets.contains_key(&types::NS))
            .map(|(k, _)| k.clone())
            .collect();
        for (key, node) in nodes.iter_mut() {
            node.cut = cuts.contains(key);
            node.occluded = (apex_key.len() + 1..key.len()).any(|len| cuts.contains(&key[..len]));
        }
        let negative_ttl = soa_ttl.min(config.soa.minimum);
        let signed = !src.keys.is_empty();
        let mut earliest_expiration = None;
        if signed {
            let chain: Vec<Key> = nodes.iter().filter(|(_, n)| !n.occluded).map(|(k, _)| k.clone()).collect();
            for (i, key) in chain.iter().enumerate() {
                let next = nodes[&chain[(i + 1) % chain.len()]].name.clone();
                let node = nodes.get_mut(key).map(|n| (n.name.clone(), n.rrsets.keys().copied().collect::<Vec<_>>()));
                let Some((owner, mut present)) = node else { continue };
                present.extend([types::NSEC, types::RRSIG]);
                let rdata = dnssec::nsec_rdata(&next, &present);
                if let Some(n) = nodes.get_mut(key) {
                    n.rrsets.insert(
                        types::NSEC,
                        RRset {
                            ttl: negative_ttl,
                            records: vec![Record::from_rdata(
                                wire_name(&owner),
                                negative_ttl,
                                raw(types::NSEC, rdata.clone()),
                            )],
                            sigs: Vec::new(),
                            wire: vec![rdata],
                            targets: Vec::new(),
                        },
                    );
                }
            }
            let validity = config.signature_validity.as_secs();
            let refresh = config.signature_refresh.as_secs();
            let inception = now.saturating_sub(3600) as u32;
            let expiration = (now + validity) as u32;
            let mut seen = HashSet::new();
            for node in nodes.values_mut().filter(|n| !n.occluded) {
                for (&rtype, set) in node.rrsets.iter_mut() {
                    if node.cut && rtype != types::NSEC && rtype != types::DS {
                        continue;
                    }
                    let mut hasher = Sha256::new();
                    hasher.update(set.ttl.to_be_bytes());
                    let mut sorted = set.wire.clone();
                    sorted.sort();
                    for w in &sorted {
                        hasher.update((w.len() as u16).to_be_bytes());
                        hasher.update(w);
                    }
                    let digest: [u8; 32] = hasher.finalize().into();
                    let cache_key = (node.name.clone(), rtype);
                    seen.insert(cache_key.clone());
                    let mut sigs = Vec::new();
                    for key in &src.keys {
                        let tag = key.key_tag();
                        let cached = cache
                            .entries
                            .get(&cache_key)
                            .filter(|(t, d, _, exp)| *t == tag && *d == digest && u64::from(*exp) > now + refresh);
                        let (rrsig, exp) = match cached {
                            Some((_, _, sig, exp)) => (sig.clone(), *exp),
                            None => {
                                let sig = key.sign(&apex, &node.name, rtype, set.ttl, &set.wire, inception, expiration);
                                cache.entries.insert(cache_key.clone(), (tag, digest, sig.clone(), expiration));
                                (sig, expiration)
                            }
                        };
                        earliest_expiration = Some(earliest_expiration.map_or(exp, |e: u32| e.min(exp)));
                        sigs.push(Record::from_rdata(wire_name(&node.name), set.ttl, raw(types::RRSIG, rrsig)));
                    }
                    set.sigs = sigs;
                }
            }
            cache.entries.retain(|k, _| seen.contains(k));
        } else {
            cache.entries.clear();
        }
        let soa_set = &nodes[&apex_key].rrsets[&types::SOA];
        let mut soa_negative = soa_set.clone();
        for r in soa_negative.records.iter_mut().chain(soa_negative.sigs.iter_mut()) {
            r.ttl = negative_ttl;
        }
        Self {
            id: src.id,
            account_id: src.account_id,
            name: apex,
            serial: src.serial,
            signed,
            nodes: nodes.into_iter().map(|(k, n)| (k, Arc::new(n))).collect(),
            soa_negative,
            earliest_expiration,
        }
    }

    /// The snapshot at `serial` after the records at `names` changed, `records` being every record
    /// those names hold now: their nodes are made again and every other node is shared with
    /// `self`. `None` when the zone must be built whole instead: it is signed (the NSEC chain and
    /// signatures span names), or the change touches the apex or a delegation (NS below the apex
    /// decides what is authoritative beneath it).
    pub fn with_names_changed(
        &self,
        serial: u32,
        names: &[String],
        records: &[ValidRecord],
        config: &DnsConfig,
    ) -> Option<Self> {
        if self.signed {
            return None;
        }
        let apex_key = name::canonical_key(&self.name);
        let mut nodes = self.nodes.clone();
        let mut keys = HashSet::new();
        for n in names {
            let key = name::canonical_key(n);
            if key == apex_key || key.len() <= apex_key.len() || !key.starts_with(&apex_key) {
                return None;
            }
            if nodes.remove(&key).is_some_and(|old| old.cut || old.rrsets.contains_key(&types::NS)) {
                return None;
            }
            keys.insert(key);
        }
        let mut fresh: BTreeMap<Key, Node> = BTreeMap::new();
        for r in records.iter().filter(|r| keys.contains(&name::canonical_key(&r.name))) {
            let rtype = r.data.rtype().code();
            if rtype == types::NS {
                return None;
            }
            let mut wire = Vec::new();
            r.data.to_wire(&mut wire);
            add_record(&mut fresh, &r.name, rtype, r.ttl, wire_data(&r.data), wire, r.data.target());
        }
        for (key, mut node) in fresh {
            node.settle_ttls();
            node.occluded = (apex_key.len() + 1..key.len()).any(|len| nodes.get(&key[..len]).is_some_and(|n| n.cut));
            nodes.insert(key, Arc::new(node));
        }
        let soa_ttl = config.soa.ttl;
        let negative_ttl = soa_ttl.min(config.soa.minimum);
        let (soa, soa_bytes) = soa_wire(&self.name, serial, config);
        let soa_set = RRset {
            ttl: soa_ttl,
            records: vec![Record::from_rdata(wire_name(&self.name), soa_ttl, soa)],
            sigs: Vec::new(),
            wire: vec![soa_bytes],
            targets: Vec::new(),
        };
        let mut soa_negative = soa_set.clone();
        for r in &mut soa_negative.records {
            r.ttl = negative_ttl;
        }
        let mut apex = Node::clone(nodes.get(&apex_key)?);
        apex.rrsets.insert(types::SOA, soa_set);
        nodes.insert(apex_key, Arc::new(apex));
        Some(Self {
            id: self.id.clone(),
            account_id: self.account_id.clone(),
            name: self.name.clone(),
            serial,
            signed: false,
            nodes,
            soa_negative,
            earliest_expiration: None,
        })
    }

    /// Every record in transfer order: SOA first, then every other record of every name (glue
    /// included), without the closing SOA.
    pub fn transfer_records(&self) -> Vec<Record> {
        let apex = &self.nodes[&name::canonical_key(&self.name)];
        let mut out: Vec<Record> = apex.rrsets[&types::SOA].records.clone();
        out.extend(apex.rrsets[&types::SOA].sigs.iter().cloned());
        for node in self.nodes.values() {
            for (&rtype, set) in &node.rrsets {
                if node.name == self.name && rtype == types::SOA {
                    continue;
                }
                out.extend(set.records.iter().cloned());
                out.extend(set.sigs.iter().cloned());
            }
        }
        out
    }

    /// The SOA record (for NOTIFY, transfers and IXFR fallbacks).
    pub fn soa(&self) -> Record {
        self.nodes[&name::canonical_key(&self.name)].rrsets[&types::SOA].records[0].clone()
    }

    fn node(&self, n: &str) -> Option<&Node> {
        self.nodes.get(&name::canonical_key(n)).map(Arc::as_ref)
    }

    /// Whether some name below `n` holds records (`n` is then an empty non-terminal when it has none).
    fn has_descendants(&self, n: &str) -> bool {
        let key = name::canonical_key(n);
        self.nodes
            .range((Bound::Excluded(key.clone()), Bound::Unbounded))
            .next()
            .is_some_and(|(k, _)| k.len() > key.len() && k.starts_with(&key))
    }

    fn exists(&self, n: &str) -> bool {
        self.node(n).is_some() || self.has_descendants(n)
    }

    /// The NSEC record (with its signatures) whose span covers the name `n`, which does not exist.
    fn covering_nsec(&self, n: &str) -> Vec<Record> {
        let key = name::canonical_key(n);
        self.nodes
            .range(..key)
            .rev()
            .find(|(_, node)| !node.occluded)
            .and_then(|(_, node)| node.rrsets.get(&types::NSEC))
            .map(|set| set.records.iter().chain(&set.sigs).cloned().collect())
            .unwrap_or_default()
    }

    fn nsec_at(&self, node: &Node) -> Vec<Record> {
        node.rrsets
            .get(&types::NSEC)
            .map(|set| set.records.iter().chain(&set.sigs).cloned().collect())
            .unwrap_or_default()
    }

    /// The highest delegation point at or above `n`, below the apex.
    fn cut_above(&self, n: &str) -> Option<&Node> {
        let mut ancestors = Vec::new();
        let mut cur = n;
        while cur != self.name {
            ancestors.push(cur);
            cur = name::parent(cur)?;
        }
        ancestors.iter().rev().filter_map(|a| self.node(a)).find(|node| node.cut)
    }

    fn push_set(out: &mut Vec<Record>, set: &RRset, dnssec: bool, owner: Option<&Name>) {
        for r in set.records.iter().chain(if dnssec { set.sigs.iter() } else { [].iter() }) {
            let mut r = r.clone();
            if let Some(o) = owner {
                r.name = o.clone();
            }
            out.push(r);
        }
    }

    /// A and AAAA records of in-zone targets (glue included), for the additional section.
    fn additional_for(&self, targets: &[String], dnssec: bool, out: &mut Vec<Record>) {
        for t in targets {
            if !name::in_zone(t, &self.name) {
                continue;
            }
            if let Some(node) = self.node(t) {
                for rtype in [1u16, 28] {
                    if let Some(set) = node.rrsets.get(&rtype) {
                        Self::push_set(out, set, dnssec && !node.occluded, None);
                    }
                }
            }
        }
    }

    fn negative(&self, answer: &mut Answer, dnssec: bool) {
        Self::push_set(&mut answer.authorities, &self.soa_negative, dnssec, None);
    }

    /// Answers `qname` (lowercase, no trailing dot, inside this zone) for `qtype`. With `dnssec`
    /// (the DO bit) and a signed zone, signatures and denial proofs are included.
    pub fn answer(&self, qname: &str, qtype: RecordType, dnssec: bool) -> Answer {
        let dnssec = dnssec && self.signed;
        let mut answer = Answer {
            rcode: ResponseCode::NoError,
            authoritative: true,
            answers: Vec::new(),
            authorities: Vec::new(),
            additionals: Vec::new(),
        };
        let qcode = u16::from(qtype);
        let mut current = qname.to_owned();
        let mut proofs: Vec<Record> = Vec::new();
        let mut visited: Vec<String> = Vec::new();
        for _ in 0..MAX_CHAIN {
            if visited.contains(&current) {
                // A CNAME loop: what was gathered is the answer.
                return answer;
            }
            visited.push(current.clone());
            if let Some(cut) = self.cut_above(&current) {
                if !(cut.name == current && qcode == types::DS) {
                    if answer.answers.is_empty() {
                        answer.authoritative = false;
                        let ns = &cut.rrsets[&types::NS];
                        Self::push_set(&mut answer.authorities, ns, false, None);
                        if dnssec {
                            match cut.rrsets.get(&types::DS) {
                                Some(ds) => Self::push_set(&mut answer.authorities, ds, true, None),
                                None => answer.authorities.extend(self.nsec_at(cut)),
                            }
                        }
                        self.additional_for(&ns.targets, false, &mut answer.additionals);
                    }
                    return answer;
                }
            }
            // The name itself, or the wildcard that stands for it.
            let (node, synthesized) = match self.node(&current) {
                Some(node) => (node, false),
                None if self.has_descendants(&current) => {
                    // An empty non-terminal: the name exists but has no data.
                    self.negative(&mut answer, dnssec);
                    if dnssec {
                        answer.authorities.extend(self.covering_nsec(&current));
                    }
                    return answer;
                }
                None => {
                    let mut encloser = name::parent(&current).unwrap_or(&self.name);
                    while encloser != self.name && !self.exists(encloser) {
                        encloser = name::parent(encloser).unwrap_or(&self.name);
                    }
                    let wildcard = format!("*.{encloser}");
                    match self.node(&wildcard) {
                        Some(node) if !node.occluded => {
                            if dnssec {
                                // Proof that no closer name matched (RFC 4035 section 3.1.3.3).
                                proofs.extend(self.covering_nsec(&current));
                            }
                            (node, true)
                        }
                        _ => {
                            answer.rcode = ResponseCode::NXDomain;
                            self.negative(&mut answer, dnssec);
                            if dnssec {
                                let mut nsecs = self.covering_nsec(&current);
                                for r in self.covering_nsec(&wildcard) {
                                    if !nsecs.contains(&r) {
                                        nsecs.push(r);
                                    }
                                }
                                answer.authorities.extend(nsecs);
                            }
                            return answer;
                        }
                    }
                }
            };
            let owner = synthesized.then(|| wire_name(&current));
            if qtype == RecordType::ANY {
                // RFC 8482: one RRset is enough.
                if let Some(set) = node.rrsets.iter().find(|(t, _)| **t != types::NSEC).map(|(_, s)| s) {
                    Self::push_set(&mut answer.answers, set, dnssec, owner.as_ref());
                }
                answer.authorities.extend(proofs);
                return answer;
            }
            if let Some(set) = node.rrsets.get(&qcode) {
                Self::push_set(&mut answer.answers, set, dnssec, owner.as_ref());
                self.additional_for(&set.targets, dnssec, &mut answer.additionals);
                answer.authorities.extend(proofs);
                return answer;
            }
            if let Some(cname) = node.rrsets.get(&(u16::from(RecordType::CNAME))) {
                Self::push_set(&mut answer.answers, cname, dnssec, owner.as_ref());
                answer.authorities.append(&mut proofs);
                let target = match &cname.records[0].data {
                    WireData::CNAME(t) => t.0.to_ascii().trim_end_matches('.').to_ascii_lowercase(),
                    _ => return answer,
                };
                if !name::in_zone(&target, &self.name) {
                    return answer;
                }
                current = target;
                continue;
            }
            // NODATA (RFC 2308 section 2.2).
            self.negative(&mut answer, dnssec);
            if dnssec {
                answer.authorities.extend(self.nsec_at(node));
                answer.authorities.extend(proofs);
            }
            return answer;
        }
        answer
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::record::{validate, RecordInput};

    fn zone(records: &[(&str, &str, &str)], signed: bool) -> ZoneData {
        let config = Box::leak(Box::new(DnsConfig::default()));
        let records = records
            .iter()
            .map(|(t, n, c)| {
                let mut i = RecordInput {
                    rtype: Some((*t).into()),
                    name: Some((*n).into()),
                    content: Some((*c).into()),
                    ..Default::default()
                };
                if *t == "MX" {
                    i.priority = Some(10);
                }
                validate(&i, "example.com", "").unwrap()
            })
            .collect();
        let keys = if signed { vec![ZoneKey::generate().0] } else { Vec::new() };
        let src = ZoneSource {
            id: ZoneId::generate(),
            account_id: AccountId::generate(),
            name: "example.com".into(),
            serial: 42,
            records,
            keys,
            config,
        };
        ZoneData::build(src, &mut SigCache::default(), 1_800_000_000)
    }

    fn types_of(records: &[Record]) -> Vec<RecordType> {
        records.iter().map(|r| r.record_type()).collect()
    }

    fn sample(signed: bool) -> ZoneData {
        zone(
            &[
                ("A", "www", "192.0.2.1"),
                ("CNAME", "alias", "www.example.com"),
                ("CNAME", "outside", "www.example.net"),
                ("A", "*.dev", "192.0.2.7"),
                ("TXT", "a.b.c", "deep"),
                ("NS", "sub", "ns.sub.example.com"),
                ("A", "ns.sub", "192.0.2.53"),
                ("MX", "@", "mail.example.com"),
                ("A", "mail", "192.0.2.25"),
            ],
            signed,
        )
    }

    #[test]
    fn exact_nodata_and_nxdomain() {
        let z = sample(false);
        let a = z.answer("www.example.com", RecordType::A, false);
        assert_eq!((a.rcode, a.authoritative, a.answers.len()), (ResponseCode::NoError, true, 1));
        let a = z.answer("www.example.com", RecordType::AAAA, false);
        assert_eq!(a.rcode, ResponseCode::NoError);
        assert!(a.answers.is_empty());
        assert_eq!(types_of(&a.authorities), vec![RecordType::SOA]);
        assert_eq!(a.authorities[0].ttl, 300, "negative TTL is min(SOA TTL, minimum)");
        let a = z.answer("nope.example.com", RecordType::A, false);
        assert_eq!(a.rcode, ResponseCode::NXDomain);
        assert_eq!(types_of(&a.authorities), vec![RecordType::SOA]);
        // b.c.example.com holds nothing but has a name below it: NODATA, not NXDOMAIN.
        let a = z.answer("b.c.example.com", RecordType::A, false);
        assert_eq!(a.rcode, ResponseCode::NoError);
        assert!(a.answers.is_empty());
    }

    #[test]
    fn cname_chains_wildcards_and_referrals() {
        let z = sample(false);
        let a = z.answer("alias.example.com", RecordType::A, false);
        assert_eq!(types_of(&a.answers), vec![RecordType::CNAME, RecordType::A]);
        let a = z.answer("outside.example.com", RecordType::A, false);
        assert_eq!(types_of(&a.answers), vec![RecordType::CNAME]);
        let a = z.answer("x.dev.example.com", RecordType::A, false);
        assert_eq!(a.answers.len(), 1);
        assert_eq!(a.answers[0].name.to_ascii(), "x.dev.example.com.");
        // The wildcard does not match below an existing name, nor the name that exists.
        let a = z.answer("dev.example.com", RecordType::A, false);
        assert_eq!(a.rcode, ResponseCode::NoError);
        assert!(a.answers.is_empty());
        let a = z.answer("host.sub.example.com", RecordType::A, false);
        assert!(!a.authoritative);
        assert_eq!(types_of(&a.authorities), vec![RecordType::NS]);
        assert_eq!(types_of(&a.additionals), vec![RecordType::A], "glue");
        let a = z.answer("example.com", RecordType::MX, false);
        assert_eq!(types_of(&a.additionals), vec![RecordType::A]);
        let a = z.answer("example.com", RecordType::ANY, false);
        assert_eq!(a.answers.len(), 2, "one RRset: the two apex NS");
    }

    #[test]
    fn cname_loops_stop() {
        let z = zone(&[("CNAME", "a", "b.example.com"), ("CNAME", "b", "a.example.com")], false);
        let a = z.answer("a.example.com", RecordType::A, false);
        assert_eq!(types_of(&a.answers), vec![RecordType::CNAME, RecordType::CNAME]);
    }

    #[test]
    fn signed_answers_carry_signatures_and_proofs() {
        let z = sample(true);
        let a = z.answer("www.example.com", RecordType::A, true);
        assert_eq!(types_of(&a.answers), vec![RecordType::A, RecordType::RRSIG]);
        let a = z.answer("www.example.com", RecordType::A, false);
        assert_eq!(types_of(&a.answers), vec![RecordType::A]);
        let a = z.answer("nope.example.com", RecordType::A, true);
        let t = types_of(&a.authorities);
        assert_eq!(t.iter().filter(|t| **t == RecordType::NSEC).count(), 2, "{t:?}");
        assert_eq!(t.iter().filter(|t| **t == RecordType::RRSIG).count(), 3, "{t:?}");
        let a = z.answer("www.example.com", RecordType::TXT, true);
        assert_eq!(
            types_of(&a.authorities),
            vec![RecordType::SOA, RecordType::RRSIG, RecordType::NSEC, RecordType::RRSIG]
        );
        let a = z.answer("example.com", RecordType::DNSKEY, true);
        assert_eq!(types_of(&a.answers), vec![RecordType::DNSKEY, RecordType::RRSIG]);
        let a = z.answer("x.dev.example.com", RecordType::A, true);
        assert_eq!(types_of(&a.answers), vec![RecordType::A, RecordType::RRSIG]);
        assert_eq!(types_of(&a.authorities), vec![RecordType::NSEC, RecordType::RRSIG]);
        let a = z.answer("host.sub.example.com", RecordType::A, true);
        assert_eq!(types_of(&a.authorities), vec![RecordType::NS, RecordType::NSEC, RecordType::RRSIG]);
    }

    #[test]
    fn unchanged_rrsets_keep_their_signatures() {
        let config = DnsConfig::default();
        let key = ZoneKey::generate().0;
        let mut cache = SigCache::default();
        let make = |records: Vec<ValidRecord>, cache: &mut SigCache| {
            let src = ZoneSource {
                id: ZoneId("zone_x".into()),
                account_id: AccountId("acct_x".into()),
                name: "example.com".into(),
                serial: 1,
                records,
                keys: vec![key.clone()],
                config: &config,
            };
            ZoneData::build(src, cache, 1_800_000_000)
        };
        let rec = |n: &str| {
            let i = RecordInput {
                rtype: Some("A".into()),
                name: Some(n.into()),
                content: Some("192.0.2.1".into()),
                ..Default::default()
            };
            validate(&i, "example.com", "").unwrap()
        };
        let first = make(vec![rec("a")], &mut cache);
        let second = make(vec![rec("a"), rec("b")], &mut cache);
        let sig = |z: &ZoneData| z.answer("a.example.com", RecordType::A, true).answers[1].clone();
        assert_eq!(sig(&first), sig(&second));
        // Eight days on, less than the 7-day refresh margin is left: everything is signed anew.
        let src = ZoneSource {
            id: ZoneId("zone_x".into()),
            account_id: AccountId("acct_x".into()),
            name: "example.com".into(),
            serial: 1,
            records: vec![rec("a"), rec("b")],
            keys: vec![key.clone()],
            config: &config,
        };
        let later = ZoneData::build(src, &mut cache, 1_800_000_000 + 8 * 86_400);
        assert_ne!(sig(&later), sig(&second));
        assert_eq!(later.earliest_expiration, Some(1_800_000_000 + 22 * 86_400));
        assert_eq!(second.earliest_expiration, Some(1_800_000_000 + 14 * 86_400));
    }
}
