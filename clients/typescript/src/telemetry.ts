// Twin telemetry over the WebSocket `/api/v1/realtime/twin/{id}`, with resume: after a dropped
// connection the helper connects again with `since` set to the last reading it received, so the
// readings stored meanwhile are replayed, and drops the ones it has already delivered.

/** The part of the WebSocket API the helper uses (browsers, Node's global one, the `ws` package). */
export interface WebSocketLike {
  readonly readyState: number;
  // Event parameters are loose so that every implementation's handler types fit.
  onopen: ((event: any) => unknown) | null;
  onmessage: ((event: any) => unknown) | null;
  onclose: ((event: any) => unknown) | null;
  onerror: ((event: any) => unknown) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

/** A sensor reading, as the server pushes it. */
export interface Reading {
  sensorId: string;
  value: unknown;
  /** RFC 3339, UTC, milliseconds. */
  ts: string;
}

/** A notice: `hello`, `clock`, `gap`, `subscribed` or `error` (see docs/twin.md). */
export interface TelemetryNotice {
  type: string;
  [field: string]: unknown;
}

export type TelemetryMessage = Reading | TelemetryNotice;

/** Whether a message is a reading (rather than a notice). */
export function isReading(message: TelemetryMessage | undefined): message is Reading {
  return message !== undefined && !("type" in message) && typeof (message as Reading).sensorId === "string";
}

/** Options of `client.twinTelemetry()`. */
export interface TelemetryOptions {
  /** Replay the stored readings after this instant first (RFC 3339 or a Date). */
  since?: string | Date;
  /** Only these sensors (default: all). */
  sensors?: string[];
  /** Connect again after a dropped connection (default true), resuming from the last reading. */
  reconnect?: boolean;
  /** Connection attempts in a row without a `hello` before giving up (default 5). */
  maxReconnectAttempts?: number;
  /** First wait before connecting again, doubled per failed attempt up to 10 s (default 250 ms). */
  reconnectDelayMs?: number;
  /** Called for every message, before it is queued for `read()` and iteration. */
  onMessage?: (message: TelemetryMessage) => void;
  /** The WebSocket constructor (default: the client's, else the global one). */
  WebSocket?: WebSocketConstructor;
}

interface TelemetryConfig extends TelemetryOptions {
  twinId: string;
  baseUrl: string;
  token: (signal?: AbortSignal) => Promise<string>;
  WebSocket: WebSocketConstructor;
}

interface Waiter {
  resolve: (message: TelemetryMessage | undefined) => void;
  reject: (error: unknown) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** How the connection ended, when it did. */
export class TelemetryClosedError extends Error {
  readonly code: number | undefined;
  constructor(message: string, code?: number) {
    super(message);
    this.name = "TelemetryClosedError";
    this.code = code;
  }
}

const RECENT_KEYS = 10_000;

/**
 * A twin's live telemetry. Read it with `for await (const message of telemetry)`, with
 * `read()`, or with `onMessage`; `close()` ends it.
 */
export class TwinTelemetry implements AsyncIterable<TelemetryMessage> {
  readonly twinId: string;
  /** The latest reading time received (the resume point). */
  lastTs: string | undefined;
  /** The socket in use (replaced on every reconnection). */
  socket: WebSocketLike | undefined;
  /** Connections opened so far (1 + reconnections). */
  connections = 0;
  /** Resolves with the first `hello` notice; rejects if no connection could be made. */
  readonly ready: Promise<TelemetryNotice>;

