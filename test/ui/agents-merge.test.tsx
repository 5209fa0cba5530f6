import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeReply } from '../support/fake-stream.js';
import { fakeStream } from '../support/fake-stream.js';
import { KEY, type TestSession, frame, fromChild, keys, mountApp, openTestSession } from './harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
  });
}

/** A repository and a session whose parent starts three isolated jobs, each writing its own file; all three done. */
async function threeJobsDone() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-ui-mq-'));
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'a.txt'), 'original\n');
  writeFileSync(path.join(dir, '.gitignore'), '.home/\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  const files = ['b.txt', 'c.txt', 'd.txt'];
  const stream = fakeStream((request): FakeReply => {
    if (fromChild(request.system)) {
      const file = files.find((name) => JSON.stringify(request.messages[0]).includes(`write ${name}`))!;
      if (request.messages.length === 1)
        return { toolCalls: [{ name: 'write_file', args: { path: file, content: `${file}\n` } }] };
      return { text: `wrote ${file}` };
    }
    if (request.messages.length === 1) {
      return {
        toolCalls: files.map((file) => ({
          name: 'agent_start',
          args: { task: `write ${file}`, agent: 'general', isolation: 'worktree' },
        })),
      };
    }
    return { text: 'started' };
  });
  session = await openTestSession([], { stream, dir, wakeOnComplete: false });
  const s = session;
  s.ui.setPermissionMode('yolo');
  const app = await mountApp(s);
  await keys(app.rendered, 'go', KEY.enter);
  await app.until(() => s.opened.agents.manager.list().every((job) => job.state === 'done') && s.ui.worktrees?.().length === 3);
  return { s, dir, ...app };
}

describe('/agents merge with several jobs (a real session, real git)', () => {
  it('applies the jobs typed, in that order, then lists no worktree; a bad list is refused whole', async () => {
    const { s, dir, rendered, until } = await threeJobsDone();

    await keys(rendered, '/agents merge 1 1 ../x', KEY.enter);
    const refused = await until(() => frame(rendered).includes('Nothing was merged:') && frame(rendered));
    expect(refused).toContain('- sub-1 is named more than once');
    expect(refused).toContain('- "../x" is not a job id');
    expect(s.ui.worktrees?.()).toHaveLength(3);

    await keys(rendered, '/agents merge 3 sub-1 2', KEY.enter);
    await until(() => frame(rendered).includes('Merged sub-3, sub-1, sub-2, in that order: applied'));
    expect(frame(rendered)).toContain('merging 3 sub-1 2 into the checkout…');
    for (const file of ['b.txt', 'c.txt', 'd.txt']) expect(readFileSync(path.join(dir, file), 'utf8')).toBe(`${file}\n`);
    expect(s.ui.worktrees?.()).toEqual([]);
    expect(git(dir, 'branch', '--list', 'outrider/*').trim()).toBe('');
    expect(existsSync(path.join(dir, 'a.txt'))).toBe(true);
  });
});
