/**
 * A `fetch` for the SDK clients over node:http and node:https with keep-alive agents, so a
 * model call never loads undici (Node's own fetch: its module, its HTTP parser and its web
 * classes cost a cold run more than everything else on the request path). The SDKs stay in
 * charge of requests, retries and streaming; this only moves bytes. With the SDK modules'
 * `Headers`/`FormData` names pointed at lite-headers.ts (scripts/build.mjs), a headless run
 * loads no undici at all.
 *
 * It keeps what undici's fetch does that the SDKs and outrider's error handling rely on:
 * - a failure before the response rejects with TypeError "fetch failed" whose `cause` is the
 *   socket's error (ECONNREFUSED, ECONNRESET …), and the ports fetch refuses ("bad port");
 * - an abort (the init's signal) rejects with the signal's reason before the headers, and
 *   errors the body with it after; the listener is removed when the body ends;
 * - a connection lost mid-body errors the body with TypeError "terminated" (http-response.ts);
 * - redirects are followed (at most 20): 303, and 301/302 after a POST, turn into a GET
 *   without a body; a redirect to another origin drops the credentials (authorization,
 *   x-api-key, cookies), as fetch drops authorization;
 * - gzip, deflate and br bodies are decoded; idle pooled connections close after 4 s, as
 *   undici's do, so a reused socket is rarely one the server already closed.
 * Header names go out lowercase. Not supported: FormData and Blob-less web bodies other than
 * strings, bytes, URLSearchParams and (async) iterables of bytes.
 */
import type { Agent, ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { type HeadersInit, LiteHeaders } from './lite-headers.js';
import { HttpResponse } from './http-response.js';

// require, not import: on Node 24 the ES module face of node:http lists every export, and
// its lazy WebSocket export loads undici. Loaded on the first request, not at start-up.
const load = createRequire(import.meta.url);
type HttpModule = typeof import('node:http');

/** What fetch is called with; `Request` objects are read for their url only. */
export type FetchInput = string | URL | { url: string };

export interface FetchInit {
  method?: string;
  headers?: HeadersInit | null;
  body?: string | Uint8Array | ArrayBuffer | URLSearchParams | AsyncIterable<Uint8Array> | Iterable<Uint8Array> | null;
  signal?: AbortSignal | null;
  redirect?: 'follow' | 'manual' | 'error';
}

export interface HttpFetchOptions {
  /** How long an unused pooled connection stays open; default 4 s (undici's keep-alive timeout). */
  idleSocketMs?: number;
  /** Redirects followed before giving up; default 20, as fetch. */
  maxRedirects?: number;
}

export interface HttpFetch {
  (input: FetchInput, init?: FetchInit): Promise<HttpResponse>;
  /** Closes every pooled connection. */
  close(): void;
}

/** The ports the Fetch standard refuses ("bad ports"). */
const BAD_PORTS = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113,
  115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556,
  563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667,
  6668, 6669, 6679, 6697, 10080,
]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Dropped when a redirect leads to another origin. */
const CREDENTIALS = ['authorization', 'proxy-authorization', 'x-api-key', 'cookie'];
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

function fetchFailed(cause: unknown): TypeError {
  return new TypeError('fetch failed', { cause });
}

function toURL(input: FetchInput): URL {
  const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  try {
    return new URL(href);
  } catch (error) {
    throw new TypeError(`Invalid URL: ${href}`, { cause: error });
  }
}

/** The request headers as node:http takes them: lowercase names, one string each. */
function headerRecord(init: HeadersInit | null | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  if (!init) return record;
  for (const [name, value] of new LiteHeaders(init)) record[name] = value;
  return record;
}

/** The request in flight, for the abort listener: its pending promise, then its response. */
interface Live {
  request?: ClientRequest;
  response?: IncomingMessage;
  fail?: (reason: unknown) => void;
}

type Body = Buffer | AsyncIterable<Uint8Array> | Iterable<Uint8Array> | undefined;

