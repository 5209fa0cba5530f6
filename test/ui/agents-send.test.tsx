import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/core/providers/types.js';
import type { FakeReply } from '../support/fake-stream.js';
import { fakeStream } from '../support/fake-stream.js';
import { KEY, type TestSession, frame, fromChild, keys, mountApp, openTestSession } from './harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const lastText = (request: ModelRequest) => JSON.stringify(request.messages[request.messages.length - 1]);
const childRequests = (requests: ModelRequest[]) => requests.filter((r) => fromChild(r.system));

describe('messages to sub-agents from the TUI (a real session, the fake clock)', () => {
  it('the job view sends a typed line to a running job; the job reads it at its next step and its transcript shows it', async () => {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const stream = fakeStream((request): FakeReply => {
      if (fromChild(request.system)) {
        // Held in its first model call, so the message waits in its inbox for the step after.
        if (request.messages.length === 1) return { wait: held, toolCalls: [{ name: 'list_dir', args: { path: '.' } }] };
        return { text: 'counted' };
      }
      if (lastText(request).includes('tool_result')) return { text: 'Started.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'count the files' } }] };
    });
    session = await openTestSession([], { stream });
    const s = session;
    const { rendered, until } = await mountApp(s);
    await keys(rendered, 'go', KEY.enter);
    await until(() => frame(rendered).includes('Started.') && s.opened.agents.manager.get('sub-1').state === 'running');
    await keys(rendered, '/agents', KEY.enter);
    await until(() => frame(rendered).includes('Sub-agents (1)'));
    await keys(rendered, KEY.enter, KEY.enter, 'x and md files too', KEY.enter);
    const waiting = await until(() => frame(rendered).includes('Messages: 1 message from you waiting') && frame(rendered));
    expect(waiting).toContain('sent to sub-1: it reads it at its next step');
    // The typed x did not stop it.
    expect(s.opened.agents.manager.get('sub-1').state).toBe('running');

    release();
    await until(() => s.opened.agents.manager.get('sub-1').state === 'done');
    const [, second] = childRequests(stream.requests);
    expect(lastText(second!)).toContain('Message from the user:\\nx and md files too');
    // It comes back through the job's events into the job view's transcript, after the call and its result.
    const detail = await until(() => frame(rendered).includes('› x and md files too') && frame(rendered));
    expect(detail).toMatch(/● list_dir \.\n {2}⎿ [^\n]*\n[\s\S]*› x and md files too\n[\s\S]*counted/);
    expect(detail).toContain('Messages: 1 message received');
  });

  it('a message sent while the job gives its final answer is read: the run goes on instead of losing it', async () => {
    let release = (): void => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const stream = fakeStream((request): FakeReply => {
      if (fromChild(request.system)) {
        // Held in the call that answers without a tool: no step boundary comes after it.
        if (request.messages.length === 1) return { wait: held, text: 'early answer' };
        return { text: 'answer with the message' };
      }
      if (lastText(request).includes('tool_result')) return { text: 'Started.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'count the files' } }] };
    });
    session = await openTestSession([], { stream, wakeOnComplete: false });
    const s = session;
    const { rendered, until } = await mountApp(s);
    await keys(rendered, 'go', KEY.enter);
    await until(() => frame(rendered).includes('Started.') && s.opened.agents.manager.get('sub-1').state === 'running');
    await keys(rendered, '/agents send sub-1 count tests too', KEY.enter);
    await until(() => frame(rendered).includes('Sent to sub-1; it reads it at its next step.'));
    release();
    await until(() => s.opened.agents.manager.get('sub-1').state === 'done');
    const requests = childRequests(stream.requests);
    expect(requests).toHaveLength(2);
    expect(lastText(requests[1]!)).toContain('Message from the user:\\ncount tests too');
    expect(s.opened.agents.manager.get('sub-1').result).toContain('answer with the message');
  });

  it('/agents send resumes an ended job with its history and the message; errors are said', async () => {
    const stream = fakeStream((request): FakeReply => {
      if (fromChild(request.system)) return { text: request.messages.length === 1 ? 'first answer' : 'second answer' };
      if (request.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'find the loader' } }] };
      return { text: 'ok' };
    });
    session = await openTestSession([], { stream, wakeOnComplete: false });
    const s = session;
    const { rendered, until } = await mountApp(s);
    await keys(rendered, 'go', KEY.enter);
    await until(() => s.opened.agents.manager.get('sub-1').state === 'done' && frame(rendered).includes('sub-1 finished'));

    await keys(rendered, '/agents send sub-9 hello', KEY.enter);
    await until(() => frame(rendered).includes('✗ unknown sub-agent id "sub-9". Known ids: sub-1.'));
    await keys(rendered, '/agents send sub-1', KEY.enter);
    await until(() => frame(rendered).includes('✗ /agents send sub-1: the message is empty'));
    expect(childRequests(stream.requests)).toHaveLength(1);

    await keys(rendered, '/agents send 1 now the tests', KEY.enter);
    await until(() =>
      frame(rendered).includes('Resumed sub-1 with your message (queued); its new result is announced when it completes.'),
    );
    await until(() => s.opened.agents.manager.get('sub-1').state === 'done' && childRequests(stream.requests).length === 2);
    const resumed = childRequests(stream.requests)[1]!;
    // Its whole history, then the message.
    expect(JSON.stringify(resumed.messages)).toContain('first answer');
    expect(lastText(resumed)).toContain('Message from the user:\\nnow the tests');
    await keys(rendered, '/agents', KEY.enter, KEY.enter);
    // The job view: its whole transcript, the first run, the message and the second run.
    const detail = await until(() => frame(rendered).includes('second answer') && frame(rendered));
    expect(detail).toMatch(/first answer\n[\s\S]*› now the tests\n[\s\S]*second answer/);
  });
});

