import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type LiveCli, startCli } from './run-cli.js';
import { until } from './until.js';

/** Starts the built `outrider worker` in a home of its own; resolves once it says it takes jobs. */
export async function startQueueWorker(options: {
  env: Record<string, string>;
  redisUrl: string;
  name: string;
  /** Flags after `--name` (concurrency, mode, timings). */
  args: string[];
  /** Where the test keeps what it must kill afterwards. */
  running: LiveCli[];
}): Promise<LiveCli> {
  const home = mkdtempSync(path.join(os.tmpdir(), `outrider-e2e-${options.name}-`));
  const worker = startCli(['worker', '--name', options.name, ...options.args], {
    cwd: home,
    env: { ...options.env, OUTRIDER_HOME: home, OUTRIDER_QUEUE_URL: options.redisUrl },
  });
  options.running.push(worker);
  await until(() => worker.stderr().includes('stop with SIGTERM'), {
    what: `worker ${options.name} to start`,
    observe: () => worker.stderr(),
    timeoutMs: 30_000,
  });
  return worker;
}
