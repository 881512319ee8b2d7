// Meridian's TypeScript client: generated types and operations (src/generated/) and the layer
// over them.
export { MeridianClient } from "./client.js";
export type { MeridianClientOptions, Operations, Page, PageOptions } from "./client.js";
export { TokenManager } from "./auth.js";
export type { AccessTokenState, TokenResponse } from "./auth.js";
export { Multipart, fileBlob, prepareUpload, toReadableStream } from "./body.js";
export type { PreparedBody, UploadSource } from "./body.js";
export { Download } from "./download.js";
export type { ContentRange, DownloadOptions } from "./download.js";
export { JobFailedError, TERMINAL_JOB_STATUSES, waitForJob } from "./jobs.js";
export type { Job, WaitOptions } from "./jobs.js";
export { nextLink, parseLinkHeader } from "./paging.js";
export type { HeaderLink, NextLink } from "./paging.js";
export { MeridianProblem, isProblem, normalizeProblem, parseRetryAfter } from "./problem.js";
export type { FieldError, ProblemDocument } from "./problem.js";
export { backoffDelay, defaultRetryOptions } from "./retry.js";
export type { RetryInfo, RetryOptions } from "./retry.js";
export { TelemetryClosedError, TwinTelemetry, isReading } from "./telemetry.js";
export type { Reading, TelemetryMessage, TelemetryNotice, TelemetryOptions, WebSocketConstructor, WebSocketLike } from "./telemetry.js";
export { WebhookVerificationError, signWebhook, verifyWebhook } from "./webhooks.js";
export type { HeaderSource, VerifyWebhookOptions, WebhookEvent, WebhookFailure, WebhookScheme } from "./webhooks.js";
export { operationIndex } from "./generated/operations.js";
export type { OperationId, OperationInfo } from "./generated/operations.js";
export type {
  ApiResult,
  HttpMethod,
  InitArgs,
  JsonContent,
  OperationAt,
  PageItem,
  ParametersOf,
  PathsWithMethod,
  RequestInit,
  RequestJson,
  RequestOptions,
  ResultOf,
  Schema,
  SuccessData,
  components,
  operations,
  paths,
} from "./types.js";
