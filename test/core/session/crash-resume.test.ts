/**
 * A session that dies while two sub-agents run (one in a worktree that wrote a file), resumed
 * in the same folder: real sessions (openSession, every part wired as in production) over a
 * fake stream. The first session is never closed: as after `kill -9`, only the store survives
 * to the second. The binary's own run of this is test/e2e/continue-after-kill.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED } from '../../../src/core/jobs/interrupted.js';
import { toAnthropicParams } from '../../../src/core/providers/anthropic.js';
import type { ModelRequest } from '../../../src/core/providers/types.js';
import { turnOrderError } from '../../support/mock-wire.js';
import { isChildRequest, testDirs, useTestSessions } from '../../support/test-session.js';
import { until } from '../../support/until.js';

const openWith = useTestSessions();

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });
}

const wire = (request: ModelRequest) => JSON.stringify(request.messages);
const isSub = (n: number) => (request: ModelRequest) => isChildRequest(request) && wire(request).includes(`JOB ${n}`);

describe('resuming a session that died while its sub-agents ran', () => {
  it('lists them as interrupted, salvages the worktree, tells the model once with what each did, and agent_send resumes one with its history', async () => {
    const dirs = testDirs();
    git(dirs.cwd, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(dirs.cwd, 'a.txt'), 'original\n');
    git(dirs.cwd, 'add', '-A');
    git(dirs.cwd, 'commit', '-q', '-m', 'first');

    const first = await openWith(
      (request) => {
        if (isSub(1)(request) && request.messages.length === 1) {
          return { text: 'Listing the project first.', toolCalls: [{ name: 'list_dir', args: {} }] };
        }
        if (isSub(2)(request) && request.messages.length === 1) {
          return { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'what JOB 2 found\n' } }] };
        }
        if (!isChildRequest(request) && request.messages.length === 1) {
          return {
            toolCalls: [
              { name: 'agent_start', args: { task: 'JOB 1: survey the project' } },
              { name: 'agent_start', args: { task: 'JOB 2: write notes.txt', agent: 'general', isolation: 'worktree' } },
            ],
          };
        }
        // Everything after: the process dies while these wait.
        return { hang: true };
      },
      { dirs, flags: { permissionMode: 'yolo' } },
    );
    void first.submit('start both');
    await until(
      () =>
        first.stream.requests.filter(isSub(1)).length === 2 &&
        first.stream.requests.filter(isSub(2)).length === 2 &&
        first.stream.requests.filter((r) => !isChildRequest(r)).length === 2,
      { what: 'both jobs and the parent waiting on the model', observe: () => first.stream.requests.length },
    );
    const sessionId = first.session.session.id;
    const worktree = first.session.agents.worktrees!.get('sub-2')!;
    expect(existsSync(path.join(worktree.path, 'notes.txt'))).toBe(true);

    let parentStep = 0;
    const second = await openWith(
      (request) => {
        if (isChildRequest(request)) return { text: 'sub-1 finished after all' };
        parentStep += 1;
        if (parentStep === 1)
          return { toolCalls: [{ name: 'agent_send', args: { id: 'sub-1', message: 'go on from where you were' } }] };
        return { text: 'noted' };
      },
      { dirs, flags: { permissionMode: 'yolo', continue: true } },
    );
    expect(second.session.session.id).toBe(sessionId);

    // The worktree job's uncommitted file is on its branch.
    expect(git(dirs.cwd, 'show', `${worktree.branch}:notes.txt`)).toBe('what JOB 2 found\n');
    const salvaged = `salvaged: 1 file (notes.txt) committed to branch ${worktree.branch}`;
    // What /agents lists.
    expect(second.session.jobs().map((j) => [j.id, j.state, j.interrupted, j.error])).toEqual([
      ['sub-1', 'error', true, INTERRUPTED],
      ['sub-2', 'error', true, `${INTERRUPTED}; ${salvaged}`],
    ]);
    expect(second.session.storedJobs.map((s) => s.job.error)).toEqual([INTERRUPTED, `${INTERRUPTED}; ${salvaged}`]);

    await second.submit('what happened?');
    await second.session.waitForAgents(new AbortController().signal);
    await second.submit(undefined);

    const parents = second.stream.requests.filter((r) => !isChildRequest(r));
    // Every request a strict provider would take: the prompt after the notice, after the tool results the crash left.
    for (const request of second.stream.requests) expect(turnOrderError('anthropic', toAnthropicParams(request))).toBeUndefined();
    const firstRequest = wire(parents[0]!);
    expect(firstRequest.match(/Interrupted: the session ended/g)).toHaveLength(1);
    expect(firstRequest).toContain('before sub-1 and sub-2 finished');
    expect(firstRequest).toContain('- sub-1 (explore): 1 turn, 1 tool call; last text: \\"Listing the project first.\\"');
    expect(firstRequest).toContain(`- sub-2 (general): 1 turn, 1 tool call; ${salvaged}; no text yet`);
    expect(firstRequest).toContain('what happened?');
    // No later request names them as interrupted again.
    for (const later of parents.slice(1)) expect(wire(later).match(/Interrupted: the session ended/g)).toHaveLength(1);

    // sub-1 went on with its history: its task, its call and result, then the message.
    const resumed = second.stream.requests.filter(isSub(1));
    expect(resumed).toHaveLength(1);
    const history = wire(resumed[0]!);
    expect(history).toContain('JOB 1: survey the project');
    expect(history).toContain('Listing the project first.');
    expect(history).toContain('"name":"list_dir"');
    expect(history).toContain('Message from the parent agent:\\ngo on from where you were');
    expect(second.session.jobs()[0]).toMatchObject({ id: 'sub-1', state: 'done', result: 'sub-1 finished after all' });
    expect(wire(parents.at(-1)!)).toContain('Sub-agent sub-1 completed.');
  });
});
