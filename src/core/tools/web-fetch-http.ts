/**
 * The network half of web_fetch: one GET with every bound applied — http(s) only, redirects
 * followed by hand (each hop's scheme and host checked), a byte cap on the decoded body, one
 * deadline for the whole exchange, and the caller's abort signal.
 */
import { type Timers, realTimers } from '../platform/timers.js';
import { formatDuration, formatSize } from '../platform/text.js';

/** The bounds of one fetch. */
export interface FetchLimits {
  /** Bytes of (decoded) body read at most; the rest is not downloaded. */
  maxBytes: number;
  /** The whole exchange, redirects and body included. */
  timeoutMs: number;
  maxRedirects: number;
}

/** What came back, as far as the bounds let it. */
export interface FetchedPage {
  requestedUrl: string;
  /** The URL that answered, after same-host redirects. */
  url: string;
  status: number;
  statusText: string;
  /** The media type, lower case, without parameters ('' when the server sent none). */
  mediaType: string;
  charset?: string;
  body: Uint8Array;
  /** The body went on past `maxBytes`; `body` holds the first `maxBytes`. */
  truncated: boolean;
}

/** How a fetch ended: a page, or a redirect to another host, handed back to the model. */
export type FetchOutcome = { kind: 'page'; page: FetchedPage } | { kind: 'other-host'; from: string; to: string; status: number };

/** A fetch that cannot go on; the message is one line the model can act on. */
export class WebFetchError extends Error {
  override name = 'WebFetchError';
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Media types read as text; the rest is refused before its body is read (except the two we sniff). */
const TEXT_TYPES =
  /^(text\/.+|application\/(json|.+\+json|x-ndjson|xml|.+\+xml|javascript|ecmascript|x-javascript|yaml|x-yaml|toml|x-sh|graphql))$/;
/** Types servers send for anything: the body decides (no NUL byte in its start: text). */
const SNIFFED_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

const ACCEPT = 'text/html, application/xhtml+xml, text/markdown;q=0.9, text/plain;q=0.9, application/json;q=0.9, */*;q=0.1';

/**
 * Parses and checks a URL the model gave: absolute, http or https, no user name or password.
 * Throws WebFetchError with the reason.
 */
export function checkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new WebFetchError(`${JSON.stringify(raw)} is not an absolute URL; give one such as https://example.com/page`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebFetchError(`only http and https URLs can be fetched, not ${url.protocol} URLs`);
  }
  if (url.username || url.password) throw new WebFetchError('URLs with a user name or password in them are not fetched');
  return url;
}

/** Same host, a leading "www." aside (example.com ⇄ www.example.com); the port counts. */
export function sameSite(a: URL, b: URL): boolean {
  const bare = (host: string) => host.replace(/^www\./, '');
  return bare(a.hostname) === bare(b.hostname) && effectivePort(a) === effectivePort(b);
}

function effectivePort(url: URL): string {
  // http→https on the default ports is the same site upgrading itself.
  return url.port === '' || url.port === '80' || url.port === '443' ? '' : url.port;
}

/**
 * Fetches `raw` within `limits`. Redirects on the same site are followed (at most
 * `maxRedirects`, each hop checked again); one to another host is returned, not followed,
 * so the user approves that host too. Throws WebFetchError for a refusal, a time-out or a
 * network failure; rethrows the abort when `signal` ends the call.
 */
