import { Box } from 'ink';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/providers/types.js';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import { LiveRegion, TranscriptView } from '../../../src/ui/components/transcript-view.js';
import type { EntryBody, TranscriptState } from '../../../src/ui/state/transcript.js';
import { type UiItem, initialUiState, reduceBatch } from '../../../src/ui/state/ui-store.js';
import { counters, frame, job, mount } from '../harness.js';

const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });

/** One batch of session events, as the app's buffer hands them over. */
type Batch = UiItem[];
let seq = 0;
const events = (...list: SessionEvent[]): Batch => list.map((event) => ({ kind: 'event', item: { seq: ++seq, event } }));
const line = (entry: EntryBody): Batch => [{ kind: 'line', entry }];

/** The transcript after these batches, through the app's own reducer. */
function reduce(...batches: Batch[]): TranscriptState {
  return batchesFrom(initialUiState({ intro: [], storedJobs: [], wakeOnComplete: false }), batches).transcript;
}
function batchesFrom(state: ReturnType<typeof initialUiState>, batches: Batch[]) {
  return batches.reduce(reduceBatch, state);
}
/** One more batch onto a transcript state (the other parts of the UI state start empty). */
function more(transcript: TranscriptState, batch: Batch): TranscriptState {
  return reduceBatch({ ...initialUiState({ intro: [], storedJobs: [], wakeOnComplete: false }), transcript }, batch).transcript;
}

async function show(state: TranscriptState, busy = false): Promise<string> {
  const rendered = await mount(
    <Box flexDirection="column">
      <TranscriptView entries={state.entries} width={60} />
      <LiveRegion
        text={state.liveText}
        tools={state.tools}
        working={busy ? '⠋ working · Esc to interrupt' : undefined}
        width={60}
      />
    </Box>,
  );
  const text = frame(rendered);
  rendered.unmount();
  return text;
}

