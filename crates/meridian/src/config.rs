//! Loading the configuration: compiled-in defaults, then a TOML file, then `MERIDIAN_*`
//! environment variables (nested with `__`), then flags.

use anyhow::Context;
use figment::providers::{Format, Serialized, Toml};
use figment::Figment;
use meridian_core::config::Config;
use std::path::Path;

/// The commented defaults, compiled in.
pub(crate) const DEFAULTS: &str = include_str!("../config.default.toml");

/// Values given as flags, which win over everything else.
#[derive(Debug, Default)]
pub(crate) struct Overrides {
    pub(crate) data_dir: Option<std::path::PathBuf>,
    pub(crate) http: Option<std::net::SocketAddr>,
    pub(crate) dns: Option<std::net::SocketAddr>,
    pub(crate) roles: Option<meridian_core::config::RolesConfig>,
}

/// Loads and checks the configuration.
pub(crate) fn load(file: Option<&Path>, env: &[(String, String)], flags: &Overrides) -> anyhow::Result<Config> {
    let mut figment = Figment::from(Toml::string(DEFAULTS));
    if let Some(file) = file {
        anyhow::ensure!(file.exists(), "configuration file {} does not exist", file.display());
        // A syntax error is told with the file and line (figment would name neither).
        let text = std::fs::read_to_string(file)
            .map_err(|e| anyhow::anyhow!("configuration file {} cannot be read: {e}", file.display()))?;
        if let Err(e) = text.parse::<toml::Table>() {
            anyhow::bail!("configuration file {} is not valid TOML: {}", file.display(), e.to_string().trim_end());
        }
        figment = figment.merge(Toml::file(file));
    }
    figment = figment.merge(EnvSnapshot(env.to_vec()));
    if let Some(d) = &flags.data_dir {
        figment = figment.merge(Serialized::default("server.data_dir", d));
    }
    if let Some(a) = flags.http {
        figment = figment.merge(Serialized::default("server.http", a.to_string()));
    }
    if let Some(a) = flags.dns {
        figment = figment.merge(Serialized::default("server.dns", a.to_string()));
    }
    if let Some(roles) = &flags.roles {
        figment = figment.merge(Serialized::default("server.roles", roles));
    }
    let config: Config = figment.extract().map_err(|e| anyhow::anyhow!(describe(e)))?;
    config.validate().map_err(|problems| anyhow::anyhow!("invalid configuration:\n  {}", problems.join("\n  ")))?;
    Ok(config)
}

/// Figment's errors, one line each, naming the key and where it came from.
fn describe(e: figment::Error) -> String {
    let lines: Vec<String> = e
        .into_iter()
        .map(|e| {
            let key = e.path.join(".");
            let source = e.metadata.as_ref().map(|m| m.name.to_string()).unwrap_or_default();
            match e.kind {
                figment::error::Kind::UnknownField(field, _) => {
                    // Figment's path already ends with the unknown field; older versions stop at
                    // the parent.
                    let at = if e.path.last() == Some(&field) {
                        key
                    } else if key.is_empty() {
                        field.clone()
                    } else {
                        format!("{key}.{field}")
                    };
                    format!("unknown configuration key `{at}` ({source})")
                }
                kind => format!("configuration key `{key}`: {kind} ({source})"),
            }
        })
        .collect();
    format!("invalid configuration:\n  {}", lines.join("\n  "))
}

/// `MERIDIAN_*` variables that belong to the test and CI tooling, not to the server's
/// configuration: `MERIDIAN_CONFIG` (the file), `MERIDIAN_REQUIRE_TOOLS` (interop tests fail
/// instead of skipping), the fuzz runner's `MERIDIAN_FUZZ_*` and the second backend of the test
/// suites (`MERIDIAN_TEST_POSTGRES`, `MERIDIAN_TEST_S3`). Every other `MERIDIAN_*` variable must
/// name a configuration key.
const NOT_CONFIGURATION: &[&str] =
    &["require_tools", "fuzz_iterations", "fuzz_seed", "fuzz_budget_ms", "test_postgres", "test_s3", "test_redis"];

