//! The DNS API over HTTP and the DNS server over UDP/TCP, on the real binary.

use crate::{problem, Server};
use hickory_proto::op::{Edns, Message, MessageType, OpCode, Query, ResponseCode};
use hickory_proto::rr::{Name, RData, RecordType};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::net::UdpSocket;

/// Asks the DNS server over UDP, with EDNS and the DO bit when `dnssec`.
pub(crate) async fn ask(addr: SocketAddr, name: &str, qtype: RecordType, dnssec: bool) -> Message {
    let mut m = Message::new(rand_id(), MessageType::Query, OpCode::Query);
    m.add_query(Query::query(Name::from_ascii(name).unwrap(), qtype));
    let mut edns = Edns::new();
    edns.set_max_payload(1232);
    edns.set_dnssec_ok(dnssec);
    m.set_edns(edns);
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    socket.send_to(&m.to_vec().unwrap(), addr).await.unwrap();
    let mut buf = vec![0u8; 65_535];
    let (n, _) = tokio::time::timeout(Duration::from_secs(5), socket.recv_from(&mut buf)).await.unwrap().unwrap();
    Message::from_vec(&buf[..n]).unwrap()
}

fn rand_id() -> u16 {
    (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos() & 0xffff) as u16
}

/// Polls the server until `check` accepts an answer; the deadline is generous, the API promises
/// a second.
pub(crate) async fn until(
    addr: SocketAddr,
    name: &str,
    qtype: RecordType,
    check: impl Fn(&Message) -> bool,
) -> Message {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let m = ask(addr, name, qtype, false).await;
        if check(&m) {
            return m;
        }
        assert!(Instant::now() < deadline, "the DNS server never answered as expected for {name}: {m:?}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

pub(crate) fn a_records(m: &Message) -> Vec<String> {
    m.answers
        .iter()
        .filter_map(|r| match &r.data {
            RData::A(a) => Some(a.0.to_string()),
            _ => None,
        })
        .collect()
}

/// Calls the API with an optional JSON body.
pub(crate) async fn api(s: &Server, method: &str, path: &str, key: &str, body: Option<Value>) -> reqwest::Response {
    let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut req = s.client.request(m, s.url(path)).bearer_auth(key);
    if let Some(b) = body {
        req = req.json(&b);
    }
    req.send().await.unwrap()
}

/// Creates a zone over the API and returns its JSON.
pub(crate) async fn create_zone(s: &Server, key: &str, name: &str) -> Value {
    let r = api(s, "POST", "/v1/dns/zones", key, Some(json!({"name": name}))).await;
    assert_eq!(r.status(), 201);
    r.json().await.unwrap()
}

pub(crate) async fn create_record(s: &Server, key: &str, zone: &str, body: Value) -> reqwest::Response {
    api(s, "POST", &format!("/v1/dns/zones/{zone}/records"), key, Some(body)).await
}

#[tokio::test]
async fn record_changes_through_the_api_are_answered_by_the_dns_server() {
    let s = Server::start();
    let dns = s.dns.unwrap();
    let (_, key) = s.signup("dns-flow@example.com").await;
    let zone = create_zone(&s, &key, "Example.COM.").await;
    assert!(zone["id"].as_str().unwrap().starts_with("zone_"));
    assert_eq!(zone["name"], "example.com");
    assert_eq!(zone["status"], "active");
    assert_eq!(zone["records"], 0);
    assert_eq!(zone["dnssec"], "disabled");
    assert_eq!(zone["nameservers"], json!(["ns1.meridian.invalid", "ns2.meridian.invalid"]));
    let zid = zone["id"].as_str().unwrap();
    let initial_serial = zone["soa_serial"].as_u64().unwrap();
    let r =
        create_record(&s, &key, zid, json!({"type": "A", "name": "www", "content": "192.0.2.10", "ttl": 300})).await;
    assert_eq!(r.status(), 201);
    let rec: Value = r.json().await.unwrap();
    assert!(rec["id"].as_str().unwrap().starts_with("rec_"));
    assert_eq!((rec["type"].as_str(), rec["name"].as_str()), (Some("A"), Some("www.example.com")));
    assert_eq!((rec["content"].as_str(), rec["ttl"].as_u64()), (Some("192.0.2.10"), Some(300)));
    assert!(rec["created_at"].as_str().unwrap().ends_with('Z'));
    let m = until(dns, "www.example.com.", RecordType::A, |m| a_records(m) == ["192.0.2.10"]).await;
    assert!(m.metadata.authoritative);
    assert_eq!(m.answers[0].ttl, 300);
    let rid = rec["id"].as_str().unwrap();
    let r =
        api(&s, "PATCH", &format!("/v1/dns/zones/{zid}/records/{rid}"), &key, Some(json!({"content": "192.0.2.11"})))
            .await;
    assert_eq!(r.status(), 200);
    let updated: Value = r.json().await.unwrap();
    assert_eq!(updated["content"], "192.0.2.11");
    assert!(updated["updated_at"].as_str().unwrap().ends_with('Z'));
    until(dns, "www.example.com.", RecordType::A, |m| a_records(m) == ["192.0.2.11"]).await;
    let r = api(&s, "DELETE", &format!("/v1/dns/zones/{zid}/records/{rid}"), &key, None).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"deleted": true, "id": rid}));
    let m = until(dns, "www.example.com.", RecordType::A, |m| m.metadata.response_code == ResponseCode::NXDomain).await;
    assert_eq!(m.authorities[0].record_type(), RecordType::SOA);
    let zone: Value = s.get(&format!("/v1/dns/zones/{zid}"), &key).await.json().await.unwrap();
    assert_eq!(zone["records"], 0);
    assert_eq!(zone["soa_serial"].as_u64().unwrap(), initial_serial + 3, "three changes, three serial steps");
    let r = api(&s, "DELETE", &format!("/v1/dns/zones/{zid}"), &key, None).await;
    assert_eq!(r.json::<Value>().await.unwrap(), json!({"deleted": true, "id": zid}));
    until(dns, "example.com.", RecordType::SOA, |m| m.metadata.response_code == ResponseCode::Refused).await;
}

