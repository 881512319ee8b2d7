use crate::Server;
use std::process::Command;

fn meridian(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_meridian"));
    cmd.arg("--data-dir").arg(dir).args(args);
    // The same store a server started on this folder uses (the second backend when the suite
    // runs on it).
    for (k, v) in crate::second_backend(dir, env) {
        cmd.env(k, v);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn config_print_shows_layers_and_hides_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("meridian.toml");
    std::fs::write(
        &file,
        "[auth]\ntoken_secret = \"a-very-long-secret-that-must-not-leak-000\"\n[jobs]\nworkers = 5\n",
    )
    .unwrap();
    let out = meridian(
        dir.path(),
        &["--config", file.to_str().unwrap(), "config", "print"],
        &[("MERIDIAN_WEBHOOKS__ALLOW_HTTP", "true")],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("workers = 5"), "{text}");
    assert!(text.contains("allow_http = true"));
    assert!(text.contains("[redacted]") && !text.contains("must-not-leak"));
    assert!(text.contains("dns = \"127.0.0.1:5353\""));
}

#[test]
fn unknown_configuration_keys_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = meridian(dir.path(), &["config", "check"], &[("MERIDIAN_SERVER__HTTTP", "127.0.0.1:1")]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("server.htttp"), "{err}");
    let out = meridian(dir.path(), &["serve"], &[("MERIDIAN_NOPE", "1")]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope"));
}

/// A syntax error names the file and the line; `--help` points at a command a binary user has;
/// `config print --defaults` prints the built-in defaults, which load as a file of their own.
#[test]
fn configuration_mistakes_and_defaults_are_told_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.toml");
    std::fs::write(&file, "[server]\nhttp = \"127.0.0.1:1\"\n[jobs\nworkers = 2\n").unwrap();
    let out = meridian(dir.path(), &["--config", file.to_str().unwrap(), "config", "check"], &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("broken.toml") && err.contains("line 3"), "{err}");
    let help = meridian(dir.path(), &["--help"], &[]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("config print --defaults") && !help.contains("config.default.toml"), "{help}");
    let out = meridian(dir.path(), &["config", "print", "--defaults"], &[]);
    assert!(out.status.success());
    let defaults = dir.path().join("defaults.toml");
    std::fs::write(&defaults, &out.stdout).unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("cors_origins"));
    let out = meridian(dir.path(), &["--config", defaults.to_str().unwrap(), "config", "check"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn migrate_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    for _ in 0..2 {
        let out = meridian(dir.path(), &["migrate"], &[]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let said = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(said.contains("migrations applied to"), "{said}");
    }
    if std::env::var_os("MERIDIAN_TEST_POSTGRES").is_none() {
        assert!(dir.path().join("meridian.db").exists());
    }
}

#[tokio::test]
async fn account_create_prints_a_working_key() {
    let dir = tempfile::tempdir().unwrap();
    let out = meridian(dir.path(), &["account", "create", "--name", "Ops", "--email", "ops@example.com"], &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let key = text.lines().find_map(|l| l.strip_prefix("api_key: ")).unwrap().to_owned();
    let out = meridian(dir.path(), &["account", "create", "--name", "Ops", "--email", "bad"], &[]);
    assert!(!out.status.success());
    let s = Server::start_in(dir, &[("MERIDIAN_AUTH__SIGNUP", "closed")]);
    let me: serde_json::Value = s.get("/api/v1/account", &key).await.json().await.unwrap();
    assert_eq!(me["email"], "ops@example.com");
}

/// A second `serve` on a data folder another process serves is refused, naming the folder; once
/// the first has stopped the folder can be served again.
#[test]
fn a_data_folder_is_served_by_one_process_at_a_time() {
    let s = Server::start();
    let out = meridian(s.dir.path(), &["serve", "--http", "127.0.0.1:0", "--dns", "127.0.0.1:0"], &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("another meridian process is serving the data folder"), "{err}");
    let dir = s.stop();
    let again = Server::start_in(dir, &[]);
    drop(again);
}
