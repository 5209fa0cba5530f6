import { describe, expect, it } from 'vitest';
import type { Job } from '../../../src/core/agents/job-manager.js';
import type { LoopEvent } from '../../../src/core/loop/events.js';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import {
  type JobsState,
  activeJobs,
  applyJobEvent,
  describeActivity,
  jobsFromStore,
  noJobs,
  orderedJobs,
  owedJobs,
} from '../../../src/ui/state/jobs.js';
import { describeMessage } from '../../../src/ui/state/message-lines.js';
import { formatRow } from '../../../src/ui/state/activity-rows.js';
import { job } from '../harness.js';

const state = (snapshot: Job): SessionEvent => ({ type: 'job_state', job: snapshot });
const child = (jobId: string, event: LoopEvent): SessionEvent => ({ type: 'job_event', jobId, event });
const apply = (events: SessionEvent[], from: JobsState = noJobs) => events.reduce(applyJobEvent, from);
const usage = { input: 1000, output: 200, cacheRead: 300, cacheWrite: 0 };

describe('the job state the UI derives from the event stream', () => {
  it('keeps jobs in job-number order whatever order their events arrive in', () => {
    const jobs = apply([state(job({ number: 10 })), state(job({ number: 2 })), state(job({ number: 1, state: 'queued' }))]);
    expect(orderedJobs(jobs).map((v) => v.job.id)).toEqual(['sub-1', 'sub-2', 'sub-10']);
    expect(activeJobs(jobs).map((v) => describeActivity(v.activity, v.job.state))).toEqual(['queued', 'starting…', 'starting…']);
  });

  it("counts turns, tools and tokens from the child's own events, as the manager does", () => {
    const jobs = apply([
      state(job({ number: 1, turns: 0 })),
      child('sub-1', { type: 'turn_start', turn: 1 }),
      child('sub-1', { type: 'tool_start', id: 't', name: 'grep', label: '"auth" src/', args: {} }),
      child('sub-1', { type: 'usage', usage, total: usage }),
      child('sub-1', { type: 'turn_start', turn: 2 }),
      child('sub-1', { type: 'usage', usage, total: usage }),
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
    expect(tail.at(-1)).toBe('result: ✗ no matches');
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
