import {
  imageSummary,
  isSummaryMessage,
  type Job,
  type Message,
  oneLine,
  type StopCause,
  type ToolResultBlock,
} from '../../core/index.js';
import { causeText, withImages } from '../format.js';
import { completionLine } from './job-status.js';
import { forPeople, toolAction, toolResultView } from './tool-text.js';
import type { EntryBody } from './transcript.js';

/** Earlier messages a resumed session shows at most. */
export const RESUME_SHOWN = 20;

/**
 * A resumed conversation as transcript entries, the last `max` messages: prompts, answers
 * (Markdown), tool calls with their results, completion notices and summaries.
 */
export function historyEntries(
  messages: readonly Message[],
  options: {
    root?: string;
    max?: number;
    jobs?: readonly Job[];
    /** Turns that ended interrupted or failed, after how many messages: their `■` lines come back. */
    ends?: readonly { messageCount: number; cause: StopCause }[];
  } = {},
): EntryBody[] {
  const jobs = new Map((options.jobs ?? []).map((job) => [job.id, job]));
  const max = options.max ?? RESUME_SHOWN;
  const start = Math.max(0, messages.length - max);
  const results = new Map<string, ToolResultBlock>();
  for (const message of messages) {
    for (const block of message.content) if (block.type === 'tool_result') results.set(block.toolUseId, block);
  }
  const entries: EntryBody[] = [];
  if (start > 0) entries.push({ kind: 'info', text: `${start} earlier messages not shown` });
  const endsAfter = (count: number) => {
    for (const end of options.ends ?? []) {
      const text = end.messageCount === count ? causeText(end.cause) : undefined;
      if (text) entries.push({ kind: 'end', text, isError: end.cause.kind !== 'aborted' });
    }
  };
  for (let index = start; index < messages.length; index += 1) {
    if (index > start) endsAfter(index);
    const message = messages[index]!;
    if (isSummaryMessage(message)) {
      entries.push({ kind: 'info', text: 'earlier conversation summarized (compaction)' });
      continue;
    }
    if (message.noticeFor?.length) {
      // Drawn as it was live: the jobs' ends, and the turn they woke when no prompt came with them.
      const ids = message.noticeFor;
      const ended = ids.map((id) => jobs.get(id)).filter((job): job is Job => job?.state === 'done' || job?.state === 'error');
      if (ended.length)
        entries.push({ kind: 'jobs', ids: ended.map((job) => job.id), lines: ended.map(completionLine), idle: false });
      else entries.push({ kind: 'injected', text: oneLine(forPeople(textOf(message)), 200) });
      // The model answering the notice itself (no prompt of the user's between): the notice woke it.
      if (messages[index + 1]?.role === 'assistant') entries.push({ kind: 'wake', ids: [...ids] });
      continue;
    }
    if (message.role === 'user') {
      const text = withImages(
        textOf(message),
        message.content.flatMap((b) => (b.type === 'image' ? [imageSummary(b)] : [])),
      );
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
        job: (id) => jobs.get(id),
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
  endsAfter(messages.length);
  return entries;
}

function textOf(message: Message): string {
  return message.content
    .filter((block) => block.type === 'text')
    .map((block) => block.text)
    .join('');
}
