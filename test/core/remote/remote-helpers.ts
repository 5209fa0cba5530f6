/**
 * What the queue tests share: workers and session-side runners that are closed after each
 * test, a request that records what the runner hands it, and a job runner driven by the test.
 */
import { afterEach } from 'vitest';
import { builtinDefinitions } from '../../../src/core/agents/builtin-agents.js';
import type { ChildRunRequest } from '../../../src/core/jobs/job-types.js';
import type { LoopEvent } from '../../../src/core/loop/events.js';
import { emptyUsage, type Message } from '../../../src/core/providers/types.js';
import {
  type QueueWorkerOptions,
  type RemoteJobContext,
  type RemoteJobResult,
  type RunningWorker,
  runWorker,
} from '../../../src/core/remote/queue-worker.js';
import { type RemoteChildRunner, type RemoteRunnerOptions, remoteChildRunner } from '../../../src/core/remote/remote-runner.js';
import type { RemoteJobPayload } from '../../../src/core/remote/payload.js';

/** Short stall and lock times, for the tests of a lost worker: it is noticed within a couple of seconds. */
export const QUICK = { lockDurationMs: 1000, stalledIntervalMs: 500 };

export const COMMIT = 'c'.repeat(40);

/** Workers and runners made here are closed after each test. */
export function useQueue() {
  const workers: RunningWorker[] = [];
  const runners: RemoteChildRunner[] = [];
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.close().catch(() => undefined)));
    await Promise.all(workers.splice(0).map((w) => w.close().catch(() => undefined)));
  });
  return {
    async worker(redisUrl: string, options: Partial<QueueWorkerOptions> & Pick<QueueWorkerOptions, 'runJob'>) {
      const worker = await runWorker({
        redisUrl,
        name: 'w1',
        concurrency: 2,
        ceiling: { permissionMode: 'accept-edits', sandbox: 'off' },
        // BullMQ's own lock times: a loaded machine that pauses a worker a second is no dead worker.
        ...options,
      });
      workers.push(worker);
      return worker;
    },
    runner(redisUrl: string, options: Partial<RemoteRunnerOptions> = {}) {
      const definitions = new Map(builtinDefinitions().map((d) => [d.name, d]));
      const runner = remoteChildRunner({
        redisUrl,
        sessionId: 'sess1',
        definitions: () => definitions,
        workspaceFor: async () => ({ remote: 'file:///nowhere.git', commit: COMMIT }),
        timing: { stalledIntervalMs: QUICK.stalledIntervalMs, statePollMs: 100, stopGraceMs: 5000 },
        ...options,
      });
      runners.push(runner);
      return runner;
    },
  };
}

/** A request whose events and messages are recorded. */
export function recordingRequest(id = 'sub-1', over: Partial<ChildRunRequest> = {}) {
  const events: LoopEvent[] = [];
  const messages: Message[] = [];
  const controller = new AbortController();
  const request: ChildRunRequest = {
    id,
    task: `task of ${id}`,
    definition: 'general',
    mode: 'typed',
    signal: controller.signal,
    onEvent: (event) => events.push(event),
    onMessage: (message) => messages.push(message),
    ...over,
  };
  return { request, events, messages, controller };
}

/** A promise to release by hand. */
export function gate<T = void>() {
  let open!: (value: T) => void;
  const opened = new Promise<T>((resolve) => (open = resolve));
  return { opened, open };
}

/** A text delta event. */
export const delta = (text: string): LoopEvent => ({ type: 'text_delta', text });

/** A job runner that sends `count` deltas, waits for `hold` when given, sends the rest, and answers `answer`. */
export function scriptedJob(options: { count: number; holdAt?: number; hold?: Promise<void>; answer?: string }) {
  const seen: { payload?: RemoteJobPayload; signal?: AbortSignal } = {};
  const runJob = async (payload: RemoteJobPayload, context: RemoteJobContext): Promise<RemoteJobResult> => {
    seen.payload = payload;
    seen.signal = context.signal;
    context.onMessage({ role: 'user', content: [{ type: 'text', text: payload.task }] });
    for (let i = 0; i < options.count; i += 1) {
      if (i === options.holdAt) await options.hold;
      context.onEvent(delta(`d${i} `));
    }
    const answer = options.answer ?? 'finished';
    context.onMessage({ role: 'assistant', content: [{ type: 'text', text: answer }] });
    return { outcome: { status: 'done', text: answer }, usage: { ...emptyUsage(), input: 10, output: 5 } };
  };
  return { runJob, seen };
}
