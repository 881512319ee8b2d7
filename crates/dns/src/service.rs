//! The DNS write path shared by the HTTP API and RFC 2136 dynamic updates: it validates, applies
//! the zone rules, builds the events and commits them with the change in one transaction.

use crate::dnssec::{Ds, ZoneKey, ALGORITHM, CSK_FLAGS};
use crate::name;
use crate::record::{self, validate, RecordInput, RecordType, ValidRecord};
use crate::zonefile::{self, Apex};
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use meridian_core::config::DnsConfig;
use meridian_core::error::FieldError;
use meridian_core::event::{Event, NewEvent};
use meridian_core::id::{AccountId, DnsKeyId, RecordId, ZoneId};
use meridian_core::page::Page;
use meridian_core::{DomainError, Timestamp};
use meridian_store::dns::{ChangeSet, DnsKey, Record, RecordFilter, Zone};
use meridian_store::repo::EventFilter;
use meridian_store::{Store, StoreError};
use serde_json::{json, Map, Value};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Result of the service.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Most operations in one batch.
pub const MAX_BATCH: usize = 1000;

/// An update inside a batch: the record's id and the fields to change.
#[derive(Clone, Debug, Default)]
pub struct BatchUpdate {
    pub id: String,
    pub fields: RecordInput,
}

/// Creates, updates and deletes applied all-or-nothing.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    pub creates: Vec<RecordInput>,
    pub updates: Vec<BatchUpdate>,
    pub deletes: Vec<String>,
}

/// What a batch did.
#[derive(Clone, Debug)]
pub struct BatchOutcome {
    pub zone: Zone,
    pub created: Vec<Record>,
    pub updated: Vec<Record>,
    pub deleted: Vec<RecordId>,
}

/// A master-file line that was not imported, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub line: usize,
    pub name: Option<String>,
    pub rtype: Option<String>,
    pub reason: String,
}

/// What an import did.
#[derive(Clone, Debug)]
pub struct ImportOutcome {
    pub zone: Zone,
    pub added: Vec<Record>,
    pub skipped: Vec<Skipped>,
}

/// A zone's DNSSEC state: its keys and the DS records for the parent zone.
#[derive(Clone, Debug)]
pub struct DnssecState {
    pub zone: Zone,
    pub keys: Vec<(ZoneKey, Ds)>,
}

impl DnssecState {
    /// The DNSKEY record in master-file form.
    pub fn dnskey_line(&self, key: &ZoneKey, ttl: u32) -> String {
        format!("{}. {ttl} IN DNSKEY {}", self.zone.name, key.dnskey_presentation())
    }

    /// The DS record in master-file form.
    pub fn ds_line(&self, ds: &Ds) -> String {
        format!("{}. IN DS {} {} {} {}", self.zone.name, ds.key_tag, ds.algorithm, ds.digest_type, ds.digest)
    }

    /// The public key, base64.
    pub fn public_key(key: &ZoneKey) -> String {
        STANDARD.encode(key.public_key())
    }
}

/// The first serial of a zone: today's date and `00` (`YYYYMMDD00`), a common convention that
/// later serials (plus one, RFC 1982) keep increasing from.
pub fn initial_serial(now: Timestamp) -> u32 {
    let date = now.0.format("%Y%m%d").to_string();
    date.parse::<u32>().map(|d| d.saturating_mul(100)).unwrap_or(1)
}

/// RFC 1982: whether serial `a` is newer than `b`.
pub fn serial_newer(a: u32, b: u32) -> bool {
    a != b && a.wrapping_sub(b) < (1 << 31)
}

fn invalid(pointer: &str, code: &str, detail: impl Into<String>) -> StoreError {
    DomainError::invalid(pointer, code, detail).into()
}

