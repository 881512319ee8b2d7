//! The external-tool rule shared by every test crate (`meridian_testing::tools`).

#[allow(unused_imports)]
pub(crate) use meridian_testing::tools::{have_python_module, have_tool, missing};

/// The folder of the npm package `name` (holding `marker`): `$env`, else where `.ci/run` installs
/// the pinned packages (`$HOME/.cache/meridian-ci/npm/node_modules/<name>`); `None`, after the
/// missing-tool rule for `test`, when it is not there.
pub(crate) fn npm_package(env: &str, name: &str, marker: &str, test: &str) -> Option<std::path::PathBuf> {
    use std::path::PathBuf;
    let dir = std::env::var_os(env).map(PathBuf::from).or_else(|| {
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/meridian-ci/npm/node_modules").join(name))
    });
    match dir {
        Some(d) if d.join(marker).is_file() => Some(d),
        other => {
            let at = other.map_or_else(|| format!("${env}"), |d| d.display().to_string());
            missing(&format!("the npm package {name} (looked for {at}; set {env})"), test);
            None
        }
    }
}
