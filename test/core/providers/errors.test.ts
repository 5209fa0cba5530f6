import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/core/providers/create.js';
import {
  classifyError,
  isLoopback,
  parseRetryAfter,
  scrubSecret,
  StreamCutError,
  type ErrorContext,
} from '../../../src/core/providers/errors.js';
import { ProviderError, type ProviderName } from '../../../src/core/providers/types.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { collect, recordingSleep, request } from '../../support/stream-helpers.js';

const KEY = 'sk-secret-key-DO-NOT-LEAK-42';

describe('parseRetryAfter', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  it('reads seconds, HTTP dates and retry-after-ms', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }), now)).toBe(3000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Tue, 01 Jan 2030 00:00:10 GMT' }), now)).toBe(10_000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Mon, 31 Dec 2029 00:00:00 GMT' }), now)).toBe(0);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(parseRetryAfter({ 'retry-after': '2' }, now)).toBe(2000);
  });
  it('ignores missing or unreadable values', () => {
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('isLoopback', () => {
  it.each([
    ['http://localhost:11434/v1', true],
    ['http://127.0.0.1:8080', true],
    ['http://127.1.2.3', true],
    ['http://[::1]:8000/v1', true],
    ['http://0.0.0.0:1234', true],
    ['http://api.localhost', true],
    ['https://api.anthropic.com', false],
    ['http://127.0.0.1.example.com', false],
    ['http://10.0.0.5:8080', false],
    [undefined, false],
    ['not a url', false],
  ])('%s → %s', (url, expected) => {
    expect(isLoopback(url)).toBe(expected);
  });
});

describe('scrubSecret', () => {
  it('removes every occurrence of the key', () => {
    expect(scrubSecret(`bad key ${KEY} (${KEY})`, KEY)).toBe('bad key [redacted] ([redacted])');
  });
  it('leaves text alone for an empty or tiny key', () => {
    expect(scrubSecret('a b c', '')).toBe('a b c');
    expect(scrubSecret('a b c', 'a')).toBe('a b c');
  });
});

describe('classifyError without an SDK', () => {
  const ctx: ErrorContext = { label: 'OpenAI', keyEnv: 'OPENAI_API_KEY', model: 'm', apiKey: KEY };
  it('treats abort, cut streams, bad JSON and socket errors by shape', () => {
    const abort = new Error('x');
    abort.name = 'AbortError';
    expect(classifyError(abort, ctx).kind).toBe('abort');
    expect(classifyError(new StreamCutError('no finish_reason'), ctx).kind).toBe('retry');
    expect(classifyError(new SyntaxError('Unexpected token'), ctx).kind).toBe('retry');
    const reset = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    });
    expect(classifyError(reset, ctx)).toEqual({ kind: 'retry', reason: 'connection reset' });
  });
  it('gives up on anything it does not recognise, keeping the message', () => {
    const verdict = classifyError(new Error('weird'), ctx);
    expect(verdict.kind).toBe('fatal');
    expect(verdict.kind === 'fatal' && verdict.error.message).toBe('OpenAI request failed: weird');
  });
});

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const names = { anthropic: ['Anthropic', 'ANTHROPIC_API_KEY'], openai: ['OpenAI', 'OPENAI_API_KEY'] } as const;

