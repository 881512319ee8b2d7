// The console's only way to the server: the public API, as any client calls it.
//
// The API key lives in session storage (gone when the tab closes) and is traded for short-lived
// access tokens (POST /api/v1/auth/token); every call carries the token, and a 401 trades the
// key again once. Errors are the API's problem documents, thrown as `Problem`.

const KEY = "meridian.console.key";

/** The server's root: the console is served at `<root>/console/`, behind any path prefix. */
export function root() {
  const path = window.location.pathname;
  const at = path.lastIndexOf("/console");
  return at >= 0 ? path.slice(0, at) : "";
}

/** An RFC 7807 problem from the API (or a network failure dressed as one). */
export class Problem extends Error {
  constructor(status, doc) {
    super(doc.detail || doc.title || `HTTP ${status}`);
    this.status = status;
    this.doc = doc;
  }

  /** The field errors, `{pointer: message}` (pointers as the API gives them, `/content`). */
  fields() {
    const out = {};
    for (const e of this.doc.errors || []) {
      const pointer = e.pointer || e.field || "";
      if (!(pointer in out)) out[pointer] = e.message || e.detail || e.code || "invalid";
    }
    return out;
  }
}

let token = null;
let tokenExpires = 0;

export function signedIn() {
  return sessionStorage.getItem(KEY) !== null;
}

export function signOut() {
  sessionStorage.removeItem(KEY);
  token = null;
}

async function problemOf(response) {
  let doc = { title: response.statusText || "Error", status: response.status };
  const type = response.headers.get("content-type") || "";
  if (type.includes("json")) {
    try {
      doc = await response.json();
    } catch {
      // keep the status line
    }
  } else {
    const text = await response.text();
    if (text) doc.detail = text.slice(0, 500);
  }
  return new Problem(response.status, doc);
}

/** Trades `key` for an access token; remembers the key when it works. */
export async function signIn(key) {
  const response = await fetch(`${root()}/api/v1/auth/token`, {
    method: "POST",
    headers: { "X-Api-Key": key },
  });
  if (!response.ok) throw await problemOf(response);
  const body = await response.json();
  token = body.access_token;
  tokenExpires = Date.now() + (body.expires_in - 30) * 1000;
  sessionStorage.setItem(KEY, key);
}

/** Creates an account; answers `{account, api_key}` (the key is shown once). */
export async function signUp(name, email) {
  const response = await fetch(`${root()}/api/v1/accounts`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ name, email }),
  });
  if (!response.ok) throw await problemOf(response);
  return response.json();
}

/** A current access token (for URLs that cannot carry a header: map tiles). */
export async function bearer() {
  if (!token || Date.now() > tokenExpires) {
    const key = sessionStorage.getItem(KEY);
    if (!key) throw new Problem(401, { title: "Not signed in" });
    await signIn(key);
  }
  return token;
}

/**
 * One API call. `path` is the API's own (`/v1/dns/zones`); `body` an object (sent as JSON) or a
 * string (sent as `contentType`). Answers `{status, headers, body}` (JSON parsed when it is
 * JSON); throws a `Problem` for 4xx/5xx.
 */
export async function call(method, path, { body, contentType, headers = {}, raw = false } = {}) {
  for (let attempt = 0; ; attempt++) {
    const h = { Authorization: `Bearer ${await bearer()}`, ...headers };
    let payload;
    if (typeof body === "string" || body instanceof Blob) {
      payload = body;
      h["Content-Type"] = contentType || "text/plain";
    } else if (body !== undefined) {
      payload = JSON.stringify(body);
      h["Content-Type"] = "application/json";
    }
    const response = await fetch(`${root()}${path}`, { method, headers: h, body: payload });
    if (response.status === 401 && attempt === 0) {
      token = null;
      continue;
    }
    if (!response.ok) throw await problemOf(response);
    if (raw) return { status: response.status, headers: response.headers, body: await response.text() };
    const type = response.headers.get("content-type") || "";
    const parsed = type.includes("json") ? await response.json() : await response.text();
    return { status: response.status, headers: response.headers, body: parsed };
  }
}

/** The `rel="next"` target of a `Link` header, as a path under the server's root, or null. */
export function nextLink(headers) {
  const link = headers.get("link");
  if (!link) return null;
  for (const part of link.split(",")) {
    const m = part.match(/<([^>]+)>\s*;\s*rel="?next"?/);
    if (m) {
      const url = new URL(m[1], window.location.origin);
      const prefix = root();
      const path = url.pathname.startsWith(prefix) && prefix ? url.pathname.slice(prefix.length) : url.pathname;
      return path + url.search;
    }
  }
  return null;
}

/**
 * POSTs `body` (a FormData, a File or bytes) to `path` with the upload's progress (0–100) on
 * the `<progress>` element `bar`; answers the parsed JSON answer, throws a `Problem`.
 */
export async function upload(path, body, bar, contentType) {
  const token = await bearer();
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `${root()}${path}`);
    xhr.setRequestHeader("Authorization", `Bearer ${token}`);
    if (contentType) xhr.setRequestHeader("Content-Type", contentType);
    xhr.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable) bar.value = Math.round((100 * e.loaded) / e.total);
    });
    xhr.addEventListener("load", () => {
      let doc = {};
      try {
        doc = JSON.parse(xhr.responseText);
      } catch {
        doc = { title: xhr.statusText, detail: xhr.responseText.slice(0, 300) };
      }
      if (xhr.status >= 400) reject(new Problem(xhr.status, doc));
      else resolve(doc);
    });
    xhr.addEventListener("error", () => reject(new Problem(0, { title: "The upload failed", detail: "network error" })));
    xhr.send(body);
  });
}

/** Follows the job `id` until it ends, calling `onProgress(job)` on each poll; answers the job. */
export async function followJob(id, onProgress = () => {}) {
  for (;;) {
    const job = (await call("GET", `/api/v1/jobs/${id}`)).body;
    onProgress(job);
    if (!["queued", "running"].includes(job.status)) return job;
    await new Promise((r) => setTimeout(r, 400));
  }
}
