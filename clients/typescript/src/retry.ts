// Retries with back-off, honouring Retry-After.

/** When and how often a request is sent again. */
export interface RetryOptions {
  /** Retries after the first attempt (0 sends once). Default 3. */
  maxRetries: number;
  /** HTTP statuses answered with a retry. Default `[429, 503]`. */
  statuses: number[];
  /** First back-off when the answer has no `Retry-After`, doubled each time. Default 500 ms. */
  baseDelayMs: number;
  /**
   * Longest wait. A `Retry-After` longer than this is not waited for: the error is raised
   * with the server's `retryAfter` instead. Default 60 s.
   */
  maxDelayMs: number;
  /** Retry when the connection fails (no answer) for GET, HEAD, PUT, DELETE and OPTIONS. Default true. */
  networkErrors: boolean;
  /** Called before each wait. */
  onRetry?: (info: RetryInfo) => void;
}

/** What `onRetry` is told. */
export interface RetryInfo {
  /** 1 for the first retry. */
  attempt: number;
  /** How long the client waits before sending again. */
  delayMs: number;
  /** Whether the delay is the server's `Retry-After`. */
  fromRetryAfter: boolean;
  method: string;
  url: string;
  /** The status that caused the retry (undefined for a network error). */
  status?: number;
  /** The network error that caused the retry. */
  error?: unknown;
}

export const defaultRetryOptions: RetryOptions = {
  maxRetries: 3,
  statuses: [429, 503],
  baseDelayMs: 500,
  maxDelayMs: 60_000,
  networkErrors: true,
};

/** Merges a request's retry options over the client's; `false` anywhere disables retries. */
export function resolveRetry(
  client: Partial<RetryOptions> | false | undefined,
  request: Partial<RetryOptions> | false | undefined,
): RetryOptions {
  if (client === false || request === false) return { ...defaultRetryOptions, maxRetries: 0 };
  return { ...defaultRetryOptions, ...(client ?? {}), ...(request ?? {}) };
}

/** Exponential back-off with ±20% jitter, capped at `maxDelayMs`. `attempt` counts from 1. */
export function backoffDelay(options: RetryOptions, attempt: number): number {
  const base = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Waits, or rejects with the signal's reason when it is aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function abortReason(signal: AbortSignal | undefined): unknown {
  const reason: unknown = signal?.reason;
  if (reason !== undefined) return reason;
  const err = new Error("The operation was aborted");
  err.name = "AbortError";
  return err;
}
