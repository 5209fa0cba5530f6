import type { ToolGate } from './types.js';
import type { Workspace } from '../tools/define.js';
import { resolveWorkspacePath } from '../platform/paths.js';
import type { ApprovalGate } from './approvals.js';

/** The loop's view of the session's approval gate; `jobId` labels a sub-agent's requests. */
export function toolGate(gate: ApprovalGate, workspace: Workspace, jobId?: string): ToolGate {
  return async ({ tool, args, label, hook, id }, signal) => {
    const paths = (tool.paths?.(args) ?? []).map((p) => resolveWorkspacePath(workspace, p));
    try {
      return await gate.check(
        {
          toolName: tool.name,
          kind: tool.kind,
          args,
          paths,
          label,
          ...(jobId ? { jobId } : {}),
          ...(hook ? { hook } : {}),
          ...(id ? { callId: id } : {}),
        },
        signal,
      );
    } catch (error) {
      if (signal.aborted) return { allowed: false, message: `${tool.name} was not run: the turn was interrupted` };
      throw error;
    }
  };
}
