import type { ToolGate } from '../loop/tool-runner.js';
import { ApprovalGate } from '../permissions/approvals.js';
import { withHookHint } from '../permissions/hook-decision.js';
import { decide } from '../permissions/policy.js';
import { toolGate } from '../permissions/tool-gate.js';
import type { Approver, PermissionMode } from '../permissions/types.js';
import type { Workspace } from '../tools/define.js';
import { resolveWorkspacePath } from '../platform/paths.js';
import type { AgentDefinition } from './agent-definition.js';

/** Permission modes from the narrowest to the widest. */
const MODE_ORDER: readonly PermissionMode[] = ['plan', 'default', 'accept-edits', 'yolo'];

/** The narrower of two modes. */
export function narrowerMode(a: PermissionMode, b: PermissionMode): PermissionMode {
  return MODE_ORDER.indexOf(a) <= MODE_ORDER.indexOf(b) ? a : b;
}

export interface ChildGateOptions {
  /** The session's gate: its mode (which the user may change mid-session) and its "allow always" answers. */
  session: ApprovalGate;
  workspace: Workspace;
  jobId: string;
  definition: Pick<AgentDefinition, 'name' | 'permissions'>;
  /** The session's approver, for a narrowed call that must still ask; absent headless. */
  approver?: Approver;
  headless: boolean;
}

/**
 * The gate a child's tool calls pass. Without `permissions` it is the session's own gate,
 * labelled with the job id. With them, each call is judged in the narrower of the
 * definition's mode and the session's mode at that moment: an agent file can take rights
 * away (`plan`, `dontAsk`), never add any (`bypassPermissions` under `default` is `default`).
 *
 * When the definition's mode is the narrower one, the policy is applied here: an allow
 * keeps its read-only sandbox (a yolo session would drop it), a denial says the definition
 * is the limit (no flag lifts it), and an ask goes to the user through a gate of the job's
 * own, so a yolo session still asks before an `acceptEdits` agent runs a command.
 */
export function childGate(options: ChildGateOptions): ToolGate {
  const { session, workspace, jobId, definition } = options;
  const sessionView = toolGate(session, workspace, jobId);
  const permissions = definition.permissions;
  if (!permissions) return sessionView;
  const asker = new ApprovalGate({ mode: permissions.mode, approver: options.approver, headless: options.headless });
  const askerView = toolGate(asker, workspace, jobId);
  const limit = `${definition.name}'s definition sets permissionMode: ${permissions.asWritten}`;

  return async (call, signal) => {
    const mode = narrowerMode(permissions.mode, session.mode);
    const narrowed = mode !== session.mode;
    if (!narrowed && permissions.ask) return sessionView(call, signal);
    const { tool, args } = call;
    const paths = (tool.paths?.(args) ?? []).map((p) => resolveWorkspacePath(workspace, p));
    const request = { toolName: tool.name, kind: tool.kind, args, paths };
    // Under the definition's limit a hook may only narrow: its ask counts, its allow does not.
    const hook = call.hook?.decision === 'ask' ? call.hook : undefined;
    // The session's rules hold here too: a deny rule refuses, an ask rule asks, an allow rule answers an ask.
    const decision = withHookHint(session.withRules(decide(mode, request), request), hook);
    if (decision.decision === 'allow') return decision.sandbox ? { allowed: true, sandbox: decision.sandbox } : { allowed: true };
    if (decision.decision === 'deny') {
      // Denied in the session's own mode too (a path outside the workspace): that reason is the one to fix.
      const own = narrowed ? decide(session.mode, request) : decision;
      return { allowed: false, message: own.decision === 'deny' ? own.reason : `${tool.name} is not allowed here: ${limit}.` };
    }
    if (!permissions.ask) {
      return {
        allowed: false,
        message: `${tool.name} needs approval (${decision.reason}), and ${limit}: it runs only what needs no asking.`,
      };
    }
    if (!options.approver || options.headless) {
      return {
        allowed: false,
        message: `${tool.name} needs approval (${decision.reason}); there is no one to ask, and ${limit}.`,
      };
    }
    asker.setMode(mode);
    const { hook: _hook, ...plain } = call;
    return askerView(hook ? { ...plain, hook } : plain, signal);
  };
}
