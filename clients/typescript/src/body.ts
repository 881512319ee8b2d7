// Request bodies for uploads: Blobs, bytes, text, web streams, Node streams (any async iterable
// of bytes) and multipart forms built from any of them, streamed without being read into memory.

/** Anything an upload can be made of. Node's `Readable` streams are async iterables of bytes. */
export type UploadSource =
  | Blob
  | ArrayBuffer
  | ArrayBufferView
  | string
  | ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array>
  | FormData
  | URLSearchParams
  | Multipart;

/** A body ready for `fetch`, and whether it can be sent again (retries). */
export interface PreparedBody {
  body: Blob | ReadableStream<Uint8Array> | Uint8Array | string | FormData | URLSearchParams;
  /** Content-Type to send, when the body implies one (a multipart boundary, a typed Blob). */
  contentType: string | undefined;
  /** False for streams: they can be sent once, so such a request is never retried. */
  replayable: boolean;
  /** True when `fetch` must be given `duplex: "half"` (a stream body). */
  stream: boolean;
}

type PartValue = UploadSource | Record<string, unknown> | unknown[] | number | boolean;

interface Part {
  name: string;
  value: Blob | Uint8Array | string | ReadableStream<Uint8Array>;
  filename: string | undefined;
  contentType: string | undefined;
}

const encoder = new TextEncoder();

/**
 * A `multipart/form-data` body whose file parts are streamed. Parts that are strings, bytes or
 * Blobs make a Blob body (with a length, and retried like any other request); a stream part makes
 * the whole body a stream, sent once.
 *
 * ```ts
 * const form = new Multipart()
 *   .append("item", { id: "scene1", datetime: "2017-11-21T06:51:03Z" })   // JSON
 *   .append("B7", await fileBlob("band7.tif"), { filename: "band7.tif", contentType: "image/tiff" });
 * ```
 */
export class Multipart {
  readonly boundary: string;
  private readonly parts: Part[] = [];

  constructor(boundary?: string) {
    this.boundary = boundary ?? `meridian-${randomHex(16)}`;
  }

  get contentType(): string {
    return `multipart/form-data; boundary=${this.boundary}`;
  }

