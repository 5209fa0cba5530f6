/**
 * Anthropic's rule for extended thinking across tool calls: a tool-use loop is one assistant
 * turn, and with thinking enabled (a budget) the turn the history ends in must have begun with
 * a thinking block, or the API answers 400. A history can break it with no fault of the model:
 * a session resumed with `--effort` whose last turn ran without, an effort set or a model
 * switched mid-session, a turn taken over from OpenAI. Such a call goes without thinking (one
 * thinking setting per turn, as the API asks), and the next turn the user starts thinks again.
 * Adaptive thinking is left alone: there the model may itself answer a turn without thinking.
 */
import { anthropicThinking } from './effort.js';
import type { Effort, Message, ModelRequest } from './types.js';

/**
 * The first assistant message of the tool-use loop the history ends in: walking back while the
 * last user message answers calls (a tool result in it, a prompt joined after them or not); none
 * when the history ends in a user message without results, a new turn.
 */
export function openToolTurnStart(messages: readonly Message[]): Message | undefined {
  let start: Message | undefined;
  for (let i = messages.length - 1; i >= 1; i -= 2) {
    const user = messages[i]!;
    const assistant = messages[i - 1]!;
    if (user.role !== 'user' || assistant.role !== 'assistant') break;
    if (!user.content.some((block) => block.type === 'tool_result')) break;
    start = assistant;
  }
  return start;
}

/**
 * The effort an Anthropic call is sent with: the request's, or none when it would enable budget
 * thinking and the open tool-use turn began without a thinking block as sent (`startsWithThinking`
 * judges the message as the backend would put it on the wire).
 */
export function anthropicCallEffort(
  request: Pick<ModelRequest, 'model' | 'effort' | 'maxTokens' | 'messages'>,
  startsWithThinking: (message: Message) => boolean,
): Effort | undefined {
  const { effort } = request;
  if (!effort || anthropicThinking(request.model, effort, request.maxTokens)?.thinking.type !== 'enabled') return effort;
  const start = openToolTurnStart(request.messages);
  return start && !startsWithThinking(start) ? undefined : effort;
}
