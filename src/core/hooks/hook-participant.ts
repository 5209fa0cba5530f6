import type { TurnParticipant } from '../loop/turn-participant.js';
import type { Message } from '../providers/types.js';
import type { HookDispatcher } from './dispatcher.js';
import { loopHooks, promptHooks } from './hook-points.js';

/**
 * The user's hooks in the parent's turns: UserPromptSubmit reviews each prompt, a SessionStart
 * hook's context opens the first turn, and PreToolUse, PostToolUse and Stop run in the loop.
 */
export function userHooksParticipant(dispatcher: HookDispatcher, startContext: string | undefined): TurnParticipant {
  let opening: Message | undefined =
    startContext !== undefined
      ? { role: 'user', content: [{ type: 'text', text: `Context from a SessionStart hook:\n${startContext}` }] }
      : undefined;
  return {
    name: 'user hooks',
    reviewPrompt: (prompt, signal, emit) => promptHooks(dispatcher, prompt, signal, emit),
    turnStart: () => {
      const first = opening ? [opening] : [];
      opening = undefined;
      return first;
    },
    userHooks: loopHooks(dispatcher),
  };
}