#[tokio::test]
async fn invalid_input_conflicts_and_other_tenants_get_problems() {
    let s = Server::start();
    let (_, key) = s.signup("dns-rules@example.com").await;
    let (_, other) = s.signup("dns-other@example.com").await;
    let zone = create_zone(&s, &key, "example.org").await;
    let zid = zone["id"].as_str().unwrap();
    let r = create_record(&s, &key, zid, json!({"type": "A", "name": "www", "content": "999.1.1.1", "ttl": 10})).await;
    let p = problem(r, 422, "validation_failed").await;
    let pointers: Vec<&str> = p["errors"].as_array().unwrap().iter().map(|e| e["pointer"].as_str().unwrap()).collect();
    assert_eq!(pointers, ["/ttl", "/content"]);
    let r = create_record(&s, &key, zid, json!({"type": "MX", "name": "@", "content": "mail.example.org"})).await;
    let p = problem(r, 422, "validation_failed").await;
    assert_eq!(p["errors"][0]["pointer"], "/priority");
    let r = create_record(&s, &key, zid, json!({"type": "A", "name": "a".repeat(64), "content": "192.0.2.1"})).await;
    let p = problem(r, 422, "validation_failed").await;
    assert_eq!(p["errors"][0]["code"], "too_long");
    let r = create_record(&s, &key, zid, json!({"type": "A", "name": "www", "content": "192.0.2.1", "bogus": 1})).await;
    problem(r, 422, "validation_failed").await;
    let r = api(&s, "POST", &format!("/v1/dns/zones/{zid}/records"), &key, None).await;
    problem(r, 415, "unsupported_media_type").await;
    assert_eq!(
        create_record(&s, &key, zid, json!({"type": "A", "name": "www", "content": "192.0.2.1"})).await.status(),
        201
    );
    let r = create_record(&s, &key, zid, json!({"type": "A", "name": "www", "content": "192.0.2.1"})).await;
    problem(r, 409, "duplicate_record").await;
    let r =
        create_record(&s, &key, zid, json!({"type": "CNAME", "name": "www", "content": "elsewhere.example.net"})).await;
    problem(r, 409, "cname_conflict").await;
    let r =
        create_record(&s, &key, zid, json!({"type": "CNAME", "name": "@", "content": "elsewhere.example.net"})).await;
    problem(r, 409, "cname_conflict").await;
    let r = api(&s, "POST", "/v1/dns/zones", &other, Some(json!({"name": "example.org"}))).await;
    problem(r, 409, "zone_exists").await;
    let r = api(&s, "POST", "/v1/dns/zones", &other, Some(json!({"name": "shop.example.org"}))).await;
    problem(r, 409, "zone_exists").await;
    problem(s.get(&format!("/v1/dns/zones/{zid}"), &other).await, 404, "not_found").await;
    problem(s.get(&format!("/v1/dns/zones/{zid}/records"), &other).await, 404, "not_found").await;
    let r = create_record(&s, &other, zid, json!({"type": "A", "name": "x", "content": "192.0.2.1"})).await;
    problem(r, 404, "not_found").await;
    let list: Value = s.get("/v1/dns/zones", &other).await.json().await.unwrap();
    assert_eq!(list, json!({"zones": [], "total": 0}));
    let list: Value = s.get("/v1/dns/zones", &key).await.json().await.unwrap();
    assert_eq!(list["total"], 1);
    assert_eq!(list["zones"][0]["records"], 1);
    let idn = create_zone(&s, &other, "münchen.de").await;
    assert_eq!(idn["name"], "xn--mnchen-3ya.de");
    let filtered: Value = s.get("/v1/dns/zones?name=M%C3%BCnchen.de", &other).await.json().await.unwrap();
    assert_eq!(filtered["total"], 1);
    let r = s.get(&format!("/v1/dns/zones/{zid}/records?type=A&name=www"), &key).await;
    let records: Value = r.json().await.unwrap();
    assert_eq!(records["total"], 1);
    assert_eq!(records["records"][0]["name"], "www.example.org");
}

