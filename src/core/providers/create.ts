/**
 * The one way the rest of outrider gets a model: `createProvider(options)` returns a
 * StreamFn with retries, friendly errors, at most 20 images a request (image-window.ts) and
 * (optionally) text-mode tool calling.
 * Importing this module loads no SDK; the first call does, or `preload` (a session's).
 */
import { anthropicBackend } from './anthropic.js';
import type { ProviderBackend } from './backend.js';
import { defaultCallDeadline } from './deadline.js';
import { classifyError, type ErrorContext } from './errors.js';
import { createHttpFetch } from './http-fetch.js';
import { SENT_IMAGE_LIMITS, withImageWindow } from './image-window.js';
import { type ModelInfo, takesImages } from './models.js';
import { openaiBackend } from './openai.js';
import { RateLimitGate } from './rate-limit-gate.js';
import { DEFAULT_RATE_LIMIT_WAIT_MS, type RateLimitOptions } from './rate-limit-wait.js';
import { clockSleep, DEFAULT_DELAYS, type DelayOptions, retryDelay, withRetries, type Sleep } from './retry.js';
import { withTextTools } from './text-tools.js';
import { type Clock, realClock } from '../platform/timers.js';
import { type AttemptBudget, DEFAULT_TIMEOUTS, watchAttempt } from './timeouts.js';
import { withValidOutput } from './valid-output.js';
import type { ProviderName, StreamFn } from './types.js';

export { INVALID_JSON_KEY } from './tool-args.js';

export interface ProviderOptions {
  provider: ProviderName;
  apiKey: string;
  /** Any compatible server: a proxy for Anthropic, Ollama/vLLM/… for OpenAI. */
  baseURL?: string;
  /** Retries after the first attempt; default 4. */
  maxRetries?: number;
  /** 'text' describes tools in the system prompt, for endpoints without native tools. */
  toolMode?: 'native' | 'text';
  /** The settings' `models` table: which of its models take images (`images`), over the catalogue's word. */
  models?: Readonly<Record<string, Partial<ModelInfo>>>;
  /** Delay of the first retry before jitter; default 1000 ms. */
  retryBaseDelayMs?: number;
  /** How long to wait for the server to answer at all; default 60 s. */
  firstByteTimeoutMs?: number;
  /** How long a stream may go without content (pings do not count); default 180 s. */
  idleTimeoutMs?: number;
  /**
   * How long one model call may go without an answer, every attempt's wait for the server and
   * every backoff included (a streaming reply does not count); default 150 s, or 2.5 first-byte
   * timeouts when those are longer. See deadline.ts.
   */
  callDeadlineMs?: number;
  /** The longest retry-after a server may ask for and be waited for; a longer one ends the call at once. Default 60 s. */
  maxRetryAfterMs?: number;
  /** Injected by tests to record delays instead of waiting; by default a timer on `clock`. */
  sleep?: Sleep;
  random?: () => number;
  /** The watchdog's and the backoff's timers, and the time limit's clock; tests pass a fake clock. */
  clock?: Clock;
  /**
   * Start loading the SDK now rather than on the first call: a session does, so the SDK is
   * compiled while the session is put together (and a TUI waits for its first prompt).
   */
  preload?: boolean;
  /** OpenAI: `responses` or `chat` for every request (the `openai.api` setting); absent: by model and base URL. */
  openaiApi?: 'responses' | 'chat';
  /**
   * The provider's rate-limit gate (rate-limit-gate.ts), one for every call this StreamFn makes:
   * a 429 or 529 pauses them all and fewer run at once for a while. `maxConcurrent`: the
   * session's concurrency, which the cap grows back to; `maxWaitMs`: the most one call waits
   * for rate limits in all (default 10 minutes); `overloaded: false` leaves 529s to the retries
   * (for --fallback-model). `false`: no gate, rate limits are retried within maxRetries.
   */
  rateLimit?: { maxConcurrent?: number; maxWaitMs?: number; overloaded?: boolean } | false;
}

/** The SDK's own timeout stays behind ours, so the watchdog's message is the one users see. */
const SDK_TIMEOUT_SLACK_MS = 30_000;

