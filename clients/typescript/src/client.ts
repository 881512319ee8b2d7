// MeridianClient: typed calls over the generated `paths` and `operations`, with authentication,
// retries, problem documents as errors, paging, uploads, downloads and job waiting.
import { TokenManager, type TokenResponse } from "./auth.js";
import { prepareUpload, type PreparedBody, type UploadSource } from "./body.js";
import { Download, type DownloadOptions } from "./download.js";
import { operationIndex, type OperationInfo } from "./generated/operations.js";
import { waitForJob, type Job, type WaitOptions } from "./jobs.js";
import { nextLink } from "./paging.js";
import { MeridianProblem, parseRetryAfter } from "./problem.js";
import { abortReason, backoffDelay, resolveRetry, sleep, type RetryOptions } from "./retry.js";
import { TwinTelemetry, type TelemetryOptions, type WebSocketConstructor } from "./telemetry.js";
import type {
  ApiResult,
  HttpMethod,
  InitArgs,
  OperationAt,
  PageItem,
  PathsWithMethod,
  RequestOptions,
  ResultOf,
  Schema,
  SuccessData,
  operations,
} from "./types.js";

/** How a client is set up. */
export interface MeridianClientOptions {
  /** Where the server is, e.g. `http://127.0.0.1:8080` (paths such as `/api/v1/...` are added to it). */
  baseUrl: string;
  /** An API key (`mrd_...`). */
  apiKey?: string;
  /**
   * Trade the API key for short-lived access tokens (`POST /api/v1/auth/token`) and send those,
   * refreshing them before they expire. Default false: the key itself is sent.
   */
  useAccessTokens?: boolean;
  /** A fixed access token (no API key): sent as it is, never refreshed. */
  accessToken?: string;
  /** Retry policy of every request (`false`: never retry). */
  retry?: Partial<RetryOptions> | false;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** The WebSocket constructor for telemetry (default: the global one, when there is one). */
  WebSocket?: WebSocketConstructor;
}

/** Options of `paginate` and `pages`, next to the first request's parameters. */
export interface PageOptions {
  /** The property holding the items (default: `features`, else the answer's one array property). */
  itemsKey?: string;
  /** Stop after this many pages. */
  maxPages?: number;
}

/** One page of a list, with the answer it came in. */
export interface Page<Data> {
  data: Data;
  response: Response;
  /** The URL this page was read from. */
  url: string;
  /** The page's items. */
  items: PageItem<Data>[];
}

/** Every operation of the document, callable by its operationId. */
export type Operations = {
  [K in keyof operations]: (...init: InitArgs<operations[K]>) => Promise<SuccessData<operations[K]>>;
};

type GetOp<P extends PathsWithMethod<"get">> = OperationAt<P, "get">;
type PageArgs<Op> = InitArgs<Op> extends [init: infer I]
  ? [init: I & PageOptions]
  : InitArgs<Op> extends [init?: infer I]
    ? [init?: I & PageOptions]
    : never;
type DownloadArgs<Op> = InitArgs<Op> extends [init: infer I]
  ? [init: I & DownloadOptions]
  : InitArgs<Op> extends [init?: infer I]
    ? [init?: I & DownloadOptions]
    : never;

interface LooseInit extends RequestOptions {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown>; header?: Record<string, unknown> };
  body?: unknown;
  upload?: UploadSource;
  contentType?: string;
}

interface SendOptions extends RequestOptions {
  body?: PreparedBody | undefined;
  /** Whether to send credentials (false for the token exchange itself, which sets its own). */
  auth?: boolean;
}

const IDEMPOTENT = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

const routeIndex: Map<string, OperationInfo> = new Map(
  Object.values(operationIndex as Record<string, OperationInfo>).map((op) => [`${op.method} ${op.path}`, op]),
);

/**
 * A client of the Meridian API.
 *
 * ```ts
 * const client = new MeridianClient({ baseUrl: "http://127.0.0.1:8080", apiKey: process.env.KEY });
 * const zone = await client.POST("/v1/dns/zones", { body: { name: "example.com" } });
 * for await (const record of client.paginate("/v1/dns/zones/{zone_id}/records", { params: { path: { zone_id: zone.id } } })) { ... }
 * await client.ops.delete_zone({ params: { path: { zone_id: zone.id } } });
 * ```
 */
