import { describe, expect, it } from 'vitest';
import type { WorktreeRecord } from '../../../src/core/worktrees/worktree-jobs.js';
import { AgentsView } from '../../../src/ui/components/agents-view.js';
import type { JobView } from '../../../src/ui/state/jobs.js';
import { KEY, frame, jobView, keys, mount, settle } from '../harness.js';

const running = jobView(
  { number: 1, task: 'Fix the flaky test', startedAt: 0, toolCalls: 2 },
  {
    activity: { kind: 'tool', name: 'read_file', label: 'src/a.ts', args: { path: '/w/src/a.ts' } },
    tail: [
      'user: Task: Fix the flaky test',
      {
        call: 't1',
        name: 'read_file',
        args: { path: '/w/src/a.ts' },
        label: 'src/a.ts',
        outcome: 'export const a = 1; (+40 lines)',
      },
      { call: 't2', name: 'bash', args: { command: 'npm test' }, label: 'npm test' },
    ],
  },
);
const isolatedDone = jobView(
  { number: 2, state: 'done', definition: 'general', task: 'Edit a.txt', startedAt: 0, endedAt: 9000, result: 'edited' },
  { activity: { kind: 'ended' } },
);
const isolatedRunning = jobView({ number: 3, definition: 'general', task: 'Edit b.txt', startedAt: 0 });
const shell = jobView({ number: 1, id: 'sh-1', kind: 'shell', task: 'npm run dev', startedAt: 0 });

const record = (jobId: string, changes?: WorktreeRecord['changes']): WorktreeRecord => ({
  jobId,
  repo: '/w',
  path: `/s/worktrees/${jobId}`,
  branch: `outrider/s1/${jobId}`,
  base: 'abc',
  ...(changes ? { changes } : {}),
});
const worktrees = [record('sub-2', { files: ['a.txt'], insertions: 1, deletions: 1 }), record('sub-3')];

interface Calls {
  stopped: string[];
  sent: [string, string][];
  worktree: [string, string][];
}

/** The view with recording callbacks; `answer` is what a merge or discard resolves with. */
async function view(
  jobs: JobView[],
  options: { sendOk?: boolean; answer?: { content: string; isError: boolean }; width?: number } = {},
) {
  const calls: Calls = { stopped: [], sent: [], worktree: [] };
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  const rendered = await mount(
    <AgentsView
      jobs={jobs}
      now={30_000}
      width={options.width ?? 110}
      active
      onStop={(id) => calls.stopped.push(id)}
      onClose={() => {}}
      onSend={(id, text) => {
        calls.sent.push([id, text]);
        return options.sendOk ?? true;
      }}
      onWorktree={async (verb, id) => {
        calls.worktree.push([verb, id]);
        await held;
        return (
          options.answer ?? {
            content: `Merged ${id}: applied a.txt to the checkout (uncommitted); its worktree and branch are removed.`,
            isError: false,
          }
        );
      }}
      worktrees={worktrees}
      root="/w"
    />,
  );
  return { rendered, calls, release };
}

const lastLine = (text: string) => text.trimEnd().split('\n').at(-2) ?? '';

