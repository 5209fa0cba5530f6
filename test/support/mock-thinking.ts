/**
 * The Messages API's check on extended thinking across tool calls, as the mock provider applies
 * it: with `thinking: {type: "enabled"}`, the assistant turn the history ends in (a tool-use loop:
 * assistant messages answered by user messages holding tool results) must begin with a thinking
 * block. The real API answers 400 otherwise, with the message below.
 */

type WireRecord = Record<string, unknown>;

const blocksOf = (message: WireRecord): WireRecord[] =>
  Array.isArray(message.content) ? (message.content as WireRecord[]) : [{ type: 'text', text: message.content }];

const answersCalls = (message: WireRecord) => blocksOf(message).some((block) => block.type === 'tool_result');

/** The API's message for a request the rule refuses, or undefined when it holds (or thinking is not enabled). */
export function thinkingTurnError(body: unknown): string | undefined {
  const { thinking, messages } = (body ?? {}) as { thinking?: { type?: unknown }; messages?: unknown };
  if (thinking?.type !== 'enabled' || !Array.isArray(messages)) return undefined;
  let start: number | undefined;
  for (let i = messages.length - 1; i >= 1; i -= 2) {
    const user = messages[i] as WireRecord;
    const assistant = messages[i - 1] as WireRecord;
    if (user.role !== 'user' || assistant.role !== 'assistant' || !answersCalls(user)) break;
    start = i - 1;
  }
  if (start === undefined) return undefined;
  const found = String(blocksOf(messages[start] as WireRecord)[0]?.type);
  if (found === 'thinking' || found === 'redacted_thinking') return undefined;
  return (
    `messages.${start}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${found}\`. ` +
    'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost ' +
    'set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid ' +
    'this requirement, disable `thinking`. Please consult our documentation at ' +
    'https://docs.claude.com/en/docs/build-with-claude/extended-thinking'
  );
}
