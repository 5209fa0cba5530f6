import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicBackend } from '../../../src/core/providers/anthropic.js';
import { createProvider } from '../../../src/core/providers/create.js';
import { createHttpFetch } from '../../../src/core/providers/http-fetch.js';
import { openaiBackend } from '../../../src/core/providers/openai.js';
import type { ProviderName, StreamEvent } from '../../../src/core/providers/types.js';
import { barrier } from '../../support/barrier.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { abortOnlySleep, collect, request } from '../../support/stream-helpers.js';
import { until } from '../../support/until.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

function baseURL(name: ProviderName): string {
  return name === 'anthropic' ? mock.anthropicBaseURL : mock.openaiBaseURL;
}

describe('preload', () => {
  it.each([
    ['anthropic', anthropicBackend],
    ['openai', openaiBackend],
  ] as const)('%s: loads the SDK and makes its client without a request; the first call then uses it', async (name, backend) => {
    const made = backend({ apiKey: 'test-key-0000', baseURL: baseURL(name), sdkTimeoutMs: 90_000, fetch: createHttpFetch() });
    expect(made.errorClasses()).toBeUndefined();
    made.preload();
    await until(() => made.errorClasses() !== undefined, { what: 'the SDK to load' });
    expect(mock.requests).toHaveLength(0);
    mock.script({ text: 'Hi.' });
    const { end, error } = await collect(
      made.stream(request(), new AbortController().signal, { responded: () => {}, content: () => {} }),
    );
    expect(error).toBeUndefined();
    expect(end?.message.content).toEqual([{ type: 'text', text: 'Hi.' }]);
    expect(mock.requests).toHaveLength(1);
  });

  it('a session-style provider with no key still says so on the first call', async () => {
    const stream = createProvider({
      provider: 'anthropic',
      apiKey: '',
      baseURL: mock.anthropicBaseURL,
      preload: true,
      maxRetries: 0,
    });
    const { error } = await collect(stream(request(), new AbortController().signal));
    expect(String(error)).toMatch(/ANTHROPIC_API_KEY/);
    expect(mock.requests).toHaveLength(0);
  });
});

describe('createProvider loads no SDK up front', () => {
  it('reaches both SDKs only through dynamic import()', async () => {
    const root = path.resolve(import.meta.dirname, '../../..');
    // Split as the real build is: a module behind import() is a chunk of its own.
    const result = await build({
      absWorkingDir: root,
      entryPoints: ['src/core/providers/create.ts'],
      bundle: true,
      splitting: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      packages: 'external',
      outdir: 'out',
      logLevel: 'silent',
    });
    const outputs = result.metafile.outputs;
    const entry = Object.keys(outputs).find((file) => outputs[file]!.entryPoint === 'src/core/providers/create.ts')!;
    // What loads with create.ts: its own output and every chunk it imports statically.
    const eager = new Set<string>();
    const visit = (file: string): void => {
      if (eager.has(file)) return;
      eager.add(file);
      for (const i of outputs[file]!.imports) if (i.kind === 'import-statement' && outputs[i.path]) visit(i.path);
    };
    visit(entry);
    const isSdk = (p: string) => /^(openai|@anthropic-ai\/sdk)(\/|$)/.test(p);
    const eagerSdk = [...eager].flatMap((file) =>
      outputs[file]!.imports.filter((i) => isSdk(i.path) && i.kind !== 'dynamic-import'),
    );
    expect(eagerSdk).toEqual([]);
    // Both SDKs are in the bundle all the same, behind an import().
    const sdkPaths = Object.values(outputs).flatMap((output) => output.imports.filter((i) => isSdk(i.path)).map((i) => i.path));
    expect(sdkPaths.some((p) => p.startsWith('@anthropic-ai/sdk'))).toBe(true);
    expect(sdkPaths.some((p) => p.startsWith('openai'))).toBe(true);
  });
});