/** Whether a body can be sent again as it is (after a redirect): bytes, or none. */
function replayable(body: Body): body is Buffer | undefined {
  return body === undefined || Buffer.isBuffer(body);
}

/**
 * Known-length bodies as bytes with their content-length, iterables as they are. A string (the
 * request body: the whole history, on every model call) is encoded here, once: written as a
 * string, node:http would join it to the header text and have the socket encode it into a
 * buffer sized for the worst case, three bytes a character, besides the pass that measures
 * its length (about 40 % more CPU for the write, 100 requests of 135 KB on average). It is
 * encoded with a TextEncoder, in one pass: Buffer.from measures the string first (150 KB of
 * JSON: 55 µs against 93 µs on Node 20, 60 against 74 on Node 24).
 */
function encodeBody(body: FetchInit['body'], headers: Record<string, string>, encoder: TextEncoder): Body {
  if (body === undefined || body === null) return undefined;
  let bytes: Buffer;
  if (typeof body === 'string') {
    const encoded = encoder.encode(body);
    bytes = Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
    headers['content-type'] ??= 'text/plain;charset=UTF-8';
  } else if (body instanceof URLSearchParams) {
    bytes = Buffer.from(body.toString(), 'utf8');
    headers['content-type'] ??= 'application/x-www-form-urlencoded;charset=UTF-8';
  } else if (body instanceof ArrayBuffer) {
    bytes = Buffer.from(body);
  } else if (ArrayBuffer.isView(body)) {
    bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  } else if (typeof body === 'object' && (Symbol.asyncIterator in body || Symbol.iterator in body)) {
    delete headers['content-length'];
    return body;
  } else {
    throw new TypeError(`http-fetch: unsupported request body (${Object.prototype.toString.call(body)})`);
  }
  headers['content-length'] = String(bytes.length);
  return bytes;
}

/** Keep-alive agents whose idle sockets close after `idleMs` and whose busy sockets never time out. */
function idleClosingAgent(module: HttpModule, idleMs: number): Agent {
  class IdleClosingAgent extends module.Agent {
    override keepSocketAlive(socket: import('node:net').Socket): boolean {
      const keep = (super.keepSocketAlive as (s: import('node:net').Socket) => boolean)(socket);
      // The server's own Keep-Alive hint, when shorter, was applied by the base class.
      if (keep && !(socket.timeout && socket.timeout < idleMs)) socket.setTimeout(idleMs);
      return keep;
    }
    override reuseSocket(socket: import('node:net').Socket, request: ClientRequest): void {
      socket.setTimeout(0);
      super.reuseSocket(socket, request);
    }
  }
  return new IdleClosingAgent({ keepAlive: true });
}

/** Decodes a compressed body the way fetch does; the headers stay as the server sent them. */
function decoded(res: IncomingMessage): Readable {
  const encoding = res.headers['content-encoding']?.trim().toLowerCase();
  if (encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'deflate' && encoding !== 'br') return res;
  const zlib = load('node:zlib') as typeof import('node:zlib');
  const decoder =
    encoding === 'br'
      ? zlib.createBrotliDecompress()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  res.on('error', (error) => decoder.destroy(error));
  decoder.on('close', () => res.destroy());
  return res.pipe(decoder);
}