  private readonly config: TelemetryConfig;
  private readonly queue: TelemetryMessage[] = [];
  private readonly waiters: Waiter[] = [];
  private readonly recent = new Set<string>();
  private sensors: string[] | undefined;
  private since: string | undefined;
  private failures = 0;
  private closing = false;
  private done = false;
  private error: unknown;
  private resolveReady!: (hello: TelemetryNotice) => void;
  private rejectReady!: (error: unknown) => void;
  private readyDone = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(config: TelemetryConfig) {
    this.config = config;
    this.twinId = config.twinId;
    this.sensors = config.sensors;
    this.since = config.since === undefined ? undefined : toIso(config.since);
    this.ready = new Promise((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    // A rejection nobody awaits is not an unhandled one: the same error reaches read().
    this.ready.catch(() => undefined);
    void this.connect();
  }

  /** Changes the sensors listened to (`null`: all of them). Kept across reconnections. */
  subscribe(sensors: string[] | null): void {
    this.sensors = sensors ?? undefined;
    this.socket?.send(JSON.stringify({ type: "subscribe", sensors }));
  }

  /**
   * The next message; `undefined` once the telemetry is closed. Rejects when the connection
   * could not be kept, or with a `TimeoutError` after `timeoutMs`.
   */
  read(options: { timeoutMs?: number } = {}): Promise<TelemetryMessage | undefined> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.done) return this.error !== undefined ? Promise.reject(this.error) : Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, timer: undefined };
      if (options.timeoutMs !== undefined) {
        waiter.timer = setTimeout(() => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          const err = new Error(`no telemetry message within ${options.timeoutMs} ms`);
          err.name = "TimeoutError";
          reject(err);
        }, options.timeoutMs);
      }
      this.waiters.push(waiter);
    });
  }

  /** The readings only (notices skipped). */
  async *readings(): AsyncGenerator<Reading, void, undefined> {
    for await (const message of this) if (isReading(message)) yield message;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<TelemetryMessage, void, undefined> {
    try {
      for (;;) {
        const message = await this.read();
        if (message === undefined) return;
        yield message;
      }
    } finally {
      // Leaving the loop early (break, return, throw) ends the telemetry.
      if (!this.done) this.close();
    }
  }

  /** Closes the connection for good. */
  close(): void {
    this.closing = true;
    if (this.reconnectTimer !== undefined) clearTimeout(this.reconnectTimer);
    const socket = this.socket;
    if (socket && socket.readyState <= 1) socket.close(1000, "closed by the client");
    this.finish(undefined);
  }

  private async connect(): Promise<void> {
    if (this.closing) return;
    let token: string;
    try {
      token = await this.config.token();
    } catch (error) {
      this.fail(error);
      return;
    }
    if (this.closing) return;
    const url = new URL(`${this.config.baseUrl}/api/v1/realtime/twin/${encodeURIComponent(this.twinId)}`);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.searchParams.set("access_token", token);
    if (this.since !== undefined) url.searchParams.set("since", this.since);
    if (this.sensors !== undefined) url.searchParams.set("sensors", this.sensors.join(","));
    let socket: WebSocketLike;
    try {
      socket = new this.config.WebSocket(url.toString());
    } catch (error) {
      this.fail(error);
      return;
    }
    this.socket = socket;
    this.connections++;
    socket.onmessage = (event: { data: unknown }) => this.onMessage(event.data);
    socket.onerror = () => undefined; // a close event follows and says what to do
    socket.onclose = (event: { code?: number; reason?: string }) => {
      if (this.socket === socket) this.onClose(event.code ?? 1006, event.reason ?? "");
    };
  }

  private onMessage(data: unknown): void {
    if (typeof data !== "string") return; // the server sends text frames only
    let message: TelemetryMessage;
    try {
      message = JSON.parse(data) as TelemetryMessage;
    } catch {
      return;
    }
    if (message === null || typeof message !== "object") return;
    if (isReading(message)) {
      const key = `${message.sensorId}\u0000${message.ts}`;
      if (this.recent.has(key)) return; // replayed on resume, delivered already
      this.recent.add(key);
      if (this.recent.size > RECENT_KEYS) {
        const oldest = this.recent.values().next().value;
        if (oldest !== undefined) this.recent.delete(oldest);
      }
      if (this.lastTs === undefined || Date.parse(message.ts) > Date.parse(this.lastTs)) this.lastTs = message.ts;
    } else if (message.type === "hello") {
      this.failures = 0;
      if (!this.readyDone) {
        this.readyDone = true;
        this.resolveReady(message);
      }
      // Resume from the connection's start if nothing arrives before a drop (live clock only).
      const clock = message.clock as { time?: unknown; mode?: unknown } | undefined;
      if (this.since === undefined && this.lastTs === undefined && clock?.mode === "live" && typeof clock.time === "string") {
        this.since = clock.time;
      }
    }
    if (isReading(message) && this.lastTs !== undefined) {
      // Resume one millisecond early: readings that share the last instant are replayed and
      // dropped above as duplicates, rather than possibly lost.
      this.since = new Date(Date.parse(this.lastTs) - 1).toISOString();
    }
    this.config.onMessage?.(message);
    const waiter = this.waiters.shift();
    if (waiter) {
      if (waiter.timer !== undefined) clearTimeout(waiter.timer);
      waiter.resolve(message);
    } else {
      this.queue.push(message);
    }
  }

  private onClose(code: number, reason: string): void {
    this.socket = undefined;
    if (this.closing) return this.finish(undefined);
    if (code === 1000) return this.finish(undefined); // the twin was deleted
    if (code === 1003 || code === 1008) {
      return this.fail(new TelemetryClosedError(`telemetry closed by the server (${code} ${reason})`, code));
    }
    if (this.config.reconnect === false) {
      return this.fail(new TelemetryClosedError(`telemetry connection lost (${code} ${reason})`, code));
    }
    this.failures++;
    const max = this.config.maxReconnectAttempts ?? 5;
    if (this.failures > max) {
      return this.fail(new TelemetryClosedError(`telemetry: ${max} connection attempts failed (last: ${code} ${reason})`, code));
    }
    const delay = Math.min(10_000, (this.config.reconnectDelayMs ?? 250) * 2 ** (this.failures - 1));
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connect();
    }, delay);
  }

  private fail(error: unknown): void {
    if (!this.readyDone) {
      this.readyDone = true;
      this.rejectReady(error);
    }
    this.finish(error);
  }

  private finish(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.closing = true;
    this.error = error;
    if (!this.readyDone) {
      this.readyDone = true;
      this.rejectReady(error ?? new TelemetryClosedError("telemetry closed before the first hello"));
    }
    for (const waiter of this.waiters.splice(0)) {
      if (waiter.timer !== undefined) clearTimeout(waiter.timer);
      if (error !== undefined) waiter.reject(error);
      else waiter.resolve(undefined);
    }
  }
}

function toIso(value: string | Date): string {
  return typeof value === "string" ? value : value.toISOString();
}
