import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../../src/core/providers/types.js';
import type { FakeReply } from '../../support/fake-stream.js';
import {
  KEY,
  type TestSession,
  frame,
  fromChild,
  keys,
  mountApp,
  openTestSession,
  settle as settleNow,
  until as waitFor,
} from '../harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const lastMessage = (request: ModelRequest) => JSON.stringify(request.messages[request.messages.length - 1]);

/** A promise the test resolves by hand. */
function gate() {
  let release = () => {};
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

/**
 * The parent starts one sub-agent per task and answers "Started."; each child answers once
 * its gate is released; any later parent turn answers `later` (by default "Noted.").
 */
function delegation(tasks: string[], options: { holdStartedReply?: Promise<void>; later?: () => FakeReply } = {}) {
  const gates = new Map(tasks.map((task) => [task, gate()]));
  const parent: ModelRequest[] = [];
  const script = async (request: ModelRequest): Promise<FakeReply> => {
    if (fromChild(request.system)) {
      const task = tasks.find((t) => JSON.stringify(request.messages[0]).includes(t))!;
      await gates.get(task)!.promise;
      return { text: `result of ${task}` };
    }
    parent.push(structuredClone(request));
    if (parent.length === 1) return { toolCalls: tasks.map((task) => ({ name: 'agent_start', args: { task } })) };
    if (parent.length === 2) return { text: 'Started.', wait: options.holdStartedReply };
    return options.later?.() ?? { text: 'Noted.' };
  };
  return { script, parent, release: (task: string) => gates.get(task)!.release() };
}

async function start(tasks: string[], wakeOnComplete: boolean, options?: Parameters<typeof delegation>[1]) {
  const plan = delegation(tasks, options);
  session = await openTestSession(plan.script, { wakeOnComplete });
  const app = await mountApp(session);
  await keys(app.rendered, 'delegate', KEY.enter);
  /**
   * Proves that nothing more happens: the session settles, then the app's clock passes a
   * flush and a whole wake window (and more), and everything that could follow settles too.
   */
  const settle = async () => {
    for (let i = 0; i < 4; i += 1) {
      await settleNow();
      app.clock.advance(400);
    }
    await settleNow();
  };
  return { ...plan, ...app, settle, s: session };
}

describe('wake-on-complete', () => {
  it('starts one turn by itself when a sub-agent completes while idle, carrying only the notice', async () => {
    const { parent, release, rendered, s, until, settle } = await start(['map the loader'], true);
    await until(() => frame(rendered).includes('Started.') && s.opened.agents.manager.active().length === 1);
    release('map the loader');
    const text = await until(() => frame(rendered).includes('Noted.') && frame(rendered));
    expect(parent).toHaveLength(3);
    expect(lastMessage(parent[2]!)).toContain('Sub-agent sub-1 completed. Call agent_poll with id sub-1 for its summary.');
    expect(lastMessage(parent[2]!)).toContain('"role":"user"');
    expect(text).toContain('◆ sub-1 finished: map the loader');
    expect(text).toContain('◆ woke the parent for sub-1');
    expect(text.indexOf('◆ woke the parent for sub-1')).toBeLessThan(text.indexOf('Noted.'));
    expect(text).not.toContain('the model hears of this with your next prompt');
    await settle();
    expect(parent).toHaveLength(3);
  });

  it('starts one turn for completions that arrive close together', async () => {
    const { parent, release, rendered, s, until, settle, clock } = await start(['alpha task', 'beta task'], true);
    await until(() => frame(rendered).includes('Started.') && s.opened.agents.manager.active().length === 2);
    release('alpha task');
    await waitFor(() => s.opened.agents.manager.get('sub-1').state === 'done', { what: 'sub-1 to end' });
    // Inside the wake window: both completions share one turn.
    clock.advance(100);
    release('beta task');
    await until(() => frame(rendered).includes('Noted.'));
    await settle();
    expect(parent).toHaveLength(3);
    expect(lastMessage(parent[2]!)).toContain('Sub-agents sub-1, sub-2 completed.');
    expect(frame(rendered).match(/woke the parent for sub-1, sub-2/g)).toHaveLength(1);
  });

  it('a completion during a turn starts nothing then; the end of the turn wakes for it once', async () => {
    const hold = gate();
    const { parent, release, rendered, s, until, settle } = await start(['alpha task', 'beta task'], true, {
      holdStartedReply: hold.promise,
    });
    await waitFor(() => parent.length === 2, { what: 'the second parent request' });
    release('alpha task');
    await until(() => frame(rendered).includes('◆ sub-1 finished: alpha task'));
    await settle();
    // Still inside the turn: no second turn was started.
    expect(parent).toHaveLength(2);
    hold.release();
    // The turn ended after its last boundary with sub-1 owed: one wake carries it.
    await until(() => parent.length === 3);
    expect(lastMessage(parent[2]!)).toContain('Sub-agent sub-1 completed.');
    await settle();
    expect(parent).toHaveLength(3);
    expect(s.opened.agents.manager.undelivered()).toEqual([]);

    release('beta task');
    await until(() => parent.length === 4);
    expect(lastMessage(parent[3]!)).toContain('Sub-agent sub-2 completed.');
    await settle();
    expect(parent).toHaveLength(4);
  });

  it('does nothing when the user’s own prompt already carried the notice', async () => {
    const { parent, release, rendered, s, until, settle } = await start(['map the loader'], true, {
      later: () => ({ text: 'Answered.' }),
    });
    await until(() => frame(rendered).includes('Started.') && s.opened.agents.manager.active().length === 1);
    release('map the loader');
    await until(() => frame(rendered).includes('◆ sub-1 finished: map the loader'));
    // Typed inside the wake window: the user's turn flushes the notice first.
    await keys(rendered, 'next question', KEY.enter);
    await until(() => frame(rendered).includes('Answered.'));
    await settle();
    expect(parent).toHaveLength(3);
    expect(JSON.stringify(parent[2]!.messages.slice(-2))).toMatch(/Sub-agent sub-1 completed[\s\S]*next question/);
    expect(frame(rendered)).not.toContain('woke the parent');
  });

  it('Esc interrupts the turn it started, and the app takes the next prompt', async () => {
    let laterCalls = 0;
    const { release, rendered, s, until } = await start(['map the loader'], true, {
      later: () => (++laterCalls === 1 ? { hang: true } : { text: 'Back again.' }),
    });
    await until(() => frame(rendered).includes('Started.') && s.opened.agents.manager.active().length === 1);
    release('map the loader');
    await until(() => laterCalls === 1 && frame(rendered).includes('Esc to interrupt'));
    await keys(rendered, KEY.escape);
    await until(() => frame(rendered).includes('■ interrupted'));
    await keys(rendered, 'go on', KEY.enter);
    await until(() => frame(rendered).includes('Back again.'));
  });

  it('when off, a completion while idle starts no turn and the hint says so', async () => {
    const { parent, release, rendered, s, until, settle } = await start(['map the loader'], false);
    await until(() => frame(rendered).includes('Started.') && s.opened.agents.manager.active().length === 1);
    release('map the loader');
    await until(() => frame(rendered).includes('the model hears of this with your next prompt'));
    await settle();
    expect(parent).toHaveLength(2);
    expect(s.opened.agents.manager.undelivered()).toEqual(['sub-1']);
    expect(frame(rendered)).not.toContain('woke the parent');
  });
});
