//! HTML encodings of OGC API Features for people: pages that work offline, with an SVG map of
//! the items drawn from their GeoJSON.

use serde_json::Value;
use std::fmt::Write;

/// Escapes text for HTML element content and quoted attribute values. Every user-supplied
/// string on a page (titles, descriptions, ids, property names and values) goes through here.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font:15px/1.5 system-ui,sans-serif;max-width:70rem;margin:1.5rem auto;padding:0 1rem}\
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2rem .5rem;text-align:left}\
svg{border:1px solid #d0d7de;background:#f6f8fa;width:100%;height:auto}path{fill:#0969da33;stroke:#0969da;stroke-width:1}\
path:hover{fill:#cf222e55}circle{fill:#0969da}polyline{fill:none;stroke:#0969da}";

/// A page with a title (text, escaped here) and a body (HTML built from escaped parts).
pub fn page(title: &str, body: &str) -> String {
    format!("<!doctype html><html lang=en><meta charset=utf-8><title>{t}</title><style>{STYLE}</style><h1>{t}</h1>{body}</html>\n", t = escape(title))
}

/// A paragraph of text (escaped here).
pub fn paragraph(text: &str) -> String {
    format!("<p>{}</p>", escape(text))
}

/// A list of links.
pub fn links(links: &[Value]) -> String {
    let mut out = String::from("<ul>");
    for l in links {
        let href = l["href"].as_str().unwrap_or("");
        let title = l["title"].as_str().or_else(|| l["rel"].as_str()).unwrap_or(href);
        let kind = l["type"].as_str().unwrap_or("");
        let _ =
            write!(out, "<li><a href=\"{}\">{}</a> <small>{}</small></li>", escape(href), escape(title), escape(kind));
    }
    out.push_str("</ul>");
    out
}

fn positions(v: &Value, out: &mut Vec<(f64, f64)>) {
    match v {
        Value::Array(a) if a.first().is_some_and(Value::is_number) => {
            if let (Some(x), Some(y)) = (a.first().and_then(Value::as_f64), a.get(1).and_then(Value::as_f64)) {
                out.push((x, y));
            }
        }
        Value::Array(a) => a.iter().for_each(|i| positions(i, out)),
        _ => {}
    }
}

/// An SVG map of features (lon/lat), each shape linking to its item page.
pub fn map(features: &[Value], item_base: &str) -> String {
    let mut all = Vec::new();
    for f in features {
        positions(&f["geometry"]["coordinates"], &mut all);
    }
    if all.is_empty() {
        return String::from("<p>No geometries on this page.</p>");
    }
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for (x, y) in &all {
        x0 = x0.min(*x);
        y0 = y0.min(*y);
        x1 = x1.max(*x);
        y1 = y1.max(*y);
    }
    let (w, h) = (800.0, 500.0);
    let span = ((x1 - x0) / w).max((y1 - y0) / h).max(1e-9) * 1.05;
    let sx = |x: f64| (x - x0) / span + (w - (x1 - x0) / span) / 2.0;
    let sy = |y: f64| h - ((y - y0) / span + (h - (y1 - y0) / span) / 2.0);
    let mut svg = format!(
        "<svg viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\" role=img aria-label=\"map of the items\">"
    );
    for f in features {
        let id = f["id"].as_str().unwrap_or("");
        let kind = f["geometry"]["type"].as_str().unwrap_or("");
        let _ = write!(svg, "<a href=\"{}/{}?f=html\"><title>{}</title>", escape(item_base), escape(id), escape(id));
        let coords = &f["geometry"]["coordinates"];
        let rings: Vec<&Value> = match kind {
            "Polygon" => coords.as_array().map(|r| r.iter().collect()).unwrap_or_default(),
            "MultiPolygon" => {
                coords.as_array().map(|p| p.iter().filter_map(Value::as_array).flatten().collect()).unwrap_or_default()
            }
            _ => Vec::new(),
        };
        if !rings.is_empty() {
            let mut d = String::new();
            for ring in rings {
                let mut pts = Vec::new();
                positions(ring, &mut pts);
                for (i, (x, y)) in pts.iter().enumerate() {
                    let _ = write!(d, "{}{:.1},{:.1}", if i == 0 { "M" } else { "L" }, sx(*x), sy(*y));
                }
                d.push('Z');
            }
            let _ = write!(svg, "<path fill-rule=evenodd d=\"{d}\"/>");
        } else {
            let mut pts = Vec::new();
            positions(coords, &mut pts);
            if kind.contains("Point") {
                for (x, y) in pts {
                    let _ = write!(svg, "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\"/>", sx(x), sy(y));
                }
            } else {
                let p: Vec<String> = pts.iter().map(|(x, y)| format!("{:.1},{:.1}", sx(*x), sy(*y))).collect();
                let _ = write!(svg, "<polyline points=\"{}\"/>", p.join(" "));
            }
        }
        svg.push_str("</a>");
    }
    svg.push_str("</svg>");
    svg
}

/// A table of the features' properties.
pub fn table(features: &[Value], item_base: &str) -> String {
    let mut keys: Vec<String> = Vec::new();
    for f in features {
        if let Some(p) = f["properties"].as_object() {
            for k in p.keys() {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
        }
    }
    let mut out = String::from("<table><tr><th>id</th>");
    for k in &keys {
        let _ = write!(out, "<th>{}</th>", escape(k));
    }
    out.push_str("</tr>");
    for f in features {
        let id = f["id"].as_str().unwrap_or("");
        let _ = write!(out, "<tr><td><a href=\"{}/{}?f=html\">{}</a></td>", escape(item_base), escape(id), escape(id));
        for k in &keys {
            let v = &f["properties"][k];
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Null => String::new(),
                other => other.to_string(),
            };
            let _ = write!(out, "<td>{}</td>", escape(&text));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
    out
}
