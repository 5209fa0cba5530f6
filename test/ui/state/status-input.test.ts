import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import { applyStatusEvent, emptyTotals, linesChanged, statusChanges } from '../../../src/ui/state/status-events.js';
import { jobStatusInput, sessionStatusInput } from '../../../src/ui/state/status-input.js';
import { counters, job, jobView } from '../harness.js';

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };

describe("the session's status JSON", () => {
  it("is Claude Code's shape, with outrider's own facts under `outrider`", () => {
    const input = sessionStatusInput({
      sessionId: 'abc',
      transcriptPath: '/home/u/.outrider/sessions/abc/transcript.jsonl',
      cwd: '/code/app',
      model: 'claude-sonnet-4-5',
      version: '1.2.3',
      mode: 'accept-edits',
      effort: 'high',
      cost: 0.42,
      startedAt: 1_000,
      now: 61_000,
      totals: { apiMs: 12_345, linesAdded: 10, linesRemoved: 3, calls: {} },
      jobs: [
        job({ number: 1, state: 'running' }),
        job({ number: 2, state: 'queued' }),
        job({ number: 3, state: 'done' }),
        job({ number: 4, state: 'error' }),
        job({ number: 5, state: 'aborted' }),
        job({ number: 6, id: 'sh-1', kind: 'shell', state: 'running' }),
      ],
      contextTokens: 5000,
      contextWindow: 200_000,
    });
    expect(input).toEqual({
      hook_event_name: 'Status',
      session_id: 'abc',
      transcript_path: '/home/u/.outrider/sessions/abc/transcript.jsonl',
      cwd: '/code/app',
      model: { id: 'claude-sonnet-4-5', display_name: 'claude-sonnet-4-5' },
      workspace: { current_dir: '/code/app', project_dir: '/code/app' },
      version: '1.2.3',
      output_style: { name: 'default' },
      cost: {
        total_cost_usd: 0.42,
        total_duration_ms: 60_000,
        total_api_duration_ms: 12_345,
        total_lines_added: 10,
        total_lines_removed: 3,
      },
      outrider: {
        mode: 'accept-edits',
        effort: 'high',
        cost_known: true,
        jobs: { running: 1, queued: 1, done: 1, failed: 2 },
        shells_running: 1,
        context_tokens: 5000,
        context_window: 200_000,
      },
    });
  });

  it('says so when the price is unknown, and gives null for what is not known', () => {
    const input = sessionStatusInput({
      sessionId: 's',
      cwd: '/p',
      model: 'local-model',
      version: '0.1.0',
      mode: 'default',
      startedAt: 0,
      now: 0,
      totals: emptyTotals,
      jobs: [],
    });
    expect(input).toMatchObject({
      transcript_path: null,
      cost: { total_cost_usd: 0, total_duration_ms: 0, total_api_duration_ms: 0 },
      outrider: { effort: null, cost_known: false, context_tokens: null, jobs: { running: 0, queued: 0, done: 0, failed: 0 } },
    });
  });
});

describe("a sub-agent row's status JSON", () => {
  it("is the job's facts, flat: id, definition, task, state, counts, usage, cost, model, elapsed, worktree", () => {
    const view = jobView(
      {
        number: 2,
        task: 'map the config loader',
        startedAt: 10_000,
        turns: 3,
        toolCalls: 7,
        usage: { input: 1200, output: 300, cacheRead: 50, cacheWrite: 20 },
        model: 'claude-haiku-4-5',
        effort: 'low',
        isolation: 'worktree',
      },
      { activity: { kind: 'tool', name: 'grep', label: 'grep', args: { pattern: 'auth', path: 'src' } } },
    );
    const input = jobStatusInput(view, {
      sessionId: 's1',
      cwd: '/code/app',
      now: 25_000,
      cost: 0.031,
      worktree: { path: '/tmp/wt/sub-2', branch: 'outrider/s1/sub-2' },
    });
    expect(input).toEqual({
      hook_event_name: 'SubagentStatus',
      session_id: 's1',
      cwd: '/code/app',
      id: 'sub-2',
      definition: 'explore',
      task: 'map the config loader',
      state: 'running',
      mode: 'typed',
      depth: 1,
      owner: null,
      activity: expect.stringContaining('auth'),
      turns: 3,
      tool_calls: 7,
      usage: { input_tokens: 1200, output_tokens: 300, cache_read_input_tokens: 50, cache_creation_input_tokens: 20 },
      cost_usd: 0.031,
      model: 'claude-haiku-4-5',
      effort: 'low',
      elapsed_ms: 15_000,
      worktree: { path: '/tmp/wt/sub-2', branch: 'outrider/s1/sub-2' },
    });
  });

  it('counts a queued job from its creation, and gives null for an unknown price, model or worktree', () => {
    const input = jobStatusInput(
      jobView({ number: 1, state: 'queued', createdAt: 5_000, startedAt: undefined, depth: 2, owner: 'sub-9' }),
      {
        sessionId: 's',
        cwd: '/p',
        now: 7_000,
      },
    );
    expect(input).toMatchObject({
      state: 'queued',
      elapsed_ms: 2_000,
      cost_usd: null,
      model: null,
      worktree: null,
      depth: 2,
      owner: 'sub-9',
    });
  });
});

