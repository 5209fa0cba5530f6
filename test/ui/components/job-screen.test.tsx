import { Box } from 'ink';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/providers/types.js';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import type { LoopEvent } from '../../../src/core/loop/events.js';
import type { WorktreeRecord } from '../../../src/core/worktrees/worktree-jobs.js';
import type { PendingApproval } from '../../../src/ui/approval-broker.js';
import { entryLines, liveLines } from '../../../src/ui/components/entry-lines.js';
import { JobScreen, type JobScreenProps } from '../../../src/ui/components/job-screen.js';
import { TranscriptView } from '../../../src/ui/components/transcript-view.js';
import { jobTranscript } from '../../../src/ui/state/job-transcript.js';
import { JobViewStore } from '../../../src/ui/state/job-view-store.js';
import type { JobView } from '../../../src/ui/state/jobs.js';
import { FakeClock } from '../../support/fake-clock.js';
import { KEY, counters, frame, jobView, keys, mount, until } from '../harness.js';

const WIDTH = 80;
const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });

/** A job's conversation with Markdown, an edit with its diff, and its answer. */
const worked: Message[] = [
  user('Task:\nfix the greeting'),
  {
    role: 'assistant',
    content: [
      { type: 'text', text: '## Plan\n\nChange **one** line:\n\n- `a.ts`: the greeting' },
      { type: 'tool_use', id: 't1', name: 'edit_file', input: { path: '/w/a.ts', old: 'hi', new: 'hello' } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        toolUseId: 't1',
        content: 'Edited a.ts (+1 -1)\n@@ -1 +1 @@\n-export const greeting = "hi";\n+export const greeting = "hello";',
      },
    ],
  },
  assistant('Done: the greeting says **hello**.'),
];

/** A job's transcript in its store, as the job view builds it. */
function bodyOf(messages: Message[], options: { running?: boolean; height?: number } = {}) {
  const running = options.running ?? false;
  return new JobViewStore(jobTranscript('sub-1', { messages, pending: [] }, { running, root: '/w' }), {
    entryLines,
    liveLines,
    width: WIDTH,
    height: options.height ?? 20,
  });
}

interface Calls {
  stopped: string[];
  sent: [string, string][];
  closed: number;
}

async function screen(props: Partial<JobScreenProps> & { view: JobView; body: JobViewStore }) {
  const clock = new FakeClock();
  const calls: Calls = { stopped: [], sent: [], closed: 0 };
  const rendered = await mount(
    <JobScreen
      now={80_000}
      width={WIDTH}
      height={40}
      clock={clock}
      onStop={(id) => calls.stopped.push(id)}
      onSend={(id, text) => {
        calls.sent.push([id, text]);
        return true;
      }}
      onClose={() => (calls.closed += 1)}
      root="/w"
      {...props}
    />,
  );
  // The store draws for the view's own height on the next tick.
  await until(() => clock.pending() === 0, { clock, rendered });
  return { rendered, calls, clock };
}

const runningView = jobView(
  {
    number: 1,
    task: 'fix the greeting',
    startedAt: 0,
    turns: 3,
    toolCalls: 5,
    model: 'claude-sonnet-5',
    effort: 'high',
    usage: { input: 9000, output: 3000, cacheRead: 0, cacheWrite: 0 },
    budget: { maxTurns: 10, maxToolCalls: 40, maxTokens: 1_000_000, maxCostUsd: 0.5, maxDurationMs: 300_000 },
  },
  { activity: { kind: 'tool', name: 'bash', label: 'npm test', args: { command: 'npm test' } } },
);
const doneView = jobView(
  { number: 1, state: 'done', task: 'fix the greeting', startedAt: 0, endedAt: 65_000, turns: 2, toolCalls: 1, result: 'Done' },
  { activity: { kind: 'ended' }, delivery: 'notice' },
);

