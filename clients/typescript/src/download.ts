// Downloads: whole files or byte ranges, read as a stream or at once.

/** Options of a download. */
export interface DownloadOptions {
  /** A byte range: `{ start, end }` (both inclusive; `end` omitted: to the end) or a raw `Range` value. */
  range?: { start: number; end?: number } | string;
  /** An ETag held already: a `304` then gives `notModified` and no body. */
  ifNoneMatch?: string;
  /**
   * How long to wait for a file the server is still preparing (a `202` with `Retry-After`,
   * e.g. a COPC conversion). Default 10 minutes.
   */
  maxPendingMs?: number;
}

/** A byte range the server answered (`Content-Range: bytes start-end/total`). */
export interface ContentRange {
  start: number;
  end: number;
  /** The whole file's size, when the server said. */
  total: number | undefined;
}

/** An answer to a download, its body not read yet. */
export class Download {
  readonly response: Response;

  constructor(response: Response) {
    this.response = response;
  }

  get status(): number {
    return this.response.status;
  }
  /** True for a `206 Partial Content`. */
  get partial(): boolean {
    return this.response.status === 206;
  }
  /** True for a `304 Not Modified` (the ETag sent in `ifNoneMatch` still holds). */
  get notModified(): boolean {
    return this.response.status === 304;
  }
  get contentType(): string | undefined {
    return this.response.headers.get("content-type") ?? undefined;
  }
  /** Bytes in this answer's body (`Content-Length`), when the server said. */
  get contentLength(): number | undefined {
    const v = this.response.headers.get("content-length");
    return v === null || !/^\d+$/.test(v) ? undefined : Number(v);
  }
  get etag(): string | undefined {
    return this.response.headers.get("etag") ?? undefined;
  }
  /** The range of a `206` answer. */
  get contentRange(): ContentRange | undefined {
    const m = /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(this.response.headers.get("content-range")?.trim() ?? "");
    if (!m) return undefined;
    return { start: Number(m[1]), end: Number(m[2]), total: m[3] === "*" ? undefined : Number(m[3]) };
  }
  /** The file name of `Content-Disposition`, when there is one. */
  get filename(): string | undefined {
    const cd = this.response.headers.get("content-disposition") ?? "";
    const star = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(cd);
    if (star) {
      try {
        return decodeURIComponent(star[1]!.trim());
      } catch {
        // fall back to the plain form
      }
    }
    const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(cd);
    return plain ? (plain[1] ?? plain[2] ?? "").trim() : undefined;
  }

  /** The body as a stream (read it once). */
  get body(): ReadableStream<Uint8Array> | null {
    return this.response.body;
  }
  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.response.arrayBuffer());
  }
  arrayBuffer(): Promise<ArrayBuffer> {
    return this.response.arrayBuffer();
  }
  blob(): Promise<Blob> {
    return this.response.blob();
  }
  text(): Promise<string> {
    return this.response.text();
  }
  /** Drops the body unread. */
  async cancel(): Promise<void> {
    await this.response.body?.cancel();
  }
}