export class MeridianClient {
  readonly baseUrl: string;
  /** Every operation by its operationId: `client.ops.list_zones({ params: { query: { limit: 10 } } })`. */
  readonly ops: Operations;
  private readonly options: MeridianClientOptions;
  private readonly fetchImpl: typeof fetch;
  private tokens: TokenManager | undefined;

  constructor(options: MeridianClientOptions) {
    if (!options.baseUrl) throw new TypeError("baseUrl is required");
    if (options.useAccessTokens && !options.apiKey) throw new TypeError("useAccessTokens needs an apiKey");
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new TypeError("no fetch: pass options.fetch");
    this.fetchImpl = f.bind(globalThis);
    const ops: Record<string, (init?: LooseInit) => Promise<unknown>> = {};
    for (const [id, op] of Object.entries(operationIndex as Record<string, OperationInfo>)) {
      ops[id] = async (init?: LooseInit) => (await this.requestLoose(op.method, op.path, init)).data;
    }
    this.ops = ops as unknown as Operations;
  }

  /**
   * Signs up (`POST /api/v1/accounts`) and returns a client using the new account's API key,
   * with the account and the key (shown this once).
   */
  static async signUp(
    options: Omit<MeridianClientOptions, "apiKey" | "accessToken"> & { name: string; email: string },
  ): Promise<{ client: MeridianClient; account: Schema<"AccountView">; apiKey: string }> {
    const { name, email, ...clientOptions } = options;
    const anonymous = new MeridianClient({ ...clientOptions, useAccessTokens: false });
    const created = await anonymous.POST("/api/v1/accounts", { body: { name, email } });
    const client = new MeridianClient({ ...clientOptions, apiKey: created.api_key });
    return { client, account: created.account, apiKey: created.api_key };
  }

  // Typed calls by path and method. Each returns the parsed answer, or throws a MeridianProblem.

  GET<P extends PathsWithMethod<"get">>(path: P, ...init: InitArgs<OperationAt<P, "get">>) {
    return this.data<OperationAt<P, "get">>("get", path, init[0]);
  }
  PUT<P extends PathsWithMethod<"put">>(path: P, ...init: InitArgs<OperationAt<P, "put">>) {
    return this.data<OperationAt<P, "put">>("put", path, init[0]);
  }
  POST<P extends PathsWithMethod<"post">>(path: P, ...init: InitArgs<OperationAt<P, "post">>) {
    return this.data<OperationAt<P, "post">>("post", path, init[0]);
  }
  PATCH<P extends PathsWithMethod<"patch">>(path: P, ...init: InitArgs<OperationAt<P, "patch">>) {
    return this.data<OperationAt<P, "patch">>("patch", path, init[0]);
  }
  DELETE<P extends PathsWithMethod<"delete">>(path: P, ...init: InitArgs<OperationAt<P, "delete">>) {
    return this.data<OperationAt<P, "delete">>("delete", path, init[0]);
  }
  HEAD<P extends PathsWithMethod<"head">>(path: P, ...init: InitArgs<OperationAt<P, "head">>) {
    return this.data<OperationAt<P, "head">>("head", path, init[0]);
  }

  /**
   * A typed call that also returns the status and the HTTP response (for `ETag`, `Location`,
   * rate-limit headers...). The status narrows the data where an operation answers 200 or 202.
   */
  request<M extends HttpMethod, P extends PathsWithMethod<M>>(
    method: M,
    path: P,
    ...init: InitArgs<OperationAt<P, M>>
  ): Promise<ResultOf<OperationAt<P, M>>> {
    return this.requestLoose(method, path, init[0] as LooseInit | undefined) as Promise<ResultOf<OperationAt<P, M>>>;
  }

