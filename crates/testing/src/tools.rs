//! Tests that drive an external tool skip, saying so, when it is absent on a developer's
//! machine; with `MERIDIAN_REQUIRE_TOOLS=1` (set by `.ci/run`) a missing tool fails the test
//! instead, so CI cannot pass by skipping.

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
