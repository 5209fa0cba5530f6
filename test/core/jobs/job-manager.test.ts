import { describe, expect, it } from 'vitest';
import { JobError, JobManager } from '../../../src/core/jobs/job-manager.js';
import type { Message, ToolUseBlock } from '../../../src/core/providers/types.js';
import { jobManagerHarness, textOf } from '../../support/controlled-runner.js';
import { FakeClock, settle } from '../../support/fake-clock.js';

const setup = jobManagerHarness;
const startCall = (id: string): ToolUseBlock => ({ type: 'tool_use', id, name: 'agent_start', input: {} });
const never = new AbortController().signal;

describe('JobManager: ids and the queue', () => {
  it('reserves ids in the order the model wrote its agent_start calls', () => {
    const { manager } = setup();
    manager.reserve([
      startCall('c1'),
      { type: 'tool_use', id: 'r', name: 'read_file', input: {} },
      startCall('c2'),
      startCall('c3'),
    ]);
    // The calls execute in parallel and may reach start() in any order.
    expect(manager.start('third', { callId: 'c3' }).id).toBe('sub-3');
    expect(manager.start('first', { callId: 'c1' }).id).toBe('sub-1');
    expect(manager.start('second', { callId: 'c2' }).id).toBe('sub-2');
  });

  it('drops reservations of a superseded batch; their ids are skipped', () => {
    const { manager } = setup();
    manager.reserve([startCall('a1'), startCall('a2')]);
    expect(manager.start('ran', { callId: 'a1' }).id).toBe('sub-1');
    manager.reserve([startCall('b1')]);
    expect(manager.start('next batch', { callId: 'b1' }).id).toBe('sub-3');
    expect(manager.start('late call from the old batch', { callId: 'a2' }).id).toBe('sub-4');
    expect(manager.start('no call id').id).toBe('sub-5');
  });

  it('runs at most maxConcurrent jobs; the rest wait queued and all finish', async () => {
    const { manager, runner } = setup({ maxConcurrent: 4 });
    for (let i = 0; i < 8; i += 1) manager.start(`task ${i}`);
    await settle();
    expect(runner.running.size).toBe(4);
    expect(manager.list().map((j) => j.state)).toEqual([...Array(4).fill('running'), ...Array(4).fill('queued')]);
    for (let round = 0; round < 8; round += 1) {
      const [id] = [...runner.running.keys()];
      runner.finish(id!);
      await settle();
      expect(runner.running.size).toBeLessThanOrEqual(4);
    }
    expect(runner.max()).toBe(4);
    expect(manager.list().every((j) => j.state === 'done')).toBe(true);
  });

  it('accepts a bare number wherever an id is expected', async () => {
    const { manager, runner } = setup();
    manager.start('a');
    await settle();
    runner.finish('sub-1');
    await settle();
    expect((await manager.poll('1', never)).job.id).toBe('sub-1');
    expect(manager.get(' 1 ').id).toBe('sub-1');
  });

  it('names the known ids when an id is unknown', async () => {
    const { manager } = setup();
    expect(() => manager.stop('sub-9')).toThrow('unknown sub-agent id "sub-9". No sub-agents have been started.');
    manager.start('a');
    manager.start('b');
    await expect(manager.poll('sub-7', never)).rejects.toThrow('Known ids: sub-1, sub-2.');
  });

  it('refuses an unknown definition, naming the available ones', () => {
    const { manager } = setup({ definitions: () => ['explore', 'general'] });
    expect(() => manager.start('x', { agent: 'nope' })).toThrow('unknown agent "nope". Available agents: explore, general.');
  });

  it('refuses starts the admission check rejects (session budget)', () => {
    const refusal = 'the session budget of 100 tokens is spent';
    const budget = {
      admission: () => refusal,
      record: () => ({ shares: [], failed: [] }),
      atBoundary: () => ({ shares: [], failed: [] }),
    };
    const { manager } = setup({ budget });
    expect(() => manager.start('x')).toThrow(new JobError(refusal));
  });
});

