// Types of requests and answers, derived from the generated `paths` and `operations`.
//
// These helpers read only the shape openapi-typescript gives every operation (`parameters`,
// `requestBody`, `responses` with `content` by media type), never a particular schema, so they
// keep working when the document's schemas change.
import type { components, operations, paths } from "./generated/schema.js";
import type { UploadSource } from "./body.js";
import type { RetryOptions } from "./retry.js";

export type { components, operations, paths };

/** A named schema of the document: `Schema<"ZoneView">`. */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];

export type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";

/** The paths that have an operation for `M`. */
export type PathsWithMethod<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends Record<M, unknown> ? P : never;
}[keyof paths];

/** The operation at a path and method. */
export type OperationAt<P extends keyof paths, M extends HttpMethod> = paths[P] extends Record<M, infer O>
  ? O
  : never;

type RequiredKeys<T> = {
  [K in keyof T]-?: {} extends Pick<T, K> ? never : K;
}[keyof T];

/** `{path, query, header}` parameters of an operation. */
export type ParametersOf<Op> = Op extends { parameters: infer P } ? P : {};

type ParamsInit<Op> = [RequiredKeys<ParametersOf<Op>>] extends [never]
  ? { params?: ParametersOf<Op> }
  : { params: ParametersOf<Op> };

type IsJsonMediaType<K> = K extends `${string}json${string}` ? true : false;
type IsTextMediaType<K> = K extends `text/${string}` | `${string}xml${string}` ? true : false;

/** The value of a JSON request or answer body among the media types `C` offers. */
export type JsonContent<C> = {
  [K in keyof C]: IsJsonMediaType<K> extends true ? C[K] : never;
}[keyof C];

type RequestContent<Op> = Op extends { requestBody?: infer RB }
  ? NonNullable<RB> extends { content: infer C }
    ? C
    : never
  : never;

/** The JSON body an operation takes (`never` when it takes none). */
export type RequestJson<Op> = JsonContent<RequestContent<Op>>;

type BodyRequired<Op> = Op extends { requestBody: { content: unknown } } ? true : false;

type BodyInit<Op> = [RequestContent<Op>] extends [never]
  ? { body?: never; upload?: never; contentType?: never }
  : BodyRequired<Op> extends true
    ?
        | { body: RequestJson<Op>; upload?: never; contentType?: never }
        | { body?: never; upload: UploadSource; contentType?: string }
    : { body?: RequestJson<Op>; upload?: UploadSource; contentType?: string };

/** Options every request takes. */
export interface RequestOptions {
  /** Extra request headers (they win over the client's). */
  headers?: Record<string, string>;
  /** Cancels the request, and any wait between retries. */
  signal?: AbortSignal;
  /** Retry policy for this request; `false` sends it once. */
  retry?: Partial<RetryOptions> | false;
  /** Sent as `X-Request-Id` (echoed back and put in any problem document). */
  requestId?: string;
}

/** What a typed call takes: parameters, a JSON `body` or an `upload`, and request options. */
export type RequestInit<Op> = ParamsInit<Op> & BodyInit<Op> & RequestOptions;

/** `[init]` when something in it is required, `[init?]` otherwise. */
export type InitArgs<Op> = [RequiredKeys<RequestInit<Op>>] extends [never]
  ? [init?: RequestInit<Op>]
  : [init: RequestInit<Op>];

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 205 | 206 | 207 | 208 | 226 | "2XX";

type ResponsesOf<Op> = Op extends { responses: infer R } ? R : never;

type DataOfContent<C> = [keyof C] extends [never]
  ? undefined
  : {
      [K in keyof C]: IsJsonMediaType<K> extends true ? C[K] : IsTextMediaType<K> extends true ? string : Blob;
    }[keyof C];

type DataOfResponse<R> = R extends { content: infer C } ? ([C] extends [never] ? undefined : DataOfContent<C>) : undefined;

type SuccessUnion<Op> = {
  [S in keyof ResponsesOf<Op>]: S extends SuccessStatus ? DataOfResponse<ResponsesOf<Op>[S]> : never;
}[keyof ResponsesOf<Op>];

/**
 * What a successful call answers: the JSON value for JSON media types, a string for text and
 * XML, a Blob for other bytes, `undefined` for an answer without a body.
 */
export type SuccessData<Op> = [SuccessUnion<Op>] extends [never] ? unknown : SuccessUnion<Op>;

/** The element type of the list a page holds (`features`, `zones`, `records`, ...). */
export type PageItem<Data> = Data extends readonly (infer I)[]
  ? I
  : Data extends { features: readonly (infer F)[] }
    ? F
    : [
          {
            [K in keyof Data]: K extends "links" ? never : NonNullable<Data[K]> extends readonly (infer I)[] ? I : never;
          }[keyof Data],
        ] extends [never]
      ? unknown
      : {
          [K in keyof Data]: K extends "links" ? never : NonNullable<Data[K]> extends readonly (infer I)[] ? I : never;
        }[keyof Data];

/** A typed answer with the HTTP response it came in (its body already read). */
export interface ApiResult<Data, Status extends number = number> {
  /** The HTTP status: narrows `data` where an operation answers differently by status (200 or 202). */
  status: Status;
  data: Data;
  response: Response;
}

type ResultUnion<Op> = {
  [S in keyof ResponsesOf<Op>]: S extends SuccessStatus
    ? ApiResult<DataOfResponse<ResponsesOf<Op>[S]>, S extends number ? S : number>
    : never;
}[keyof ResponsesOf<Op>];

/** The answers an operation may give, one per success status: `if (result.status === 202) ...`. */
export type ResultOf<Op> = [ResultUnion<Op>] extends [never] ? ApiResult<unknown> : ResultUnion<Op>;
