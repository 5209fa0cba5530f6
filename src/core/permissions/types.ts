import type { AnyTool, ToolKind } from '../tools/define.js';
import type { ResolvedPath } from '../platform/paths.js';

/** How much the agent may do without asking. */
export type PermissionMode = 'default' | 'accept-edits' | 'plan' | 'yolo';

export const PERMISSION_MODES: readonly PermissionMode[] = ['default', 'accept-edits', 'plan', 'yolo'];

/** The policy's verdict on one tool call, with a reason a user or model can read. */
export interface Decision {
  decision: 'allow' | 'ask' | 'deny';
  reason: string;
  /** On an allow that rests on judging a command read-only: the tool must back it with its sandbox. */
  sandbox?: 'read-only';
  /** On an ask: an earlier "allow always" does not cover this call, and this answer is not remembered. */
  askEveryTime?: true;
}

/** One tool call as the policy sees it: paths already resolved (symlinks followed). */
export interface PermissionRequest {
  toolName: string;
  kind: ToolKind;
  args: unknown;
  paths: ResolvedPath[];
}

/** What the user is asked to approve. `jobId` is set when a sub-agent asks. */
export interface ApprovalRequest {
  toolName: string;
  label: string;
  args: unknown;
  reason: string;
  jobId?: string;
  /** The model's id for the call, when a tool call asks (an editor ties the question to the call it shows). */
  callId?: string;
}

/** A question for a program that answers for the user (`--permission-prompt-tool stdio`: the SDK's canUseTool). */
export type PermissionPromptRequest = ApprovalRequest;

/** A program's answer: allow (with the arguments it may have changed) or deny (with why, and whether to stop the turn). */
export type PermissionPromptAnswer =
  { behavior: 'allow'; updatedInput?: unknown } | { behavior: 'deny'; message?: string; interrupt?: boolean };

/** Asks a program instead of a person. */
export type PermissionPrompt = (request: PermissionPromptRequest, signal: AbortSignal) => Promise<PermissionPromptAnswer>;

/** The user's answer: once, for the rest of the session, or no. */
export type ApprovalAnswer = 'allow' | 'allow-always' | 'deny';

/** Injected by the front end; headless mode without one denies. */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;

/**
 * Asks whether one call may run; the session wires this to the permission policy. An allow
 * with `sandbox` reaches the tool as `ToolContext.sandbox`.
 */
export type ToolGate = (
  call: { tool: AnyTool; args: unknown; label: string; hook?: HookPermissionHint; id?: string },
  signal: AbortSignal,
) => Promise<
  /** `args`: the arguments a permission prompt changed (validated again before the call runs). */
  { allowed: true; sandbox?: 'read-only'; args?: unknown } | { allowed: false; message: string }
>;

/** A PreToolUse hook's `allow` or `ask` for one call (its `deny` never reaches the gate: the call is refused first). */
export interface HookPermissionHint {
  decision: 'allow' | 'ask';
  reason: string;
}
