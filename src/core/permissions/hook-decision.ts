import type { Decision, HookPermissionHint } from './types.js';

export type { HookPermissionHint };

/**
 * The policy's decision with a hook's word on it. A hook is the user's own command (or a
 * trusted folder's), so its `allow` counts like an entry of `permissions.allow`: it answers
 * an ordinary ask in advance, and nothing more. What the policy denies stays denied (plan
 * mode, paths outside the workspace); what asks every time still asks (writing `.git/`,
 * `.outrider/`, `.claude/`); an allow keeps its read-only sandbox. An `ask` makes even an
 * allowed call ask, every time. Pure.
 */
export function withHookHint(decision: Decision, hint: HookPermissionHint | undefined): Decision {
  if (!hint || decision.decision === 'deny') return decision;
  if (hint.decision === 'ask') {
    const reason = `a PreToolUse hook asks: ${hint.reason}`;
    return decision.decision === 'ask'
      ? { ...decision, reason: `${decision.reason}; ${reason}` }
      : { decision: 'ask', reason, askEveryTime: true };
  }
  if (decision.decision === 'ask' && !decision.askEveryTime) {
    return { decision: 'allow', reason: `allowed by a PreToolUse hook: ${hint.reason}` };
  }
  return decision;
}