describe('JobManager: stopping', () => {
  it('a job stopped while queued never runs', async () => {
    const { manager, runner } = setup({ maxConcurrent: 1 });
    manager.start('a');
    manager.start('b');
    await settle();
    manager.stop('sub-2');
    runner.finish('sub-1');
    await settle();
    expect(runner.started).toEqual(['sub-1']);
    expect(manager.get('sub-2').state).toBe('aborted');
  });

  it('a job stopped while running has its signal aborted, ends aborted, and is never announced', async () => {
    const { manager, runner, boundary } = setup();
    manager.start('a');
    await settle();
    const { signal } = runner.running.get('sub-1')!.request;
    expect(manager.stop('sub-1').state).toBe('aborted');
    expect(signal.aborted).toBe(true);
    await settle();
    // The run's late partial result does not override the stop.
    expect(manager.get('sub-1').state).toBe('aborted');
    expect(manager.get('sub-1').result).toBeUndefined();
    expect(boundary()).toEqual([]);
    const poll = await manager.poll('sub-1', never);
    expect(manager.describePoll(poll)).toEqual({ content: 'sub-agent sub-1 was stopped', isError: false });
  });

  it('stopping a finished job is an error naming its state', async () => {
    const { manager, runner } = setup();
    manager.start('a');
    await settle();
    runner.finish('sub-1');
    await settle();
    expect(() => manager.stop('sub-1')).toThrow('sub-agent sub-1 already finished (done)');
  });

  it('stopAll stops queued and running jobs and counts them', async () => {
    const { manager, runner } = setup({ maxConcurrent: 2 });
    for (let i = 0; i < 4; i += 1) manager.start(`t${i}`);
    await settle();
    runner.finish('sub-1');
    await settle();
    expect(manager.stopAll()).toBe(3);
    expect(manager.list().map((j) => j.state)).toEqual(['done', 'aborted', 'aborted', 'aborted']);
  });

  it('close stops everything and waits at most 2 s for runs that ignore the stop', async () => {
    const clock = new FakeClock();
    let release = () => {};
    const manager = new JobManager({
      run: () => new Promise((resolve) => (release = () => resolve({ status: 'done', text: 'x' }))),
      now: clock.now,
      timers: clock,
    });
    manager.start('stubborn');
    await settle();
    let closed = false;
    const closing = manager.close().then(() => (closed = true));
    await settle();
    expect(closed).toBe(false);
    clock.advance(1999);
    await settle();
    expect(closed).toBe(false);
    clock.advance(1);
    await closing;
    expect(manager.get('sub-1').state).toBe('aborted');
    release();
    expect(() => manager.start('after close')).toThrow('closing');
  });

  it('close returns as soon as runs that honour the stop have wound down', async () => {
    const { manager, clock } = setup();
    manager.start('a');
    manager.start('b');
    await settle();
    await manager.close();
    expect(clock.now()).toBe(0);
    expect(manager.list().every((j) => j.state === 'aborted')).toBe(true);
  });
});

