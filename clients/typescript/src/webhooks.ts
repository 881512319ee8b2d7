// Verifying webhook deliveries: `X-Service-Signature` (hex HMAC-SHA256 of the body, keyed with
// the secret's text) and Standard Webhooks (`webhook-id`, `webhook-timestamp`,
// `webhook-signature`: base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the bytes after
// `whsec_`). HMACs are checked with WebCrypto's `verify`, a constant-time comparison, so this
// works the same in Node 20+ and in browsers and workers.

/** Headers as a `Headers`, or a plain object (Node's `req.headers`; any letter case). */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/** Which signatures must be present and valid. */
export type WebhookScheme = "auto" | "standard" | "service";

/** Options of `verifyWebhook`. */
export interface VerifyWebhookOptions {
  /** The subscription's secret (`whsec_...`), or several (during a rotation on your side). */
  secret: string | readonly string[];
  /** The raw body, exactly as received (before any JSON parsing). */
  body: string | Uint8Array | ArrayBuffer;
  headers: HeaderSource;
  /**
   * `auto` (default): every signature header present must verify, and at least one must be
   * present. `standard` or `service`: only that one, which must be present.
   */
  scheme?: WebhookScheme;
  /** How far the signed timestamp may be from now, either way. Default 300 s. */
  toleranceSeconds?: number;
  /** The current time (default: the clock). */
  now?: Date | number;
}

/** What every event carries; the area adds its own fields. */
export interface WebhookEvent {
  /** The event id (deduplicate on it: delivery is at least once). */
  id: string;
  /** The event type, e.g. `dns.record.created`. */
  event: string;
  /** When the change happened (RFC 3339). */
  timestamp: string;
  [field: string]: unknown;
}

/** Why a delivery was refused. */
export type WebhookFailure =
  | "missing_signature"
  | "invalid_signature"
  | "missing_timestamp"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "invalid_secret"
  | "invalid_body";

/** A delivery whose signature or timestamp does not hold. */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookFailure;
  constructor(reason: WebhookFailure, message: string) {
    super(message);
    this.name = "WebhookVerificationError";
    this.reason = reason;
  }
}

const encoder = new TextEncoder();

/**
 * Checks a delivery's signatures and timestamps and returns its parsed payload; throws a
 * `WebhookVerificationError` saying why otherwise.
 *
 * ```ts
 * const event = await verifyWebhook({ secret, body: rawBody, headers: req.headers });
 * ```
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookEvent> {
  const scheme = options.scheme ?? "auto";
  const secrets = typeof options.secret === "string" ? [options.secret] : [...options.secret];
  if (secrets.length === 0) throw new WebhookVerificationError("invalid_secret", "no secret given");
  const body = toBytes(options.body);
  const tolerance = options.toleranceSeconds ?? 300;
  const nowMs = options.now === undefined ? Date.now() : typeof options.now === "number" ? options.now : options.now.getTime();

  const hasStandard = header(options.headers, "webhook-signature") !== undefined;
  const hasService = header(options.headers, "x-service-signature") !== undefined;
  const checkStandard = scheme === "standard" || (scheme === "auto" && hasStandard);
  const checkService = scheme === "service" || (scheme === "auto" && hasService);
  if (!checkStandard && !checkService) {
    throw new WebhookVerificationError("missing_signature", "no webhook-signature or X-Service-Signature header");
  }
  if (checkStandard) await verifyStandard(secrets, body, options.headers, tolerance, nowMs);
  if (checkService) await verifyService(secrets, body, options.headers, tolerance, nowMs);

  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError("invalid_body", "the body is not JSON");
  }
  if (payload === null || typeof payload !== "object" || Array.isArray(payload)) {
    throw new WebhookVerificationError("invalid_body", "the body is not a JSON object");
  }
  return payload as WebhookEvent;
}

/**
 * Signs a body as the server does, with both schemes: the headers a delivery would carry.
 * For testing receivers.
 */
export async function signWebhook(options: {
  secret: string;
  body: string | Uint8Array | ArrayBuffer;
  id: string;
  /** Default: now. */
  timestamp?: Date;
}): Promise<Record<string, string>> {
  const body = toBytes(options.body);
  const when = options.timestamp ?? new Date();
  const seconds = Math.floor(when.getTime() / 1000);
  const serviceKey = await hmacKey(encoder.encode(options.secret), ["sign"]);
  const service = new Uint8Array(await crypto.subtle.sign("HMAC", serviceKey, body));
  const standardKey = await hmacKey(standardSecretBytes(options.secret), ["sign"]);
  const standard = new Uint8Array(
    await crypto.subtle.sign("HMAC", standardKey, concat(encoder.encode(`${options.id}.${seconds}.`), body)),
  );
  return {
    "x-service-signature": `sha256=${toHex(service)}`,
    "x-service-timestamp": when.toISOString(),
    "x-service-event-id": options.id,
    "webhook-id": options.id,
    "webhook-timestamp": String(seconds),
    "webhook-signature": `v1,${toBase64(standard)}`,
  };
}

