import { afterEach, describe, expect, it } from 'vitest';
import type { Message, ModelRequest, StreamFn } from '../../src/core/providers/types.js';
import type { FakeReply } from '../support/fake-stream.js';
import { KEY, type TestSession, frame, fromChild, keys, mountApp, openTestSession, settle, until as waitFor } from './harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

async function open(script: Parameters<typeof openTestSession>[0], options?: Parameters<typeof openTestSession>[1]) {
  session = await openTestSession(script, options);
  return session;
}

/** Types a line and presses Enter. */
async function send(rendered: Parameters<typeof keys>[0], text: string) {
  await keys(rendered, text, KEY.enter);
}

const lastText = (request: ModelRequest) => JSON.stringify(request.messages[request.messages.length - 1]);

/** A script where the parent starts two sub-agents that run until stopped. */
function twoHangingJobs(request: ModelRequest): FakeReply {
  if (fromChild(request.system)) return { hang: true };
  if (lastText(request).includes('tool_result')) return { text: 'Both started.' };
  return {
    toolCalls: [
      { name: 'agent_start', args: { task: 'map the config loader' } },
      { name: 'agent_start', args: { task: 'list the test helpers' } },
    ],
  };
}

describe('the app', () => {
  it('sends a prompt and shows the answer, with the model and context in the footer', async () => {
    const s = await open([{ text: 'Hi! How can I help?', usage: { input: 12_000, output: 30 } }]);
    const { rendered, until } = await mountApp(s);
    expect(frame(rendered)).toContain(`outrider · ${s.opened.model} · ${s.dir.replace(/\/$/, '')}`);
    expect(frame(rendered)).toMatch(/default mode · \/help$/m);
    await send(rendered, 'hello');
    const text = await until(() => {
      const f = frame(rendered);
      return f.includes('Hi! How can I help?') && f.includes('ctx 1%') && f;
    });
    expect(text).toContain('› hello');
  });

  it('quits on the second Ctrl+C within the window, not the first', async () => {
    const s = await open([]);
    const { rendered, quits, clock } = await mountApp(s, { confirmWindowMs: 150 });
    await keys(rendered, KEY.ctrlC);
    expect(frame(rendered)).toContain('press Ctrl+C again to quit');
    expect(quits.count).toBe(0);
    clock.advance(250);
    await settle();
    expect(frame(rendered)).not.toContain('press Ctrl+C again');
    await keys(rendered, KEY.ctrlC);
    expect(quits.count).toBe(0);
    await keys(rendered, KEY.ctrlC);
    expect(quits.count).toBe(1);
  });

  it('stops every running sub-agent on a confirmed Ctrl+K, and keeps the rows ordered meanwhile', async () => {
    const s = await open(twoHangingJobs);
    const { rendered, until } = await mountApp(s);
    await keys(rendered, KEY.ctrlK);
    await until(() => frame(rendered).includes('no sub-agents are running'));

    await send(rendered, 'start two');
    const busy = await until(() => {
      const f = frame(rendered);
      return f.includes('Both started.') && /sub-2 {2}thinking…/.test(f) && f;
    });
    expect(busy.indexOf('sub-1  thinking…')).toBeLessThan(busy.indexOf('sub-2  thinking…'));
    expect(busy).toMatch(/subagents: 2 running \(oldest \d+s\)/);

    await keys(rendered, KEY.ctrlK);
    expect(frame(rendered)).toContain('press Ctrl+K again to stop 2 sub-agents');
    expect(s.opened.agents.manager.active()).toHaveLength(2);
    await keys(rendered, KEY.ctrlK);
    expect(s.opened.agents.manager.list().map((j) => j.state)).toEqual(['aborted', 'aborted']);
    const after = await until(() => {
      const f = frame(rendered);
      return !f.includes('thinking…') && f.includes('subagents: 2 stopped') && f;
    });
    expect(after).toContain('· stopped 2 sub-agents');
  });

  it('Esc interrupts the parent turn only: sub-agents keep running and the app takes the next prompt', async () => {
    let parentCalls = 0;
    const s = await open((request) => {
      if (fromChild(request.system)) return { hang: true };
      parentCalls += 1;
      if (parentCalls === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'keep going' } }] };
      if (parentCalls === 2) return { hang: true };
      return { text: 'Back again.' };
    });
    const { rendered, until } = await mountApp(s);
    await send(rendered, 'start one and think');
    await until(() => /sub-1 {2}thinking…/.test(frame(rendered)) && s.opened.agents.manager.active().length === 1);
    await until(() => parentCalls === 2);

    await send(rendered, 'a queued question');
    expect(frame(rendered)).toContain('queued: a queued question');
    await keys(rendered, KEY.escape);
    await until(() => frame(rendered).includes('■ interrupted (the sub-agent keeps running)'));
    expect(s.opened.agents.manager.get('sub-1').state).toBe('running');
    // The queued prompt comes back to the input instead of being sent.
    expect(frame(rendered)).not.toContain('queued: a queued question');
    expect(frame(rendered)).toMatch(/› a queued question/);

    await keys(rendered, KEY.enter);
    await until(() => frame(rendered).includes('Back again.'));
  });

  it('sends a prompt queued during a turn when the turn ends', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const s = await open([{ text: 'First answer.', wait: gate }, { text: 'Second answer.' }]);
    const { rendered, until } = await mountApp(s);
    await send(rendered, 'first');
    await until(() => frame(rendered).includes('Esc to interrupt'));
    await send(rendered, 'second');
    expect(frame(rendered)).toContain('queued: second');
    release();
    const text = await until(() => frame(rendered).includes('Second answer.') && frame(rendered));
    expect(text.indexOf('First answer.')).toBeLessThan(text.indexOf('› second'));
    expect(text).not.toContain('queued: second');
  });

  it('asks before a mutating tool runs and answers from the keys', async () => {
    const s = await open([
      { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'hello' } }] },
      { toolCalls: [{ name: 'write_file', args: { path: 'other.txt', content: 'no' } }] },
      { text: 'Done writing.' },
    ]);
    const { rendered, until } = await mountApp(s);
    await send(rendered, 'write two files');
    await until(() => frame(rendered).includes('Allow the agent to write notes.txt (new file)?'));
    // What it would write is shown before the question is answered.
    expect(frame(rendered)).toMatch(/\+hello/);
    await keys(rendered, 'y');
    await until(() => frame(rendered).includes('Allow the agent to write other.txt (new file)?'));
    await keys(rendered, KEY.escape);
    // A denial ends the turn: the model does not carry on around it, the user says what instead.
    const text = await until(() => frame(rendered).includes('■ interrupted') && frame(rendered));
    expect(text).toContain('· allowed: write notes.txt (new file)');
    expect(text).toContain('· denied: write other.txt (new file) · the turn stopped: tell the agent what to do instead');
    expect(text).not.toContain('Done writing.');
    expect(text).not.toContain('Esc to interrupt');
    await send(rendered, 'write it as notes2.txt instead');
    // The next prompt reaches the model (its third reply), after the denied call.
    await until(() => frame(rendered).includes('Done writing.'));
  });

  it('shows which sub-agent asks for approval, and its row says it waits', async () => {
    const s = await open(
      (request) => {
        if (fromChild(request.system)) {
          if (lastText(request).includes('tool_result')) return { text: 'child wrote it' };
          return { toolCalls: [{ name: 'write_file', args: { path: 'child.txt', content: 'x' } }] };
        }
        if (lastText(request).includes('tool_result')) return { text: 'Started.' };
        return { toolCalls: [{ name: 'agent_start', args: { task: 'write child.txt', agent: 'general' } }] };
      },
      { wakeOnComplete: false },
    );
    const { rendered, until } = await mountApp(s);
    await send(rendered, 'delegate a write');
    await until(() => frame(rendered).includes('Allow sub-1 to write child.txt (new file)?'));
    await until(() => frame(rendered).includes('sub-1  waiting for approval: write_file child.txt'));
    await keys(rendered, 'a');
    const text = await until(() => frame(rendered).includes('◆ sub-1 finished: write child.txt') && frame(rendered));
    expect(text).toContain('· allowed: write child.txt (new file) for sub-1 (write_file from now on, this session)');
    expect(text).toContain('the model hears of this with your next prompt');
  });

  it('answers /help, /cost, /agents stop and unknown commands in the transcript', async () => {
    const s = await open([{ text: 'ok', usage: { input: 2000, output: 100 } }]);
    const { rendered, until } = await mountApp(s);
    await send(rendered, 'hi');
    await until(() => frame(rendered).includes('ok'));
    await send(rendered, '/help');
    await until(() => frame(rendered).includes('Ctrl+K'));
    let text = frame(rendered);
    expect(text).toContain('Keys');
    expect(text).toContain('/agents stop <id|all>');
    expect(text).toContain('/agents send <id> <message>');
    expect(text).toContain('in an opened sub-agent: Enter writes it a message');

    await send(rendered, '/cost');
    text = await until(() => frame(rendered).includes('Cost') && frame(rendered));
    // Sonnet 5: 2,000 input at $2 and 100 output at $10 per million.
    expect(text).toMatch(/parent\s+2\.0k\s+100\s+0\s+0\s+2\.1k\s+\$0\.0050/);
    expect(text).toMatch(/total\s+2\.0k\s+100/);

    await send(rendered, '/agents stop sub-9');
    await until(() => frame(rendered).includes('✗ unknown sub-agent id "sub-9"'));
    await send(rendered, '/agents stop all');
    await until(() => frame(rendered).includes('· no sub-agents are running'));
    await send(rendered, '/agents frobnicate');
    await until(() => frame(rendered).includes('✗ usage: /agents, or /agents stop <id|all>'));
    await send(rendered, '/nope');
    await until(() => frame(rendered).includes('✗ unknown command /nope: /help lists the commands'));
  });

  it('opens /agents over the input and goes back with Esc', async () => {
    const s = await open(twoHangingJobs);
    const { rendered, until } = await mountApp(s);
    await send(rendered, 'start two');
    await until(() => s.opened.agents.manager.active().length === 2 && frame(rendered).includes('Both started.'));
    await send(rendered, '/agents');
    await until(() => frame(rendered).includes('Sub-agents (2)'));
    await keys(rendered, KEY.down, 'x');
    await until(() => s.opened.agents.manager.get('sub-2').state === 'aborted');
    expect(s.opened.agents.manager.get('sub-1').state).toBe('running');
    await keys(rendered, KEY.escape);
    await until(() => !frame(rendered).includes('Sub-agents (2)') && frame(rendered).includes('│ › '));
  });

  it('coalesces a fast stream and a storm of job events into one render per window', async () => {
    const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 };
    const end = (message: Message) => ({ type: 'message_end' as const, message, stopReason: 'end_turn' as const, usage });
    let parentCalls = 0;
    const stream: StreamFn = async function* (request) {
      if (fromChild(request.system)) {
        // A child streaming 300 tokens, each in its own macrotask: 300 job events.
        for (let i = 0; i < 300; i++) {
          yield { type: 'text_delta', text: `t${i} ` };
          await new Promise((resolve) => setImmediate(resolve));
        }
        yield end({ role: 'assistant', content: [{ type: 'text', text: 'child done' }] });
        return;
      }
      parentCalls += 1;
      if (parentCalls === 1) {
        for (let i = 0; i < 400; i++) {
          yield { type: 'text_delta', text: 'x' };
          await new Promise((resolve) => setImmediate(resolve));
        }
        yield end({ role: 'assistant', content: [{ type: 'text', text: 'x'.repeat(400) }] });
      } else if (parentCalls === 2) {
        const call = { type: 'tool_use' as const, id: 'c1', name: 'agent_start', input: { task: 'stream a lot' } };
        yield { type: 'message_end', message: { role: 'assistant', content: [call] }, stopReason: 'tool_use', usage };
      } else {
        yield end({ role: 'assistant', content: [{ type: 'text', text: 'started' }] });
      }
    };
    const s = await open([], { stream });
    const { rendered, clock, until } = await mountApp(s);
    const busy = () => s.opened.session.messages().length;

    // The whole turn streams while no time passes on the app's clock: its 400 deltas wait in one batch.
    await keys(rendered, 'go', KEY.enter);
    // Waited for without moving the app's clock, so nothing it buffers is shown meanwhile.
    await waitFor(() => busy() === 2, { what: 'the first turn to end' });
    let before = rendered.frames.length;
    clock.advance(100);
    await settle();
    expect((frame(rendered).match(/x/g) ?? []).length).toBeGreaterThanOrEqual(400);
    expect(rendered.frames.length - before).toBeLessThanOrEqual(2);

    // A child's 300 events and its end, all inside one window: one render.
    await keys(rendered, 'delegate', KEY.enter);
    await waitFor(() => s.opened.agents.manager.list()[0]?.state === 'done' && busy() >= 6, {
      what: 'the child and the turn to end',
    });
    before = rendered.frames.length;
    clock.advance(100);
    await settle();
    expect(frame(rendered)).toContain('◆ sub-1 finished: stream a lot');
    expect(rendered.frames.length - before).toBeLessThanOrEqual(2);
    await until(() => !frame(rendered).includes('Esc to interrupt'), 'the app to go idle');
  });

  it('/compact compacts the history, or says why it could not', async () => {
    const s = await open([{ text: 'ok' }]);
    const { rendered, until } = await mountApp(s);
    await send(rendered, 'hi');
    await until(() => frame(rendered).includes('ok'));
    await send(rendered, '/compact');
    await until(() => frame(rendered).includes('· compacting the conversation…'));
    await until(() => frame(rendered).includes('! compaction failed: the conversation is too short to compact'));
  });

  it('says when it resumed a session', async () => {
    const first = await openTestSession([{ text: 'noted' }]);
    const { rendered, until } = await mountApp(first);
    await send(rendered, 'remember this');
    await until(() => frame(rendered).includes('noted'));
    rendered.unmount();
    await first.opened.close();

    const s = await open([], { dir: first.dir, continue: true });
    const { rendered: again } = await mountApp(s);
    const text = frame(again);
    expect(text).toContain(`· resumed ${s.opened.session.id}: the model remembers 2 earlier messages`);
    // The conversation so far is shown again, before that line.
    expect(text).toMatch(/› remember this\nnoted\n· resumed/);
  });

  it('/resume lists the other sessions of this directory', async () => {
    const first = await openTestSession([{ text: 'noted' }]);
    const one = await mountApp(first);
    await send(one.rendered, 'the first session');
    await one.until(() => frame(one.rendered).includes('noted'));
    one.rendered.unmount();
    await first.opened.close();

    const s = await open([], { dir: first.dir });
    const { rendered, until } = await mountApp(s);
    await send(rendered, '/resume');
    const text = await until(() => frame(rendered).includes('Sessions') && frame(rendered));
    expect(text).toContain(`${first.opened.session.id}`);
    expect(text).toContain('the first session');
    expect(text).not.toContain(`${s.opened.session.id}  `);
    await send(rendered, `/resume ${first.opened.session.id}`);
    await until(() => frame(rendered).includes('switching sessions is not available here'));
  });

  it("lists a resumed session's earlier jobs in /agents, from the session's store", async () => {
    const first = await openTestSession((request) => {
      if (fromChild(request.system)) return { text: 'the loader is in src/config.ts' };
      if (request.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'find the loader' } }] };
      if (request.messages.length === 3) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
      return { text: 'found it' };
    });
    const app = await mountApp(first);
    await keys(app.rendered, 'go', KEY.enter);
    await app.until(() => frame(app.rendered).includes('found it'));
    app.rendered.unmount();
    await first.opened.close();

    const s = await open([], { dir: first.dir, continue: true });
    const { rendered, until } = await mountApp(s);
    await send(rendered, '/agents');
    const list = await until(() => frame(rendered).includes('Sub-agents (1)') && frame(rendered));
    expect(list).toMatch(/sub-1\s+done\s+explore.*find the loader/);
    await keys(rendered, KEY.enter);
    // Its job view, from the job's stored transcript: the task, then its answer.
    const detail = await until(() => frame(rendered).includes('the loader is in src/config.ts') && frame(rendered));
    expect(detail).toMatch(/› Task:\nfind the loader\n[\s\S]*the loader is in src\/config\.ts/);
  });

  it('/quit quits at once', async () => {
    const s = await open([]);
    const { rendered, quits } = await mountApp(s);
    await send(rendered, '/quit');
    expect(quits.count).toBe(1);
  });
});