describe('JobManager: outcomes and polls', () => {
  it('reports done, error and thrown runs in the words of the spec', async () => {
    const { manager, runner } = setup();
    manager.start('a');
    manager.start('b');
    manager.start('c');
    manager.start('d');
    await settle();
    runner.finish('sub-1', { status: 'done', text: 'auth uses exceptions' });
    runner.finish('sub-2', { status: 'error', text: 'half a report', error: 'reached the limit of 10 turns' });
    runner.running.get('sub-3')!.fail(new Error('provider exploded'));
    runner.finish('sub-4', { status: 'done', text: '(sub-agent produced no text output)' });
    await settle();
    const text = async (id: string) => manager.describePoll(await manager.poll(id, never));
    expect(await text('sub-1')).toEqual({ content: 'auth uses exceptions', isError: false });
    expect(await text('sub-2')).toEqual({
      content: 'sub-agent sub-2 failed: reached the limit of 10 turns\nPartial result:\nhalf a report',
      isError: true,
    });
    expect(await text('sub-3')).toEqual({ content: 'sub-agent sub-3 failed: provider exploded', isError: true });
    expect(await text('sub-4')).toEqual({ content: '(sub-agent produced no text output)', isError: false });
  });

  it('a poll waits for the job and returns its result', async () => {
    const { manager, runner } = setup();
    manager.start('a');
    await settle();
    const poll = manager.poll('sub-1', never);
    await settle();
    runner.finish('sub-1');
    const result = await poll;
    expect(result.kind).toBe('ended');
    expect(manager.describePoll(result).content).toBe('report of sub-1');
  });

  it('a poll that times out says the job is still running, with its progress', async () => {
    const { manager, clock, runner } = setup();
    manager.start('a');
    await settle();
    runner.running.get('sub-1')!.request.onEvent({ type: 'tool_start', id: 't', name: 'grep', label: 'auth', args: {} });
    runner.running.get('sub-1')!.request.onEvent({
      type: 'usage',
      usage: { input: 17_000, output: 1000, cacheRead: 0, cacheWrite: 0 },
      total: { input: 17_000, output: 1000, cacheRead: 0, cacheWrite: 0 },
    });
    const poll = manager.poll('sub-1', never);
    clock.advance(250_000);
    const result = await poll;
    expect(result.kind).toBe('running');
    // Its last event was 4m10s ago: the poll says so, so the caller can stop it or send it a message.
    expect(manager.describePoll(result).content).toBe(
      'sub-agent sub-1 still running after 4m10s, 1 tool calls, ~18k context tokens; no progress for 4m10s',
    );
  });

  it('a result that lands in the same tick as the poll timeout is returned, not lost', async () => {
    const { manager, clock, runner, boundary } = setup();
    manager.start('a');
    await settle();
    const poll = manager.poll('sub-1', never);
    await settle();
    clock.advance(10_000); // the timeout resolves its promise…
    runner.finish('sub-1'); // …and the job ends before the poll's continuation runs.
    const result = await poll;
    expect(result.kind).toBe('ended');
    expect(boundary()).toEqual([]);
  });

  it('an interrupted poll returns at once', async () => {
    const { manager } = setup();
    manager.start('a');
    await settle();
    const controller = new AbortController();
    const poll = manager.poll('sub-1', controller.signal);
    controller.abort();
    const result = await poll;
    expect(manager.describePoll(result)).toEqual({ content: 'poll interrupted', isError: true });
  });
});

