import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { isChild, lastUserText, useTui } from '../support/tmux.js';
import { until } from '../support/until.js';

/**
 * /agents in the built binary, in tmux, against the mock provider: a message typed in a
 * job's view, `/agents send` resuming a finished job, and merging a worktree with `m`.
 */
const tui = useTui();

const childRequests = () => tui.mock.requests.filter(isChild);
const parentRequests = () => tui.mock.requests.filter((r: RecordedRequest) => !isChild(r));

describe('/agents end to end', () => {
  it("a line typed in a running job's view reaches the job's next request", async () => {
    const pane = await tui.start();
    // The child's first reply waits for the test, so the message is sent while it runs and is read at its next step.
    let release = (): void => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    tui.mock.respond(async (request): Promise<Reply> => {
      if (isChild(request)) {
        if (request.body.messages.length === 1) {
          await released;
          return { toolCalls: [{ name: 'list_dir', args: { path: '.' } }] };
        }
        return { text: 'counted the files' };
      }
      if (lastUserText(request).includes('tool_result')) return { text: 'Started one.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'count the files' } }] };
    });
    pane.type('start a counter');
    await pane.screen(/Started one\.[\s\S]*sub-1 {2}thinking/);
    pane.type('/agents');
    await pane.screen(/Sub-agents \(1\)/);
    pane.key('Enter');
    await pane.screen(/Enter write a message · .* · x stop · Esc back/);
    pane.key('Enter');
    await pane.screen(/Enter send to sub-1 · Esc cancel/);
    // It starts with x: text in the message line, not a stop.
    pane.type('xml files count too');
    await pane.screen(/sent to sub-1: it reads it at its next step/);
    await pane.screen(/1 message from you waiting for its next step/);
    expect(childRequests()).toHaveLength(1);

    release();
    await until(() => childRequests().length === 2, { what: "the child's second request", observe: () => pane.capture() });
    const next = childRequests()[1]!;
    expect(lastUserText(next)).toContain('Message from the user:\\nxml files count too');
    // It comes back through the job's events into the job view's transcript, after the call and its
    // result; the job's end follows (the message can be drawn before it: wait for both).
    const detail = await pane.screen(/sub-1 · explore · done[\s\S]*› xml files count too/);
    expect(detail).toMatch(/● list_dir \.\n {2}⎿ [\s\S]*› xml files count too/);
  });

  it('/agents send to a finished job resumes it with its history and the message', async () => {
    const pane = await tui.start();
    tui.mock.respond((request): Reply => {
      if (isChild(request))
        return { text: request.body.messages.length === 1 ? 'the loader is in src/config.ts' : 'tests: test/config.test.ts' };
      if (request.body.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'find the loader' } }] };
      return { text: 'noted' };
    });
    pane.type('find the loader');
    await pane.screen(/◆ sub-1 finished: find the loader/);
    expect(childRequests()).toHaveLength(1);

    pane.type('/agents send sub-7 hello');
    await pane.screen(/unknown sub-agent id "sub-7"\. Known ids: sub-1\./);
    pane.type('/agents send sub-1 now find its tests');
    await pane.screen(/Resumed sub-1 with your message \(queued\); its new result is announced when it completes\./);
    await until(() => childRequests().length === 2, { what: 'the resumed request', observe: () => pane.capture() });
    const resumed = childRequests()[1]!;
    const messages = JSON.stringify(resumed.body.messages);
    // Its history (task and first answer), then the message.
    expect(messages).toContain('find the loader');
    expect(messages).toContain('the loader is in src/config.ts');
    expect(lastUserText(resumed)).toContain('Message from the user:\\nnow find its tests');
    await pane.screen(/◆ sub-1 finished[\s\S]*◆ sub-1 finished/, { history: true });
    expect(parentRequests().length).toBeGreaterThanOrEqual(2);
  });

  it('lists a worktree job in /agents; m in its view merges it and the file appears in the checkout', async () => {
    const project = tui.tempDir('outrider-wt-project-');
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: project,
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@t',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@t',
        },
      });
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(project, 'a.txt'), 'original\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'first');
    const pane = await tui.start({ project, args: ['--yolo'] });
    tui.mock.respond((request): Reply => {
      if (isChild(request)) {
        if (request.body.messages.length === 1)
          return { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'written in the worktree\n' } }] };
        return { text: 'wrote notes.txt' };
      }
      if (request.body.messages.length === 1)
        return {
          toolCalls: [{ name: 'agent_start', args: { task: 'write notes.txt', agent: 'general', isolation: 'worktree' } }],
        };
      return { text: 'isolated job started' };
    });
    pane.type('write notes in a worktree');
    await pane.screen(/◆ sub-1 finished: write notes\.txt/);
    expect(existsSync(path.join(project, 'notes.txt'))).toBe(false);

    pane.type('/agents');
    const list = await pane.screen(/Worktrees waiting for merge or discard \(1\)/);
    expect(list).toMatch(/sub-1 {2}branch outrider\/\S+\/sub-1 · 1 file changed \(\+1 −0\): notes\.txt/);
    pane.key('Enter');
    await pane.screen(/m merge · d twice discard · Esc back/);
    pane.key('m');
    await pane.screen(/Merged sub-1: applied notes\.txt to the checkout \(uncommitted\)/);
    expect(readFileSync(path.join(project, 'notes.txt'), 'utf8')).toBe('written in the worktree\n');
    // The merged worktree is gone: the list no longer offers it.
    pane.key('Escape');
    const after = await pane.screen(/↑\/↓ move · Enter open · x stop · Esc back/);
    expect(after).not.toContain('Worktrees waiting');
  });
});
