//! The OpenAPI document as text, and a self-contained HTML reference rendered from it (no
//! scripts, no fonts, nothing fetched from the internet).

use serde_json::Value;
use std::fmt::Write;
use std::sync::OnceLock;

/// The OpenAPI document, pretty-printed, as committed in `openapi.json`.
pub fn openapi_text() -> String {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut doc = serde_json::to_value(crate::openapi()).unwrap_or_default();
        crate::schemas::complete(&mut doc);
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        text
    })
    .clone()
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Inline Markdown as HTML: code spans (`` `x` ``, any run of backticks) become `<code>`; all other
/// text is escaped. An unmatched run of backticks stays as text.
fn inline(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(start) = rest.find('`') {
        let run = rest[start..].bytes().take_while(|&b| b == b'`').count();
        let after = &rest[start + run..];
        let fence = &rest[start..start + run];
        // The closing run has exactly as many backticks.
        let close = after
            .match_indices(fence)
            .map(|(i, _)| i)
            .find(|&i| !after[i + run..].starts_with('`') && (i == 0 || !after[..i].ends_with('`')));
        out.push_str(&esc(&rest[..start]));
        match close {
            Some(end) => {
                let code = &after[..end];
                // CommonMark strips one space each side when both are there (to allow `` ` ``).
                let code = match code.strip_prefix(' ').and_then(|c| c.strip_suffix(' ')) {
                    Some(inner) if !inner.trim().is_empty() => inner,
                    _ => code,
                };
                let _ = write!(out, "<code>{}</code>", esc(code));
                rest = &after[end + run..];
            }
            None => {
                out.push_str(&esc(fence));
                rest = after;
            }
        }
    }
    out.push_str(&esc(rest));
    out
}

/// Block Markdown as HTML: fenced code blocks become `<pre><code>`, other text paragraphs (split
/// at blank lines) with [`inline`] code; everything escaped.
fn markdown(s: &str) -> String {
    let mut out = String::new();
    let mut para: Vec<&str> = Vec::new();
    let mut code: Option<Vec<&str>> = None;
    let flush = |para: &mut Vec<&str>, out: &mut String| {
        if !para.is_empty() {
            let _ = write!(out, "<p>{}</p>", inline(&para.join("\n")));
            para.clear();
        }
    };
    for line in s.lines() {
        let fence = line.trim_start().starts_with("```");
        match code.as_mut() {
            Some(lines) if fence => {
                let _ = write!(out, "<pre><code>{}</code></pre>", esc(&lines.join("\n")));
                code = None;
            }
            Some(lines) => lines.push(line),
            None if fence => {
                flush(&mut para, &mut out);
                code = Some(Vec::new());
            }
            None if line.trim().is_empty() => flush(&mut para, &mut out),
            None => para.push(line),
        }
    }
    if let Some(lines) = code {
        // An unclosed fence runs to the end, as in CommonMark.
        let _ = write!(out, "<pre><code>{}</code></pre>", esc(&lines.join("\n")));
    }
    flush(&mut para, &mut out);
    out
}

const STYLE: &str =
    "body{font:15px/1.5 system-ui,sans-serif;max-width:64rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}\
code,pre{font:13px ui-monospace,monospace;background:#f3f4f6;border-radius:4px}code{padding:0 .25rem}\
pre{padding:.5rem;overflow:auto}.op{border:1px solid #d0d7de;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}\
.m{display:inline-block;min-width:4.5rem;font-weight:700;text-transform:uppercase}.get{color:#0969da}\
.post{color:#1a7f37}.patch,.put{color:#9a6700}.delete{color:#cf222e}table{border-collapse:collapse}\
td,th{border:1px solid #d0d7de;padding:.2rem .5rem;text-align:left;vertical-align:top}nav a{margin-right:1rem}";

fn schema_name(schema: &Value) -> String {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().unwrap_or(r);
        return format!("<a href=\"#schema-{0}\">{0}</a>", esc(name));
    }
    if let Some(items) = schema.get("items") {
        return format!("array of {}", schema_name(items));
    }
    match schema.get("type") {
        Some(Value::String(t)) => esc(t),
        Some(Value::Array(ts)) => esc(&ts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" | ")),
        _ => "object".into(),
    }
}