describe('the transcript', () => {
  it('streams assistant text live, then moves the whole message into the transcript', async () => {
    const streaming = reduce(
      events({ type: 'turn_start', turn: 1 }, { type: 'text_delta', text: 'Hel' }, { type: 'text_delta', text: 'lo' }),
    );
    expect(streaming.entries).toHaveLength(0);
    expect(streaming.liveText).toBe('Hello');
    expect(await show(streaming, true)).toContain('Hello');

    const ended = more(streaming, events({ type: 'message_end', message: assistant('Hello there.'), stopReason: 'end_turn' }));
    expect(ended.liveText).toBe('');
    expect(ended.entries).toEqual([{ id: 1, kind: 'assistant', text: 'Hello there.' }]);
    expect(await show(ended)).toContain('Hello there.');
  });

  it('shows a user prompt', async () => {
    expect(await show(reduce(events({ type: 'submit', prompt: 'fix the bug' })))).toContain('› fix the bug');
    expect(await show(reduce(line({ kind: 'info', text: 'a line of the app' })))).toContain('· a line of the app');
  });

  it('shows a running tool live, then one line with a short result summary', async () => {
    const running = reduce(
      events(
        { type: 'tool_start', id: 't1', name: 'bash', label: 'npm test', args: { command: 'npm test' } },
        { type: 'tool_update', id: 't1', name: 'bash', text: 'PASS a.test.ts\nRUNS b.test.ts\n' },
      ),
    );
    const live = await show(running, true);
    expect(live).toContain('● bash npm test');
    expect(live).toContain('⎿ RUNS b.test.ts');

    const done = more(running, events({ type: 'tool_end', id: 't1', name: 'bash', content: 'PASS a\nPASS b\n', isError: false }));
    expect(done.tools).toHaveLength(0);
    const text = await show(done);
    expect(text).toContain('● bash npm test');
    expect(text).toContain('⎿ PASS a (+1 line)');
  });

  it('words results for people: agent_start names the job it started, edits show their diff', async () => {
    const state = reduce(
      events(
        {
          type: 'tool_start',
          id: 't1',
          name: 'agent_start',
          label: 'read f1.txt and report',
          args: { task: 'read f1.txt and report' },
        },
        { type: 'job_state', job: job({ number: 1, definition: 'explore', task: 'read f1.txt and report' }) },
        {
          type: 'tool_end',
          id: 't1',
          name: 'agent_start',
          content: 'Sub-agent sub-1 started (running). Call agent_poll with id sub-1 to retrieve its summary.',
          isError: false,
        },
        {
          type: 'tool_start',
          id: 't2',
          name: 'edit_file',
          label: 'src/a.ts',
          args: { path: 'src/a.ts', old_string: 'a', new_string: 'b' },
        },
        {
          type: 'tool_end',
          id: 't2',
          name: 'edit_file',
          content: 'Edited src/a.ts: 1 replacement (+1 -1)\n@@ -1,2 +1,2 @@\n-const a = 1;\n+const b = 1;\n keep();',
          isError: false,
        },
      ),
    );
    const text = await show(state);
    // One line: the start says all the call line would (issue 25, item 9).
    expect(text).toContain('● started sub-1 · explore · "read f1.txt and report"');
    expect(text).not.toContain('agent_start "read f1.txt');
    expect(text).not.toContain('Call agent_poll');
    expect(text).toContain('⎿ Edited src/a.ts: 1 replacement (+1 -1)');
    expect(text).toMatch(/ {4}-const a = 1;\n {4}\+const b = 1;\n {4} keep\(\);/);
  });

  it('marks a failed tool call with its error', async () => {
    const state = reduce(
      events(
        { type: 'tool_start', id: 't1', name: 'read_file', label: 'src/x.ts', args: { path: 'src/x.ts' } },
        { type: 'tool_end', id: 't1', name: 'read_file', content: 'file not found: src/x.ts', isError: true },
      ),
    );
    expect(await show(state)).toContain('⎿ error: file not found: src/x.ts');
  });

  it('cuts a long tool line to the width', async () => {
    const label = 'a/very/long/path/'.repeat(10);
    const state = reduce(
      events(
        { type: 'tool_start', id: 't1', name: 'read_file', label, args: {} },
        { type: 'tool_end', id: 't1', name: 'read_file', content: 'x'.repeat(200), isError: false },
      ),
    );
    const lines = (await show(state)).split('\n').filter((line) => line.includes('read_file') || line.includes('⎿'));
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(Array.from(line).length).toBeLessThanOrEqual(60);
  });

  it('shows retries, injected messages, notices and compaction', async () => {
    const text = await show(
      reduce(
        events(
          { type: 'retry', attempt: 1, maxRetries: 4, delayMs: 2100, reason: '429 rate limited' },
          { type: 'injected', message: { role: 'user', content: [{ type: 'text', text: 'Sub-agent sub-1 completed.' }] } },
          { type: 'notice', level: 'warn', text: 'context is nearly full' },
          { type: 'notice', level: 'info', text: 'resumed 12 messages' },
          { type: 'compact', removedMessages: 14, summaryChars: 900 },
        ),
      ),
    );
    expect(text).toContain('retrying in 2.1s (429 rate limited, attempt 1/4)');
    expect(text).toContain('↳ to the model: Sub-agent sub-1 completed.');
    expect(text).toContain('! context is nearly full');
    expect(text).toContain('· resumed 12 messages');
    expect(text).toContain('compacted the conversation: 14 earlier messages replaced');
  });

  it('drops text streamed before a retry', () => {
    const state = reduce(
      events(
        { type: 'text_delta', text: 'half a sent' },
        { type: 'retry', attempt: 1, maxRetries: 4, delayMs: 500, reason: 'overloaded' },
      ),
    );
    expect(state.liveText).toBe('');
  });

  it('puts jobs that end in one batch in one entry, and says when the model will hear of them', async () => {
    const state = reduce(
      events(
        { type: 'job_state', job: job({ number: 1, state: 'done', task: 'find the loader' }) },
        { type: 'job_state', job: job({ number: 2, state: 'error', error: 'limit reached' }) },
        { type: 'job_state', job: job({ number: 4, state: 'aborted' }) },
      ),
      events({ type: 'job_state', job: job({ number: 3, state: 'done', task: 'later' }) }),
    );
    expect(state.entries.map((e) => e.kind)).toEqual(['jobs', 'jobs']);
    const text = await show(state);
    expect(text).toContain(
      '◆ sub-1 finished: find the loader\n◆ sub-2 failed: limit reached\n  the model hears of this with your next prompt',
    );
    expect(text).toContain('◆ sub-3 finished: later');
    expect(text).not.toContain('sub-4');
  });

  it('never claims a completion is owed when the model already has it, or while a turn runs', async () => {
    const polled = reduce(
      events(
        { type: 'job_state', job: job({ number: 1, state: 'done', task: 'read it' }) },
        { type: 'job_delivered', jobIds: ['sub-1'], via: 'poll' },
      ),
    );
    expect(await show(polled)).not.toContain('the model hears of this');
    const during = reduce(
      events({ type: 'submit', prompt: 'go' }, { type: 'job_state', job: job({ number: 2, state: 'done' }) }),
    );
    expect(await show(during)).not.toContain('the model hears of this');
    // With wake-on-complete on, the model hears of it without a prompt: no hint at all.
    const woken = batchesFrom(initialUiState({ intro: [], storedJobs: [], wakeOnComplete: true }), [
      events({ type: 'job_state', job: job({ number: 3, state: 'done' }) }),
    ]).transcript;
    expect(await show(woken)).not.toContain('the model hears of this');
  });

  it('keeps interrupted text and says how the run ended when it did not complete', async () => {
    const state = reduce(events({ type: 'text_delta', text: 'I was saying' }, { type: 'run_end', cause: { kind: 'aborted' } }));
    expect(state.liveText).toBe('');
    const text = await show(state);
    expect(text).toContain('I was saying');
    expect(text).toMatch(/■ interrupted$/m);
    // Said only when some run: the turn's end names them.
    const withJobs = await show(
      reduce(events({ type: 'job_state', job: job({ number: 1 }) }, { type: 'run_end', cause: { kind: 'aborted' } })),
    );
    expect(withJobs).toContain('■ interrupted (the sub-agent keeps running)');

    const failed = await show(reduce(events({ type: 'run_end', cause: { kind: 'error', message: 'invalid API key' } })));
    expect(failed).toContain('■ error: invalid API key');
    expect(reduce(events({ type: 'run_end', cause: { kind: 'completed' } })).entries).toHaveLength(0);
  });

  it('puts nothing in the transcript for thinking and bookkeeping events', () => {
    const state = reduce(
      events(
        { type: 'turn_start', turn: 1 },
        { type: 'thinking_delta', text: 'hmm' },
        {
          type: 'usage',
          usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
          total: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        },
        { type: 'job_state', job: job({ number: 1 }) },
        { type: 'job_event', jobId: 'sub-1', event: { type: 'turn_start', turn: 1 }, counters: counters({ turns: 1 }) },
        { type: 'job_delivered', jobIds: [], via: 'poll' },
        { type: 'turn_end', turn: 1 },
      ),
    );
    expect(state.entries).toHaveLength(0);
    expect(state.liveText).toBe('');
  });
});
