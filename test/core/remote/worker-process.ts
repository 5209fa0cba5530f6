/**
 * A worker in a process of its own, for tests that kill it with SIGKILL mid-job. Built from
 * source by `buildWorkerProcess`; its options come as JSON in argv[2]. Each job sends an event
 * and a message with some text, then waits until the process is killed.
 */
import { runWorker } from '../../../src/core/remote/queue-worker.js';

const options = JSON.parse(process.argv[2] ?? '{}') as {
  redisUrl: string;
  name: string;
  lockDurationMs: number;
  stalledIntervalMs: number;
};
await runWorker({
  ...options,
  ceiling: { permissionMode: 'default', sandbox: 'off' },
  runJob: async (payload, context) => {
    context.onMessage({ role: 'user', content: [{ type: 'text', text: payload.task }] });
    context.onMessage({ role: 'assistant', content: [{ type: 'text', text: 'half-way there' }] });
    context.onEvent({ type: 'text_delta', text: 'half-way there' });
    return new Promise(() => undefined);
  },
});
process.stdout.write('ready\n');
