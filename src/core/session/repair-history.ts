import type { Message, ToolResultBlock } from '../providers/types.js';

/** The result a tool call gets when the program stopped before it finished. */
export const LOST_RESULT = 'Interrupted: outrider stopped before this tool finished; its result is unknown. Check the state before relying on it.';

/**
 * Makes a resumed history valid for the next request: every tool call must be answered
 * by a result in the message that follows it. A crash mid-tool leaves calls without
 * results; they get one saying so. Returns the history and how many calls were repaired.
 */
export function answerDanglingToolCalls(history: readonly Message[]): { history: Message[]; repaired: number } {
  const out: Message[] = [];
  let repaired = 0;
  for (let i = 0; i < history.length; i += 1) {
    const message = history[i]!;
    out.push(message);
    if (message.role !== 'assistant') continue;
    const calls = message.content.filter((b) => b.type === 'tool_use');
    if (calls.length === 0) continue;
    const next = history[i + 1];
    const answered = new Set(
      next?.role === 'user' ? next.content.filter((b): b is ToolResultBlock => b.type === 'tool_result').map((b) => b.toolUseId) : [],
    );
    const missing: ToolResultBlock[] = calls
      .filter((call) => !answered.has((call as { id: string }).id))
      .map((call) => ({ type: 'tool_result', toolUseId: (call as { id: string }).id, content: LOST_RESULT, isError: true }));
    if (missing.length === 0) continue;
    repaired += missing.length;
    if (next?.role === 'user' && answered.size > 0) {
      // Results go first in their message; the missing ones join the answered ones.
      out.push({ ...next, content: [...next.content.filter((b) => b.type === 'tool_result'), ...missing, ...next.content.filter((b) => b.type !== 'tool_result')] });
      i += 1;
    } else {
      out.push({ role: 'user', content: missing });
    }
  }
  return { history: out, repaired };
}