describe('JobManager: completion delivery', () => {
  it('batches completions into one notice at the boundary, oldest first', async () => {
    const { manager, runner, boundary } = setup();
    for (const t of ['a', 'b', 'c']) manager.start(t);
    await settle();
    runner.finish('sub-3');
    runner.finish('sub-1');
    await settle();
    expect(boundary()).toEqual(['Sub-agents sub-1, sub-3 completed. Call agent_poll for each summary.']);
    expect(boundary()).toEqual([]);
    runner.finish('sub-2');
    await settle();
    expect(boundary()).toEqual(['Sub-agent sub-2 completed. Call agent_poll with id sub-2 for its summary.']);
  });

  it('never names an id a poll is waiting on or has returned', async () => {
    const { manager, runner, boundary } = setup();
    manager.start('a');
    manager.start('b');
    await settle();
    const poll = manager.poll('sub-1', never);
    await settle();
    runner.finish('sub-1');
    runner.finish('sub-2');
    await settle();
    // sub-1's poll has not resumed yet: still waiting, so not named.
    expect(boundary()).toEqual(['Sub-agent sub-2 completed. Call agent_poll with id sub-2 for its summary.']);
    await poll;
    expect(boundary()).toEqual([]);
  });

  it('a poller that times out re-arms delivery for when the job ends', async () => {
    const { manager, runner, clock, boundary } = setup();
    manager.start('a');
    await settle();
    const poll = manager.poll('sub-1', never);
    clock.advance(10_000);
    expect((await poll).kind).toBe('running');
    runner.finish('sub-1');
    await settle();
    expect(boundary()).toEqual(['Sub-agent sub-1 completed. Call agent_poll with id sub-1 for its summary.']);
  });

  it('a poller interrupted after the job ended leaves the id to be announced', async () => {
    const { manager, runner, boundary } = setup();
    manager.start('a');
    await settle();
    const controller = new AbortController();
    const poll = manager.poll('sub-1', controller.signal);
    await settle();
    controller.abort();
    runner.finish('sub-1');
    expect((await poll).kind).toBe('interrupted');
    await settle();
    expect(boundary()).toEqual(['Sub-agent sub-1 completed. Call agent_poll with id sub-1 for its summary.']);
  });

  it('an interrupted turn keeps notices that were handed out but not sent', async () => {
    const { manager, runner } = setup();
    manager.start('a');
    await settle();
    runner.finish('sub-1');
    await settle();
    const handedOut = manager.boundaryMessages();
    expect(handedOut).toHaveLength(1);
    manager.interrupted(); // the turn ended before the notice joined the history
    const again = manager.boundaryMessages();
    expect(again.map(textOf)).toEqual(handedOut.map(textOf));
    manager.confirm(again[0]!);
    manager.interrupted();
    expect(manager.boundaryMessages()).toEqual([]);
    expect(manager.undelivered()).toEqual([]);
  });

  it("reports facts only: a snapshot per state change, the child's own events, and each delivery", async () => {
    const { manager, runner, events } = setup();
    manager.start('first task');
    manager.start('second task');
    await settle();
    const toolStart = { type: 'tool_start' as const, id: 't', name: 'read_file', label: 'src/a.ts', args: {} };
    runner.running.get('sub-2')!.request.onEvent(toolStart);
    runner.finish('sub-1');
    await settle();
    const states = events.flatMap((e) => (e.type === 'job_state' ? [`${e.job.id}:${e.job.state}`] : []));
    // A free slot starts a job in the same call that queued it.
    expect(states).toEqual(['sub-1:queued', 'sub-1:running', 'sub-2:queued', 'sub-2:running', 'sub-1:done']);
    const done = events.find((e) => e.type === 'job_state' && e.job.state === 'done');
    expect(done).toMatchObject({ job: { id: 'sub-1', number: 1, task: 'first task', result: 'report of sub-1', toolCalls: 0 } });
    const counters = {
      turns: 0,
      toolCalls: 1,
      contextTokens: 0,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      lastEventAt: 0,
    };
    expect(events).toContainEqual({ type: 'job_event', jobId: 'sub-2', event: toolStart, counters });
    // Nothing in the stream is worded for a screen.
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(['job_state', 'job_event']));

    await manager.poll('sub-1', never);
    expect(events.at(-1)).toEqual({ type: 'job_delivered', jobIds: ['sub-1'], via: 'poll' });
    runner.finish('sub-2');
    await settle();
    const [notice] = manager.boundaryMessages();
    expect(notice!.noticeFor).toEqual(['sub-2']);
    manager.confirm(notice!);
    expect(events.at(-1)).toEqual({ type: 'job_delivered', jobIds: ['sub-2'], via: 'notice' });
  });

  it('confirms a notice by the ids it carries, so a copy of the message (a clone, a transcript) counts', async () => {
    const { manager, runner, events } = setup();
    manager.start('a');
    await settle();
    runner.finish('sub-1');
    await settle();
    const [notice] = manager.boundaryMessages();
    manager.confirm(JSON.parse(JSON.stringify(notice)));
    manager.interrupted();
    expect(manager.boundaryMessages()).toEqual([]);
    expect(manager.undelivered()).toEqual([]);
    // Confirming again (the same notice replayed) delivers nothing twice.
    manager.confirm(structuredClone(notice!));
    expect(events.filter((e) => e.type === 'job_delivered')).toHaveLength(1);
  });

  it("takes a fork's snapshot when it is started, not when a slot frees up", async () => {
    let conversation = ['before'];
    const { manager, runner } = setup({
      maxConcurrent: 1,
      forkSnapshot: () => ({
        system: 's',
        schemas: [],
        messages: conversation.map((text) => ({ role: 'user' as const, content: [{ type: 'text' as const, text }] })),
      }),
    });
    manager.start('blocker');
    manager.start('fork me', { mode: 'fork' });
    conversation = ['before', 'after'];
    await settle();
    runner.finish('sub-1');
    await settle();
    expect(runner.running.get('sub-2')!.request.fork!.messages).toHaveLength(1);
    expect(() => setup().manager.start('x', { mode: 'fork' })).toThrow('fork mode is not available here');
  });

  it('starts numbering where it is told (a resumed session)', () => {
    expect(setup({ firstNumber: 7 }).manager.start('x').id).toBe('sub-7');
  });
});