  /**
   * Adds a part. Objects, arrays, numbers and booleans are sent as JSON (`application/json`);
   * strings as they are; Blobs, bytes and streams as files (`filename` defaults to the name, or a
   * File's own name).
   */
  append(name: string, value: PartValue, options: { filename?: string; contentType?: string } = {}): this {
    let partValue: Part["value"];
    let contentType = options.contentType;
    let filename = options.filename;
    if (typeof value === "string") {
      partValue = value;
    } else if (isBlob(value)) {
      partValue = value;
      contentType ??= value.type !== "" ? value.type : "application/octet-stream";
      filename ??= fileNameOf(value) ?? name;
    } else if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
      partValue = toBytes(value);
      contentType ??= "application/octet-stream";
      filename ??= name;
    } else if (isReadableStream(value) || isAsyncIterable(value)) {
      partValue = toReadableStream(value);
      contentType ??= "application/octet-stream";
      filename ??= name;
    } else if (value instanceof Multipart || isFormData(value) || value instanceof URLSearchParams) {
      throw new TypeError(`multipart part ${name}: nested forms are not supported`);
    } else {
      partValue = JSON.stringify(value);
      contentType ??= "application/json";
    }
    if (/[\r\n"]/.test(name) || (filename !== undefined && /[\r\n"]/.test(filename))) {
      throw new TypeError("multipart names and file names may not hold quotes or line breaks");
    }
    this.parts.push({ name, value: partValue, filename, contentType });
    return this;
  }

  /** Whether every part can be read again (no stream part). */
  get replayable(): boolean {
    return this.parts.every((p) => !isReadableStream(p.value));
  }

  /** The encoded body: a Blob when every part is replayable, a stream otherwise. */
  toBody(): Blob | ReadableStream<Uint8Array> {
    const pieces: (Blob | Uint8Array | string | ReadableStream<Uint8Array>)[] = [];
    for (const part of this.parts) {
      let head = `--${this.boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
      if (part.filename !== undefined) head += `; filename="${part.filename}"`;
      head += "\r\n";
      if (part.contentType !== undefined) head += `Content-Type: ${part.contentType}\r\n`;
      head += "\r\n";
      pieces.push(head, part.value, "\r\n");
    }
    pieces.push(`--${this.boundary}--\r\n`);
    if (this.replayable) {
      return new Blob(pieces as (Blob | Uint8Array | string)[] as BlobPart[]);
    }
    return concatStreams(pieces);
  }
}

/** Prepares an upload for `fetch`. */
export function prepareUpload(source: UploadSource): PreparedBody {
  if (source instanceof Multipart) {
    const body = source.toBody();
    const stream = isReadableStream(body);
    return { body, contentType: source.contentType, replayable: !stream, stream };
  }
  if (typeof source === "string") return { body: source, contentType: undefined, replayable: true, stream: false };
  if (isBlob(source)) {
    return { body: source, contentType: source.type !== "" ? source.type : undefined, replayable: true, stream: false };
  }
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) {
    return { body: toBytes(source), contentType: undefined, replayable: true, stream: false };
  }
  if (isFormData(source) || source instanceof URLSearchParams) {
    return { body: source, contentType: undefined, replayable: true, stream: false };
  }
  if (isReadableStream(source) || isAsyncIterable(source)) {
    return { body: toReadableStream(source), contentType: undefined, replayable: false, stream: true };
  }
  throw new TypeError("unsupported upload body");
}

/**
 * A file on disk as a Blob that is read as it is sent, never whole into memory (Node 20+,
 * `fs.openAsBlob`). A Blob body can be retried, unlike a stream.
 */
export async function fileBlob(path: string, options: { type?: string } = {}): Promise<Blob> {
  // Imported by name at run time so that browser bundles never pull Node's fs in.
  const specifier = "node:fs";
  const fs = (await import(/* @vite-ignore */ /* webpackIgnore: true */ specifier)) as {
    openAsBlob?: (path: string, options?: { type?: string }) => Promise<Blob>;
  };
  if (typeof fs.openAsBlob !== "function") throw new Error("fileBlob needs Node 20 or later (fs.openAsBlob)");
  return fs.openAsBlob(path, options.type !== undefined ? { type: options.type } : {});
}

/** Turns any byte stream (web stream, Node stream, async iterable) into a web ReadableStream. */
export function toReadableStream(source: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  if (isReadableStream(source)) return source;
  const iterator = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(typeof value === "string" ? encoder.encode(value) : toBytes(value));
      } catch (err) {
        controller.error(err);
      }
    },
    async cancel(reason) {
      await iterator.return?.(reason);
    },
  });
}

function concatStreams(pieces: (Blob | Uint8Array | string | ReadableStream<Uint8Array>)[]): ReadableStream<Uint8Array> {
  let index = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (reader) {
          const { value, done } = await reader.read();
          if (!done) {
            controller.enqueue(value);
            return;
          }
          reader.releaseLock();
          reader = undefined;
          continue;
        }
        if (index >= pieces.length) {
          controller.close();
          return;
        }
        const piece = pieces[index++]!;
        if (typeof piece === "string") {
          controller.enqueue(encoder.encode(piece));
          return;
        }
        if (piece instanceof Uint8Array) {
          controller.enqueue(piece);
          return;
        }
        reader = (isBlob(piece) ? (piece.stream() as ReadableStream<Uint8Array>) : piece).getReader();
      }
    },
    async cancel(reason) {
      await reader?.cancel(reason);
      for (const piece of pieces.slice(index)) {
        if (isReadableStream(piece)) await piece.cancel(reason);
      }
    },
  });
}

function toBytes(value: ArrayBuffer | ArrayBufferView): Uint8Array {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
}

function isBlob(value: unknown): value is Blob {
  return typeof Blob !== "undefined" && value instanceof Blob;
}

function isFormData(value: unknown): value is FormData {
  return typeof FormData !== "undefined" && value instanceof FormData;
}

function fileNameOf(value: Blob): string | undefined {
  const name = (value as { name?: unknown }).name;
  return typeof name === "string" && name !== "" ? name : undefined;
}

export function isReadableStream(value: unknown): value is ReadableStream<Uint8Array> {
  return typeof ReadableStream !== "undefined" && value instanceof ReadableStream;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array> {
  return value !== null && typeof value === "object" && Symbol.asyncIterator in value;
}

function randomHex(bytes: number): string {
  const buf = new Uint8Array(bytes);
  crypto.getRandomValues(buf);
  return Array.from(buf, (b) => b.toString(16).padStart(2, "0")).join("");
}
