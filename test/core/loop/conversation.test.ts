import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Conversation } from '../../../src/core/loop/conversation.js';
import type { LoopEvent } from '../../../src/core/loop/events.js';
import type { TurnParticipant } from '../../../src/core/loop/turn-participant.js';
import type { Message } from '../../../src/core/providers/types.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { ToolRegistry } from '../../../src/core/tools/registry.js';
import { Session } from '../../../src/core/session/session.js';
import { fakeStream } from '../../support/fake-stream.js';

const workspace = makeWorkspace(mkdtempSync(path.join(os.tmpdir(), 'outrider-conversation-')));
const text = (message: Message) => message.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('|');
const user = (t: string): Message => ({ role: 'user', content: [{ type: 'text', text: t }] });
const never = new AbortController().signal;

function conversation(replies: Parameters<typeof fakeStream>[0]) {
  const stream = fakeStream(replies);
  const made = new Conversation(
    { system: 'sys', tools: new ToolRegistry([]), workspace, messages: [] },
    { stream, model: 'm', maxTokens: 100 },
  );
  return { conversation: made, stream };
}

describe('Conversation', () => {
  it('counts usage, turns and the last context figure over its runs, and tells listeners of every message', async () => {
    const { conversation: c } = conversation([
      { text: 'one', usage: { input: 100, output: 10 } },
      { text: 'two', usage: { input: 300, output: 20, cacheRead: 50 } },
    ]);
    const heard: string[] = [];
    c.onAppend((message) => heard.push(`${message.role}:${text(message)}`));
    c.append(user('first'));
    const events: LoopEvent[] = [];
    await c.run(never, {}, (event) => events.push(event));
    c.append(user('second'));
    await c.run(never, {}, () => {});
    expect(heard).toEqual(['user:first', 'assistant:one', 'user:second', 'assistant:two']);
    expect(c.turns()).toBe(2);
    expect(c.usage()).toMatchObject({ input: 400, output: 30, cacheRead: 50 });
    expect(c.contextTokens()).toBe(370);
    expect(events.some((e) => e.type === 'usage')).toBe(true);
  });

  it('sends histories whose roles alternate, whatever was appended', async () => {
    const { conversation: c, stream } = conversation([{ text: 'ok' }]);
    c.append(user('a'));
    c.append(user('b'));
    await c.run(never, {}, () => {});
    expect(stream.requests[0]!.messages.map((m) => m.role)).toEqual(['user']);
    expect(c.messages().map((m) => m.role)).toEqual(['user', 'user', 'assistant']);
  });
});

describe('Session: turn participants', () => {
  function session(participants: TurnParticipant[], replies: Parameters<typeof fakeStream>[0] = [{ text: 'done' }]) {
    const { conversation: c, stream } = conversation(replies);
    return { session: new Session({ id: 's', workspace, conversation: c, participants }), stream };
  }

  it('asks every participant at each moment, in the order given', async () => {
    const log: string[] = [];
    const participant = (name: string): TurnParticipant => ({
      name,
      turnStart: () => (log.push(`${name}:start`), [user(`${name} opens`)]),
      messageAppended: (m) => log.push(`${name}:appended:${m.role}`),
      turnEnd: (result) => log.push(`${name}:end:${result.cause.kind}`),
    });
    const { session: s, stream } = session([participant('a'), participant('b')]);
    await s.submit('hello', never);
    expect(log).toEqual([
      'a:start',
      'b:start',
      'a:appended:user',
      'b:appended:user',
      'a:appended:user',
      'b:appended:user',
      'a:appended:user',
      'b:appended:user',
      'a:appended:assistant',
      'b:appended:assistant',
      'a:end:completed',
      'b:end:completed',
    ]);
    expect(text(stream.requests[0]!.messages[0]!)).toBe('a opens|b opens|hello');
  });

  it('a prompt review that blocks drops the prompt and the turn; contexts of the others go with it', async () => {
    const blocking = session([
      { name: 'ok', reviewPrompt: async () => ({ context: 'first' }) },
      { name: 'no', reviewPrompt: async () => ({ block: 'not that' }) },
    ]);
    const blocked = await blocking.session.submit('hello', never);
    expect(blocked.cause).toEqual({ kind: 'hook', event: 'UserPromptSubmit', reason: 'not that' });
    expect(blocking.stream.requests).toHaveLength(0);
    expect(blocking.session.messages()).toEqual([]);

    const adding = session([
      { name: 'one', reviewPrompt: async () => ({ context: 'first' }) },
      { name: 'two', reviewPrompt: async () => ({ context: 'second' }) },
    ]);
    await adding.session.submit('hello', never);
    expect(text(adding.stream.requests[0]!.messages[0]!)).toBe('hello|Context from a UserPromptSubmit hook:\nfirst\nsecond');
  });

  it('step boundaries gather every participant’s messages, and the first history replacement wins', async () => {
    const boundary: string[] = [];
    const { session: s, stream } = session(
      [
        { name: 'quiet', beforeModelCall: async () => undefined },
        {
          name: 'shortens',
          beforeModelCall: async (history) =>
            history.length > 2
              ? { history: history.slice(-1), event: { type: 'notice', level: 'info', text: 'cut' } }
              : undefined,
          stepBoundary: () => (boundary.push('asked'), []),
        },
      ],
      [{ toolCalls: [{ name: 'nope', args: {} }] }, { text: 'done' }],
    );
    await s.submit('hello', never);
    expect(boundary.length).toBeGreaterThan(0);
    expect(stream.requests[1]!.messages).toHaveLength(1);
  });
});
