import { describe, expect, it } from 'vitest';
import type { Job } from '../../../src/core/jobs/job-manager.js';
import type { LoopEvent } from '../../../src/core/loop/events.js';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import {
  type JobsState,
  activeJobs,
  applyJobEvent,
  applySent,
  describeActivity,
  jobsFromStore,
  noJobs,
  orderedJobs,
  owedJobs,
} from '../../../src/ui/state/jobs.js';
import { describeMessage } from '../../../src/ui/state/message-lines.js';
import { tailText } from '../../../src/ui/state/job-tail.js';
import { messagesText } from '../../../src/ui/components/agents-list.js';
import { formatRow } from '../../../src/ui/state/activity-rows.js';
import { counters, job } from '../harness.js';

const state = (snapshot: Job): SessionEvent => ({ type: 'job_state', job: snapshot });
const child = (jobId: string, event: LoopEvent, count = counters()): SessionEvent => ({
  type: 'job_event',
  jobId,
  event,
  counters: count,
});
const apply = (events: SessionEvent[], from: JobsState = noJobs) => events.reduce(applyJobEvent, from);
const usage = { input: 1000, output: 200, cacheRead: 300, cacheWrite: 0 };

describe('the job state the UI derives from the event stream', () => {
  it('keeps jobs in job-number order whatever order their events arrive in', () => {
    const jobs = apply([state(job({ number: 10 })), state(job({ number: 2 })), state(job({ number: 1, state: 'queued' }))]);
    expect(orderedJobs(jobs).map((v) => v.job.id)).toEqual(['sub-1', 'sub-2', 'sub-10']);
    expect(activeJobs(jobs).map((v) => describeActivity(v.activity, v.job.state))).toEqual(['queued', 'starting…', 'starting…']);
  });

  it('takes turns, tools and tokens from the counters the manager publishes with each child event', () => {
    const twice = { input: 2000, output: 400, cacheRead: 600, cacheWrite: 0 };
    const jobs = apply([
      state(job({ number: 1, turns: 0 })),
      child('sub-1', { type: 'turn_start', turn: 1 }, counters({ turns: 1 })),
      child(
        'sub-1',
        { type: 'tool_start', id: 't', name: 'grep', label: '"auth" src/', args: {} },
        counters({ turns: 1, toolCalls: 1 }),
      ),
      child('sub-1', { type: 'usage', usage, total: usage }, counters({ turns: 1, toolCalls: 1, usage, contextTokens: 1500 })),
      child('sub-1', { type: 'turn_start', turn: 2 }, counters({ turns: 2, toolCalls: 1, usage, contextTokens: 1500 })),
      child(
        'sub-1',
        { type: 'usage', usage, total: usage },
        counters({ turns: 2, toolCalls: 1, usage: twice, contextTokens: 1500 }),
      ),
    ]);
    const view = jobs.get('sub-1')!;
    expect(view.job).toMatchObject({
      turns: 2,
      toolCalls: 1,
      contextTokens: 1500,
      usage: { input: 2000, output: 400, cacheRead: 600 },
    });
    expect(describeActivity(view.activity, 'running')).toBe('thinking…');
  });

  it('says what a job does now: its tool and target, or a rolling tail of the text it streams', () => {
    let jobs = apply([
      state(job({ number: 1 })),
      child('sub-1', { type: 'tool_start', id: 't', name: 'read_file', label: 'src/a.ts', args: {} }),
    ]);
    expect(describeActivity(jobs.get('sub-1')!.activity, 'running')).toBe('read_file src/a.ts');
    for (const text of ['The auth module ', 'wraps every error ', 'in an AuthError and ', 'rethrows it.']) {
      jobs = applyJobEvent(jobs, child('sub-1', { type: 'text_delta', text }));
    }
    expect(describeActivity(jobs.get('sub-1')!.activity, 'running')).toBe(
      'writing: …h module wraps every error in an AuthError and rethrows it.',
    );
  });

  it("keeps the latest lines of a job's conversation from its events, not from its transcript file", () => {
    const events: SessionEvent[] = [state(job({ number: 1 }))];
    for (let i = 1; i <= 25; i++) {
      events.push(
        child('sub-1', {
          type: 'message_end',
          message: { role: 'assistant', content: [{ type: 'text', text: `step ${i}\nmore` }] },
          stopReason: 'end_turn',
        }),
      );
    }
    events.push(child('sub-1', { type: 'tool_end', id: 't', name: 'grep', content: 'no matches\n', isError: true }));
    const { tail } = apply(events).get('sub-1')!;
    expect(tail).toHaveLength(20);
    expect(tail[0]).toBe('assistant: step 7 more');
    // A result whose call left the tail still says which tool it came from.
    expect(tail.at(-1)).toBe('● grep ⎿ ✗ no matches');
  });

  it('folds each tool call and its result into one line: tool, target, a short outcome', () => {
    const jobs = apply([
      state(job({ number: 1 })),
      child('sub-1', {
        type: 'message_end',
        message: {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Reading both.' },
            { type: 'tool_use', id: 'a', name: 'read_file', input: { path: '/w/src/a.ts' } },
            { type: 'tool_use', id: 'b', name: 'grep', input: { pattern: 'auth', path: 'src' } },
          ],
        },
        stopReason: 'tool_use',
      }),
      child('sub-1', { type: 'tool_start', id: 'a', name: 'read_file', label: 'src/a.ts', args: { path: '/w/src/a.ts' } }),
      child('sub-1', { type: 'tool_start', id: 'b', name: 'grep', label: 'auth', args: { pattern: 'auth', path: 'src' } }),
      // Results arrive in any order; each folds into its own call's line.
      child('sub-1', { type: 'tool_end', id: 'b', name: 'grep', content: 'no matches', isError: true }),
    ]);
    const running = jobs.get('sub-1')!.tail.map((line) => tailText(line, '/w'));
    expect(running).toEqual(['assistant: Reading both.', '● read_file src/a.ts …', '● grep "auth" src ⎿ ✗ no matches']);
    const done = applyJobEvent(
      jobs,
      child('sub-1', {
        type: 'tool_end',
        id: 'a',
        name: 'read_file',
        content: 'export const a = 1;\n\nline 2\nline 3',
        isError: false,
      }),
    );
    expect(done.get('sub-1')!.tail.map((line) => tailText(line, '/w'))).toEqual([
      'assistant: Reading both.',
      '● read_file src/a.ts ⎿ export const a = 1; (+2 lines)',
      '● grep "auth" src ⎿ ✗ no matches',
    ]);
    // An assistant message holding only calls adds no line of its own.
    const quiet = applyJobEvent(
      done,
      child('sub-1', {
        type: 'message_end',
        message: { role: 'assistant', content: [{ type: 'tool_use', id: 'c', name: 'glob', input: { pattern: '*.md' } }] },
        stopReason: 'tool_use',
      }),
    );
    expect(quiet.get('sub-1')!.tail).toHaveLength(3);
  });

  it("shows the user's message: waiting in the inbox until the job's injected event, then as a line; its row counts it", () => {
    let jobs = apply([state(job({ number: 1 }))]);
    jobs = applySent(jobs, { jobId: 'sub-1', text: 'also check the tests', kind: 'inbox' });
    expect(jobs.get('sub-1')).toMatchObject({ unread: 1, tail: [] });
    expect(messagesText(jobs.get('sub-1')!)).toBe('1 message from you waiting for its next step');
    const injected = (text: string): SessionEvent =>
      child('sub-1', { type: 'injected', message: { role: 'user', content: [{ type: 'text', text }] } });
    jobs = apply([injected('Message from the user:\nalso check the tests')], jobs);
    expect(jobs.get('sub-1')).toMatchObject({ unread: 0, messages: 1, tail: ['message from you: also check the tests'] });
    // The parent's agent_send counts as a message too; other injected lines (a nudge) do not.
    jobs = apply([injected('Message from the parent agent:\nhurry'), injected('Reply with your final answer as text.')], jobs);
    expect(jobs.get('sub-1')).toMatchObject({ unread: 0, messages: 2 });
    expect(jobs.get('sub-1')!.tail.slice(1)).toEqual([
      'message from the parent: hurry',
      'user: Reply with your final answer as text.',
    ]);
    expect(messagesText(jobs.get('sub-1')!)).toBe('2 messages received');
  });

  it('says when a job ended before reading what waited in its inbox', () => {
    let jobs = apply([state(job({ number: 1 }))]);
    jobs = applySent(jobs, { jobId: 'sub-1', text: 'one', kind: 'inbox' });
    jobs = applySent(jobs, { jobId: 'sub-1', text: 'two', kind: 'inbox' });
    jobs = apply([state(job({ number: 1, state: 'done' }))], jobs);
    expect(jobs.get('sub-1')).toMatchObject({ unread: 0 });
    expect(jobs.get('sub-1')!.tail).toEqual(['2 of your messages were not read before it ended: send again to resume it']);
  });

  it("adds the line itself when the message joined a queued job's task or resumed an ended job (no event of the job's carries it)", () => {
    let jobs = apply([state(job({ number: 1, state: 'queued' })), state(job({ number: 2, state: 'done' }))]);
    jobs = applySent(jobs, { jobId: 'sub-1', text: 'and the docs', kind: 'task' });
    // The resumed job's queued state came first, from the manager.
    jobs = apply([state(job({ number: 2, state: 'queued' }))], jobs);
    jobs = applySent(jobs, { jobId: 'sub-2', text: 'one more\nthing', kind: 'resumed' });
    expect(jobs.get('sub-1')).toMatchObject({ messages: 1, tail: ['message from you (added to its task): and the docs'] });
    expect(jobs.get('sub-2')).toMatchObject({ messages: 1, tail: ['message from you: one more thing'], owed: false });
    // An unknown job (a race with a reset) changes nothing.
    expect(applySent(jobs, { jobId: 'sub-9', text: 'x', kind: 'inbox' })).toBe(jobs);
  });

  it('owes a done or failed job to the model until a delivery says it reached it; never a stopped one', () => {
    let jobs = apply([
      state(job({ number: 1, state: 'done' })),
      state(job({ number: 2, state: 'error', error: 'maxTurns' })),
      state(job({ number: 3, state: 'aborted' })),
    ]);
    expect(owedJobs(jobs)).toEqual(['sub-1', 'sub-2']);
    jobs = applyJobEvent(jobs, { type: 'job_delivered', jobIds: ['sub-2'], via: 'poll' });
    expect(owedJobs(jobs)).toEqual(['sub-1']);
    jobs = applyJobEvent(jobs, { type: 'job_delivered', jobIds: ['sub-1'], via: 'notice' });
    expect(owedJobs(jobs)).toEqual([]);
    expect(activeJobs(jobs)).toEqual([]);
  });

  it('remembers how the parent heard of each job: a wake turn, a notice with a prompt, or a poll', () => {
    let jobs = apply([state(job({ number: 1, state: 'done' })), state(job({ number: 2, state: 'done' }))]);
    jobs = applyJobEvent(jobs, { type: 'job_delivered', jobIds: ['sub-2'], via: 'poll' });
    // A turn without a prompt wakes the parent for what is still owed, and only that.
    jobs = applyJobEvent(jobs, { type: 'submit' });
    jobs = applyJobEvent(jobs, { type: 'job_delivered', jobIds: ['sub-1'], via: 'notice' });
    expect(jobs.get('sub-1')).toMatchObject({ owed: false, delivery: 'woke' });
    expect(jobs.get('sub-2')).toMatchObject({ owed: false, delivery: 'poll' });
    jobs = apply([state(job({ number: 3, state: 'done' })), { type: 'submit', prompt: 'next' }], jobs);
    jobs = applyJobEvent(jobs, { type: 'job_delivered', jobIds: ['sub-3'], via: 'notice' });
    expect(jobs.get('sub-3')).toMatchObject({ owed: false, delivery: 'notice' });
  });

  it("ignores a child's late events once its job ended, and events that are not about jobs", () => {
    const ended = apply([state(job({ number: 1, state: 'aborted', toolCalls: 2 }))]);
    expect(applyJobEvent(ended, child('sub-1', { type: 'tool_start', id: 't', name: 'grep', label: 'x', args: {} }))).toBe(ended);
    expect(applyJobEvent(ended, { type: 'text_delta', text: 'parent text' })).toBe(ended);
  });

  it("starts from a resumed session's stored jobs: finished, owed to nobody, with their tail", () => {
    const jobs = jobsFromStore([
      {
        job: job({ number: 4, state: 'done' }),
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Task:\nfind it' }] }],
      },
    ]);
    expect(jobs.get('sub-4')).toMatchObject({ owed: false, tail: ['user: Task: find it'], activity: { kind: 'ended' } });
  });

  it("folds a stored job's calls and results as they would have been live", () => {
    const jobs = jobsFromStore([
      {
        job: job({ number: 4, state: 'done' }),
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Task:\nfind it' }] },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'g', name: 'grep', input: { pattern: 'it' } }],
          },
          { role: 'user', content: [{ type: 'tool_result', toolUseId: 'g', content: 'a.ts:1: it\nb.ts:2: it', isError: false }] },
          { role: 'user', content: [{ type: 'text', text: 'Message from the user:\nlook in c.ts too' }] },
          { role: 'assistant', content: [{ type: 'text', text: 'Found it in a.ts.' }] },
        ],
      },
    ]);
    expect(jobs.get('sub-4')!.tail.map((line) => tailText(line))).toEqual([
      'user: Task: find it',
      '● grep "it" ⎿ a.ts:1: it (+1 line)',
      'message from you: look in c.ts too',
      'assistant: Found it in a.ts.',
    ]);
  });
});

