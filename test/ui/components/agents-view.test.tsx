import { describe, expect, it } from 'vitest';
import { AgentsView } from '../../../src/ui/components/agents-view.js';
import type { JobView } from '../../../src/ui/state/jobs.js';
import { KEY, frame, jobView, keys, mount } from '../harness.js';

const jobs: JobView[] = [
  jobView(
    {
      number: 1,
      task: 'Find where the config is loaded and list its callers',
      startedAt: 0,
      toolCalls: 3,
      usage: { input: 4000, output: 500, cacheRead: 0, cacheWrite: 0 },
    },
    {
      activity: { kind: 'tool', name: 'grep', label: 'loadConfig' },
      tail: [
        'user: Task: Find where the config is loaded',
        'assistant: Looking. · → grep {"pattern":"loadConfig"}',
        'result: src/config.ts:12: export function loadConfig',
      ],
    },
  ),
  jobView(
    {
      number: 2,
      state: 'done',
      definition: 'general',
      task: 'Summarize the README',
      startedAt: 10_000,
      endedAt: 25_000,
      toolCalls: 1,
      result: 'The README explains setup.\nIt has three sections.',
    },
    { activity: { kind: 'ended' } },
  ),
  jobView(
    { number: 3, state: 'error', task: 'Count files', startedAt: 0, endedAt: 5000, error: 'maxTurns limit reached (10 turns)' },
    { activity: { kind: 'ended' } },
  ),
];

async function view(onStop: (id: string) => void = () => {}, onClose: () => void = () => {}) {
  return mount(<AgentsView jobs={jobs} now={80_000} width={100} active onStop={onStop} onClose={onClose} />);
}

describe('/agents', () => {
  it('lists every job with id, state, definition, elapsed, tokens, tool calls and label', async () => {
    const rendered = await view();
    const text = frame(rendered);
    expect(text).toContain('Sub-agents (3)');
    expect(text).toMatch(/› sub-1\s+running\s+explore\s+1m20s\s+4.5k tok\s+3 tools\s+Find where the config is loaded/);
    expect(text).toMatch(/ {2}sub-2\s+done\s+general\s+15s\s+0 tok\s+1 tool\s+Summarize the README/);
    expect(text).toMatch(/sub-3\s+error\s+explore\s+5s/);
    expect(text).toContain('↑/↓ move · Enter open · x stop · Esc back');
  });

  it('moves the selection with ↑/↓ and stops the selected job with x', async () => {
    const stopped: string[] = [];
    const rendered = await view((id) => stopped.push(id));
    await keys(rendered, KEY.down, KEY.down, KEY.down);
    expect(frame(rendered)).toMatch(/› sub-3/);
    await keys(rendered, KEY.up, KEY.up);
    expect(frame(rendered)).toMatch(/› sub-1/);
    await keys(rendered, 'x');
    expect(stopped).toEqual(['sub-1']);
    // A finished job cannot be stopped.
    await keys(rendered, KEY.down, 'x');
    expect(stopped).toEqual(['sub-1']);
  });

  it('opens a running job: task, live activity and the tail of its conversation; x stops it, Esc goes back', async () => {
    const stopped: string[] = [];
    let closed = 0;
    const rendered = await view(
      (id) => stopped.push(id),
      () => (closed += 1),
    );
    await keys(rendered, KEY.enter);
    const text = frame(rendered);
    expect(text).toContain('sub-1 · explore · running 1m20s · 3 tools · 4.5k tok');
    expect(text).toContain('Task: Find where the config is loaded and list its callers');
    expect(text).toContain('Now: grep loadConfig');
    expect(text).toContain('user: Task: Find where the config is loaded');
    expect(text).toContain('assistant: Looking. · → grep {"pattern":"loadConfig"}');
    expect(text).toContain('result: src/config.ts:12: export function loadConfig');
    await keys(rendered, 'x');
    expect(stopped).toEqual(['sub-1']);
    await keys(rendered, KEY.escape);
    expect(frame(rendered)).toContain('Sub-agents (3)');
    expect(closed).toBe(0);
    await keys(rendered, KEY.escape);
    expect(closed).toBe(1);
  });

  it('shows the result of a finished job and the error of a failed one', async () => {
    const rendered = await view();
    await keys(rendered, KEY.down, KEY.enter);
    let text = frame(rendered);
    expect(text).toContain('Result:');
    expect(text).toMatch(/│ The README explains setup\. +│\n│ It has three sections\. +│/);
    expect(text).toContain('no messages yet');
    await keys(rendered, KEY.escape, KEY.down, KEY.enter);
    text = frame(rendered);
    expect(text).toContain('Error: maxTurns limit reached (10 turns)');
  });

  it('handles keys that arrive in one chunk in order', async () => {
    const rendered = await view();
    await keys(rendered, `${KEY.down}${KEY.enter}`);
    expect(frame(rendered)).toContain('Task: Summarize the README');
  });

  it('says so when there are no jobs', async () => {
    const rendered = await mount(<AgentsView jobs={[]} now={0} width={100} active onStop={() => {}} onClose={() => {}} />);
    expect(frame(rendered)).toContain('No sub-agents have been started in this session.');
  });
});
