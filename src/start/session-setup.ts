import { AgentsFlagError } from '../core/agents/cli-agents.js';
import { ConfigError } from '../core/config/provider-config.js';
import type { SettingSource } from '../core/config/claude-settings.js';
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
  const mode = options.yolo || options.dangerouslySkipPermissions ? 'yolo' : permissionModeOf(options.permissionMode);
  const allow = options.allowedTools ?? [];
  const deny = options.disallowedTools ?? [];
  const permissions = { ...(allow.length ? { allow } : {}), ...(deny.length ? { deny } : {}) };
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
    ...(options.settingSources ? { settingSources: options.settingSources as SettingSource[] } : {}),
    ...(options.settings !== undefined ? { settingsArg: options.settings } : {}),
    ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
    ...(options.appendSystemPrompt !== undefined ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
    ...(options.sessionId ? { sessionId: options.sessionId } : {}),
    ...(options.fallbackModel ? { fallbackModel: options.fallbackModel } : {}),
    ...(options.strictMcpConfig ? { strictMcpConfig: true } : {}),
    flags: {
      ...(options.provider ? { provider: options.provider as 'anthropic' | 'openai' } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
      ...(options.toolMode ? { toolMode: options.toolMode as 'native' | 'text' } : {}),
      ...(options.effort ? { effort: options.effort as 'low' | 'medium' | 'high' | 'max' } : {}),
      ...(mode ? { permissionMode: mode as 'default' | 'accept-edits' | 'plan' | 'yolo' } : {}),
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      ...(options.addDir?.length ? { addDirs: options.addDir } : {}),
      ...(Object.keys(agents).length ? { agents } : {}),
      ...(options.sandbox ? { sandbox: options.sandbox as 'read-only' | 'workspace-write' | 'off' } : {}),
      ...(Object.keys(permissions).length ? { permissions } : {}),
      ...(options.continue ? { continue: true } : {}),
      ...(typeof options.resume === 'string' ? { resume: options.resume } : {}),
    },
    ...(options.sandboxProbe ? { sandboxProbe: options.sandboxProbe } : {}),
  };
}

/** Claude Code's permission modes in outrider's words (`bypassPermissions` is yolo). */
const CLAUDE_MODES: Readonly<Record<string, 'default' | 'accept-edits' | 'plan' | 'yolo'>> = {
  acceptEdits: 'accept-edits',
  bypassPermissions: 'yolo',
};

function permissionModeOf(mode: string | undefined): string | undefined {
  return mode !== undefined && Object.hasOwn(CLAUDE_MODES, mode) ? CLAUDE_MODES[mode] : mode;
}

/** Flags taken from Claude Code's command line that outrider does not honour, as one warning (undefined: none). */
export function unhonouredFlags(options: CliOptions): string | undefined {
  const named = [
    options.maxThinkingTokens !== undefined && '--max-thinking-tokens',
    options.betas !== undefined && '--betas',
    options.jsonSchema !== undefined && '--json-schema',
    options.tools !== undefined && '--tools',
    options.agent !== undefined && '--agent',
    options.pluginDir !== undefined && '--plugin-dir',
    options.forkSession && '--fork-session',
    options.includeHookEvents && '--include-hook-events',
    options.sessionPersistence === false && '--no-session-persistence',
  ].filter((flag): flag is string => typeof flag === 'string');
  return named.length
    ? `outrider does not honour ${named.join(', ')} (accepted for Claude Code's command line; see docs/claude-code.md)`
    : undefined;
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
