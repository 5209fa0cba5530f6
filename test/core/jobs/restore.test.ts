/** A resumed session's jobs in the manager: what is owed is announced once, interrupted jobs named with what they did, and resumable. */
import { describe, expect, it } from 'vitest';
import { INTERRUPTED, deliveryNotice, interruptedError } from '../../../src/core/jobs/interrupted.js';
import { type ChildOutcome, type ChildRunRequest, JobManager, type StoredJob } from '../../../src/core/jobs/job-manager.js';
import type { Job } from '../../../src/core/jobs/job-types.js';
import { type Message, emptyUsage } from '../../../src/core/providers/types.js';
import { settle } from '../../support/fake-clock.js';

const text = (t: string) => ({ type: 'text' as const, text: t });
const never = new AbortController().signal;

const job = (id: string, extra: Partial<Job> = {}): Job => ({
  id,
  number: Number(/(\d+)$/.exec(id)![1]),
  state: 'done',
  definition: 'explore',
  mode: 'typed',
  task: `task of ${id}`,
  createdAt: 0,
  turns: 1,
  toolCalls: 0,
  contextTokens: 0,
  usage: emptyUsage(),
  result: `report of ${id}`,
  ...extra,
});

const interrupted = (id: string, extra: Partial<Job> = {}): Job =>
  job(id, { state: 'error', interrupted: true, error: INTERRUPTED, result: '(sub-agent produced no text output)', ...extra });

const history = (id: string): Message[] => [
  { role: 'user', content: [text(`Task:\ntask of ${id}`)] },
  { role: 'assistant', content: [text(`Working on ${id}.`), { type: 'tool_use', id: 'toolu_1', name: 'bash', input: {} }] },
  { role: 'user', content: [{ type: 'tool_result', toolUseId: 'toolu_1', content: 'lost', isError: true }] },
];

function setup(stored: StoredJob[]) {
  const requests: ChildRunRequest[] = [];
  const finishers = new Map<string, (o: ChildOutcome) => void>();
  const manager = new JobManager({
    run: (request) =>
      new Promise((resolve) => {
        requests.push(request);
        finishers.set(request.id, resolve);
      }),
  });
  manager.restore(stored);
  const boundary = () =>
    manager.boundaryMessages().map((m) => {
      manager.confirm(m);
      return { text: (m.content[0] as { text: string }).text, ids: m.noticeFor };
    });
  return { manager, requests, finishers, boundary };
}