  /** Calls an operation by its operationId and returns the HTTP response too. */
  call<K extends keyof operations>(
    operationId: K,
    ...init: InitArgs<operations[K]>
  ): Promise<ResultOf<operations[K]>> {
    const op = (operationIndex as Record<string, OperationInfo>)[operationId as string];
    if (!op) throw new TypeError(`unknown operation ${String(operationId)}`);
    return this.requestLoose(op.method, op.path, init[0] as LooseInit | undefined) as Promise<ResultOf<operations[K]>>;
  }

  /**
   * Every item of a paged list, following `next` links (the `Link` header, or the body's
   * `links`) until the last page:
   *
   * ```ts
   * for await (const parcel of client.paginate("/api/v1/cadastre/parcels", { params: { query: { limit: 100 } } })) { ... }
   * ```
   */
  async *paginate<P extends PathsWithMethod<"get">>(
    path: P,
    ...init: PageArgs<GetOp<P>>
  ): AsyncGenerator<PageItem<SuccessData<GetOp<P>>>, void, undefined> {
    for await (const page of this.pages(path, ...init)) {
      yield* page.items;
    }
  }

  /** The pages of a list, each with its answer, following `next` links. */
  async *pages<P extends PathsWithMethod<"get">>(
    path: P,
    ...init: PageArgs<GetOp<P>>
  ): AsyncGenerator<Page<SuccessData<GetOp<P>>>, void, undefined> {
    const options = (init[0] ?? {}) as LooseInit & PageOptions;
    yield* this.pagesFrom(this.buildUrl(path, options.params), options) as AsyncGenerator<
      Page<SuccessData<GetOp<P>>>,
      void,
      undefined
    >;
  }

  /**
   * Every item of a paged list starting from a URL or a path with its query (a link the server
   * gave, or a list whose parameters the document does not describe).
   */
  async *paginateUrl(url: string, options: PageOptions & RequestOptions = {}): AsyncGenerator<unknown, void, undefined> {
    for await (const page of this.pagesFrom(this.resolveLink(url), options)) yield* page.items;
  }

  /** The pages of a list starting from a URL or a path with its query. */
  pagesUrl(url: string, options: PageOptions & RequestOptions = {}): AsyncGenerator<Page<unknown>, void, undefined> {
    return this.pagesFrom(this.resolveLink(url), options);
  }

  private async *pagesFrom(
    firstUrl: string,
    options: PageOptions & RequestOptions & Pick<LooseInit, "params">,
  ): AsyncGenerator<Page<unknown>, void, undefined> {
    let url = firstUrl;
    let method = "get";
    let body: PreparedBody | undefined;
    let itemsKey = options.itemsKey;
    const seen = new Set<string>();
    for (let count = 0; options.maxPages === undefined || count < options.maxPages; count++) {
      seen.add(`${method} ${url} ${body ? String(body.body) : ""}`);
      const response = await this.send(method, url, { ...options, headers: this.paramHeaders(options), body });
      const data = await this.readResult(response, method, url);
      itemsKey ??= findItemsKey(data);
      const items = itemsOf(data, itemsKey) as PageItem<unknown>[];
      yield { data, response, url, items };
      const next = nextLink(response.headers, data);
      if (!next) return;
      url = this.resolveLink(next.href);
      method = next.method;
      body =
        next.body === undefined
          ? undefined
          : { body: JSON.stringify(next.body), contentType: "application/json", replayable: true, stream: false };
      if (seen.has(`${method} ${url} ${body ? String(body.body) : ""}`)) return;
    }
  }

  /**
   * Downloads a file (a COG, a COPC, a job output...), optionally a byte range, without reading
   * it: the answer's body is a stream. A `202` with `Retry-After` (a conversion under way) is
   * waited for.
   */
  async download<P extends PathsWithMethod<"get">>(path: P, ...init: DownloadArgs<GetOp<P>>): Promise<Download> {
    const options = (init[0] ?? {}) as LooseInit & DownloadOptions;
    return this.downloadUrl(this.buildUrl(path, options.params), options);
  }

