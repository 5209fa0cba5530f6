/**
 * http-fetch.ts on its own, against local node:http servers: aborts before the head and mid-body
 * (listeners removed), a server that drops the connection, chunked and 1 MB bodies, keep-alive
 * reuse and the idle close, header names, redirects, compressed bodies and the errors the
 * provider's classifier reads ("fetch failed" with its cause, "terminated", "bad port").
 * The SDKs on top of it are tested through createProvider (the other files in this folder).
 */
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpFetch, type HttpFetch } from '../../../src/core/providers/http-fetch.js';
import type { HttpResponse } from '../../../src/core/providers/http-response.js';
import { refusedURL } from '../../support/mock-provider.js';
import { until } from '../../support/until.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;

interface TestServer {
  url: string;
  /** Sets what the server does with the next requests. */
  handle(handler: Handler): void;
  /** Remote ports of the connections that carried each request, in order. */
  ports: number[];
  /** Remote ports of the connections the server saw close. */
  closedPorts: number[];
  close(): Promise<void>;
}

async function startServer(): Promise<TestServer> {
  let handler: Handler = (_req, res) => res.end('ok');
  const ports: number[] = [];
  const closedPorts: number[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      ports.push(req.socket.remotePort!);
      handler(req, res, Buffer.concat(parts));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    const port = socket.remotePort!;
    socket.on('close', () => {
      closedPorts.push(port);
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    handle: (next) => void (handler = next),
    ports,
    closedPorts,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Every chunk of a body, as they came. */
async function chunks(response: HttpResponse): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for await (const chunk of response.body!) out.push(Buffer.from(chunk));
  return out;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

let server: TestServer;
let other: TestServer;
let fetch: HttpFetch;
beforeAll(async () => {
  server = await startServer();
  other = await startServer();
});
afterAll(async () => {
  await server.close();
  await other.close();
});
afterEach(() => {
  fetch?.close();
  server.ports.length = 0;
});

describe('http-fetch', () => {
  it('sends the method, headers and body, and reads status, headers and text', async () => {
    fetch = createHttpFetch();
    let seen: { method?: string; headers?: http.IncomingHttpHeaders; body?: string } = {};
    server.handle((req, res, body) => {
      seen = { method: req.method, headers: req.headers, body: body.toString() };
      res.writeHead(201, 'Made', { 'Content-Type': 'application/json', 'Request-Id': 'req_1' });
      res.end('{"made": true}');
    });
    const response = await fetch(`${server.url}/v1/messages?beta=true`, {
      method: 'post',
      headers: { 'X-Api-Key': 'k', 'Content-Type': 'application/json' },
      body: '{"a":1}',
    });
    expect(seen).toMatchObject({ method: 'POST', body: '{"a":1}' });
    expect(seen.headers).toMatchObject({ 'x-api-key': 'k', 'content-type': 'application/json', 'content-length': '7' });
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${server.url}/v1/messages?beta=true`);
    expect(response.headers.get('request-id')).toBe('req_1');
    expect(response.headers.get('REQUEST-ID')).toBe('req_1');
    expect(await response.json()).toEqual({ made: true });
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(/already been read/);
  });

  it('sends a string body as its UTF-8 bytes, counted in bytes, and again after a 307', async () => {
    fetch = createHttpFetch();
    const text = `{"text":"naïve — 日本語 🙂 ${'x'.repeat(70_000)}"}`;
    const seen: { length?: string; body: Buffer }[] = [];
    server.handle((req, res, body) => {
      seen.push({ length: req.headers['content-length'], body });
      if (req.url === '/first') res.writeHead(307, { Location: '/second' }).end();
      else res.end('ok');
    });
    const response = await fetch(`${server.url}/first`, { method: 'POST', body: text });
    expect(await response.text()).toBe('ok');
    expect(seen).toHaveLength(2);
    for (const { length, body } of seen) {
      expect(length).toBe(String(Buffer.byteLength(text)));
      expect(body.equals(Buffer.from(text, 'utf8'))).toBe(true);
    }
  });

  it('sends header names lowercase, merges names that differ only by case, and joins repeated response headers', async () => {
    fetch = createHttpFetch();
    let raw: string[] = [];
    server.handle((req, res) => {
      raw = req.rawHeaders;
      res.setHeader('X-Many', ['one', 'two']);
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.end();
    });
    const response = await fetch(server.url, {
      headers: [
        ['X-Mixed-Case', 'first'],
        ['x-mixed-case', 'second'],
        ['Accept', '  application/json  '],
      ],
    });
    const names = raw.filter((_, i) => i % 2 === 0);
    expect(names).toContain('x-mixed-case');
    expect(names).not.toContain('X-Mixed-Case');
    expect(raw[raw.indexOf('x-mixed-case') + 1]).toBe('first, second');
    expect(raw[raw.indexOf('accept') + 1]).toBe('application/json');
    expect(response.headers.get('x-many')).toBe('one, two');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect([...response.headers.keys()]).toEqual(expect.arrayContaining(['x-many', 'set-cookie']));
  });

  it('takes a Node Headers object too (what the SDKs pass when they are not bundled)', async () => {
    fetch = createHttpFetch();
    let headers: http.IncomingHttpHeaders = {};
    server.handle((req, res) => {
      headers = req.headers;
      res.end();
    });
    await (await fetch(server.url, { headers: new Headers({ 'Anthropic-Version': '2023-06-01' }) })).text();
    expect(headers['anthropic-version']).toBe('2023-06-01');
  });

  it('streams a chunked body chunk by chunk, without waiting for its end', async () => {
    fetch = createHttpFetch();
    let more: () => void = () => {};
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: 1\n\n');
      more = () => {
        res.write('data: 2\n\n');
        res.end('data: 3\n\n');
      };
    });
    const response = await fetch(server.url);
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const iterator = response.body![Symbol.asyncIterator]();
    // The first event arrives while the server still holds the rest.
    expect(Buffer.from((await iterator.next()).value).toString()).toBe('data: 1\n\n');
    more();
    const rest: string[] = [];
    for (let next = await iterator.next(); !next.done; next = await iterator.next())
      rest.push(Buffer.from(next.value).toString());
    expect(rest.join('')).toBe('data: 2\n\ndata: 3\n\n');
  });

  it('sends and receives a 1 MB body intact', async () => {
    fetch = createHttpFetch();
    const big = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < big.length; i += 1) big[i] = (i * 31 + 7) % 251;
    let received: Buffer = Buffer.alloc(0);
    server.handle((_req, res, body) => {
      received = body;
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      // Written in pieces, as a slow server would.
      for (let i = 0; i < body.length; i += 100_000) res.write(body.subarray(i, i + 100_000));
      res.end();
    });
    const response = await fetch(server.url, { method: 'POST', body: big });
    const parts = await chunks(response);
    expect(received.equals(big)).toBe(true);
    expect(Buffer.concat(parts).equals(big)).toBe(true);
    expect(parts.length).toBeGreaterThan(1);
  });

  it('reuses one kept-alive connection for requests one after another, and closes it once idle', async () => {
    fetch = createHttpFetch({ idleSocketMs: 50 });
    server.handle((_req, res) => res.end('ok'));
    for (let i = 0; i < 5; i += 1) expect(await (await fetch(server.url)).text()).toBe('ok');
    expect(new Set(server.ports).size).toBe(1);
    // Unused for 50 ms, the pooled connection is closed by the client.
    await until(() => server.closedPorts.includes(server.ports[0]!), { what: 'the idle connection to close' });
    expect(await (await fetch(server.url)).text()).toBe('ok');
    expect(new Set(server.ports).size).toBe(2);
  });

  it('an abort before the response head rejects with the reason, closes the connection and removes its listener', async () => {
    fetch = createHttpFetch();
    server.handle(() => {}); // never answers
    const controller = new AbortController();
    const pending = fetch(server.url, { signal: controller.signal });
    await until(() => server.ports.length === 1, { what: 'the request to arrive' });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    const error = (await rejection(pending)) as Error;
    expect(error.name).toBe('AbortError');
    expect(error).toBe(controller.signal.reason);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    await until(() => server.closedPorts.includes(server.ports[0]!), { what: 'the server to see the connection close' });
  });

  it('an aborted signal rejects at once, without a request', async () => {
    fetch = createHttpFetch();
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(fetch(server.url, { signal: controller.signal })).rejects.toThrow('gone');
    expect(server.ports).toEqual([]);
  });

  it('an abort mid-body errors the body with the reason and removes the listener', async () => {
    fetch = createHttpFetch();
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: first\n\n');
    });
    const controller = new AbortController();
    const response = await fetch(server.url, { signal: controller.signal });
    const iterator = response.body![Symbol.asyncIterator]();
    expect(Buffer.from((await iterator.next()).value).toString()).toBe('data: first\n\n');
    const reason = new Error('user pressed Esc');
    reason.name = 'AbortError';
    controller.abort(reason);
    expect(await rejection(iterator.next())).toBe(reason);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('one signal across many requests keeps no listener after each (no MaxListenersExceededWarning)', async () => {
    fetch = createHttpFetch();
    server.handle((_req, res) => res.end('ok'));
    const controller = new AbortController();
    for (let i = 0; i < 15; i += 1) {
      const response = await fetch(server.url, { signal: controller.signal });
      await response.text();
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    }
    // A body read only in part, then dropped through its iterator's return(), lets go too.
    server.handle((_req, res) => res.write('partial'));
    const response = await fetch(server.url, { signal: controller.signal });
    const iterator = response.body![Symbol.asyncIterator]();
    await iterator.next();
    await iterator.return!();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('a server that closes mid-body errors the body with "terminated", the socket error as its cause', async () => {
    fetch = createHttpFetch();
    server.handle((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: partial\n\n', () => res.socket?.destroy());
    });
    const response = await fetch(server.url);
    const error = (await rejection(chunks(response))) as TypeError;
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('terminated');
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('a body the SDK cancels before reading closes its connection', async () => {
    fetch = createHttpFetch();
    server.handle((_req, res) => res.write('never finished'));
    const response = await fetch(server.url);
    // What the SDKs' CancelReadableStream does with an async-iterable body.
    await response.body![Symbol.asyncIterator]().return!();
    await until(() => server.closedPorts.includes(server.ports[0]!), { what: 'the connection to close' });
  });

  it('a reset before any response rejects with "fetch failed" and ECONNRESET as the cause', async () => {
    fetch = createHttpFetch();
    server.handle((req) => req.socket.destroy());
    const error = (await rejection(fetch(server.url))) as TypeError & { cause: NodeJS.ErrnoException };
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('fetch failed');
    expect(error.cause.code).toBe('ECONNRESET');
  });

  it('a refused connection rejects with ECONNREFUSED as the cause', async () => {
    fetch = createHttpFetch();
    const error = (await rejection(fetch(await refusedURL()))) as TypeError & { cause: NodeJS.ErrnoException };
    expect(error.message).toBe('fetch failed');
    expect(error.cause.code).toBe('ECONNREFUSED');
  });

  it('refuses the ports fetch refuses, and protocols other than http and https', async () => {
    fetch = createHttpFetch();
    const badPort = (await rejection(fetch('http://127.0.0.1:6000/v1'))) as TypeError & { cause: Error };
    expect(badPort.cause.message).toBe('bad port');
    const ftp = (await rejection(fetch('ftp://127.0.0.1/x'))) as TypeError & { cause: Error };
    expect(ftp.message).toBe('fetch failed');
    expect(ftp.cause.message).toMatch(/unsupported protocol ftp:/);
    await expect(fetch('not a url')).rejects.toThrow(/Invalid URL/);
  });

  it('follows a 307 with the same method and body, and a 302 after a POST as a GET without one', async () => {
    fetch = createHttpFetch();
    const seen: string[] = [];
    server.handle((req, res, body) => {
      seen.push(`${req.method} ${req.url} ${body.toString()} ${req.headers['content-type'] ?? '-'}`);
      if (req.url === '/a') res.writeHead(307, { location: '/b' }).end();
      else if (req.url === '/b') res.writeHead(302, { location: `${server.url}/c` }).end();
      else res.end('landed');
    });
    const response = await fetch(`${server.url}/a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"x":1}',
    });
    expect(await response.text()).toBe('landed');
    expect(response.redirected).toBe(true);
    expect(response.url).toBe(`${server.url}/c`);
    expect(seen).toEqual(['POST /a {"x":1} application/json', 'POST /b {"x":1} application/json', 'GET /c  -']);
  });

  it('drops credentials on a redirect to another origin, keeps them on the same origin', async () => {
    fetch = createHttpFetch();
    let sameOrigin: http.IncomingHttpHeaders = {};
    let otherOrigin: http.IncomingHttpHeaders = {};
    server.handle((req, res) => {
      if (req.url === '/start') res.writeHead(308, { location: '/again' }).end();
      else {
        sameOrigin = req.headers;
        res.writeHead(308, { location: `${other.url}/there` }).end();
      }
    });
    other.handle((req, res) => {
      otherOrigin = req.headers;
      res.end('there');
    });
    const credentials = { authorization: 'Bearer sk-1', 'x-api-key': 'sk-2', 'x-other': 'kept' };
    expect(await (await fetch(`${server.url}/start`, { headers: credentials })).text()).toBe('there');
    expect(sameOrigin).toMatchObject(credentials);
    expect(otherOrigin['x-other']).toBe('kept');
    expect(otherOrigin.authorization).toBeUndefined();
    expect(otherOrigin['x-api-key']).toBeUndefined();
  });

  it('redirect "manual" hands back the redirect, "error" refuses it, and a loop stops', async () => {
    fetch = createHttpFetch({ maxRedirects: 3 });
    server.handle((_req, res) => res.writeHead(302, { location: '/again' }).end());
    const manual = await fetch(server.url, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe('/again');
    await manual.text();
    const refused = (await rejection(fetch(server.url, { redirect: 'error' }))) as TypeError & { cause: Error };
    expect(refused.cause.message).toBe('unexpected redirect');
    const loop = (await rejection(fetch(server.url))) as TypeError & { cause: Error };
    expect(loop.cause.message).toBe('redirect count exceeded');
    expect(server.ports).toHaveLength(1 + 1 + 4);
  });

  it('decodes a gzip body; a 204 and a HEAD have no body', async () => {
    fetch = createHttpFetch();
    server.handle((req, res) => {
      if (req.url === '/gzip') res.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('squeezed'));
      else if (req.url === '/none') res.writeHead(204).end();
      else res.writeHead(200, { 'content-length': '5' }).end(req.method === 'HEAD' ? undefined : 'hello');
    });
    expect(await (await fetch(`${server.url}/gzip`)).text()).toBe('squeezed');
    const none = await fetch(`${server.url}/none`);
    expect(none.body).toBeNull();
    expect(await none.text()).toBe('');
    const head = await fetch(`${server.url}/head`, { method: 'HEAD' });
    expect(head.body).toBeNull();
    expect(head.headers.get('content-length')).toBe('5');
  });

  it('sends an async iterable body chunked', async () => {
    fetch = createHttpFetch();
    let received = '';
    let encoding: string | undefined;
    server.handle((req, res, body) => {
      received = body.toString();
      encoding = req.headers['transfer-encoding'];
      res.end();
    });
    async function* parts() {
      yield Buffer.from('one ');
      yield Buffer.from('two');
    }
    await (await fetch(server.url, { method: 'POST', body: parts() })).text();
    expect(received).toBe('one two');
    expect(encoding).toBe('chunked');
  });
});
