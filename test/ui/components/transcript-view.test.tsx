import { Box } from 'ink';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/core/loop/events.js';
import type { Message } from '../../../src/core/providers/types.js';
import { LiveRegion, TranscriptView } from '../../../src/ui/components/transcript-view.js';
import {
  type TranscriptAction,
  type TranscriptState,
  initialTranscript,
  transcriptReducer,
} from '../../../src/ui/state/transcript.js';
import { frame, mount } from '../harness.js';

const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });

function reduce(...actions: TranscriptAction[]): TranscriptState {
  return actions.reduce(transcriptReducer, initialTranscript);
}

const events = (...list: AgentEvent[]): TranscriptAction => ({ type: 'events', events: list });

async function show(state: TranscriptState, busy = false): Promise<string> {
  const rendered = await mount(
    <Box flexDirection="column">
      <TranscriptView entries={state.entries} width={60} />
      <LiveRegion text={state.liveText} thinking={state.thinking} tools={state.tools} busy={busy} width={60} />
    </Box>,
  );
  const text = frame(rendered);
  rendered.unmount();
  return text;
}

describe('the transcript', () => {
  it('streams assistant text live, then moves the whole message into the transcript', async () => {
    const streaming = reduce(events({ type: 'turn_start', turn: 1 }, { type: 'text_delta', text: 'Hel' }, { type: 'text_delta', text: 'lo' }));
    expect(streaming.entries).toHaveLength(0);
    expect(streaming.liveText).toBe('Hello');
    expect(await show(streaming, true)).toContain('Hello');

    const ended = transcriptReducer(streaming, events({ type: 'message_end', message: assistant('Hello there.'), stopReason: 'end_turn' }));
    expect(ended.liveText).toBe('');
    expect(ended.entries).toEqual([{ id: 1, kind: 'assistant', text: 'Hello there.' }]);
    expect(await show(ended)).toContain('Hello there.');
  });

  it('shows a user prompt', async () => {
    expect(await show(reduce({ type: 'append', entry: { kind: 'user', text: 'fix the bug' } }))).toContain('› fix the bug');
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

    const done = transcriptReducer(running, events({ type: 'tool_end', id: 't1', name: 'bash', content: 'PASS a\nPASS b\n', isError: false }));
    expect(done.tools).toHaveLength(0);
    const text = await show(done);
    expect(text).toContain('● bash npm test');
    expect(text).toContain('⎿ PASS a (+1 line)');
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
      events({ type: 'text_delta', text: 'half a sent' }, { type: 'retry', attempt: 1, maxRetries: 4, delayMs: 500, reason: 'overloaded' }),
    );
    expect(state.liveText).toBe('');
  });

  it('batches completion notices that arrive together into one entry, and says when the model will hear', async () => {
    const state = reduce(
      { type: 'events', idle: true, events: [
        { type: 'job_notice', text: 'sub-1 finished: find the loader', jobIds: ['sub-1'] },
        { type: 'job_row', key: 'sub-1', text: '', rank: 1 },
        { type: 'job_notice', text: 'sub-2 failed: limit reached', jobIds: ['sub-2'] },
      ] },
      { type: 'events', events: [{ type: 'job_notice', text: 'sub-3 finished: later', jobIds: ['sub-3'] }] },
    );
    expect(state.entries.map((e) => e.kind)).toEqual(['jobs', 'jobs']);
    const text = await show(state);
    expect(text).toContain('◆ sub-1 finished: find the loader\n◆ sub-2 failed: limit reached\n  the model hears of this with your next prompt');
    expect(text).toContain('◆ sub-3 finished: later');
  });

  it('keeps interrupted text and says how the run ended when it did not complete', async () => {
    const state = reduce(events({ type: 'text_delta', text: 'I was saying' }, { type: 'run_end', cause: { kind: 'aborted' } }));
    expect(state.liveText).toBe('');
    const text = await show(state);
    expect(text).toContain('I was saying');
    expect(text).toContain('■ interrupted (sub-agents keep running)');

    const failed = await show(reduce(events({ type: 'run_end', cause: { kind: 'error', message: 'invalid API key' } })));
    expect(failed).toContain('■ error: invalid API key');
    expect(reduce(events({ type: 'run_end', cause: { kind: 'completed' } })).entries).toHaveLength(0);
  });

  it('shows thinking while the model thinks, and nothing in the transcript for bookkeeping events', async () => {
    const state = reduce(
      events(
        { type: 'turn_start', turn: 1 },
        { type: 'thinking_delta', text: 'hmm' },
        { type: 'usage', usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, total: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 } },
        { type: 'job_state', jobId: 'sub-1', state: 'running', definition: 'explore', label: 'x' },
        { type: 'job_status', text: 'subagents: 1 running', short: 'agents 1▶' },
        { type: 'job_event', jobId: 'sub-1', event: { type: 'turn_start', turn: 1 } },
        { type: 'turn_end', turn: 1 },
      ),
    );
    expect(state.entries).toHaveLength(0);
    expect(await show(state, true)).toContain('thinking…');
  });
});
