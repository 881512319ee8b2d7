//! Every problem code the source passes to a problem constructor is in the published registry
//! (`meridian_core::problem::REGISTRY`, rendered at `/docs/problems`), so that each problem's
//! `type` link has its anchor. The scan reads `crates/*/src/**/*.rs` as text: it finds calls of the
//! constructors below and of any function in the same file with a parameter named `code` that it
//! passes on, and takes the code argument when it is a string literal or a `code::NAME` constant.

use meridian_core::problem::{code, lookup, REGISTRY};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Calls whose argument at the index is a problem code, in every file.
const CONSTRUCTORS: &[(&str, usize)] =
    &[("ApiError::new", 1), ("Problem::new", 1), ("Self::new", 1), ("DomainError::conflict", 0), ("conflict", 0)];

/// A code found in the source: the literal (or resolved constant) and where.
#[derive(Debug, PartialEq)]
struct Use {
    code: String,
    line: usize,
}

/// The `pub const NAME: &str = "value";` constants of `problem.rs`'s `code` module.
fn constants(problem_rs: &str) -> BTreeMap<String, String> {
    let module = problem_rs.split_once("pub mod code {").map_or("", |(_, m)| m.split_once("\n}").map_or(m, |p| p.0));
    module
        .lines()
        .filter_map(|l| {
            let rest = l.trim().strip_prefix("pub const ")?;
            let (name, rest) = rest.split_once(": &str = \"")?;
            let value = rest.strip_suffix("\";")?;
            Some((name.to_owned(), value.to_owned()))
        })
        .collect()
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Skips a string or char literal starting at `i`; returns the index after it, or `None`.
fn skip_literal(b: &[u8], i: usize) -> Option<usize> {
    match b[i] {
        b'"' => {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            Some(j + 1)
        }
        b'r' if b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#') => {
            let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
            let open = i + 1 + hashes;
            if b.get(open) != Some(&b'"') {
                return None;
            }
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            let end = b[open + 1..].windows(close.len()).position(|w| w == close.as_slice())?;
            Some(open + 1 + end + close.len())
        }
        // A char literal ('x', '\n', '\''), not a lifetime.
        b'\'' if b.get(i + 2) == Some(&b'\'') => Some(i + 3),
        b'\'' if b.get(i + 1) == Some(&b'\\') => {
            let end = b[i + 2..].iter().position(|&c| c == b'\'')?;
            Some(i + 2 + end + 1 + usize::from(b.get(i + 2) == Some(&b'\'')))
        }
        _ => None,
    }
}

/// The top-level arguments of the call whose `(` is at `open`, as source text.
fn arguments(text: &str, open: usize) -> Vec<&str> {
    let b = text.as_bytes();
    let (mut depth, mut start, mut i, mut out) = (0usize, open + 1, open, Vec::new());
    while i < b.len() {
        if let Some(next) = skip_literal(b, i).filter(|_| i == 0 || !is_ident(b[i - 1]) || b[i] != b'r') {
            i = next;
            continue;
        }
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    out.push(text[start..i].trim());
                    break;
                }
            }
            b',' if depth == 1 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.retain(|a| !a.is_empty());
    out
}

/// The text of the block whose `{` is at `open`, up to its matching `}`.
fn block(text: &str, open: usize) -> &str {
    let b = text.as_bytes();
    let (mut depth, mut i) = (0usize, open);
    while i < b.len() {
        if let Some(next) = skip_literal(b, i).filter(|_| i == 0 || !is_ident(b[i - 1]) || b[i] != b'r') {
            i = next;
            continue;
        }
        match b[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return &text[open + 1..i];
                }
            }
            _ => {}
        }
        i += 1;
    }
    &text[open + 1..]
}

/// Whether `body` passes its `code` variable to a problem constructor.
fn passes_code_on(body: &str) -> bool {
    CONSTRUCTORS.iter().any(|(name, index)| {
        body.match_indices(&format!("{name}("))
            .any(|(at, _)| arguments(body, at + name.len()).get(*index).is_some_and(|a| *a == "code"))
    })
}

/// The functions of a file with a parameter named `code` that they pass to a problem constructor,
/// and the parameter's index: helpers that build a problem from the code they are given.
fn local_constructors(text: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("fn ") {
        if at > 0 && is_ident(text.as_bytes()[at - 1]) {
            continue;
        }
        let rest = &text[at + 3..];
        let name_len = rest.bytes().take_while(|&c| is_ident(c)).count();
        let name = &rest[..name_len];
        let Some(open) = rest[name_len..].find('(').map(|o| at + 3 + name_len + o) else { continue };
        let params = arguments(text, open);
        // A method's callers do not pass `self` in the parentheses.
        let receiver = usize::from(params.first().is_some_and(|p| p.ends_with("self")));
        let body = text[open..].find('{').map_or("", |b| block(text, open + b));
        if let Some(index) =
            params.iter().position(|p| p.strip_prefix("code:").is_some_and(|t| t.trim().starts_with('&')))
        {
            if !passes_code_on(body) {
                continue;
            }
            out.push((name.to_owned(), index - receiver));
        }
    }
    out
}