describe('describeMessage', () => {
  it('puts a message on one line: text, thinking, calls and results', () => {
    expect(
      describeMessage({
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'x' },
          { type: 'tool_use', id: 't', name: 'grep', input: { pattern: 'a' } },
        ],
      }),
    ).toBe('assistant: (thinking) · → grep {"pattern":"a"}');
    expect(
      describeMessage({
        role: 'user',
        content: [{ type: 'tool_result', toolUseId: 't', content: 'no\nmatches', isError: true }],
      }),
    ).toBe('result: ✗ no matches');
    expect(describeMessage({ role: 'assistant', content: [] })).toBe('assistant: (empty)');
  });
});

describe('shell jobs and nested jobs in the UI state', () => {
  it('orders nested jobs under their owner and shells after the sub-agents; rows are indented by depth', () => {
    const jobs = apply([
      state(job({ number: 1, id: 'sh-1', kind: 'shell', task: 'npm run dev' })),
      state(job({ number: 3 })),
      state(job({ number: 1, id: 'sub-2.1', owner: 'sub-2', depth: 2 })),
      state(job({ number: 2 })),
      state(job({ number: 10 })),
    ]);
    expect(orderedJobs(jobs).map((v) => v.job.id)).toEqual(['sub-2', 'sub-2.1', 'sub-3', 'sub-10', 'sh-1']);
    expect(formatRow(jobs.get('sub-2.1')!, 0, 80)).toMatch(/^ {2}sub-2\.1 {2}starting…/);
  });

  it("a shell's row shows its command, then its last line of output, with its elapsed time and no token figures", () => {
    let jobs = apply([state(job({ number: 1, id: 'sh-1', kind: 'shell', task: 'npm test', startedAt: 0 }))]);
    expect(formatRow(jobs.get('sh-1')!, 5000, 80)).toBe('sh-1  npm test · 5s');
    jobs = apply([child('sh-1', { type: 'tool_update', id: 'sh-1', name: 'bash', text: 'PASS src/a.test.ts' })], jobs);
    expect(jobs.get('sh-1')!.job.lastLine).toBe('PASS src/a.test.ts');
    expect(formatRow(jobs.get('sh-1')!, 5000, 80)).toBe('sh-1  npm test › PASS src/a.test.ts · 5s');
    // A sub-agent's own tool output does not change its row.
    jobs = apply(
      [state(job({ number: 1 })), child('sub-1', { type: 'tool_update', id: 't', name: 'bash', text: 'noise' })],
      jobs,
    );
    expect(describeActivity(jobs.get('sub-1')!.activity, 'running')).toBe('starting…');
  });
});
