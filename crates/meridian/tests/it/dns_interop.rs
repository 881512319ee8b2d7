//! The DNS server checked by independent implementations: `dig` (queries, TCP, AXFR),
//! `nsupdate` (RFC 2136 with TSIG), `delv` (DNSSEC validation from our DS as the trust anchor)
//! and `ldns-verify-zone` (every signature and the NSEC chain of a transferred zone).

use crate::dns::{a_records, api, ask, create_zone, until};
use crate::{have_tool, Server};
use hickory_proto::op::ResponseCode;
use hickory_proto::rr::RecordType;
use serde_json::{json, Value};
use std::process::Command;
use std::time::{Duration, Instant};

const TSIG_SECRET: &str = "bWVyaWRpYW4tdGVzdC1rZXktMDEyMzQ1Njc4OWFiY2RlZg==";

/// A server with extra configuration from a TOML file; the file's directory lives as long as it.
fn start_configured(toml: &str) -> (Server, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("meridian.toml");
    std::fs::write(&path, toml).unwrap();
    (Server::start_with(&[("MERIDIAN_CONFIG", path.to_str().unwrap())]), dir)
}

fn run(cmd: &str, args: &[String]) -> (bool, String) {
    let out = Command::new(cmd).args(args).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

fn dig(port: u16, args: &[&str]) -> String {
    let mut all =
        vec!["@127.0.0.1".to_owned(), "-p".to_owned(), port.to_string(), "+time=5".to_owned(), "+tries=1".to_owned()];
    all.extend(args.iter().map(|s| (*s).to_owned()));
    run("dig", &all).1
}

async fn zone_with_records(s: &Server, key: &str, name: &str) -> String {
    let zone = create_zone(s, key, name).await;
    let zid = zone["id"].as_str().unwrap().to_owned();
    let body = json!({"creates": [
        {"type": "A", "name": "www", "content": "192.0.2.1"},
        {"type": "AAAA", "name": "www", "content": "2001:db8::1"},
        {"type": "MX", "name": "@", "content": format!("mail.{name}"), "priority": 10},
        {"type": "A", "name": "mail", "content": "192.0.2.25"},
        {"type": "A", "name": "*.apps", "content": "192.0.2.80"},
        {"type": "CNAME", "name": "docs", "content": format!("www.{name}")},
        {"type": "TXT", "name": "@", "content": "v=spf1 -all"},
        {"type": "NS", "name": "delegated", "content": format!("ns1.delegated.{name}")},
        {"type": "A", "name": "ns1.delegated", "content": "192.0.2.53"},
    ]});
    let r = api(s, "POST", &format!("/v1/dns/zones/{zid}/records/batch"), key, Some(body)).await;
    assert_eq!(r.status(), 200);
    zid
}

#[tokio::test]
async fn dig_sees_api_changes_over_udp_tcp_and_axfr() {
    if !have_tool("dig", "dig_sees_api_changes_over_udp_tcp_and_axfr") {
        return;
    }
    let (s, _cfg) = start_configured("[dns]\nallow_transfer = [\"127.0.0.1\"]\n");
    let port = s.dns.unwrap().port();
    let (_, key) = s.signup("dig@example.com").await;
    zone_with_records(&s, &key, "example.com").await;
    until(s.dns.unwrap(), "www.example.com.", RecordType::A, |m| !a_records(m).is_empty()).await;
    assert_eq!(dig(port, &["+short", "www.example.com", "A"]).trim(), "192.0.2.1");
    assert_eq!(dig(port, &["+short", "+tcp", "WWW.EXAMPLE.COM", "AAAA"]).trim(), "2001:db8::1");
    let full = dig(port, &["+norec", "docs.example.com", "A"]);
    assert!(full.contains("status: NOERROR") && full.contains("flags: qr aa"), "{full}");
    assert!(full.contains("docs.example.com.\t3600\tIN\tCNAME\twww.example.com."), "{full}");
    let nx = dig(port, &["+norec", "nope.example.com", "A"]);
    assert!(nx.contains("status: NXDOMAIN") && nx.contains("IN\tSOA\tns1.meridian.invalid."), "{nx}");
    let wild = dig(port, &["+short", "anything.apps.example.com", "A"]);
    assert_eq!(wild.trim(), "192.0.2.80");
    let referral = dig(port, &["+norec", "host.delegated.example.com", "A"]);
    assert!(referral.contains("flags: qr;") && referral.contains("AUTHORITY: 1"), "not authoritative: {referral}");
    assert!(
        referral.contains("IN\tNS\tns1.delegated.example.com.") && referral.contains("IN\tA\t192.0.2.53"),
        "{referral}"
    );
    let refused = dig(port, &["+norec", "example.org", "SOA"]);
    assert!(refused.contains("status: REFUSED"), "{refused}");
    let axfr = dig(port, &["example.com", "AXFR"]);
    assert_eq!(axfr.matches("\tIN\tSOA\t").count(), 2, "{axfr}");
    assert!(axfr.contains("XFR size: 13 records"), "nine records, two NS, the SOA twice: {axfr}");
}

#[tokio::test]
async fn axfr_is_refused_to_addresses_not_allowed() {
    if !have_tool("dig", "axfr_is_refused_to_addresses_not_allowed") {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("noxfr@example.com").await;
    zone_with_records(&s, &key, "example.com").await;
    until(s.dns.unwrap(), "www.example.com.", RecordType::A, |m| !a_records(m).is_empty()).await;
    let axfr = dig(s.dns.unwrap().port(), &["example.com", "AXFR"]);
    assert!(axfr.contains("Transfer failed") || axfr.contains("REFUSED"), "{axfr}");
}

#[tokio::test]
async fn nsupdate_with_a_tsig_key_changes_the_zone_like_the_api() {
    if !have_tool("nsupdate", "nsupdate_with_a_tsig_key_changes_the_zone_like_the_api") {
        return;
    }
    let config = format!(
        "[dns]\ntsig_keys = [{{ name = \"acme-key\", secret = \"{TSIG_SECRET}\", transfer = true, update = [\"example.com\"] }}]\n"
    );
    let (s, cfg) = start_configured(&config);
    let dns = s.dns.unwrap();
    let (_, key) = s.signup("nsupdate@example.com").await;
    let zid = zone_with_records(&s, &key, "example.com").await;
    until(dns, "www.example.com.", RecordType::A, |m| !a_records(m).is_empty()).await;
    let script = cfg.path().join("update.txt");
    std::fs::write(
        &script,
        format!(
            "server 127.0.0.1 {}\nzone example.com\nupdate add _acme-challenge.example.com. 60 TXT \"tok-123\"\nsend\n",
            dns.port()
        ),
    )
    .unwrap();
    let (ok, out) =
        run("nsupdate", &["-y".into(), format!("hmac-sha256:acme-key:{TSIG_SECRET}"), script.to_str().unwrap().into()]);
    assert!(ok, "{out}");
    let list: Value =
        s.get(&format!("/v1/dns/zones/{zid}/records?type=TXT&name=_acme-challenge"), &key).await.json().await.unwrap();
    assert_eq!(list["total"], 1, "{list}");
    assert_eq!(list["records"][0]["content"], "tok-123");
    until(dns, "_acme-challenge.example.com.", RecordType::TXT, |m| !m.answers.is_empty()).await;
    // The wrong secret is refused and changes nothing.
    std::fs::write(
        &script,
        format!(
            "server 127.0.0.1 {}\nzone example.com\nupdate delete _acme-challenge.example.com. TXT\nsend\n",
            dns.port()
        ),
    )
    .unwrap();
    let (ok, out) =
        run("nsupdate", &["-y".into(), "hmac-sha256:acme-key:d3Jvbmc=".into(), script.to_str().unwrap().into()]);
    assert!(!ok, "{out}");
    let (ok, out) =
        run("nsupdate", &["-y".into(), format!("hmac-sha256:acme-key:{TSIG_SECRET}"), script.to_str().unwrap().into()]);
    assert!(ok, "{out}");
    until(dns, "_acme-challenge.example.com.", RecordType::TXT, |m| m.metadata.response_code == ResponseCode::NXDomain)
        .await;
    // The TSIG key can transfer the zone too.
    if have_tool("dig", "nsupdate_with_a_tsig_key_changes_the_zone_like_the_api (axfr)") {
        let axfr = dig(dns.port(), &["-y", &format!("hmac-sha256:acme-key:{TSIG_SECRET}"), "example.com", "AXFR"]);
        assert_eq!(axfr.matches("\tIN\tSOA\t").count(), 2, "{axfr}");
    }
}

/// A signed zone: returns the DS line from the API, once the server answers with signatures.
async fn signed_zone(s: &Server, key: &str) -> Value {
    let zid = zone_with_records(s, key, "example.com").await;
    let r = api(s, "POST", &format!("/v1/dns/zones/{zid}/dnssec"), key, None).await;
    assert_eq!(r.status(), 201);
    let on: Value = r.json().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ask(s.dns.unwrap(), "www.example.com.", RecordType::A, true)
        .await
        .answers
        .iter()
        .any(|r| r.record_type() == RecordType::RRSIG)
    {
        assert!(Instant::now() < deadline, "the zone was never served signed");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    on
}

#[tokio::test]
async fn delv_validates_every_kind_of_answer_from_our_ds() {
    if !have_tool("delv", "delv_validates_every_kind_of_answer_from_our_ds") {
        return;
    }
    let s = Server::start();
    let (_, key) = s.signup("delv@example.com").await;
    let on = signed_zone(&s, &key).await;
    let ds = &on["ds"][0];
    let anchors = s.dir.path().join("anchors.conf");
    std::fs::write(
        &anchors,
        format!(
            "trust-anchors {{ example.com. static-ds {} {} {} \"{}\"; }};\n",
            ds["key_tag"],
            ds["algorithm"],
            ds["digest_type"],
            ds["digest"].as_str().unwrap()
        ),
    )
    .unwrap();
    let port = s.dns.unwrap().port().to_string();
    let delv = |name: &str, qtype: &str| {
        let args: Vec<String> =
            ["@127.0.0.1", "-p", &port, "-a", anchors.to_str().unwrap(), "+root=example.com", name, qtype]
                .iter()
                .map(|s| (*s).to_owned())
                .collect();
        run("delv", &args).1
    };
    for (name, qtype, expect) in [
        ("www.example.com", "A", "; fully validated"),
        ("example.com", "MX", "; fully validated"),
        ("docs.example.com", "A", "; fully validated"),
        ("anything.apps.example.com", "A", "; fully validated"),
        ("example.com", "DNSKEY", "; fully validated"),
        ("nope.example.com", "A", "; negative response, fully validated"),
        ("www.example.com", "TXT", "; negative response, fully validated"),
        ("nope.apps.example.com", "TXT", "; negative response, fully validated"),
    ] {
        let out = delv(name, qtype);
        assert!(out.contains(expect), "{name} {qtype}:\n{out}");
    }
    // A wrong anchor must not validate.
    std::fs::write(&anchors, "trust-anchors { example.com. static-ds 1 13 2 \"0000000000000000000000000000000000000000000000000000000000000000\"; };\n").unwrap();
    let out = delv("www.example.com", "A");
    assert!(!out.contains("fully validated"), "{out}");
}

#[tokio::test]
async fn ldns_verify_zone_accepts_the_signed_zone_we_transfer() {
    if !have_tool("ldns-verify-zone", "ldns_verify_zone_accepts_the_signed_zone_we_transfer")
        || !have_tool("dig", "ldns_verify_zone_accepts_the_signed_zone_we_transfer")
    {
        return;
    }
    let (s, cfg) = start_configured("[dns]\nallow_transfer = [\"127.0.0.1\"]\n");
    let (_, key) = s.signup("ldns@example.com").await;
    signed_zone(&s, &key).await;
    let axfr = dig(s.dns.unwrap().port(), &["+nocmd", "+nostats", "+nocomments", "example.com", "AXFR"]);
    let lines: Vec<&str> = axfr.lines().filter(|l| !l.starts_with(';') && !l.trim().is_empty()).collect();
    // The transfer ends with the SOA again; a zone file holds it once.
    let file = cfg.path().join("example.com.zone");
    std::fs::write(&file, lines[..lines.len() - 1].join("\n") + "\n").unwrap();
    let (ok, out) = run("ldns-verify-zone", &[file.to_str().unwrap().to_owned()]);
    assert!(ok, "{out}\n{axfr}");
    assert!(out.contains("Zone is verified and complete"), "{out}");
}

/// A process stopped with SIGTERM (so that NSD takes its children with it) when dropped.
struct Daemon(std::process::Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.0.id().to_string()]).status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if matches!(self.0.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    loop {
        let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let port = udp.local_addr().unwrap().port();
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

#[tokio::test]
async fn nsd_replicates_a_zone_by_axfr_and_follows_changes_on_notify() {
    let test = "nsd_replicates_a_zone_by_axfr_and_follows_changes_on_notify";
    if !have_tool("nsd", test) || !have_tool("dig", test) {
        return;
    }
    let nsd_port = free_port();
    let (s, cfg) =
        start_configured(&format!("[dns]\nallow_transfer = [\"127.0.0.1\"]\nnotify = [\"127.0.0.1:{nsd_port}\"]\n"));
    let dns = s.dns.unwrap();
    let (_, key) = s.signup("nsd@example.com").await;
    let zid = zone_with_records(&s, &key, "example.com").await;
    until(dns, "www.example.com.", RecordType::A, |m| !a_records(m).is_empty()).await;
    let dir = cfg.path();
    let conf = dir.join("nsd.conf");
    std::fs::write(
        &conf,
        format!(
            "server:\n  ip-address: 127.0.0.1\n  port: {nsd_port}\n  zonesdir: \"{d}\"\n  zonelistfile: \"{d}/zone.list\"\n  database: \"\"\n  pidfile: \"{d}/nsd.pid\"\n  xfrdfile: \"{d}/xfrd.state\"\n  xfrdir: \"{d}\"\n  username: \"\"\n  logfile: \"{d}/nsd.log\"\n  xfrd-reload-timeout: 0\nremote-control:\n  control-enable: no\nzone:\n  name: example.com\n  zonefile: example.com.zone\n  request-xfr: AXFR 127.0.0.1@{port} NOKEY\n  allow-notify: 127.0.0.1 NOKEY\n",
            d = dir.display(),
            port = dns.port()
        ),
    )
    .unwrap();
    let _nsd = Daemon(Command::new("nsd").args(["-d", "-c", conf.to_str().unwrap()]).spawn().unwrap());
    let from_nsd = |name: &str| dig(nsd_port, &["+short", name, "A"]).trim().to_owned();
    let deadline = Instant::now() + Duration::from_secs(20);
    while from_nsd("www.example.com") != "192.0.2.1" {
        let log = std::fs::read_to_string(dir.join("nsd.log")).unwrap_or_default();
        assert!(Instant::now() < deadline, "NSD never transferred the zone:\n{log}");
        std::thread::sleep(Duration::from_millis(100));
    }
    // The SOA refresh is an hour: only the NOTIFY can make NSD fetch the change this soon.
    let r = api(
        &s,
        "POST",
        &format!("/v1/dns/zones/{zid}/records"),
        &key,
        Some(json!({"type": "A", "name": "late", "content": "192.0.2.99"})),
    )
    .await;
    assert_eq!(r.status(), 201);
    let deadline = Instant::now() + Duration::from_secs(20);
    while from_nsd("late.example.com") != "192.0.2.99" {
        let log = std::fs::read_to_string(dir.join("nsd.log")).unwrap_or_default();
        assert!(Instant::now() < deadline, "NSD never picked up the change:\n{log}");
        std::thread::sleep(Duration::from_millis(100));
    }
    let soa = |port: u16| dig(port, &["+short", "example.com", "SOA"]).trim().to_owned();
    assert_eq!(soa(nsd_port), soa(dns.port()), "the secondary has our serial");
}

/// Zonemaster's messages (WARNING or worse) that the test's own set-up causes: loopback name
/// server addresses, which are private, have no reverse names and sit on localhost.
const LOOPBACK_ONLY: [&str; 3] =
    ["NAMESERVER_IP_PRIVATE_NETWORK", "NAMESERVER_IP_WITHOUT_REVERSE", "Z01_MNAME_HAS_LOCALHOST_ADDR"];

/// Runs zonemaster-cli in undelegated mode against the two name servers every zone names,
/// ns1.example.com at 127.0.0.1 and ns2.example.com at 127.0.0.2 (one listener on 0.0.0.0:53);
/// returns the WARNING-or-worse lines not caused by loopback.
fn zonemaster(zone: &str, ds: Option<&Value>) -> (Vec<String>, String) {
    let mut args: Vec<String> =
        ["--no-ipv6", "--level", "WARNING", "--raw", "--show-testcase"].iter().map(|s| (*s).to_owned()).collect();
    for (ns, ip) in [("ns1", "127.0.0.1"), ("ns2", "127.0.0.2")] {
        args.extend(["--ns".to_owned(), format!("{ns}.example.com/{ip}")]);
    }
    if let Some(ds) = ds {
        let ds =
            format!("{},{},{},{}", ds["key_tag"], ds["algorithm"], ds["digest_type"], ds["digest"].as_str().unwrap());
        args.extend(["--ds".to_owned(), ds]);
    }
    args.push(zone.to_owned());
    let (_, out) = run("zonemaster-cli", &args);
    let bad = out
        .lines()
        .filter(|l| ["WARNING", "ERROR", "CRITICAL"].iter().any(|lvl| l.split_whitespace().nth(1) == Some(lvl)))
        .filter(|l| !LOOPBACK_ONLY.iter().any(|tag| l.contains(tag)))
        .map(str::to_owned)
        .collect();
    (bad, out)
}

#[tokio::test]
async fn zonemaster_finds_nothing_wrong_with_a_signed_and_an_unsigned_zone() {
    let test = "zonemaster_finds_nothing_wrong_with_a_signed_and_an_unsigned_zone";
    if !have_tool("zonemaster-cli", test) {
        return;
    }
    // Zonemaster asks on port 53 only.
    if std::net::UdpSocket::bind("0.0.0.0:53").is_err() || std::net::TcpListener::bind("0.0.0.0:53").is_err() {
        println!("skipping {test}: port 53 cannot be listened on here");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("meridian.toml");
    std::fs::write(
        &config,
        "[dns]\nnameservers = [\"ns1.example.com\", \"ns2.example.com\"]\n[dns.soa]\nrname = \"hostmaster.example.com\"\n",
    )
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let s = Server::start_listening(data, "0.0.0.0:53", &[("MERIDIAN_CONFIG", config.to_str().unwrap())]);
    let (_, key) = s.signup("zonemaster@example.com").await;
    // The name servers are named inside the zone (the same names for every zone), so the zone is
    // checked unsigned first, then signed.
    let zid = zone_with_records(&s, &key, "example.com").await;
    let glue = json!({"creates": [
        {"type": "A", "name": "ns1", "content": "127.0.0.1"},
        {"type": "A", "name": "ns2", "content": "127.0.0.2"},
    ]});
    let r = api(&s, "POST", &format!("/v1/dns/zones/{zid}/records/batch"), &key, Some(glue)).await;
    assert_eq!(r.status(), 200);
    for signed in [false, true] {
        let ds = if signed {
            let r = api(&s, "POST", &format!("/v1/dns/zones/{zid}/dnssec"), &key, None).await;
            assert_eq!(r.status(), 201);
            let on: Value = r.json().await.unwrap();
            Some(on["ds"][0].clone())
        } else {
            None
        };
        let dns = std::net::SocketAddr::from(([127, 0, 0, 2], 53));
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let m = ask(dns, "ns2.example.com.", RecordType::A, true).await;
            let ready =
                !m.answers.is_empty() && (!signed || m.answers.iter().any(|r| r.record_type() == RecordType::RRSIG));
            if ready {
                break;
            }
            assert!(Instant::now() < deadline, "the zone was never served");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let (bad, out) = zonemaster("example.com", ds.as_ref());
        assert!(bad.is_empty(), "zonemaster (signed: {signed}):\n{}\n\nfull output:\n{out}", bad.join("\n"));
    }
}
