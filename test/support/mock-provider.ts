/**
 * A local HTTP server that speaks the Anthropic Messages, OpenAI Chat Completions and OpenAI
 * Responses wire formats (streaming SSE and plain JSON), so tests drive the real SDK clients.
 * Replies are scripted in order, or decided per request by a responder when requests
 * arrive concurrently; faults (error statuses, cut streams, malformed chunks, hangs)
 * exercise the retry paths. An image the real API would refuse gets its 400 (mock-images.ts).
 * Each request records when it arrived and when its answer ended, and the mock can say how
 * many were in flight at once (`maxInFlight`), so tests prove concurrency by structure, never
 * by elapsed time.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { imageError } from './mock-images.js';
import { type RecordedRequest, type Reply, type Responder, resolveReply } from './mock-reply.js';
import { responsesBody, responsesErrorEvent, responsesStream, responsesTurnError } from './mock-responses-wire.js';
import { thinkingTurnError } from './mock-thinking.js';
import {
  anthropicBody,
  anthropicStream,
  errorBody,
  openaiBody,
  openaiStream,
  turnOrderError,
  type WireFormat,
} from './mock-wire.js';

export type { MockToolCall, MockUsage, RawBlock, WireFormat } from './mock-wire.js';
export { estimateTokens, type Fault, type RecordedRequest, type Reply, type Responder } from './mock-reply.js';

export interface MockProvider {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** Base URL for the Anthropic SDK (the SDK appends /v1/messages). */
  readonly anthropicBaseURL: string;
  /** Base URL for the OpenAI SDK (the SDK appends /chat/completions). */
  readonly openaiBaseURL: string;
  /** Every request received, in arrival order; the same array across `reset()`. */
  readonly requests: RecordedRequest[];
  /** Appends replies, consumed one per request in order. */
  script(...replies: Reply[]): void;
  /** Sets the fallback used when the script is empty; `undefined` removes it. */
  respond(responder: Responder | undefined): void;
  /** Wait before the first byte of every response. */
  setLatency(ms: number): void;
  /** Scripted replies not consumed yet. */
  pending(): number;
  /** Requests (matching `filter`, if given) whose response has not ended yet. */
  inFlight(filter?: (request: RecordedRequest) => boolean): number;
  /** The most requests (matching `filter`, if given) that were in flight at the same time since the last reset. */
  maxInFlight(filter?: (request: RecordedRequest) => boolean): number;
  /** Keep-alive pings written so far (fault `pings`), across every request. */
  pingsSent(): number;
  /** Forgets script, responder, recorded requests (and their in-flight log), pings and latency. */
  reset(): void;
  close(): Promise<void>;
}