/// Rules beyond one record's own fields.
fn check_rules(zone: &str, v: &ValidRecord, at: &str) -> Result<()> {
    if v.name == zone {
        match v.data.rtype() {
            RecordType::CNAME => {
                return Err(DomainError::conflict(
                    "cname_conflict",
                    "a CNAME may not sit at the zone apex, which always has SOA and NS records",
                )
                .into())
            }
            RecordType::NS => {
                return Err(invalid(
                    &format!("{at}/name"),
                    "apex_ns",
                    "the apex NS records are managed by the server; NS records delegate names below the apex",
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

fn row(zone: &ZoneId, id: RecordId, v: &ValidRecord, created_at: Timestamp, updated_at: Timestamp) -> Record {
    let (weight, port) = v.data.weight_port();
    let (flags, tag) = v.data.caa();
    Record {
        id,
        zone_id: zone.clone(),
        name: v.name.clone(),
        rtype: v.data.rtype().as_str().to_owned(),
        content: v.data.content(),
        rdata: v.data.presentation(),
        ttl: v.ttl,
        priority: v.data.priority(),
        weight,
        port,
        flags,
        tag,
        created_at,
        updated_at,
    }
}

fn zone_event(zone: &Zone, kind: &str) -> NewEvent {
    let mut fields = Map::new();
    fields.insert("zone".into(), Value::String(zone.name.clone()));
    fields.insert("zone_id".into(), Value::String(zone.id.0.clone()));
    NewEvent::new(zone.account_id.clone(), kind, fields)
}

fn record_event(zone: &Zone, kind: &str, r: &Record) -> NewEvent {
    let mut fields = Map::new();
    fields.insert("zone".into(), Value::String(zone.name.clone()));
    fields.insert("zone_id".into(), Value::String(zone.id.0.clone()));
    fields.insert(
        "record".into(),
        json!({"id": r.id.as_str(), "type": r.rtype, "name": r.name, "content": r.content, "ttl": r.ttl}),
    );
    NewEvent::new(zone.account_id.clone(), kind, fields)
}

/// The record's entity tag: it changes whenever the record does.
pub fn etag(r: &Record) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for part in [r.id.as_str(), &r.name, &r.rtype, &r.rdata, &r.ttl.to_string(), &r.updated_at.millis().to_string()] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    format!("\"{}\"", hex::encode(&h.finalize()[..12]))
}

/// Checks an `If-Match` header value (`*`, or a list of entity tags) against the record.
fn check_if_match(r: &Record, if_match: Option<&str>) -> Result<()> {
    let Some(header) = if_match else { return Ok(()) };
    let current = etag(r);
    let matches = header.split(',').map(str::trim).any(|t| t == "*" || t.trim_start_matches("W/") == current);
    if matches {
        Ok(())
    } else {
        Err(DomainError::PreconditionFailed("the record changed since that ETag; fetch it again and retry".into())
            .into())
    }
}

/// Lays `patch` over `base`: fields present in the patch win.
fn merge(base: RecordInput, patch: &RecordInput) -> RecordInput {
    RecordInput {
        rtype: base.rtype,
        name: patch.name.clone().or(base.name),
        content: patch.content.clone().or(base.content),
        ttl: patch.ttl.or(base.ttl),
        priority: patch.priority.or(base.priority),
        weight: patch.weight.or(base.weight),
        port: patch.port.or(base.port),
        flags: patch.flags.or(base.flags),
        tag: patch.tag.clone().or(base.tag),
    }
}

fn check_patch(existing: &Record, patch: &RecordInput, at: &str) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(t) = &patch.rtype {
        if !t.eq_ignore_ascii_case(&existing.rtype) {
            errors.push(FieldError::new(
                format!("{at}/type"),
                "immutable",
                "a record's type cannot change; delete it and create a new one",
            ));
        }
    }
    if *patch == RecordInput::default() {
        errors.push(FieldError::new(at, "empty_patch", "give at least one field to change"));
    }
    errors
}

/// What an import will do, worked out before anything is written.
struct ImportPlan {
    changes: ChangeSet,
    events: Vec<NewEvent>,
    skipped: Vec<Skipped>,
}

/// What a name holds, for the CNAME rule: a CNAME, other records.
#[derive(Clone, Copy, Default)]
struct Holds {
    cname: bool,
    other: bool,
}

/// Reads a master file against the zone's records, in time and memory linear in both: the
/// duplicate and CNAME checks look names up in hash tables rather than comparing each record
/// with every other.
fn plan_import(zone: &Zone, text: &str, existing: &[Record], config: &DnsConfig) -> Result<ImportPlan> {
    let limits =
        zonefile::Limits { max_records: config.import_max_records, max_line_bytes: config.import_max_line_bytes };
    let (entries, issues) = zonefile::parse_limited(text, &zone.name, &limits);
    if entries.len() > limits.max_records {
        return Err(DomainError::TooLarge(format!(
            "the master file holds more than {} records (dns.import_max_records)",
            limits.max_records
        ))
        .into());
    }
    let mut skipped: Vec<Skipped> =
        issues.into_iter().map(|i| Skipped { line: i.line, name: None, rtype: None, reason: i.reason }).collect();
    let mut present: HashSet<(String, String, String)> =
        existing.iter().map(|r| (r.name.clone(), r.rtype.clone(), r.rdata.clone())).collect();
    let mut holds: HashMap<String, Holds> = HashMap::new();
    for r in existing {
        let h = holds.entry(r.name.clone()).or_default();
        if r.rtype == "CNAME" {
            h.cname = true;
        } else {
            h.other = true;
        }
    }
    let now = Timestamp::now();
    let mut changes = ChangeSet::default();
    let mut events = Vec::new();
    for entry in &entries {
        let skip = |reason: String| Skipped {
            line: entry.line,
            name: Some(entry.owner.trim_end_matches('.').to_ascii_lowercase()),
            rtype: Some(entry.rtype.clone()),
            reason,
        };
        let input = match zonefile::to_input(entry, &zone.name) {
            Ok(i) => i,
            Err(reason) => {
                skipped.push(skip(reason));
                continue;
            }
        };
        let v = match validate(&input, &zone.name, "") {
            Ok(v) => v,
            Err(errors) => {
                let why = errors.iter().map(|e| e.detail.clone()).collect::<Vec<_>>().join("; ");
                skipped.push(skip(why));
                continue;
            }
        };
        if let Err(e) = check_rules(&zone.name, &v, "") {
            skipped.push(skip(e.to_string()));
            continue;
        }
        let key = (v.name.clone(), v.data.rtype().as_str().to_owned(), v.data.presentation());
        if present.contains(&key) {
            skipped.push(skip("the zone already has this record".into()));
            continue;
        }
        let is_cname = v.data.rtype() == RecordType::CNAME;
        let h = holds.get(&v.name).copied().unwrap_or_default();
        if h.cname || (is_cname && h.other) {
            skipped.push(skip("a CNAME may not share its name with other records".into()));
            continue;
        }
        let h = holds.entry(v.name.clone()).or_default();
        if is_cname {
            h.cname = true;
        } else {
            h.other = true;
        }
        present.insert(key);
        let r = row(&zone.id, RecordId::generate(), &v, now, now);
        events.push(record_event(zone, "dns.record.created", &r));
        changes.creates.push(r);
    }
    skipped.sort_by_key(|s| s.line);
    Ok(ImportPlan { changes, events, skipped })
}

/// The DNS write and read operations on zones and records.
pub struct DnsService {
    store: Store,
    config: Arc<DnsConfig>,
    /// The names each commit changed, for the zones this process serves.
    log: Arc<crate::served::ChangeLog>,
    /// Single-record creates waiting for the next group commit.
    creates: Arc<CreateQueue>,
}

/// A single-record create waiting to be committed, and where its answer goes.
type WaitingCreate = (Zone, Record, NewEvent, tokio::sync::oneshot::Sender<Result<Zone>>);

/// Single-record creates committed together (group commit): callers queue their record, and the
/// first of them to take the lead commits every queued create of a zone in one transaction (one
/// serial step) while the next ones queue up behind it. A group that fails (a duplicate, a CNAME
/// conflict) is committed again one create at a time, so that each answer is its own.
#[derive(Default)]
struct CreateQueue {
    waiting: std::sync::Mutex<Vec<WaitingCreate>>,
    leader: Arc<tokio::sync::Mutex<()>>,
}

impl CreateQueue {
    fn waiting(&self) -> std::sync::MutexGuard<'_, Vec<WaitingCreate>> {
        self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Commits queued creates: per zone, all in one transaction, or each alone when that fails.
async fn commit_creates(store: Store, log: Arc<crate::served::ChangeLog>, batch: Vec<WaitingCreate>) {
    let mut zones: Vec<(ZoneId, Vec<WaitingCreate>)> = Vec::new();
    for w in batch {
        match zones.iter_mut().find(|(id, _)| *id == w.0.id) {
            Some((_, group)) => group.push(w),
            None => zones.push((w.0.id.clone(), vec![w])),
        }
    }
    for (_, group) in zones {
        if group.len() > 1 {
            let zone = &group[0].0;
            let changes = ChangeSet { creates: group.iter().map(|w| w.1.clone()).collect(), ..Default::default() };
            let events: Vec<NewEvent> = group.iter().map(|w| w.2.clone()).collect();
            if let Ok(committed) =
                store.dns.apply_changes(&zone.account_id, &zone.id, &changes, &events, Timestamp::now()).await
            {
                log.note(&committed.id, committed.soa_serial, changes.creates.iter().map(|r| r.name.clone()).collect());
                for (_, _, _, done) in group {
                    let _ = done.send(Ok(committed.clone()));
                }
                continue;
            }
        }
        for (zone, record, event, done) in group {
            let name = record.name.clone();
            let changes = ChangeSet { creates: vec![record], ..Default::default() };
            let answer =
                store.dns.apply_changes(&zone.account_id, &zone.id, &changes, &[event], Timestamp::now()).await;
            if let Ok(committed) = &answer {
                log.note(&committed.id, committed.soa_serial, vec![name]);
            }
            let _ = done.send(answer);
        }
    }
}

impl DnsService {
    /// A service over `store` (whose commits with events wake the outbox dispatcher).
    pub fn new(store: Store, config: Arc<DnsConfig>) -> Self {
        Self { store, config, log: Arc::default(), creates: Arc::default() }
    }

    /// The names this service's commits changed, zone by zone (for [`crate::served::ServedZones`]).
    pub fn change_log(&self) -> Arc<crate::served::ChangeLog> {
        self.log.clone()
    }

    /// The configuration.
    pub fn config(&self) -> &DnsConfig {
        &self.config
    }

    /// The zone named `name` (lower case, no trailing dot), whoever's it is: for the protocol
    /// server, which knows zones by name alone.
    pub async fn zone_named(&self, name: &str) -> Result<Option<Zone>> {
        self.store.dns.find_zone(name).await
    }

    /// The records of `zone` at any of `names` (what a dynamic update touches).
    pub async fn records_named(&self, zone: &Zone, names: &[String]) -> Result<Vec<Record>> {
        self.store.dns.zone_records_named(&zone.id, names).await
    }

    /// Creates a zone (the server makes its SOA and apex NS).
    pub async fn create_zone(&self, account: &AccountId, name: Option<&str>) -> Result<Zone> {
        let Some(raw) = name else { return Err(invalid("/name", "required", "name is required")) };
        let name = name::normalize_zone(raw).map_err(|e| invalid("/name", "invalid_name", e.to_string()))?;
        if !name.contains('.') {
            return Err(invalid("/name", "invalid_name", "a zone name needs at least two labels, like example.com"));
        }
        let now = Timestamp::now();
        let zone = Zone {
            id: ZoneId::generate(),
            account_id: account.clone(),
            name,
            status: "active".into(),
            soa_serial: initial_serial(now),
            records: 0,
            dnssec: false,
            created_at: now,
            updated_at: now,
        };
        self.store.dns.create_zone(&zone, &[zone_event(&zone, "dns.zone.created")]).await?;
        Ok(zone)
    }

    /// One zone of the account.
    pub async fn zone(&self, account: &AccountId, id: &str) -> Result<Zone> {
        self.store
            .dns
            .get_zone(account, &ZoneId(id.to_owned()))
            .await?
            .ok_or_else(|| DomainError::not_found("zone", id).into())
    }

    /// The account's zones; `name` filters on one name (any form: IDN, trailing dot, case).
    pub async fn list_zones(&self, account: &AccountId, name: Option<&str>, page: Page) -> Result<(Vec<Zone>, u64)> {
        let name = match name {
            Some(n) => match name::normalize(n, false) {
                Ok(n) => Some(n),
                Err(_) => return Ok((Vec::new(), 0)),
            },
            None => None,
        };
        self.store.dns.list_zones(account, name.as_deref(), page).await
    }

    /// Deletes a zone with its records.
    pub async fn delete_zone(&self, account: &AccountId, id: &str) -> Result<Zone> {
        let zone = self.zone(account, id).await?;
        self.store.dns.delete_zone(account, &zone.id, &[zone_event(&zone, "dns.zone.deleted")]).await?;
        Ok(zone)
    }

    /// A page of records; filters take names relative to the zone or fully qualified.
    pub async fn list_records(
        &self,
        account: &AccountId,
        zone_id: &str,
        rtype: Option<&str>,
        name: Option<&str>,
        content: Option<&str>,
        page: Page,
    ) -> Result<(Zone, Vec<Record>, u64)> {
        let zone = self.zone(account, zone_id).await?;
        let rtype = match rtype {
            Some(t) => match RecordType::parse(t) {
                Some(t) => Some(t.as_str().to_owned()),
                None => return Ok((zone, Vec::new(), 0)),
            },
            None => None,
        };
        let name = match name {
            Some(n) => match name::qualify(n, &zone.name) {
                Ok(n) => Some(n),
                Err(_) => return Ok((zone, Vec::new(), 0)),
            },
            None => None,
        };
        let filter = RecordFilter { rtype, name, content: content.map(str::to_owned) };
        let (records, total) = self.store.dns.list_records(&zone.id, &filter, page).await?;
        Ok((zone, records, total))
    }

    /// The zone's changes, newest first: the `dns.*` events about it (the zone and its records,
    /// from the API, batches, imports and dynamic updates), as webhook receivers got them, for as
    /// long as `events.retention` keeps them.
    pub async fn changes(&self, account: &AccountId, zone_id: &str, page: Page) -> Result<(Zone, Vec<Event>, u64)> {
        let zone = self.zone(account, zone_id).await?;
        let filter =
            EventFilter { type_prefix: Some("dns.".into()), field: Some(("zone_id".into(), zone.id.0.clone())) };
        let (events, total) = self.store.outbox.list_events(account, &filter, page).await?;
        Ok((zone, events, total))
    }

    /// One record.
    pub async fn record(&self, account: &AccountId, zone_id: &str, id: &str) -> Result<(Zone, Record)> {
        let zone = self.zone(account, zone_id).await?;
        let record = self
            .store
            .dns
            .get_record(&zone.id, &RecordId(id.to_owned()))
            .await?
            .ok_or_else(|| DomainError::not_found("record", id))?;
        Ok((zone, record))
    }

    /// Commits a change. `before`: the names the deleted and updated records had, when known
    /// (the served copy of the zone is then updated from the changed names alone).
    async fn commit(
        &self,
        zone: &Zone,
        changes: ChangeSet,
        events: Vec<NewEvent>,
        before: Option<Vec<String>>,
    ) -> Result<Zone> {
        let zone =
            self.store.dns.apply_changes(&zone.account_id, &zone.id, &changes, &events, Timestamp::now()).await?;
        if let Some(mut names) = before {
            names.extend(changes.creates.iter().chain(&changes.updates).map(|r| r.name.clone()));
            self.log.note(&zone.id, zone.soa_serial, names);
        }
        Ok(zone)
    }

    /// Creates a record.
    pub async fn create_record(&self, account: &AccountId, zone_id: &str, input: &RecordInput) -> Result<Record> {
        let zone = self.zone(account, zone_id).await?;
        let v = validate(input, &zone.name, "").map_err(DomainError::Invalid)?;
        check_rules(&zone.name, &v, "")?;
        let now = Timestamp::now();
        let r = row(&zone.id, RecordId::generate(), &v, now, now);
        let event = record_event(&zone, "dns.record.created", &r);
        let (done, mut answer) = tokio::sync::oneshot::channel();
        self.creates.waiting().push((zone, r.clone(), event, done));
        let abandoned =
            || StoreError::Unsupported("the commit of this record was abandoned (the process is stopping)".into());
        let leader = tokio::select! {
            biased;
            answer = &mut answer => return answer.unwrap_or_else(|_| Err(abandoned())).map(|_| r),
            leader = self.creates.leader.clone().lock_owned() => leader,
        };
        // The previous leader answers before it lets go, so an empty queue means ours is answered.
        let batch = std::mem::take(&mut *self.creates.waiting());
        if !batch.is_empty() {
            let (store, log) = (self.store.clone(), self.log.clone());
            // A task of its own: a caller that goes away mid-commit does not abandon the others.
            tokio::spawn(async move {
                commit_creates(store, log, batch).await;
                drop(leader);
            });
        }
        answer.await.unwrap_or_else(|_| Err(abandoned()))?;
        Ok(r)
    }

    /// Changes the given fields of a record; with `if_match`, only if its ETag still matches.
    pub async fn update_record(
        &self,
        account: &AccountId,
        zone_id: &str,
        id: &str,
        patch: &RecordInput,
        if_match: Option<&str>,
    ) -> Result<Record> {
        let (zone, existing) = self.record(account, zone_id, id).await?;
        check_if_match(&existing, if_match)?;
        let errors = check_patch(&existing, patch, "");
        if !errors.is_empty() {
            return Err(DomainError::Invalid(errors).into());
        }
        let v = validate(&merge(record::input_of(&existing), patch), &zone.name, "").map_err(DomainError::Invalid)?;
        check_rules(&zone.name, &v, "")?;
        let r = row(&zone.id, existing.id.clone(), &v, existing.created_at, Timestamp::now());
        let events = vec![record_event(&zone, "dns.record.updated", &r)];
        let guard = if_match.map(|_| (existing.id.clone(), existing.updated_at)).into_iter().collect();
        let changes = ChangeSet { updates: vec![r.clone()], unchanged_since: guard, ..Default::default() };
        self.commit(&zone, changes, events, Some(vec![existing.name.clone()])).await?;
        Ok(r)
    }

    /// Deletes a record; with `if_match`, only if its ETag still matches.
    pub async fn delete_record(
        &self,
        account: &AccountId,
        zone_id: &str,
        id: &str,
        if_match: Option<&str>,
    ) -> Result<RecordId> {
        let (zone, existing) = self.record(account, zone_id, id).await?;
        check_if_match(&existing, if_match)?;
        let events = vec![record_event(&zone, "dns.record.deleted", &existing)];
        let guard = if_match.map(|_| (existing.id.clone(), existing.updated_at)).into_iter().collect();
        let changes = ChangeSet { deletes: vec![existing.id.clone()], unchanged_since: guard, ..Default::default() };
        self.commit(&zone, changes, events, Some(vec![existing.name.clone()])).await?;
        Ok(existing.id)
    }

    /// Applies a batch all-or-nothing: one serial bump, one event per record.
    pub async fn batch(&self, account: &AccountId, zone_id: &str, batch: &Batch) -> Result<BatchOutcome> {
        let zone = self.zone(account, zone_id).await?;
        let ops = batch.creates.len() + batch.updates.len() + batch.deletes.len();
        if ops == 0 {
            return Err(invalid("", "empty_batch", "give at least one create, update or delete"));
        }
        if ops > MAX_BATCH {
            return Err(invalid("", "too_many", format!("a batch holds at most {MAX_BATCH} operations")));
        }
        let existing = self.store.dns.zone_records(&zone.id).await?;
        let by_id: HashMap<&str, &Record> = existing.iter().map(|r| (r.id.as_str(), r)).collect();
        let find = |id: &str| by_id.get(id).copied();
        let now = Timestamp::now();
        let mut errors = Vec::new();
        let mut changes = ChangeSet::default();
        let mut events = Vec::new();
        let mut touched = HashSet::new();
        for (i, id) in batch.deletes.iter().enumerate() {
            let at = format!("/deletes/{i}/id");
            match find(id) {
                Some(r) if touched.insert(id.clone()) => {
                    events.push(record_event(&zone, "dns.record.deleted", r));
                    changes.deletes.push(r.id.clone());
                }
                Some(_) => {
                    errors.push(FieldError::new(at, "duplicate_id", "the record is already changed in this batch"))
                }
                None => errors.push(FieldError::new(at, "not_found", format!("the zone has no record {id}"))),
            }
        }
        for (i, u) in batch.updates.iter().enumerate() {
            let at = format!("/updates/{i}");
            let Some(r) = find(&u.id) else {
                errors.push(FieldError::new(
                    format!("{at}/id"),
                    "not_found",
                    format!("the zone has no record {}", u.id),
                ));
                continue;
            };
            if !touched.insert(u.id.clone()) {
                errors.push(FieldError::new(
                    format!("{at}/id"),
                    "duplicate_id",
                    "the record is already changed in this batch",
                ));
                continue;
            }
            let patch_errors = check_patch(r, &u.fields, &at);
            if !patch_errors.is_empty() {
                errors.extend(patch_errors);
                continue;
            }
            match validate(&merge(record::input_of(r), &u.fields), &zone.name, &at) {
                Ok(v) => match check_rules(&zone.name, &v, &at) {
                    Ok(()) => {
                        let new = row(&zone.id, r.id.clone(), &v, r.created_at, now);
                        events.push(record_event(&zone, "dns.record.updated", &new));
                        changes.updates.push(new);
                    }
                    Err(StoreError::Domain(DomainError::Invalid(e))) => errors.extend(e),
                    Err(e) => return Err(e),
                },
                Err(e) => errors.extend(e),
            }
        }
        for (i, input) in batch.creates.iter().enumerate() {
            let at = format!("/creates/{i}");
            match validate(input, &zone.name, &at) {
                Ok(v) => match check_rules(&zone.name, &v, &at) {
                    Ok(()) => {
                        let new = row(&zone.id, RecordId::generate(), &v, now, now);
                        events.push(record_event(&zone, "dns.record.created", &new));
                        changes.creates.push(new);
                    }
                    Err(StoreError::Domain(DomainError::Invalid(e))) => errors.extend(e),
                    Err(e) => return Err(e),
                },
                Err(e) => errors.extend(e),
            }
        }
        if !errors.is_empty() {
            return Err(DomainError::Invalid(errors).into());
        }
        let created = changes.creates.clone();
        let updated = changes.updates.clone();
        let deleted = changes.deletes.clone();
        let before: Vec<String> = changes
            .deletes
            .iter()
            .chain(changes.updates.iter().map(|r| &r.id))
            .filter_map(|id| find(id.as_str()))
            .map(|r| r.name.clone())
            .collect();
        let zone = self.commit(&zone, changes, events, Some(before)).await?;
        Ok(BatchOutcome { zone, created, updated, deleted })
    }

    /// Imports a master file: every acceptable record is added in one transaction; the rest is
    /// reported with the reason. Reading and checking the file is CPU work proportional to its
    /// size: it runs on a blocking thread, not the executor's.
    pub async fn import(&self, account: &AccountId, zone_id: &str, text: String) -> Result<ImportOutcome> {
        let zone = self.zone(account, zone_id).await?;
        if text.len() > self.config.import_max_bytes {
            return Err(DomainError::TooLarge(format!(
                "the master file is larger than {} bytes (dns.import_max_bytes)",
                self.config.import_max_bytes
            ))
            .into());
        }
        let existing = self.store.dns.zone_records(&zone.id).await?;
        let (for_plan, config) = (zone.clone(), self.config.clone());
        let plan = tokio::task::spawn_blocking(move || plan_import(&for_plan, &text, &existing, &config))
            .await
            .map_err(|e| StoreError::Corrupt(format!("the import was interrupted: {e}")))??;
        let ImportPlan { changes, events, skipped } = plan;
        if changes.is_empty() {
            return Ok(ImportOutcome { zone, added: Vec::new(), skipped });
        }
        let added = changes.creates.clone();
        let zone = self.commit(&zone, changes, events, None).await?;
        Ok(ImportOutcome { zone, added, skipped })
    }

    /// The zone as a master file.
    pub async fn export(&self, account: &AccountId, zone_id: &str) -> Result<(Zone, String)> {
        let zone = self.zone(account, zone_id).await?;
        let records = self.store.dns.zone_records(&zone.id).await?;
        let valid: Vec<ValidRecord> = records
            .iter()
            .filter_map(|r| record::rdata_of(r).map(|data| ValidRecord { name: r.name.clone(), ttl: r.ttl, data }))
            .collect();
        let text = zonefile::print(&Apex { zone: &zone.name, serial: zone.soa_serial, config: &self.config }, &valid);
        Ok((zone, text))
    }

    async fn dnssec_state(&self, zone: Zone) -> Result<DnssecState> {
        let keys = self.store.dns.dns_keys(&zone.id).await?;
        let keys = keys
            .iter()
            .map(|k| ZoneKey::from_hex(&k.private_key, k.flags).map_err(|e| StoreError::Corrupt(e.to_string())))
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .map(|k| {
                let ds = k.ds(&zone.name);
                (k, ds)
            })
            .collect();
        Ok(DnssecState { zone, keys })
    }

    /// The zone's DNSSEC state.
    pub async fn dnssec(&self, account: &AccountId, zone_id: &str) -> Result<DnssecState> {
        let zone = self.zone(account, zone_id).await?;
        self.dnssec_state(zone).await
    }

    /// Signs the zone (a new ECDSA P-256 key) unless it is signed already; says whether it was new.
    pub async fn enable_dnssec(&self, account: &AccountId, zone_id: &str) -> Result<(DnssecState, bool)> {
        let zone = self.zone(account, zone_id).await?;
        if zone.dnssec {
            return Ok((self.dnssec_state(zone).await?, false));
        }
        let (_, private) = ZoneKey::generate();
        let key = DnsKey {
            id: DnsKeyId::generate(),
            zone_id: zone.id.clone(),
            algorithm: ALGORITHM,
            flags: CSK_FLAGS,
            private_key: private,
            created_at: Timestamp::now(),
        };
        let zone = self.store.dns.set_dnssec(account, &zone.id, Some(&key), Timestamp::now()).await?;
        Ok((self.dnssec_state(zone).await?, true))
    }

    /// Stops signing the zone and drops its keys.
    pub async fn disable_dnssec(&self, account: &AccountId, zone_id: &str) -> Result<DnssecState> {
        let zone = self.zone(account, zone_id).await?;
        let zone = self.store.dns.set_dnssec(account, &zone.id, None, Timestamp::now()).await?;
        Ok(DnssecState { zone, keys: Vec::new() })
    }

    /// Applies a dynamic update to a zone: new records and stored records to delete, with the
    /// same rules and events as the API. It applies only while the zone still has the serial it
    /// was read at (a failed precondition otherwise, for the caller to read again and retry).
    pub async fn apply_update(&self, zone: &Zone, adds: &[ValidRecord], deletes: &[Record]) -> Result<Zone> {
        let now = Timestamp::now();
        let mut changes = ChangeSet { expect_serial: Some(zone.soa_serial), ..Default::default() };
        let mut events = Vec::new();
        for r in deletes {
            events.push(record_event(zone, "dns.record.deleted", r));
            changes.deletes.push(r.id.clone());
        }
        for v in adds {
            check_rules(&zone.name, v, "")?;
            let r = row(&zone.id, RecordId::generate(), v, now, now);
            events.push(record_event(zone, "dns.record.created", &r));
            changes.creates.push(r);
        }
        if changes.is_empty() {
            return Ok(zone.clone());
        }
        let before = deletes.iter().map(|r| r.name.clone()).collect();
        self.commit(zone, changes, events, Some(before)).await
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn serials_compare_with_rfc_1982_arithmetic() {
        assert!(serial_newer(2, 1));
        assert!(serial_newer(0, u32::MAX), "wrapping past 2^32 - 1 is newer");
        assert!(!serial_newer(1, 2));
        assert!(!serial_newer(5, 5));
        assert!(!serial_newer(1 << 31, 0), "exactly half the space apart is undefined, not newer");
    }

    #[test]
    fn first_serial_is_the_date() {
        let t = Timestamp::parse("2026-11-22T03:00:00Z").unwrap_or_else(Timestamp::now);
        assert_eq!(initial_serial(t), 2_026_112_200);
    }
}