  /** Downloads from a URL the server gave (an output's `href`, an asset's link). */
  async downloadUrl(url: string, options: DownloadOptions & RequestOptions & Pick<LooseInit, "params"> = {}): Promise<Download> {
    const target = this.resolveLink(url);
    const headers: Record<string, string> = { ...this.paramHeaders(options) };
    if (options.range !== undefined) {
      headers["range"] =
        typeof options.range === "string"
          ? options.range
          : `bytes=${options.range.start}-${options.range.end === undefined ? "" : options.range.end}`;
    }
    if (options.ifNoneMatch !== undefined) headers["if-none-match"] = options.ifNoneMatch;
    const deadline = Date.now() + (options.maxPendingMs ?? 600_000);
    for (;;) {
      const response = await this.send("get", target, { ...options, headers });
      if (response.status === 202) {
        const wait = parseRetryAfter(response.headers.get("retry-after")) ?? 2000;
        await response.body?.cancel();
        if (Date.now() + wait > deadline) {
          throw new MeridianProblem(
            {
              type: "about:blank",
              title: "Still being prepared",
              status: 202,
              detail: `the server was still preparing ${target} after ${options.maxPendingMs ?? 600_000} ms`,
              code: "download_pending",
              errors: [],
            },
            { headers: response.headers, request: { method: "GET", url: target } },
          );
        }
        await sleep(wait, options.signal);
        continue;
      }
      if (!response.ok && response.status !== 304) {
        throw await MeridianProblem.fromResponse(response, { method: "GET", url: target });
      }
      return new Download(response);
    }
  }

  /**
   * Waits for a job (`/api/v1/jobs/{id}`) to end, calling `onProgress` whenever its status or
   * progress changes. Resolves with the succeeded job; throws a `JobFailedError` when it
   * fails or is cancelled.
   */
  waitForJob(job: string | { id: string }, options: WaitOptions = {}): Promise<Job> {
    return waitForJob(this, typeof job === "string" ? job : job.id, options);
  }

  /**
   * An access token for places that cannot send headers (a WebSocket, a map client's URL):
   * the fixed one, or one traded for the API key (kept and refreshed).
   */
  async accessToken(signal?: AbortSignal): Promise<string> {
    if (this.options.accessToken !== undefined) return this.options.accessToken;
    return this.tokenManager().token(signal);
  }

  /**
   * Live telemetry of a twin over its WebSocket, resuming after a dropped connection with
   * `since` set to the last reading received.
   */
  twinTelemetry(twinId: string, options: TelemetryOptions = {}): TwinTelemetry {
    const WebSocketImpl =
      options.WebSocket ??
      this.options.WebSocket ??
      (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!WebSocketImpl) {
      throw new TypeError(
        "no WebSocket: pass options.WebSocket (e.g. the ws package), or run Node with --experimental-websocket (Node 20) or Node 22+",
      );
    }
    return new TwinTelemetry({
      twinId,
      baseUrl: this.baseUrl,
      token: (signal) => this.accessToken(signal),
      WebSocket: WebSocketImpl,
      ...options,
    });
  }

  /**
   * Sends a request to any path of the server with the client's credentials and retries, and
   * returns the answer as it is (no error is raised for error statuses).
   */
  async fetch(
    path: string,
    init: RequestOptions & { method?: string; body?: UploadSource; contentType?: string } = {},
  ): Promise<Response> {
    const body = init.body === undefined ? undefined : prepareUpload(init.body);
    if (body && init.contentType !== undefined) body.contentType = init.contentType;
    return this.send(init.method ?? "get", this.resolveLink(path), { ...init, body });
  }

  // Internals.

  private async data<Op>(method: HttpMethod, path: string, init: unknown): Promise<SuccessData<Op>> {
    return (await this.requestLoose(method, path, init as LooseInit | undefined)).data as SuccessData<Op>;
  }

