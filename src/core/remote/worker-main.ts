/**
 * A worker put together from its flags, the user's settings file and its environment: the
 * provider with this machine's key, the ceiling, the job runner, the queue worker. The CLI's
 * `outrider worker` parses the flags and prints; this module is loaded only by it (through
 * `loadRemoteWorker` in src/core/index.ts), so no other run loads BullMQ.
 */
import os from 'node:os';
import path from 'node:path';
import { outriderPaths } from '../config/paths.js';
import { ConfigError, resolveProviderConfig } from '../config/provider-config.js';
import { SettingsError, readSettingsFiles } from '../config/settings.js';
import type { PermissionMode } from '../permissions/types.js';
import { createProvider } from '../providers/create.js';
import type { SandboxMode } from '../sandbox/plan.js';
import { costOf, modelInfo } from '../providers/models.js';
import { type RunningWorker, runWorker } from './queue-worker.js';
import { PayloadRefused, RemoteQueueError } from './remote-errors.js';
import { createWorkerJobRunner } from './worker-job.js';

/** What `outrider worker` was told. */
export interface WorkerSetup {
  queueUrl: string;
  env: NodeJS.ProcessEnv;
  name?: string;
  concurrency: number;
  labels: string[];
  namespace?: string;
  provider?: string;
  model?: string;
  baseURL?: string;
  toolMode?: string;
  permissionMode: PermissionMode;
  sandbox?: SandboxMode;
  maxTurns?: number;
  retries: number;
  allowRemotes?: string[];
  cacheDir?: string;
  lockMs?: number;
  stalledIntervalMs?: number;
  onLog: (line: string) => void;
}

/** A started worker and the line that says how it runs. */
export interface StartedWorker {
  worker: RunningWorker;
  summary: string;
}

/** A problem the user fixes (the queue, the settings, the key): its message is the whole story. */
export function isWorkerSetupError(error: unknown): error is Error {
  return (
    error instanceof RemoteQueueError ||
    error instanceof ConfigError ||
    error instanceof SettingsError ||
    error instanceof PayloadRefused
  );
}

/** The host name as a worker name: letters, digits, `_`, `.`, `-`. */
export function defaultWorkerName(): string {
  return (
    os
      .hostname()
      .replace(/[^A-Za-z0-9_.-]/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '') || 'worker'
  );
}

export async function startWorker(setup: WorkerSetup): Promise<StartedWorker> {
  const home = outriderPaths(setup.env);
  // The user's own settings only: a worker has no project, and a job's repository is not trusted.
  const { user: settings } = readSettingsFiles({ userPath: home.userSettings });
  const provider = resolveProviderConfig({
    flags: { provider: setup.provider, model: setup.model, baseURL: setup.baseURL, toolMode: setup.toolMode },
    settings,
    env: setup.env,
  });
  const info = modelInfo(provider.model, settings.models);
  const sandbox: SandboxMode = setup.sandbox ?? settings.sandbox ?? 'off';
  const stream = createProvider({
    provider: provider.provider,
    apiKey: provider.apiKey,
    baseURL: provider.baseURL,
    maxRetries: provider.maxRetries,
    toolMode: provider.toolMode,
    ...(settings.models ? { models: settings.models } : {}),
    firstByteTimeoutMs: settings.firstByteTimeoutMs,
    idleTimeoutMs: settings.idleTimeoutMs,
    callDeadlineMs: settings.callDeadlineMs,
  });
  const worker = await runWorker({
    redisUrl: setup.queueUrl,
    name: setup.name ?? defaultWorkerName(),
    concurrency: setup.concurrency,
    labels: setup.labels,
    ...(setup.namespace ? { namespace: setup.namespace } : {}),
    ceiling: {
      permissionMode: setup.permissionMode,
      sandbox,
      ...(setup.maxTurns ? { caps: { maxTurns: setup.maxTurns } } : {}),
      ...(setup.allowRemotes ? { remotes: setup.allowRemotes } : {}),
    },
    retries: setup.retries,
    ...(setup.lockMs ? { lockDurationMs: setup.lockMs } : {}),
    ...(setup.stalledIntervalMs ? { stalledIntervalMs: setup.stalledIntervalMs } : {}),
    onLog: setup.onLog,
    costOf: (usage, model) => costOf(usage, model ? modelInfo(model, settings.models) : info) ?? 0,
    runJob: createWorkerJobRunner({
      cacheDir: setup.cacheDir ? path.resolve(setup.cacheDir) : path.join(home.home, 'worker'),
      env: setup.env,
      stream,
      model: provider.model,
      maxTokens: Math.min(settings.maxTokens ?? 8192, info.maxOutput),
      apiKey: provider.apiKey,
    }),
  });
  const summary = `${worker.name}: ${provider.provider} ${provider.model}, permission mode ${setup.permissionMode}, sandbox ${sandbox}`;
  return { worker, summary };
}
