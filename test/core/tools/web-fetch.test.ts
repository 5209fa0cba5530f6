import http from 'node:http';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { MAX_REDIRECTS, webFetchTool } from '../../../src/core/tools/web-fetch.js';
import { FakeClock, settle } from '../../support/fake-clock.js';
import { until } from '../../support/until.js';
import { run } from './harness.js';

const ARTICLE = `<!doctype html><html><head><title>Parsing config files</title></head><body>
<nav class="menu"><a href="/">Home</a> · <a href="/pricing">Pricing</a> · <a href="/login">Log in</a></nav>
<div class="ad banner" id="sidebar-ad">BUY CHEAP WIDGETS NOW — limited offer, click here</div>
<article>
<h1>Parsing config files</h1>
<p>The loader reads <code>config.json</code> first. ${'It merges the layers in order, later layers winning. '.repeat(6)}</p>
<h2>Installation</h2>
<p>Install the package with npm: ${'the install takes a few seconds on a warm cache. '.repeat(4)}</p>
<pre><code>npm install confparse</code></pre>
<h2>Error handling</h2>
<p>A malformed file stops the start with its line and column. ${'Errors name the file and the key. '.repeat(5)}</p>
<p>See <a href="docs/errors.html">the error reference</a>.</p>
<img src="data:image/png;base64,${'A'.repeat(4000)}" alt="diagram">
</article>
<footer>© 2025 Widgets Inc · Privacy · Terms</footer>
<script>trackEverything()</script>
</body></html>`;

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]);

/** What the server saw: paths requested, and connections the client closed early. */
interface Seen {
  paths: string[];
  arrived: Map<string, () => void>;
  closedEarly: string[];
}

let server: http.Server;
let base: string;
let other: string;
const seen: Seen = { paths: [], arrived: new Map(), closedEarly: [] };
const held: http.ServerResponse[] = [];

function arrival(path: string): Promise<void> {
  return new Promise((resolve) => seen.arrived.set(path, resolve));
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    seen.paths.push(path);
    seen.arrived.get(path)?.();
    const send = (status: number, type: string, body: string | Buffer, headers: http.OutgoingHttpHeaders = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    };
    const hop = path.match(/^\/hop\/(\d+)$/);
    if (hop) {
      const n = Number(hop[1]);
      return n === 0
        ? send(302, 'text/plain', '', { location: '/article' })
        : send(302, 'text/plain', '', { location: `/hop/${n - 1}` });
    }
    switch (path) {
      case '/article':
        return send(200, 'text/html; charset=utf-8', ARTICLE);
      case '/loop':
        return send(301, 'text/plain', '', { location: '/loop' });
      case '/to-file':
        return send(302, 'text/plain', '', { location: 'file:///etc/passwd' });
      case '/to-data':
        return send(307, 'text/plain', '', { location: 'data:text/plain,hello' });
      case '/to-other-host':
        return send(302, 'text/plain', '', { location: `${other}/article` });
      case '/endless': {
        // Never ends on its own: only the client's byte cap stops it.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = 'x'.repeat(16 * 1024) + '\n';
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
        };
        res.on('drain', pump);
        res.on('close', () => {
          if (!res.writableFinished) seen.closedEarly.push(path);
        });
        return pump();
      }
      case '/silent':
        // Headers never come: the time cap or an abort must end the call.
        held.push(res);
        return;
      case '/png':
        return send(200, 'image/png', PNG, { 'content-length': String(PNG.length) });
      case '/octet-binary':
        return send(200, 'application/octet-stream', PNG);
      case '/octet-text':
        return send(200, 'application/octet-stream', 'plain words served as bytes\n');
      case '/shell':
        return send(
          200,
          'text/html',
          '<html><body><nav>Menu Home Blog</nav><form action="/postback"><main><p>Short note.</p></main></form><footer>Footer links</footer></body></html>',
        );
      case '/bomb':
        // 20 MB of text in 20 KB on the wire: the cap counts what is decoded.
        return send(200, 'text/plain', gzipSync(Buffer.alloc(20 * 1024 * 1024, 'a')), { 'content-encoding': 'gzip' });
      case '/json':
        return send(200, 'application/json', '{"name":"confparse","versions":[1,2]}');
      case '/notes.txt':
        return send(200, 'text/plain', 'line one\nline two\n');
      case '/latin1':
        return send(
          200,
          'text/html; charset=iso-8859-1',
          Buffer.from('<html><body><p>Caf\xe9 cr\xe8me</p></body></html>', 'latin1'),
        );
      case '/missing':
        return send(404, 'text/html', '<html><body><h1>Not here</h1><p>No such page.</p></body></html>');
      default:
        return send(500, 'text/plain', 'unexpected path');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  // The same server under another host name: a redirect there leaves the approved host.
  other = `http://localhost:${port}`;
});

afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.paths = [];
  seen.arrived.clear();
  seen.closedEarly = [];
});

const workspace = makeWorkspace(process.cwd());
const fetchWith = (input: unknown, options: Parameters<typeof webFetchTool>[0] = {}, signal?: AbortSignal) =>
  run(webFetchTool(options), input, { workspace, signal });

describe('web_fetch', () => {
  it('returns the article as markdown, without the nav, ads, footer or scripts', async () => {
    const out = await fetchWith({ url: `${base}/article` });
    expect(out.isError).toBeUndefined();
    expect(out.content).toMatch(/^URL: http:\/\/127\.0\.0\.1:\d+\/article\nTitle: Parsing config files\n\n/);
    expect(out.content).toContain('## Installation');
    expect(out.content).toContain('```\nnpm install confparse\n```');
    expect(out.content).toContain('`config.json`');
    // Relative links resolve against the page's URL.
    expect(out.content).toContain(`[the error reference](${base}/docs/errors.html)`);
    for (const chrome of ['Pricing', 'BUY CHEAP', 'Widgets Inc', 'trackEverything', 'base64', 'AAAA']) {
      expect(out.content).not.toContain(chrome);
    }
    expect(out.content).toContain('[image: diagram]');
  });

  it('with a prompt, keeps only the sections containing its words, and says it matched words', async () => {
    const out = await fetchWith({ url: `${base}/article`, prompt: 'how do I install it?' });
    expect(out.content).toContain('Sections containing install: 1 of');
    expect(out.content).toContain('npm install confparse');
    expect(out.content).not.toContain('Error handling');
    const none = await fetchWith({ url: `${base}/article`, prompt: 'kubernetes' });
    expect(none.content).toContain('No section contains kubernetes; the whole page follows.');
    expect(none.content).toContain('Error handling');
  });

  it('follows a chain of same-host redirects, and names where it started', async () => {
    const out = await fetchWith({ url: `${base}/hop/3` });
    expect(out.isError).toBeUndefined();
    expect(out.content).toContain(`URL: ${base}/article\nRedirected from: ${base}/hop/3`);
    expect(seen.paths).toEqual(['/hop/3', '/hop/2', '/hop/1', '/hop/0', '/article']);
  });

  it(`stops after ${MAX_REDIRECTS} redirects`, async () => {
    const out = await fetchWith({ url: `${base}/loop` });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(new RegExp(`stopped after ${MAX_REDIRECTS} redirects`));
    expect(seen.paths).toHaveLength(MAX_REDIRECTS + 1);
  });

  it('refuses a redirect to file: or data:, and never reads it', async () => {
    const toFile = await fetchWith({ url: `${base}/to-file` });
    expect(toFile).toMatchObject({ isError: true });
    expect(toFile.content).toContain('redirected to a file: URL; only http and https redirects are followed');
    expect(toFile.content).not.toContain('root:');
    const toData = await fetchWith({ url: `${base}/to-data` });
    expect(toData.content).toContain('redirected to a data: URL');
    expect(toData.content).not.toContain('hello');
  });

  it('reports a redirect to another host instead of following it', async () => {
    const out = await fetchWith({ url: `${base}/to-other-host` });
    expect(out.isError).toBeUndefined();
    expect(out.content).toBe(
      `${base}/to-other-host redirects (302) to ${other}/article, on another host. To read it, call web_fetch with that URL.`,
    );
    expect(seen.paths).toEqual(['/to-other-host']);
  });

  it.each(['file:///etc/passwd', 'data:text/html,<p>hi</p>', 'ftp://example.com/x', 'javascript:alert(1)'])(
    'refuses %s without any request',
    async (url) => {
      const out = await fetchWith({ url });
      expect(out.isError).toBe(true);
      expect(out.content).toMatch(/only http and https URLs can be fetched, not \w+: URLs/);
      expect(seen.paths).toEqual([]);
    },
  );

  it('refuses what is not a URL, and URLs carrying a password', async () => {
    expect((await fetchWith({ url: 'example.com/page' })).content).toContain('is not an absolute URL');
    expect((await fetchWith({ url: `http://user:secret@127.0.0.1:1/` })).content).toContain('user name or password');
  });

  it('reads no further than the byte cap and closes the download', async () => {
    const out = await fetchWith({ url: `${base}/endless` }, { maxBytes: 64 * 1024 });
    expect(out.isError).toBeUndefined();
    expect(out.content).toContain(
      'Note: the page is larger than 64.0 KB (setting webFetchMaxBytes); only its first 64.0 KB were read.',
    );
    const body = out.content.split('\n\n').slice(1).join('\n\n');
    expect(body.replace(/\n/g, '').length).toBeLessThanOrEqual(64 * 1024);
    // The server sees the connection end: nothing beyond the cap keeps downloading.
    await waitFor(() => seen.closedEarly.includes('/endless'));
  });

  it('counts the cap in decoded bytes: a compressed body cannot slip past it', async () => {
    const out = await fetchWith({ url: `${base}/bomb` }, { maxBytes: 64 * 1024 });
    expect(out.content).toContain('only its first 64.0 KB were read');
    expect(out.content.split('\n\n')[1]).toBe('a'.repeat(64 * 1024));
  });

  it('keeps the text of a page without an article, its chrome dropped', async () => {
    const out = await fetchWith({ url: `${base}/shell` });
    expect(out.content).toContain('Short note.');
    expect(out.content).not.toMatch(/Menu|Footer/);
  });

  it('gives up at the time cap on a server that never answers', async () => {
    const clock = new FakeClock();
    const arrived = arrival('/silent');
    const pending = fetchWith({ url: `${base}/silent` }, { timeoutMs: 5_000, timers: clock });
    await arrived;
    clock.advance(4_999);
    await settle();
    expect(clock.pending()).toBe(1);
    clock.advance(1);
    const out = await pending;
    expect(out.isError).toBe(true);
    expect(out.content).toBe(
      `web_fetch failed: ${base}/silent did not finish within 5s (setting webFetchTimeoutMs); try again later or another page`,
    );
    expect(clock.pending()).toBe(0);
  });

  it('stops when the call is aborted', async () => {
    const controller = new AbortController();
    const arrived = arrival('/silent');
    const pending = fetchWith({ url: `${base}/silent` }, {}, controller.signal);
    await arrived;
    controller.abort();
    expect(await pending).toEqual({ content: 'web_fetch was interrupted', isError: true });
  });

  it('refuses a binary content type before reading it, and sniffs octet-stream', async () => {
    const png = await fetchWith({ url: `${base}/png` });
    expect(png.isError).toBe(true);
    expect(png.content).toContain(`${base}/png is image/png (16 B), not a text page`);
    expect((await fetchWith({ url: `${base}/octet-binary` })).content).toContain('is binary data (application/octet-stream)');
    const text = await fetchWith({ url: `${base}/octet-text` });
    expect(text.isError).toBeUndefined();
    expect(text.content).toContain('plain words served as bytes');
  });

  it('returns plain text as it is and JSON pretty-printed', async () => {
    expect((await fetchWith({ url: `${base}/notes.txt` })).content).toBe(`URL: ${base}/notes.txt\n\nline one\nline two\n`);
    const json = await fetchWith({ url: `${base}/json` });
    expect(json.content).toContain('{\n  "name": "confparse",\n  "versions": [\n    1,\n    2\n  ]\n}');
  });

  it('decodes the charset the server names', async () => {
    expect((await fetchWith({ url: `${base}/latin1` })).content).toContain('Café crème');
  });

  it('flags an error status, with a little of the page', async () => {
    const out = await fetchWith({ url: `${base}/missing` });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/^HTTP 404 Not Found: the server answered with an error page\.\nURL: /);
    expect(out.content).toContain('No such page.');
  });

  it('says plainly when nothing listens, or the port is one fetch refuses', async () => {
    const port = await closedPort();
    const out = await fetchWith({ url: `http://127.0.0.1:${port}/` });
    expect(out.isError).toBe(true);
    expect(out.content).toBe(`web_fetch failed: could not fetch http://127.0.0.1:${port}/: connection refused`);
    const blocked = await fetchWith({ url: 'http://127.0.0.1:1/' });
    expect(blocked.content).toBe(
      'web_fetch failed: could not fetch http://127.0.0.1:1/: port 1 is on the list of ports fetch refuses to use',
    );
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  await until(() => condition() || undefined, { what: 'the server to see the download closed' });
}

/** A port that was just free: nothing listens there. */
async function closedPort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