describe('/agents: talking to a job', () => {
  it('shows tool calls folded with their outcome, and the keys it takes while the message line is closed', async () => {
    const { rendered } = await view([running]);
    await keys(rendered, KEY.enter);
    const text = frame(rendered);
    expect(text).toContain('● read_file src/a.ts ⎿ export const a = 1; (+40 lines)');
    expect(text).toContain('● bash npm test …');
    expect(lastLine(text)).toContain('Enter write a message · x stop · Esc back');
    expect(text).not.toContain('m merge');
  });

  it('Enter opens the message line; there x, m and d are text, Enter sends it to the job, and the line closes', async () => {
    const { rendered, calls } = await view([isolatedDone, running]);
    await keys(rendered, KEY.down, KEY.enter, KEY.enter);
    expect(lastLine(frame(rendered))).toContain('Enter send to sub-1 · Esc cancel');
    await keys(rendered, 'x', 'm', 'd', ' stop; make it pass');
    expect(frame(rendered)).toContain('› xmd stop; make it pass');
    expect(calls.stopped).toEqual([]);
    expect(calls.worktree).toEqual([]);
    await keys(rendered, KEY.enter);
    expect(calls.sent).toEqual([['sub-1', 'xmd stop; make it pass']]);
    const after = frame(rendered);
    expect(after).not.toContain('› xmd');
    expect(lastLine(after)).toContain('Enter write a message · x stop · Esc back');
    // The line is closed again: x stops.
    await keys(rendered, 'x');
    expect(calls.stopped).toEqual(['sub-1']);
  });

  it('takes a typed line that arrives in one chunk with its Enter', async () => {
    const { rendered, calls } = await view([running]);
    await keys(rendered, KEY.enter, KEY.enter, 'look at b.ts\r');
    expect(calls.sent).toEqual([['sub-1', 'look at b.ts']]);
  });

  it('a letter typed while the line is closed says how to write, and does nothing else', async () => {
    const { rendered, calls } = await view([running]);
    await keys(rendered, KEY.enter, 'h');
    expect(frame(rendered)).toContain('press Enter to write sub-1 a message');
    expect(calls).toEqual({ stopped: [], sent: [], worktree: [] });
  });

  it("ignores the terminal's focus reports while the line is closed, and takes them as no text while it is open", async () => {
    const { rendered, calls } = await view([running]);
    await keys(rendered, KEY.enter, '\u001B[I', '\u001B[O');
    expect(frame(rendered)).not.toContain('press Enter to write');
    await keys(rendered, KEY.enter, '\u001B[O', 'ok', '\u001B[I', KEY.enter);
    expect(calls.sent).toEqual([['sub-1', 'ok']]);
  });

  it('Esc cancels the message (the draft is dropped), a second Esc goes back to the list', async () => {
    const { rendered, calls } = await view([running]);
    await keys(rendered, KEY.enter, KEY.enter, 'half a thought', KEY.escape);
    expect(frame(rendered)).not.toContain('half a thought');
    expect(frame(rendered)).toContain('Task: Fix the flaky test');
    await keys(rendered, KEY.enter);
    expect(frame(rendered)).not.toContain('half a thought');
    await keys(rendered, KEY.escape, KEY.escape);
    expect(frame(rendered)).toContain('Sub-agents (1)');
    expect(calls.sent).toEqual([]);
  });

  it('refuses an empty message, and keeps the line open when sending failed', async () => {
    const { rendered, calls } = await view([running], { sendOk: false });
    await keys(rendered, KEY.enter, KEY.enter, '   ', KEY.enter);
    expect(frame(rendered)).toContain('the message is empty: type what the sub-agent should do');
    expect(calls.sent).toEqual([]);
    await keys(rendered, 'retry', KEY.enter);
    expect(calls.sent).toEqual([['sub-1', '   retry']]);
    expect(frame(rendered)).toContain('›    retry');
  });

  it('a running shell takes a line on its stdin; an ended one says nothing reads it', async () => {
    const { rendered, calls } = await view([shell]);
    await keys(rendered, KEY.enter);
    expect(lastLine(frame(rendered))).toContain('Enter write a line to its input');
    await keys(rendered, KEY.enter, 'yes', KEY.enter);
    expect(calls.sent).toEqual([['sh-1', 'yes']]);

    const ended = await view([{ ...shell, job: { ...shell.job, state: 'done' as const, endedAt: 5_000 } }]);
    await keys(ended.rendered, KEY.enter);
    expect(lastLine(frame(ended.rendered))).toContain('Esc back');
    expect(lastLine(frame(ended.rendered))).not.toContain('Enter');
    await keys(ended.rendered, KEY.enter);
    expect(frame(ended.rendered)).toContain('sh-1 has ended: nothing reads its input any more');
    expect(ended.calls.sent).toEqual([]);
  });

  it('shows the messages a job got in its detail and its list row', async () => {
    const got = { ...running, unread: 1, messages: 2 };
    const { rendered } = await view([got]);
    expect(frame(rendered)).toMatch(/sub-1 .*1 message waiting · Fix the flaky test/);
    await keys(rendered, KEY.enter);
    expect(frame(rendered)).toContain('Messages: 1 message from you waiting for its next step, 2 messages received');
  });
});