describe('JobManager: messages to jobs (agent_send)', () => {
  const conversation = (id: string): Message[] => [
    { role: 'user', content: [{ type: 'text', text: `Task:\ntask of ${id}` }] },
    { role: 'assistant', content: [{ type: 'text', text: `report of ${id}` }] },
  ];
  const texts = (messages: Message[]) => messages.map((m) => (m.content[0] as { text: string }).text);

  it('hands a running job the message at its next step boundary, never before', async () => {
    const { manager, runner } = setup();
    manager.start('look around');
    await settle();
    const sent = manager.send('sub-1', 'also check src/b.ts');
    expect(sent.kind).toBe('inbox');
    const { takeInbox } = runner.running.get('sub-1')!.request;
    expect(texts(takeInbox!())).toEqual(['Message from the parent agent:\nalso check src/b.ts']);
    // Taken once: the next boundary has nothing new.
    expect(takeInbox!()).toEqual([]);
    manager.send('1', 'and say hi', 'user');
    expect(texts(takeInbox!())).toEqual(['Message from the user:\nand say hi']);
  });

  it('offers a running job its messages alone as follow-ups, so one sent as it answers is read, not lost', async () => {
    const { manager, runner } = setup();
    manager.start('look around');
    await settle();
    manager.send('sub-1', 'one more thing');
    const { takeMessages, takeInbox } = runner.running.get('sub-1')!.request;
    expect(texts(takeMessages!())).toEqual(['Message from the parent agent:\none more thing']);
    expect(takeMessages!()).toEqual([]);
    expect(takeInbox!()).toEqual([]);
  });

  it('puts messages a run ended without reading before the new one when the job is resumed', async () => {
    const { manager, runner } = setup();
    manager.start('look around');
    await settle();
    manager.send('sub-1', 'too late for this run');
    runner.finish('sub-1', { status: 'done', text: 'report of sub-1', messages: conversation('sub-1') });
    await settle();
    manager.send('sub-1', 'and now this');
    await settle();
    expect(texts(runner.running.get('sub-1')!.request.resume!).slice(-2)).toEqual([
      'Message from the parent agent:\ntoo late for this run',
      'Message from the parent agent:\nand now this',
    ]);
  });

  it('adds a message to the task of a job that has not started', async () => {
    const { manager, runner } = setup({ maxConcurrent: 1 });
    manager.start('first');
    manager.start('second');
    expect(manager.send('sub-2', 'focus on errors').kind).toBe('task');
    runner.finish('sub-1');
    await settle();
    expect(runner.running.get('sub-2')!.request.task).toBe('second\n\nThe parent adds: focus on errors');
  });

  it('resumes a finished job with its whole history and the message: same id, a new run, owed again', async () => {
    const { manager, runner, boundary } = setup();
    manager.start('look around');
    await settle();
    runner.finish('sub-1', { status: 'done', text: 'report of sub-1', messages: conversation('sub-1') });
    await settle();
    expect(boundary()).toEqual(['Sub-agent sub-1 completed. Call agent_poll with id sub-1 for its summary.']);

    const sent = manager.send('sub-1', 'now look at tests too');
    expect(sent).toMatchObject({ kind: 'resumed', job: { id: 'sub-1', state: 'queued' } });
    await settle();
    const { request } = runner.running.get('sub-1')!;
    expect(texts(request.resume!)).toEqual([
      'Task:\ntask of sub-1',
      'report of sub-1',
      'Message from the parent agent:\nnow look at tests too',
    ]);
    expect(manager.get('sub-1')).toMatchObject({ state: 'running', result: undefined });
    expect(manager.list()).toHaveLength(1);

    runner.finish('sub-1', { status: 'done', text: 'tests look fine' });
    await settle();
    // The new end is owed again, once.
    expect(boundary()).toEqual(['Sub-agent sub-1 completed. Call agent_poll with id sub-1 for its summary.']);
    expect(boundary()).toEqual([]);
    expect(manager.describePoll(await manager.poll('sub-1', never)).content).toBe('tests look fine');
  });

  it('resumes a stopped job once its stopped run has returned, keeping what it had done', async () => {
    const { manager, runner } = setup();
    manager.start('long work');
    await settle();
    const { request } = runner.running.get('sub-1')!;
    manager.stop('sub-1');
    // The runner answers the abort with the conversation so far.
    await settle();
    expect(manager.send('sub-1', 'go on, but only src/').kind).toBe('resumed');
    await settle();
    expect(request.signal.aborted).toBe(true);
    const again = runner.running.get('sub-1')!.request;
    expect(again.signal.aborted).toBe(false);
    expect(texts(again.resume!).at(-1)).toBe('Message from the parent agent:\ngo on, but only src/');
  });

  it('refuses an empty message or an unknown id; a job with no conversation starts over with the message in its task', async () => {
    const { manager, runner } = setup({ maxConcurrent: 1 });
    manager.start('a');
    manager.start('b');
    await settle();
    expect(() => manager.send('sub-1', '   ')).toThrow(JobError);
    expect(() => manager.send('sub-9', 'hi')).toThrow(/unknown sub-agent id "sub-9"/);
    // Stopped while queued: it never ran, so it has no history to go on from.
    manager.stop('sub-2');
    expect(manager.send('sub-2', 'do b after all').kind).toBe('resumed');
    runner.finish('sub-1', { status: 'done', text: 'r' });
    await settle();
    const { request } = runner.running.get('sub-2')!;
    expect(request.resume).toBeUndefined();
    expect(request.task).toBe('b\n\nThe parent adds: do b after all');
  });

  it("takes in an earlier run's jobs: listed, not owed, resumable, numbering after them", async () => {
    const { manager, runner } = setup();
    manager.restore([
      {
        job: {
          id: 'sub-3',
          number: 3,
          state: 'done',
          definition: 'explore',
          mode: 'typed',
          task: 'old task',
          createdAt: 0,
          turns: 2,
          toolCalls: 1,
          contextTokens: 0,
          usage: { input: 5, output: 1, cacheRead: 0, cacheWrite: 0 },
          result: 'old report',
        },
        messages: conversation('sub-3'),
      },
    ]);
    expect(manager.undelivered()).toEqual([]);
    expect(manager.list().map((j) => `${j.id}:${j.state}`)).toEqual(['sub-3:done']);
    expect(manager.start('new').id).toBe('sub-4');
    expect(manager.send('sub-3', 'one more thing').kind).toBe('resumed');
    await settle();
    expect(texts(runner.running.get('sub-3')!.request.resume!).at(-1)).toBe('Message from the parent agent:\none more thing');
  });
});

