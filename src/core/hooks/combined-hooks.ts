import type { BeforeToolAnswer, LoopHooks, StopAnswer } from '../loop/loop-hooks.js';

/**
 * The session's hooks and a job's own (its agent file's `hooks`) as one set for the job's loop.
 * The session's run first; a block or a stop from either holds, so a job's hooks can refuse
 * more but never let through what the session's refuse. An `ask` from either wins over an
 * `allow`. What both say after a call, and at the job's end, is put together.
 */
export function combinedHooks(session: LoopHooks | undefined, job: LoopHooks | undefined): LoopHooks | undefined {
  if (!job) return session;
  if (!session) return job;
  return {
    async beforeTool(call, signal, emit) {
      const first = (await session.beforeTool?.(call, signal, emit)) ?? {};
      if (first.stop !== undefined || first.block !== undefined) return first;
      const second = (await job.beforeTool?.(call, signal, emit)) ?? {};
      if (second.stop !== undefined || second.block !== undefined) return second;
      return permissionOf(first, second);
    },
    async afterTool(call, result, signal, emit) {
      const first = (await session.afterTool?.(call, result, signal, emit)) ?? {};
      const second = (await job.afterTool?.(call, result, signal, emit)) ?? {};
      const feedback = [first.feedback, second.feedback].filter((text) => text !== undefined);
      const stop = first.stop ?? second.stop;
      return { ...(feedback.length ? { feedback: feedback.join('\n\n') } : {}), ...(stop !== undefined ? { stop } : {}) };
    },
    async onStop(state, signal, emit) {
      const first: StopAnswer = (await session.onStop?.(state, signal, emit)) ?? {};
      if (first.stop !== undefined) return first;
      const second: StopAnswer = (await job.onStop?.(state, signal, emit)) ?? {};
      if (second.stop !== undefined) return second;
      const more = [first.continueWith, second.continueWith].filter((text) => text !== undefined);
      return more.length ? { continueWith: more.join('\n\n') } : {};
    },
  };
}

function permissionOf(first: BeforeToolAnswer, second: BeforeToolAnswer): BeforeToolAnswer {
  const answers = [first.permission, second.permission].filter((p) => p !== undefined);
  const permission = answers.find((p) => p.decision === 'ask') ?? answers[0];
  return permission ? { permission } : {};
}