describe('/agents: worktrees', () => {
  it('lists the worktrees waiting for merge or discard, with branch and files changed', async () => {
    const { rendered } = await view([running, isolatedDone, isolatedRunning]);
    const text = frame(rendered);
    expect(text).toContain('Worktrees waiting for merge or discard (2): open the job, then m merges, d twice discards');
    expect(text).toContain('sub-2  branch outrider/s1/sub-2 · 1 file changed (+1 −1): a.txt');
    expect(text).toContain('sub-3  branch outrider/s1/sub-3 · running: changes are counted when it ends');
  });

  it('lists worktrees even with no job to show (a session whose jobs are not in the list)', async () => {
    const { rendered } = await view([]);
    expect(frame(rendered)).toContain('sub-2  branch outrider/s1/sub-2 · 1 file changed');
  });

  it('m merges an ended job and shows the outcome; the keys wait while it runs', async () => {
    const { rendered, calls, release } = await view([running, isolatedDone]);
    await keys(rendered, KEY.down, KEY.enter);
    const detail = frame(rendered);
    expect(detail).toContain('Worktree: branch outrider/s1/sub-2 · 1 file changed (+1 −1): a.txt');
    expect(lastLine(detail)).toContain('Enter write a message · m merge into the checkout · d twice discard · Esc back');
    await keys(rendered, 'm');
    expect(frame(rendered)).toContain('merging sub-2 into the checkout…');
    await keys(rendered, 'm', 'd', 'd');
    expect(calls.worktree).toEqual([['merge', 'sub-2']]);
    release();
    await settle();
    expect(frame(rendered)).toContain('Merged sub-2: applied a.txt to the checkout (uncommitted)');
  });

  it('shows each conflicting file when a merge is refused', async () => {
    const { rendered, release } = await view([isolatedDone], {
      answer: {
        content: [
          'Did not merge sub-2: nothing in the checkout was changed. Conflicting files:',
          '- a.txt: conflict (content)',
          '- b.txt: conflict (content)',
        ].join('\n'),
        isError: true,
      },
    });
    release();
    await keys(rendered, KEY.enter, 'm');
    const text = frame(rendered);
    expect(text).toContain('Did not merge sub-2: nothing in the checkout was changed. Conflicting files:');
    expect(text).toContain('- a.txt: conflict (content)');
    expect(text).toContain('- b.txt: conflict (content)');
  });

  it('d discards only on a second press in a row', async () => {
    const { rendered, calls, release } = await view([isolatedDone], {
      answer: { content: 'Discarded sub-2: its worktree and branch are removed.', isError: false },
    });
    release();
    await keys(rendered, KEY.enter, 'd');
    expect(frame(rendered)).toContain("press d again to discard sub-2's worktree and branch: its changes are lost");
    // Another key in between disarms it.
    await keys(rendered, 'q', 'd');
    expect(calls.worktree).toEqual([]);
    await keys(rendered, 'd');
    expect(calls.worktree).toEqual([['discard', 'sub-2']]);
    await settle();
    expect(frame(rendered)).toContain('Discarded sub-2: its worktree and branch are removed.');
  });

  it('refuses m and d while the job runs, with a line saying why', async () => {
    const { rendered, calls } = await view([isolatedRunning]);
    await keys(rendered, KEY.enter);
    expect(lastLine(frame(rendered))).not.toContain('m merge');
    await keys(rendered, 'm');
    expect(frame(rendered)).toContain('sub-3 is still running: merge it once it has ended (x stops it)');
    await keys(rendered, 'd', 'd');
    expect(frame(rendered)).toContain('sub-3 is still running: discard it once it has ended (x stops it)');
    expect(calls.worktree).toEqual([]);
  });

  it('m and d mean nothing for a job without a worktree', async () => {
    const { rendered, calls } = await view([running]);
    await keys(rendered, KEY.enter, 'm', 'd', 'd');
    expect(calls).toEqual({ stopped: [], sent: [], worktree: [] });
  });
});