describe('JobManager: counters', () => {
  it("counts turns, tools and tokens from the child's own events and publishes them with each event", async () => {
    const { manager, runner, events } = setup();
    manager.start('count');
    await settle();
    const { request } = runner.running.get('sub-1')!;
    const usage = { input: 1000, output: 200, cacheRead: 300, cacheWrite: 0 };
    request.onEvent({ type: 'turn_start', turn: 1 });
    request.onEvent({ type: 'tool_start', id: 't', name: 'grep', label: '"auth" src/', args: {} });
    request.onEvent({ type: 'usage', usage, total: usage });
    // A nudge or a resumed run starts its loop at turn 1 again: turns are counted, not copied.
    request.onEvent({ type: 'turn_start', turn: 1 });
    request.onEvent({ type: 'usage', usage, total: usage });
    const published = events.flatMap((e) => (e.type === 'job_event' ? [e.counters] : []));
    expect(published.map((c) => [c.turns, c.toolCalls])).toEqual([
      [1, 0],
      [1, 1],
      [1, 1],
      [2, 1],
      [2, 1],
    ]);
    const last = {
      turns: 2,
      toolCalls: 1,
      contextTokens: 1500,
      usage: { input: 2000, output: 400, cacheRead: 600, cacheWrite: 0 },
      lastEventAt: 0,
    };
    expect(published.at(-1)).toEqual(last);
    expect(manager.get('sub-1')).toMatchObject(last);
    // Each event carries its own figures: a later change does not reach one already published.
    expect(published[2]!.usage).toEqual(usage);
  });
});

describe('JobManager: budgets', () => {
  it('fail() ends a running job as failed with the reason, keeping its partial text, and the parent hears of it', async () => {
    const { manager, boundary } = setup();
    manager.start('expensive', { budget: { maxTokens: 100 } });
    await settle();
    expect(manager.get('sub-1').budget).toEqual({ maxTokens: 100 });
    manager.fail('sub-1', 'budget: tokens reached (150 of 100)');
    await settle();
    expect(manager.get('sub-1')).toMatchObject({
      state: 'error',
      error: 'budget: tokens reached (150 of 100)',
      result: 'partial text after abort',
    });
    expect(boundary()).toEqual(['Sub-agent sub-1 completed. Call agent_poll with id sub-1 for its summary.']);
    expect(manager.describePoll(await manager.poll('sub-1', never)).content).toBe(
      'sub-agent sub-1 failed: budget: tokens reached (150 of 100)\nPartial result:\npartial text after abort',
    );
  });
});
