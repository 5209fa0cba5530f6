/**
 * A transcript read back is data, not a history: a crash, a hand edit or another outrider
 * may have left anything in it. `repairHistory` turns it into a history every provider
 * accepts before the first request: messages with a known role and a list of valid blocks
 * (normalize.ts), tool call ids valid and unique, every call answered by a result in the
 * message right after it, and no result without its call.
 *
 * Two messages of one role in a row stay apart in the history (a prompt after a turn that a
 * crash, `kill -9` or an error left unanswered, a sub-agent notice before a prompt, a compaction
 * summary before the turns it kept): a compaction record counts the messages it kept, and a
 * resume replays that count over the transcript's messages as written, so the history keeps
 * them one for one. `alternateRoles` joins them in what each request sends instead.
 */
import { type DraftBlock, type DraftToolResult, type DraftToolUse, ToolIds, draftBlock } from '../providers/normalize.js';
import {
  type ContentBlock,
  type ImageBlock,
  INVALID_TOOL_NAME,
  type Message,
  type TextBlock,
  type ThinkingBlock,
  type ToolResultBlock,
} from '../providers/types.js';

/** The result a tool call gets when the program stopped before it finished. */
export const LOST_RESULT =
  'Interrupted: outrider stopped before this tool finished; its result is unknown. Check the state before relying on it.';

/** A valid history and one line per kind of repair, for the user. */
export interface RepairedHistory {
  history: Message[];
  warnings: string[];
}

/** A message whose blocks are valid and where they belong; ids not settled yet. */
type DraftMessage = { noticeFor?: string[] } & (
  | { role: 'assistant'; content: (TextBlock | ThinkingBlock | DraftToolUse)[] }
  | { role: 'user'; content: (TextBlock | ImageBlock | DraftToolResult)[] }
);

type AssistantBlock = TextBlock | ThinkingBlock | DraftToolUse;
type UserBlock = TextBlock | ImageBlock | DraftToolResult;
// Results and images belong to the user; thinking is the model's own.
const inAssistant = (block: DraftBlock): block is AssistantBlock => block.type !== 'tool_result' && block.type !== 'image';
const inUser = (block: DraftBlock): block is UserBlock =>
  block.type === 'text' || block.type === 'image' || block.type === 'tool_result';

/** What was wrong, counted, so the user reads one line instead of one per block. */
interface Repairs {
  unreadable: number;
  roles: Map<string, number>;
  textContent: number;
  blocks: number;
  empty: number;
  ids: number;
  names: number;
  orphans: number;
  lost: number;
  opening: boolean;
}

/** The user message put before a history that starts with the model's. */
export const OPENING_LOST = '(The start of this conversation could not be read back from its transcript.)';

/** Makes `raw` (messages as a transcript holds them) a valid history; a valid one comes back unchanged. */
export function repairHistory(raw: readonly unknown[]): RepairedHistory {
  const repairs: Repairs = {
    unreadable: 0,
    roles: new Map(),
    textContent: 0,
    blocks: 0,
    empty: 0,
    ids: 0,
    names: 0,
    orphans: 0,
    lost: 0,
    opening: false,
  };
  const drafts = raw.flatMap((message) => draftMessage(message, repairs) ?? []);
  const history = pairToolCalls(drafts, repairs);
  // A conversation opens with the user; Anthropic refuses one that opens with the model.
  if (history[0]?.role === 'assistant') {
    history.unshift({ role: 'user', content: [{ type: 'text', text: OPENING_LOST }] });
    repairs.opening = true;
  }
  return { history, warnings: describe(repairs) };
}

/** One message as written, checked: its role, its content as a list of valid blocks. */
function draftMessage(raw: unknown, repairs: Repairs): DraftMessage | undefined {
  if (typeof raw !== 'object' || raw === null) {
    repairs.unreadable++;
    return undefined;
  }
  const { role, content, noticeFor } = raw as Record<string, unknown>;
  if (role !== 'user' && role !== 'assistant') {
    const name = typeof role === 'string' ? `"${role}"` : 'no role';
    repairs.roles.set(name, (repairs.roles.get(name) ?? 0) + 1);
    return undefined;
  }
  let items: unknown[];
  if (Array.isArray(content)) items = content;
  else if (typeof content === 'string') {
    items = [{ type: 'text', text: content }];
    repairs.textContent++;
  } else {
    repairs.unreadable++;
    return undefined;
  }
  const blocks: DraftBlock[] = [];
  for (const item of items) {
    const block = draftBlock(item);
    if (!block) continue;
    if (block.type === 'tool_use' && block.name !== (item as { name?: unknown }).name) repairs.names++;
    blocks.push(block);
  }
  const notice =
    Array.isArray(noticeFor) && noticeFor.every((id) => typeof id === 'string') ? { noticeFor: noticeFor as string[] } : {};
  // Results and images belong to the user, calls and thinking to the assistant.
  const draft: DraftMessage =
    role === 'assistant'
      ? { role, content: blocks.filter(inAssistant), ...notice }
      : { role, content: blocks.filter(inUser), ...notice };
  repairs.blocks += items.length - draft.content.length;
  return draft;
}