describe('what the events mean for the status lines', () => {
  const parent = (event: SessionEvent, totals = emptyTotals, now = 0) => applyStatusEvent(totals, event, now);

  it('counts the time from each model call to its message, the parent and each job apart', () => {
    let totals = parent({ type: 'turn_start', turn: 1 }, emptyTotals, 1_000);
    totals = parent(
      { type: 'job_event', jobId: 'sub-1', event: { type: 'turn_start', turn: 1 }, counters: counters() },
      totals,
      1_500,
    );
    totals = parent({ type: 'message_end', message: { role: 'assistant', content: [] }, stopReason: 'end_turn' }, totals, 3_000);
    totals = parent(
      {
        type: 'job_event',
        jobId: 'sub-1',
        event: { type: 'message_end', message: { role: 'assistant', content: [] }, stopReason: 'end_turn' },
        counters: counters(),
      },
      totals,
      4_500,
    );
    expect(totals.apiMs).toBe(2_000 + 3_000);
    expect(totals.calls).toEqual({});
    // A message without a call it ends counts nothing; a job stopped mid-call drops its call.
    expect(
      parent({ type: 'message_end', message: { role: 'assistant', content: [] }, stopReason: 'end_turn' }, totals, 9_000).apiMs,
    ).toBe(5_000);
    const mid = parent(
      { type: 'job_event', jobId: 'sub-2', event: { type: 'turn_start', turn: 1 }, counters: counters() },
      totals,
      1,
    );
    const stopped = parent({ type: 'job_state', job: job({ number: 2, state: 'aborted' }) }, mid, 2);
    expect(stopped.calls).toEqual({});
  });

  it('counts the lines edit_file and write_file say they changed (errors and other tools not)', () => {
    const end = (name: string, content: string, isError = false): SessionEvent => ({
      type: 'tool_end',
      id: 't',
      name,
      content,
      isError,
    });
    let totals = parent(end('edit_file', 'Edited src/a.ts: replaced 1 occurrence (+3 -1)\n--- diff'));
    totals = parent(end('write_file', 'Updated b.ts (+2 -5)\n@@'), totals);
    totals = parent(end('write_file', 'Created c.ts (12 lines)'), totals);
    totals = parent(end('write_file', 'Created d.ts (1 line)'), totals);
    totals = parent(end('edit_file', 'Edited e.ts: (+100 -100)', true), totals);
    totals = parent(end('bash', 'Updated f (+9 -9)'), totals);
    totals = parent(
      {
        type: 'job_event',
        jobId: 'sub-1',
        event: { type: 'tool_end', id: 'x', name: 'write_file', content: 'Created g (4 lines)', isError: false },
        counters: counters(),
      },
      totals,
    );
    expect([totals.linesAdded, totals.linesRemoved]).toEqual([3 + 2 + 12 + 1 + 4, 1 + 5]);
    expect(linesChanged('a.ts already had this content; nothing changed.')).toBeUndefined();
    expect(linesChanged('Overwrote binary file x with 3 lines of text')).toBeUndefined();
    expect(linesChanged('Updated x (only the newline at the end changed)')).toBeUndefined();
  });

  it("asks for the session's line after a message, a tool, a job's state; for a job's row after its steps, not its tokens", () => {
    const delta: SessionEvent = { type: 'text_delta', text: 'x' };
    expect(statusChanges([delta, { type: 'thinking_delta', text: 'y' }])).toEqual({ session: false, jobs: new Set() });
    expect(statusChanges([{ type: 'submit', prompt: 'hi' }]).session).toBe(true);
    expect(statusChanges([{ type: 'run_end', cause: { kind: 'completed' } }]).session).toBe(true);
    const events: SessionEvent[] = [
      { type: 'job_state', job: job({ number: 1 }) },
      { type: 'job_event', jobId: 'sub-2', event: { type: 'text_delta', text: 'tok' }, counters: counters() },
      {
        type: 'job_event',
        jobId: 'sub-3',
        event: { type: 'tool_start', id: 't', name: 'grep', label: 'grep', args: {} },
        counters: counters(),
      },
      { type: 'job_event', jobId: 'sub-4', event: { type: 'usage', usage, total: usage }, counters: counters() },
    ];
    expect(statusChanges(events)).toEqual({ session: true, jobs: new Set(['sub-1', 'sub-3', 'sub-4']) });
  });
});