  private async requestLoose(method: string, path: string, init: LooseInit = {}): Promise<ApiResult<unknown>> {
    const url = this.buildUrl(path, init.params);
    const route = routeIndex.get(`${method} ${path}`);
    let body: PreparedBody | undefined;
    if (init.body !== undefined && init.upload !== undefined) throw new TypeError("give either body or upload, not both");
    if (init.body !== undefined) {
      body = { body: JSON.stringify(init.body), contentType: jsonMediaType(route), replayable: true, stream: false };
    } else if (init.upload !== undefined) {
      body = prepareUpload(init.upload);
      body.contentType = init.contentType ?? body.contentType ?? uploadMediaType(route, init.upload);
    }
    const response = await this.send(method, url, { ...init, headers: this.paramHeaders(init), body });
    const data = await this.readResult(response, method, url);
    return { status: response.status, data, response };
  }

  private async readResult(response: Response, method: string, url: string): Promise<unknown> {
    if (!response.ok && response.status !== 304) {
      throw await MeridianProblem.fromResponse(response, { method: method.toUpperCase(), url });
    }
    return parseBody(response, method);
  }

  /** Header parameters of a typed call, merged under the call's own headers. */
  private paramHeaders(init: Pick<LooseInit, "params" | "headers">): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(init.params?.header ?? {})) {
      if (v !== undefined && v !== null) headers[k.toLowerCase()] = String(v);
    }
    for (const [k, v] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = v;
    return headers;
  }

  /** Sends with credentials, retrying on the configured statuses and on a refused token. */
  private async send(method: string, url: string, options: SendOptions): Promise<Response> {
    const upper = method.toUpperCase();
    const retry = resolveRetry(this.options.retry, options.retry);
    const replayable = options.body?.replayable ?? true;
    let attempt = 0;
    let refreshedToken = false;
    for (;;) {
      const headers = new Headers();
      for (const [k, v] of Object.entries(this.options.headers ?? {})) headers.set(k, v);
      let token: string | undefined;
      if (options.auth !== false) {
        token = await this.credential(options.signal);
        if (token !== undefined) headers.set("authorization", `Bearer ${token}`);
      }
      if (options.body?.contentType !== undefined) headers.set("content-type", options.body.contentType);
      if (options.requestId !== undefined) headers.set("x-request-id", options.requestId);
      for (const [k, v] of Object.entries(options.headers ?? {})) headers.set(k, v);
      const init: globalThis.RequestInit & { duplex?: "half" } = { method: upper, headers };
      if (options.body) {
        init.body = options.body.body as BodyInit;
        if (options.body.stream) init.duplex = "half";
      }
      if (options.signal) init.signal = options.signal;

      let response: Response;
      try {
        response = await this.fetchImpl(url, init);
      } catch (error) {
        if (options.signal?.aborted) throw abortReason(options.signal);
        if (retry.networkErrors && IDEMPOTENT.has(upper) && replayable && attempt < retry.maxRetries) {
          attempt++;
          const delayMs = backoffDelay(retry, attempt);
          retry.onRetry?.({ attempt, delayMs, fromRetryAfter: false, method: upper, url, error });
          await sleep(delayMs, options.signal);
          continue;
        }
        throw error;
      }

      if (
        response.status === 401 &&
        token !== undefined &&
        this.tokens !== undefined &&
        this.options.useAccessTokens &&
        !refreshedToken &&
        replayable
      ) {
        // The token expired early or was revoked with its key: trade the key once more.
        refreshedToken = true;
        this.tokens.invalidate(token);
        await response.body?.cancel();
        continue;
      }

      if (retry.statuses.includes(response.status) && replayable && attempt < retry.maxRetries) {
        const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
        const delayMs = retryAfter ?? backoffDelay(retry, attempt + 1);
        if (delayMs <= retry.maxDelayMs) {
          attempt++;
          await response.body?.cancel();
          retry.onRetry?.({
            attempt,
            delayMs,
            fromRetryAfter: retryAfter !== undefined,
            method: upper,
            url,
            status: response.status,
          });
          await sleep(delayMs, options.signal);
          continue;
        }
      }
      return response;
    }
  }

  private async credential(signal?: AbortSignal): Promise<string | undefined> {
    if (this.options.accessToken !== undefined) return this.options.accessToken;
    if (this.options.apiKey === undefined) return undefined;
    if (this.options.useAccessTokens) return this.tokenManager().token(signal);
    return this.options.apiKey;
  }

  private tokenManager(): TokenManager {
    if (!this.tokens) {
      const apiKey = this.options.apiKey;
      if (apiKey === undefined) throw new TypeError("an access token needs an apiKey (or pass accessToken)");
      this.tokens = new TokenManager(async (signal) => {
        const url = `${this.baseUrl}/api/v1/auth/token`;
        const response = await this.send("post", url, {
          auth: false,
          headers: { "x-api-key": apiKey },
          ...(signal ? { signal } : {}),
        });
        return (await this.readResult(response, "post", url)) as TokenResponse;
      });
    }
    return this.tokens;
  }

  /** The URL of a path template with its parameters. */
  buildUrl(path: string, params?: LooseInit["params"]): string {
    const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = params?.path?.[name];
      if (value === undefined || value === null) throw new TypeError(`missing path parameter ${name} of ${path}`);
      return encodeURIComponent(String(value));
    });
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(params?.query ?? {})) {
      if (v === undefined || v === null) continue;
      if (Array.isArray(v)) for (const item of v) query.append(k, queryValue(item));
      else query.append(k, queryValue(v));
    }
    const qs = query.toString();
    return `${this.baseUrl}${filled}${qs === "" ? "" : `?${qs}`}`;
  }

  /**
   * A path (`/api/v1/...`, under `baseUrl` like the typed paths) or a link the server gave, made
   * absolute. A link to another origin keeps its path and query on the client's own server, so
   * that credentials only ever go to `baseUrl`.
   */
  resolveLink(href: string): string {
    if (href.startsWith("/") && !href.startsWith("//")) return `${this.baseUrl}${href}`;
    const base = new URL(`${this.baseUrl}/`);
    const url = new URL(href, base);
    if (url.origin === base.origin) return url.toString();
    return `${base.origin}${url.pathname}${url.search}`;
  }
}

