import { AgentsFlagError } from '../core/agents/cli-agents.js';
import { ConfigError } from '../core/config/provider-config.js';
import { SettingsError } from '../core/config/settings.js';
import type { SessionSetup } from '../core/session/opened-session.js';
import { SessionLookupError } from '../core/session/store.js';
import type { CliOptions } from './options.js';

/** Maps command-line options onto a session setup: flags are the top settings layer. */
export function sessionSetupFromCli(
  options: CliOptions,
  context: { env: NodeJS.ProcessEnv; cwd: string; headless: boolean },
): SessionSetup {
  const agents = {
    ...(options.maxAgents !== undefined ? { maxConcurrent: options.maxAgents } : {}),
    ...(options.maxBudgetTokens !== undefined ? { maxSessionTokens: options.maxBudgetTokens } : {}),
    ...(options.maxBudgetUsd !== undefined ? { maxSessionCostUsd: options.maxBudgetUsd } : {}),
  };
  const mode = options.yolo ? 'yolo' : options.permissionMode;
  return {
    cwd: context.cwd,
    env: context.env,
    headless: context.headless,
    ...(options.trust ? { trustProject: true } : {}),
    ...(options.agents !== undefined ? { agentsJson: options.agents } : {}),
    ...(options.mcpConfig?.length ? { mcpConfig: options.mcpConfig } : {}),
    ...(options.queue
      ? {
          queue: {
            url: options.queue,
            ...(options.queueRemote ? { remote: options.queueRemote } : {}),
            ...(options.queueNamespace ? { namespace: options.queueNamespace } : {}),
          },
        }
      : {}),
    flags: {
      ...(options.provider ? { provider: options.provider as 'anthropic' | 'openai' } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
      ...(options.toolMode ? { toolMode: options.toolMode as 'native' | 'text' } : {}),
      ...(mode ? { permissionMode: mode as 'default' | 'accept-edits' | 'plan' | 'yolo' } : {}),
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      ...(options.addDir?.length ? { addDirs: options.addDir } : {}),
      ...(Object.keys(agents).length ? { agents } : {}),
      ...(options.sandbox ? { sandbox: options.sandbox as 'read-only' | 'workspace-write' | 'off' } : {}),
      ...(options.continue ? { continue: true } : {}),
      ...(typeof options.resume === 'string' ? { resume: options.resume } : {}),
    },
    ...(options.sandboxProbe ? { sandboxProbe: options.sandboxProbe } : {}),
  };
}

/** One line for an error met before the session could start; a stack only with --debug. */
export function describeStartupError(error: unknown, debug = false): string {
  const known =
    error instanceof ConfigError ||
    error instanceof SettingsError ||
    error instanceof SessionLookupError ||
    error instanceof AgentsFlagError;
  const message = error instanceof Error ? error.message : String(error);
  if (debug && error instanceof Error && error.stack && !known) return error.stack;
  return message;
}