/// `MERIDIAN_*` variables of an environment read once at start-up (so that tests can pass their
/// own): `MERIDIAN_A__B=v` sets `a.b`, values parsed like TOML values.
struct EnvSnapshot(Vec<(String, String)>);

impl figment::Provider for EnvSnapshot {
    fn metadata(&self) -> figment::Metadata {
        figment::Metadata::named("MERIDIAN_* environment variable")
    }

    fn data(&self) -> Result<figment::value::Map<figment::Profile, figment::value::Dict>, figment::Error> {
        let mut dict = figment::value::Dict::new();
        for (k, v) in &self.0 {
            let Some(rest) = k.strip_prefix("MERIDIAN_") else { continue };
            let key = rest.to_ascii_lowercase().replace("__", ".");
            if key == "config" || key.is_empty() || NOT_CONFIGURATION.contains(&key.as_str()) {
                continue;
            }
            let value: figment::value::Value = v.parse().unwrap_or_else(|_| figment::value::Value::from(v.clone()));
            let nested = figment::util::nest(&key, value);
            if let figment::value::Value::Dict(_, d) = nested {
                for (k, v) in d {
                    merge_into(&mut dict, k, v);
                }
            }
        }
        Ok(figment::Profile::Default.collect(dict))
    }
}

fn merge_into(dict: &mut figment::value::Dict, key: String, value: figment::value::Value) {
    use figment::value::Value;
    match (dict.get_mut(&key), value) {
        (Some(Value::Dict(_, existing)), Value::Dict(_, incoming)) => {
            for (k, v) in incoming {
                merge_into(existing, k, v);
            }
        }
        (_, value) => {
            dict.insert(key, value);
        }
    }
}

/// Effective configuration as TOML, secrets shown as `[redacted]`.
pub(crate) fn print(config: &Config) -> anyhow::Result<String> {
    toml::to_string_pretty(config).context("rendering the configuration")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn defaults_file_matches_the_code() -> anyhow::Result<()> {
        let loaded = load(None, &[], &Overrides::default())?;
        assert_eq!(print(&loaded)?, print(&Config::default())?);
        Ok(())
    }

    #[test]
    fn layers_win_in_order() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let file = dir.path().join("m.toml");
        std::fs::write(&file, "[server]\nhttp = \"127.0.0.1:9000\"\ndata_dir = \"/from/file\"\n[jobs]\nworkers = 7\n")?;
        let vars = env(&[
            ("MERIDIAN_JOBS__WORKERS", "9"),
            ("MERIDIAN_WEBHOOKS__ALLOW_HTTP", "true"),
            ("OTHER", "x"),
            ("MERIDIAN_REQUIRE_TOOLS", "1"),
            ("MERIDIAN_FUZZ_SEED", "7"),
        ]);
        let flags = Overrides { data_dir: Some("/from/flag".into()), ..Default::default() };
        let c = load(Some(&file), &vars, &flags)?;
        assert_eq!(c.server.http.port(), 9000);
        assert_eq!(c.jobs.workers, 9);
        assert!(c.webhooks.allow_http);
        assert_eq!(c.server.data_dir, std::path::PathBuf::from("/from/flag"));
        Ok(())
    }

    #[test]
    fn unknown_keys_are_refused_by_name() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let file = dir.path().join("m.toml");
        std::fs::write(&file, "[server]\nhttpp = \"127.0.0.1:9000\"\n")?;
        let err = load(Some(&file), &[], &Overrides::default()).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("unknown configuration key `server.httpp` ("), "{err}");
        assert!(!err.contains("httpp.httpp"), "{err}");
        let err = load(None, &env(&[("MERIDIAN_WEBHOOKS__ALLOW_HTTPS", "true")]), &Overrides::default())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("unknown configuration key `webhooks.allow_https` ("), "{err}");
        std::fs::write(&file, "htttp = 1\n")?;
        let err = load(Some(&file), &[], &Overrides::default()).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("unknown configuration key `htttp` ("), "{err}");
        Ok(())
    }

    #[test]
    fn invalid_values_are_refused() {
        let err = load(None, &env(&[("MERIDIAN_AUTH__SIGNUP", "maybe")]), &Overrides::default()).err();
        assert!(err.map(|e| e.to_string()).unwrap_or_default().contains("auth.signup"));
    }
}
