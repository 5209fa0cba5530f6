import type { ChildOutcome, ChildRunRequest } from '../../src/core/jobs/job-manager.js';
import type { Message } from '../../src/core/providers/types.js';

/**
 * A child runner the test finishes by hand: `started` lists every run in the order it began,
 * `running` the runs still going with their requests. A stop ends a run as a real child run
 * does: with its conversation so far and whatever it produced.
 */
export function controlledRunner() {
  const running = new Map<string, { request: ChildRunRequest; finish: (o: ChildOutcome) => void }>();
  const started: string[] = [];
  const requests: ChildRunRequest[] = [];
  const run = (request: ChildRunRequest) =>
    new Promise<ChildOutcome>((resolve) => {
      started.push(request.id);
      requests.push(request);
      running.set(request.id, {
        request,
        finish: (o) => {
          running.delete(request.id);
          resolve(o);
        },
      });
      request.signal.addEventListener('abort', () => {
        running.delete(request.id);
        const soFar: Message[] = [{ role: 'user', content: [{ type: 'text', text: `Task:\n${request.task}` }] }];
        resolve({ status: 'done', text: 'partial text after abort', messages: soFar });
      });
    });
  return {
    run,
    started,
    running,
    requests,
    finish: (id: string, outcome: ChildOutcome = { status: 'done', text: `report of ${id}` }) => {
      const entry = running.get(id);
      if (!entry) throw new Error(`${id} is not running (running: ${[...running.keys()].join(', ') || 'none'})`);
      entry.finish(outcome);
    },
  };
}