describe.each(['anthropic', 'openai'] as const)('%s abort', (name) => {
  it('an already-aborted signal sends nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const stream = createProvider({ provider: name, apiKey: 'sk-abort-test-0001', baseURL: baseURL(name) });
    const result = await collect(stream(request(), controller.signal));
    expect((result.error as Error).name).toBe('AbortError');
    expect(mock.requests).toHaveLength(0);
  });

  it('ends while waiting for a server that hangs, without retrying', async () => {
    // The server never answers: only the abort can end this call.
    mock.script({ fault: { kind: 'hang' } }, { text: 'must not be requested' });
    const controller = new AbortController();
    const stream = createProvider({ provider: name, apiKey: 'sk-abort-test-0001', baseURL: baseURL(name) });
    const pending = collect(stream(request(), controller.signal));
    // Abort once the server holds the request, so the client is really waiting on it.
    await until(() => mock.requests.length === 1, { what: 'the request to reach the mock' });
    controller.abort();
    const result = await pending;

    expect((result.error as Error).name).toBe('AbortError');
    expect(result.retries).toEqual([]);
    expect(mock.requests).toHaveLength(1);
    expect(mock.pending()).toBe(1);
    // The abort reached the wire: the client closed the request.
    await until(() => mock.inFlight() === 0, { what: 'the aborted request to be closed', observe: () => mock.inFlight() });
  });

  it('ends mid-stream, without retrying', async () => {
    // A few events, then the server sends nothing more: only the abort can end this call.
    mock.script({ text: 'word '.repeat(120), fault: { kind: 'stall', afterChunks: 4 } }, { text: 'must not be requested' });
    const controller = new AbortController();
    const stream = createProvider({ provider: name, apiKey: 'sk-abort-test-0001', baseURL: baseURL(name) });
    const events: StreamEvent[] = [];
    let error: unknown;
    try {
      for await (const event of stream(request(), controller.signal)) {
        events.push(event);
        if (event.type === 'text_delta') controller.abort();
      }
    } catch (e) {
      error = e;
    }

    expect((error as Error).name).toBe('AbortError');
    expect(events.some((e) => e.type === 'text_delta')).toBe(true);
    expect(events.some((e) => e.type === 'retry' || e.type === 'message_end')).toBe(false);
    expect(mock.requests).toHaveLength(1);
    await until(() => mock.inFlight() === 0, { what: 'the aborted stream to be closed', observe: () => mock.inFlight() });
  });

  it('ends during a retry backoff', async () => {
    mock.script({ fault: { kind: 'status', status: 500 } }, { text: 'must not be requested' });
    const controller = new AbortController();
    // A backoff only an abort can end (the real sleep's abort is tested in retry.test.ts).
    const backoff = abortOnlySleep();
    const stream = createProvider({
      provider: name,
      apiKey: 'sk-abort-test-0001',
      baseURL: baseURL(name),
      sleep: backoff.sleep,
      retryBaseDelayMs: 10_000,
      random: () => 1,
    });
    const pending = collect(stream(request(), controller.signal));
    expect(await backoff.entered).toBe(10_000);
    controller.abort();
    const result = await pending;
    expect(result.retries).toEqual([
      { type: 'retry', attempt: 1, maxRetries: 4, delayMs: 10_000, reason: 'server error (500): Internal server error' },
    ]);
    expect((result.error as Error).name).toBe('AbortError');
    expect(mock.requests).toHaveLength(1);
  });
});

describe('one provider, many calls', () => {
  it('serves concurrent calls on the same StreamFn independently', async () => {
    // Nobody is answered until all four calls are in flight.
    const gate = barrier(4, { what: 'calls' });
    mock.respond(async (req) => {
      await gate.arrive();
      const last = req.body.messages.at(-1);
      const text = typeof last.content === 'string' ? last.content : last.content[0].text;
      return { text: `echo: ${text}` };
    });
    const stream = createProvider({ provider: 'openai', apiKey: 'sk-concurrent-0001', baseURL: mock.openaiBaseURL });
    const prompts = ['alpha', 'beta', 'gamma', 'delta'];
    const results = await Promise.all(
      prompts.map((p) =>
        collect(
          stream(request({ messages: [{ role: 'user', content: [{ type: 'text', text: p }] }] }), new AbortController().signal),
        ),
      ),
    );
    gate.assertOpened();
    expect(mock.maxInFlight()).toBe(4);
    expect(results.map((r) => r.end?.message.content)).toEqual(prompts.map((p) => [{ type: 'text', text: `echo: ${p}` }]));
  });
});
