import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { worktreeCommand } from '../../../src/core/worktrees/worktree-tools.js';
import type { ModelRequest } from '../../../src/core/providers/types.js';
import { isChildRequest, testDirs, useTestSessions } from '../../support/test-session.js';

const openWith = useTestSessions();

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });
}

const toolResults = (request: ModelRequest) =>
  request.messages
    .at(-1)!
    .content.filter((b) => b.type === 'tool_result')
    .map((b) => (b as { content: unknown }).content)
    .join('\n');

describe('isolated sub-agents in a session', () => {
  it('two worktree jobs edit the same file in parallel; the first merges, the second names the conflict and changes nothing', async () => {
    const dirs = testDirs();
    git(dirs.cwd, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(dirs.cwd, 'a.txt'), 'original\n');
    git(dirs.cwd, 'add', '-A');
    git(dirs.cwd, 'commit', '-q', '-m', 'first');
    const checkout = path.join(dirs.cwd, 'a.txt');
    let parentStep = 0;
    const { stream, session, submit } = await openWith(
      (request) => {
        if (isChildRequest(request)) {
          const which = JSON.stringify(request.messages[0]).includes('write FIRST') ? 'FIRST' : 'SECOND';
          if (request.messages.length === 1) {
            return {
              toolCalls: [
                // The checkout by its absolute path is outside the child's workspace.
                { name: 'write_file', args: { path: checkout, content: `${which} in the checkout\n` } },
                { name: 'write_file', args: { path: 'a.txt', content: `${which}\n` } },
              ],
            };
          }
          return { text: `wrote ${which}` };
        }
        parentStep += 1;
        switch (parentStep) {
          case 1:
            return {
              toolCalls: [
                { name: 'agent_start', args: { task: 'write FIRST', agent: 'general', isolation: 'worktree' } },
                { name: 'agent_start', args: { task: 'write SECOND', agent: 'general', isolation: 'worktree' } },
              ],
            };
          case 2:
            return {
              toolCalls: [
                { name: 'agent_poll', args: { id: 'sub-1' } },
                { name: 'agent_poll', args: { id: 'sub-2' } },
              ],
            };
          case 3:
            return { toolCalls: [{ name: 'agent_merge', args: { id: 'sub-1' } }] };
          case 4:
            return { toolCalls: [{ name: 'agent_merge', args: { id: 'sub-2' } }] };
          default:
            return { text: 'done' };
        }
      },
      { dirs, flags: { permissionMode: 'yolo' } },
    );
    await submit('edit a.txt twice');

    const parent = stream.requests.filter((r) => !isChildRequest(r));
    const children = stream.requests.filter(isChildRequest);
    expect(JSON.stringify(children.filter((r) => r.messages.length === 3))).toContain('is outside the workspace');
    const polls = toolResults(parent[2]!);
    expect(polls).toContain('branch outrider/');
    expect(polls).toMatch(/sub-1 · 1 file changed \(\+1 −1\): a\.txt/);
    // Both jobs ran and finished without touching the checkout.
    const firstMerge = toolResults(parent[3]!);
    expect(firstMerge).toContain('Merged sub-1: applied a.txt to the checkout');
    expect(firstMerge).toContain('also touched by sub-2: a.txt');
    const secondMerge = toolResults(parent[4]!);
    expect(secondMerge).toContain('Did not merge sub-2: nothing in the checkout was changed. Conflicting files:');
    expect(secondMerge).toContain('- a.txt: conflict (content)');
    expect(readFileSync(checkout, 'utf8')).toBe('FIRST\n');
    expect(git(dirs.cwd, 'status', '--porcelain')).toBe(' M a.txt\n');

    // The merged job's worktree is gone; the conflicting one stays, listed, until discarded.
    const worktrees = session.agents.worktrees!;
    expect(worktrees.list().map((w) => w.jobId)).toEqual(['sub-2']);
    const left = worktrees.get('sub-2')!;
    expect(existsSync(left.path)).toBe(true);
    expect(await worktreeCommand(worktrees, 'discard', '2', (id) => id === 'sub-2')).toMatchObject({
      content: 'sub-2 is still running; stop it or wait for it, then discard it',
      isError: true,
    });
    expect(await worktreeCommand(worktrees, 'discard', '2', () => false)).toEqual({
      content: 'Discarded sub-2: its worktree and branch are removed.',
      isError: false,
    });
    expect(existsSync(left.path)).toBe(false);
    expect((await worktreeCommand(worktrees, 'merge', 'sub-2', () => false)).content).toMatch(/^sub-2 has no worktree/);
    expect(git(dirs.cwd, 'branch', '--list', 'outrider/*').trim()).toBe('');
  });

  it('agent_merge of several jobs runs the merge queue with the check from the settings, then writes the checkout', async () => {
    const dirs = testDirs();
    git(dirs.cwd, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(dirs.cwd, 'a.txt'), 'original\n');
    git(dirs.cwd, 'add', '-A');
    git(dirs.cwd, 'commit', '-q', '-m', 'first');
    mkdirSync(dirs.env.OUTRIDER_HOME!, { recursive: true });
    // The check records each job it ran after, in the session's home (outside the project).
    const log = path.join(dirs.env.OUTRIDER_HOME!, 'checks.log');
    writeFileSync(
      path.join(dirs.env.OUTRIDER_HOME!, 'settings.json'),
      JSON.stringify({ agents: { mergeCheck: `echo "$OUTRIDER_MERGE_JOB" >> ${log}` } }),
    );
    let parentStep = 0;
    const { stream, session, submit } = await openWith(
      (request) => {
        if (isChildRequest(request)) {
          const file = /write (\w+\.txt)/.exec(JSON.stringify(request.messages[0]))![1]!;
          if (request.messages.length === 1)
            return { toolCalls: [{ name: 'write_file', args: { path: file, content: `${file}\n` } }] };
          return { text: `wrote ${file}` };
        }
        parentStep += 1;
        if (parentStep === 1) {
          return {
            toolCalls: ['b.txt', 'c.txt', 'd.txt'].map((file) => ({
              name: 'agent_start',
              args: { task: `write ${file}`, agent: 'general', isolation: 'worktree' },
            })),
          };
        }
        if (parentStep === 2)
          return { toolCalls: ['sub-1', 'sub-2', 'sub-3'].map((id) => ({ name: 'agent_poll', args: { id } })) };
        if (parentStep === 3) return { toolCalls: [{ name: 'agent_merge', args: { id: 'sub-3 sub-1 sub-2' } }] };
        return { text: 'done' };
      },
      { dirs, flags: { permissionMode: 'yolo' } },
    );
    await submit('three jobs, then merge them');

    const merged = toolResults(stream.requests.filter((r) => !isChildRequest(r))[3]!);
    expect(merged).toMatch(/^Merged sub-3, sub-1, sub-2, in that order, `echo .*` passing after each: applied /);
    expect(readFileSync(log, 'utf8')).toBe('sub-3\nsub-1\nsub-2\n');
    for (const file of ['b.txt', 'c.txt', 'd.txt']) expect(readFileSync(path.join(dirs.cwd, file), 'utf8')).toBe(`${file}\n`);
    expect(session.agents.worktrees!.list()).toEqual([]);
    expect(git(dirs.cwd, 'branch', '--list', 'outrider/*').trim()).toBe('');
    // The approval prompt says that the merge runs a command.
    const tool = session.agents.tools.find((t) => t.name === 'agent_merge')!;
    expect(tool.label?.({ id: 'all' })).toBe(`all (runs echo "$OUTRIDER_MERGE_JOB" >> ${log} after each)`);
  });

  it('without isolation, the second running job to write a file is told that the first wrote it too', async () => {
    const dirs = testDirs();
    let releaseA = () => {};
    const aHolds = new Promise<void>((resolve) => (releaseA = resolve));
    let aWrote = () => {};
    const aHasWritten = new Promise<void>((resolve) => (aWrote = resolve));
    let parentStep = 0;
    const { stream, submit } = await openWith(
      (request) => {
        if (isChildRequest(request)) {
          const a = JSON.stringify(request.messages[0]).includes('job A');
          if (request.messages.length === 1) {
            const write = { toolCalls: [{ name: 'write_file', args: { path: 'shared.txt', content: a ? 'A\n' : 'B\n' } }] };
            return a ? write : { ...write, wait: aHasWritten };
          }
          if (a) {
            aWrote();
            return { text: 'A done', wait: aHolds };
          }
          releaseA();
          return { text: 'B done' };
        }
        parentStep += 1;
        if (parentStep === 1) {
          return {
            toolCalls: [
              { name: 'agent_start', args: { task: 'job A', agent: 'general' } },
              { name: 'agent_start', args: { task: 'job B', agent: 'general' } },
            ],
          };
        }
        if (parentStep === 2) {
          return {
            toolCalls: [
              { name: 'agent_poll', args: { id: 'sub-1' } },
              { name: 'agent_poll', args: { id: 'sub-2' } },
            ],
          };
        }
        return { text: 'done' };
      },
      { dirs, flags: { permissionMode: 'yolo' } },
    );
    await submit('two writers');
    const children = stream.requests.filter(isChildRequest).filter((r) => r.messages.length === 3);
    const resultOf = (job: string) => toolResults(children.find((r) => JSON.stringify(r.messages[0]).includes(job))!);
    expect(resultOf('job B')).toContain('Note: sub-1 (still running) also wrote shared.txt in this checkout');
    expect(resultOf('job A')).not.toContain('Note:');
  });

  it('an isolated job’s completion notice ends with its branch and what it changed', async () => {
    const dirs = testDirs();
    git(dirs.cwd, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(dirs.cwd, 'a.txt'), 'original\n');
    git(dirs.cwd, 'add', '-A');
    git(dirs.cwd, 'commit', '-q', '-m', 'first');
    let parentStep = 0;
    const { stream, session, submit } = await openWith(
      (request) => {
        if (isChildRequest(request)) {
          if (request.messages.length === 1)
            return { toolCalls: [{ name: 'write_file', args: { path: 'b.txt', content: 'bee\n' } }] };
          return { text: 'wrote b.txt' };
        }
        parentStep += 1;
        if (parentStep === 1) {
          return { toolCalls: [{ name: 'agent_start', args: { task: 'add b.txt', agent: 'general', isolation: 'worktree' } }] };
        }
        return { text: 'ok' };
      },
      { dirs, flags: { permissionMode: 'yolo' } },
    );
    await submit('start it');
    await session.agents.manager.idle();
    await submit('what happened?');
    const last = stream.requests.filter((r) => !isChildRequest(r)).at(-1)!;
    expect(JSON.stringify(last.messages)).toMatch(
      /Sub-agent sub-1 completed.*sub-1: branch outrider\/[^ ]+\/sub-1 · 1 file changed \(\+1 −0\): b\.txt/,
    );
  });
});
