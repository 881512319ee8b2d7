//! Paged lists: every `{items, total}` list checks `limit`/`offset`/`cursor` against the
//! configured bounds and links the next and previous pages in a `Link` header (RFC 8288) the
//! same way. `next` carries a `cursor` (the offset and the id of the page's last item), which
//! the stores read as a keyset position: a deep page costs what the first one does.

use crate::error::ApiResult;
use axum::http::{header, HeaderValue};
use axum::response::Response;
use meridian_core::config::Config;
use meridian_core::page::Page;
use serde::Deserialize;
use utoipa::IntoParams;

/// Paging parameters of a list with no filters.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Page size: 1 to `limits.max_page_size` (1000 unless the operator changed it); default 100.
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
    /// Items to skip.
    #[param(minimum = 0)]
    pub offset: Option<i64>,
    /// Where the page starts: the `cursor` of a `next` link (it replaces `offset`).
    pub cursor: Option<String>,
}

/// The page a list asks for: `limit` within 1..=`limits.max_page_size` (default
/// `limits.default_page_size`), `offset` ≥ 0 or the `cursor` of a `next` link; 422 with
/// pointers otherwise.
pub fn page(config: &Config, limit: Option<i64>, offset: Option<i64>, cursor: Option<&str>) -> ApiResult<Page> {
    let limits = &config.limits;
    Ok(Page::with_cursor(limit, offset, cursor, limits.default_page_size, limits.max_page_size)?)
}

/// The query string of the filters a list was given, for its page links.
pub fn filter_query(pairs: &[(&str, Option<&str>)]) -> String {
    let mut s = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        if let Some(v) = v {
            s.append_pair(k, v);
        }
    }
    s.finish()
}

/// The `Link` header for a page of `total` items at `path` (with `extra` query parameters),
/// whose last item has the id `last` (the `next` link's cursor; by offset without one).
pub fn page_links(path: &str, extra: &str, page: Page, total: u64, last: Option<&str>) -> Option<HeaderValue> {
    let mut links = Vec::new();
    let sep = if extra.is_empty() { "" } else { "&" };
    let next = page.offset + u64::from(page.limit);
    if next < total {
        match last {
            Some(last) => links.push(format!(
                "<{path}?{extra}{sep}limit={}&cursor={}>; rel=\"next\"",
                page.limit,
                page.cursor(last)
            )),
            None => links.push(format!("<{path}?{extra}{sep}limit={}&offset={next}>; rel=\"next\"", page.limit)),
        }
    }
    if page.offset > 0 {
        let prev = page.offset.saturating_sub(u64::from(page.limit));
        links.push(format!("<{path}?{extra}{sep}limit={}&offset={prev}>; rel=\"prev\"", page.limit));
    }
    if links.is_empty() {
        return None;
    }
    HeaderValue::from_str(&links.join(", ")).ok()
}

/// Adds the page's `Link` header to a list answer; `last` is the id of the page's last item.
pub fn link(response: &mut Response, path: &str, extra: &str, page: Page, total: u64, last: Option<&str>) {
    if let Some(link) = page_links(path, extra, page, total, last) {
        response.headers_mut().insert(header::LINK, link);
    }
}

/// The scheme and authority of absolute links: `server.public_url`, else the request's `Host`
/// (and `X-Forwarded-Proto`).
pub fn base_url(state: &crate::state::AppState, headers: &axum::http::HeaderMap) -> String {
    if let Some(url) = &state.config.server.public_url {
        return url.trim_end_matches('/').to_owned();
    }
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("localhost");
    let proto = headers.get("x-forwarded-proto").and_then(|v| v.to_str().ok()).unwrap_or("http");
    format!("{proto}://{host}")
}
