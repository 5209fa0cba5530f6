/**
 * What a request sends of a history: the strictest provider (Anthropic's Messages API) wants
 * user and assistant turns to alternate, and a history may hold two of one role in a row: a
 * prompt after a turn a crash left unanswered (`--continue` after `kill -9`), a notice or a
 * hook's context before a prompt, a compaction summary before the turns it kept. The history
 * keeps them apart, as the transcript wrote them (compaction counts kept messages by it); only
 * what is sent is joined.
 */
import type { Message, StreamFn } from './types.js';

/** Runs of messages of one role that `alternateRoles` joined, by their first message, and what it made of them. */
export type JoinedRuns = WeakMap<Message, { run: readonly Message[]; joined: Message }>;

/**
 * `stream` sent every history with its roles alternating (`alternateRoles`): a prompt after a
 * turn left unanswered (a crash, `kill -9`, an error), or after a notice or a hook's context,
 * joins that message instead of following it. Each conversation (the session, each sub-agent)
 * wraps its own, so its joined runs are remembered for as long as it lives.
 */
export function alternatingStream(stream: StreamFn): StreamFn {
  const joined: JoinedRuns = new WeakMap();
  return (request, signal) => stream({ ...request, messages: alternateRoles(request.messages, joined) }, signal);
}

/**
 * The history as a request sends it: the strictest provider wants the roles to alternate, so
 * adjacent messages of one role become one, their blocks in order, none dropped; in a user
 * message tool results go first (Anthropic wants them before any text). The history itself is
 * not changed. A message without a neighbour of its role is passed as it is, and a run joined
 * before (in `joined`) comes back as the same object, so each message's JSON is made once.
 * Delivery marks (`noticeFor`) are not sent, so the joined message has none.
 */
export function alternateRoles(history: readonly Message[], joined: JoinedRuns = new WeakMap()): Message[] {
  const out: Message[] = [];
  for (let start = 0; start < history.length;) {
    const first = history[start]!;
    let end = start + 1;
    while (end < history.length && history[end]!.role === first.role) end++;
    out.push(end - start === 1 ? first : joinRun(history.slice(start, end), joined));
    start = end;
  }
  return out;
}

function joinRun(run: readonly Message[], joinedRuns: JoinedRuns): Message {
  const known = joinedRuns.get(run[0]!);
  if (known && known.run.length === run.length && known.run.every((message, i) => message === run[i])) return known.joined;
  const blocks = run.flatMap((message) => message.content);
  const content =
    run[0]!.role === 'user'
      ? [...blocks.filter((b) => b.type === 'tool_result'), ...blocks.filter((b) => b.type !== 'tool_result')]
      : blocks;
  const joined: Message = { role: run[0]!.role, content };
  joinedRuns.set(run[0]!, { run, joined });
  return joined;
}
