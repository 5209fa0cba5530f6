import { type Message, oneLine } from '../../core/index.js';
import { resultSummary } from '../format.js';
import { describeMessage } from './message-lines.js';
import { toolAction } from './tool-text.js';

/**
 * One line of a job's transcript tail, as /agents shows it. A tool call is one line that
 * reads `● read_file src/a.ts …` while it runs and, when its result comes, folds it in:
 * `● read_file src/a.ts ⎿ export function a() (+40 lines)`.
 */
export type TailLine = string | TailCall;

export interface TailCall {
  call: string;
  name: string;
  args: unknown;
  label: string;
  /** The result's first line (and how many follow), `✗ ` first for an error; absent while it runs. */
  outcome?: string;
}

/** Lines of a job's conversation kept for /agents. */
export const TAIL_LINES = 20;

/** The line as shown; paths relative to `root`. */
export function tailText(line: TailLine, root?: string): string {
  if (typeof line === 'string') return line;
  return `● ${toolAction(line.name, line.args, line.label, root)} ${line.outcome === undefined ? '…' : `⎿ ${line.outcome}`}`;
}

/** Folds a call's result into its line; a call whose line already left the tail gets a line of its own. */
export function closeCall(
  tail: readonly TailLine[],
  result: { id: string; name: string; content: string; isError: boolean },
): TailLine[] {
  const outcome = `${result.isError ? '✗ ' : ''}${oneLine(resultSummary(result.content, false))}`;
  const at = tail.findIndex((line) => typeof line !== 'string' && line.call === result.id);
  const open = tail[at];
  if (open === undefined || typeof open === 'string') return [...tail, `● ${result.name} ⎿ ${outcome}`].slice(-TAIL_LINES);
  return [...tail.slice(0, at), { ...open, outcome }, ...tail.slice(at + 1)];
}

const FROM = /^Message from the (user|parent agent):\n/;

/**
 * A message that is not a call or a result: `assistant: <its text>`, `message from you: …`
 * (what `JobManager.send` wrote), `user: Task: …`. Undefined for an assistant message that
 * holds only calls (they have lines of their own).
 */
export function messageLine(message: Message): string | undefined {
  if (message.role === 'assistant') {
    const text = message.content
      .filter((block) => block.type === 'text')
      .map((block) => oneLine(block.text))
      .filter(Boolean)
      .join(' · ');
    return text ? `assistant: ${text}` : undefined;
  }
  const only = message.content.length === 1 ? message.content[0] : undefined;
  const from = only?.type === 'text' ? FROM.exec(only.text) : null;
  if (only?.type === 'text' && from) {
    return `message from ${from[1] === 'user' ? 'you' : 'the parent'}: ${oneLine(only.text.slice(from[0].length))}`;
  }
  return describeMessage(message);
}

/** Whether an injected message is one the user sent (so the job read it). */
export function fromUser(message: Message): boolean {
  const first = message.content[0];
  return first?.type === 'text' && first.text.startsWith('Message from the user:\n');
}

/** The tail of a stored conversation (a resumed session's job): its calls folded as they would have been live. */
export function tailFromMessages(messages: readonly Message[]): TailLine[] {
  let tail: TailLine[] = [];
  for (const message of messages) {
    const results = message.content.filter((block) => block.type === 'tool_result');
    if (message.role === 'user' && results.length > 0 && results.length === message.content.length) {
      for (const result of results) {
        tail = closeCall(tail, {
          id: result.toolUseId,
          name: 'result',
          content: result.content,
          isError: result.isError === true,
        });
      }
      continue;
    }
    const line = messageLine(message);
    if (line !== undefined) tail.push(line);
    for (const block of message.content) {
      if (block.type === 'tool_use') tail.push({ call: block.id, name: block.name, args: block.input, label: '' });
    }
  }
  return tail.slice(-TAIL_LINES);
}
