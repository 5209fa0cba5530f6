/**
 * `--input-format stream-json` as the Claude Agent SDK speaks it: user messages and the
 * control protocol on one stream. stdin is read all the time, also while a turn runs, so an
 * `interrupt` ends the turn it arrives in and a `control_response` (the answer to a
 * `can_use_tool` question outrider asked) reaches the gate that waits for it. User messages
 * wait in a bounded queue and run one turn after another: when it is full, stdin is not read
 * further until a message is taken (a long file of prompts is read as it runs, never whole).
 */
import { StreamInputError, type UserMessage, parseLine, readLines } from './stream-input.js';

/** What the run loop takes from stdin in order: a prompt, or the SDK's `initialize`. */
export type Incoming =
  ({ kind: 'user' } & UserMessage) | { kind: 'initialize'; requestId: string; request: Record<string, unknown> };

/** Answers one control request; what it returns is the success payload, what it throws the error. */
export type ControlHandler = (
  request: Record<string, unknown>,
) => Promise<Record<string, unknown> | undefined> | Record<string, unknown> | undefined;

/** Messages waiting for their turn at most; past that, stdin waits (it is not read without bound). */
export const MAX_QUEUED = 64;

export class StreamChannel {
  private readonly queue: Incoming[] = [];
  private wake: (() => void) | undefined;
  /** Resolves the pump's wait for room in the queue. */
  private room: (() => void) | undefined;
  private ended = false;
  private failure: StreamInputError | undefined;
  private readonly handlers = new Map<string, ControlHandler>();
  private readonly pending = new Map<
    string,
    { resolve: (value: Record<string, unknown>) => void; reject: (error: Error) => void }
  >();
  private requests = 0;
  /** Settles when stdin is no longer read: at EOF, on the abort, or at a line that is refused. */
  readonly done: Promise<void>;

  constructor(
    input: NodeJS.ReadableStream,
    private readonly write: (line: object) => void,
    options: { signal: AbortSignal; maxLineBytes?: number; maxQueued?: number },
  ) {
    this.done = this.pump(input, options);
  }

  /** Answers control requests of `subtype` (all but `initialize`, which `next()` hands out in order). */
  on(subtype: string, handler: ControlHandler): void {
    this.handlers.set(subtype, handler);
  }

  /** The next prompt or `initialize`; undefined at EOF. Throws StreamInputError for a line that is neither. */
  async next(): Promise<Incoming | undefined> {
    for (;;) {
      const item = this.queue.shift();
      if (item) {
        this.room?.();
        return item;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Sends a control request to the client and waits for its answer (an error answer rejects). */
  request(request: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    if (this.ended) return Promise.reject(new Error('stdin is closed: no one can answer'));
    const id = `outrider-${++this.requests}`;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        this.write({ type: 'control_cancel_request', request_id: id });
        reject(new Error('aborted'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      this.write({ type: 'control_request', request_id: id, request });
    });
  }

  respond(requestId: string, response: Record<string, unknown> = {}): void {
    this.write({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response } });
  }

  respondError(requestId: string, error: string): void {
    this.write({ type: 'control_response', response: { subtype: 'error', request_id: requestId, error } });
  }

  private async pump(input: NodeJS.ReadableStream, options: { signal: AbortSignal; maxLineBytes?: number; maxQueued?: number }) {
    try {
      const max = options.maxQueued ?? MAX_QUEUED;
      for await (const { line, lineNumber } of readLines(input, options)) {
        this.take(line, lineNumber);
        this.wake?.();
        // A full queue: read on once a message is taken (or the run stops).
        while (this.queue.length >= max && !options.signal.aborted) {
          await new Promise<void>((resolve) => {
            this.room = resolve;
            options.signal.addEventListener('abort', () => resolve(), { once: true });
          });
        }
      }
    } catch (error) {
      this.failure = error instanceof StreamInputError ? error : new StreamInputError(`stdin: ${(error as Error).message}`);
    } finally {
      this.ended = true;
      for (const { reject } of this.pending.values()) reject(new Error('stdin closed before the answer came'));
      this.pending.clear();
      this.wake?.();
    }
  }

  private take(line: string, lineNumber: number): void {
    if (line.trim() === '') return;
    let value: { type?: unknown; request_id?: unknown; request?: unknown; response?: unknown };
    try {
      value = JSON.parse(line) as typeof value;
    } catch {
      // parseLine words the error as for any other bad line.
      parseLine(line, lineNumber);
      return;
    }
    const where = `stdin line ${lineNumber}`;
    switch (value?.type) {
      case 'control_request': {
        const request = value.request as Record<string, unknown> | null;
        const id = value.request_id;
        if (typeof id !== 'string' || typeof request !== 'object' || request === null || typeof request.subtype !== 'string') {
          throw new StreamInputError(`${where}: a control_request needs a request_id and a request with a subtype`);
        }
        if (request.subtype === 'initialize') this.queue.push({ kind: 'initialize', requestId: id, request });
        else void this.handle(id, request);
        return;
      }
      case 'control_response': {
        const response = value.response as {
          subtype?: unknown;
          request_id?: unknown;
          response?: unknown;
          error?: unknown;
        } | null;
        const waiting = typeof response?.request_id === 'string' ? this.pending.get(response.request_id) : undefined;
        if (!waiting || !response) return;
        this.pending.delete(response.request_id as string);
        if (response.subtype === 'success') waiting.resolve((response.response as Record<string, unknown>) ?? {});
        else waiting.reject(new Error(typeof response.error === 'string' ? response.error : 'the client refused'));
        return;
      }
      // A request the client no longer waits for, and keep-alives: nothing to do.
      case 'control_cancel_request':
      case 'keep_alive':
        return;
      default: {
        const message = parseLine(line, lineNumber);
        if (message !== undefined) this.queue.push({ kind: 'user', ...message });
      }
    }
  }

  private async handle(id: string, request: Record<string, unknown>): Promise<void> {
    const handler = this.handlers.get(request.subtype as string);
    if (!handler) {
      this.respondError(id, `outrider does not handle control requests of subtype "${String(request.subtype)}"`);
      return;
    }
    try {
      this.respond(id, (await handler(request)) ?? {});
    } catch (error) {
      this.respondError(id, error instanceof Error ? error.message : String(error));
    }
  }
}
