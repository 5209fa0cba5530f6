/** Helpers for tests that consume a provider StreamFn. */
import type { Message, ModelRequest, StreamEvent, ToolSchema } from '../../src/core/providers/types.js';

export type MessageEnd = Extract<StreamEvent, { type: 'message_end' }>;
export type RetryEvent = Extract<StreamEvent, { type: 'retry' }>;

export interface Collected {
  events: StreamEvent[];
  end?: MessageEnd;
  retries: RetryEvent[];
  error?: unknown;
}

/** Drains a stream, capturing the events and the error it ended with (if any). */
export async function collect(stream: AsyncIterable<StreamEvent>): Promise<Collected> {
  const events: StreamEvent[] = [];
  let error: unknown;
  try {
    for await (const event of stream) events.push(event);
  } catch (e) {
    error = e;
  }
  const ends = events.filter((e): e is MessageEnd => e.type === 'message_end');
  return { events, end: ends.at(-1), retries: events.filter((e): e is RetryEvent => e.type === 'retry'), error };
}

/** Text deltas after the last retry event: what a consumer that honours `retry` would show. */
export function textAfterLastRetry(events: StreamEvent[]): string {
  let lastRetry = -1;
  events.forEach((e, i) => {
    if (e.type === 'retry') lastRetry = i;
  });
  return events
    .slice(lastRetry + 1)
    .flatMap((e) => (e.type === 'text_delta' ? [e.text] : []))
    .join('');
}

export const readTool: ToolSchema = {
  name: 'read_file',
  description: 'Read a file from the workspace.',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

export const grepTool: ToolSchema = {
  name: 'grep',
  description: 'Search file contents.',
  inputSchema: { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
};

export function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Hello there' }] }];
  return { model: 'test-model', system: 'You are a test.', messages, tools: [readTool, grepTool], maxTokens: 1024, ...overrides };
}

/**
 * A backoff that never ends by itself, only by an abort (rejecting with an AbortError):
 * a stream that ends while in it was ended by the abort. `entered` resolves with the
 * delay asked for once the sleep has begun.
 */
export function abortOnlySleep(): { sleep: (ms: number, signal: AbortSignal) => Promise<void>; entered: Promise<number> } {
  let enter: (ms: number) => void = () => {};
  const entered = new Promise<number>((resolve) => (enter = resolve));
  return {
    entered,
    sleep: (ms, signal) =>
      new Promise((_, reject) => {
        const stop = () => {
          const error = new Error('aborted');
          error.name = 'AbortError';
          reject(error);
        };
        if (signal.aborted) return stop();
        signal.addEventListener('abort', stop, { once: true });
        enter(ms);
      }),
  };
}

/** A sleep that records each delay and returns at once (still honouring abort). */
export function recordingSleep(): { delays: number[]; sleep: (ms: number, signal: AbortSignal) => Promise<void> } {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms, signal) => {
      delays.push(ms);
      if (signal.aborted) {
        const error = new Error('aborted');
        error.name = 'AbortError';
        throw error;
      }
    },
  };
}

/**
 * Drains a stream whose provider runs on `clock`, moving the clock to the end of each
 * rate-limit pause the call says it waits for (its `rate_limit` events), and only then: a
 * watchdog timer on the same clock never fires by itself.
 */
export async function drivePauses(
  stream: AsyncIterable<StreamEvent>,
  clock: { now(): number; advance(ms: number): void },
): Promise<Collected> {
  let finished = false;
  const events: StreamEvent[] = [];
  const drained = (async () => {
    try {
      for await (const event of stream) events.push(event);
      return undefined;
    } catch (error) {
      return error ?? new Error('undefined thrown');
    } finally {
      finished = true;
    }
  })();
  while (!finished) {
    const last = events.at(-1);
    if (last?.type === 'rate_limit' && last.waiting && last.until !== undefined && last.until > clock.now()) {
      clock.advance(last.until - clock.now());
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  const error = await drained;
  const ends = events.filter((e): e is MessageEnd => e.type === 'message_end');
  return {
    events,
    end: ends.at(-1),
    retries: events.filter((e): e is RetryEvent => e.type === 'retry'),
    ...(error !== undefined ? { error } : {}),
  };
}