describe.each(['anthropic', 'openai'] as const)('%s fails fast', (name: ProviderName) => {
  const [label, keyEnv] = names[name];

  async function failWith(fault: Parameters<MockProvider['script']>[0]['fault']) {
    const recorder = recordingSleep();
    mock.script({ fault }, { text: 'must not be reached' });
    const baseURL = name === 'anthropic' ? mock.anthropicBaseURL : mock.openaiBaseURL;
    const stream = createProvider({ provider: name, apiKey: KEY, baseURL, sleep: recorder.sleep });
    const result = await collect(stream(request({ model: 'claude-or-gpt-x' }), new AbortController().signal));
    // Fail fast: exactly one request, no retry event, no waiting.
    expect(mock.requests).toHaveLength(1);
    expect(result.retries).toEqual([]);
    expect(recorder.delays).toEqual([]);
    expect(result.error).toBeInstanceOf(ProviderError);
    const error = result.error as ProviderError;
    expect(error.message).not.toContain('\n');
    expect(error.message).not.toContain(KEY);
    return error;
  }

  it('401 names the key variable to check', async () => {
    const error = await failWith({ kind: 'status', status: 401 });
    expect(error.message).toBe(`${label} rejected the API key (401): check ${keyEnv}.`);
    expect(error.options.status).toBe(401);
  });

  it('403 names the key variable and the model', async () => {
    const error = await failWith({ kind: 'status', status: 403, message: 'Model access denied' });
    expect(error.message).toBe(
      `${label} refused access (403): Model access denied; check that ${keyEnv} may use model "claude-or-gpt-x".`,
    );
  });

  it('404 points at --model and --base-url', async () => {
    const error = await failWith({ kind: 'status', status: 404, message: 'model: claude-or-gpt-x' });
    expect(error.message).toBe(`${label} model "claude-or-gpt-x" or endpoint not found (404): check --model and --base-url.`);
  });

  it("400 passes on the provider's message", async () => {
    const error = await failWith({ kind: 'status', status: 400, message: 'messages.1.content: field required' });
    expect(error.message).toBe(`${label} rejected the request (400): messages.1.content: field required`);
    expect(error.options.contextTooLong).toBeFalsy();
  });

  it('400 for an over-long prompt is flagged contextTooLong', async () => {
    const message =
      name === 'anthropic'
        ? 'prompt is too long: 210000 tokens > 200000 maximum'
        : "This model's maximum context length is 128000 tokens. However, your messages resulted in 140000 tokens.";
    const error = await failWith({
      kind: 'status',
      status: 400,
      message,
      code: name === 'openai' ? 'context_length_exceeded' : undefined,
    });
    expect(error.options.contextTooLong).toBe(true);
    expect(error.message).toContain(message);
  });

  it('OpenAI-style context_length_exceeded code alone is enough', async () => {
    const error = await failWith({ kind: 'status', status: 400, message: 'Too big.', code: 'context_length_exceeded' });
    expect(Boolean(error.options.contextTooLong)).toBe(name === 'openai');
  });

  it('never puts the API key in the error, even when the server echoes it', async () => {
    const error = await failWith({ kind: 'status', status: 400, message: `invalid request for key ${KEY}` });
    expect(error.message).toBe(`${label} rejected the request (400): invalid request for key [redacted]`);
  });

  it('scrubs the key from retry reasons and the final error as well', async () => {
    mock.respond(() => ({ fault: { kind: 'status', status: 500, message: `backend saw ${KEY}` } }));
    const baseURL = name === 'anthropic' ? mock.anthropicBaseURL : mock.openaiBaseURL;
    const stream = createProvider({ provider: name, apiKey: KEY, baseURL, maxRetries: 1, sleep: recordingSleep().sleep });
    const result = await collect(stream(request(), new AbortController().signal));
    expect(JSON.stringify(result.events)).not.toContain(KEY);
    expect(result.retries[0]!.reason).toBe('server error (500): backend saw [redacted]');
    expect((result.error as Error).message).not.toContain(KEY);
    expect((result.error as Error).message).toContain('[redacted]');
  });

  it('connection refused on a custom base URL names the URL to check', async () => {
    // A port that was just free: nothing listens there any more.
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const baseURL = name === 'anthropic' ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`;
    const recorder = recordingSleep();
    const stream = createProvider({ provider: name, apiKey: KEY, baseURL, maxRetries: 1, sleep: recorder.sleep });
    const result = await collect(stream(request(), new AbortController().signal));

    expect(result.retries).toHaveLength(1);
    expect(result.error).toBeInstanceOf(ProviderError);
    const message = (result.error as Error).message;
    expect(message).toBe(
      `${label} failed after 1 retry: connection refused by the base URL ${baseURL}: check the base URL ${baseURL} (set by --base-url, the baseURL setting or ${name === 'anthropic' ? 'ANTHROPIC_BASE_URL' : 'OPENAI_BASE_URL'}) and that the server there is running.`,
    );
  });

  it('a port fetch refuses is one line, at once, with no retry', async () => {
    const baseURL = name === 'anthropic' ? 'http://127.0.0.1:1' : 'http://127.0.0.1:1/v1';
    const recorder = recordingSleep();
    const stream = createProvider({ provider: name, apiKey: KEY, baseURL, maxRetries: 3, sleep: recorder.sleep });
    const result = await collect(stream(request(), new AbortController().signal));
    expect(result.retries).toHaveLength(0);
    expect((result.error as Error).message).toBe(
      `Cannot connect to the base URL ${baseURL}: fetch refuses port 1 (a blocked port); use another port in --base-url.`,
    );
  });
});

describe('missing key', () => {
  it('Anthropic without a key says which variable to set, without a request', async () => {
    const stream = createProvider({ provider: 'anthropic', apiKey: '', baseURL: mock.anthropicBaseURL });
    const result = await collect(stream(request(), new AbortController().signal));
    expect((result.error as Error).message).toBe('No Anthropic API key: set ANTHROPIC_API_KEY.');
    expect(mock.requests).toHaveLength(0);
  });
  it('OpenAI without a key and without a base URL says which variable to set', async () => {
    const stream = createProvider({ provider: 'openai', apiKey: '' });
    const result = await collect(stream(request(), new AbortController().signal));
    expect((result.error as Error).message).toMatch(/^No OpenAI API key: set OPENAI_API_KEY/);
  });
});
