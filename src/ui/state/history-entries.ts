import { isSummaryMessage, type Message, oneLine, type ToolResultBlock } from '../../core/index.js';
import { toolAction, toolResultView } from './tool-text.js';
import type { EntryBody } from './transcript.js';

/** Earlier messages a resumed session shows at most. */
export const RESUME_SHOWN = 20;

/**
 * A resumed conversation as transcript entries, the last `max` messages: prompts, answers
 * (Markdown), tool calls with their results, completion notices and summaries.
 */
export function historyEntries(messages: readonly Message[], options: { root?: string; max?: number } = {}): EntryBody[] {
  const max = options.max ?? RESUME_SHOWN;
  const start = Math.max(0, messages.length - max);
  const results = new Map<string, ToolResultBlock>();
  for (const message of messages) {
    for (const block of message.content) if (block.type === 'tool_result') results.set(block.toolUseId, block);
  }
  const entries: EntryBody[] = [];
  if (start > 0) entries.push({ kind: 'info', text: `${start} earlier messages not shown` });
  for (const message of messages.slice(start)) {
    if (isSummaryMessage(message)) {
      entries.push({ kind: 'info', text: 'earlier conversation summarized (compaction)' });
      continue;
    }
    if (message.noticeFor?.length) {
      entries.push({ kind: 'injected', text: oneLine(textOf(message), 200) });
      continue;
    }
    if (message.role === 'user') {
      const text = textOf(message);
      if (text.trim()) entries.push({ kind: 'user', text });
      continue;
    }
    const text = textOf(message);
    if (text.trim()) entries.push({ kind: 'assistant', text });
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      const result = results.get(block.id);
      const view = toolResultView({
        name: block.name,
        args: block.input,
        content: result?.content ?? '(no result)',
        isError: result?.isError ?? false,
      });
      const label =
        Object.values((block.input ?? {}) as Record<string, unknown>).find((v): v is string => typeof v === 'string') ?? '';
      entries.push({
        kind: 'tool',
        name: block.name,
        action: toolAction(block.name, block.input, label, options.root),
        isError: result?.isError ?? false,
        ...view,
      });
    }
  }
  return entries;
}

function textOf(message: Message): string {
  return message.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}
