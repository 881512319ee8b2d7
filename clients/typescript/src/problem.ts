// RFC 7807 problem documents as typed errors.

/** One invalid field of a request, located by a JSON pointer (RFC 6901). */
export interface FieldError {
  /** JSON pointer to the offending field, e.g. `/records/0/ttl`; `""` for the whole document. */
  pointer: string;
  /** Stable machine-readable reason, e.g. `required`, `out_of_range`. */
  code: string;
  /** What is wrong, for a person. */
  detail: string;
}

/** The fields of a problem document, as the server sends them. */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors: FieldError[];
  request_id?: string | null;
  [extension: string]: unknown;
}

/**
 * An error answer of the API: the problem document's `code`, `status`, `title`, `detail`,
 * `errors` (with JSON pointers) and `requestId`, plus the HTTP status and headers it came with.
 */
export class MeridianProblem extends Error {
  /** Stable machine-readable code (`validation_failed`, `rate_limited`, `not_found`, ...). */
  readonly code: string;
  /** The HTTP status. */
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  /** A URI reference naming the kind of problem (`/docs/problems#<code>`). */
  readonly type: string;
  /** One entry per invalid field. */
  readonly errors: FieldError[];
  /** The request's identifier (`X-Request-Id`), to find it in the server's logs. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | undefined;
  /** The whole problem document, extensions included. */
  readonly body: ProblemDocument;
  /** The answer's headers. */
  readonly headers: Headers;
  /** Method and URL of the request that failed. */
  readonly request: { method: string; url: string } | undefined;

  constructor(
    body: ProblemDocument,
    init: { headers?: Headers; request?: { method: string; url: string }; retryAfter?: number } = {},
  ) {
    super(`${body.status} ${body.code}: ${body.detail || body.title}`);
    this.name = "MeridianProblem";
    this.body = body;
    this.code = body.code;
    this.status = body.status;
    this.title = body.title;
    this.detail = body.detail;
    this.type = body.type;
    this.errors = body.errors;
    this.headers = init.headers ?? new Headers();
    this.requestId = body.request_id ?? this.headers.get("x-request-id") ?? undefined;
    this.retryAfter = init.retryAfter;
    this.request = init.request;
  }

  /** The JSON pointers of the invalid fields, in the server's order. */
  get pointers(): string[] {
    return this.errors.map((e) => e.pointer);
  }

  /** The field error at a pointer, if the server named it. */
  fieldError(pointer: string): FieldError | undefined {
    return this.errors.find((e) => e.pointer === pointer);
  }

  /**
   * Reads an error answer. A problem document is taken as it is; any other body (a proxy's
   * HTML page, an empty 502) becomes a problem with code `http_<status>`.
   */
  static async fromResponse(response: Response, request?: { method: string; url: string }): Promise<MeridianProblem> {
    let text = "";
    try {
      text = await response.text();
    } catch {
      // the body could not be read; the status still says what happened
    }
    const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
    const init = {
      headers: response.headers,
      ...(request ? { request } : {}),
      ...(retryAfterMs === undefined ? {} : { retryAfter: retryAfterMs / 1000 }),
    };
    return new MeridianProblem(toProblemDocument(text, response), init);
  }
}

/** Whether a value is a MeridianProblem with one of the given codes (any code when none given). */
export function isProblem(error: unknown, ...codes: string[]): error is MeridianProblem {
  return error instanceof MeridianProblem && (codes.length === 0 || codes.includes(error.code));
}

/** Builds a problem document from whatever an error answer's body holds. */
export function toProblemDocument(text: string, response: { status: number; statusText: string; headers: Headers }): ProblemDocument {
  let parsed: unknown;
  if (text.trim() !== "") {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  return normalizeProblem(parsed, response, text);
}

/** Fills in what a problem-like object lacks (a job's `error` may be partial). */
export function normalizeProblem(
  value: unknown,
  fallback: { status: number; statusText?: string; headers?: Headers },
  text = "",
): ProblemDocument {
  const obj = value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const status = typeof obj.status === "number" ? obj.status : fallback.status;
  const code = typeof obj.code === "string" ? obj.code : `http_${status}`;
  const title =
    typeof obj.title === "string" ? obj.title : fallback.statusText && fallback.statusText !== "" ? fallback.statusText : `HTTP ${status}`;
  const detail = typeof obj.detail === "string" ? obj.detail : text.slice(0, 500);
  const errors = Array.isArray(obj.errors)
    ? obj.errors
        .filter((e): e is Record<string, unknown> => e !== null && typeof e === "object")
        .map((e) => ({
          pointer: typeof e.pointer === "string" ? e.pointer : "",
          code: typeof e.code === "string" ? e.code : "",
          detail: typeof e.detail === "string" ? e.detail : "",
        }))
    : [];
  const requestId =
    typeof obj.request_id === "string" ? obj.request_id : (fallback.headers?.get("x-request-id") ?? null);
  return {
    ...obj,
    type: typeof obj.type === "string" ? obj.type : "about:blank",
    title,
    status,
    detail,
    code,
    errors,
    request_id: requestId,
  };
}

/**
 * `Retry-After` in milliseconds from now: delay-seconds or an HTTP date. `undefined` when
 * absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  if (v === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
