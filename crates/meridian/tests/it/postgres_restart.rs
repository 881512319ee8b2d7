//! PostgreSQL restarted under load: while it is down, writes are answered 503
//! `store_unavailable` (never a 500) and change nothing; once it is back the same server process
//! goes on without a restart; every write it acknowledged is there.
//!
//! The test runs a PostgreSQL of its own (initdb in a temporary folder, its own port), so that
//! stopping it disturbs nobody else.

use crate::dns::{api, create_record, create_zone};
use crate::Server;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The folder of PostgreSQL's server programs (`initdb`, `pg_ctl`).
pub(crate) fn postgres_bin() -> Option<PathBuf> {
    let out = Command::new("pg_config").arg("--bindir").output().ok()?;
    let dir = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    dir.join("pg_ctl").exists().then_some(dir)
}

/// Runs a PostgreSQL program as the `postgres` user when this process is root (PostgreSQL
/// refuses to run as root), as this user otherwise.
fn as_postgres(program: &Path, args: &[&str]) -> Command {
    let root = Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0")).unwrap_or(false);
    if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program).args(args);
        c
    } else {
        let mut c = Command::new(program);
        c.args(args);
        c
    }
}

pub(crate) struct Cluster {
    bin: PathBuf,
    data: PathBuf,
    _dir: tempfile::TempDir,
    pub(crate) port: u16,
}

impl Cluster {
    fn ctl(&self, args: &[&str]) {
        let data = self.data.to_string_lossy().into_owned();
        let mut all = vec!["-D", data.as_str(), "-w", "-t", "60"];
        all.extend_from_slice(args);
        let status = as_postgres(&self.bin.join("pg_ctl"), &all).stdout(std::process::Stdio::null()).status().unwrap();
        assert!(status.success(), "pg_ctl {args:?}");
    }

    pub(crate) fn start(&self) {
        let options = format!("-p {} -k {} -c listen_addresses=127.0.0.1", self.port, self.data.display());
        let log = self.data.join("log").to_string_lossy().into_owned();
        self.ctl(&["-l", &log, "-o", &options, "start"]);
    }

    pub(crate) fn stop(&self) {
        self.ctl(&["-m", "fast", "stop"]);
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.data.to_string_lossy().into_owned();
        let _ = as_postgres(&self.bin.join("pg_ctl"), &["-D", &data, "-m", "immediate", "stop"]).status();
    }
}

pub(crate) fn cluster() -> Cluster {
    let bin = postgres_bin().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("pg");
    std::fs::create_dir(&data).unwrap();
    let root = Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0")).unwrap_or(false);
    if root {
        for p in [dir.path(), data.as_path()] {
            assert!(Command::new("chown").args(["postgres:postgres"]).arg(p).status().unwrap().success());
        }
    }
    let d = data.to_string_lossy().into_owned();
    let out =
        as_postgres(&bin.join("initdb"), &["-D", &d, "-A", "trust", "-U", "postgres", "-E", "UTF8"]).output().unwrap();
    assert!(out.status.success(), "initdb: {}", String::from_utf8_lossy(&out.stderr));
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let c = Cluster { bin, data, _dir: dir, port };
    c.start();
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_restarted_under_load_loses_nothing_acknowledged() {
    let test = "a_database_restarted_under_load_loses_nothing_acknowledged";
    if postgres_bin().is_none() {
        crate::missing("PostgreSQL's server programs (pg_config --bindir with pg_ctl)", test);
        return;
    }
    let pg = cluster();
    let url = format!("postgres://postgres@127.0.0.1:{}/postgres", pg.port);
    let s = Server::start_with(&[
        ("MERIDIAN_STORAGE__DATABASE_URL", url.as_str()),
        ("MERIDIAN_STORAGE__ACQUIRE_TIMEOUT", "1s"),
    ]);
    let (_, key) = s.signup("restart@example.com").await;
    let zone = create_zone(&s, &key, "restart.example").await;
    let zid = zone["id"].as_str().unwrap().to_owned();

    let mut acknowledged = Vec::new();
    let mut unavailable = 0;
    let mut n = 0u32;
    let write = |n: u32| {
        let (s, key, zid) = (&s, key.clone(), zid.clone());
        async move {
            let body = json!({"type": "A", "name": format!("h{n}"), "content": "192.0.2.1"});
            let r = create_record(s, &key, &zid, body).await;
            let status = r.status().as_u16();
            let answer: Value = r.json().await.unwrap_or(Value::Null);
            (status, answer)
        }
    };
    // Writes before, during and after the outage.
    let phase = |t: Duration| Instant::now() + t;
    let until = phase(Duration::from_secs(2));
    while Instant::now() < until {
        n += 1;
        let (status, body) = write(n).await;
        assert_eq!(status, 201, "{body}");
        acknowledged.push(format!("h{n}"));
    }
    pg.stop();
    let until = phase(Duration::from_secs(3));
    while Instant::now() < until {
        n += 1;
        let (status, body) = write(n).await;
        match status {
            201 => acknowledged.push(format!("h{n}")),
            503 => {
                assert_eq!(body["code"], "store_unavailable", "{body}");
                unavailable += 1;
            }
            other => panic!("a write while the database is down answered {other}: {body}"),
        }
    }
    assert!(unavailable > 0, "no write met the outage");
    pg.start();
    // The same process recovers on its own.
    let deadline = phase(Duration::from_secs(30));
    loop {
        n += 1;
        let (status, body) = write(n).await;
        if status == 201 {
            acknowledged.push(format!("h{n}"));
            break;
        }
        assert_eq!(status, 503, "{body}");
        assert!(Instant::now() < deadline, "writes did not recover after the database came back");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for _ in 0..20 {
        n += 1;
        let (status, body) = write(n).await;
        assert_eq!(status, 201, "{body}");
        acknowledged.push(format!("h{n}"));
    }
    // Every acknowledged write is stored.
    let mut names = std::collections::HashSet::new();
    for offset in (0..).step_by(1000) {
        let path = format!("/v1/dns/zones/{zid}/records?limit=1000&offset={offset}");
        let listed: Value = api(&s, "GET", &path, &key, None).await.json().await.unwrap();
        let page = listed["records"].as_array().unwrap();
        names.extend(
            page.iter().filter_map(|r| r["name"].as_str().map(|n| n.split('.').next().unwrap_or(n).to_owned())),
        );
        if page.len() < 1000 {
            break;
        }
    }
    for name in &acknowledged {
        assert!(names.contains(name), "acknowledged record {name} is missing");
    }
    assert!(acknowledged.len() > 20);
}
