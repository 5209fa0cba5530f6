import { type ChildOutcome, type ChildRunRequest, JobManager, type JobManagerOptions } from '../../src/core/jobs/job-manager.js';
import type { JobEvent } from '../../src/core/jobs/job-types.js';
import type { Message } from '../../src/core/providers/types.js';
import { FakeClock } from './fake-clock.js';

/**
 * A child runner the test finishes by hand: `started` lists every run in the order it began,
 * `running` the runs still going with their requests. A stop ends a run as a real child run
 * does: with its conversation so far and whatever it produced.
 */
export function controlledRunner() {
  const running = new Map<string, { request: ChildRunRequest; finish: (o: ChildOutcome) => void; fail: (e: Error) => void }>();
  const started: string[] = [];
  const requests: ChildRunRequest[] = [];
  let concurrent = 0;
  let maxConcurrent = 0;
  const run = (request: ChildRunRequest) =>
    new Promise<ChildOutcome>((resolve, reject) => {
      started.push(request.id);
      requests.push(request);
      concurrent += 1;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      const done = () => {
        concurrent -= 1;
        running.delete(request.id);
      };
      running.set(request.id, {
        request,
        finish: (o) => {
          done();
          resolve(o);
        },
        fail: (e) => {
          done();
          reject(e);
        },
      });
      request.signal.addEventListener('abort', () => {
        done();
        // As a real child run does: its conversation so far comes back with whatever it produced.
        const soFar: Message[] = [{ role: 'user', content: [{ type: 'text', text: `Task:\n${request.task}` }] }];
        resolve({ status: 'done', text: 'partial text after abort', messages: soFar });
      });
    });
  return {
    run,
    started,
    running,
    requests,
    /** The most runs that were going at once. */
    max: () => maxConcurrent,
    finish: (id: string, outcome: ChildOutcome = { status: 'done', text: `report of ${id}` }) => {
      const entry = running.get(id);
      if (!entry) throw new Error(`${id} is not running (running: ${[...running.keys()].join(', ') || 'none'})`);
      entry.finish(outcome);
    },
  };
}

/**
 * A job manager on a controlled runner and a fake clock, with the events it emitted and a
 * parent step boundary: `boundary()` takes the notices and confirms them, as the history would.
 */
export function jobManagerHarness(options: Partial<JobManagerOptions> = {}) {
  const runner = controlledRunner();
  const clock = new FakeClock();
  const events: JobEvent[] = [];
  const manager = new JobManager({
    run: runner.run,
    emit: (e) => events.push(e),
    now: clock.now,
    timers: clock,
    pollTimeoutMs: 10_000,
    ...options,
  });
  const boundary = (): string[] => {
    const messages = manager.boundaryMessages();
    for (const m of messages) manager.confirm(m);
    return messages.map(textOf);
  };
  return { manager, runner, clock, events, boundary };
}

/** The text of a message's first block. */
export const textOf = (m: Message) => (m.content[0] as { text: string }).text;
