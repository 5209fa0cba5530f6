import { Box } from 'ink';
import { describe, expect, it } from 'vitest';
import { Markdown } from '../../src/ui/markdown/markdown.js';
import { TranscriptEntry } from '../../src/ui/components/transcript-entry.js';
import { helpLines } from '../../src/ui/keymap.js';
import { statusSegment } from '../../src/ui/state/job-status.js';
import { toolResultView } from '../../src/ui/state/tool-text.js';
import { hangingWrap } from '../../src/ui/text-cells.js';
import { LiveRegion, withoutFences } from '../../src/ui/components/transcript-view.js';
import { resumeTarget } from '../../src/ui/state/resume-target.js';
import { AgentsList } from '../../src/ui/components/agents-list.js';
import type { Message } from '../../src/core/providers/types.js';
import type { SessionEvent } from '../../src/core/session/event-stream.js';
import { type UiItem, initialUiState, reduceBatch } from '../../src/ui/state/ui-store.js';
import { frame, job, jobView, mount } from './harness.js';

/** What a newcomer met in the chat (issue 25), each at the level that decides it. */
async function show(tree: Parameters<typeof mount>[0]): Promise<string> {
  const rendered = await mount(tree);
  const out = frame(rendered);
  rendered.unmount();
  return out;
}

describe('wrapped prose', () => {
  it('never starts a row with the space it broke at, at 70 and 100 columns', async () => {
    // Words whose rows fill the width exactly: Ink keeps the separating space for the next row.
    for (const width of [70, 100]) {
      const word = 'x'.repeat(width / 10 - 1);
      const text = Array.from({ length: 60 }, () => word).join(' ');
      const out = await show(<Markdown text={`**Answer:** ${text} and \`code\` too`} width={width} />);
      const rows = out.split('\n');
      expect(rows.length).toBeGreaterThan(3);
      for (const row of rows) {
        expect(row).not.toMatch(/^ /);
        expect(row.length).toBeLessThanOrEqual(width);
      }
    }
  });

  it('wraps a user prompt and a notice without a leading space either', async () => {
    const text = Array.from({ length: 40 }, () => 'abcdefghi').join(' ');
    const out = await show(
      <Box width={61}>
        <TranscriptEntry entry={{ id: 1, kind: 'user', text }} width={61} />
      </Box>,
    );
    expect(out.split('\n').filter((row) => row.startsWith(' ') && row.trim())).toEqual([]);
  });
});

describe('/help and /mcp lines', () => {
  it('wrap with a hanging indent under the description, never back to column 0', async () => {
    const lines = helpLines();
    const out = await show(<TranscriptEntry entry={{ id: 1, kind: 'block', title: 'Help', lines }} width={60} />);
    const rows = out.split('\n').slice(out.split('\n').indexOf('Help') + 1);
    expect(rows.length).toBeGreaterThan(lines.length);
    // Every row is indented: a listing row or the continuation of one.
    for (const row of rows.filter((r) => r.trim() && !/^(Keys|Commands)$/.test(r))) expect(row).toMatch(/^ {2}/);
    const ctrlK = rows.findIndex((row) => row.startsWith('  Ctrl+K '));
    const column = rows[ctrlK]!.indexOf('stop every');
    expect(rows[ctrlK + 1]!.slice(0, column).trim()).toBe('');
    expect(rows[ctrlK + 1]![column]).not.toBe(' ');
  });

  it('hangs a line with no column under its own indent', () => {
    expect(
      hangingWrap(`  ${'tool_name, '.repeat(8)}`, 40)
        .slice(1)
        .every((row) => row.startsWith('    ')),
    ).toBe(true);
    expect(hangingWrap('short  line', 40)).toEqual(['short  line']);
  });
});

describe('a sub-agent start in the transcript', () => {
  it('takes one line that names the job, the agent and the task', async () => {
    const view = toolResultView({
      name: 'agent_start',
      args: { task: 'map the config loader' },
      content: 'Sub-agent sub-1 started (running). Call agent_poll with id sub-1 to retrieve its summary.',
      isError: false,
      job: () => ({ id: 'sub-1', definition: 'explore', task: 'map the config loader' }),
    });
    const out = await show(
      <TranscriptEntry
        entry={{
          id: 1,
          kind: 'tool',
          name: 'agent_start',
          action: 'agent_start "map the config loader"',
          isError: false,
          ...view,
        }}
        width={100}
      />,
    );
    expect(out).toBe('● started sub-1 · explore · "map the config loader"');
  });

  it('never shows the words meant for the model when the job is not known (a resumed history)', () => {
    const view = toolResultView({
      name: 'agent_start',
      args: { task: 'map the config loader' },
      content: 'Sub-agent sub-1 started (running). Call agent_poll with id sub-1 to retrieve its summary.',
      isError: false,
    });
    expect(view.summary).toBe('started sub-1 · "map the config loader"');
  });
});

