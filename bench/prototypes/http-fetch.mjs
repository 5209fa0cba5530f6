// A prototype, measured by `npm run bench -- --only prototypes`, not used by outrider: a
// `fetch` for the SDKs over node:http with a keep-alive agent, so that a run never loads
// undici (Node's own fetch and its parser). The SDKs also touch the `Headers` and `FormData`
// globals on every request (building headers, `body instanceof FormData`), and either one
// loads undici, so this preload replaces them as well: a small Map-backed Headers, and a
// FormData class that nothing is an instance of. Preloaded with `node --import`, it replaces
// the globals before the bundle loads; the patch that lands would give `fetch` to the SDK
// clients instead and rewrite the SDK modules' two global names at build time.
import { createRequire } from 'node:module';

// require, not import: on Node 24 the ES module face of node:http lists every export, and its
// lazy WebSocket export loads undici.
const require = createRequire(import.meta.url);
const http = require('node:http');
const https = require('node:https');

class LiteHeaders {
  #map = new Map();
  constructor(init) {
    if (!init) return;
    const entries = init instanceof LiteHeaders || Array.isArray(init) ? init : Object.entries(init);
    for (const [name, value] of entries) this.append(name, value);
  }
  append(name, value) {
    const key = String(name).toLowerCase();
    const prev = this.#map.get(key);
    this.#map.set(key, prev === undefined ? String(value) : `${prev}, ${value}`);
  }
  set(name, value) {
    this.#map.set(String(name).toLowerCase(), String(value));
  }
  get(name) {
    return this.#map.get(String(name).toLowerCase()) ?? null;
  }
  has(name) {
    return this.#map.has(String(name).toLowerCase());
  }
  delete(name) {
    this.#map.delete(String(name).toLowerCase());
  }
  forEach(fn, self) {
    for (const [k, v] of this.#map) fn.call(self, v, k, this);
  }
  keys() {
    return this.#map.keys();
  }
  values() {
    return this.#map.values();
  }
  entries() {
    return this.#map.entries();
  }
  [Symbol.iterator]() {
    return this.#map.entries();
  }
}

class NoFormData {}

const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

function liteFetch(input, init = {}) {
  const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
  const transport = url.protocol === 'https:' ? https : http;
  const headers = {};
  new LiteHeaders(init.headers).forEach((value, name) => (headers[name] = value));
  const body = init.body == null ? undefined : typeof init.body === 'string' ? Buffer.from(init.body) : init.body;
  if (body && headers['content-length'] === undefined && Buffer.isBuffer(body)) headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const request = transport.request(
      url,
      { method: init.method ?? 'GET', headers, agent: agents[url.protocol], signal: init.signal },
      (res) => {
        const responseHeaders = new LiteHeaders();
        for (const [name, value] of Object.entries(res.headers))
          responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        const read = async () => {
          const parts = [];
          for await (const part of res) parts.push(part);
          return Buffer.concat(parts).toString('utf8');
        };
        resolve({
          ok: res.statusCode >= 200 && res.statusCode < 300,
          status: res.statusCode,
          statusText: res.statusMessage,
          url: url.href,
          headers: responseHeaders,
          // An async iterable of Uint8Array chunks: what the SDKs' SSE readers take.
          body: res,
          text: read,
          json: async () => JSON.parse(await read()),
          clone() {
            throw new Error('http-fetch prototype: clone() is not supported');
          },
        });
      },
    );
    request.on('error', reject);
    if (body) request.end(body);
    else request.end();
  });
}

// Plain assignment: Object.defineProperty over Node 24's lazy globals runs their loader (undici).
globalThis.fetch = liteFetch;
globalThis.Headers = LiteHeaders;
globalThis.FormData = NoFormData;

if (process.env.BENCH_HTTP_FETCH_CHECK) {
  process.on('exit', () => {
    if (process.moduleLoadList.some((m) => m.includes('undici')))
      process.stderr.write(
        `http-fetch prototype: undici was loaded after all (${process.moduleLoadList.filter((m) => m.includes('undici')).join(', ')})\n`,
      );
  });
}