function queryValue(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  if (v instanceof Date) return v.toISOString();
  return JSON.stringify(v);
}

function jsonMediaType(route: OperationInfo | undefined): string {
  const types = route?.requestTypes ?? [];
  if (types.includes("application/json")) return "application/json";
  return types.find((t) => t.includes("json")) ?? "application/json";
}

function uploadMediaType(route: OperationInfo | undefined, upload: UploadSource): string | undefined {
  if (typeof FormData !== "undefined" && upload instanceof FormData) return undefined;
  if (upload instanceof URLSearchParams) return undefined;
  const types = route?.requestTypes ?? [];
  return types.find((t) => !t.includes("json") && !t.startsWith("multipart/")) ?? "application/octet-stream";
}

async function parseBody(response: Response, method: string): Promise<unknown> {
  if (method.toLowerCase() === "head" || response.status === 204 || response.status === 205 || response.status === 304) {
    await response.body?.cancel();
    return undefined;
  }
  const type = (response.headers.get("content-type") ?? "").toLowerCase();
  if (type.includes("json")) {
    const text = await response.text();
    return text === "" ? undefined : (JSON.parse(text) as unknown);
  }
  if (type.startsWith("text/") || type.includes("xml")) return response.text();
  const blob = await response.blob();
  return blob.size === 0 && type === "" ? undefined : blob;
}

const NOT_ITEMS = new Set(["links", "conformsTo", "bbox", "stac_extensions", "keywords"]);

function findItemsKey(data: unknown): string | undefined {
  if (Array.isArray(data) || data === null || typeof data !== "object") return undefined;
  const obj = data as Record<string, unknown>;
  if (Array.isArray(obj.features)) return "features";
  return Object.keys(obj).find((k) => !NOT_ITEMS.has(k) && Array.isArray(obj[k]));
}

function itemsOf(data: unknown, key: string | undefined): unknown[] {
  if (Array.isArray(data)) return data;
  if (key === undefined || data === null || typeof data !== "object") return [];
  const value = (data as Record<string, unknown>)[key];
  return Array.isArray(value) ? value : [];
}
