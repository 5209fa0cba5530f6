/**
 * The user's hooks and the permission gate of a session: hooks (a project's only in a trusted
 * folder) run without the provider key, the Agent SDK's join them, and the gate judges every
 * call by the mode, the permission rules and the user's answers. The status lines' commands
 * are the user's too, and run as hooks do.
 */
import path from 'node:path';
import { concatHooks } from '../hooks/hook-settings.js';
import type { Settings } from '../config/settings.js';
import { HookDispatcher } from '../hooks/dispatcher.js';
import { compileHooks } from '../hooks/matcher.js';
import { notifyHeadless, notifyingApprover } from '../hooks/notifying-approver.js';
import { statusCommands } from '../hooks/status-command.js';
import { ApprovalGate } from '../permissions/approvals.js';
import { PermissionRules } from '../permissions/rule-match.js';
import type { PermissionMode } from '../permissions/types.js';
import { withoutSecrets } from '../platform/child-env.js';
import type { Workspace } from '../platform/paths.js';
import type { EventStream } from './event-stream.js';
import type { SessionSetup } from './opened-session.js';
import type { SessionSecrets } from './secrets.js';
import type { SessionPaths } from './store.js';

export function sessionGate(
  setup: SessionSetup,
  options: {
    settings: Settings;
    id: string;
    paths: SessionPaths;
    workspace: Workspace;
    secrets: SessionSecrets;
    scrub: (text: string) => string;
    events: EventStream;
    warnings: string[];
    /** Ends what outlives a turn (Notification hooks started while asking). */
    signal: AbortSignal;
  },
) {
  const { settings, id, paths, workspace, secrets, scrub, events, warnings } = options;
  // The user's hooks (project hooks only in a trusted folder): their commands never see the provider key.
  // The Agent SDK's hooks (its `initialize`) join yours; the SDK runs them through `hookCallback`.
  const compiledHooks = setup.sdkHooks
    ? compileHooks(concatHooks([settings.hooks, setup.sdkHooks]), { callbacks: setup.hookCallback !== undefined })
    : compileHooks(settings.hooks);
  warnings.push(...compiledHooks.warnings);
  const env = withoutSecrets(setup.env, secrets, { credentials: false });
  const hooks = new HookDispatcher({
    table: compiledHooks.table,
    cwd: setup.cwd,
    env,
    sessionId: id,
    transcriptPath: paths.transcript,
    permissionMode: () => gate.mode,
    scrub,
    ...(setup.spawnHook ? { spawn: setup.spawnHook } : {}),
    ...(setup.hookCallback ? { callback: setup.hookCallback } : {}),
  });
  const approver = notifyingApprover(setup.approver, hooks, options.signal, (event) => events.publish(event));
  // Permission rules (settings, Claude Code's files, --allowedTools/--disallowedTools), paths read from the project's root.
  const rules = new PermissionRules(settings.permissions ?? {}, {
    roots: [path.resolve(setup.cwd), workspace.root],
    home: setup.env.HOME || undefined,
  });
  warnings.push(...rules.warnings);
  const gate: ApprovalGate = new ApprovalGate({
    mode: permissionMode(settings),
    approver,
    headless: setup.headless,
    rules,
    // Headless has no approver to wrap: the Notification hooks hear of each question here.
    ...(setup.headless && hooks.has('Notification')
      ? {
          onAsk: (request: { toolName: string; jobId?: string }) =>
            notifyHeadless(hooks, request, options.signal, (event) => events.publish(event)),
        }
      : {}),
  });
  // statusLine and subagentStatusLine (a project's only in a trusted folder): the TUI runs them.
  const statusLine = statusCommands(settings, { cwd: setup.cwd, env, ...(setup.spawnHook ? { spawn: setup.spawnHook } : {}) });
  return { hooks, approver, gate, statusLine };
}

function permissionMode(settings: Settings): PermissionMode {
  return settings.permissionMode ?? 'default';
}