describe("plan mode's refusal", () => {
  it('is short enough to read and names the key, not a flag', () => {
    const view = toolResultView({
      name: 'write_file',
      args: {},
      content:
        'plan mode: write_file is not allowed; present the plan and let the user switch modes (e.g. --permission-mode default) before changing anything',
      isError: true,
    });
    expect(view.summary).toBe('error: plan mode: write_file is not allowed · Shift+Tab switches the mode');
  });
});

describe('the footer counts', () => {
  it('shells apart from sub-agents', () => {
    const shell = job({ number: 1, id: 'sh-1', kind: 'shell', startedAt: 0 });
    expect(statusSegment([shell], 8000).text).toBe('shells: 1 running');
    const both = statusSegment([job({ number: 1, startedAt: 0 }), shell], 8000);
    expect(both.text).toBe('subagents: 1 running (oldest 8s) · shells: 1 running');
    expect(both.short).toBe('1 running · sh 1 running');
  });
});

describe('/agents at 60 columns', () => {
  it('keeps most of the task, dropping the figures the opened job shows', async () => {
    const views = [
      jobView({ number: 1, task: 'Find where the config is loaded and list its callers', startedAt: 0, toolCalls: 3 }),
      jobView({ number: 2, task: 'Summarize the README', state: 'done', startedAt: 0, endedAt: 15_000, definition: 'general' }),
    ];
    const out = await show(<AgentsList jobs={views} selected={0} now={20_000} width={60} />);
    expect(out).toMatch(/› sub-1 {2}running {2}20s {2}Find where the config is loaded/);
    expect(out).toMatch(/ {2}sub-2 {2}done {5}15s {2}Summarize the README/);
    // Wide, every figure stays.
    const wide = await show(<AgentsList jobs={views} selected={0} now={20_000} width={120} />);
    expect(wide).toMatch(
      /sub-1 {2}running {2}explore {2}20s {2}0 tok {2}3 tools {2}Find where the config is loaded and list its ca/,
    );
  });
});

describe('a completion during a stream', () => {
  it('is committed after the answer on its way, never between the prompt and it', () => {
    let seq = 0;
    const batch = (...list: SessionEvent[]): UiItem[] => list.map((event) => ({ kind: 'event', item: { seq: ++seq, event } }));
    const answer: Message = { role: 'assistant', content: [{ type: 'text', text: 'First part.\n\nSecond part.' }] };
    const state = [
      batch({ type: 'job_state', job: job({ number: 1, task: 'find the loader' }) }),
      batch({ type: 'submit', prompt: 'go on' }, { type: 'text_delta', text: 'First part.\n\nSec' }),
      batch({ type: 'job_state', job: job({ number: 1, state: 'done', task: 'find the loader' }) }),
      batch({ type: 'text_delta', text: 'ond part.' }, { type: 'message_end', message: answer, stopReason: 'end_turn' }),
    ].reduce((s, items) => reduceBatch(s, items), initialUiState({ intro: [], storedJobs: [], wakeOnComplete: true }));
    const kinds = state.transcript.entries.map((entry) => entry.kind);
    expect(kinds).toEqual(['user', 'assistant', 'assistant', 'jobs']);
    expect(state.transcript.entries[3]).toMatchObject({ lines: ['sub-1 finished: find the loader'] });
  });
});

describe('a code block while it streams', () => {
  it('shows its code as the finished block will, never the open fence', async () => {
    const out = await show(<LiveRegion text={'Here:\n\n```ts\nconst a = 1;\nconst b = '} tools={[]} width={60} />);
    expect(out).not.toContain('```');
    expect(out).toContain('  const a = 1;\n  const b =');
    expect(withoutFences('~~~\nx\n~~~\nafter')).toBe('  x\nafter');
  });
});

describe('/resume with the start of an id', () => {
  const current = '20261204-091500-aaaaaa';
  const ids = [current, '20261203-120000-bbbbbb', '20261204-080000-cccccc'];
  it('picks the one other session it names, though every id of the day starts alike', () => {
    expect(resumeTarget('20261203', current, ids)).toEqual({ id: '20261203-120000-bbbbbb' });
    expect(resumeTarget('20261204', current, ids)).toEqual({ id: '20261204-080000-cccccc' });
  });
  it('refuses only the current session, and names the choices when several match', () => {
    expect(resumeTarget(current, current, ids)).toEqual({ error: `${current} is this session` });
    expect(resumeTarget('20261204-09', current, ids)).toMatchObject({
      error: expect.stringContaining('names only this session'),
    });
    expect(resumeTarget('2026', current, ids)).toMatchObject({ error: expect.stringContaining('matches 2 other sessions') });
    expect(resumeTarget('1999', current, ids)).toMatchObject({ error: expect.stringContaining('no session "1999"') });
  });
});