describe('the job view', () => {
  it("draws the job's transcript as the main chat draws it: Markdown, the edit's diff, the answer", async () => {
    const body = bodyOf(worked);
    const { rendered } = await screen({ view: doneView, body });
    const text = frame(rendered);
    expect(text).toContain('Plan');
    expect(text).not.toContain('## Plan');
    expect(text).toContain('Change one line:');
    expect(text).toContain('• a.ts: the greeting');
    expect(text).toContain('● edit_file a.ts');
    expect(text).toContain('  ⎿ Edited a.ts (+1 -1)');
    expect(text).toContain('    -export const greeting = "hi";');
    expect(text).toContain('    +export const greeting = "hello";');
    expect(text).toContain('Done: the greeting says hello.');

    // Line for line what the chat prints for the same entries.
    const chat = await mount(
      <Box flexDirection="column">
        <TranscriptView entries={body.transcript().transcript.entries} width={WIDTH} />
      </Box>,
    );
    const printed = frame(chat).split('\n').filter(Boolean);
    const shown = text.split('\n');
    const start = shown.findIndex((line) => line.startsWith('── transcript'));
    expect(
      shown
        .slice(start + 1)
        .filter(Boolean)
        .slice(0, printed.length),
    ).toEqual(printed);
  });

  it('heads the view with its state, model and effort, and what it used against each cap', async () => {
    const { rendered } = await screen({ view: runningView, body: bodyOf(worked, { running: true }), cost: 0.02 });
    const text = frame(rendered);
    expect(text).toContain('sub-1 · explore · running 1m20s · claude-sonnet-5 · effort high');
    expect(text).toContain('Task: fix the greeting');
    // Every figure against its cap; what does not fit the width goes on the next line, never cut.
    expect(text).toContain(
      'Used: 3 of 10 turns · 5 of 40 tool calls · 12k of 1.0M tokens · $0.02 of $0.50\n      1m20s of 5m00s\n',
    );
    expect(text).toContain('Now: bash npm test');
    expect(text.split('\n').at(-1)).toBe('Enter write a message · ↑/↓ PgUp/PgDn scroll · End follow · x stop · Esc back');
  });

  it('without a price for its model, the dollars read $? against the cap', async () => {
    const { rendered } = await screen({ view: runningView, body: bodyOf(worked, { running: true }), width: 120 });
    expect(frame(rendered)).toContain('12k of 1.0M tokens · $? of $0.50 · 1m20s of 5m00s');
  });

  it('scrolls: PgUp/PgDn by a screen, ↑/↓ by a line, g to the top, End or G back to the live end it follows', async () => {
    const many = Array.from({ length: 60 }, (_, i) => user(`prompt ${i + 1}`));
    const body = bodyOf(many);
    const { rendered } = await screen({ view: doneView, body, height: 20 });
    const visible = () => frame(rendered);
    expect(visible()).toContain('› prompt 60');
    expect(visible()).toContain('── transcript · ↑ more above');
    await keys(rendered, '\u001B[5~');
    expect(visible()).not.toContain('› prompt 60');
    expect(visible()).toMatch(/↓ more below · End or G follows/);
    await keys(rendered, KEY.down);
    const offset = body.snapshot().offset;
    await keys(rendered, KEY.up, KEY.up);
    expect(body.snapshot().offset).toBe(offset + 2);
    await keys(rendered, 'g');
    expect(visible()).toContain('› prompt 1\n');
    expect(visible()).toMatch(/── transcript ─/);
    await keys(rendered, 'G');
    expect(visible()).toContain('› prompt 60');
    await keys(rendered, '\u001B[5~', '\u001B[F');
    expect(body.snapshot().offset).toBe(0);
    expect(visible()).toMatch(/── end ─/);
  });

  it('follows a running job live; scrolled back, says how many lines came below', async () => {
    const body = bodyOf([...Array.from({ length: 30 }, (_, i) => user(`earlier ${i}`)), ...worked], { running: true });
    const { rendered, clock } = await screen({ view: runningView, body });
    const event = (inner: LoopEvent): SessionEvent => ({ type: 'job_event', jobId: 'sub-1', event: inner, counters: counters() });
    body.apply([
      { kind: 'event', event: event({ type: 'turn_start', turn: 4 }) },
      { kind: 'event', event: event({ type: 'text_delta', text: 'Running the tests now' }) },
    ]);
    await until(() => frame(rendered).includes('Running the tests now\n── following live'), { clock, rendered });
    await keys(rendered, '\u001B[5~');
    body.apply([
      {
        kind: 'event',
        event: event({ type: 'message_end', message: assistant('Running the tests now.'), stopReason: 'end_turn' }),
      },
      {
        kind: 'event',
        event: event({ type: 'tool_start', id: 't9', name: 'bash', args: { command: 'npm test' }, label: 'npm test' }),
      },
    ]);
    await until(() => /↓ \d+ new lines? below · End or G follows/.test(frame(rendered)), { clock, rendered });
    await keys(rendered, 'G');
    expect(frame(rendered)).toContain('● bash npm test\n── following live');
  });

  it('a finished job stays readable: its transcript, no stop key, and x says it has ended', async () => {
    const { rendered, calls } = await screen({ view: doneView, body: bodyOf(worked) });
    const text = frame(rendered);
    expect(text).toContain('sub-1 · explore · done 1m05s');
    expect(text).toContain('Parent: told with a completion notice');
    expect(text).toContain('Done: the greeting says hello.');
    expect(text.split('\n').at(-1)).not.toContain('x stop');
    await keys(rendered, 'x');
    expect(calls.stopped).toEqual([]);
    expect(frame(rendered)).toContain('sub-1 has already ended');
    await keys(rendered, KEY.escape);
    expect(calls.closed).toBe(1);
  });

  it('x stops a running job at once; Enter opens the message line, where x is text and Enter sends', async () => {
    const { rendered, calls } = await screen({ view: runningView, body: bodyOf(worked, { running: true }) });
    await keys(rendered, KEY.enter, 'x then check the tests', KEY.enter);
    expect(calls.sent).toEqual([['sub-1', 'x then check the tests']]);
    expect(calls.stopped).toEqual([]);
    expect(frame(rendered)).toContain('sent to sub-1: it reads it at its next step');
    // Esc closes the message line (not the view); then x stops.
    await keys(rendered, KEY.enter, KEY.escape, 'x');
    expect(calls.stopped).toEqual(['sub-1']);
    expect(calls.closed).toBe(0);
  });

  it('an isolated job: its worktree line with its changes; m merges once it has ended', async () => {
    const record: WorktreeRecord = { jobId: 'sub-1', repo: '/w', path: '/s/wt/sub-1', branch: 'outrider/s1/sub-1', base: 'abc' };
    const merged: string[] = [];
    const { rendered } = await screen({
      view: doneView,
      body: bodyOf(worked),
      worktree: record,
      changesOf: async () => ({ files: ['a.ts', 'b.ts'], insertions: 5, deletions: 1 }),
      onWorktree: async (verb, id) => {
        merged.push(`${verb} ${id}`);
        return { content: `Merged ${id}: applied a.ts, b.ts to the checkout (uncommitted)`, isError: false };
      },
    });
    await until(() => frame(rendered).includes('2 files changed'), { rendered });
    expect(frame(rendered)).toContain('Worktree: branch outrider/s1/sub-1 · 2 files changed (+5 −1): a.ts, b.ts');
    // At 80 columns the keys take their short names.
    expect(frame(rendered).split('\n').at(-1)).toBe('Enter message · ↑↓ PgUp PgDn · End · m merge · d×2 discard · Esc back');
    await keys(rendered, 'm');
    await until(() => frame(rendered).includes('Merged sub-1: applied a.ts, b.ts'), { rendered });
    expect(merged).toEqual(['merge sub-1']);
  });

  it('a waiting approval shows as a banner that says how to answer it', async () => {
    const pending: PendingApproval[] = [
      {
        key: 1,
        request: { toolName: 'write_file', args: { path: '/w/notes.txt' }, label: 'notes.txt', reason: '', jobId: 'sub-2' },
      },
    ];
    const { rendered } = await screen({ view: runningView, body: bodyOf(worked, { running: true }), pending });
    expect(frame(rendered).split('\n')[0]).toBe('! approval waiting: write_file notes.txt for sub-2 · Esc to answer it');
  });

  it('never draws taller than the terminal allows, however small, and keeps its last line for the keys', async () => {
    for (const rows of [8, 12, 24]) {
      const { rendered } = await screen({ view: runningView, body: bodyOf(worked, { running: true }), height: rows });
      const lines = frame(rendered).split('\n');
      expect(lines.length).toBeLessThanOrEqual(rows - 1);
      expect(lines.at(-1)).toContain('Esc back');
      rendered.unmount();
    }
  });
});