fn content_schemas(content: Option<&Value>) -> String {
    let Some(Value::Object(map)) = content else { return String::new() };
    map.iter()
        .map(|(media, c)| {
            let schema = c.get("schema").map(schema_name).unwrap_or_default();
            format!("<code>{}</code> {}", esc(media), schema)
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

/// The HTML reference of every operation and schema.
pub fn reference_html() -> String {
    static HTML: OnceLock<String> = OnceLock::new();
    HTML.get_or_init(|| render(&serde_json::from_str(&openapi_text()).unwrap_or(Value::Null))).clone()
}

fn render(doc: &Value) -> String {
    let mut out = String::new();
    let title = doc.pointer("/info/title").and_then(Value::as_str).unwrap_or("API");
    let version = doc.pointer("/info/version").and_then(Value::as_str).unwrap_or("");
    let _ = write!(
        out,
        "<!doctype html><html lang=en><meta charset=utf-8><title>{t} API reference</title><style>{STYLE}</style>\
         <h1>{t} API reference <small>{v}</small></h1>{d}\
         <nav><a href=\"/api/v1/openapi.json\">OpenAPI 3.1 document</a><a href=\"/docs/problems\">Problem codes</a></nav>\
         <p>Authenticate with <code>Authorization: Bearer &lt;API key or access token&gt;</code> or \
         <code>X-Api-Key: &lt;API key&gt;</code>. Create an account with <code>POST /api/v1/accounts</code>.</p>",
        t = esc(title),
        v = esc(version),
        d = markdown(doc.pointer("/info/description").and_then(Value::as_str).unwrap_or("")),
    );
    let mut by_tag: std::collections::BTreeMap<String, Vec<(String, String, &Value)>> = Default::default();
    if let Some(Value::Object(paths)) = doc.get("paths") {
        for (path, item) in paths {
            for method in ["get", "post", "put", "patch", "delete"] {
                if let Some(op) = item.get(method) {
                    let tag = op.pointer("/tags/0").and_then(Value::as_str).unwrap_or("other").to_owned();
                    by_tag.entry(tag).or_default().push((method.to_owned(), path.clone(), op));
                }
            }
        }
    }
    for (tag, ops) in &by_tag {
        let _ = write!(out, "<h2 id=\"tag-{0}\">{0}</h2>", esc(tag));
        for (method, path, op) in ops {
            let _ = write!(
                out,
                "<div class=op><div><span class=\"m {method}\">{method}</span> <code>{}</code></div>",
                esc(path)
            );
            if let Some(d) = op.get("description").or_else(|| op.get("summary")).and_then(Value::as_str) {
                out.push_str(&markdown(d));
            }
            if op.get("security").is_some() {
                out.push_str("<p><small>Needs an API key or access token.</small></p>");
            }
            if let Some(Value::Array(params)) = op.get("parameters") {
                out.push_str("<table><tr><th>parameter</th><th>in</th><th>type</th><th>description</th></tr>");
                for p in params {
                    let _ = write!(
                        out,
                        "<tr><td><code>{}</code>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                        esc(p.get("name").and_then(Value::as_str).unwrap_or("")),
                        if p.get("required").and_then(Value::as_bool) == Some(true) { " *" } else { "" },
                        esc(p.get("in").and_then(Value::as_str).unwrap_or("")),
                        p.get("schema").map(schema_name).unwrap_or_default(),
                        inline(p.get("description").and_then(Value::as_str).unwrap_or("")),
                    );
                }
                out.push_str("</table>");
            }
            if let Some(body) = op.get("requestBody") {
                let _ = write!(out, "<p>Body: {}</p>", content_schemas(body.get("content")));
            }
            if let Some(Value::Object(responses)) = op.get("responses") {
                out.push_str("<table><tr><th>status</th><th>meaning</th><th>body</th></tr>");
                for (status, r) in responses {
                    let _ = write!(
                        out,
                        "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                        esc(status),
                        inline(r.get("description").and_then(Value::as_str).unwrap_or("")),
                        content_schemas(r.get("content")),
                    );
                }
                out.push_str("</table>");
            }
            out.push_str("</div>");
        }
    }
    out.push_str("<h2>Schemas</h2>");
    if let Some(Value::Object(schemas)) = doc.pointer("/components/schemas") {
        for (name, schema) in schemas {
            let _ = write!(out, "<h3 id=\"schema-{0}\">{0}</h3>", esc(name));
            if let Some(d) = schema.get("description").and_then(Value::as_str) {
                out.push_str(&markdown(d));
            }
            let required: Vec<&str> = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(Value::Object(props)) = schema.get("properties") {
                out.push_str("<table><tr><th>field</th><th>type</th><th>description</th></tr>");
                for (field, p) in props {
                    let _ = write!(
                        out,
                        "<tr><td><code>{}</code>{}</td><td>{}</td><td>{}</td></tr>",
                        esc(field),
                        if required.contains(&field.as_str()) { " *" } else { "" },
                        schema_name(p),
                        inline(p.get("description").and_then(Value::as_str).unwrap_or("")),
                    );
                }
                out.push_str("</table>");
            } else {
                let _ = write!(out, "<pre>{}</pre>", esc(&serde_json::to_string_pretty(schema).unwrap_or_default()));
            }
        }
    }
    out.push_str("</html>\n");
    out
}

/// The registry of problem codes, the target of every problem's `type`.
pub fn problems_html() -> String {
    let mut out = format!(
        "<!doctype html><html lang=en><meta charset=utf-8><title>Problem codes</title><style>{STYLE}</style>\
         <h1>Problem codes</h1><p>Every error is an RFC 7807 problem document (<code>application/problem+json</code>) \
         with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, a stable <code>code</code>, \
         <code>errors</code> (one entry per invalid field, with a JSON pointer) and <code>request_id</code>. \
         This is every <code>code</code> the platform uses; each problem's <code>type</code> links to its row.</p>\
         <table><tr><th>code</th><th>status</th><th>meaning</th></tr>"
    );
    for (code, status, meaning) in meridian_core::problem::REGISTRY {
        let _ = write!(
            out,
            "<tr id=\"{code}\"><td><a href=\"#{code}\"><code>{code}</code></a></td><td>{status}</td><td>{}</td></tr>",
            inline(meaning)
        );
    }
    out.push_str("</table></html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_code_becomes_code_elements_escaped() {
        assert_eq!(inline("use `If-Match` here"), "use <code>If-Match</code> here");
        assert_eq!(inline("`<b>` & `a&b`"), "<code>&lt;b&gt;</code> &amp; <code>a&amp;b</code>");
        assert_eq!(inline("`` a ` b ``"), "<code>a ` b</code>");
        assert_eq!(inline("a stray ` stays"), "a stray ` stays");
        assert_eq!(inline("<script>"), "&lt;script&gt;");
        assert_eq!(inline(""), "");
    }

    #[test]
    fn code_blocks_and_paragraphs() {
        let html = markdown("First `x`.\n\n```json\n{\"a\": \"<b>\"}\n```\nLast");
        assert_eq!(
            html,
            "<p>First <code>x</code>.</p><pre><code>{&quot;a&quot;: &quot;&lt;b&gt;&quot;}</code></pre><p>Last</p>"
        );
        assert_eq!(markdown("```\nopen <"), "<pre><code>open &lt;</code></pre>");
    }

    #[test]
    fn the_pages_show_no_markdown_backticks() {
        let problems = problems_html();
        assert!(!problems.contains('`'), "backticks left in /docs/problems");
        assert!(problems.contains("<code>Retry-After</code>"));
        for (code, _, _) in meridian_core::problem::REGISTRY {
            assert!(problems.contains(&format!("<tr id=\"{code}\">")), "no anchor for {code}");
        }
        let reference = reference_html();
        let text_outside_pre: String =
            reference.split("<pre>").map(|p| p.split("</pre>").last().unwrap_or("")).collect();
        assert!(!text_outside_pre.contains('`'), "backticks left in /docs");
    }
}