describe('restored jobs', () => {
  it('announces, in one notice, the ended jobs the model never heard of and the interrupted ones with what each had done; once', () => {
    const { manager, boundary } = setup([
      { job: job('sub-1'), messages: [], owed: false },
      { job: job('sub-2'), messages: [], owed: true },
      { job: job('sub-3', { state: 'aborted' }), messages: [], owed: true },
      {
        job: interrupted('sub-4', { turns: 3, toolCalls: 5, result: 'Half way: the parser is in src/parse.ts and' }),
        messages: history('sub-4'),
        owed: true,
      },
      {
        job: interrupted('sub-5', {
          definition: 'general',
          turns: 1,
          toolCalls: 1,
          error: interruptedError('salvaged: 1 file (notes.txt) committed to branch outrider/s/sub-5'),
        }),
        messages: [],
        owed: true,
      },
      {
        job: interrupted('sh-1', { kind: 'shell', definition: 'shell', task: 'npm run dev', lastLine: 'ready on :3000' }),
        messages: [],
        owed: true,
      },
      { job: interrupted('sub-6'), messages: [], owed: false },
    ]);
    expect(manager.undelivered()).toEqual(['sub-2', 'sub-4', 'sub-5', 'sh-1']);
    expect(boundary()).toEqual([
      {
        ids: ['sub-2', 'sub-4', 'sub-5', 'sh-1'],
        text: [
          'Sub-agent sub-2 completed. Call agent_poll with id sub-2 for its summary.',
          '',
          'Interrupted: the session ended (outrider was stopped or crashed) before sub-4, sub-5 and sh-1 finished. What each had done:',
          '- sub-4 (explore): 3 turns, 5 tool calls; last text: "Half way: the parser is in src/parse.ts and"',
          '- sub-5 (general): 1 turn, 1 tool call; salvaged: 1 file (notes.txt) committed to branch outrider/s/sub-5; no text yet',
          '- sh-1 (shell `npm run dev`): last line: "ready on :3000"',
          'Call agent_send with an id to resume that sub-agent with its history and your message, or agent_poll for its partial result.',
          'A background shell cannot be resumed: start it again if it is still needed.',
        ].join('\n'),
      },
    ]);
    expect(boundary()).toEqual([]);
    expect(manager.undelivered()).toEqual([]);
    // /agents lists them all, the interrupted ones told apart by their flag and error.
    expect(manager.list().map((j) => [j.id, j.state, j.interrupted ?? false])).toEqual([
      ['sub-1', 'done', false],
      ['sub-2', 'done', false],
      ['sub-3', 'aborted', false],
      ['sub-4', 'error', true],
      ['sub-5', 'error', true],
      ['sub-6', 'error', true],
      ['sh-1', 'error', true],
    ]);
  });

  it('a poll of an owed job delivers it instead of the notice, and says it was interrupted, with its partial text', async () => {
    const { manager, boundary } = setup([{ job: interrupted('sub-1', { result: 'partial' }), messages: [], owed: true }]);
    expect(manager.describePoll(await manager.poll('sub-1', never))).toEqual({
      content: `sub-agent sub-1 failed: ${INTERRUPTED}\nPartial result:\npartial`,
      isError: true,
    });
    expect(boundary()).toEqual([]);
  });

  it('agent_send resumes an interrupted job with its history, as an ordinary job again; one that never ran starts over from its task', async () => {
    const { manager, requests, finishers, boundary } = setup([
      { job: interrupted('sub-1'), messages: history('sub-1'), owed: true },
      { job: interrupted('sub-2'), messages: [], owed: true },
    ]);
    boundary();
    expect(manager.send('sub-1', 'go on from where you were').kind).toBe('resumed');
    expect(manager.send('sub-2', 'now').kind).toBe('resumed');
    await settle();
    expect(requests.map((r) => [r.id, r.resume?.length, r.task])).toEqual([
      ['sub-1', 4, 'task of sub-1'],
      ['sub-2', undefined, 'task of sub-2\n\nThe parent adds: now'],
    ]);
    expect(requests[0]!.resume!.slice(0, 3)).toEqual(history('sub-1'));
    expect(requests[0]!.resume!.at(-1)).toEqual({
      role: 'user',
      content: [text('Message from the parent agent:\ngo on from where you were')],
    });
    expect(manager.get('sub-1')).toMatchObject({ state: 'running', error: undefined });
    expect(manager.get('sub-1').interrupted).toBeUndefined();
    finishers.get('sub-1')!({ status: 'done', text: 'finished now' });
    await settle();
    expect(boundary()).toEqual([
      { ids: ['sub-1'], text: 'Sub-agent sub-1 completed. Call agent_poll with id sub-1 for its summary.' },
    ]);
  });

  it('the notice text: completions alone read as before, one interrupted job in the singular', () => {
    expect(deliveryNotice([job('sub-1'), job('sh-2', { kind: 'shell' })])).toBe(
      'Jobs sub-1, sh-2 completed. Call agent_poll for each result.',
    );
    expect(deliveryNotice([interrupted('sub-7', { turns: 0, toolCalls: 0 })])).toBe(
      [
        'Interrupted: the session ended (outrider was stopped or crashed) before sub-7 finished. What it had done:',
        '- sub-7 (explore): 0 turns, 0 tool calls; no text yet',
        'Call agent_send with an id to resume that sub-agent with its history and your message, or agent_poll for its partial result.',
      ].join('\n'),
    );
  });
});
