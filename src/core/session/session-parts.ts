/**
 * Assemblies openSession puts a session together from, each from what it needs and nothing
 * later: the sandbox commands run in, the provider stream, the queue jobs go to.
 */
import type { AgentDefinition } from '../agents/agent-definition.js';
import { resolveMainModel } from '../config/model-aliases.js';
import type { ProviderConfig } from '../config/provider-config.js';
import { SETTINGS_DEFAULTS, type Settings } from '../config/settings.js';
import type { Workspace } from '../platform/paths.js';
import { createProvider } from '../providers/create.js';
import { withFallbackModel } from '../providers/fallback-model.js';
import type { StreamFn } from '../providers/types.js';
import type { SessionQueue } from '../remote/session-queue.js';
import { sandboxConfigFrom, sandboxWarnings } from '../sandbox/config.js';
import type { SandboxProbe } from '../sandbox/plan.js';
import { sessionProbe } from '../sandbox/probe.js';
import type { BashSandbox } from '../tools/bash.js';
import { builtinTools } from '../tools/builtin.js';
import { readResultTool } from '../tools/read-result.js';
import { ToolRegistry } from '../tools/registry.js';
import type { ResultStore } from '../tools/result-store.js';
import type { ShellHost } from '../tools/shell-host.js';
import { withoutSecrets } from '../platform/child-env.js';
import type { WorktreeJobs } from '../worktrees/worktree-jobs.js';
import type { EventStream } from './event-stream.js';
import type { JobRecords } from './job-records.js';
import type { SessionSetup } from './opened-session.js';
import type { SessionSecrets } from './secrets.js';
import { type SessionCheckpoints, sessionCheckpoints } from './session-checkpoints.js';
import type { SessionPaths } from './store.js';

/**
 * The sandbox as the trust-resolved settings have it: a project file loosens it only in a
 * trusted folder. Probed when a command first needs a fence (unless --debug already did); what
 * the probe finds is said then, as a state event, so a front end that subscribes later still
 * gets it.
 */
export function sessionSandbox(options: {
  settings: Settings;
  flags: Parameters<typeof sandboxConfigFrom>[0]['flags'];
  known: SandboxProbe | undefined;
  workspace: Workspace;
  events: EventStream;
  warnings: string[];
  signal: AbortSignal;
}) {
  const { known, events } = options;
  const sandboxConfig = sandboxConfigFrom({ user: options.settings, flags: options.flags });
  const sandbox: BashSandbox = {
    config: sandboxConfig,
    probe: known
      ? () => Promise.resolve(known)
      : sessionProbe(options.workspace, options.signal, (probe) =>
          sandboxWarnings(sandboxConfig, probe).forEach((text, i) =>
            events.publish({ type: 'notice', level: 'warn', text }, { state: `sandbox-warning-${i}` }),
          ),
        ),
  };
  if (known) options.warnings.push(...sandboxWarnings(sandboxConfig, known));
  return { sandboxConfig, sandbox };
}

/** The provider as settings and flags have it (or the test's), handing over to --fallback-model when overloaded. */
export function sessionStream(
  setup: Pick<SessionSetup, 'stream' | 'fallbackModel'>,
  parts: { providerConfig: ProviderConfig; settings: Settings; events: EventStream },
): StreamFn {
  const { providerConfig, settings, events } = parts;
  const provided =
    setup.stream ??
    createProvider({
      provider: providerConfig.provider,
      apiKey: providerConfig.apiKey,
      baseURL: providerConfig.baseURL,
      maxRetries: providerConfig.maxRetries,
      toolMode: providerConfig.toolMode,
      ...(settings.models ? { models: settings.models } : {}),
      firstByteTimeoutMs: settings.firstByteTimeoutMs,
      idleTimeoutMs: settings.idleTimeoutMs,
      callDeadlineMs: settings.callDeadlineMs,
      ...(settings.openai?.api ? { openaiApi: settings.openai.api } : {}),
      rateLimit: sessionRateLimit(settings, { fallback: setup.fallbackModel !== undefined }),
      // The SDK compiles while the session is put together, not after the first prompt.
      preload: true,
    });
  if (!setup.fallbackModel) return provided;
  const fallback = resolveMainModel(setup.fallbackModel, {
    provider: providerConfig.provider,
    aliases: settings.modelAliases,
    fallback: setup.fallbackModel,
  }).model;
  return withFallbackModel(provided, fallback, (text) => events.publish({ type: 'notice', level: 'warn', text }));
}