export function createHttpFetch(options: HttpFetchOptions = {}): HttpFetch {
  const idleMs = options.idleSocketMs ?? 4_000;
  const maxRedirects = options.maxRedirects ?? 20;
  const agents = new Map<string, { module: HttpModule; agent: Agent }>();
  const encoder = new TextEncoder();

  function transport(protocol: string): { module: HttpModule; agent: Agent } {
    let entry = agents.get(protocol);
    if (!entry) {
      const module = load(protocol === 'https:' ? 'node:https' : 'node:http') as HttpModule;
      entry = { module, agent: idleClosingAgent(module, idleMs) };
      agents.set(protocol, entry);
    }
    return entry;
  }

  /** One request and its response head; the caller owns the response from then on. */
  function exchange(url: URL, method: string, headers: OutgoingHttpHeaders, body: Body, live: Live): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const { module, agent } = transport(url.protocol);
      let request: ClientRequest;
      try {
        request = module.request(url, { method, headers, agent });
      } catch (error) {
        // An invalid header name or value, for one.
        reject(fetchFailed(error));
        return;
      }
      live.request = request;
      live.response = undefined;
      live.fail = reject;
      request.on('error', (error) => {
        if (live.response) return; // the response's body reports it
        reject(fetchFailed(error));
      });
      request.on('response', (res) => {
        live.response = res;
        live.fail = undefined;
        resolve(res);
      });
      if (replayable(body)) {
        request.end(body);
        return;
      }
      void (async () => {
        try {
          for await (const chunk of body as AsyncIterable<Uint8Array>) {
            if (!request.write(chunk)) await new Promise((drained) => request.once('drain', drained));
          }
          request.end();
        } catch (error) {
          request.destroy(error as Error);
        }
      })();
    });
  }

  async function httpFetch(input: FetchInput, init: FetchInit = {}): Promise<HttpResponse> {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) throw signal.reason;
    let url = toURL(input);
    let method = (init.method ?? 'GET').toUpperCase();
    const headers = headerRecord(init.headers);
    let body = encodeBody(init.body, headers, encoder);
    const redirectMode = init.redirect ?? 'follow';

    const live: Live = {};
    // Before the response head: the pending promise rejects with the reason. After: the
    // response is destroyed with it, so whoever reads the body gets it (http-response.ts).
    const onAbort = () => {
      const reason: unknown = signal!.reason;
      const error = reason instanceof Error ? reason : new Error('aborted', { cause: reason });
      live.fail?.(reason);
      if (live.response) live.response.destroy(error);
      else live.request?.destroy(error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    let released = false;
    const finished = () => {
      if (released) return;
      released = true;
      signal?.removeEventListener('abort', onAbort);
    };

    try {
      for (let redirects = 0; ; redirects += 1) {
        if (signal?.aborted) throw signal.reason;
        if (url.protocol !== 'http:' && url.protocol !== 'https:') {
          throw fetchFailed(new Error(`unsupported protocol ${url.protocol} (http-fetch speaks http and https)`));
        }
        const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
        if (BAD_PORTS.has(port)) throw fetchFailed(new Error('bad port'));

        const res = await exchange(url, method, headers, body, live);
        const location = res.headers.location;
        if (redirectMode !== 'manual' && REDIRECTS.has(res.statusCode ?? 0) && location !== undefined) {
          res.resume();
          if (redirectMode === 'error') throw fetchFailed(new Error('unexpected redirect'));
          if (redirects >= maxRedirects) throw fetchFailed(new Error('redirect count exceeded'));
          const next = new URL(location, url);
          const status = res.statusCode!;
          if (
            (status === 303 && method !== 'GET' && method !== 'HEAD') ||
            ((status === 301 || status === 302) && method === 'POST')
          ) {
            method = 'GET';
            body = undefined;
            for (const name of BODY_HEADERS) delete headers[name];
          } else if (!replayable(body)) {
            throw fetchFailed(new Error('cannot follow a redirect with a streamed request body'));
          }
          if (next.origin !== url.origin) for (const name of CREDENTIALS) delete headers[name];
          url = next;
          continue;
        }
        return new HttpResponse(res, {
          url: url.href,
          redirected: redirects > 0,
          method,
          signal,
          source: decoded(res),
          finished,
        });
      }
    } catch (error) {
      finished();
      throw error;
    }
  }

  return Object.assign(httpFetch, {
    close: () => {
      for (const { agent } of agents.values()) agent.destroy();
      agents.clear();
    },
  });
}
