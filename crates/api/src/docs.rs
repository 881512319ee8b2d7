//! The OpenAPI document as text, and a self-contained HTML reference rendered from it (no
//! scripts, no fonts, nothing fetched from the internet).

use serde_json::Value;
use std::fmt::Write;
use std::sync::OnceLock;

/// The OpenAPI document, pretty-printed, as committed in `openapi.json`.
pub fn openapi_text() -> String {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        let mut text = crate::openapi().to_pretty_json().unwrap_or_default();
        text.push('\n');
        text
    })
    .clone()
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
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
         <h1>{t} API reference <small>{v}</small></h1><p>{d}</p>\
         <nav><a href=\"/api/v1/openapi.json\">OpenAPI 3.1 document</a><a href=\"/docs/problems\">Problem codes</a></nav>\
         <p>Authenticate with <code>Authorization: Bearer &lt;API key or access token&gt;</code> or \
         <code>X-Api-Key: &lt;API key&gt;</code>. Create an account with <code>POST /api/v1/accounts</code>.</p>",
        t = esc(title),
        v = esc(version),
        d = esc(doc.pointer("/info/description").and_then(Value::as_str).unwrap_or("")),
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
                let _ = write!(out, "<p>{}</p>", esc(d));
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
                        esc(p.get("description").and_then(Value::as_str).unwrap_or("")),
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
                        esc(r.get("description").and_then(Value::as_str).unwrap_or("")),
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
                let _ = write!(out, "<p>{}</p>", esc(d));
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
                        esc(p.get("description").and_then(Value::as_str).unwrap_or("")),
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

/// The catalogue of problem codes, the target of every problem's `type`.
pub fn problems_html() -> String {
    let mut out = format!(
        "<!doctype html><html lang=en><meta charset=utf-8><title>Problem codes</title><style>{STYLE}</style>\
         <h1>Problem codes</h1><p>Every error is an RFC 7807 problem document (<code>application/problem+json</code>) \
         with <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, a stable <code>code</code>, \
         <code>errors</code> (one entry per invalid field, with a JSON pointer) and <code>request_id</code>. \
         Areas add codes of their own (for example <code>email_taken</code> as a 409).</p>\
         <table><tr><th>code</th><th>status</th><th>meaning</th></tr>"
    );
    for (code, status, meaning) in meridian_core::problem::CATALOGUE {
        let _ = write!(
            out,
            "<tr id=\"{code}\"><td><code>{code}</code></td><td>{status}</td><td>{}</td></tr>",
            esc(meaning)
        );
    }
    out.push_str("</table></html>\n");
    out
}