async function verifyStandard(
  secrets: string[],
  body: Bytes,
  headers: HeaderSource,
  tolerance: number,
  nowMs: number,
): Promise<void> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signature = header(headers, "webhook-signature");
  if (signature === undefined) throw new WebhookVerificationError("missing_signature", "no webhook-signature header");
  if (id === undefined || timestamp === undefined) {
    throw new WebhookVerificationError("missing_timestamp", "webhook-id and webhook-timestamp are required");
  }
  if (!/^\d{1,12}$/.test(timestamp.trim())) {
    throw new WebhookVerificationError("invalid_timestamp", "webhook-timestamp is not a number of seconds");
  }
  checkTolerance(Number(timestamp.trim()) * 1000, nowMs, tolerance);
  const signed = concat(encoder.encode(`${id}.${timestamp.trim()}.`), body);
  const given: Bytes[] = [];
  for (const token of signature.split(/\s+/)) {
    const [version, value] = splitOnce(token, ",");
    if (version !== "v1" || value === undefined) continue;
    const bytes = fromBase64(value);
    if (bytes) given.push(bytes);
  }
  for (const secret of secrets) {
    const keyBytes = standardSecretBytes(secret);
    const key = await hmacKey(keyBytes, ["verify"]);
    for (const sig of given) {
      if (await crypto.subtle.verify("HMAC", key, sig, signed)) return;
    }
  }
  throw new WebhookVerificationError("invalid_signature", "no webhook-signature matches the body");
}

async function verifyService(
  secrets: string[],
  body: Bytes,
  headers: HeaderSource,
  tolerance: number,
  nowMs: number,
): Promise<void> {
  const signature = header(headers, "x-service-signature");
  if (signature === undefined) throw new WebhookVerificationError("missing_signature", "no X-Service-Signature header");
  const timestamp = header(headers, "x-service-timestamp");
  if (timestamp === undefined) throw new WebhookVerificationError("missing_timestamp", "no X-Service-Timestamp header");
  const when = Date.parse(timestamp.trim());
  if (Number.isNaN(when)) throw new WebhookVerificationError("invalid_timestamp", "X-Service-Timestamp is not RFC 3339");
  checkTolerance(when, nowMs, tolerance);
  const given: Bytes[] = [];
  for (const part of signature.split(",")) {
    const [scheme, value] = splitOnce(part.trim(), "=");
    if (scheme !== "sha256" || value === undefined) continue;
    const bytes = fromHex(value);
    if (bytes) given.push(bytes);
  }
  for (const secret of secrets) {
    const key = await hmacKey(encoder.encode(secret), ["verify"]);
    for (const sig of given) {
      if (await crypto.subtle.verify("HMAC", key, sig, body)) return;
    }
  }
  throw new WebhookVerificationError("invalid_signature", "no X-Service-Signature matches the body");
}

function checkTolerance(whenMs: number, nowMs: number, toleranceSeconds: number): void {
  const skew = (nowMs - whenMs) / 1000;
  if (skew > toleranceSeconds) {
    throw new WebhookVerificationError("timestamp_too_old", `the delivery was signed ${Math.round(skew)} s ago`);
  }
  if (-skew > toleranceSeconds) {
    throw new WebhookVerificationError("timestamp_too_new", `the delivery is signed ${Math.round(-skew)} s in the future`);
  }
}

function standardSecretBytes(secret: string): Bytes {
  const encoded = secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret;
  const bytes = fromBase64(encoded);
  if (!bytes || bytes.length === 0) throw new WebhookVerificationError("invalid_secret", "the secret is not whsec_ and base64");
  return bytes;
}

function hmacKey(raw: Bytes, usages: KeyUsage[]): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, usages);
}

/** A header's value (several joined with a comma), looked up in any letter case. */
function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof Headers !== "undefined" && headers instanceof Headers) return headers.get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  for (const [k, v] of Object.entries(record)) {
    if (k.toLowerCase() !== name || v === undefined) continue;
    return Array.isArray(v) ? v.join(", ") : v;
  }
  return undefined;
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + sep.length)];
}

/** Bytes backed by an ArrayBuffer, as WebCrypto takes them. */
type Bytes = Uint8Array<ArrayBuffer>;

function toBytes(body: string | Uint8Array | ArrayBuffer): Bytes {
  if (typeof body === "string") return encoder.encode(body);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return body.buffer instanceof ArrayBuffer ? (body as Bytes) : new Uint8Array(body);
}

function concat(a: Uint8Array, b: Uint8Array): Bytes {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function fromHex(hex: string): Bytes | undefined {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromBase64(value: string): Bytes | undefined {
  const v = value.trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 === 1) return undefined;
  try {
    const bin = atob(v);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return undefined;
  }
}

function toBase64(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}
