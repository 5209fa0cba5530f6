import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/core/providers/create.js';
import type { ProviderName, StreamEvent } from '../../../src/core/providers/types.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { collect, request } from '../../support/stream-helpers.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

function baseURL(name: ProviderName): string {
  return name === 'anthropic' ? mock.anthropicBaseURL : mock.openaiBaseURL;
}

describe('createProvider loads no SDK up front', () => {
  it('reaches both SDKs only through dynamic import()', async () => {
    const root = path.resolve(import.meta.dirname, '../../..');
    const result = await build({
      absWorkingDir: root,
      entryPoints: ['src/core/providers/create.ts'],
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      packages: 'external',
      outfile: 'out.js',
      logLevel: 'silent',
    });
    const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports);
    const sdkImports = imports.filter((i) => i.path === '@anthropic-ai/sdk' || i.path === 'openai');
    expect(sdkImports.map((i) => i.path).sort()).toEqual(['@anthropic-ai/sdk', 'openai']);
    expect(sdkImports.every((i) => i.kind === 'dynamic-import')).toBe(true);
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

  it('ends at once while waiting for a server that hangs, without retrying', async () => {
    mock.script({ fault: { kind: 'hang' } }, { text: 'must not be requested' });
    const controller = new AbortController();
    const stream = createProvider({ provider: name, apiKey: 'sk-abort-test-0001', baseURL: baseURL(name) });
    let abortedAt = 0;
    // Abort once the server holds the request, so the client is really waiting on it.
    const watcher = setInterval(() => {
      if (mock.requests.length > 0 && !controller.signal.aborted) {
        abortedAt = Date.now();
        controller.abort();
      }
    }, 10);
    const result = await collect(stream(request(), controller.signal));
    clearInterval(watcher);

    expect(abortedAt).toBeGreaterThan(0);
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect((result.error as Error).name).toBe('AbortError');
    expect(result.retries).toEqual([]);
    expect(mock.requests).toHaveLength(1);
    expect(mock.pending()).toBe(1);
  });

  it('ends at once mid-stream, without retrying', async () => {
    // 50 chunks, 60 ms apart: three seconds if nobody aborted.
    mock.script({ text: 'word '.repeat(120), chunkDelayMs: 60 }, { text: 'must not be requested' });
    const controller = new AbortController();
    const stream = createProvider({ provider: name, apiKey: 'sk-abort-test-0001', baseURL: baseURL(name) });
    const events: StreamEvent[] = [];
    let error: unknown;
    let abortedAt = 0;
    let timer: NodeJS.Timeout | undefined;
    try {
      for await (const event of stream(request(), controller.signal)) {
        events.push(event);
        timer ??= setTimeout(() => {
          abortedAt = Date.now();
          controller.abort();
        }, 50);
      }
    } catch (e) {
      error = e;
    }

    expect(abortedAt).toBeGreaterThan(0);
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect((error as Error).name).toBe('AbortError');
    expect(events.some((e) => e.type === 'text_delta')).toBe(true);
    expect(events.some((e) => e.type === 'retry' || e.type === 'message_end')).toBe(false);
    expect(mock.requests).toHaveLength(1);
  });

  it('ends at once during a retry backoff', async () => {
    mock.script({ fault: { kind: 'status', status: 500 } }, { text: 'must not be requested' });
    const controller = new AbortController();
    // The real sleep, with a ten-second first delay.
    const stream = createProvider({ provider: name, apiKey: 'sk-abort-test-0001', baseURL: baseURL(name), retryBaseDelayMs: 10_000, random: () => 1 });
    const events: StreamEvent[] = [];
    let error: unknown;
    let abortedAt = 0;
    try {
      for await (const event of stream(request(), controller.signal)) {
        events.push(event);
        if (event.type === 'retry') {
          setTimeout(() => {
            abortedAt = Date.now();
            controller.abort();
          }, 30);
        }
      }
    } catch (e) {
      error = e;
    }
    expect(events.filter((e) => e.type === 'retry')).toEqual([{ type: 'retry', attempt: 1, maxRetries: 4, delayMs: 10_000, reason: 'server error (500): Internal server error' }]);
    expect(abortedAt).toBeGreaterThan(0);
    expect(Date.now() - abortedAt).toBeLessThan(500);
    expect((error as Error).name).toBe('AbortError');
    expect(mock.requests).toHaveLength(1);
  });
});

describe('one provider, many calls', () => {
  it('serves concurrent calls on the same StreamFn independently', async () => {
    mock.respond((req) => {
      const last = req.body.messages.at(-1);
      const text = typeof last.content === 'string' ? last.content : last.content[0].text;
      return { text: `echo: ${text}`, chunkDelayMs: 5 };
    });
    const stream = createProvider({ provider: 'openai', apiKey: 'sk-concurrent-0001', baseURL: mock.openaiBaseURL });
    const prompts = ['alpha', 'beta', 'gamma', 'delta'];
    const results = await Promise.all(
      prompts.map((p) => collect(stream(request({ messages: [{ role: 'user', content: [{ type: 'text', text: p }] }] }), new AbortController().signal))),
    );
    expect(results.map((r) => r.end?.message.content)).toEqual(prompts.map((p) => [{ type: 'text', text: `echo: ${p}` }]));
  });
});