export async function fetchPage(
  raw: string,
  limits: FetchLimits,
  options: { signal: AbortSignal; timers?: Timers },
): Promise<FetchOutcome> {
  const first = checkUrl(raw);
  const timers = options.timers ?? realTimers;
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(options.signal.reason);
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });
  const timer = timers.setTimeout(() => {
    timedOut = true;
    controller.abort(new WebFetchError('timed out'));
  }, limits.timeoutMs);

  let current = first;
  try {
    for (let hop = 0; ; hop += 1) {
      const response = await fetch(current, {
        redirect: 'manual',
        signal: controller.signal,
        headers: { accept: ACCEPT, 'user-agent': 'outrider-web-fetch (+https://github.com/outrider)' },
      });
      const location = response.headers.get('location');
      if (REDIRECTS.has(response.status) && location !== null) {
        void response.body?.cancel().catch(() => {});
        const next = redirectTarget(current, location);
        if (!sameSite(first, next)) return { kind: 'other-host', from: current.href, to: next.href, status: response.status };
        if (hop + 1 > limits.maxRedirects) {
          throw new WebFetchError(
            `stopped after ${limits.maxRedirects} redirects (the last to ${next.href}); fetch that URL if you still need it`,
          );
        }
        current = next;
        continue;
      }
      return { kind: 'page', page: await readPage(first, current, response, limits) };
    }
  } catch (error) {
    if (options.signal.aborted) throw error;
    if (timedOut) {
      throw new WebFetchError(
        `${current.href} did not finish within ${formatDuration(limits.timeoutMs)} (setting webFetchTimeoutMs); try again later or another page`,
      );
    }
    if (error instanceof WebFetchError) throw error;
    throw new WebFetchError(`could not fetch ${current.href}: ${networkReason(error, current)}`);
  } finally {
    timers.clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
}

/** The next hop, checked like the first URL (a redirect to file: or data: is refused). */
function redirectTarget(from: URL, location: string): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new WebFetchError(`${from.href} redirected to ${JSON.stringify(location)}, which is not a URL`);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new WebFetchError(`${from.href} redirected to a ${next.protocol} URL; only http and https redirects are followed`);
  }
  if (next.username || next.password)
    throw new WebFetchError(`${from.href} redirected to a URL with a user name or password; not followed`);
  return next;
}

async function readPage(first: URL, url: URL, response: Response, limits: FetchLimits): Promise<FetchedPage> {
  const { mediaType, charset } = parseContentType(response.headers.get('content-type'));
  if (!TEXT_TYPES.test(mediaType) && !SNIFFED_TYPES.has(mediaType)) {
    void response.body?.cancel().catch(() => {});
    throw new WebFetchError(
      `${url.href} is ${describeType(mediaType, response)}, not a text page; web_fetch reads HTML, text and JSON`,
    );
  }
  const { bytes, truncated } = await readBounded(response.body, limits.maxBytes);
  if (SNIFFED_TYPES.has(mediaType) && looksBinary(bytes)) {
    throw new WebFetchError(
      `${url.href} is binary data (${mediaType || 'no content type'}), not a text page; web_fetch reads HTML, text and JSON`,
    );
  }
  return {
    requestedUrl: first.href,
    url: url.href,
    status: response.status,
    statusText: response.statusText,
    mediaType,
    ...(charset ? { charset } : {}),
    body: bytes,
    truncated,
  };
}

/** Reads at most `maxBytes`, then cancels the rest of the download. */
async function readBounded(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      size += room;
      truncated = true;
      void reader.cancel().catch(() => {});
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { bytes, truncated };
}

export function parseContentType(header: string | null): { mediaType: string; charset?: string } {
  if (!header) return { mediaType: '' };
  const [type = '', ...params] = header.split(';');
  const charset = params.map((p) => p.trim().match(/^charset\s*=\s*"?([^";\s]+)"?$/i)?.[1]).find((c) => c !== undefined);
  return { mediaType: type.trim().toLowerCase(), ...(charset ? { charset: charset.toLowerCase() } : {}) };
}

/** A NUL byte in the first 8 KB: what git and grep take for binary. */
function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8192).includes(0);
}

function describeType(mediaType: string, response: Response): string {
  const length = Number(response.headers.get('content-length'));
  return Number.isFinite(length) && length > 0 ? `${mediaType} (${formatSize(length)})` : mediaType;
}

/** undici hides the reason in `cause`: "connection refused", "host not found", a TLS problem. */
function networkReason(error: unknown, url: URL): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was reset';
  }
  const message = typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  if (message === 'bad port') return `port ${url.port} is on the list of ports fetch refuses to use`;
  return code ? `${message} (${code})` : message;
}
