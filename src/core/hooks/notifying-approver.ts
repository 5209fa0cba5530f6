import type { LoopEvent } from '../loop/events.js';
import type { Approver } from '../permissions/types.js';
import type { HookDispatcher } from './dispatcher.js';
import { notificationHooks } from './hook-points.js';

/** The approver, firing Notification hooks each time the agent waits for an answer (they run beside it, never delaying it). */
export function notifyingApprover(
  approver: Approver | undefined,
  hooks: HookDispatcher,
  signal: AbortSignal,
  emit: (event: LoopEvent) => void,
): Approver | undefined {
  if (!approver || !hooks.has('Notification')) return approver;
  return (request, answerSignal) => {
    notifyHeadless(hooks, request, signal, emit);
    return approver(request, answerSignal);
  };
}

/** Fires the Notification hooks for one question (beside it: never delaying the answer). */
export function notifyHeadless(
  hooks: HookDispatcher,
  request: { toolName: string; jobId?: string },
  signal: AbortSignal,
  emit: (event: LoopEvent) => void,
): void {
  const message = `outrider needs your permission to use ${request.toolName}${request.jobId ? ` (${request.jobId})` : ''}`;
  notificationHooks(hooks, { message, type: 'permission_prompt' }, signal, emit).catch(() => {});
}
