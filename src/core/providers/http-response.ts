/**
 * The response http-fetch.ts hands the SDKs: what they read of a fetch `Response` (status,
 * ok, headers, url, text(), json(), and `body` for streaming) over a node:http response.
 *
 * `body` is not a web ReadableStream: both SDKs read a body through its async iterator when
 * it has one (their ReadableStreamToAsyncIterable shim) and cancel it through the iterator's
 * return(), so it is an async iterable of Uint8Array chunks straight off the socket, without
 * the web-streams layer. It also has `getReader()`, `cancel()` and `locked` for other readers.
 *
 * Errors while reading follow undici's fetch: after an abort, the signal's reason; when the
 * connection drops mid-body, a TypeError "terminated" whose cause is the socket's error.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { LiteHeaders } from './lite-headers.js';

/** Statuses whose responses have no body (and HEAD responses). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

export class ResponseBody implements AsyncIterable<Uint8Array> {
  readonly #source: Readable;
  readonly #signal: AbortSignal | undefined;
  readonly #finished: () => void;
  #used = false;

  constructor(source: Readable, signal: AbortSignal | undefined, finished: () => void) {
    this.#source = source;
    this.#signal = signal;
    this.#finished = finished;
  }

  /** True once something started reading (a body can be read once). */
  get locked(): boolean {
    return this.#used;
  }

  #claim(): void {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
  }

  #error(error: unknown): unknown {
    if (this.#signal?.aborted) return this.#signal.reason;
    return new TypeError('terminated', { cause: error });
  }

  /** Stops reading: the connection is closed (not reused) unless the body had ended. */
  #stop(): void {
    this.#source.destroy();
    this.#finished();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Uint8Array> {
    this.#claim();
    const inner = this.#source[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
    const iterator: AsyncIterableIterator<Uint8Array> = {
      next: async () => {
        try {
          const result = await inner.next();
          if (result.done) this.#finished();
          return result;
        } catch (error) {
          this.#finished();
          throw this.#error(error);
        }
      },
      // Also before the first next(): a generator's return() would skip its cleanup then.
      return: async () => {
        this.#stop();
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** A minimal ReadableStreamDefaultReader over the same chunks. */
  getReader(): {
    read(): Promise<IteratorResult<Uint8Array>>;
    cancel(): Promise<void>;
    releaseLock(): void;
  } {
    const iterator = this[Symbol.asyncIterator]();
    return {
      read: () => iterator.next(),
      cancel: async () => void (await iterator.return!()),
      releaseLock: () => {},
    };
  }

  /** Discards the body without reading it. */
  async cancel(): Promise<void> {
    if (this.#used) return;
    this.#used = true;
    this.#stop();
  }

  /** Every chunk, joined. */
  async bytes(): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of this) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    return Buffer.concat(chunks);
  }
}

export class HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly headers: LiteHeaders;
  readonly url: string;
  readonly redirected: boolean;
  readonly type = 'basic';
  /** Null for HEAD and for statuses without a body. */
  readonly body: ResponseBody | null;

  constructor(
    res: IncomingMessage,
    options: { url: string; redirected: boolean; method: string; signal?: AbortSignal; source: Readable; finished: () => void },
  ) {
    this.status = res.statusCode ?? 0;
    this.statusText = res.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status <= 299;
    this.url = options.url;
    this.redirected = options.redirected;
    const headers = new LiteHeaders();
    const raw = res.rawHeaders;
    for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
    this.headers = headers;
    if (options.method === 'HEAD' || NULL_BODY.has(this.status)) {
      // Nothing to read: let the connection go back to the pool.
      res.resume();
      options.finished();
      this.body = null;
    } else {
      this.body = new ResponseBody(options.source, options.signal, options.finished);
    }
  }

  get bodyUsed(): boolean {
    return this.body?.locked ?? false;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.#bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    const bytes = await this.#bytes();
    // UTF-8 decode with the BOM dropped, as fetch's text() does.
    const start = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    return bytes.toString('utf8', start);
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  /** Unsupported: the SDKs clone only inside user middleware, which outrider does not use. */
  clone(): never {
    throw new Error('http-fetch: Response.clone() is not supported (a body is read once, straight off the socket)');
  }

  #bytes(): Promise<Buffer> {
    return this.body ? this.body.bytes() : Promise.resolve(Buffer.alloc(0));
  }
}
