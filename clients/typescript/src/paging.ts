// Finding the next page: the `Link` header (`rel="next"`), the body's `links` (OGC API Features,
// STAC; a STAC POST search's next link carries its method and body) or a `next` URL in the body.

/** Where the next page is, and how to ask for it. */
export interface NextLink {
  href: string;
  method: "get" | "post";
  /** The JSON body of a POST next link (STAC item search). */
  body?: unknown;
}

/** One link of an RFC 8288 `Link` header. */
export interface HeaderLink {
  href: string;
  rel: string[];
  params: Record<string, string>;
}

/** Parses an RFC 8288 `Link` header. */
export function parseLinkHeader(value: string | null): HeaderLink[] {
  if (!value) return [];
  const links: HeaderLink[] = [];
  const re = /<([^>]*)>((?:\s*;\s*[^;,=\s]+(?:\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;,]*))?)*)/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(value)) !== null) {
    const params: Record<string, string> = {};
    const paramRe = /;\s*([^;,=\s]+)(?:\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;,]*)))?/g;
    let p: RegExpExecArray | null;
    while ((p = paramRe.exec(m[2] ?? "")) !== null) {
      const key = p[1]!.toLowerCase();
      const v = p[2] !== undefined ? p[2].replace(/\\(.)/g, "$1") : (p[3] ?? "").trim();
      if (!(key in params)) params[key] = v;
    }
    links.push({ href: m[1]!, rel: (params.rel ?? "").toLowerCase().split(/\s+/).filter(Boolean), params });
  }
  return links;
}

/** The next page of a list answer, if there is one. */
export function nextLink(headers: Headers, data: unknown): NextLink | undefined {
  const fromHeader = parseLinkHeader(headers.get("link")).find((l) => l.rel.includes("next"));
  if (fromHeader && fromHeader.href !== "") return { href: fromHeader.href, method: "get" };
  if (data === null || typeof data !== "object" || Array.isArray(data)) return undefined;
  const obj = data as Record<string, unknown>;
  if (Array.isArray(obj.links)) {
    for (const raw of obj.links) {
      if (raw === null || typeof raw !== "object") continue;
      const link = raw as Record<string, unknown>;
      if (link.rel !== "next" || typeof link.href !== "string" || link.href === "") continue;
      const method = typeof link.method === "string" && link.method.toUpperCase() === "POST" ? "post" : "get";
      return link.body !== undefined && method === "post"
        ? { href: link.href, method, body: link.body }
        : { href: link.href, method };
    }
  }
  if (typeof obj.next === "string" && /^(https?:\/\/|\/)/.test(obj.next)) return { href: obj.next, method: "get" };
  return undefined;
}