/** Calls are paired with results by the id they named: the k-th result naming X answers the k-th call named X. */
function pairingKey(rawId: unknown): string {
  return typeof rawId === 'string' || typeof rawId === 'number' ? `id:${rawId}` : 'no id';
}

/**
 * Gives every call a valid unique id and the results after it the same ids; results go first
 * in their message, in call order; a call without a result gets LOST_RESULT; a result
 * without a call in the message before it is dropped, and so is a message left empty.
 */
function pairToolCalls(drafts: DraftMessage[], repairs: Repairs): Message[] {
  const ids = new ToolIds();
  const out: Message[] = [];
  const push = (message: Message) => {
    if (message.content.length > 0) out.push(message);
    else repairs.empty++;
  };
  for (let i = 0; i < drafts.length; i++) {
    const message = drafts[i]!;
    const extra = message.noticeFor ? { noticeFor: message.noticeFor } : {};
    if (message.role === 'user') {
      const kept = message.content.filter((b): b is TextBlock | ImageBlock => b.type !== 'tool_result');
      repairs.orphans += message.content.length - kept.length;
      push({ role: 'user', content: kept, ...extra });
      continue;
    }

    const calls: { key: string; id: string }[] = [];
    const content = message.content.map((block): ContentBlock => {
      if (block.type !== 'tool_use') return block;
      const id = ids.assign(block.rawId);
      if (id !== block.rawId) repairs.ids++;
      calls.push({ key: pairingKey(block.rawId), id });
      return { type: 'tool_use', id, name: block.name, input: block.input };
    });
    push({ role: 'assistant', content, ...extra });
    if (calls.length === 0) continue;

    const following = drafts[i + 1];
    const next = following?.role === 'user' ? following : undefined;
    if (next) i++;
    const waiting = new Map<string, string[]>();
    for (const call of calls) waiting.set(call.key, [...(waiting.get(call.key) ?? []), call.id]);
    const answers = new Map<string, ToolResultBlock>();
    const rest: ContentBlock[] = [];
    for (const block of next?.content ?? []) {
      if (block.type !== 'tool_result') {
        rest.push(block);
        continue;
      }
      const id = waiting.get(pairingKey(block.rawId))?.shift();
      if (id === undefined) {
        repairs.orphans++;
        continue;
      }
      const { rawId: _rawId, ...result } = block;
      answers.set(id, { ...result, toolUseId: id });
    }
    const results = calls.map(({ id }): ToolResultBlock => {
      const answer = answers.get(id);
      if (answer) return answer;
      repairs.lost++;
      return { type: 'tool_result', toolUseId: id, content: LOST_RESULT, isError: true };
    });
    out.push({ role: 'user', content: [...results, ...rest], ...(next?.noticeFor ? { noticeFor: next.noticeFor } : {}) });
  }
  return out;
}

function describe(repairs: Repairs): string[] {
  const warnings: string[] = [];
  if (repairs.lost > 0) warnings.push(`the session ended while ${repairs.lost} tool call(s) ran; they are marked interrupted`);
  const parts: string[] = [];
  const add = (count: number, text: string) => {
    if (count > 0) parts.push(`${count} ${text}`);
  };
  add(repairs.unreadable, 'unreadable message(s) dropped');
  for (const [role, count] of repairs.roles)
    add(count, `message(s) with ${role === 'no role' ? 'no role' : `the unknown role ${role}`} dropped`);
  add(repairs.textContent, 'message(s) whose content was a string, not a list of blocks, read as text');
  add(repairs.blocks, 'invalid, empty or misplaced block(s) dropped');
  add(repairs.orphans, 'tool result(s) without their call dropped');
  add(repairs.ids, 'missing, invalid or repeated tool call id(s) replaced');
  add(repairs.names, `tool call(s) without a valid tool name renamed ${INVALID_TOOL_NAME}`);
  add(repairs.empty, 'message(s) left empty dropped');
  if (repairs.opening) parts.push('a user message put before the first answer, which had none');
  if (parts.length > 0) warnings.push(`the transcript was repaired before resuming: ${parts.join(', ')}`);
  return warnings;
}