/// Every problem code that `text` passes to a constructor.
fn codes_in(text: &str, constants: &BTreeMap<String, String>) -> Vec<Use> {
    let mut calls: BTreeSet<(String, usize)> = CONSTRUCTORS.iter().map(|(n, i)| ((*n).to_owned(), *i)).collect();
    calls.extend(local_constructors(text));
    let b = text.as_bytes();
    let mut out = Vec::new();
    for (name, index) in &calls {
        for (at, _) in text.match_indices(name.as_str()) {
            let end = at + name.len();
            // `conflict` alone must not match inside `DomainError::conflict` a second time.
            let bounded_before = at == 0 || !(is_ident(b[at - 1]) || (b[at - 1] == b':' && !name.contains("::")));
            if !bounded_before || b.get(end) != Some(&b'(') || text[..at].ends_with("fn ") {
                continue;
            }
            let Some(arg) = arguments(text, end).get(*index).copied() else { continue };
            let code = if let Some(lit) = arg.strip_prefix('"').and_then(|a| a.strip_suffix('"')) {
                lit.to_owned()
            } else if let Some((_, name)) = arg.rsplit_once("code::") {
                match constants.get(name) {
                    Some(v) => v.clone(),
                    None => format!("<unknown constant code::{name}>"),
                }
            } else {
                // A variable (the parameter of a helper): its callers are scanned instead.
                continue;
            };
            // `Self::new` is only a problem constructor when its first argument is a status.
            if name == "Self::new" && !arguments(text, end).first().is_some_and(|s| s.starts_with("StatusCode::")) {
                continue;
            }
            out.push(Use { code, line: text[..at].lines().count().max(1) });
        }
    }
    out
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn problem_constants() -> BTreeMap<String, String> {
    constants(&std::fs::read_to_string(workspace().join("crates/core/src/problem.rs")).unwrap())
}

#[test]
fn every_problem_code_in_the_source_is_in_the_registry() {
    let constants = problem_constants();
    let mut files = Vec::new();
    for krate in std::fs::read_dir(workspace().join("crates")).unwrap().flatten() {
        rust_files(&krate.path().join("src"), &mut files);
    }
    assert!(files.len() > 50, "the scan found only {} source files", files.len());
    let mut missing = Vec::new();
    let mut seen = BTreeSet::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for u in codes_in(&text, &constants) {
            if lookup(&u.code).is_none() {
                missing.push(format!("{}:{}: {}", f.strip_prefix(workspace()).unwrap_or(f).display(), u.line, u.code));
            }
            seen.insert(u.code);
        }
    }
    assert!(missing.is_empty(), "problem codes missing from meridian_core::problem::REGISTRY:\n{}", missing.join("\n"));
    // The scan does find the codes of each kind of constructor.
    for code in ["validation_failed", "zone_exists", "invalid_bbox", "signup_closed", "job_input_invalid"] {
        assert!(seen.contains(code), "the scan did not find {code}; found {seen:?}");
    }
}

#[test]
fn the_registry_lists_each_code_once_and_every_constant() {
    let mut codes = BTreeSet::new();
    for (c, status, meaning) in REGISTRY {
        assert!(codes.insert(*c), "{c} is listed twice");
        assert!((400..600).contains(status), "{c}: {status}");
        assert!(meaning.ends_with('.') && !meaning.is_empty(), "{c}: {meaning}");
        assert!(c.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{c}");
    }
    let constants = problem_constants();
    assert!(constants.len() >= 30, "{constants:?}");
    for (name, value) in &constants {
        assert!(codes.contains(value.as_str()), "code::{name} = {value} is not in REGISTRY");
    }
    assert_eq!(code::EMAIL_TAKEN, "email_taken");
}

#[test]
fn the_scan_finds_codes_in_every_constructor_form() {
    let constants = BTreeMap::from([("PARCEL_EXISTS".to_owned(), "parcel_exists".to_owned())]);
    let src = r#"
fn bad(param: &str, code: &str, detail: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, code, "Invalid query parameter", format!("{param}: x"))
}
fn other(pointer: &str, detail: &str) -> ApiError { ApiError::invalid(vec![FieldError::new(pointer, "field_code", detail)]) }
fn f() {
    let a = ApiError::new(
        StatusCode::FORBIDDEN,
        "literal_code",
        "Title, with a comma (and parens)",
        format!("{}", g(1, 2)),
    );
    let b = bad("bbox", "helper_code", "detail");
    let c = DomainError::conflict(code::PARCEL_EXISTS, "d");
    let d = Problem::new(410, "problem_code", "T", ')');
    let e = Self::new(StatusCode::NOT_FOUND, "self_code", "Not found", "x");
    let f = Self::new(pointer, "not_a_problem", "x");
    let g = meridian_core::DomainError::conflict("qualified_code", "x");
    let h = other("/x", "not_a_code_either");
    let i = ApiError::new(StatusCode::CONFLICT, code::NOT_DEFINED, "T", "d");
}
"#;
    let found: Vec<String> = codes_in(src, &constants).into_iter().map(|u| u.code).collect();
    let found: BTreeSet<&str> = found.iter().map(String::as_str).collect();
    let expected = BTreeSet::from([
        "literal_code",
        "helper_code",
        "parcel_exists",
        "problem_code",
        "self_code",
        "qualified_code",
        "<unknown constant code::NOT_DEFINED>",
    ]);
    assert_eq!(found, expected);
}