/**
 * The provider's rate-limit gate as the session has it: its sub-agents and the parent at once at
 * most (the cap grows back to that after a limit), a call's waits bounded by rateLimitWaitMs, and
 * 529s left to the retries when --fallback-model is to take over from an overloaded model.
 */
export function sessionRateLimit(settings: Settings, options: { fallback: boolean }) {
  const agents = settings.agents?.maxConcurrent ?? SETTINGS_DEFAULTS.agents?.maxConcurrent ?? 4;
  return {
    maxConcurrent: Math.max(1, agents) + 1,
    ...(settings.rateLimitWaitMs !== undefined ? { maxWaitMs: settings.rateLimitWaitMs } : {}),
    overloaded: !options.fallback,
  };
}

/**
 * The queue jobs go to (--queue over agents.queue: the user's, or a trusted folder's), or none.
 * Loaded only then: BullMQ and ioredis stay out of every other start.
 */
export async function sessionQueue(
  setup: Pick<SessionSetup, 'queue' | 'cwd' | 'env'>,
  parts: {
    settings: Settings;
    id: string;
    definitions: Map<string, AgentDefinition>;
    secrets: SessionSecrets;
    worktrees: WorktreeJobs;
    jobRecords: JobRecords;
    events: EventStream;
  },
): Promise<SessionQueue | undefined> {
  const { settings, worktrees, jobRecords, events } = parts;
  const queueSettings = setup.queue || settings.agents?.queue ? { ...settings.agents?.queue, ...setup.queue } : undefined;
  if (!queueSettings?.url) return undefined;
  const { openSessionQueue } = await import('../remote/session-queue.js');
  return openSessionQueue({
    settings: { ...queueSettings, url: queueSettings.url },
    cwd: setup.cwd,
    sessionId: parts.id,
    definitions: () => parts.definitions,
    secrets: [...parts.secrets.values],
    // No mode or sandbox of the session's travels: each worker's own is the ceiling, and a
    // definition's narrower mode goes with its definition.
    env: setup.env,
    notice: (level, text) => events.publish({ type: 'notice', level, text }),
    // A queue job's branch, fetched here, merges like a local worktree job's (agent_merge, /agents merge).
    onBranch: (jobId, { repo, branch, base, changes }) => worktrees.adopt({ jobId, repo, path: '', branch, base, changes }),
    onTranscript: (request, message) => jobRecords.transcriptFor(request.id, request.definition, request.task).append(message),
  });
}

/**
 * The built-in tools of the parent (sub-agents get views of them), and the checkpoints their file
 * edits are kept in for /rewind (in the session's folder): rg and commands never see a credential.
 */
export function sessionTools(
  setup: Pick<SessionSetup, 'env' | 'readText' | 'writeText' | 'runCommand'>,
  parts: {
    settings: Settings;
    sandbox: BashSandbox;
    secrets: SessionSecrets;
    scrub: (text: string) => string;
    results: ResultStore;
    shells: ShellHost | undefined;
    checkpoints: { paths: SessionPaths; workspace: Workspace; events: EventStream };
  },
): { tools: ToolRegistry; checkpoints: SessionCheckpoints } {
  const { settings, sandbox, secrets, scrub, shells } = parts;
  const checkpoints = sessionCheckpoints(parts.checkpoints.paths, parts.checkpoints.workspace, parts.checkpoints.events);
  const builtins = builtinTools({
    webFetch: { maxBytes: settings.webFetchMaxBytes, timeoutMs: settings.webFetchTimeoutMs },
    bash: { sandbox, secrets, scrub, shells, ...(setup.runCommand ? { runner: setup.runCommand } : {}) },
    rgEnv: withoutSecrets(setup.env, secrets, { credentials: true }),
    ...(setup.readText ? { readText: setup.readText } : {}),
    ...(setup.writeText ? { writeText: setup.writeText } : {}),
  });
  return { tools: new ToolRegistry([...checkpoints.track(builtins), readResultTool(parts.results)]), checkpoints };
}