describe('a line to a background shell from the TUI (a real process)', () => {
  it("/agents send writes to a running shell's stdin; once it has ended, the same is refused", async () => {
    const stream = fakeStream((request): FakeReply => {
      if (request.messages.length === 1)
        return {
          toolCalls: [{ name: 'bash', args: { command: 'read line; echo "got:$line" > got.txt', run_in_background: true } }],
        };
      return { text: 'Waiting for it.' };
    });
    session = await openTestSession([], { stream, wakeOnComplete: false });
    const s = session;
    const { rendered, until } = await mountApp(s);
    await keys(rendered, 'go', KEY.enter);
    await until(() => frame(rendered).includes('Allow the agent to run read line'));
    await keys(rendered, 'y');
    await until(() => frame(rendered).includes('Waiting for it.') && s.opened.agents.manager.get('sh-1').state === 'running');

    await keys(rendered, '/agents send sh-1 hello there', KEY.enter);
    await until(() => frame(rendered).includes("Wrote to sh-1's stdin."));
    await until(() => s.opened.agents.manager.get('sh-1').state === 'done');
    expect(readFileSync(path.join(s.dir, 'got.txt'), 'utf8')).toBe('got:hello there\n');

    await keys(rendered, '/agents send sh-1 again', KEY.enter);
    await until(() => frame(rendered).includes('it reads no more input. Start a new shell with bash run_in_background.'));
  });
});

describe('worktrees in /agents (a real git repository)', () => {
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
    });

  /** A git repository and a session on it whose parent starts one isolated job that writes new.txt. */
  async function isolatedJobDone() {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-ui-wt-'));
    git(dir, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(dir, 'a.txt'), 'original\n');
    writeFileSync(path.join(dir, '.gitignore'), '.home/\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'first');
    const stream = fakeStream((request): FakeReply => {
      if (fromChild(request.system)) {
        if (request.messages.length === 1)
          return { toolCalls: [{ name: 'write_file', args: { path: 'new.txt', content: 'from the job\n' } }] };
        return { text: 'wrote new.txt' };
      }
      if (request.messages.length === 1)
        return { toolCalls: [{ name: 'agent_start', args: { task: 'write new.txt', agent: 'general', isolation: 'worktree' } }] };
      return { text: 'started' };
    });
    session = await openTestSession([], { stream, dir, wakeOnComplete: false });
    const s = session;
    s.ui.setPermissionMode('yolo');
    const app = await mountApp(s);
    await keys(app.rendered, 'go', KEY.enter);
    await app.until(
      () => s.opened.agents.manager.get('sub-1').state === 'done' && frame(app.rendered).includes('sub-1 finished'),
    );
    expect(existsSync(path.join(dir, 'new.txt'))).toBe(false);
    return { s, dir, ...app };
  }

  it("lists an isolated job's worktree; m in its detail view merges it into the checkout", async () => {
    const { s, dir, rendered, until } = await isolatedJobDone();

    await keys(rendered, '/agents', KEY.enter);
    const list = await until(() => frame(rendered).includes('Worktrees waiting for merge or discard (1)') && frame(rendered));
    expect(list).toMatch(/sub-1 {2}branch outrider\/\S+\/sub-1 · 1 file changed \(\+1 −0\): new\.txt/);
    await keys(rendered, KEY.enter, 'm');
    await until(() => frame(rendered).includes('Merged sub-1: applied new.txt to the checkout (uncommitted)'));
    expect(readFileSync(path.join(dir, 'new.txt'), 'utf8')).toBe('from the job\n');
    expect(s.ui.worktrees?.()).toEqual([]);
    // The merged worktree leaves the list; its job stays.
    await keys(rendered, KEY.escape);
    const after = await until(() => frame(rendered).includes('Sub-agents (1)') && frame(rendered));
    expect(after).not.toContain('Worktrees waiting');
  });

  it("lists a resumed session's earlier worktree; m in its stored job's view merges it", async () => {
    const first = await isolatedJobDone();
    first.rendered.unmount();
    await first.s.opened.close();
    session = undefined;

    const again = await openTestSession([], { dir: first.dir, continue: true });
    session = again;
    const { rendered, until } = await mountApp(again);
    await keys(rendered, '/agents', KEY.enter);
    const list = await until(() => frame(rendered).includes('Worktrees waiting for merge or discard (1)') && frame(rendered));
    expect(list).toMatch(/sub-1 {2}branch outrider\/\S+\/sub-1 · 1 file changed \(\+1 −0\): new\.txt/);
    await keys(rendered, KEY.enter);
    const detail = await until(() => frame(rendered).includes('Worktree: branch outrider/') && frame(rendered));
    expect(detail).toMatch(/Worktree: branch outrider\/\S+\/sub-1 · 1 file changed \(\+1 −0\): new\.txt/);
    expect(detail).toContain('m merge · d twice discard · Esc back');
    await keys(rendered, 'm');
    await until(() => frame(rendered).includes('Merged sub-1: applied new.txt to the checkout (uncommitted)'));
    expect(readFileSync(path.join(first.dir, 'new.txt'), 'utf8')).toBe('from the job\n');
  });
});
