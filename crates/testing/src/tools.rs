//! Tests that drive an external tool skip, saying so, when it is absent on a developer's
//! machine; with `MERIDIAN_REQUIRE_TOOLS=1` (set by `.ci/run`) a missing tool fails the test
//! instead, so CI cannot pass by skipping.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether missing tools fail tests rather than skip them.
fn tools_required() -> bool {
    std::env::var("MERIDIAN_REQUIRE_TOOLS").is_ok_and(|v| v == "1")
}

/// Skips (`false`) or, when tools are required, fails `test` because `what` is missing.
pub fn missing(what: &str, test: &str) -> bool {
    skip_or_fail(tools_required(), what, test)
}

fn skip_or_fail(required: bool, what: &str, test: &str) -> bool {
    assert!(!required, "{test}: {what} is not installed and MERIDIAN_REQUIRE_TOOLS=1 (.ci/run installs it)");
    eprintln!("skipping {test}: {what} is not installed (.ci/run installs it)");
    false
}

/// Whether the command `name` is on the PATH; see [`missing`] for when it is not.
pub fn have_tool(name: &str, test: &str) -> bool {
    let found =
        Command::new("sh").args(["-c", &format!("command -v {name}")]).output().is_ok_and(|o| o.status.success());
    found || missing(&format!("`{name}`"), test)
}

/// Whether `python` can import `module`; see [`missing`] for when it cannot.
pub fn have_python_module(python: &str, module: &str, test: &str) -> bool {
    if !have_tool(python, test) {
        return false;
    }
    let found =
        Command::new(python).args(["-c", &format!("import {module}")]).output().is_ok_and(|o| o.status.success());
    found || missing(&format!("the Python module `{module}` (for {python})"), test)
}

/// Headless Chromium for browser tests: `$CHROMIUM`, else Debian's `/usr/bin/chromium`; see
/// [`missing`] for when it is not there.
pub fn chromium(test: &str) -> Option<String> {
    let path = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned());
    if Path::new(&path).is_file() {
        Some(path)
    } else {
        missing(&format!("Chromium ({path}; set CHROMIUM)"), test);
        None
    }
}

/// The folder of the npm package `name` (holding `marker`): `$env`, else where `.ci/run` installs
/// the pinned packages (`$HOME/.cache/meridian-ci/npm/node_modules/<name>`); see [`missing`] for
/// when it is not there.
pub fn npm_package(env: &str, name: &str, marker: &str, test: &str) -> Option<PathBuf> {
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

/// Where a test keeps what it wants looked at afterwards (screenshots): `target/test-artefacts/<name>`,
/// `target` being the one the running test binary was built in.
pub fn test_artefacts(name: &str) -> PathBuf {
    let target = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.ancestors().nth(3).map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    target.join("test-artefacts").join(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "MERIDIAN_REQUIRE_TOOLS=1")]
    fn a_missing_tool_fails_the_test_when_tools_are_required() {
        skip_or_fail(true, "`no-such-tool`", "example");
    }

    #[test]
    fn a_missing_tool_skips_the_test_otherwise() {
        assert!(!skip_or_fail(false, "`no-such-tool`", "example"));
    }
}