const labels: Record<ProviderName, { label: string; keyEnv: string; urlEnv: string }> = {
  anthropic: { label: 'Anthropic', keyEnv: 'ANTHROPIC_API_KEY', urlEnv: 'ANTHROPIC_BASE_URL' },
  openai: { label: 'OpenAI', keyEnv: 'OPENAI_API_KEY', urlEnv: 'OPENAI_BASE_URL' },
};

/** The gate every call of one provider passes, with how long a call may wait there. */
function rateLimitFor(
  options: { maxConcurrent?: number; maxWaitMs?: number; overloaded?: boolean },
  clock: Clock,
  delays: DelayOptions,
): RateLimitOptions {
  const gate = new RateLimitGate({
    clock,
    ...(options.maxConcurrent !== undefined ? { maxConcurrent: options.maxConcurrent } : {}),
    backoff: (streak) => retryDelay(streak, undefined, delays),
  });
  return { gate, maxWaitMs: options.maxWaitMs ?? DEFAULT_RATE_LIMIT_WAIT_MS, overloaded: options.overloaded ?? true };
}

/** A StreamFn for the chosen provider: valid output only. Throws ProviderError on a failure it gave up on. */
export function createProvider(options: ProviderOptions): StreamFn {
  const timeouts = {
    firstByteMs: options.firstByteTimeoutMs ?? DEFAULT_TIMEOUTS.firstByteMs,
    idleMs: options.idleTimeoutMs ?? DEFAULT_TIMEOUTS.idleMs,
  };
  const clock = options.clock ?? realClock;
  const config = {
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    sdkTimeoutMs: timeouts.firstByteMs + SDK_TIMEOUT_SLACK_MS,
    // One connection pool per provider: its requests reuse a kept-alive connection.
    fetch: createHttpFetch(),
    ...(options.openaiApi ? { openaiApi: options.openaiApi } : {}),
  };
  const backend: ProviderBackend = options.provider === 'anthropic' ? anthropicBackend(config) : openaiBackend(config);
  if (options.preload) backend.preload();
  const { label, keyEnv, urlEnv } = labels[options.provider];
  const delays = {
    ...DEFAULT_DELAYS,
    ...(options.retryBaseDelayMs !== undefined ? { baseMs: options.retryBaseDelayMs } : {}),
    ...(options.maxRetryAfterMs !== undefined ? { maxRetryAfterMs: options.maxRetryAfterMs } : {}),
  };
  const deadlineMs = options.callDeadlineMs ?? defaultCallDeadline(timeouts.firstByteMs);
  const sleep = options.sleep ?? clockSleep(clock);
  const random = options.random ?? Math.random;
  const rateLimit = options.rateLimit === false ? undefined : rateLimitFor(options.rateLimit ?? {}, clock, { ...delays, random });

  const stream: StreamFn = (request, signal) => {
    const context: ErrorContext = {
      label,
      keyEnv,
      urlEnv,
      model: request.model,
      baseURL: options.baseURL,
      apiKey: options.apiKey,
    };
    // Each attempt on its own signal, linked to the caller's and unlinked after (timeouts.ts).
    const attempt = (budget: AttemptBudget) =>
      watchAttempt((own, progress) => backend.stream(request, own, progress), signal, { timeouts, clock, budget });
    return withRetries(attempt, signal, {
      ...delays,
      maxRetries: options.maxRetries ?? 4,
      deadlineMs,
      clock,
      firstByteMs: timeouts.firstByteMs,
      sleep,
      random,
      classify: (error) => classifyError(error, context, backend.errorClasses()),
      context,
      ...(rateLimit ? { rateLimit } : {}),
    });
  };
  // Outermost: text-mode calls are checked like native ones. The image window sees the history
  // before text mode rewrites it, so a tool result's left-out images are noted in its own text.
  const images = (model: string) =>
    takesImages(model, { provider: options.provider, baseURL: options.baseURL, models: options.models });
  return withValidOutput(
    withImageWindow(options.toolMode === 'text' ? withTextTools(stream) : stream, SENT_IMAGE_LIMITS, images),
  );
}