/** The timers the mock waits with (latency, delays); a FakeClock in tests of those waits. */
export interface MockTimers {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

export interface MockProviderOptions {
  latencyMs?: number;
  timers?: MockTimers;
  /**
   * Refuse, as the strictest provider does, a request whose turns are out of order (roles not
   * alternating, a call without its result or a result without its call; `turnOrderError` in
   * mock-wire.ts), or, on Anthropic with thinking enabled, a tool-use turn that did not begin with
   * thinking (mock-thinking.ts): HTTP 400 with the provider's invalid_request_error body, and no scripted
   * reply used. The request is still recorded. On unless `false`: every test's requests must be
   * ones the strictest provider takes.
   */
  strictTurns?: boolean;
}

const realTimers: MockTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

const routes: Record<string, WireFormat> = {
  '/v1/messages': 'anthropic',
  '/v1/chat/completions': 'openai',
  '/v1/responses': 'responses',
};

function wait(ms: number, signal: AbortSignal, timers: MockTimers): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = timers.setTimeout(done, ms);
    function done(): void {
      timers.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Resolves when the signal aborts (the client went away or the server shut down). */
function untilGone(signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) =>
    signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}

function writeChunk(res: http.ServerResponse, chunk: string): Promise<void> {
  return new Promise((resolve) => res.write(chunk, () => resolve()));
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts the mock on 127.0.0.1 with a random port. */
export async function startMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  let responder: Responder | undefined;
  let latencyMs = options.latencyMs ?? 0;
  const timers = options.timers ?? realTimers;
  let serial = 0;
  // Arrivals (+1) and ends (-1) in the order they happened, for inFlight/maxInFlight.
  const log: { request: RecordedRequest; delta: 1 | -1 }[] = [];

  function countInFlight(filter: ((request: RecordedRequest) => boolean) | undefined, peak: boolean): number {
    let now = 0;
    let max = 0;
    for (const entry of log) {
      if (filter && !filter(entry.request)) continue;
      now += entry.delta;
      max = Math.max(max, now);
    }
    return peak ? max : now;
  }
  let pings = 0;
  // Each open request's own controller, aborted when the server shuts down (a set, not a
  // listener per request on one shared signal: 32 sub-agents' requests at once are expected).
  const open = new Set<AbortController>();

  async function pickReply(request: RecordedRequest): Promise<Reply> {
    const scripted = queue.shift();
    if (scripted) return scripted;
    if (responder) {
      try {
        return await responder(request);
      } catch (error) {
        const message = `mock provider: responder threw: ${error instanceof Error ? error.message : String(error)}`;
        return { fault: { kind: 'status', status: 500, message } };
      }
    }
    const message = `mock provider: no scripted reply for ${request.format} request #${requests.length}`;
    return { fault: { kind: 'status', status: 500, message } };
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const format = routes[path];
    const raw = await readBody(req);
    if (!format || req.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `mock provider: no route ${req.method} ${path}` } }));
      return;
    }
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const request: RecordedRequest = { format, path, headers: req.headers, body, raw, receivedAt: Date.now() };
    requests.push(request);
    log.push({ request, delta: 1 });
    const number = ++serial;

    // Aborted when the client goes away or the server shuts down, so waits end early.
    const gone = new AbortController();
    res.on('close', () => {
      request.answeredAt = Date.now();
      // A request from before a reset() is no longer in the log.
      if (log.some((entry) => entry.request === request)) log.push({ request, delta: -1 });
      gone.abort();
    });
    open.add(gone);
    try {
      const strict = options.strictTurns ?? true;
      const refused = !strict
        ? undefined
        : format === 'responses'
          ? responsesTurnError(body)
          : (turnOrderError(format, body) ?? (format === 'anthropic' ? thinkingTurnError(body) : undefined));
      // Images are checked whatever `strictTurns` says: the real APIs always refuse a bad one (mock-images.ts).
      const refusal = imageError(format, body) ?? refused;
      const reply: Reply =
        refusal === undefined
          ? await pickReply(request)
          : { fault: { kind: 'status', status: 400, type: 'invalid_request_error', message: refusal } };
      await wait(latencyMs + (reply.delayMs ?? 0), gone.signal, timers);
      if (gone.signal.aborted) return;
      await send(res, request, reply, number, gone.signal);
    } finally {
      open.delete(gone);
    }
  }

  async function send(
    res: http.ServerResponse,
    request: RecordedRequest,
    reply: Reply,
    number: number,
    gone: AbortSignal,
  ): Promise<void> {
    const fault = reply.fault;
    if (fault?.kind === 'hang') {
      await untilGone(gone);
      return;
    }
    if (fault?.kind === 'reset') {
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === 'status') {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
      Object.assign(headers, fault.headers);
      res.writeHead(fault.status, headers);
      res.end(JSON.stringify(errorBody(request.format, fault.status, fault)));
      return;
    }
    const resolved = resolveReply(reply, request, number);
    if (request.body?.stream !== true) {
      if (fault?.kind === 'cut' || fault?.kind === 'truncate' || fault?.kind === 'stall') {
        res.socket?.destroy();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      if (fault?.kind === 'malformed') {
        res.end('{"id": "broken", this is not json');
        return;
      }
      const body = { anthropic: anthropicBody, openai: openaiBody, responses: responsesBody }[request.format](resolved);
      res.end(JSON.stringify(body));
      return;
    }
    const chunks = { anthropic: anthropicStream, openai: openaiStream, responses: responsesStream }[request.format](resolved);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const stopAt =
      fault?.kind === 'cut' || fault?.kind === 'truncate' || fault?.kind === 'stall'
        ? fault.afterChunks
        : fault?.kind === 'malformed' || fault?.kind === 'stream_error' || fault?.kind === 'pings'
          ? (fault.afterChunks ?? 1)
          : chunks.length;
    for (let i = 0; i < Math.min(stopAt, chunks.length); i++) {
      if (i > 0 && reply.chunkDelayMs) await wait(reply.chunkDelayMs, gone, timers);
      if (gone.aborted) return;
      await writeChunk(res, chunks[i]!);
    }
    if (fault?.kind === 'stall') {
      await untilGone(gone);
      return;
    }
    if (fault?.kind === 'cut') {
      // Drop the connection without ending the body. What was written is already flushed
      // (writeChunk waits for it), and TCP delivers it before the close.
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === 'pings') {
      const ping = request.format === 'anthropic' ? 'event: ping\ndata: {"type": "ping"}\n\n' : ': ping\n\n';
      while (!gone.aborted) {
        await writeChunk(res, ping);
        pings++;
        await wait(fault.intervalMs ?? 5, gone, timers);
      }
      return;
    }
    if (fault?.kind === 'malformed') {
      // The Anthropic SDK skips events without a name, so the broken line carries one.
      const prefix = request.format === 'anthropic' ? 'event: content_block_delta\n' : '';
      await writeChunk(res, `${prefix}data: {"type": "content_block_delta", this is not json\n\n`);
    }
    if (fault?.kind === 'stream_error' && request.format === 'responses') {
      await writeChunk(res, responsesErrorEvent(fault.type ?? 'server_error', fault.message ?? 'Overloaded'));
    } else if (fault?.kind === 'stream_error') {
      const type = fault.type ?? (request.format === 'anthropic' ? 'overloaded_error' : 'server_error');
      const body = errorBody(request.format, 500, { type, message: fault.message ?? 'Overloaded' });
      const prefix = request.format === 'anthropic' ? 'event: error\n' : '';
      await writeChunk(res, `${prefix}data: ${JSON.stringify(body)}\n\n`);
    }
    res.end();
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `mock provider crashed: ${String(error)}` } }));
      } else {
        res.destroy();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    requests,
    script: (...replies) => void queue.push(...replies),
    respond: (fn) => void (responder = fn),
    setLatency: (ms) => void (latencyMs = ms),
    pending: () => queue.length,
    inFlight: (filter) => countInFlight(filter, false),
    maxInFlight: (filter) => countInFlight(filter, true),
    pingsSent: () => pings,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      log.length = 0;
      responder = undefined;
      latencyMs = 0;
      pings = 0;
    },
    close: async () => {
      for (const request of open) request.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback URL where nothing listens: connecting to it is refused. */
export async function refusedURL(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