#[tokio::test]
async fn the_dns_api_allows_1000_requests_a_minute_per_key_then_429() {
    let s = Server::start_with(&[("MERIDIAN_RATE_LIMITS__DNS__PER_MINUTE", "3")]);
    let (_, key) = s.signup("dns-rl@example.com").await;
    for _ in 0..3 {
        let r = s.get("/v1/dns/zones", &key).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["ratelimit-limit"], "3");
    }
    let r = s.get("/v1/dns/zones", &key).await;
    assert!(r.headers().contains_key("retry-after"));
    problem(r, 429, "rate_limited").await;
    let defaults = Server::start();
    let (_, key) = defaults.signup("dns-rl2@example.com").await;
    let r = defaults.get("/v1/dns/zones", &key).await;
    assert_eq!(r.headers()["ratelimit-limit"], "1000");
}

#[tokio::test]
async fn batches_and_zone_files_over_http() {
    let s = Server::start();
    let dns = s.dns.unwrap();
    let (_, key) = s.signup("dns-files@example.com").await;
    let zone = create_zone(&s, &key, "example.net").await;
    let zid = zone["id"].as_str().unwrap();
    let body = json!({"creates": [
        {"type": "A", "name": "a", "content": "192.0.2.1"},
        {"type": "TXT", "name": "a", "content": "x".repeat(300)},
        {"type": "SRV", "name": "_sip._tcp", "content": "sip.example.net", "priority": 10, "weight": 5, "port": 5060},
        {"type": "CAA", "name": "@", "content": "letsencrypt.org", "tag": "issue", "flags": 0},
    ]});
    let r = api(&s, "POST", &format!("/v1/dns/zones/{zid}/records/batch"), &key, Some(body)).await;
    assert_eq!(r.status(), 200);
    let out: Value = r.json().await.unwrap();
    assert_eq!(out["created"].as_array().unwrap().len(), 4);
    assert_eq!(out["records"], 4);
    let serial = out["soa_serial"].as_u64().unwrap();
    let a_id = out["created"][0]["id"].as_str().unwrap().to_owned();
    let bad = json!({"deletes": [{"id": a_id}], "creates": [{"type": "A", "name": "b", "content": "nope"}]});
    let r = api(&s, "POST", &format!("/v1/dns/zones/{zid}/records/batch"), &key, Some(bad)).await;
    let p = problem(r, 422, "validation_failed").await;
    assert_eq!(p["errors"][0]["pointer"], "/creates/0/content");
    let zone: Value = s.get(&format!("/v1/dns/zones/{zid}"), &key).await.json().await.unwrap();
    assert_eq!((zone["records"].as_u64(), zone["soa_serial"].as_u64()), (Some(4), Some(serial)), "nothing applied");
    let m = until(dns, "a.example.net.", RecordType::TXT, |m| !m.answers.is_empty()).await;
    match &m.answers[0].data {
        RData::TXT(t) => assert_eq!(t.txt_data.iter().map(|s| s.len()).collect::<Vec<_>>(), vec![255, 45]),
        other => panic!("{other:?}"),
    }
    let r = s.get(&format!("/v1/dns/zones/{zid}/export"), &key).await;
    assert_eq!(r.headers()["content-type"], "text/dns");
    let text = r.text().await.unwrap();
    assert!(text.contains("$ORIGIN example.net."), "{text}");
    assert!(text.contains("_sip._tcp\t3600\tIN\tSRV\t10 5 5060 sip.example.net."), "{text}");
    assert!(text.contains("@\t3600\tIN\tCAA\t0 issue \"letsencrypt.org\""), "{text}");
    let file =
        "$ORIGIN example.net.\n$TTL 300\nimported A 192.0.2.77\nbad A not-an-address\n@ IN SOA x. y. 1 2 3 4 5\n";
    let r = s
        .client
        .post(s.url(&format!("/v1/dns/zones/{zid}/import")))
        .bearer_auth(&key)
        .header("content-type", "text/dns")
        .body(file)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let out: Value = r.json().await.unwrap();
    assert_eq!(out["added"][0]["name"], "imported.example.net");
    assert_eq!(out["added"][0]["ttl"], 300);
    let skipped = out["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2);
    assert_eq!((skipped[0]["line"].as_u64(), skipped[0]["type"].as_str()), (Some(4), Some("A")));
    until(dns, "imported.example.net.", RecordType::A, |m| a_records(m) == ["192.0.2.77"]).await;
    let r = s
        .client
        .post(s.url(&format!("/v1/dns/zones/{zid}/import")))
        .bearer_auth(&key)
        .json(&json!({"zone": file}))
        .send()
        .await
        .unwrap();
    problem(r, 415, "unsupported_media_type").await;
}

#[tokio::test]
async fn dnssec_is_enabled_shown_and_disabled_over_the_api() {
    let s = Server::start();
    let dns = s.dns.unwrap();
    let (_, key) = s.signup("dns-sec@example.com").await;
    let zone = create_zone(&s, &key, "example.com").await;
    let zid = zone["id"].as_str().unwrap();
    create_record(&s, &key, zid, json!({"type": "A", "name": "www", "content": "192.0.2.1"})).await;
    let status: Value = s.get(&format!("/v1/dns/zones/{zid}/dnssec"), &key).await.json().await.unwrap();
    assert_eq!(status["status"], "disabled");
    let r = api(&s, "POST", &format!("/v1/dns/zones/{zid}/dnssec"), &key, None).await;
    assert_eq!(r.status(), 201);
    let on: Value = r.json().await.unwrap();
    assert_eq!(on["status"], "active");
    assert_eq!(on["keys"][0]["algorithm"], 13);
    assert_eq!(on["keys"][0]["flags"], 257);
    assert_eq!(on["ds"][0]["digest_type"], 2);
    assert_eq!(on["ds"][0]["digest"].as_str().unwrap().len(), 64);
    assert_eq!(on["ds"][0]["key_tag"], on["keys"][0]["key_tag"]);
    assert!(on["ds"][0]["ds"].as_str().unwrap().starts_with("example.com. IN DS "));
    let again = api(&s, "POST", &format!("/v1/dns/zones/{zid}/dnssec"), &key, None).await;
    assert_eq!(again.status(), 200);
    let zone: Value = s.get(&format!("/v1/dns/zones/{zid}"), &key).await.json().await.unwrap();
    assert_eq!(zone["dnssec"], "active");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let m = ask(dns, "www.example.com.", RecordType::A, true).await;
        if m.answers.iter().any(|r| r.record_type() == RecordType::RRSIG) {
            break;
        }
        assert!(Instant::now() < deadline, "no RRSIG in {m:?}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let r = api(&s, "DELETE", &format!("/v1/dns/zones/{zid}/dnssec"), &key, None).await;
    let off: Value = r.json().await.unwrap();
    assert_eq!(off["status"], "disabled");
    assert_eq!(off["keys"], json!([]));
    problem(s.get("/v1/dns/zones/zone_00000000000000000000000000/dnssec", &key).await, 404, "not_found").await;
}

#[tokio::test]
async fn a_second_dns_node_on_the_same_store_answers_changes_made_through_the_first() {
    let a = Server::start();
    let db = a.database_url.clone();
    // Node B shares the database and has no dispatcher: only its serial polling can see A's changes.
    let b = Server::start_with(&[
        ("MERIDIAN_STORAGE__DATABASE_URL", db.as_str()),
        ("MERIDIAN_SERVER__ROLES__DISPATCHER", "false"),
    ]);
    let (_, key) = a.signup("two-nodes@example.com").await;
    let zone = create_zone(&a, &key, "example.com").await;
    let zid = zone["id"].as_str().unwrap();
    let r = create_record(&a, &key, zid, json!({"type": "A", "name": "www", "content": "192.0.2.44"})).await;
    assert_eq!(r.status(), 201);
    until(b.dns.unwrap(), "www.example.com.", RecordType::A, |m| a_records(m) == ["192.0.2.44"]).await;
    until(a.dns.unwrap(), "www.example.com.", RecordType::A, |m| a_records(m) == ["192.0.2.44"]).await;
}

#[tokio::test]
async fn if_match_makes_record_changes_conditional() {
    let s = Server::start();
    let (_, key) = s.signup("etag@example.com").await;
    let zone = create_zone(&s, &key, "example.com").await;
    let zid = zone["id"].as_str().unwrap();
    let r = create_record(&s, &key, zid, json!({"type": "A", "name": "www", "content": "192.0.2.1"})).await;
    let first = r.headers()["etag"].to_str().unwrap().to_owned();
    let rid = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/dns/zones/{zid}/records/{rid}");
    assert_eq!(s.get(&path, &key).await.headers()["etag"], first.as_str());
    let patch = |tag: &str, content: &str| {
        s.client.patch(s.url(&path)).bearer_auth(&key).header("if-match", tag).json(&json!({"content": content})).send()
    };
    let r = patch(&first, "192.0.2.2").await.unwrap();
    assert_eq!(r.status(), 200);
    let second = r.headers()["etag"].to_str().unwrap().to_owned();
    assert_ne!(first, second);
    problem(patch(&first, "192.0.2.3").await.unwrap(), 412, "precondition_failed").await;
    let delete = |tag: &str| s.client.delete(s.url(&path)).bearer_auth(&key).header("if-match", tag).send();
    problem(delete(&first).await.unwrap(), 412, "precondition_failed").await;
    let record: Value = s.get(&path, &key).await.json().await.unwrap();
    assert_eq!(record["content"], "192.0.2.2", "refused changes left the record alone");
    assert_eq!(delete(&second).await.unwrap().status(), 200);
}

#[tokio::test]
async fn txt_strings_and_import_limits_over_http() {
    let s = Server::start_with(&[("MERIDIAN_DNS__IMPORT_MAX_BYTES", "4096")]);
    let dns = s.dns.unwrap();
    let (_, key) = s.signup("dns-txt@example.com").await;
    let zone = create_zone(&s, &key, "example.org").await;
    let zid = zone["id"].as_str().unwrap();
    let import = |body: String| {
        s.client
            .post(s.url(&format!("/v1/dns/zones/{zid}/import")))
            .bearer_auth(&key)
            .header("content-type", "text/dns")
            .body(body)
            .send()
    };
    let r = import("$ORIGIN example.org.\nt IN TXT ( \"hello\" \"world\" )\n".to_owned()).await.unwrap();
    assert_eq!(r.status(), 200);
    let out: Value = r.json().await.unwrap();
    assert_eq!(out["added"][0]["content"], "\"hello\" \"world\"", "{out}");
    let r = api(
        &s,
        "POST",
        &format!("/v1/dns/zones/{zid}/records"),
        &key,
        Some(json!({"type": "TXT", "name": "u", "content": "\"v=spf1\" \"-all\""})),
    )
    .await;
    assert_eq!(r.status(), 201);
    let r = api(
        &s,
        "POST",
        &format!("/v1/dns/zones/{zid}/records"),
        &key,
        Some(json!({"type": "TXT", "name": "v", "content": "\"open"})),
    )
    .await;
    let p = problem(r, 422, "validation_failed").await;
    assert_eq!(
        (p["errors"][0]["pointer"].as_str(), p["errors"][0]["code"].as_str()),
        (Some("/content"), Some("invalid_txt"))
    );
    let m = until(dns, "t.example.org.", RecordType::TXT, |m| !m.answers.is_empty()).await;
    match &m.answers[0].data {
        RData::TXT(t) => assert_eq!(
            t.txt_data.iter().map(|s| s.to_vec()).collect::<Vec<_>>(),
            vec![b"hello".to_vec(), b"world".to_vec()]
        ),
        other => panic!("{other:?}"),
    }
    let text = s.get(&format!("/v1/dns/zones/{zid}/export"), &key).await.text().await.unwrap();
    assert!(text.contains("t\t3600\tIN\tTXT\t\"hello\" \"world\""), "{text}");
    assert!(text.contains("u\t3600\tIN\tTXT\t\"v=spf1\" \"-all\""), "{text}");
    // A master file over dns.import_max_bytes is refused whole.
    let big: String = (0..400).map(|i| format!("h{i} A 192.0.2.1\n")).collect();
    let r = import(big).await.unwrap();
    problem(r, 413, "payload_too_large").await;
}

/// A zone's change history: its own `dns.*` events, newest first, as receivers get them, paged by
/// cursor; another zone's and another account's are not there.
#[tokio::test]
async fn a_zone_lists_its_changes_newest_first() {
    let s = Server::start();
    let (_, key) = s.signup("dns-changes@example.com").await;
    let (_, other) = s.signup("dns-changes-other@example.com").await;
    let zone = create_zone(&s, &key, "changes.example").await;
    let zid = zone["id"].as_str().unwrap();
    let elsewhere = create_zone(&s, &key, "elsewhere.example").await;
    let r = create_record(&s, &key, zid, json!({"type": "A", "name": "www", "content": "192.0.2.1"})).await;
    let rid = r.json::<Value>().await.unwrap()["id"].as_str().unwrap().to_owned();
    let eid = elsewhere["id"].as_str().unwrap();
    assert_eq!(
        create_record(&s, &key, eid, json!({"type": "A", "name": "x", "content": "192.0.2.9"})).await.status(),
        201
    );
    let path = format!("/v1/dns/zones/{zid}/records/{rid}");
    assert_eq!(api(&s, "PATCH", &path, &key, Some(json!({"content": "192.0.2.2"}))).await.status(), 200);
    assert_eq!(api(&s, "DELETE", &path, &key, None).await.status(), 200);

    let list: Value = s.get(&format!("/v1/dns/zones/{zid}/changes"), &key).await.json().await.unwrap();
    let kinds: Vec<&str> = list["changes"].as_array().unwrap().iter().map(|c| c["event"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["dns.record.deleted", "dns.record.updated", "dns.record.created", "dns.zone.created"], "{list}");
    assert_eq!(list["total"], 4);
    assert!(list["changes"].as_array().unwrap().iter().all(|c| c["zone_id"] == zid));
    assert_eq!(list["changes"][1]["record"]["content"], "192.0.2.2");

    // Two at a time by the next link's cursor: the same changes.
    let first = s.get(&format!("/v1/dns/zones/{zid}/changes?limit=2"), &key).await;
    let link = first.headers()["link"].to_str().unwrap().to_owned();
    let next = link.split(',').find(|l| l.contains("rel=\"next\"")).unwrap();
    let next = next[next.find('<').unwrap() + 1..next.find('>').unwrap()].to_owned();
    assert!(next.contains("cursor="), "{link}");
    let page: Value = first.json().await.unwrap();
    let rest: Value = s.get(&next[next.find("/v1/").unwrap()..], &key).await.json().await.unwrap();
    let ids = |v: &Value| v["changes"].as_array().unwrap().iter().map(|c| c["id"].clone()).collect::<Vec<_>>();
    assert_eq!([ids(&page), ids(&rest)].concat(), ids(&list));

    crate::problem(s.get(&format!("/v1/dns/zones/{zid}/changes"), &other).await, 404, "not_found").await;
}
